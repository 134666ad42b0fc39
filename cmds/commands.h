/* SPDX-License-Identifier: GPL-2.0 */
/* Every command and group the btrfs binary knows; btrfs.c holds the top table. */
#ifndef BTRFS_KIT_COMMANDS_H
#define BTRFS_KIT_COMMANDS_H

#include "common/command.h"
#include "common/options.h"

/* The root of the command tree (cmds/top.c) and its group; its options are the global ones. */
extern const struct cmd_struct cmd_struct_btrfs;
enum {
	BTRFS_OPT_FORMAT = OPT_LONG_BASE, BTRFS_OPT_AUTH_KEY, BTRFS_OPT_VERSION,
	BTRFS_OPT_GENERATE_COMPLETION,
};
const struct cmd_group *btrfs_top_group(void);

/* Top-level commands and groups, in the order of the top table. */
extern const struct cmd_struct cmd_struct_balance;
extern const struct cmd_struct cmd_struct_check;
extern const struct cmd_struct cmd_struct_image;
extern const struct cmd_struct cmd_struct_inspect;
extern const struct cmd_struct cmd_struct_mkfs;
extern const struct cmd_struct cmd_struct_version;

/* Build feature line printed by --version and "btrfs version". */
const char *btrfs_build_features(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shell completion generated from the command tree and its option tables: the tables
 * cli_getopt parses with and --help prints, and the value sets (struct cli_values) read
 * from the tables the parsers use, so completion cannot drift from the commands.
 */
#ifndef BTRFS_KIT_COMPLETION_H
#define BTRFS_KIT_COMPLETION_H

#include <stdio.h>
#include "common/command.h"

/*
 * Print a bash completion script for the tree under top (the "btrfs" group, whose own
 * options are the global ones); aliases are the argv[0] names ("mkfs.btrfs") with the
 * command each runs ("mkfs"), nr of them.  Returns 0.
 */
struct completion_alias {
	const char *prog;
	const char *command;
};
int completion_print_bash(const struct cmd_struct *top, const struct completion_alias *aliases,
			  size_t nr, FILE *out);

#endif

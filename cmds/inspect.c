// SPDX-License-Identifier: GPL-2.0
/* The inspect-internal group: commands that print on-disk structures. */
#include "cmds/commands.h"

extern const struct cmd_struct cmd_struct_inspect_dump_super;
extern const struct cmd_struct cmd_struct_inspect_dump_tree;

static const char *const inspect_cmd_group_usage[] = {
	"btrfs inspect-internal <command> <args>",
	NULL
};

static const char inspect_cmd_group_info[] = "print on-disk structures: superblocks and trees";

/* Keep sorted. */
static const struct cmd_group inspect_cmd_group = {
	inspect_cmd_group_usage, inspect_cmd_group_info, {
		&cmd_struct_inspect_dump_super,
		&cmd_struct_inspect_dump_tree,
		NULL
	},
};
DEFINE_GROUP_COMMAND(inspect, "inspect-internal");

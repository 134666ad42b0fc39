// SPDX-License-Identifier: GPL-2.0
/* The top-level command table: every group and command of the btrfs binary. */
#include <stdio.h>
#include <string.h>
#include "cmds/commands.h"

static const char *const btrfs_cmd_group_usage[] = {
	"btrfs [--help] [--version] [--format <format>] [-v|--verbose] [-q|--quiet] [--auth-key <name>] <group> [<group>...] <command> [<args>]",
	NULL
};

static const char btrfs_cmd_group_info[] =
	"Use --help as an argument for information on a specific group or command.\n"
	"\n"
	"Global options:";

/* Parsed by main() (btrfs.c) with cli_getopt, printed under the group's help. */
static const struct cli_option btrfs_global_options[] = {
	OPT_ARG_VALUES(BTRFS_OPT_FORMAT, "format", "TYPE",
		       "output format: text (default) or json, where the command supports it",
		       cli_format_values),
	OPT_FLAG('v', "verbose", "more output (repeatable)"),
	OPT_FLAG('q', "quiet", "errors only"),
	OPT_ARG(BTRFS_OPT_AUTH_KEY, "auth-key", "NAME",
		"key for authenticated checksums, looked up by NAME in the kernel keyring"),
	OPT_FLAG(BTRFS_OPT_VERSION, "version", "print the version and build features"),
	OPT_ARG(BTRFS_OPT_GENERATE_COMPLETION, "generate-completion", "SHELL", NULL),
	OPT_END(),
};

static const struct cmd_struct cmd_struct_help;

/* Top level: keep alphabetically sorted (tests/unit/cmd-table-test.c checks). */
static const struct cmd_group btrfs_cmd_group = {
	btrfs_cmd_group_usage, btrfs_cmd_group_info, {
		&cmd_struct_balance,
		&cmd_struct_check,
		&cmd_struct_help,
		&cmd_struct_image,
		&cmd_struct_inspect,
		&cmd_struct_mkfs,
		&cmd_struct_version,
		NULL
	},
};

const struct cmd_struct cmd_struct_btrfs = {
	.token = "btrfs", .fn = handle_command_group, .usagestr = btrfs_cmd_group_usage,
	.options = btrfs_global_options, .next = &btrfs_cmd_group,
};

static const char *const cmd_help_usage[] = {
	"btrfs help [--full]",
	"Display help information",
	NULL
};

static const struct cli_option help_options[] = {
	OPT_FLAG(OPT_LONG_BASE, "full", "display detailed help on every command"),
	OPT_END(),
};

static int cmd_help(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	group_print_help(&cmd_struct_btrfs, stdout, argc > 1 && !strcmp(argv[1], "--full"));
	return 0;
}
static const struct cmd_struct cmd_struct_help = {
	.token = "help", .fn = cmd_help, .usagestr = cmd_help_usage, .options = help_options,
};

const struct cmd_group *btrfs_top_group(void)
{
	return &btrfs_cmd_group;
}


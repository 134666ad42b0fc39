// SPDX-License-Identifier: GPL-2.0
/*
 * The balance group (which refuses the old "btrfs balance <path>" form,
 * as btrfs-progs 6.19 does: a typo must not start hours of relocation);
 * what its commands share is in balance-run.c.
 */
#include <string.h>
#include <sys/stat.h>
#include "cmds/balance.h"
#include "kernel-shared/format/messages.h"

static const char *const balance_cmd_group_usage[] = {
	"btrfs balance <command> [options] <path>",
	NULL
};

static const char balance_cmd_group_info[] =
	"balance data across devices, or change block groups using filters";

static const struct cmd_group balance_cmd_group = {
	balance_cmd_group_usage, balance_cmd_group_info, {
		&cmd_struct_balance_cancel,
		&cmd_struct_balance_pause,
		&cmd_struct_balance_resume,
		&cmd_struct_balance_start,
		&cmd_struct_balance_status,
		NULL
	},
};

/* "btrfs balance <path>": not a subcommand, but something that exists. */
static bool is_legacy_form(const struct cmd_group *grp, int argc, char **argv)
{
	struct stat st;

	if (argc != 2 || argv[1][0] == '-')
		return false;
	for (int i = 0; grp->commands[i]; i++)
		if (!strcmp(grp->commands[i]->token, argv[1]))
			return false;
	return stat(argv[1], &st) == 0;
}

static int cmd_balance(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	if (is_legacy_form(cmd->next, argc, argv)) {
		error("'btrfs balance %s' starts nothing: a balance is 'btrfs balance start [filters] %s'",
		      argv[1], argv[1]);
		return 1;
	}
	return handle_command_group(cmd, ctx, argc, argv);
}

const struct cmd_struct cmd_struct_balance = {
	.token = "balance", .fn = cmd_balance, .usagestr = balance_cmd_group_usage,
	.next = &balance_cmd_group,
};

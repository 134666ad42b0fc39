// SPDX-License-Identifier: GPL-2.0
/* btrfs balance cancel: stop a running or paused balance for good. */
#include <stdio.h>
#include "cmds/balance-run.h"

static const char *const cmd_balance_cancel_usage[] = {
	"btrfs balance cancel <path>",
	"Stop a running or paused balance for good",
	"",
	"A running balance stops after the chunk it is relocating (the command waits",
	"for that); a paused one is forgotten.  Exit status 2 when there is none.",
	NULL
};

static int cmd_balance_cancel(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	return balance_ctl_command(cmd, argc, argv, BTRFS_BALANCE_CTL_CANCEL, "cancel", "Not in progress");
}
DEFINE_COMMAND(balance_cancel, "cancel", NULL, 0);

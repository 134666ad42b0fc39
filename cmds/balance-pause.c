// SPDX-License-Identifier: GPL-2.0
/* btrfs balance pause: ask the running balance to stop after the current chunk. */
#include <stdio.h>
#include "cmds/balance-run.h"

static const char *const cmd_balance_pause_usage[] = {
	"btrfs balance pause <path>",
	"Pause running balance",
	"",
	"The balance stops after the chunk it is relocating; 'btrfs balance resume'",
	"continues it.  Exit status 2 when no balance is running.",
	NULL
};

static int cmd_balance_pause(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	return balance_ctl_command(cmd, argc, argv, BTRFS_BALANCE_CTL_PAUSE, "pause", "Not running");
}
DEFINE_COMMAND(balance_pause, "pause", NULL, 0);

// SPDX-License-Identifier: GPL-2.0
/* btrfs balance pause: ask the running balance to stop after the current chunk. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds/balance.h"
#include "common/balance-online.h"
#include "kernel-shared/messages.h"

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
	struct cli_getopt_state st = { 0 };
	const char *path;
	int c, fd;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		if (c == CLI_OPT_HELP)
			return usage_print(cmd, stdout, true);
		return 1;
	}
	if (check_argc_exact(cmd, argc - st.optind, 1))
		return 1;
	path = argv[st.optind];
	fd = btrfs_balance_open_mount(path);
	if (fd < 0)
		return 1;
	if (ioctl(fd, BTRFS_IOC_BALANCE_CTL, BTRFS_BALANCE_CTL_PAUSE) < 0) {
		int err = errno;

		close(fd);
		error("balance pause on '%s' failed: %s", path, err == ENOTCONN ? "Not running" : strerror(err));
		return err == ENOTCONN ? 2 : 1;
	}
	close(fd);
	return 0;
}
DEFINE_COMMAND(balance_pause, "pause", NULL, 0);

// SPDX-License-Identifier: GPL-2.0
/* btrfs balance cancel: stop a running or paused balance for good. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds/balance.h"
#include "common/balance-online.h"
#include "kernel-shared/messages.h"

static const char *const cmd_balance_cancel_usage[] = {
	"btrfs balance cancel <path>",
	"Cancel running or paused balance",
	"",
	"A running balance stops after the chunk it is relocating (the command waits",
	"for that); a paused one is forgotten.  Exit status 2 when there is none.",
	NULL
};

static int cmd_balance_cancel(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
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
	if (ioctl(fd, BTRFS_IOC_BALANCE_CTL, BTRFS_BALANCE_CTL_CANCEL) < 0) {
		int err = errno;

		close(fd);
		error("balance cancel on '%s' failed: %s", path, err == ENOTCONN ? "Not in progress" : strerror(err));
		return err == ENOTCONN ? 2 : 1;
	}
	close(fd);
	return 0;
}
DEFINE_COMMAND(balance_cancel, "cancel", NULL, 0);

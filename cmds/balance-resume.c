// SPDX-License-Identifier: GPL-2.0
/* btrfs balance resume: continue a paused (or interrupted) balance. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds/balance-run.h"
#include "balance/balance-online.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_balance_resume_usage[] = {
	"btrfs balance resume <path>",
	"Continue a paused or interrupted balance",
	"",
	"Continues a paused balance with its filters and waits for it, as start",
	"does.  Exit status 2 when there is no paused balance or it is already running.",
	NULL
};

static int cmd_balance_resume(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	struct btrfs_ioctl_balance_args args;
	const char *path;
	int fd, ret;

	ret = balance_mount_arg(cmd, argc, argv, &path, &fd);
	if (ret >= 0)
		return ret;
	memset(&args, 0, sizeof(args));
	args.flags = BTRFS_BALANCE_RESUME;
	ret = balance_run(fd, path, &args);
	close(fd);
	return ret;
}
DEFINE_COMMAND(balance_resume, "resume", NULL, 0);

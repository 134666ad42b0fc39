// SPDX-License-Identifier: GPL-2.0
/* btrfs balance status: running, paused or none; exit 1, 1 or 0 (2 on error) as btrfs-progs. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds/balance-run.h"
#include "balance/balance-online.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_balance_status_usage[] = {
	"btrfs balance status [-v] <path>",
	"Say whether a balance runs or is paused, and how far it is",
	"",
	"Exit status: 0 when no balance is running or paused, 1 when one is (or on",
	"a usage error), 2 when the status cannot be read.",
	NULL
};

static const struct cli_option balance_status_options[] = {
	OPT_FLAG('v', "verbose", "also print the filters of the balance"),
	OPT_END(),
};

static int cmd_balance_status(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	struct btrfs_ioctl_balance_args args;
	struct cli_getopt_state st = { 0 };
	int verbose = ctx->verbose;
	const char *path;
	double left;
	int c, fd;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 'v':
			verbose++;
			break;
		case CLI_OPT_HELP:
			return usage_print(cmd, stdout, true);
		default:
			return 1;
		}
	}
	if (check_argc_exact(cmd, argc - st.optind, 1))
		return 1;
	path = argv[st.optind];
	fd = btrfs_balance_open_mount(path);
	if (fd < 0)
		return 2;
	memset(&args, 0, sizeof(args));
	if (ioctl(fd, BTRFS_IOC_BALANCE_PROGRESS, &args) < 0) {
		int err = errno;

		close(fd);
		if (err == ENOTCONN) {
			printf("No balance found on '%s'\n", path);
			return 0;
		}
		error("balance status on '%s' failed: %s", path, strerror(err));
		return 2;
	}
	close(fd);
	if (args.state & BTRFS_BALANCE_STATE_RUNNING) {
		printf("Balance on '%s' is running", path);
		if (args.state & BTRFS_BALANCE_STATE_CANCEL_REQ)
			printf(", cancel requested\n");
		else if (args.state & BTRFS_BALANCE_STATE_PAUSE_REQ)
			printf(", pause requested\n");
		else
			printf("\n");
	} else {
		printf("Balance on '%s' is paused\n", path);
	}
	left = args.stat.expected ? 100.0 * (1.0 - (double)args.stat.completed / (double)args.stat.expected) : 100.0;
	if (left < 0)
		left = 0;
	printf("%llu out of about %llu chunks balanced (%llu considered), %3.f%% left\n",
	       args.stat.completed, args.stat.expected, args.stat.considered, left);
	if (verbose)
		btrfs_balance_dump_args(stdout, &args);
	return 1;
}
DEFINE_COMMAND(balance_status, "status", balance_status_options, 0);

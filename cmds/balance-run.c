// SPDX-License-Identifier: GPL-2.0
/* What the balance commands share: running the balance ioctl and reporting it, the one-path commands. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmds/balance-run.h"
#include "balance/balance-online.h"
#include "kernel-shared/format/messages.h"

/* Explain a failed BTRFS_IOC_BALANCE_V2 beyond the errno text. */
static void explain_balance_errno(int err)
{
	switch (err) {
	case ENOSPC:
		fprintf(stderr,
			"There is not enough unallocated space to relocate the chunks: free some space,\n"
			"or first compact nearly empty chunks (e.g. 'btrfs balance start -dusage=10').\n");
		break;
	case EINPROGRESS:
		fprintf(stderr, "A balance is already running or paused: see 'btrfs balance status'.\n");
		break;
	case EPERM:
	case EACCES:
		fprintf(stderr, "Balance needs root (CAP_SYS_ADMIN).\n");
		break;
	case EROFS:
		fprintf(stderr, "The filesystem is mounted read-only.\n");
		break;
	default:
		break;
	}
}

/* Messages for the positive btrfs error codes of the device ioctls (uapi btrfs_err_code). */
static const char *btrfs_err_str(int code)
{
	static const char *const msgs[] = {
		[1] = "unable to go below two devices on raid1",
		[2] = "unable to go below two devices on raid10",
		[3] = "unable to go below two devices on raid5",
		[4] = "unable to go below three devices on raid6",
		[5] = "unable to remove the dev_replace target dev",
		[6] = "no missing devices found to remove",
		[7] = "unable to remove the only writeable device",
		[8] = "add/delete/balance/replace/resize operation in progress",
		[9] = "unable to go below three devices on raid1c3",
		[10] = "unable to go below four devices on raid1c4",
	};

	if (code > 0 && code < (int)ARRAY_SIZE(msgs) && msgs[code])
		return msgs[code];
	return "unknown error";
}

int balance_run(int fd, const char *path, struct btrfs_ioctl_balance_args *args)
{
	int ret = ioctl(fd, BTRFS_IOC_BALANCE_V2, args);

	if (ret < 0) {
		int err = errno;

		if (err == ECANCELED) {
			if (args->state & BTRFS_BALANCE_STATE_PAUSE_REQ)
				fprintf(stderr, "balance paused by user\n");
			if (args->state & BTRFS_BALANCE_STATE_CANCEL_REQ)
				fprintf(stderr, "balance canceled by user\n");
			return 0;
		}
		if ((args->flags & BTRFS_BALANCE_RESUME) && (err == ENOTCONN || err == EINPROGRESS)) {
			error("balance resume on '%s' failed: %s", path,
			      err == ENOTCONN ? "Not in progress" : "Already running");
			return 2;
		}
		error("error during balancing '%s': %s", path, strerror(err));
		if (err != EINPROGRESS)
			fprintf(stderr, "The kernel log (dmesg) says why.\n");
		explain_balance_errno(err);
		return 1;
	}
	if (ret > 0) {
		error("balance: %s", btrfs_err_str(ret));
		return 1;
	}
	printf("Done, had to relocate %llu out of %llu chunks\n", args->stat.completed,
	       args->stat.considered);
	return 0;
}

int balance_mount_arg(const struct cmd_struct *cmd, int argc, char **argv, const char **path, int *fd)
{
	struct cli_getopt_state st = { 0 };
	int c;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		if (c == CLI_OPT_HELP)
			return usage_print(cmd, stdout, true);
		return 1;
	}
	if (check_argc_exact(cmd, argc - st.optind, 1))
		return 1;
	*path = argv[st.optind];
	*fd = btrfs_balance_open_mount(*path);
	return *fd < 0 ? 1 : -1;
}

int balance_ctl_command(const struct cmd_struct *cmd, int argc, char **argv, int ctl,
			const char *name, const char *not_running)
{
	const char *path;
	int fd, ret;

	ret = balance_mount_arg(cmd, argc, argv, &path, &fd);
	if (ret >= 0)
		return ret;
	if (ioctl(fd, BTRFS_IOC_BALANCE_CTL, ctl) < 0) {
		int err = errno;

		close(fd);
		error("balance %s on '%s' failed: %s", name, path, err == ENOTCONN ? not_running : strerror(err));
		return err == ENOTCONN ? 2 : 1;
	}
	close(fd);
	return 0;
}

bool balance_exclusive_busy(int fd, char *what, size_t len)
{
	return btrfs_exclusive_operation(fd, what, len) && strcmp(what, "none");
}

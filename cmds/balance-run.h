/* SPDX-License-Identifier: GPL-2.0 */
/* What the balance commands share (cmds/balance-*.c): the ioctl runner and the one-path commands. */
#ifndef BTRFS_KIT_CMDS_BALANCE_RUN_H
#define BTRFS_KIT_CMDS_BALANCE_RUN_H

#include "cmds/commands.h"
#include "kernel-shared/format/ioctl.h"

/*
 * Run BTRFS_IOC_BALANCE_V2 with args on the open mount fd and report the
 * outcome as btrfs-progs does ("Done, had to relocate N out of M chunks",
 * "balance paused by user", or the error explained).  Returns the exit
 * code: 0 done, paused or cancelled; 1 on error; 2 when a resume finds
 * no paused balance or one already running.
 */
int balance_run(int fd, const char *path, struct btrfs_ioctl_balance_args *args);

/*
 * The options (only --help) and the one mount point argument of resume, pause
 * and cancel: *fd open on *path and -1 returned, or the exit status to return
 * (0 after --help, 1 on a usage error or when the path cannot be opened).
 */
int balance_mount_arg(const struct cmd_struct *cmd, int argc, char **argv, const char **path, int *fd);

/*
 * pause and cancel: BTRFS_IOC_BALANCE_CTL(ctl) on the one path argument;
 * exit 2 with "balance <name> on '<path>' failed: <not_running>" when no
 * balance is there.
 */
int balance_ctl_command(const struct cmd_struct *cmd, int argc, char **argv, int ctl,
			const char *name, const char *not_running);

/* Is some exclusive operation (other than none) running?  Prints what. */
bool balance_exclusive_busy(int fd, char *what, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Balance of a mounted filesystem through the kernel: open the mount point
 * (explaining what a path is when it is not one), read the chunk and
 * device layout for the planner with tree search and device info ioctls,
 * and print the request the way btrfs-progs dumps it.
 */
#ifndef BTRFS_KIT_BALANCE_ONLINE_H
#define BTRFS_KIT_BALANCE_ONLINE_H

#include <stdio.h>
#include "balance/balance-plan.h"

/*
 * Open path, which must be on a mounted btrfs, read-only for ioctls.
 * Returns the fd, or a negative errno after an error() that says what the
 * path is instead: missing, not btrfs, a device or image of a mounted
 * filesystem (naming the mount point) or of an unmounted one (which only
 * 'balance start' with convert filters takes, offline).
 */
int btrfs_balance_open_mount(const char *path);

/* A device or image file with a btrfs superblock that is not mounted: offline balance. */
bool btrfs_balance_is_unmounted_btrfs(const char *path);

/* The layout of a mounted filesystem, owned by the caller. */
struct btrfs_online_layout {
	struct btrfs_plan_layout layout;
	struct btrfs_balance_chunk *chunks;
	struct btrfs_balance_stripe *stripes;   /* all chunks' stripes, one array */
	struct btrfs_plan_device *devs;
	size_t nr_chunks, nr_devs, nr_stripes;
	u8 fsid[16];
};

/* Read chunks (with block group usage) and devices; 0 or -errno after an error(). */
int btrfs_online_read_layout(int fd, struct btrfs_online_layout *ol);
void btrfs_online_layout_release(struct btrfs_online_layout *ol);

/* "Dumping filters: ..." as btrfs-progs prints the request with -v. */
void btrfs_balance_dump_args(FILE *out, const struct btrfs_ioctl_balance_args *args);

/* A size for people: "1.50GiB", "512.00KiB", "12.00B". */
const char *btrfs_balance_size_str(u64 bytes, char *buf, size_t len);

/*
 * The name of the exclusive operation running on the filesystem of fd
 * ("none", "balance", "device add", ...), from sysfs; false if unknown.
 */
bool btrfs_exclusive_operation(int fd, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Preparing devices and image files for mkfs: open (creating a sparse
 * image file when a size is given), size, existing-signature probe
 * (libblkid), mounted check, discard and wiping of old signatures.
 */
#ifndef BTRFS_KIT_DEVICE_UTILS_H
#define BTRFS_KIT_DEVICE_UTILS_H

#include "kernel-shared/format/kerncompat.h"

struct btrfs_write_log;

struct target_device {
	const char *path;
	int fd;
	bool is_blockdev;
	bool created;             /* an image file this run created */
	u64 size;                 /* bytes of the device or file */
	struct btrfs_write_log *write_log; /* the caller's (dev-write.h), may be NULL */
};

/*
 * Open path read-write for mkfs.  A path that does not exist is created as
 * a sparse file of create_size bytes when create_size > 0 (else -ENOENT).
 * A regular file smaller than create_size is extended (sparse).  Block
 * devices are opened O_EXCL.  0, or a negative errno after an error.
 */
int target_open(struct target_device *t, const char *path, u64 create_size);
void target_close(struct target_device *t);

/*
 * Existing signature on the device or file (libblkid superblock and
 * partition table probe): 1 with its name in type, 0 when none, -errno.
 */
int target_probe_signature(const char *path, char *type, size_t typelen);

/* 1 when path (or the loop device backed by it) is mounted or a member of a mounted btrfs, 0 if not. */
int target_is_mounted(const char *path);

/*
 * As target_is_mounted, telling read-only mounts apart: 0 not mounted,
 * TARGET_MOUNTED_RW (mounted read-write, or a member of a mounted btrfs whose
 * mode is not known), TARGET_MOUNTED_RO (every mount of it is read-only).
 */
#define TARGET_MOUNTED_RW 1
#define TARGET_MOUNTED_RO 2
int target_mount_state(const char *path);

/* Same file or block device (by device and inode numbers). */
bool target_same(const struct target_device *a, const struct target_device *b);

/* Discard the whole block device (nothing for files); errors are ignored. */
void target_discard(struct target_device *t, u64 len);

/*
 * Wipe signatures of other filesystems: the first and last MiB and the btrfs
 * superblock copies inside len bytes (holes punched in files, zeros on block
 * devices).  0 or -errno.
 */
int target_wipe(struct target_device *t, u64 len);

#endif

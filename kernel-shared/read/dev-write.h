/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place btrfs-kit changes a device: every write, zeroing, clone
 * and flush of every command goes through btrfs_dev_write(),
 * btrfs_dev_zero(), btrfs_dev_clone() and btrfs_dev_flush()
 * (tests/tools/layers.sh fails on a pwrite, fsync, fdatasync or fallocate
 * anywhere else).
 *
 * The write log (power-cut replay, tests/tools/powercut.py): when the
 * environment variable BTRFS_KIT_WRITE_LOG names a file at the time a
 * writer opens its devices (btrfs_write_log_open()), every write, zeroing
 * and flush through that writer's log is appended to the file, in order.
 * A record is 24 bytes of header, little-endian: a 4-byte tag ("WRIT",
 * "ZERO" or "FLSH"), u32 path length, u64 offset, u64 length; then the
 * device's path (readlink of /proc/self/fd/N) and, for WRIT, the bytes
 * written.  A NULL log costs one test per call.
 */
#ifndef BTRFS_KIT_DEV_WRITE_H
#define BTRFS_KIT_DEV_WRITE_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"

struct btrfs_write_log;

/*
 * The log BTRFS_KIT_WRITE_LOG names (opened for appending), or *out = NULL
 * when the variable is unset or empty.  0 or a negative errno (printed).
 */
int btrfs_write_log_open(struct btrfs_write_log **out);
void btrfs_write_log_close(struct btrfs_write_log *log);

/* All len bytes of buf at offset of fd (retrying short writes); 0 or a negative errno, silent. */
int btrfs_dev_write(struct btrfs_write_log *log, int fd, const void *buf, size_t len, u64 offset);
/*
 * len zero bytes at offset: a hole punched in a regular file (punch is
 * true and the file system can), else written; 0 or a negative errno, silent.
 */
int btrfs_dev_zero(struct btrfs_write_log *log, int fd, u64 offset, u64 len, bool punch);
/*
 * len bytes at src_offset of file src_fd shared into fd at offset
 * (FICLONERANGE, mkfs --reflink: both files on the same btrfs, offsets and
 * len multiples of its block size); buf holds the same bytes, for the log
 * (a WRIT record, so a replay needs no clone).  0 or a negative errno, silent.
 */
int btrfs_dev_clone(struct btrfs_write_log *log, int fd, int src_fd, u64 src_offset, const void *buf,
		    size_t len, u64 offset);
/*
 * Start writing back what was written to fd so far, without waiting for it
 * (sync_file_range SYNC_FILE_RANGE_WRITE): the disk works while the writer
 * goes on, so the btrfs_dev_flush() that follows waits less.  Only a hint:
 * it orders nothing, so it is not logged; silent, errors ignored.
 */
void btrfs_dev_start_writeback(int fd);
/* Everything written to fd so far onto stable storage (fsync); 0 or a negative errno, silent. */
int btrfs_dev_flush(struct btrfs_write_log *log, int fd);

#endif

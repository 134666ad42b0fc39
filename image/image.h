/* SPDX-License-Identifier: GPL-2.0 */
/* btrfs image: metadata dumps in the btrfs-image format (kernel-shared/format/metadump.h). */
#ifndef BTRFS_KIT_IMAGE_H
#define BTRFS_KIT_IMAGE_H

#include <stdbool.h>
#include "kernel-shared/format/kerncompat.h"

struct image_restore_opts {
	int threads;            /* inflating zlib items, 1..64 (0 = 1) */
	bool multi;             /* -m: one target per device of the dump, in devid order */
	bool old;               /* -o: btrfs-image's old restore: ranges at logical offsets */
	const u8 *auth_key;     /* keyed csum types: the key (blocks and superblocks re-MACed) */
	size_t auth_key_len;
	/*
	 * NULL, or a flag that, once non-zero, stops the restore before its
	 * next cluster is written: -EINTR, after saying so; the target holds
	 * no superblock (a new or empty file is emptied or removed again).
	 */
	const volatile int *stop;
};

/*
 * Restore the dump at source ("-" = stdin) onto the single device or file
 * target (a multi-device filesystem's chunks collapsed onto one device as
 * btrfs-progs 6.19 does: image/collapse.h), or with opts->multi onto one target per device of the dumped
 * filesystem (targets[i] gets the device with the i-th smallest devid: its
 * own superblock and dev_item, every chunk at its original device offsets).
 * The whole dump is read and validated (clusters, items, zlib streams,
 * superblock, every range inside a chunk) before a target is opened, then
 * read again to write; a dump that is not a regular file (a pipe, stdin) is
 * first copied to an unlinked temporary file in $TMPDIR.  Memory: a batch
 * of at most 16 items of a cluster (4 MiB as stored, each item's payload),
 * not the dump; opts->threads threads inflate a batch's items.  Returns 0
 * or a negative errno after an error
 * naming the cluster and item; -EOPNOTSUPP for what this version does not restore yet
 * (a multi-device dump with a log tree onto one target).  -m writes RAID5/6
 * chunks by full stripe rows with their parity (kernel-shared/engine/tree-write.h).
 * A dump of a keyed filesystem needs its key (-ENOKEY without; a wrong key,
 * against the superblock's key check value, is -EKEYREJECTED): the blocks and
 * superblocks it rewrites get keyed checksums.
 */
int image_restore(const char *source, const char *const *targets, int nr_targets,
		  const struct image_restore_opts *opts);

#endif

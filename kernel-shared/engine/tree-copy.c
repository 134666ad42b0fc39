// SPDX-License-Identifier: GPL-2.0
/*
 * Rewriting the copies of one tree block in place, outside a transaction:
 * what the kernel's read repair does when one copy of a DUP/RAID1* block is
 * bad and another good.  The bytes are the block's committed content, so a
 * crash in the middle leaves that copy bad as it was and the others good.
 */
#include <unistd.h>
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/messages.h"

int btrfs_write_tree_block_copies(struct btrfs_fs_info *fs, const struct extent_buffer *eb, int mirror)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&fs->chunks, eb->start);
	struct btrfs_io_stripe where[BTRFS_MAX_MIRRORS];
	struct btrfs_device *dev[BTRFS_MAX_MIRRORS];
	int n, m;

	if (!c) {
		error("tree block %llu is in no chunk", eb->start);
		return -EINVAL;
	}
	if (btrfs_raid_has_parity(c->type)) {
		error("tree block %llu is in a RAID5/6 chunk: its copies are rebuilt from parity, not rewritten",
		      eb->start);
		return -EOPNOTSUPP;
	}
	n = btrfs_chunk_num_mirrors(c);
	if (n < 1 || n > BTRFS_MAX_MIRRORS || mirror < 0 || mirror > n) {
		error("tree block %llu has %d copies, no copy %d", eb->start, n, mirror);
		return -EINVAL;
	}
	/* every copy is mapped before any is written */
	for (m = 1; m <= n; m++) {
		dev[m - 1] = NULL;
		if (mirror && m != mirror)
			continue;
		if (btrfs_chunk_map_one(c, eb->start, m, &where[m - 1]) || where[m - 1].len < eb->len) {
			error("tree block %llu copy %d does not lie in one stripe", eb->start, m);
			return -EINVAL;
		}
		dev[m - 1] = btrfs_find_device(&fs->devices, where[m - 1].devid, NULL);
		if (!dev[m - 1] || dev[m - 1]->fd < 0) {
			error("tree block %llu copy %d: device %llu is missing", eb->start, m,
			      where[m - 1].devid);
			return -ENODEV;
		}
	}
	for (m = 1; m <= n; m++) {
		if (!dev[m - 1])
			continue;
		int ret = btrfs_dev_write(fs->write_log, dev[m - 1]->fd, eb->data, eb->len,
					  where[m - 1].physical);

		if (!ret)
			ret = btrfs_dev_flush(fs->write_log, dev[m - 1]->fd);
		if (ret < 0) {
			error_errno(ret, "writing tree block %llu copy %d to %s at %llu", eb->start, m,
				    dev[m - 1]->path, where[m - 1].physical);
			return -EIO;
		}
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3, devices: each device's superblock carries a copy of its device
 * item, whose total_bytes and bytes_used must be the chunk tree's.  As in
 * btrfs-progs (since 6.17) a difference is a warning, not an error: kernels
 * before the fix of "update superblock's device bytes_used when dropping
 * chunk" leave one behind after a balance, and nothing reads the copy.
 *
 * --repair: every commit of the engine writes each device's copy from the
 * chunk tree (kernel-shared/engine/transaction.c); ctx->repair_super_dev_items
 * makes the repair commit also when nothing else needs it.  No fix is
 * queued: a warning has none to answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/engine/transaction.h"

/* dev's superblock: the copy check opened if it is dev's, else dev's primary copy. */
static int device_super(struct check_ctx *ctx, const struct btrfs_device *dev,
			struct btrfs_super_block *sb)
{
	const struct btrfs_super_block *opened = btrfs_fs_super(ctx->fs);

	if (btrfs_device_id(&opened->dev_item) == dev->devid) {
		memcpy(sb, opened, sizeof(*sb));
		return 0;
	}
	if (dev->missing || dev->fd < 0 ||
	    btrfs_read_super(dev->fd, 0, BTRFS_SUPER_READ_QUIET, sb, NULL) < 0 ||
	    btrfs_device_id(&sb->dev_item) != dev->devid)
		return -ENOENT;
	return 0;
}

void check_super_dev_items(struct check_ctx *ctx, const struct ext_state *st)
{
	struct btrfs_device_list *devs = &ctx->fs->devices;
	struct btrfs_super_block *sb = malloc(sizeof(*sb));

	if (!sb) {
		check_error(ctx, "out of memory reading the devices' superblocks");
		return;
	}
	for (size_t i = 0; i < st->dev_nr; i++) {
		const struct check_dev *d = &st->dev[i];
		const struct btrfs_device *dev = btrfs_find_device(devs, d->devid, NULL);
		bool differs = false;
		u64 v;

		/* a seed device's superblock is its own (seed) filesystem's */
		if (!dev || (dev->fd >= 0 && memcmp(dev->fsid, btrfs_super_metadata_fsid(btrfs_fs_super(ctx->fs)),
						   BTRFS_FSID_SIZE)))
			continue;
		if (device_super(ctx, dev, sb) < 0)
			continue;
		v = btrfs_device_total_bytes(&sb->dev_item);
		if (v != d->total_bytes) {
			warning("device %llu's total_bytes was %llu in tree but %llu in superblock",
				d->devid, d->total_bytes, v);
			differs = true;
		}
		v = btrfs_device_bytes_used(&sb->dev_item);
		if (v != d->bytes_used) {
			warning("device %llu's bytes_used was %llu in tree but %llu in superblock",
				d->devid, d->bytes_used, v);
			differs = true;
		}
		if (differs)
			ctx->repair_super_dev_items = true;
	}
	free(sb);
}

void check_device_size(struct check_ctx *ctx, const struct ext_state *st, struct check_dev *d)
{
	const struct btrfs_device *dev = btrfs_find_device(&ctx->fs->devices, d->devid, NULL);
	struct btrfs_super_block *sb;
	u64 size, fix;

	/*
	 * the kernel refuses to mount a device smaller than its item says
	 * (an unaligned tail is a warning: --repair rounds it down)
	 */
	size = dev && dev->fd >= 0 ? btrfs_device_fd_size(dev->fd) : 0;
	if (!size || round_down(d->total_bytes, (u64)st->sectorsize) <= size)
		return;
	check_error(ctx, "chunk tree: device item devid %llu: total_bytes %llu is beyond the size of %s, %llu",
		    d->devid, d->total_bytes, dev->path ? dev->path : "the device", size);
	if (!check_repairing(ctx))
		return;
	/* the size the device's superblock copy says, when it fits; else the device's */
	fix = round_down(size, (u64)st->sectorsize);
	sb = malloc(sizeof(*sb));
	if (sb && device_super(ctx, dev, sb) == 0 && btrfs_device_total_bytes(&sb->dev_item) <= size &&
	    btrfs_device_total_bytes(&sb->dev_item) >= d->end &&
	    IS_ALIGNED(btrfs_device_total_bytes(&sb->dev_item), (u64)st->sectorsize))
		fix = btrfs_device_total_bytes(&sb->dev_item);
	free(sb);
	/* the dev extents must stay on the device */
	if (fix < d->end)
		return;
	check_queue_dev_total(ctx, d->devid, fix);
	d->total_bytes = fix;
}

/* A device item made from a device's superblock copy (check_dev_item_from_super()). */
struct dev_item_fix {
	struct btrfs_dev_item item;
};

static int fix_dev_item(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct dev_item_fix *f = arg;
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, btrfs_device_id(&f->item) };
	struct btrfs_wroot *chunk_root;
	int ret;

	(void)ctx;
	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk_root);
	if (ret == 0)
		ret = btrfs_insert_item(t, chunk_root, &key, &f->item, sizeof(f->item));
	if (ret < 0) {
		error("repair: device item (1 DEV_ITEM %llu): %s", (unsigned long long)key.offset, strerror(-ret));
		return ret;
	}
	printf("Device item %llu added from its superblock's copy, bytes_used %llu\n", (unsigned long long)key.offset,
	       (unsigned long long)btrfs_device_bytes_used(&f->item));
	return 0;
}

bool check_dev_item_from_super(struct check_ctx *ctx, const struct ext_state *st, u64 devid)
{
	const struct btrfs_device *dev = btrfs_find_device(&ctx->fs->devices, devid, NULL);
	struct btrfs_super_block *sb;
	struct dev_item_fix f;
	u64 used = 0;
	bool ok;

	if (!check_repairing(ctx) || !dev || !(sb = malloc(sizeof(*sb))))
		return false;
	ok = device_super(ctx, dev, sb) == 0 && !memcmp(sb->dev_item.uuid, dev->uuid, BTRFS_UUID_SIZE);
	if (ok)
		f.item = sb->dev_item;
	free(sb);
	if (!ok)
		return false;
	for (size_t i = 0; i < st->dext_nr; i++)
		if (st->dext[i].devid == devid)
			used += st->dext[i].len;
	btrfs_set_device_bytes_used(&f.item, used);
	check_fixable(ctx, fix_dev_item, &f, sizeof(f));
	return true;
}

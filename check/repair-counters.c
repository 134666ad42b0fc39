// SPDX-License-Identifier: GPL-2.0
/*
 * --repair of the counters pass 3 (check/extents.c) compares and of dev
 * extents against chunks, queued with check_fixable() and applied by
 * check_repair() in one transaction:
 *   - block group used bytes and super bytes_used are set to the sums of
 *     the extent items as checked; the engine adds on top what the
 *     transaction allocates and frees, including the extents added or
 *     dropped by check/repair-extents.c (btrfs_account_extent);
 *   - a dev extent without its chunk is deleted, a chunk stripe's missing
 *     dev extent inserted, the device item's bytes_used following; a
 *     device's bytes_used is set to the sum of the dev extents that stay;
 *   - super num_devices; super total_bytes, with unaligned device sizes
 *     rounded down to the sector size first.
 * The superblock copy the commit writes is ctx->fs->super: its fields are
 * set in place (nothing reaches the disk unless the commit does).
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

/* ---- block groups and the superblock ------------------------------------------------ */

struct bg_used_fix {
	u64 start;
	u64 used;
};

static int fix_bg_used(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct bg_used_fix *f = arg;
	u64 used;
	int ret = btrfs_trans_block_group_used(t, f->start, &used);

	if (ret < 0)
		return ret;
	printf("Block group %llu: used %llu reset to %llu, the sum of its extents\n", f->start,
	       used, f->used);
	/* tests only (tests/cli/076): a repair that writes a wrong value, for the re-check to refuse */
	if (getenv("BTRFS_KIT_TEST_SABOTAGE_REPAIR"))
		return btrfs_trans_set_block_group_used(t, f->start, f->used + ctx->fs->geo.sectorsize);
	return btrfs_trans_set_block_group_used(t, f->start, f->used);
}

void check_queue_bg_used(struct check_ctx *ctx, const struct check_bg *bg)
{
	struct bg_used_fix f = { .start = bg->start, .used = bg->sum };

	if (check_repairing(ctx))
		check_fixable(ctx, fix_bg_used, &f, sizeof(f));
}

static int fix_bg_item(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct bg_used_fix *f = arg;
	int ret = btrfs_trans_add_block_group_item(t, f->start, f->used);

	if (ret < 0)
		return ret;
	printf("Block group %llu: no block group item: added, used %llu (the sum of its extents), its chunk's type\n",
	       f->start, f->used);
	return 0;
}

/*
 * Has every stripe of the chunk at logical its dev extent naming the chunk?
 * The second witness that the chunk is in use (a chunk item of a block
 * group freed since, in an older chunk tree block, has none).
 */
static bool chunk_has_dev_extents(const struct check_ctx *ctx, u64 logical)
{
	const struct ext_state *st = ctx->extents_state;
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&ctx->fs->chunks, logical);

	if (!st || !c || c->logical != logical)
		return false;
	for (u16 i = 0; i < c->num_stripes; i++) {
		const struct check_devext *x = check_find_dev_extent(st, c->stripes[i].devid, c->stripes[i].physical);

		if (!x || x->chunk_offset != logical)
			return false;
	}
	return true;
}

void check_queue_bg_item(struct check_ctx *ctx, const struct check_bg *bg)
{
	struct bg_used_fix f = { .start = bg->start, .used = bg->sum };

	if (check_repairing(ctx) && bg->sum <= bg->len && chunk_has_dev_extents(ctx, bg->start))
		check_fixable(ctx, fix_bg_item, &f, sizeof(f));
}

enum super_field { SUPER_BYTES_USED, SUPER_NUM_DEVICES, SUPER_TOTAL_BYTES, SUPER_GENERATION,
		   SUPER_CHUNK_ROOT_GENERATION, SUPER_MENDED, SUPER_COMPAT_RO, SUPER_INCOMPAT_CLEAR };

struct super_fix {
	enum super_field field;
	u64 value;
	const struct btrfs_super_mend *mend;   /* SUPER_MENDED */
};

/* A device item of the chunk tree, found for modification: path at it. */
static int dev_item_path(struct btrfs_trans *t, u64 devid, struct btrfs_path *path)
{
	int ret = btrfs_trans_dev_item(t, devid, path);

	if (ret == -ENOENT)
		error("chunk tree: no device item for devid %llu", devid);
	return ret;
}

/* Round unaligned device sizes down to the sector size (the super total follows). */
static int align_device_sizes(struct check_ctx *ctx, struct btrfs_trans *t)
{
	struct ext_state *st = ctx->extents_state;
	size_t i;
	int ret;

	for (i = 0; i < st->dev_nr; i++) {
		u64 old = st->dev[i].total_bytes, now = round_down(old, (u64)st->sectorsize);
		struct btrfs_path path;

		if (old == now)
			continue;
		ret = dev_item_path(t, st->dev[i].devid, &path);
		if (ret < 0)
			return ret;
		btrfs_set_device_total_bytes(btrfs_path_item_ptr(&path), now);
		btrfs_release_path(&path);
		printf("Fixed device size for devid %llu, old size: %llu new size: %llu\n",
		       st->dev[i].devid, old, now);
	}
	return 0;
}

static int fix_super(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct super_fix *f = arg;
	/* the commit writes this copy, with the transaction's own changes added */
	struct btrfs_super_block *sb = ctx->fs->super;
	int ret;

	switch (f->field) {
	case SUPER_BYTES_USED:
		printf("Reset super bytes used from %llu to %llu\n", btrfs_super_bytes_used(sb), f->value);
		btrfs_set_super_bytes_used(sb, f->value);
		break;
	case SUPER_NUM_DEVICES:
		printf("Reset super num devices from %llu to %llu\n", btrfs_super_num_devices(sb), f->value);
		btrfs_set_super_num_devices(sb, f->value);
		break;
	case SUPER_GENERATION:
		/* already in the copy (open): the commit writes it, one generation on */
		printf("Reset super generation from %llu to %llu\n", f->value, btrfs_super_generation(sb));
		break;
	case SUPER_CHUNK_ROOT_GENERATION:
		printf("Reset super chunk root generation from %llu to %llu\n", f->value,
		       btrfs_super_chunk_root_generation(sb));
		break;
	case SUPER_COMPAT_RO:
		/* already in the copy (check_queue_super_compat_ro()) */
		printf("Reset super compat_ro flags from 0x%llx to 0x%llx\n",
		       (unsigned long long)(btrfs_super_compat_ro_flags(sb) & ~f->value),
		       (unsigned long long)btrfs_super_compat_ro_flags(sb));
		/* a tree the kernel did not announce may be stale: built again from the extent tree */
		if (f->value & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)
			btrfs_trans_rebuild_free_space_tree(t);
		break;
	case SUPER_INCOMPAT_CLEAR:
		/* already in the copy (check_queue_super_incompat_clear()) */
		printf("Reset super incompat flags from 0x%llx to 0x%llx\n",
		       (unsigned long long)(btrfs_super_incompat_flags(sb) | f->value),
		       (unsigned long long)btrfs_super_incompat_flags(sb));
		break;
	case SUPER_MENDED:
		/* already in the copy (open) */
		printf("Reset super %s from %llu to %llu\n", f->mend->field,
		       (unsigned long long)f->mend->was, (unsigned long long)f->mend->now);
		break;
	case SUPER_TOTAL_BYTES:
		ret = align_device_sizes(ctx, t);
		if (ret < 0)
			return ret;
		if (btrfs_super_total_bytes(sb) != f->value)
			printf("Reset super total bytes from %llu to %llu\n", btrfs_super_total_bytes(sb),
			       f->value);
		btrfs_set_super_total_bytes(sb, f->value);
		break;
	}
	return 0;
}

/*
 * A superblock generation that disagreed with its root block and a backup
 * root (the open took the block's: btrfs_fs_generation_fixes()): an error,
 * and --repair commits the superblock with the block's generation.
 */
void check_super_generations(struct check_ctx *ctx)
{
	struct btrfs_generation_fix g = btrfs_fs_generation_fixes(ctx->fs);
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	const struct btrfs_super_mend *mends;
	int nr = btrfs_fs_super_mends(ctx->fs, &mends);
	struct super_fix f;

	/* the re-check of a repair reads the commit's own superblock: nothing of the open's */
	if (ctx->fs->view_block)
		return;
	if (g.chunk_root_generation_fixed) {
		check_error(ctx, "superblock: chunk_root_generation %llu, but chunk root block %llu has generation %llu, as backup root %d says",
			    g.chunk_root_generation, btrfs_super_chunk_root(sb),
			    btrfs_super_chunk_root_generation(sb), g.backup);
		f = (struct super_fix){ SUPER_CHUNK_ROOT_GENERATION, g.chunk_root_generation };
		if (check_repairing(ctx))
			check_fixable(ctx, fix_super, &f, sizeof(f));
	}
	for (int i = 0; i < nr; i++) {
		check_error(ctx, "superblock: %s %llu is wrong (%s): %llu",
			    mends[i].field, (unsigned long long)mends[i].was, mends[i].why,
			    (unsigned long long)mends[i].now);
		f = (struct super_fix){ SUPER_MENDED, 0, &mends[i] };
		if (check_repairing(ctx))
			check_fixable(ctx, fix_super, &f, sizeof(f));
	}
	if (g.generation_fixed) {
		check_error(ctx, "superblock: generation %llu, but root tree block %llu has generation %llu, as backup root %d says",
			    g.generation, btrfs_super_root(sb), btrfs_super_generation(sb), g.backup);
		f = (struct super_fix){ SUPER_GENERATION, g.generation };
		if (check_repairing(ctx))
			check_fixable(ctx, fix_super, &f, sizeof(f));
	}
}

void check_queue_super_compat_ro(struct check_ctx *ctx, u64 bits)
{
	struct btrfs_super_block *sb = ctx->fs->super;
	struct super_fix f = { SUPER_COMPAT_RO, bits & ~btrfs_super_compat_ro_flags(sb) };

	if (!check_repairing(ctx) || !f.value)
		return;
	/*
	 * Set in the copy at once: the repair's transaction finds the trees by
	 * these bits (the block group items in the block group tree).
	 */
	btrfs_set_super_compat_ro_flags(sb, btrfs_super_compat_ro_flags(sb) | f.value);
	ctx->fs->geo.compat_ro_flags = btrfs_super_compat_ro_flags(sb);
	check_fixable(ctx, fix_super, &f, sizeof(f));
}

void check_queue_super_incompat_clear(struct check_ctx *ctx, u64 bits)
{
	struct btrfs_super_block *sb = ctx->fs->super;
	struct super_fix f = { SUPER_INCOMPAT_CLEAR, bits & btrfs_super_incompat_flags(sb) };

	if (!check_repairing(ctx) || !f.value)
		return;
	/* in the copy at once: the repair's transaction must not keep simple quotas it has no tree for */
	btrfs_set_super_incompat_flags(sb, btrfs_super_incompat_flags(sb) & ~f.value);
	ctx->fs->geo.incompat_flags = btrfs_super_incompat_flags(sb);
	check_fixable(ctx, fix_super, &f, sizeof(f));
}

void check_queue_super_bytes_used(struct check_ctx *ctx, u64 bytes_used)
{
	struct super_fix f = { SUPER_BYTES_USED, bytes_used };

	if (check_repairing(ctx))
		check_fixable(ctx, fix_super, &f, sizeof(f));
}

void check_queue_super_num_devices(struct check_ctx *ctx, u64 num_devices)
{
	struct super_fix f = { SUPER_NUM_DEVICES, num_devices };

	if (check_repairing(ctx) && num_devices)
		check_fixable(ctx, fix_super, &f, sizeof(f));
}

void check_queue_super_total_bytes(struct check_ctx *ctx, const struct ext_state *st)
{
	struct super_fix f = { SUPER_TOTAL_BYTES, 0 };
	size_t i;

	if (!check_repairing(ctx))
		return;
	for (i = 0; i < st->dev_nr; i++)
		f.value += round_down(st->dev[i].total_bytes, (u64)st->sectorsize);
	check_fixable(ctx, fix_super, &f, sizeof(f));
}

/* ---- devices ------------------------------------------------------------------------ */

/* One dev extent: deleted (orphan) or inserted (a chunk stripe's, missing). */
struct devext_fix {
	u64 devid;
	u64 physical;
	u64 len;
	u64 chunk_offset;
	bool has_dev;      /* the device item exists */
};

/* Add delta to the bytes_used of device item devid (never below 0). */
static int dev_used_add(struct btrfs_trans *t, u64 devid, s64 delta)
{
	struct btrfs_path path;
	struct btrfs_dev_item *di;
	u64 used;
	int ret = dev_item_path(t, devid, &path);

	if (ret < 0)
		return ret;
	di = btrfs_path_item_ptr(&path);
	used = btrfs_device_bytes_used(di);
	btrfs_set_device_bytes_used(di, delta < 0 && used < (u64)-delta ? 0 : used + (u64)delta);
	btrfs_release_path(&path);
	return 0;
}

static int fix_orphan_dev_extent(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct devext_fix *f = arg;
	struct btrfs_key key = { f->devid, BTRFS_DEV_EXTENT_KEY, f->physical };
	struct btrfs_wroot *dev;
	int ret;

	(void)ctx;
	ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret == 0)
		ret = btrfs_delete_item(t, dev, &key);
	if (ret == 0 && f->has_dev)
		ret = dev_used_add(t, f->devid, -(s64)f->len);
	if (ret == 0)
		printf("Removed orphan dev extent, devid %llu physical %llu length %llu\n", f->devid,
		       f->physical, f->len);
	return ret;
}

void check_queue_orphan_dev_extent(struct check_ctx *ctx, const struct check_devext *d, bool has_dev)
{
	struct devext_fix f = { d->devid, d->physical, d->len, d->chunk_offset, has_dev };

	if (check_repairing(ctx))
		check_fixable(ctx, fix_orphan_dev_extent, &f, sizeof(f));
}

/* A dev extent whose length is not its chunk's share of the device: set to it. */
/* A dev extent's length and chunk_offset set to the fix's (one of them changed). */
static int fix_dev_extent(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct devext_fix *f = arg;
	struct btrfs_key key = { f->devid, BTRFS_DEV_EXTENT_KEY, f->physical };
	struct btrfs_wroot *dev;
	struct btrfs_path path;
	int ret;

	(void)ctx;
	ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, dev, &key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_dev_extent))
		ret = -EUCLEAN;
	if (ret == 0) {
		struct btrfs_dev_extent *de = btrfs_path_item_ptr(&path);

		if (btrfs_dev_extent_length(de) != f->len)
			printf("Dev extent devid %llu physical %llu: length %llu set to %llu, its chunk %llu's\n",
			       f->devid, f->physical, btrfs_dev_extent_length(de), f->len, f->chunk_offset);
		if (btrfs_dev_extent_chunk_offset(de) != f->chunk_offset)
			printf("Dev extent devid %llu physical %llu: chunk_offset %llu set to %llu, the chunk with its stripe there\n",
			       f->devid, f->physical, btrfs_dev_extent_chunk_offset(de), f->chunk_offset);
		btrfs_set_dev_extent_length(de, f->len);
		btrfs_set_dev_extent_chunk_offset(de, f->chunk_offset);
	}
	btrfs_release_path(&path);
	return ret;
}

void check_queue_dev_extent_chunk(struct check_ctx *ctx, struct check_devext *d, u64 chunk_offset)
{
	struct devext_fix f = { d->devid, d->physical, d->len, chunk_offset, true };

	if (!check_repairing(ctx))
		return;
	check_fixable(ctx, fix_dev_extent, &f, sizeof(f));
	d->chunk_offset = chunk_offset;
}

void check_queue_dev_extent_length(struct check_ctx *ctx, struct check_dev *dev, const struct check_devext *d,
				   u64 len)
{
	struct devext_fix f = { d->devid, d->physical, len, d->chunk_offset, dev != NULL };

	if (!check_repairing(ctx))
		return;
	check_fixable(ctx, fix_dev_extent, &f, sizeof(f));
	/* the device's bytes_used, if it is fixed too, counts the new length (modulo 2^64) */
	if (dev)
		dev->missing += len - d->len;
}

/* A device item's bytes_used (the sum of its dev extents) or total_bytes (beyond the device). */
struct dev_size_fix {
	u64 devid;
	u64 value;
	bool total;
};

/* Queued after the orphan dev extents' fixes: it has the last word. */
static int fix_dev_size(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct dev_size_fix *f = arg;
	struct btrfs_dev_item *di;
	struct btrfs_path path;
	int ret;

	(void)ctx;
	ret = dev_item_path(t, f->devid, &path);
	if (ret < 0)
		return ret;
	di = btrfs_path_item_ptr(&path);
	if (f->total) {
		printf("Device %llu: total_bytes %llu beyond the device, reset to %llu\n", f->devid,
		       btrfs_device_total_bytes(di), f->value);
		btrfs_set_device_total_bytes(di, f->value);
	} else {
		printf("Device %llu: bytes_used %llu reset to %llu, the sum of its dev extents\n", f->devid,
		       btrfs_device_bytes_used(di), f->value);
		btrfs_set_device_bytes_used(di, f->value);
	}
	btrfs_release_path(&path);
	return 0;
}

void check_queue_dev_used(struct check_ctx *ctx, const struct check_dev *d)
{
	struct dev_size_fix f = { d->devid, d->sum - d->orphan + d->missing, false };

	if (check_repairing(ctx))
		check_fixable(ctx, fix_dev_size, &f, sizeof(f));
}

void check_queue_dev_total(struct check_ctx *ctx, u64 devid, u64 total)
{
	struct dev_size_fix f = { devid, total, true };

	check_fixable(ctx, fix_dev_size, &f, sizeof(f));
}

/* A chunk stripe's dev extent put back; the device item's bytes_used follows. */
static int fix_missing_dev_extent(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct devext_fix *f = arg;
	struct btrfs_key key = { f->devid, BTRFS_DEV_EXTENT_KEY, f->physical };
	struct tree_check tc = { .owner = 0, .level = -1, .transid = 0, .first_key = NULL };
	struct btrfs_dev_extent de;
	struct extent_buffer *eb;
	struct btrfs_wroot *dev;
	int ret;

	memset(&de, 0, sizeof(de));
	btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_offset(&de, f->chunk_offset);
	btrfs_set_dev_extent_length(&de, f->len);
	/* the chunk tree's uuid, as every tree block header carries it */
	ret = btrfs_read_tree_block(ctx->fs, ctx->fs->chunk_root.bytenr, &tc, &eb);
	if (ret < 0)
		return ret;
	memcpy(de.chunk_tree_uuid, btrfs_header(eb)->chunk_tree_uuid, BTRFS_UUID_SIZE);
	free_extent_buffer(eb);
	ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret == 0)
		ret = btrfs_insert_item(t, dev, &key, &de, sizeof(de));
	if (ret == 0)
		ret = dev_used_add(t, f->devid, (s64)f->len);
	if (ret < 0)
		return ret;
	printf("Inserted the dev extent of chunk %llu, devid %llu physical %llu length %llu\n",
	       f->chunk_offset, f->devid, f->physical, f->len);
	return 0;
}

void check_queue_missing_dev_extent(struct check_ctx *ctx, struct ext_state *st, struct check_dev *dev,
				    const struct btrfs_chunk_map *ch, int s)
{
	struct devext_fix f = { ch->stripes[s].devid, ch->stripes[s].physical, check_chunk_dev_len(ch),
				ch->logical, true };
	size_t i;

	if (!check_repairing(ctx) || !dev || !f.len || f.physical + f.len > dev->total_bytes ||
	    f.physical + f.len < f.physical)
		return;
	/* no dev extent of the device may overlap it (sorted by devid, physical) */
	for (i = 0; i < st->dext_nr; i++) {
		const struct check_devext *d = &st->dext[i];

		if (d->devid == f.devid && d->physical < f.physical + f.len && f.physical < d->physical + d->len)
			return;
	}
	dev->missing += f.len;
	check_fixable(ctx, fix_missing_dev_extent, &f, sizeof(f));
}

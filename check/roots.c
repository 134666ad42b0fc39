// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 2, root items: every ROOT_ITEM of the root tree is well formed and
 * its root block reads at the level and generation the item states; the
 * trees every filesystem has are present.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/blkzoned.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-root-items.h"
#include "check/passes.h"
#include "check/repair-queue.h"
#include "check/repair-root-tree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/messages.h"

struct roots_seen {
	bool extent, dev, fs, csum, free_space, block_group, quota;
};

static int root_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct roots_seen *seen = arg;
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	u32 size = btrfs_leaf_item_size(eb, slot);
	struct btrfs_root_item *ri;
	struct btrfs_tree_ref ref;
	struct tree_check tc;
	struct extent_buffer *rb;
	char nbuf[32];
	const char *name = check_tree_name(key->objectid, nbuf, sizeof(nbuf));

	if (key->type != BTRFS_ROOT_ITEM_KEY)
		return 0;
	if (size < offsetof(struct btrfs_root_item, generation_v2)) {
		check_error(ctx, "root tree: root item (%llu ROOT_ITEM %llu) in leaf %llu has size %u, expected at least %zu",
			    key->objectid, key->offset, eb->start, size,
			    offsetof(struct btrfs_root_item, generation_v2));
		return 0;
	}
	ri = btrfs_leaf_item_ptr(eb, slot);
	switch (key->objectid) {
	case BTRFS_EXTENT_TREE_OBJECTID: seen->extent = true; break;
	case BTRFS_DEV_TREE_OBJECTID: seen->dev = true; break;
	case BTRFS_FS_TREE_OBJECTID: seen->fs = true; break;
	case BTRFS_CSUM_TREE_OBJECTID: seen->csum = true; break;
	case BTRFS_FREE_SPACE_TREE_OBJECTID: seen->free_space = true; break;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID: seen->block_group = true; break;
	case BTRFS_QUOTA_TREE_OBJECTID: seen->quota = true; break;
	}
	btrfs_tree_ref_from_root_item(&ref, key->objectid, ri);
	if (key->offset && check_root_item_at_zero(sb, key->objectid))
		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) in leaf %llu has offset %llu, expected 0 (the kernel finds this tree at offset 0)",
			    name, key->objectid, key->offset, eb->start, key->offset);
	/* every tree was made by some transaction (the kernel reads a 0 as "any") */
	if (!btrfs_root_generation(ri))
		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) generation is 0",
			    name, key->objectid, key->offset);
	else if (btrfs_root_generation(ri) > btrfs_super_generation(sb))
		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) generation %llu is beyond the superblock's %llu",
			    name, key->objectid, key->offset, btrfs_root_generation(ri),
			    btrfs_super_generation(sb));
	/* trees of files: the subvolumes and the data relocation tree */
	if (check_is_file_tree(key->objectid) && btrfs_root_dirid(ri) != BTRFS_FIRST_FREE_OBJECTID) {
		/* the kernel makes every such tree with its top directory 256, and nothing moves it */
		struct check_root_item_fix f = { .key = *key, .field = CHECK_ROOT_DIRID,
						 .value = BTRFS_FIRST_FREE_OBJECTID };

		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) in leaf %llu: root_dirid %llu, expected %llu",
			    name, key->objectid, key->offset, eb->start, btrfs_root_dirid(ri),
			    BTRFS_FIRST_FREE_OBJECTID);
		check_fixable(ctx, check_fix_root_item, &f, sizeof(f));
	}
	if (ref.level >= BTRFS_MAX_LEVEL) {
		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) level %u, expected below %d",
			    name, key->objectid, key->offset, ref.level, BTRFS_MAX_LEVEL);
		return 0;
	}
	if (btrfs_root_drop_level(ri) > ref.level) {
		static const struct btrfs_disk_key no_progress;
		struct check_root_item_fix f = { .key = *key, .field = CHECK_ROOT_DROP_LEVEL };

		check_error(ctx, "%s: root item (%llu ROOT_ITEM %llu) drop_level %u above the root's level %u",
			    name, key->objectid, key->offset, btrfs_root_drop_level(ri), ref.level);
		/* it means something only while a deletion is under way (drop_progress set) */
		if (!memcmp(&ri->drop_progress, &no_progress, sizeof(no_progress)))
			check_fixable(ctx, check_fix_root_item, &f, sizeof(f));
	}
	/* a tree of files' root block is its own: a snapshot's root is a copy owned by it */
	tc = (struct tree_check){ .owner = check_is_file_tree(key->objectid) ? key->objectid : 0,
				  .level = ref.level, .transid = ref.generation };
	if (btrfs_read_tree_block(ctx->fs, ref.bytenr, &tc, &rb) < 0) {
		check_error(ctx, "%s: root block %llu of root item (%llu ROOT_ITEM %llu) cannot be read at level %u generation %llu",
			    name, ref.bytenr, key->objectid, key->offset, ref.level, ref.generation);
		check_fst_block_unreadable(ctx, key->objectid);
		return 0;
	}
	free_extent_buffer(rb);
	return 0;
}

/*
 * A tree that exists must be announced by its compat_ro bit: a kernel that
 * does not know the free space tree is there lets it go stale, one that does
 * not know of the block group tree looks for block group items where there
 * are none.  (A bit without its tree is reported by the passes that use it.)
 */
static void check_tree_feature(struct check_ctx *ctx, bool have, u64 bit, const char *feature,
			       const char *tree)
{
	u64 ro = btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs));

	if (have && !(ro & bit)) {
		check_error(ctx, "root tree: the %s exists but the superblock's compat_ro flags 0x%llx lack %s",
			    tree, ro, feature);
		check_queue_super_compat_ro(ctx, bit == BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE ?
					    bit | BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID : bit);
	}
}

/* Does a device of the filesystem report zones (a zoned block device)? */
static bool zoned_device(struct check_ctx *ctx)
{
	for (int i = 0; i < ctx->fs->devices.nr; i++) {
		const struct btrfs_device *d = &ctx->fs->devices.devs[i];
		struct stat st;
		u32 zone = 0;

		if (d->fd >= 0 && fstat(d->fd, &st) == 0 && S_ISBLK(st.st_mode) &&
		    ioctl(d->fd, BLKGETZONESZ, &zone) == 0 && zone)
			return true;
	}
	return false;
}

/*
 * ZONED on devices that have no zones (image files): the kernel emulates
 * zones the size of the first device extent, and every block group must be
 * whole zones at a zone boundary.  Chunks that are not say the bit is
 * damage (a zoned filesystem made on such devices has them all one zone).
 */
static void check_zoned_layout(struct check_ctx *ctx)
{
	const struct btrfs_chunk_tree_map *map = &ctx->fs->chunks;
	u64 zone = 0, low = (u64)-1;

	if (!(btrfs_super_incompat_flags(btrfs_fs_super(ctx->fs)) & BTRFS_FEATURE_INCOMPAT_ZONED) ||
	    zoned_device(ctx))
		return;
	for (size_t i = 0; i < map->nr; i++) {
		const struct btrfs_chunk_map *c = map->chunks[i];
		int data = btrfs_chunk_data_stripes(c);

		for (int s = 0; data > 0 && s < c->num_stripes; s++)
			if (c->stripes[s].physical < low) {
				low = c->stripes[s].physical;
				zone = c->length / (u64)data;
			}
	}
	for (size_t i = 0; zone && i < map->nr; i++) {
		const struct btrfs_chunk_map *c = map->chunks[i];

		if (c->logical % zone || c->length % zone) {
			check_error(ctx, "superblock: ZONED, but block group [%llu %llu] is not whole emulated zones of %llu bytes (the first device extent's) on devices without zones",
				    (unsigned long long)c->logical, (unsigned long long)c->length,
				    (unsigned long long)zone);
			check_queue_super_incompat_clear(ctx, BTRFS_FEATURE_INCOMPAT_ZONED);
			return;
		}
	}
}

static void check_tree_features(struct check_ctx *ctx, const struct roots_seen *seen)
{
	u64 unknown = btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs)) & ~BTRFS_FEATURE_COMPAT_RO_KNOWN;

	/* the kernel mounts it read-only only: trees check does not know may be there */
	if (unknown)
		check_error(ctx, "superblock: unknown compat_ro features 0x%llx (the kernel mounts it read-only; their trees cannot be checked)",
			    unknown);
	check_tree_feature(ctx, seen->free_space, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE,
			   "FREE_SPACE_TREE", "free space tree");
	check_tree_feature(ctx, seen->block_group, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE,
			   "BLOCK_GROUP_TREE", "block group tree");
	check_zoned_layout(ctx);
	/* simple quotas keep their numbers in the quota tree: the bit without it is damage */
	if ((btrfs_super_incompat_flags(btrfs_fs_super(ctx->fs)) & BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA) &&
	    !seen->quota) {
		check_error(ctx, "superblock: incompat flags 0x%llx have SIMPLE_QUOTA, but there is no quota tree",
			    (unsigned long long)btrfs_super_incompat_flags(btrfs_fs_super(ctx->fs)));
		check_queue_super_incompat_clear(ctx, BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA);
	}
}

int check_root_items(struct check_ctx *ctx)
{
	struct roots_seen seen = { 0 };
	int ret;

	check_super_generations(ctx);
	ret = check_for_each_item(ctx, &ctx->fs->tree_root, NULL, root_item, &seen);
	if (ret < 0) {
		check_error(ctx, "root tree cannot be read to the end: %s", strerror(-ret));
		return 0;
	}
	if (!seen.extent)
		check_error(ctx, "root tree: no root item for the extent tree");
	if (!seen.dev)
		check_error(ctx, "root tree: no root item for the device tree");
	if (!seen.fs)
		check_error(ctx, "root tree: no root item for the fs tree (5)");
	if (!seen.csum)
		check_error(ctx, "root tree: no root item for the csum tree");
	check_tree_features(ctx, &seen);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of the chunk tree's
 * items and of block group items: chunk, device and dev extent fields
 * and a chunk's key offset from what maps and holds them.
 */
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/chunk-length-told.h"
#include "check/extent-records.h"
#include "check/leaf-mend-internal.h"
#include "check/repair-root-items.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"

/* Would the chunk at slot, at logical, overlap another chunk item of the leaf or a mapped chunk? */
static bool chunk_overlaps(const struct mend *m, int slot, u64 logical, u64 length)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&m->fs->chunks, logical);

	return (c && c->logical < logical + length && logical < c->logical + c->length) ||
	       chunk_leaf_range_taken(m->eb, slot, logical, length);
}

/*
 * A chunk item's key offset (its logical address): the system chunk of the
 * superblock's sys_chunk_array copy with its very stripes; else, when it
 * is not sector aligned, the one aligned neighbour under which the chunk
 * overlaps no other.
 */
bool mend_chunk_key_offset_told(struct mend *m, int slot, const struct btrfs_key *key, u64 *off)
{
	const struct btrfs_chunk *c = btrfs_leaf_item_ptr(m->eb, slot);
	u16 n = btrfs_chunk_num_stripes(c);
	u32 ss = m->fs->geo.sectorsize;
	u64 len = btrfs_chunk_length(c), cand[2];
	int fits = 0;

	if (btrfs_leaf_item_size(m->eb, slot) != btrfs_chunk_item_size(n))
		return false;
	for (size_t i = 0; i < m->fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *map = m->fs->chunks.chunks[i];
		u16 same = 0;

		if (!(map->type & BTRFS_BLOCK_GROUP_SYSTEM) || map->num_stripes != n || map->length != len)
			continue;
		for (u16 j = 0; j < n; j++)
			same += map->stripes[j].devid == btrfs_stripe_devid(btrfs_chunk_stripe(c, j)) &&
				map->stripes[j].physical == btrfs_stripe_offset(btrfs_chunk_stripe(c, j));
		if (same == n) {
			*off = map->logical;
			return true;
		}
	}
	if (IS_ALIGNED(key->offset, ss) || !len)
		return false;
	cand[0] = round_down(key->offset, (u64)ss);
	cand[1] = round_up(key->offset, (u64)ss);
	for (int i = 0; i < 2; i++)
		if (!chunk_overlaps(m, slot, cand[i], len) && !fits++)
			*off = cand[i];
	return fits == 1;
}

/*
 * A block group's used beyond its length: set to its length, which the
 * extents pass then finds wrong and sets to what its extents use.
 */
void mend_block_group(struct mend *m, int slot, const struct btrfs_key *key,
			     struct btrfs_block_group_item *bg)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&m->fs->chunks, key->objectid);
	u64 flags = btrfs_block_group_flags(bg), type = flags & BTRFS_BLOCK_GROUP_TYPE_MASK;
	u64 prof = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	/* every block group names the one chunk tree's objectid */
	if (btrfs_block_group_chunk_objectid(bg) != BTRFS_FIRST_CHUNK_TREE_OBJECTID) {
		mend_say(m, slot, "block group chunk_objectid %llu, set to %llu",
		    (unsigned long long)btrfs_block_group_chunk_objectid(bg), BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_block_group_chunk_objectid(bg, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	}
	/* flags the tree-checker rejects: its chunk's type (the chunk tree maps it) */
	if (((prof & (prof - 1)) || (type != BTRFS_BLOCK_GROUP_DATA && type != BTRFS_BLOCK_GROUP_METADATA &&
				     type != BTRFS_BLOCK_GROUP_SYSTEM &&
				     type != (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA)) ||
	     (flags & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK))) &&
	    c && c->logical == key->objectid && c->length == key->offset) {
		mend_say(m, slot, "block group flags 0x%llx, set to its chunk's type 0x%llx", (unsigned long long)flags,
		    (unsigned long long)(c->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV));
		btrfs_set_block_group_flags(bg, c->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV);
	}
	if (btrfs_block_group_used(bg) <= key->offset)
		return;
	mend_say(m, slot, "block group used %llu beyond its length: set to %llu",
	    (unsigned long long)btrfs_block_group_used(bg), (unsigned long long)key->offset);
	btrfs_set_block_group_used(bg, key->offset);
}

/*
 * A dev extent names the one chunk tree and its chunk objectid: nothing else is valid.
 * Its length is what one device stripe of its chunk takes, when the chunk map has a
 * chunk at its chunk_offset with a stripe at this very place (devid, physical).
 */
void mend_dev_extent(struct mend *m, int slot, const struct btrfs_key *key,
			    struct btrfs_dev_extent *de)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&m->fs->chunks,
							     btrfs_dev_extent_chunk_offset(de));
	u64 len = btrfs_dev_extent_length(de);

	/* no chunk at chunk_offset: the one chunk with a stripe at this place (devid, physical) */
	if (!c || c->logical != btrfs_dev_extent_chunk_offset(de)) {
		const struct btrfs_chunk_map *at = check_chunk_at_place(&m->fs->chunks, key->objectid, key->offset);

		if (at) {
			mend_say(m, slot, "dev extent chunk_offset %llu names no chunk; chunk %llu has its stripe here: set to it",
			    (unsigned long long)btrfs_dev_extent_chunk_offset(de), (unsigned long long)at->logical);
			btrfs_set_dev_extent_chunk_offset(de, at->logical);
			c = at;
		}
	}
	for (u16 i = 0; c && c->logical == btrfs_dev_extent_chunk_offset(de) && i < c->num_stripes; i++) {
		if (c->stripes[i].devid != key->objectid || c->stripes[i].physical != key->offset ||
		    len == check_chunk_dev_len(c))
			continue;
		mend_say(m, slot, "dev extent length %llu, its chunk %llu takes %llu on each device: set to it",
		    (unsigned long long)len, (unsigned long long)c->logical,
		    (unsigned long long)check_chunk_dev_len(c));
		btrfs_set_dev_extent_length(de, check_chunk_dev_len(c));
		break;
	}
	if (btrfs_dev_extent_chunk_tree(de) != BTRFS_CHUNK_TREE_OBJECTID) {
		mend_say(m, slot, "dev extent chunk_tree %llu, set to %llu",
		    (unsigned long long)btrfs_dev_extent_chunk_tree(de), BTRFS_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_tree(de, BTRFS_CHUNK_TREE_OBJECTID);
	}
	if (btrfs_dev_extent_chunk_objectid(de) != BTRFS_FIRST_CHUNK_TREE_OBJECTID) {
		mend_say(m, slot, "dev extent chunk_objectid %llu, set to %llu",
		    (unsigned long long)btrfs_dev_extent_chunk_objectid(de), BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_objectid(de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	}
}

/*
 * A device item's devid is its key's.  Its bytes_used beyond its total_bytes: the superblock's copy
 * of the same device (same devid and uuid, same size) tells what it was
 * at the last commit; the extents pass then checks it against the dev
 * extents' sum and fixes what remains.  A total_bytes cut below the copy's,
 * with bytes_used within the copy's, is the copy's.
 */
void mend_dev_item(struct mend *m, int slot, const struct btrfs_key *key, struct btrfs_dev_item *di)
{
	const struct btrfs_dev_item *copy = &btrfs_fs_super(m->fs)->dev_item;
	u64 used = btrfs_device_bytes_used(di), total = btrfs_device_total_bytes(di);

	/* the key the tree sorts it by names the device */
	if (btrfs_device_id(di) != key->offset) {
		mend_say(m, slot, "device item devid %llu, its key's %llu: set to it",
		    (unsigned long long)btrfs_device_id(di), (unsigned long long)key->offset);
		btrfs_set_device_id(di, key->offset);
	}

	if (used <= total || btrfs_device_id(copy) != btrfs_device_id(di) ||
	    memcmp(copy->uuid, di->uuid, BTRFS_UUID_SIZE) ||
	    btrfs_device_bytes_used(copy) > btrfs_device_total_bytes(copy))
		return;
	if (btrfs_device_total_bytes(copy) == total) {
		mend_say(m, slot, "device bytes_used %llu beyond total_bytes %llu: set to the superblock's copy, %llu",
		    (unsigned long long)used, (unsigned long long)total,
		    (unsigned long long)btrfs_device_bytes_used(copy));
		btrfs_set_device_bytes_used(di, btrfs_device_bytes_used(copy));
	} else if (btrfs_device_total_bytes(copy) > total && used <= btrfs_device_total_bytes(copy)) {
		mend_say(m, slot, "device total_bytes %llu below bytes_used %llu: set to the superblock's copy, %llu",
		    (unsigned long long)total, (unsigned long long)used,
		    (unsigned long long)btrfs_device_total_bytes(copy));
		btrfs_set_device_total_bytes(di, btrfs_device_total_bytes(copy));
	}
}

/* Does [start, start + len) hold a root block the superblock names for its commit? */
static bool holds_root_block(const struct btrfs_super_block *sb, u64 start, u64 len)
{
	static const u64 trees[] = { BTRFS_EXTENT_TREE_OBJECTID, BTRFS_FS_TREE_OBJECTID,
				     BTRFS_DEV_TREE_OBJECTID, BTRFS_CSUM_TREE_OBJECTID };
	struct btrfs_tree_ref ref;

	if (btrfs_super_root(sb) >= start && btrfs_super_root(sb) - start < len)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(trees); i++)
		if (check_commit_backup_root(sb, trees[i], &ref) && ref.bytenr >= start && ref.bytenr - start < len)
			return true;
	return false;
}

/*
 * The type of a chunk item that fails the tree-checker for it: a system
 * chunk's is the superblock's sys_chunk_array copy (what reads map it by);
 * else the profile its stripes tell (one stripe: single; two on one device:
 * DUP; others are not told) with the kind of block group its type still
 * names, or, when that is no kind, metadata if a root block of the commit is
 * in it, else data.  The extents pass then holds it against the block group
 * item and the extents inside (check_block_groups()).  0: not told.
 */
static u64 chunk_type_told(struct mend *m, u64 logical, const struct btrfs_chunk *c)
{
	const struct btrfs_chunk_map *copy = btrfs_chunk_lookup(&m->fs->chunks, logical);
	u16 n = btrfs_chunk_num_stripes(c);
	u64 kind = btrfs_chunk_type(c) & BTRFS_BLOCK_GROUP_TYPE_MASK, profile;

	if (copy && copy->logical == logical && (copy->type & BTRFS_BLOCK_GROUP_SYSTEM) &&
	    copy->length == btrfs_chunk_length(c) && copy->num_stripes == n)
		return copy->type;
	if (n == 1)
		profile = 0;
	else if (n == 2 && btrfs_stripe_devid(&c->stripe[0]) == btrfs_stripe_devid(&c->stripe[1]))
		profile = BTRFS_BLOCK_GROUP_DUP;
	else
		return 0;
	if (kind != BTRFS_BLOCK_GROUP_DATA && kind != BTRFS_BLOCK_GROUP_METADATA &&
	    kind != BTRFS_BLOCK_GROUP_SYSTEM)
		kind = holds_root_block(btrfs_fs_super(m->fs), logical, btrfs_chunk_length(c)) ?
		       BTRFS_BLOCK_GROUP_METADATA : BTRFS_BLOCK_GROUP_DATA;
	return kind | profile;
}

/*
 * A system chunk item that fails the tree-checker, whose superblock
 * sys_chunk_array copy (what reads map it by) has its stripe count: every
 * field from the copy, kept when the item then passes.  true when taken.
 */
static bool mend_chunk_from_copy(struct mend *m, int slot, u64 logical, struct btrfs_chunk *c, u32 size)
{
	const struct btrfs_chunk_map *copy = btrfs_chunk_lookup(&m->fs->chunks, logical);
	u32 ss = m->fs->geo.sectorsize;
	u8 was[256];
	char why[200];

	if (!copy || copy->logical != logical || !(copy->type & BTRFS_BLOCK_GROUP_SYSTEM) ||
	    copy->num_stripes != btrfs_chunk_num_stripes(c) || size > sizeof(was) ||
	    btrfs_check_chunk(logical, c, size, ss, m->fs->geo.incompat_flags, why, sizeof(why)) == 0)
		return false;
	memcpy(was, c, size);
	check_chunk_item_from_map(c, copy);
	if (btrfs_check_chunk(logical, c, size, ss, m->fs->geo.incompat_flags, why, sizeof(why)) < 0) {
		memcpy(c, was, size);
		return false;
	}
	mend_say(m, slot, "system chunk item fails the tree-checker: set from the superblock's sys_chunk_array copy (length %llu type 0x%llx)",
	    (unsigned long long)copy->length, (unsigned long long)copy->type);
	return true;
}

/*
 * A chunk item's fields its own layout tells: the stripe count from the
 * item's size (the stripes follow the fixed part); the sector size is the
 * filesystem's, the stripe length the only one; a system chunk from its
 * copy (mend_chunk_from_copy()), else a type the tree-checker rejects
 * (chunk_type_told()).
 */
void mend_chunk(struct mend *m, int slot, struct btrfs_chunk *c, u32 size)
{
	u32 stripes = (size - (u32)sizeof(*c)) / (u32)sizeof(struct btrfs_stripe);

	if (btrfs_chunk_item_size(btrfs_chunk_num_stripes(c)) != size && stripes &&
	    btrfs_chunk_item_size((int)stripes) == size) {
		mend_say(m, slot, "chunk num_stripes %u, the item holds %u stripes: set to it",
		    btrfs_chunk_num_stripes(c), stripes);
		btrfs_set_chunk_num_stripes(c, (u16)stripes);
	}
	/* every chunk's sector size is the filesystem's */
	if (btrfs_chunk_sector_size(c) != m->fs->geo.sectorsize) {
		mend_say(m, slot, "chunk sector_size %u, set to the filesystem's %u", btrfs_chunk_sector_size(c),
		    m->fs->geo.sectorsize);
		btrfs_set_chunk_sector_size(c, m->fs->geo.sectorsize);
	}
	/* the only stripe length the kernel writes or reads */
	if (btrfs_chunk_stripe_len(c) != BTRFS_STRIPE_LEN) {
		mend_say(m, slot, "chunk stripe_len %llu, set to %llu (the only one)",
		    (unsigned long long)btrfs_chunk_stripe_len(c), (unsigned long long)BTRFS_STRIPE_LEN);
		btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	}
	if (btrfs_chunk_item_size(btrfs_chunk_num_stripes(c)) == size) {
		struct btrfs_key key;
		char why[200];
		u64 type, was = btrfs_chunk_type(c);

		btrfs_item_key_to_cpu(m->eb, &key, slot);
		if (mend_chunk_from_copy(m, slot, key.offset, c, size))
			return;
		if (btrfs_check_chunk(key.offset, c, size, m->fs->geo.sectorsize, m->fs->geo.incompat_flags,
				      why, sizeof(why)) == 0 || !(type = chunk_type_told(m, key.offset, c)))
			return;
		btrfs_set_chunk_type(c, type);
		if (btrfs_check_chunk(key.offset, c, size, m->fs->geo.sectorsize, m->fs->geo.incompat_flags,
				      why, sizeof(why)) < 0) {
			btrfs_set_chunk_type(c, was);
			return;
		}
		mend_say(m, slot, "chunk type 0x%llx, its stripes and contents tell 0x%llx: set to it",
		    (unsigned long long)was, (unsigned long long)type);
	}
}

/*
 * The one chunk item of the chunk tree's root leaf whose length fails the
 * tree-checker or reaches into the next chunk: the length the devices'
 * bytes_used tell (chunk-length-told.h).
 */
void mend_chunk_length(struct mend *m)
{
	u32 ss = m->fs->geo.sectorsize;
	u64 incompat = m->fs->geo.incompat_flags, length;
	struct btrfs_chunk *c;
	int slot;

	if (!mend_leaf_is_root(m))
		return;
	slot = chunk_length_suspect(m->eb, ss, incompat);
	if (slot < 0 || !(length = chunk_length_told(m->eb, slot, ss, incompat)))
		return;
	c = btrfs_leaf_item_ptr(m->eb, slot);
	mend_say(m, slot, "chunk length %llu, what its devices' bytes_used leave after the other chunks: set to %llu",
	    (unsigned long long)btrfs_chunk_length(c), (unsigned long long)length);
	btrfs_set_chunk_length(c, length);
}

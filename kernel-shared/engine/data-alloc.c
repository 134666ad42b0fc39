// SPDX-License-Identifier: GPL-2.0
/*
 * Data extents allocated and dropped through the engine (see
 * transaction.h): space from DATA block groups (a new data chunk when they
 * are full), the extent item with its EXTENT_DATA_REF, and the accounting
 * of btrfs_account_extent().
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

/* The kernel's largest extent (BTRFS_MAX_EXTENT_SIZE). */
#define DATA_EXTENT_MAX (128ULL * SZ_1M)

/* *len bytes, or with shrink less (halves, down to one sector) from the DATA block groups as they are. */
static int alloc_existing(struct btrfs_trans *t, u64 *len, bool shrink, u64 *bytenr)
{
	u32 sectorsize = t->fs->geo.sectorsize;
	int ret = extent_alloc_bytes(t, BTRFS_BLOCK_GROUP_DATA, *len, sectorsize, bytenr);

	for (u64 try = *len; ret == -ENOSPC && shrink && try > sectorsize;) {
		try = max_t(u64, round_down(try / 2, (u64)sectorsize), sectorsize);
		ret = extent_alloc_bytes(t, BTRFS_BLOCK_GROUP_DATA, try, sectorsize, bytenr);
		if (ret == 0)
			*len = try;
	}
	return ret;
}

/*
 * Space for *len bytes of data: the existing DATA block groups (with
 * shrink: what is left in them, so chunks fill up), then a new data
 * chunk.  -ENOSPC is silent unless no chunk could be made.
 */
static int reserve_data(struct btrfs_trans *t, u64 *len, bool shrink, u64 *bytenr)
{
	struct wblock_group *bg;
	int ret;

	ret = alloc_existing(t, len, shrink, bytenr);
	if (ret != -ENOSPC)
		return ret;
	ret = trans_new_block_group(t, extent_alloc_block_group_type(t, BTRFS_BLOCK_GROUP_DATA), &bg);
	if (ret < 0)
		return ret;
	return alloc_existing(t, len, shrink, bytenr);
}

/* The extent item of a new data extent, its space accounted. */
static int insert_data_extent(struct btrfs_trans *t, u64 bytenr, u64 len, u64 root, u64 ino,
			      u64 offset)
{
	u8 buf[sizeof(struct btrfs_extent_item) + 1 + sizeof(struct btrfs_extent_data_ref)];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	struct btrfs_extent_data_ref *dr = (struct btrfs_extent_data_ref *)(buf + sizeof(*ei) + 1);
	struct btrfs_wroot *extent;
	struct btrfs_key key;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	/* the range is out of the free list already; accounting takes it for good */
	ret = btrfs_account_extent(t, bytenr, len, true);
	if (ret < 0)
		return ret;
	extent_alloc_item_init(t, buf, sizeof(buf), BTRFS_EXTENT_FLAG_DATA);
	buf[sizeof(*ei)] = BTRFS_EXTENT_DATA_REF_KEY;
	btrfs_set_extent_data_ref_root(dr, root);
	btrfs_set_extent_data_ref_objectid(dr, ino);
	btrfs_set_extent_data_ref_offset(dr, offset);
	btrfs_set_extent_data_ref_count(dr, 1);
	key = (struct btrfs_key){ bytenr, BTRFS_EXTENT_ITEM_KEY, len };
	ret = btrfs_insert_item(t, extent, &key, buf, sizeof(buf));
	if (ret < 0)
		error("cannot insert the extent item of data extent %llu+%llu", bytenr, len);
	return ret;
}

static bool bad_data_len(const struct btrfs_trans *t, u64 len)
{
	u32 sectorsize = t->fs->geo.sectorsize;

	if (!len || len % sectorsize || len > DATA_EXTENT_MAX) {
		error("data extent of %llu bytes: must be a multiple of %u, at most %llu", len,
		      sectorsize, (unsigned long long)DATA_EXTENT_MAX);
		return true;
	}
	return false;
}

int btrfs_alloc_data_extent(struct btrfs_trans *t, u64 len, u64 root, u64 ino, u64 offset,
			    u64 *bytenr)
{
	int ret;

	if (bad_data_len(t, len))
		return -EINVAL;
	ret = reserve_data(t, &len, false, bytenr);
	if (ret < 0) {
		error("no free space for a data extent of %llu bytes", len);
		return ret;
	}
	return insert_data_extent(t, *bytenr, len, root, ino, offset);
}

int btrfs_alloc_data_extent_upto(struct btrfs_trans *t, u64 *len, u64 root, u64 ino, u64 offset,
				 u64 *bytenr)
{
	int ret;

	if (bad_data_len(t, *len))
		return -EINVAL;
	ret = reserve_data(t, len, true, bytenr);
	if (ret < 0)
		return ret;
	return insert_data_extent(t, *bytenr, *len, root, ino, offset);
}

/*
 * The data ref of an extent item of size bytes at p: 0 when it is one
 * EXTENT_DATA_REF of count 1 (inline), 1 when there is no inline ref (the
 * ref is keyed), -EOPNOTSUPP otherwise.
 */
static int sole_data_ref(const u8 *p, u32 size)
{
	const struct btrfs_extent_item *ei = (const void *)p;
	const struct btrfs_extent_data_ref *dr;
	u32 want = sizeof(*ei) + 1 + sizeof(*dr);

	if (size < sizeof(*ei) || btrfs_extent_refs(ei) != 1 ||
	    !(btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_DATA))
		return -EOPNOTSUPP;
	if (size == sizeof(*ei))
		return 1;
	dr = (const void *)(p + sizeof(*ei) + 1);
	if (size != want || p[sizeof(*ei)] != BTRFS_EXTENT_DATA_REF_KEY ||
	    btrfs_extent_data_ref_count(dr) != 1)
		return -EOPNOTSUPP;
	return 0;
}

/* Delete the keyed EXTENT_DATA_REF items of extent bytenr (there is one, count 1). */
static int drop_keyed_data_ref(struct btrfs_trans *t, struct btrfs_wroot *extent, u64 bytenr)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_DATA_REF_KEY, 0 }, found;
	int ret;

	ret = btrfs_trans_find_key(t, extent, &key, BTRFS_SEARCH_NEXT, &found);
	if (ret == 0 && (found.objectid != bytenr || found.type != BTRFS_EXTENT_DATA_REF_KEY))
		ret = 1;
	if (ret > 0) {
		error("data extent %llu: no back reference item", bytenr);
		return -EUCLEAN;
	}
	return ret < 0 ? ret : btrfs_delete_item(t, extent, &found);
}

int btrfs_free_data_extent(struct btrfs_trans *t, u64 bytenr, u64 len)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, len };
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	int ret, keyed;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, extent, &key, &path, -1, 1);
	if (ret) {
		btrfs_release_path(&path);
		if (ret > 0)
			error("data extent (%llu EXTENT_ITEM %llu) not found", bytenr, len);
		return ret > 0 ? -ENOENT : ret;
	}
	keyed = sole_data_ref(btrfs_path_item_ptr(&path), btrfs_path_item_size(&path));
	if (keyed < 0) {
		btrfs_release_path(&path);
		error("data extent %llu+%llu is shared or not a data extent; not freed", bytenr, len);
		return keyed;
	}
	ret = btrfs_del_items(t, extent, &path, path.slots[0], 1);
	if (ret == 0 && keyed)
		ret = drop_keyed_data_ref(t, extent, bytenr);
	if (ret == 0)
		ret = btrfs_account_extent(t, bytenr, len, false);
	return ret;
}

int btrfs_trans_write_data(struct btrfs_trans *t, u64 logical, const void *buf, u64 len)
{
	struct btrfs_block_writer w;
	struct block_writer_device *devs = NULL;
	int ret;

	ret = btrfs_trans_block_writer_init(t, &w, &devs);
	if (ret < 0 && !devs)
		return ret;
	if (ret == 0)
		ret = btrfs_write_logical(&w, logical, buf, len);
	if (ret == 0)
		ret = btrfs_block_writer_flush(&w);
	if (ret < 0)
		error("cannot write %llu bytes of data at %llu", len, logical);
	btrfs_block_writer_release(&w);
	free(devs);
	return ret;
}

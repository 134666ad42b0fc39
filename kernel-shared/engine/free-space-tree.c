// SPDX-License-Identifier: GPL-2.0
/*
 * Free space tree updates (see engine-internal.h).
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

struct free_space_tree_ctx {
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct wblock_group *bg;
	u64 end;                       /* bg end */
};

static int ctx_init(struct free_space_tree_ctx *c, struct btrfs_trans *t, u64 start, u64 len)
{
	int ret;

	c->t = t;
	c->bg = extent_alloc_find_block_group(t, start);
	if (!c->bg || start + len > c->bg->start + c->bg->length) {
		error("free space tree: range %llu+%llu is not inside one block group", start, len);
		return -EINVAL;
	}
	c->end = c->bg->start + c->bg->length;
	ret = btrfs_trans_get_root(t, BTRFS_FREE_SPACE_TREE_OBJECTID, &c->root);
	if (ret < 0)
		error("cannot find the free space tree");
	return ret;
}

/* Read (and with delta != 0 update) the block group's FREE_SPACE_INFO. */
static int info_update(struct free_space_tree_ctx *c, s64 delta, u32 *flags)
{
	struct btrfs_path path;
	struct btrfs_key key = { c->bg->start, BTRFS_FREE_SPACE_INFO_KEY, c->bg->length };
	struct btrfs_free_space_info *fi;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(c->t, c->root, &key, &path, 0, delta != 0);
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(*fi))
		ret = 1;
	if (ret) {
		btrfs_release_path(&path);
		if (ret > 0) {
			error("free space tree: no FREE_SPACE_INFO for block group %llu", c->bg->start);
			return -EUCLEAN;
		}
		return ret;
	}
	fi = btrfs_path_item_ptr(&path);
	if (flags)
		*flags = btrfs_free_space_flags(fi);
	if (delta) {
		s64 n = (s64)btrfs_free_space_extent_count(fi) + delta;

		if (n < 0)
			ret = -EUCLEAN;
		else
			btrfs_set_free_space_extent_count(fi, (u32)n);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		error("free space tree: extent count of block group %llu would go negative",
		      c->bg->start);
	return ret;
}

static int insert_extent(struct free_space_tree_ctx *c, u64 start, u64 len)
{
	struct btrfs_key key = { start, BTRFS_FREE_SPACE_EXTENT_KEY, len };

	return btrfs_insert_item(c->t, c->root, &key, NULL, 0);
}

/* ---- bitmaps ---- */

/* The bitmap item holding addr: its key (0, 1 none, < 0). */
static int find_bitmap(struct free_space_tree_ctx *c, u64 addr, struct btrfs_key *found)
{
	struct btrfs_path path;
	struct btrfs_key key = { addr, BTRFS_FREE_SPACE_BITMAP_KEY, (u64)-1 };
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(c->t, c->root, &key, BTRFS_SEARCH_PREV, &path, found);
	btrfs_release_path(&path);
	if (ret)
		return ret;
	if (found->type != BTRFS_FREE_SPACE_BITMAP_KEY || found->objectid > addr ||
	    found->objectid + found->offset <= addr)
		return 1;
	return 0;
}

static int bit_free(struct free_space_tree_ctx *c, u64 addr, bool *is_free)
{
	struct btrfs_path path;
	struct btrfs_key key;
	u32 sectorsize = c->t->fs->geo.sectorsize;
	int ret = find_bitmap(c, addr, &key);
	u64 bit;

	if (ret) {
		if (ret > 0)
			error("free space tree: no bitmap covers %llu in block group %llu", addr,
			      c->bg->start);
		return ret < 0 ? ret : -EUCLEAN;
	}
	btrfs_init_path(&path);
	ret = btrfs_search_slot(c->t, c->root, &key, &path, 0, 0);
	if (ret == 0) {
		const u8 *bits = btrfs_path_item_ptr(&path);

		bit = (addr - key.objectid) / sectorsize;
		if (bit / 8 >= btrfs_path_item_size(&path))
			ret = -EUCLEAN;
		else
			*is_free = bits[bit / 8] & (1U << (bit % 8));
	}
	btrfs_release_path(&path);
	return ret > 0 ? -EUCLEAN : ret;
}

static int bitmap_modify(struct free_space_tree_ctx *c, u64 start, u64 len, bool make_free)
{
	u32 sectorsize = c->t->fs->geo.sectorsize;
	bool lf = false, rf = false;
	u64 cur = start, end = start + len;
	int ret;

	if (start > c->bg->start) {
		ret = bit_free(c, start - sectorsize, &lf);
		if (ret < 0)
			return ret;
	}
	if (end < c->end) {
		ret = bit_free(c, end, &rf);
		if (ret < 0)
			return ret;
	}
	while (cur < end) {
		struct btrfs_path path;
		struct btrfs_key key;
		u64 stop;
		u8 *bits;

		ret = find_bitmap(c, cur, &key);
		if (ret) {
			if (ret > 0)
				error("free space tree: no bitmap covers %llu in block group %llu", cur,
				      c->bg->start);
			return ret < 0 ? ret : -EUCLEAN;
		}
		stop = min_t(u64, end, key.objectid + key.offset);
		btrfs_init_path(&path);
		ret = btrfs_search_slot(c->t, c->root, &key, &path, 0, 1);
		if (ret) {
			btrfs_release_path(&path);
			return ret < 0 ? ret : -EUCLEAN;
		}
		bits = btrfs_path_item_ptr(&path);
		for (; cur < stop; cur += sectorsize) {
			u64 bit = (cur - key.objectid) / sectorsize;
			u8 mask = (u8)(1U << (bit % 8));
			bool was = bit / 8 < btrfs_path_item_size(&path) && (bits[bit / 8] & mask);

			if (bit / 8 >= btrfs_path_item_size(&path) || was == make_free) {
				btrfs_release_path(&path);
				error("free space tree: sector %llu of block group %llu is already %s",
				      cur, c->bg->start, make_free ? "free" : "used");
				return -EUCLEAN;
			}
			if (make_free)
				bits[bit / 8] |= mask;
			else
				bits[bit / 8] &= (u8)~mask;
		}
		btrfs_release_path(&path);
	}
	if (make_free)
		return info_update(c, 1 - (s64)lf - (s64)rf, NULL);
	return info_update(c, (s64)lf + (s64)rf - 1, NULL);
}

/* ---- extent <-> bitmap conversion ---- */

/* New bitmap items cover this many sectors (256 bytes), as the kernel's. */
#define FREE_SPACE_BITMAP_BYTES 256U
#define FREE_SPACE_BITMAP_BITS (FREE_SPACE_BITMAP_BYTES * 8U)

/*
 * The kernel's thresholds: bitmaps once the extent items would take more
 * room than bitmaps for the whole block group (items counted at their
 * header size), back to extents 100 extents below that (none for block
 * groups whose threshold is 100 or less).
 */
static void free_space_tree_thresholds(const struct free_space_tree_ctx *c, u64 *high, u64 *low)
{
	u64 range = (u64)c->t->fs->geo.sectorsize * FREE_SPACE_BITMAP_BITS;
	u64 nr = (c->bg->length + range - 1) / range;

	*high = nr * (sizeof(struct btrfs_item) + FREE_SPACE_BITMAP_BYTES) / sizeof(struct btrfs_item);
	*low = *high > 100 ? *high - 100 : 0;
}

/* Set extent_count and flags of the block group's FREE_SPACE_INFO. */
static int info_set(struct free_space_tree_ctx *c, u32 count, u32 flags)
{
	struct btrfs_path path;
	struct btrfs_key key = { c->bg->start, BTRFS_FREE_SPACE_INFO_KEY, c->bg->length };
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(c->t, c->root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(&path) >= sizeof(struct btrfs_free_space_info)) {
		btrfs_set_free_space_extent_count(btrfs_path_item_ptr(&path), count);
		btrfs_set_free_space_flags(btrfs_path_item_ptr(&path), flags);
	} else if (ret >= 0) {
		ret = -EUCLEAN;
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * Take every item of type out of the block group's range into bits (one
 * bit per sector, set = free): free space extents set their range, bitmaps
 * are copied.
 */
static int take_items(struct free_space_tree_ctx *c, u8 type, u8 *bits, u64 nbits)
{
	u32 ss = c->t->fs->geo.sectorsize;
	struct btrfs_key key = { c->bg->start, type, 0 }, found;
	struct btrfs_path path;
	int ret;

	for (;;) {
		btrfs_init_path(&path);
		ret = btrfs_trans_search_key(c->t, c->root, &key, BTRFS_SEARCH_NEXT, &path, &found);
		if (ret) {
			btrfs_release_path(&path);
			return ret < 0 ? ret : 0;
		}
		if (found.type != type || found.objectid >= c->end)
			break;
		if (found.objectid < c->bg->start || found.objectid + found.offset > c->end ||
		    (found.objectid - c->bg->start) % ss || found.offset % ss) {
			btrfs_release_path(&path);
			error("free space tree: item (%llu %u %llu) is not a sector range of block group %llu",
			      found.objectid, found.type, found.offset, c->bg->start);
			return -EUCLEAN;
		}
		for (u64 i = 0; i < found.offset / ss; i++) {
			u64 bit = (found.objectid - c->bg->start) / ss + i;
			bool set = true;

			if (type == BTRFS_FREE_SPACE_BITMAP_KEY) {
				const u8 *src = btrfs_path_item_ptr(&path);

				set = i / 8 < btrfs_path_item_size(&path) && (src[i / 8] & (1U << (i % 8)));
			}
			if (set && bit < nbits)
				bits[bit / 8] |= (u8)(1U << (bit % 8));
		}
		btrfs_release_path(&path);
		ret = btrfs_delete_item(c->t, c->root, &found);
		if (ret < 0)
			return ret;
	}
	btrfs_release_path(&path);
	return 0;
}

static bool bit_at(const u8 *bits, u64 i)
{
	return bits[i / 8] & (1U << (i % 8));
}

/* The block group's free space as bitmap items (to_bitmaps) or extent items. */
static int put_items(struct free_space_tree_ctx *c, const u8 *bits, u64 nbits, bool to_bitmaps, u32 *count)
{
	u32 ss = c->t->fs->geo.sectorsize;
	int ret = 0;

	*count = 0;
	for (u64 i = 0; i < nbits && ret == 0;) {
		struct btrfs_key key;
		u64 n;

		if (to_bitmaps) {
			struct btrfs_path path;
			u32 size;
			u8 *dst;

			n = min_t(u64, nbits - i, FREE_SPACE_BITMAP_BITS);
			size = (u32)((n + 7) / 8);
			key = (struct btrfs_key){ c->bg->start + i * ss, BTRFS_FREE_SPACE_BITMAP_KEY, n * ss };
			btrfs_init_path(&path);
			ret = btrfs_insert_empty_items(c->t, c->root, &path, &key, &size, 1);
			if (ret == 0) {
				dst = btrfs_path_item_ptr(&path);
				for (u64 j = 0; j < n; j++)
					if (bit_at(bits, i + j))
						dst[j / 8] |= (u8)(1U << (j % 8));
			}
			btrfs_release_path(&path);
			i += n;
			continue;
		}
		if (!bit_at(bits, i)) {
			i++;
			continue;
		}
		for (n = 1; i + n < nbits && bit_at(bits, i + n); n++)
			;
		ret = insert_extent(c, c->bg->start + i * ss, n * ss);
		i += n;
	}
	/* free extents: runs of set bits */
	for (u64 i = 0; i < nbits; i++)
		if (bit_at(bits, i) && (i == 0 || !bit_at(bits, i - 1)))
			(*count)++;
	return ret;
}

/* Convert the block group of c between extents and bitmaps at the thresholds. */
static int maybe_convert(struct free_space_tree_ctx *c)
{
	struct btrfs_path path;
	struct btrfs_key key = { c->bg->start, BTRFS_FREE_SPACE_INFO_KEY, c->bg->length };
	u64 high, low, nbits = c->bg->length / c->t->fs->geo.sectorsize;
	u32 count, flags;
	bool bitmaps;
	u8 *bits;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(c->t, c->root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_free_space_info))
		ret = -EUCLEAN;
	if (ret == 0) {
		count = btrfs_free_space_extent_count(btrfs_path_item_ptr(&path));
		flags = btrfs_free_space_flags(btrfs_path_item_ptr(&path));
	}
	btrfs_release_path(&path);
	if (ret)
		return ret < 0 ? ret : 0;
	free_space_tree_thresholds(c, &high, &low);
	bitmaps = flags & BTRFS_FREE_SPACE_USING_BITMAPS;
	if (bitmaps ? count >= low : count <= high)
		return 0;
	bits = calloc(1, (size_t)((nbits + 7) / 8));
	if (!bits)
		return -ENOMEM;
	ret = take_items(c, bitmaps ? BTRFS_FREE_SPACE_BITMAP_KEY : BTRFS_FREE_SPACE_EXTENT_KEY, bits,
			 nbits);
	if (ret == 0)
		ret = put_items(c, bits, nbits, !bitmaps, &count);
	if (ret == 0)
		ret = info_set(c, count, bitmaps ? flags & ~BTRFS_FREE_SPACE_USING_BITMAPS :
						   flags | BTRFS_FREE_SPACE_USING_BITMAPS);
	free(bits);
	if (ret < 0)
		error("free space tree: converting block group %llu to %s failed", c->bg->start,
		      bitmaps ? "extents" : "bitmaps");
	return ret;
}

/* After a change in the block group holding start: its format as the thresholds say. */
static int check_format(struct btrfs_trans *t, u64 start)
{
	struct free_space_tree_ctx c;
	int ret = ctx_init(&c, t, start, 1);

	return ret < 0 ? ret : maybe_convert(&c);
}

/* ---- public ---- */

/* Set up; bitmap block groups are done here (0 or < 0); 1: extent format, go on. */
static int begin(struct free_space_tree_ctx *c, struct btrfs_trans *t, u64 start, u64 len, bool make_free)
{
	u32 flags;
	int ret;

	ret = ctx_init(c, t, start, len);
	if (ret == 0)
		ret = info_update(c, 0, &flags);
	if (ret < 0)
		return ret;
	if (flags & BTRFS_FREE_SPACE_USING_BITMAPS)
		return bitmap_modify(c, start, len, make_free);
	return 1;
}

static int remove_range(struct btrfs_trans *t, u64 start, u64 len)
{
	struct free_space_tree_ctx c;
	struct btrfs_path path;
	struct btrfs_key key = { start, BTRFS_FREE_SPACE_EXTENT_KEY, (u64)-1 }, found;
	u64 fend;
	int parts = 0, ret;

	ret = begin(&c, t, start, len, false);
	if (ret != 1)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, c.root, &key, BTRFS_SEARCH_PREV, &path, &found);
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	if (ret || found.type != BTRFS_FREE_SPACE_EXTENT_KEY || found.objectid < c.bg->start ||
	    found.objectid > start || found.objectid + found.offset < start + len) {
		error("free space tree: allocated range %llu+%llu is not free in block group %llu",
		      start, len, c.bg->start);
		return -EUCLEAN;
	}
	fend = found.objectid + found.offset;
	ret = btrfs_delete_item(t, c.root, &found);
	if (ret == 0 && found.objectid < start) {
		ret = insert_extent(&c, found.objectid, start - found.objectid);
		parts++;
	}
	if (ret == 0 && fend > start + len) {
		ret = insert_extent(&c, start + len, fend - start - len);
		parts++;
	}
	if (ret == 0 && parts != 1)
		ret = info_update(&c, parts - 1, NULL);
	return ret;
}

static int add_range(struct btrfs_trans *t, u64 start, u64 len)
{
	struct free_space_tree_ctx c;
	struct btrfs_path path;
	struct btrfs_key key = { start, BTRFS_FREE_SPACE_EXTENT_KEY, 0 }, found;
	struct btrfs_key left = { 0 }, right = { 0 };
	bool has_left = false, has_right = false;
	u64 nstart = start, nend = start + len;
	int ret;

	ret = begin(&c, t, start, len, true);
	if (ret != 1)
		return ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, c.root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	if (ret == 0 && found.type == BTRFS_FREE_SPACE_EXTENT_KEY && found.objectid < nend) {
		ret = -EUCLEAN;
	} else if (ret == 0 && found.type == BTRFS_FREE_SPACE_EXTENT_KEY && found.objectid == nend) {
		right = found;
		has_right = true;
	}
	if (ret >= 0) {
		ret = btrfs_trans_search_key(t, c.root, &key, BTRFS_SEARCH_PREV, &path, &found);
		if (ret == 0 && found.type == BTRFS_FREE_SPACE_EXTENT_KEY &&
		    found.objectid >= c.bg->start) {
			if (found.objectid + found.offset > start) {
				ret = -EUCLEAN;
			} else if (found.objectid + found.offset == start) {
				left = found;
				has_left = true;
			}
		}
		if (ret > 0)
			ret = 0;
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	if (ret == -EUCLEAN) {
		error("free space tree: freed range %llu+%llu is already free in block group %llu",
		      start, len, c.bg->start);
		return ret;
	}
	if (ret < 0)
		return ret;
	if (has_left) {
		nstart = left.objectid;
		ret = btrfs_delete_item(t, c.root, &left);
	}
	if (ret == 0 && has_right) {
		nend = right.objectid + right.offset;
		ret = btrfs_delete_item(t, c.root, &right);
	}
	if (ret == 0)
		ret = insert_extent(&c, nstart, nend - nstart);
	if (ret == 0 && 1 - (int)has_left - (int)has_right != 0)
		ret = info_update(&c, 1 - (s64)has_left - (s64)has_right, NULL);
	return ret;
}

int free_space_tree_remove_range(struct btrfs_trans *t, u64 start, u64 len)
{
	int ret = remove_range(t, start, len);

	return ret < 0 ? ret : check_format(t, start);
}

int free_space_tree_add_range(struct btrfs_trans *t, u64 start, u64 len)
{
	int ret = add_range(t, start, len);

	return ret < 0 ? ret : check_format(t, start);
}

int free_space_tree_rebuild(struct btrfs_trans *t)
{
	struct btrfs_wroot *root;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
	if (ret == -ENOENT) {
		ret = btrfs_create_tree(t, BTRFS_FREE_SPACE_TREE_OBJECTID, &root);
		if (ret == 0)
			t->fst_created = true;
	} else if (ret == 0) {
		ret = trans_reset_tree(t, root);
	}
	if (ret < 0)
		return ret;
	/* The extent tree must hold exactly what is in use before it is read. */
	ret = trans_settle_refs(t);
	if (ret < 0)
		return ret;
	trans_fst_all_done(t);
	t->fst = true;
	for (int i = 0; i < t->nr_bgs && ret == 0; i++) {
		struct wblock_group *bg = &t->bgs[i];
		u64 end = bg->start + bg->length, cur = bg->start;
		struct fs_range *used;
		struct btrfs_free_space_info fi;
		struct btrfs_key key;
		int nr, count = 0;

		/* a new block group gets its items with the chunk's */
		if (bg->items_pending)
			continue;
		ret = extent_alloc_used_ranges(t, bg->start, end, &used, &nr);
		if (ret < 0)
			break;
		for (int j = 0; j <= nr && ret == 0; j++) {
			u64 s = j < nr ? min_t(u64, used[j].start, end) : end;

			if (s > cur) {
				key = (struct btrfs_key){ cur, BTRFS_FREE_SPACE_EXTENT_KEY, s - cur };
				ret = btrfs_insert_item(t, root, &key, NULL, 0);
				count++;
			}
			if (j < nr && used[j].start + used[j].len > cur)
				cur = used[j].start + used[j].len;
		}
		free(used);
		if (ret < 0)
			break;
		memset(&fi, 0, sizeof(fi));
		btrfs_set_free_space_extent_count(&fi, (u32)count);
		key = (struct btrfs_key){ bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
		ret = btrfs_insert_item(t, root, &key, &fi, sizeof(fi));
		if (ret == 0)
			ret = check_format(t, bg->start);
	}
	if (ret < 0)
		error("rebuilding the free space tree failed");
	return ret;
}

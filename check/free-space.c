// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 4, free space: the free space tree (space cache v2) against the
 * extent items pass 3 collected.  Per block group, with one bit per sector:
 *   A  allocated: covered by an extent or metadata item
 *   F  free: covered by a FREE_SPACE_EXTENT item or a set bitmap bit
 *   S  superblock copies: the stripes holding a superblock mirror
 * Errors: A & F (space recorded free that is in use: the kernel would hand
 * it out twice), and ~A & ~F & ~S (free space the tree lost).  The kernel
 * records a new block group whole as free, super stripes included, so S may
 * be either.  Also: each block group has exactly one FREE_SPACE_INFO, its
 * extent_count and bitmap flag match its items, nothing lies outside a
 * block group.
 *
 * A space cache v1 is not verified (the kernel rebuilds a cache that fails
 * its own checksums); without a free space tree this pass only notes that.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/passes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"

struct bg_space {
	struct check_bg *bg;
	u64 nbits;
	u8 *free_bits;        /* F */
	u64 info_count;       /* extent_count of the FREE_SPACE_INFO */
	u32 info_flags;
	bool have_info;
	u64 extent_items;     /* FREE_SPACE_EXTENT items */
	u64 bitmap_items;
	bool skip;            /* length beyond any real block group: not compared */
};

struct free_space_tree_walk {
	struct ext_state *st;
	u32 sectorsize;
	struct bg_space cur;
	u64 bitmap_runs;      /* free runs across the bitmaps of the current block group */
	bool last_bit;        /* the bit before the next bitmap, for run counting */
	u64 last_bit_end;
	u64 orphan_end;       /* end of the last FREE_SPACE_INFO range that has no block group */
	bool orphan_noted;
};

static inline void set_bit_range(u8 *map, u64 from, u64 to)
{
	for (u64 i = from; i < to; i++)
		map[i / 8] |= (u8)(1U << (i % 8));
}

static inline bool test_bit(const u8 *map, u64 i)
{
	return map[i / 8] & (1U << (i % 8));
}

/* ---- superblock stripes ------------------------------------------------- */

/* Mark in S the logical ranges of bg holding a superblock copy (btrfs_chunk_super_ranges()). */
static int mark_super_stripes(struct check_ctx *ctx, const struct check_bg *bg, u32 sectorsize, u8 *s)
{
	const struct btrfs_chunk_map *ch = btrfs_chunk_lookup(&ctx->fs->chunks, bg->start);
	struct btrfs_range *r = NULL;
	int n;

	if (!ch || ch->logical != bg->start)
		return 0;
	n = btrfs_chunk_super_ranges(ch, &r);
	for (int i = 0; i < n; i++) {
		u64 from = r[i].start - bg->start, to = min_t(u64, from + r[i].len, bg->len);

		if (from < bg->len)
			set_bit_range(s, from / sectorsize, (to + sectorsize - 1) / sectorsize);
	}
	free(r);
	return n < 0 ? n : 0;
}

/* ---- comparing one block group ---------------------------------------------- */

static void report_range(struct check_ctx *ctx, const struct check_bg *bg, u32 sectorsize,
			 u64 first, u64 last, bool in_use)
{
	u64 start = bg->start + first * sectorsize, len = (last - first) * sectorsize;

	if (in_use)
		check_error(ctx, "free space tree: block group %llu: range [%llu %llu) is recorded free but is used by an extent",
			    bg->start, start, start + len);
	else
		check_error(ctx, "free space tree: block group %llu: range [%llu %llu) is neither used by an extent nor recorded free",
			    bg->start, start, start + len);
}

static void finish_bg(struct check_ctx *ctx, struct free_space_tree_walk *w)
{
	struct bg_space *b = &w->cur;
	struct ext_state *st = w->st;
	u32 ss = w->sectorsize;
	u8 *alloc = NULL, *sup = NULL;
	size_t bytes;
	struct check_extent *x;
	size_t i;
	u64 bit, run_start = 0;
	int state = 0, prev = 0;   /* 0 fine, 1 free+used, 2 lost */
	int reported = 0;

	if (!b->bg || b->skip)
		goto out;
	if (!b->have_info)
		check_error(ctx, "free space tree: block group %llu has no free space info item", b->bg->start);
	bytes = (size_t)((b->nbits + 7) / 8);
	alloc = calloc(1, bytes ?: 1);
	sup = calloc(1, bytes ?: 1);
	if (!alloc || !sup) {
		free(alloc);
		free(sup);
		check_error(ctx, "free space tree: out of memory checking block group %llu", b->bg->start);
		goto out;
	}
	for (i = check_first_extent_ending_after(st, b->bg->start); i < st->ext_nr; i++) {
		u64 s, e;

		x = &st->ext[i];
		if (x->start >= b->bg->start + b->bg->len)
			break;
		s = x->start < b->bg->start ? 0 : x->start - b->bg->start;
		e = x->start + x->len - b->bg->start;
		if (e > b->bg->len)
			e = b->bg->len;
		set_bit_range(alloc, s / ss, (e + ss - 1) / ss);
	}
	if (mark_super_stripes(ctx, b->bg, ss, sup) < 0) {
		check_error(ctx, "free space tree: out of memory checking block group %llu", b->bg->start);
		goto out;
	}
	for (bit = 0; bit <= b->nbits && reported < 8; bit++) {
		if (bit == b->nbits) {
			state = 0;
		} else {
			bool a = test_bit(alloc, bit), f = test_bit(b->free_bits, bit);

			state = a && f ? 1 : (!a && !f && !test_bit(sup, bit)) ? 2 : 0;
		}
		if (state != prev) {
			if (prev) {
				report_range(ctx, b->bg, ss, run_start, bit, prev == 1);
				reported++;
			}
			run_start = bit;
			prev = state;
		}
	}
	free(alloc);
	free(sup);
	if (b->have_info) {
		bool bitmaps = b->info_flags & BTRFS_FREE_SPACE_USING_BITMAPS;
		u64 count = bitmaps ? w->bitmap_runs : b->extent_items;

		if (bitmaps ? b->extent_items != 0 : b->bitmap_items != 0)
			check_error(ctx, "free space tree: block group %llu: info flags 0x%x but %llu extent and %llu bitmap items",
				    b->bg->start, b->info_flags, b->extent_items, b->bitmap_items);
		else if (count != b->info_count)
			check_error(ctx, "free space tree: block group %llu: info extent_count %llu, %llu free extents found",
				    b->bg->start, b->info_count, count);
	}
out:
	free(b->free_bits);
	memset(b, 0, sizeof(*b));
	w->bitmap_runs = 0;
	w->last_bit = false;
}

/*
 * Start the block group at bytenr, finishing the previous one.  The bitmaps
 * hold one bit per sector, so the length is bounded first: no longer than
 * the tree-checker allows a chunk, nor than the filesystem (pass 3 reports
 * such a block group against its chunk); a length that is not a multiple of
 * the sector size gets a bit for its last partial sector.
 */
static int enter_bg(struct check_ctx *ctx, struct free_space_tree_walk *w, u64 bytenr)
{
	struct check_bg *bg = check_find_bg(w->st, bytenr);
	u64 limit = btrfs_super_total_bytes(btrfs_fs_super(ctx->fs));

	if (w->cur.bg == bg)
		return 0;
	finish_bg(ctx, w);
	if (!bg)
		return 0;
	w->cur.bg = bg;
	bg->fst_seen = 1;
	if (limit > BTRFS_MAX_CHUNK_LENGTH)
		limit = BTRFS_MAX_CHUNK_LENGTH;
	if (bg->len > limit) {
		check_error(ctx, "free space tree: block group %llu has length %llu, more than %llu; its free space is not checked",
			    bg->start, bg->len, limit);
		w->cur.skip = true;
		return 0;
	}
	w->cur.nbits = DIV_ROUND_UP(bg->len, (u64)w->sectorsize);
	w->cur.free_bits = calloc(1, (size_t)((w->cur.nbits + 7) / 8) ?: 1);
	if (!w->cur.free_bits)
		return -ENOMEM;
	return 0;
}

static int free_space_tree_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		    const struct btrfs_key *key, void *arg)
{
	struct free_space_tree_walk *w = arg;
	u32 size = btrfs_leaf_item_size(eb, slot);
	struct bg_space *b;
	u64 first, nbits, i;
	int ret;

	ret = enter_bg(ctx, w, key->objectid);
	if (ret)
		return ret;
	b = &w->cur;
	if (b->skip)
		return 0;
	if (!b->bg && key->type == BTRFS_FREE_SPACE_INFO_KEY) {
		/*
		 * A whole range without a block group: mkfs.btrfs before
		 * btrfs-progs 6.16.1 left the ranges of its temporary chunks
		 * so.  The kernel never reads them; btrfs-progs 6.19 reports
		 * them too.  Its extents and bitmaps are not listed again.
		 */
		check_error(ctx, "free space tree: entries for [%llu, %llu) have no block group",
			    key->objectid, key->objectid + key->offset);
		if (!w->orphan_noted)
			note("free space tree entries without a block group are left by mkfs.btrfs of btrfs-progs before 6.16.1; the kernel ignores them and 'btrfs check --repair' deletes them");
		w->orphan_noted = true;
		w->orphan_end = key->objectid + key->offset;
		return 0;
	}
	if (!b->bg && key->objectid + key->offset <= w->orphan_end)
		return 0;
	if (!b->bg || key->objectid + key->offset > b->bg->start + b->bg->len) {
		check_error(ctx, "free space tree: item (%llu %u %llu) is not inside a block group",
			    key->objectid, key->type, key->offset);
		return 0;
	}
	switch (key->type) {
	case BTRFS_FREE_SPACE_INFO_KEY:
		if (key->objectid != b->bg->start || key->offset != b->bg->len) {
			check_error(ctx, "free space tree: info item (%llu FREE_SPACE_INFO %llu) does not match block group [%llu %llu]",
				    key->objectid, key->offset, b->bg->start, b->bg->len);
			break;
		}
		if (b->have_info || size < sizeof(struct btrfs_free_space_info)) {
			check_error(ctx, "free space tree: block group %llu: %s info item",
				    b->bg->start, b->have_info ? "duplicate" : "short");
			break;
		}
		b->have_info = true;
		b->info_count = btrfs_free_space_extent_count(btrfs_leaf_item_ptr(eb, slot));
		b->info_flags = btrfs_free_space_flags(btrfs_leaf_item_ptr(eb, slot));
		break;
	case BTRFS_FREE_SPACE_EXTENT_KEY:
	case BTRFS_FREE_SPACE_BITMAP_KEY:
		if (!IS_ALIGNED(key->objectid, (u64)w->sectorsize) ||
		    !IS_ALIGNED(key->offset, (u64)w->sectorsize) || !key->offset) {
			check_error(ctx, "free space tree: item (%llu %u %llu) is not sector aligned",
				    key->objectid, key->type, key->offset);
			break;
		}
		first = (key->objectid - b->bg->start) / w->sectorsize;
		nbits = key->offset / w->sectorsize;
		if (key->type == BTRFS_FREE_SPACE_EXTENT_KEY) {
			b->extent_items++;
			for (i = first; i < first + nbits; i++)
				if (test_bit(b->free_bits, i))
					break;
			if (i < first + nbits)
				check_error(ctx, "free space tree: extent (%llu FREE_SPACE_EXTENT %llu) overlaps other free space",
					    key->objectid, key->offset);
			set_bit_range(b->free_bits, first, first + nbits);
			break;
		}
		b->bitmap_items++;
		if (size < (nbits + 7) / 8) {
			check_error(ctx, "free space tree: bitmap (%llu FREE_SPACE_BITMAP %llu) has size %u, expected %llu",
				    key->objectid, key->offset, size, (nbits + 7) / 8);
			break;
		}
		{
			const u8 *map = btrfs_leaf_item_ptr(eb, slot);
			bool prev = w->last_bit && w->last_bit_end == key->objectid;

			for (i = 0; i < nbits; i++) {
				bool f = map[i / 8] & (1U << (i % 8));

				if (f) {
					if (!prev)
						w->bitmap_runs++;
					b->free_bits[(first + i) / 8] |= (u8)(1U << ((first + i) % 8));
				}
				prev = f;
			}
			w->last_bit = prev;
			w->last_bit_end = key->objectid + key->offset;
		}
		break;
	default:
		check_error(ctx, "free space tree: unexpected item (%llu %u %llu)",
			    key->objectid, key->type, key->offset);
	}
	return 0;
}

int check_free_space(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct free_space_tree_walk w = { .st = st, .sectorsize = btrfs_super_sectorsize(sb) };
	struct btrfs_tree_ref fst;
	size_t i;
	int ret;

	if (!(btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		return 0;
	if (!st)
		return 0;
	ret = btrfs_find_tree_root(ctx->fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &fst);
	if (ret) {
		check_error(ctx, "free space tree: the feature is set but the tree %s",
			    ret == -ENOENT ? "has no root item" : "cannot be found");
		return 0;
	}
	ret = check_for_each_item(ctx, &fst, NULL, free_space_tree_item, &w);
	finish_bg(ctx, &w);
	if (ret < 0) {
		check_error(ctx, "free space tree cannot be read to the end: %s", strerror(-ret));
		return 0;
	}
	/* a block group with no item at all */
	for (i = 0; i < st->bg_nr; i++)
		if (!st->bg[i].fst_seen)
			check_error(ctx, "free space tree: block group %llu has no free space info item",
				    st->bg[i].start);
	return 0;
}

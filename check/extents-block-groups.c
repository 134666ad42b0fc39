// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3's extent items and block groups: every extent item on its own
 * (overlaps, generation, flags, length) and inside a block group of its
 * kind, whose used bytes must be the sum of its extents; a chunk without
 * block group item taken as a block group of its range; every block group
 * against its chunk, every chunk against its block group.
 */
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

int check_cmp_bg(const void *a, const void *b)
{
	const struct check_bg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void check_extent_items(struct check_ctx *ctx, struct ext_state *st)
{
	u64 gen = btrfs_super_generation(btrfs_fs_super(ctx->fs));
	u64 prev_end = 0, prev_start = 0, total = 0;
	size_t i;

	for (i = 0; i < st->ext_nr; i++) {
		struct check_extent *x = &st->ext[i];
		struct check_bg *bg;
		bool tree = x->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK;

		total += x->len;
		if (i && x->start < prev_end)
			check_error(ctx, "extent tree: extent [%llu %llu] overlaps extent [%llu %llu)",
				    x->start, x->len, prev_start, prev_end);
		if (x->start + x->len > prev_end) {
			prev_start = x->start;
			prev_end = x->start + x->len;
		}
		if (!x->generation || x->generation > gen) {
			check_error(ctx, "invalid generation for extent %llu, have %llu expect (0, %llu]",
				    x->start, x->generation, gen);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
		if (!(x->flags & (BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK)) ||
		    ((x->flags & BTRFS_EXTENT_FLAG_DATA) && tree))
			check_error(ctx, "extent tree: extent [%llu %llu] has flags 0x%llx, expected exactly one of DATA and TREE_BLOCK",
				    x->start, x->len, x->flags);
		if (tree && x->len != st->nodesize)
			check_error(ctx, "extent tree: tree block extent [%llu %llu] length differs from nodesize %u",
				    x->start, x->len, st->nodesize);
		bg = check_find_bg(st, x->start);
		if (!bg || x->start + x->len > bg->start + bg->len) {
			check_error(ctx, "extent tree: extent [%llu %llu] is not inside a block group",
				    x->start, x->len);
			continue;
		}
		bg->sum += x->len;
		/* (a tree block's, by the tree that owns it: check_block_kinds()) */
		if (!tree && !(bg->flags & BTRFS_BLOCK_GROUP_DATA))
			check_error(ctx, "bad extent [%llu, %llu), type mismatch with chunk: data extent in block group %llu flags 0x%llx",
				    x->start, x->start + x->len, bg->start, bg->flags);
		if (tree && st->nodesize <= SZ_64K &&
		    x->start / SZ_64K != (x->start + x->len - 1) / SZ_64K)
			check_error(ctx, "bad metadata [%llu, %llu) crossing stripe boundary",
				    x->start, x->start + x->len);
	}
	st->bytes_used = total;
	ctx->stats.bytes_used = total;
}

/*
 * A chunk whose range no block group item overlaps: its block group's item
 * is missing (deleted).  Taken as a block group of the chunk's range and
 * type, so that the extents in it count there (not as extents outside any
 * block group) and the item can be added with their sum.
 */
int check_add_missing_bgs(struct ext_state *st, const struct btrfs_chunk_tree_map *map)
{
	size_t had = st->bg_nr;

	for (size_t c = 0; c < map->nr; c++) {
		const struct btrfs_chunk_map *ch = map->chunks[c];
		const struct check_bg *at = check_find_bg(st, ch->logical);
		struct check_bg *bg;
		size_t i;

		if (at)
			continue;
		/* (no item starting inside the chunk either) */
		for (i = 0; i < had && (st->bg[i].start < ch->logical || st->bg[i].start >= ch->logical + ch->length); i++)
			;
		if (i < had)
			continue;
		bg = CHECK_PUSH(st, bg);
		if (!bg)
			return -ENOMEM;
		*bg = (struct check_bg){ .start = ch->logical, .len = ch->length,
					 .flags = ch->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV, .item_missing = true };
	}
	if (st->bg_nr != had)
		check_sort(st->bg, st->bg_nr, sizeof(*st->bg), check_cmp_bg);
	return 0;
}

void check_block_groups(struct check_ctx *ctx, struct ext_state *st)
{
	const struct btrfs_chunk_tree_map *map = &ctx->fs->chunks;
	size_t i, c = 0;

	for (i = 0; i < st->bg_nr; i++) {
		struct check_bg *bg = &st->bg[i];

		if (i && bg->start < st->bg[i - 1].start + st->bg[i - 1].len)
			check_error(ctx, "block group [%llu %llu] overlaps block group [%llu %llu]",
				    bg->start, bg->len, st->bg[i - 1].start, st->bg[i - 1].len);
		if (bg->item_missing) {
			check_error(ctx, "chunk [%llu %llu] type 0x%llx has no block group item",
				    bg->start, bg->len, (unsigned long long)bg->flags);
			check_queue_bg_item(ctx, bg);
			continue;
		}
		if (bg->used != bg->sum) {
			check_error(ctx, "block group [%llu %llu]: used %llu, extents in it sum to %llu",
				    bg->start, bg->len, bg->used, bg->sum);
			check_queue_bg_used(ctx, bg);
		}
		while (c < map->nr && map->chunks[c]->logical < bg->start)
			c++;
		if (c >= map->nr || map->chunks[c]->logical != bg->start) {
			if (!check_chunk_from_dev_extents(ctx, st, bg))
				check_error(ctx, "block group [%llu %llu] has no chunk", bg->start, bg->len);
			continue;
		}
		if ((!check_chunk_length_from_bg(ctx, st, map->chunks[c], bg) && map->chunks[c]->length != bg->len) ||
		    (map->chunks[c]->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV) != bg->flags) {
			check_error(ctx, "block group [%llu %llu] flags 0x%llx: chunk has length %llu flags 0x%llx",
				    bg->start, bg->len, bg->flags, map->chunks[c]->length, map->chunks[c]->type);
			check_chunk_against_bg(ctx, st, map->chunks[c], bg);
		}
	}
	for (c = 0; c < map->nr; c++) {
		const struct btrfs_chunk_map *ch = map->chunks[c];
		struct check_bg *bg = check_find_bg(st, ch->logical);

		if (!bg || bg->start != ch->logical)
			check_error(ctx, "chunk [%llu %llu] type 0x%llx has no block group item",
				    ch->logical, ch->length, ch->type);
	}
}

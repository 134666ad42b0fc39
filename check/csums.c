// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 6, csums: the items of the csum tree are sector aligned, hold whole
 * checksums, do not overlap and cover only data extents.  With
 * --check-data-csum every sector they cover is read from every mirror and
 * its checksum compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/check.h"
#include "check/extents.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/messages.h"

struct csum_walk {
	struct ext_state *st;
	u32 sectorsize;
	u16 csum_size;
	u64 prev_end;          /* end of the previous item's range */
	bool verify;
	u8 *buf;               /* one item's data, for --check-data-csum */
	size_t buf_len;
	u64 bad_sectors;
};

struct cover {
	u64 pos, end;
	u32 sectorsize;
	u16 csum_size;
};

static int cover_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key, void *arg)
{
	struct cover *c = arg;
	u64 end;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY)
		return 0;
	if (key->offset > c->pos)
		return 1;   /* a gap */
	end = key->offset + (u64)(btrfs_leaf_item_size(eb, slot) / c->csum_size) * c->sectorsize;
	if (end > c->pos)
		c->pos = end;
	return c->pos >= c->end;
}

bool check_csum_tree_covers(struct check_ctx *ctx, u64 start, u64 end)
{
	struct btrfs_key from = { .objectid = BTRFS_EXTENT_CSUM_OBJECTID,
				  .type = BTRFS_EXTENT_CSUM_KEY, .offset = start };
	struct cover c = { .pos = start, .end = end, .sectorsize = ctx->fs->geo.sectorsize,
			   .csum_size = ctx->fs->geo.csum_size };
	struct btrfs_tree_ref tree;
	struct btrfs_path path;
	struct btrfs_key found;

	if (!c.csum_size || btrfs_find_tree_root(ctx->fs, BTRFS_CSUM_TREE_OBJECTID, &tree))
		return false;
	/* the item holding start may begin before it */
	btrfs_init_path(&path);
	if (btrfs_search_key(ctx->fs, &tree, &from, BTRFS_SEARCH_PREV, &path, &found) == 0 &&
	    found.objectid == BTRFS_EXTENT_CSUM_OBJECTID && found.type == BTRFS_EXTENT_CSUM_KEY)
		from.offset = found.offset;
	btrfs_release_path(&path);
	check_for_each_item(ctx, &tree, &from, cover_item, &c);
	return c.pos >= end;
}

/* Inside a data extent only the log references? */
static u64 log_extent_end(const struct check_ctx *ctx, u64 pos)
{
	for (size_t i = 0; i < ctx->log_extents_nr; i++)
		if (ctx->log_extents[i].start <= pos && pos < ctx->log_extents[i].end)
			return ctx->log_extents[i].end;
	return 0;
}

/* Is every byte of [start, end) inside data extents?  Reports the first gap. */
static void check_covered(struct check_ctx *ctx, struct ext_state *st, u64 start, u64 end)
{
	size_t lo = check_first_extent_ending_after(st, start);
	u64 pos = start;

	for (; lo < st->ext_nr && pos < end; lo++) {
		const struct check_extent *x = &st->ext[lo];
		u64 l;

		while (x->start > pos && (l = log_extent_end(ctx, pos)))
			pos = l;
		if (x->start > pos)
			break;
		if (!(x->flags & BTRFS_EXTENT_FLAG_DATA))
			break;
		if (x->start + x->len > pos)
			pos = x->start + x->len;
	}
	for (u64 l; pos < end && (l = log_extent_end(ctx, pos));)
		pos = l;
	if (pos < end) {
		check_error(ctx, "csum tree: checksums for [%llu %llu) but there is no data extent at %llu",
			    start, end, pos);
		/* mended when --repair inserts the missing data extent items */
		if (check_repair_covers_data(ctx, pos, end))
			check_fixable(ctx, NULL, NULL, 0);
	}
}

static void verify_data(struct check_ctx *ctx, struct csum_walk *w, u64 start, const u8 *csums,
			u32 nsect)
{
	struct btrfs_fs_info *fs = ctx->fs;
	int mirrors = btrfs_num_mirrors(fs, start);
	size_t len = (size_t)nsect * w->sectorsize;
	char msg[256];

	if (len > w->buf_len) {
		u8 *n = realloc(w->buf, len);

		if (!n) {
			check_error(ctx, "csum tree: out of memory verifying data at %llu", start);
			return;
		}
		w->buf = n;
		w->buf_len = len;
	}
	for (int m = 1; m <= mirrors; m++) {
		if (btrfs_read_data_mirror(fs, start, m, w->buf, (u32)len, msg, sizeof(msg)) < 0) {
			check_error(ctx, "data [%llu %llu) mirror %d cannot be read: %s", start,
				    start + len, m, msg);
			continue;
		}
		for (u32 i = 0; i < nsect; i++) {
			u8 out[32];

			hash_digest(&fs->csum_ctx, w->buf + (size_t)i * w->sectorsize, w->sectorsize, out);
			if (memcmp(out, csums + (size_t)i * w->csum_size, w->csum_size)) {
				if (w->bad_sectors++ < 100)
					check_error(ctx, "mirror %d bytenr %llu csum mismatch against the csum tree",
						    m, start + (u64)i * w->sectorsize);
				else
					ctx->errors++;
			}
		}
	}
}

static int csum_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct csum_walk *w = arg;
	u32 size = btrfs_leaf_item_size(eb, slot), nsect;
	u64 start = key->offset, end;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY) {
		check_error(ctx, "csum tree: unexpected item (%llu %u %llu) in leaf %llu",
			    key->objectid, key->type, key->offset, eb->start);
		return 0;
	}
	if (!IS_ALIGNED(start, (u64)w->sectorsize) || !size || size % w->csum_size) {
		check_error(ctx, "csum tree: item (EXTENT_CSUM %llu) in leaf %llu: offset not aligned to %u or size %u not a multiple of %u",
			    start, eb->start, w->sectorsize, size, w->csum_size);
		return 0;
	}
	nsect = size / w->csum_size;
	end = start + (u64)nsect * w->sectorsize;
	if (start < w->prev_end)
		check_error(ctx, "csum tree: item [%llu %llu) overlaps the previous one ending at %llu",
			    start, end, w->prev_end);
	if (end > w->prev_end)
		w->prev_end = end;
	check_covered(ctx, w->st, start, end);
	if (w->verify)
		verify_data(ctx, w, start, btrfs_leaf_item_ptr(eb, slot), nsect);
	return 0;
}

int check_csums(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct csum_walk w = {
		.st = ctx->extents_state,
		.sectorsize = btrfs_super_sectorsize(sb),
		.csum_size = ctx->fs->geo.csum_size,
		.verify = ctx->opts && ctx->opts->check_data_csum,
	};
	struct btrfs_tree_ref tree;
	int ret;

	if (!w.st || !w.csum_size)
		return 0;
	ret = btrfs_find_tree_root(ctx->fs, BTRFS_CSUM_TREE_OBJECTID, &tree);
	if (ret)
		return 0;   /* pass 2 reported a missing csum tree */
	ret = check_for_each_item(ctx, &tree, NULL, csum_item, &w);
	free(w.buf);
	if (ret < 0)
		check_error(ctx, "csum tree cannot be read to the end: %s", strerror(-ret));
	return 0;
}

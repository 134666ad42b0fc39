// SPDX-License-Identifier: GPL-2.0
/*
 * What the csum tree covers, for the passes that hold data against it
 * (pass 1 the log's extents, pass 5 the file extents): see csum-tree.h.
 */
#include <stdlib.h>
#include "check/context.h"
#include "check/csum-tree.h"
#include "check/extent-records.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

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

struct csum_spans {
	u32 sectorsize;
	u16 csum_size;
	CHECK_ARRAY(struct check_range, r);
};

static int span_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct csum_spans *s = arg;
	u64 end = key->offset + (u64)(btrfs_leaf_item_size(eb, slot) / s->csum_size) * s->sectorsize;
	struct check_range *last = s->r_nr ? &s->r[s->r_nr - 1] : NULL;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY ||
	    end <= key->offset)
		return 0;   /* pass 6 reports these */
	if (last && key->offset <= last->end) {
		if (end > last->end)
			last->end = end;
		return 0;
	}
	last = CHECK_PUSH(s, r);
	if (!last)
		return -ENOMEM;
	last->start = key->offset;
	last->end = end;
	return 0;
}

int check_csum_tree_spans(struct check_ctx *ctx, struct check_range **spans, size_t *nr)
{
	struct csum_spans s = { .sectorsize = ctx->fs->geo.sectorsize, .csum_size = ctx->fs->geo.csum_size };
	struct btrfs_tree_ref tree;
	int ret;

	*spans = NULL;
	*nr = 0;
	if (!s.csum_size || btrfs_find_tree_root(ctx->fs, BTRFS_CSUM_TREE_OBJECTID, &tree))
		return -ENOENT;
	ret = check_for_each_item(ctx, &tree, NULL, span_item, &s);
	if (ret < 0) {
		free(s.r);
		return ret;
	}
	*spans = s.r;
	*nr = s.r_nr;
	return 0;
}

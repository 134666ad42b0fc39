// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3, extents: walk every tree once (root tree, chunk tree, the tree of
 * every ROOT_ITEM incl. relocation trees), verifying every block through the
 * verified read path, and collect
 *   - the references the trees make: every pointer to a tree block, every
 *     file extent item pointing to a data extent ("expected" refs),
 *   - what the extent tree says: extent and metadata items, inline and keyed
 *     back references ("found" refs), block group items,
 *   - chunk tree device items, device tree dev extents,
 *   - the summary figures (struct check_stats).
 * Then compare: refs and counts per extent, extents without refs, refs
 * without extents, overlaps, block group used bytes, super bytes_used,
 * device bytes_used, dev extents against chunks and device sizes.
 *
 * A block reached a second time (shared by snapshots) is not entered again:
 * its contents were accounted the first time, and the new parent adds only
 * its own pointer.  Whether a parent's pointers are shared refs (by parent
 * bytenr) or tree refs (by owner) depends on the FULL_BACKREF flag of the
 * parent's extent item, so refs are resolved after the extent tree is read.
 *
 * Memory: flat arrays sorted with qsort and searched by bisection, an
 * open-addressing set of visited block addresses.
 *
 * This file runs the steps in order; the parts of the pass that do them
 * are listed in check/extents-internal.h.
 */
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/extents.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/passes.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

static int cmp_ext(const void *a, const void *b)
{
	const struct check_extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

void check_extents_free(struct ext_state *st)
{
	if (!st)
		return;
	free(st->seen);
	free(st->exp);
	free(st->got);
	free(st->ext);
	free(st->bg);
	free(st->dext);
	free(st->stripe_fixes);
	free(st->dev);
	free(st->root);
	free(st->rebuild);
	free(st->lost);
	free(st->owners);
	free(st);
}

int check_extents_roots(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct ext_state *st;
	int ret;

	check_extents_free(ctx->extents_state);
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	ctx->extents_state = st;
	st->nodesize = btrfs_super_nodesize(sb);
	st->sectorsize = btrfs_super_sectorsize(sb);
	st->bg_tree = btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;

	ret = check_walk_tree(ctx, st, &ctx->fs->tree_root, NULL);
	if (ret < 0)
		error("extent check stopped: %s", strerror(-ret));
	return ret;
}

int check_extents_rest(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs = ctx->fs;
	struct ext_state *st = ctx->extents_state;
	size_t i;
	int ret;

	ret = check_walk_tree(ctx, st, &fs->chunk_root, NULL);
	for (i = 0; !ret && i < st->root_nr; i++) {
		struct check_root r = st->root[i];

		/* a tree id with several root items: only relocation trees may */
		ret = check_walk_tree(ctx, st, &r.tree, &r);
	}
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	ctx->stats.data_bytes_allocated = st->stats_alloc;
	ctx->stats.data_bytes_referenced = st->stats_ref;

	check_sort(st->ext, st->ext_nr, sizeof(*st->ext), cmp_ext);
	check_sort(st->bg, st->bg_nr, sizeof(*st->bg), check_cmp_bg);
	ret = check_add_missing_bgs(st, &fs->chunks);
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	check_sort(st->dext, st->dext_nr, sizeof(*st->dext), check_cmp_devext);
	check_full_backrefs(ctx, st);
	ret = check_resolve_expected_refs(ctx, st);
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	check_sort_merge_refs(st->exp, &st->exp_nr);
	check_sort_merge_refs(st->got, &st->got_nr);
	check_queue_full_backref_fixes(ctx, st);
	check_tree_block_generations(ctx, st);
	check_bg_kinds(ctx, st);
	check_extent_items(ctx, st);
	check_compare_refs(ctx, st);
	check_block_owners(ctx, st);
	check_block_groups(ctx, st);
	check_block_kinds(ctx, st);
	check_devices(ctx, st);
	return 0;
}

int check_extents(struct check_ctx *ctx)
{
	int ret = check_extents_roots(ctx);

	return ret ? ret : check_extents_rest(ctx);
}

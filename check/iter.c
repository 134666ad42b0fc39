// SPDX-License-Identifier: GPL-2.0
/*
 * Item iteration for the passes: every item of a tree from a key on, in key
 * order, through the verified read path.  A block that cannot be read ends
 * the iteration with its error (pass 3 has already reported it).
 */
#include "check/context.h"
#include "kernel-shared/format/accessors.h"

struct check_item_walk {
	struct check_ctx *ctx;
	check_item_fn fn;
	void *arg;
};

static int check_item(struct btrfs_path *path, const struct btrfs_key *key, void *arg)
{
	struct check_item_walk *w = arg;

	w->ctx->items++;
	return w->fn(w->ctx, path->nodes[0], path->slots[0], key, w->arg);
}

int check_for_each_item(struct check_ctx *ctx, const struct btrfs_tree_ref *tree,
			const struct btrfs_key *from, check_item_fn fn, void *arg)
{
	struct check_item_walk w = { ctx, fn, arg };
	struct btrfs_key key = from ? *from : (struct btrfs_key){ 0 };

	return btrfs_for_each_item(ctx->fs, NULL, tree, &key, BTRFS_SEARCH_NEXT, check_item, &w);
}

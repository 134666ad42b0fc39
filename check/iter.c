// SPDX-License-Identifier: GPL-2.0
/*
 * Item iteration for the passes: every item of a tree from a key on, in key
 * order, through the verified read path.  A block that cannot be read ends
 * the iteration with its error (pass 3 has already reported it).
 */
#include "check/check.h"
#include "lib/format/accessors.h"

int check_for_each_item(struct check_ctx *ctx, const struct btrfs_tree_ref *tree,
			const struct btrfs_key *from, check_item_fn fn, void *arg)
{
	struct btrfs_path path;
	struct btrfs_key key = from ? *from : (struct btrfs_key){ 0 };
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(ctx->fs, tree, &key, BTRFS_SEARCH_NEXT, &path, &key);
	while (ret == 0) {
		const struct extent_buffer *eb = path.nodes[0];
		int slot = path.slots[0];

		btrfs_item_key_to_cpu(eb, &key, slot);
		ctx->items++;
		ret = fn(ctx, eb, slot, &key, arg);
		if (ret)
			break;
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

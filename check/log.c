// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 1, log: when the superblock names a log root tree, every block of it
 * and of the per-subvolume log trees it lists must read and verify.  The
 * log is replayed by the kernel at mount; we only check it is intact.
 */
#include <stdio.h>
#include "check/check.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"

struct log_walk {
	struct check_ctx *ctx;
	const char *what;
	bool collect;                      /* the log root tree: note the trees it lists */
	struct btrfs_tree_ref trees[64];   /* log trees listed in the log root tree */
	int ntrees;
};

static int log_block(struct btrfs_fs_info *fs __unused, const struct extent_buffer *eb, u64 bytenr,
		     int err, void *arg)
{
	struct log_walk *w = arg;
	u32 i, nr;

	if (err) {
		check_error(w->ctx, "%s: block %llu cannot be read: %s", w->what, bytenr, strerror(-err));
		return 0;
	}
	if (!w->collect || btrfs_eb_level(eb) != 0)
		return 0;
	nr = btrfs_eb_nritems(eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY ||
		    btrfs_leaf_item_size(eb, (int)i) < offsetof(struct btrfs_root_item, generation_v2))
			continue;
		if (w->ntrees >= (int)ARRAY_SIZE(w->trees)) {
			warning("log root tree lists more than %zu log trees, checking the first ones",
				ARRAY_SIZE(w->trees));
			break;
		}
		btrfs_tree_ref_from_root_item(&w->trees[w->ntrees++], key.offset,
					      btrfs_leaf_item_ptr(eb, (int)i));
	}
	return 0;
}

int check_log(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct log_walk w = { .ctx = ctx, .what = "log root tree", .collect = true };
	struct btrfs_tree_ref root = {
		.objectid = BTRFS_TREE_LOG_OBJECTID,
		.bytenr = btrfs_super_log_root(sb),
		.level = btrfs_super_log_root_level(sb),
		.generation = 0,   /* written after the super's transaction: not known */
	};
	char name[64];
	int i;

	btrfs_walk_tree(ctx->fs, &root, BTRFS_WALK_DFS, NULL, log_block, &w);
	for (i = 0; i < w.ntrees; i++) {
		struct log_walk sub = { .ctx = ctx, .what = name };

		snprintf(name, sizeof(name), "log tree of root %llu", w.trees[i].objectid);
		btrfs_walk_tree(ctx->fs, &w.trees[i], BTRFS_WALK_DFS, NULL, log_block, &sub);
	}
	return 0;
}

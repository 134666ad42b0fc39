// SPDX-License-Identifier: GPL-2.0
/*
 * Removing a whole tree inside a transaction (btrfs_drop_tree) and the
 * free space tree with its feature bits (btrfs_drop_free_space_tree); see
 * transaction.h.  Used by btrfs check --clear-space-cache v2.
 */
#include <stdlib.h>
#include "kernel-shared/transaction.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"

/* Forget the transaction's view of a tree (its ROOT_ITEM is gone). */
static void forget_root(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	for (int i = 0; i < t->nr_roots; i++) {
		if (t->roots[i] != root)
			continue;
		t->roots[i] = t->roots[--t->nr_roots];
		free(root);
		return;
	}
}

int btrfs_drop_tree(struct btrfs_trans *t, u64 objectid)
{
	struct btrfs_wroot *root, *rt;
	struct btrfs_key key;
	int ret;

	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:
	case BTRFS_CHUNK_TREE_OBJECTID:
	case BTRFS_EXTENT_TREE_OBJECTID:
	case BTRFS_DEV_TREE_OBJECTID:
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
	case BTRFS_FS_TREE_OBJECTID:
		error("tree %llu cannot be dropped", objectid);
		return -EOPNOTSUPP;
	}
	if (objectid >= BTRFS_FIRST_FREE_OBJECTID && objectid <= BTRFS_LAST_FREE_OBJECTID) {
		error("tree %llu is a subvolume: not dropped", objectid);
		return -EOPNOTSUPP;
	}
	ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);
	if (ret < 0)
		return ret;
	ret = btrfs_trans_get_root(t, objectid, &root);
	if (ret < 0)
		return ret;
	if (root->last_snapshot) {
		error("tree %llu may share blocks with a snapshot; not dropped", objectid);
		return -EOPNOTSUPP;
	}
	/* every block freed; the empty leaf it gets back was made in t: forgotten at once */
	ret = trans_reset_tree(t, root);
	if (ret == 0)
		ret = trans_free_block(t, root->bytenr, objectid, 0);
	if (ret < 0)
		return ret;
	if (root->has_item) {
		key.objectid = objectid;
		key.type = BTRFS_ROOT_ITEM_KEY;
		key.offset = root->item_key_offset;
		ret = btrfs_delete_item(t, rt, &key);
		if (ret < 0) {
			error("cannot delete the root item of tree %llu: %s", objectid, strerror(-ret));
			return ret;
		}
	}
	forget_root(t, root);
	return 0;
}

int btrfs_drop_free_space_tree(struct btrfs_trans *t)
{
	int ret;

	if (t->bgt) {
		error("the block group tree needs the free space tree: it cannot be removed");
		return -EOPNOTSUPP;
	}
	/* nothing of this transaction goes to the free space tree any more */
	t->fst = false;
	t->rebuild_fst = false;
	ret = btrfs_drop_tree(t, BTRFS_FREE_SPACE_TREE_OBJECTID);
	if (ret == -ENOENT)
		ret = 0;   /* only the feature bits were left */
	if (ret == 0)
		t->fst_dropped = true;
	return ret;
}

void btrfs_trans_invalidate_space_cache_v1(struct btrfs_trans *t)
{
	t->space_cache_v1_stale = true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Emptying a tree without reading its leaves (btrfs_empty_tree), removing
 * a whole tree (btrfs_drop_tree) and the free space tree with its feature
 * bits (btrfs_drop_free_space_tree) inside a transaction; see
 * transaction.h.  Used by btrfs check --init-csum-tree and
 * --clear-space-cache v2.
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

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

/* See engine-internal.h. */
int trans_free_subtree(struct btrfs_trans *t, u64 owner, u64 bytenr, int level, u64 gen,
		       const struct btrfs_disk_key *first)
{
	struct extent_buffer *eb;
	bool owned;
	int ret = 0;

	if (level > 0) {
		ret = btrfs_trans_read_block(t, owner, bytenr, level, gen, first, &eb, &owned);
		if (ret < 0) {
			if (!t->lenient)
				return ret;
			warning("tree %llu: unreadable node %llu and its children left allocated",
				owner, bytenr);
			return 0;
		}
		for (u32 i = 0; i < btrfs_eb_nritems(eb) && ret == 0; i++) {
			const struct btrfs_key_ptr *p = btrfs_node_key_ptr(eb, (int)i);

			ret = trans_free_subtree(t, owner, btrfs_key_blockptr(p), level - 1,
					  btrfs_key_generation(p), &p->key);
		}
		if (owned)
			free_extent_buffer(eb);
		if (ret < 0)
			return ret;
	}
	return trans_free_block(t, bytenr, owner, level);
}

int btrfs_empty_tree(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	if (root->last_snapshot) {
		error("tree %llu may share blocks with a snapshot; not emptied", root->objectid);
		return -EOPNOTSUPP;
	}
	return trans_reset_tree(t, root);
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
	/* every block freed; the empty leaf it gets back was made in t: forgotten at once */
	ret = btrfs_empty_tree(t, root);
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
		ret = 0;   /* only the feature bits were left: the commit clears them */
	if (ret == 0)
		t->fst_dropped = true;
	return ret;
}

void btrfs_trans_invalidate_space_cache_v1(struct btrfs_trans *t)
{
	t->space_cache_v1_stale = true;
}

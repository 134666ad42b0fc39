// SPDX-License-Identifier: GPL-2.0
/*
 * Fixes of root tree items (check --repair): see repair-root-tree.h.
 * Queued by pass 2 (root items) and pass 7 (root refs).
 */
#include <stdio.h>
#include <string.h>
#include "check/context.h"
#include "check/repair-root-tree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

/*
 * The root tree's item at key, at least min bytes, ready to be changed (path
 * from a CoW search): 0, -ENOENT, -EUCLEAN (too small), or another error.
 */
static int root_tree_item(struct btrfs_trans *t, const struct btrfs_key *key, u32 min,
			  struct btrfs_path *path)
{
	struct btrfs_wroot *rt;
	int ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);

	btrfs_init_path(path);
	if (ret)
		return ret;
	ret = btrfs_search_slot(t, rt, key, path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_path_item_size(path) < min)
		ret = -EUCLEAN;
	return ret;
}

int check_fix_root_ref_link(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct check_root_ref_link_fix *f = arg;
	struct btrfs_path path;
	int ret = root_tree_item(t, &f->key, sizeof(struct btrfs_root_ref), &path);

	if (!ret) {
		struct btrfs_root_ref *ref = btrfs_path_item_ptr(&path);

		printf("(%llu %s %llu): dir %llu index %llu set to dir %llu index %llu, as its partner and the dir index say\n",
		       (unsigned long long)f->key.objectid, f->key.type == BTRFS_ROOT_REF_KEY ? "ROOT_REF" : "ROOT_BACKREF",
		       (unsigned long long)f->key.offset, (unsigned long long)btrfs_root_ref_dirid(ref),
		       (unsigned long long)btrfs_root_ref_sequence(ref), (unsigned long long)f->dirid,
		       (unsigned long long)f->seq);
		btrfs_set_root_ref_dirid(ref, f->dirid);
		btrfs_set_root_ref_sequence(ref, f->seq);
	}
	btrfs_release_path(&path);
	if (ret)
		error("repair: (%llu %u %llu): cannot set its dir and index: %s", (unsigned long long)f->key.objectid,
		      f->key.type, (unsigned long long)f->key.offset, strerror(-ret));
	return ret;
}

/*
 * One field of a root item (refs, root_dirid): set in the transaction's
 * copy and in the root tree.
 */
int check_fix_root_item(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct check_root_item_fix *f = arg;
	static const char *const names[] = { [CHECK_ROOT_REFS] = "refs", [CHECK_ROOT_DIRID] = "root_dirid",
					     [CHECK_ROOT_DROP_LEVEL] = "drop_level" };
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = btrfs_trans_get_root(t, f->key.objectid, &root);

	if (ret)
		return ret;
	/* the commit rewrites the item from the copy when the tree changes too */
	ret = root_tree_item(t, &f->key, offsetof(struct btrfs_root_item, generation_v2), &path);
	if (!ret) {
		struct btrfs_root_item *ri = btrfs_path_item_ptr(&path);

		if (f->field == CHECK_ROOT_REFS) {
			btrfs_set_root_refs(&root->item, (u32)f->value);
			btrfs_set_root_refs(ri, (u32)f->value);
		} else if (f->field == CHECK_ROOT_DIRID) {
			btrfs_set_root_dirid(&root->item, f->value);
			btrfs_set_root_dirid(ri, f->value);
		} else {
			btrfs_set_root_drop_level(&root->item, (u8)f->value);
			btrfs_set_root_drop_level(ri, (u8)f->value);
		}
	}
	btrfs_release_path(&path);
	if (ret) {
		error("repair: root item (%llu ROOT_ITEM %llu): cannot set %s: %s", f->key.objectid,
		      f->key.offset, names[f->field], strerror(-ret));
		return ret;
	}
	printf("root %llu: root item %s set to %llu\n", f->key.objectid, names[f->field],
	       (unsigned long long)f->value);
	return 0;
}

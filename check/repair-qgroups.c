// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of the quota tree: QGROUP_INFO items set to the numbers pass 8
 * recomputed, and the status item's generation kept with the filesystem's.
 */
#include <stdio.h>
#include "check/repair-qgroups.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"
#include "kernel-shared/transaction.h"

/* The item at key of the quota tree, ready to change, of at least min_size bytes. */
static int quota_item(struct btrfs_trans *t, const struct btrfs_key *key, u32 min_size,
		      struct btrfs_wpath *path)
{
	struct btrfs_wroot *root;
	int ret = btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &root);

	if (ret)
		return ret;
	btrfs_wpath_init(path);
	ret = btrfs_search_slot(t, root, key, path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_wpath_item_size(path) < min_size)
		ret = -EUCLEAN;
	if (ret)
		btrfs_wpath_release(path);
	return ret;
}

int rqg_set_info(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct rqg_info *q = arg;
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, q->qgroupid };
	struct btrfs_qgroup_info_item *info;
	struct btrfs_wpath path;
	int ret = quota_item(t, &key, sizeof(*info), &path);

	if (ret) {
		error("repair: qgroup %llu/%llu info item: %s", btrfs_qgroup_level(q->qgroupid),
		      btrfs_qgroup_subvolid(q->qgroupid), strerror(-ret));
		return ret;
	}
	info = btrfs_wpath_item_ptr(&path);
	btrfs_set_qgroup_info_generation(info, t->transid);
	btrfs_set_qgroup_info_rfer(info, q->rfer);
	btrfs_set_qgroup_info_rfer_cmpr(info, q->rfer);
	btrfs_set_qgroup_info_excl(info, q->excl);
	btrfs_set_qgroup_info_excl_cmpr(info, q->excl);
	btrfs_wpath_release(&path);
	printf("Repair qgroup %llu/%llu: referenced %llu exclusive %llu\n",
	       btrfs_qgroup_level(q->qgroupid), btrfs_qgroup_subvolid(q->qgroupid), q->rfer, q->excl);
	return 0;
}

int rqg_update_status(struct btrfs_trans *t)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_wroot *root;
	struct btrfs_wpath path;
	int ret;

	if (btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &root))
		return 0;
	/* version 1 status items end before enable_gen: 32 bytes */
	ret = quota_item(t, &key, 32, &path);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		error("repair: qgroup status item: %s", strerror(-ret));
		return ret;
	}
	btrfs_set_qgroup_status_generation(btrfs_wpath_item_ptr(&path), t->transid);
	btrfs_wpath_release(&path);
	return 0;
}

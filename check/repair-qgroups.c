// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of the quota tree: QGROUP_INFO items set to the numbers pass 8
 * recomputed, and the status item's generation kept with the filesystem's.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/repair-qgroups.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/engine/trans-tree-changes.h"

/* The item at key of the quota tree, ready to change, of at least min_size bytes. */
static int quota_item(struct btrfs_trans *t, const struct btrfs_key *key, u32 min_size,
		      struct btrfs_path *path)
{
	struct btrfs_wroot *root;
	int ret = btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &root);

	if (ret)
		return ret;
	btrfs_init_path(path);
	ret = btrfs_search_slot(t, root, key, path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_path_item_size(path) < min_size)
		ret = -EUCLEAN;
	if (ret)
		btrfs_release_path(path);
	return ret;
}

int repair_qgroup_set_info(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_qgroup_info *q = arg;
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, q->qgroupid };
	struct btrfs_qgroup_info_item *info;
	struct btrfs_path path;
	int ret = quota_item(t, &key, sizeof(*info), &path);

	if (ret) {
		error("repair: qgroup %llu/%llu info item: %s", btrfs_qgroup_level(q->qgroupid),
		      btrfs_qgroup_subvolid(q->qgroupid), strerror(-ret));
		return ret;
	}
	info = btrfs_path_item_ptr(&path);
	btrfs_set_qgroup_info_generation(info, btrfs_trans_transid(t));
	btrfs_set_qgroup_info_usage(info, q->rfer, q->excl);
	btrfs_release_path(&path);
	printf("Repair qgroup %llu/%llu: referenced %llu exclusive %llu\n",
	       btrfs_qgroup_level(q->qgroupid), btrfs_qgroup_subvolid(q->qgroupid), q->rfer, q->excl);
	return 0;
}

int repair_qgroup_add_info(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_qgroup_info *q = arg;
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, q->qgroupid };
	struct btrfs_qgroup_info_item info = { 0 };
	struct btrfs_wroot *root;
	int ret = btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &root);

	btrfs_set_qgroup_info_generation(&info, btrfs_trans_transid(t));
	btrfs_set_qgroup_info_usage(&info, q->rfer, q->excl);
	if (ret == 0)
		ret = btrfs_insert_item(t, root, &key, &info, sizeof(info));
	if (ret) {
		error("repair: qgroup %llu/%llu info item: %s", btrfs_qgroup_level(q->qgroupid),
		      btrfs_qgroup_subvolid(q->qgroupid), strerror(-ret));
		return ret;
	}
	printf("Repair qgroup %llu/%llu: info item added, referenced %llu exclusive %llu\n",
	       btrfs_qgroup_level(q->qgroupid), btrfs_qgroup_subvolid(q->qgroupid), q->rfer, q->excl);
	return 0;
}

/* Is subvolume id in a higher-level qgroup?  (its numbers then need more than a delta) */
static int has_parent_group(struct btrfs_trans *t, struct btrfs_wroot *quota, u64 id)
{
	struct btrfs_key key = { id, BTRFS_QGROUP_RELATION_KEY, 0 }, found;
	int ret;

	ret = btrfs_trans_find_key(t, quota, &key, BTRFS_SEARCH_NEXT, &found);
	if (ret < 0)
		return ret;
	return ret == 0 && found.objectid == id && found.type == BTRFS_QGROUP_RELATION_KEY;
}

/* Add delta bytes to referenced and exclusive of qgroup 0/id: 0, -ENOENT, or an error. */
static int shift_info(struct btrfs_trans *t, u64 id, s64 delta)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_qgroup_info_item *info;
	struct btrfs_path path;
	int ret = quota_item(t, &key, sizeof(*info), &path);

	if (ret)
		return ret;
	info = btrfs_path_item_ptr(&path);
	btrfs_set_qgroup_info_generation(info, btrfs_trans_transid(t));
	btrfs_set_qgroup_info_rfer(info, btrfs_qgroup_info_rfer(info) + (u64)delta);
	btrfs_set_qgroup_info_rfer_cmpr(info, btrfs_qgroup_info_rfer_cmpr(info) + (u64)delta);
	btrfs_set_qgroup_info_excl(info, btrfs_qgroup_info_excl(info) + (u64)delta);
	btrfs_set_qgroup_info_excl_cmpr(info, btrfs_qgroup_info_excl_cmpr(info) + (u64)delta);
	btrfs_release_path(&path);
	printf("qgroup 0/%llu: %+lld bytes of tree blocks the repair added or removed\n", id,
	       (long long)delta);
	return 0;
}

/*
 * The repair's own changes to subvolume trees, in their level-0 qgroups: a
 * tree of its own (never snapshotted, not a snapshot) that gained or lost
 * blocks has its numbers moved by them; anything else (shared blocks
 * copied, higher-level groups) marks the numbers inconsistent (a rescan
 * recomputes them) instead of leaving them wrong.
 */
static int follow_tree_changes(struct btrfs_trans *t, struct btrfs_wroot *quota, bool *inconsistent)
{
	struct btrfs_tree_change *c;
	int nr, ret = btrfs_trans_tree_changes(t, &c, &nr);

	for (int i = 0; !ret && i < nr; i++) {
		u64 id = c[i].objectid;

		if (id != BTRFS_FS_TREE_OBJECTID &&
		    (id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID))
			continue;
		if (c[i].may_share) {
			*inconsistent = true;
			continue;
		}
		if (!c[i].blocks_delta)
			continue;
		ret = has_parent_group(t, quota, id);
		if (ret == 0)
			ret = shift_info(t, id,
					 c[i].blocks_delta * (s64)btrfs_trans_fs(t)->geo.nodesize);
		if (ret > 0 || ret == -ENOENT) {
			*inconsistent = true;
			ret = 0;
		}
	}
	free(c);
	return ret;
}

int repair_qgroup_update_status(struct btrfs_trans *t)
{
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_wroot *quota;
	struct btrfs_path path;
	bool inconsistent = false;
	void *st;
	int ret;

	if (btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &quota))
		return 0;
	ret = follow_tree_changes(t, quota, &inconsistent);
	if (ret) {
		error("repair: quota groups: %s", strerror(-ret));
		return ret;
	}
	/* version 1 status items end before enable_gen: 32 bytes */
	ret = quota_item(t, &key, 32, &path);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		error("repair: qgroup status item: %s", strerror(-ret));
		return ret;
	}
	st = btrfs_path_item_ptr(&path);
	btrfs_set_qgroup_status_generation(st, btrfs_trans_transid(t));
	if (inconsistent && !(btrfs_qgroup_status_flags(st) & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT)) {
		btrfs_set_qgroup_status_flags(st, btrfs_qgroup_status_flags(st) |
					      BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT);
		printf("Quota groups marked inconsistent: the repair changed tree blocks their numbers cannot follow here, run 'btrfs quota rescan' after mounting\n");
	}
	btrfs_release_path(&path);
	return 0;
}

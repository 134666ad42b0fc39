/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repairs of the quota tree (pass 8's findings, check/qgroups.c), applied
 * by check_repair() through the transaction engine (check/repair-qgroups.c).
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_QGROUPS_H
#define BTRFS_KIT_CHECK_REPAIR_QGROUPS_H

#include "check/context.h"

/* A QGROUP_INFO item rewritten with the recomputed numbers. */
struct repair_qgroup_info {
	u64 qgroupid;
	u64 rfer, excl;
};
int repair_qgroup_set_info(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* The same numbers in a new QGROUP_INFO item (a limit or relation names the qgroup). */
int repair_qgroup_add_info(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * Last in every repair transaction on a filesystem with quotas: tree blocks
 * the repair added to or removed from a subvolume move its qgroup's
 * numbers (or mark them inconsistent where a delta cannot say it), and the
 * status item's generation follows the new one (the kernel marks the
 * numbers inconsistent at mount when they differ).  0 without a quota
 * tree, or a negative errno.
 */
int repair_qgroup_update_status(struct btrfs_trans *t);

#endif

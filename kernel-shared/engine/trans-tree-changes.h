/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a transaction changed in its trees so far, for accounting that
 * follows tree blocks (quota groups count a subvolume's tree blocks).
 * Write engine API (kernel-shared/engine/transaction.h).
 */
#ifndef BTRFS_KIT_TRANS_TREE_CHANGES_H
#define BTRFS_KIT_TRANS_TREE_CHANGES_H

#include "kernel-shared/engine/transaction.h"

struct btrfs_tree_change {
	u64 objectid;
	bool may_share;         /* snapshotted or a snapshot: copies on write move shared blocks */
	s64 blocks_delta;       /* tree blocks allocated (still live) minus committed ones freed */
};

/*
 * Every tree whose root moved in t: *out (malloc'ed, free it) with *nr
 * entries.  0 or -ENOMEM.
 */
int btrfs_trans_tree_changes(const struct btrfs_trans *t, struct btrfs_tree_change **out, int *nr);

#endif

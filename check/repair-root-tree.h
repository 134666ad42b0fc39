/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixes of root tree items the passes queue with check_fixable()
 * (check/repair-root-tree.c): a root item's field, a root ref's link.
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_ROOT_TREE_H
#define BTRFS_KIT_CHECK_REPAIR_ROOT_TREE_H

#include "check/context.h"

struct btrfs_trans;
/* One field of a root item (refs, root_dirid, drop_level): set in the transaction's copy and in the root tree. */
struct check_root_item_fix {
	struct btrfs_key key;
	enum { CHECK_ROOT_REFS, CHECK_ROOT_DIRID, CHECK_ROOT_DROP_LEVEL } field;
	u64 value;
};
int check_fix_root_item(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* A ROOT_REF or ROOT_BACKREF item's dir and index, set to its partner's. */
struct check_root_ref_link_fix {
	struct btrfs_key key;
	u64 dirid, seq;
};
int check_fix_root_ref_link(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

#endif

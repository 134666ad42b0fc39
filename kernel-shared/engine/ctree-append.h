/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Items that hold several records under one key (DIR_ITEM and XATTR_ITEM
 * names with the same hash, INODE_REF names of one inode in one directory):
 * adding a record inserts the item or appends to it.  Write engine API
 * (kernel-shared/engine/transaction.h).
 */
#ifndef BTRFS_KIT_CTREE_APPEND_H
#define BTRFS_KIT_CTREE_APPEND_H

#include "kernel-shared/engine/transaction.h"

/* Insert the item (key, buf, size), or append buf to the item at key: 0 or a negative errno. */
int btrfs_insert_or_append_item(struct btrfs_trans *t, struct btrfs_wroot *root,
				const struct btrfs_key *key, const void *buf, u32 size);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which key types the items of each tree have (the kernel writes no
 * others there): a fact of the format, for telling damage from data.
 */
#ifndef BTRFS_KIT_FORMAT_TREE_KEY_TYPES_H
#define BTRFS_KIT_FORMAT_TREE_KEY_TYPES_H

#include "kernel-shared/format/kerncompat.h"

/*
 * May an item of tree (its objectid: a subvolume's or the data relocation
 * tree's are file trees) have key type type?  True for every type in a
 * tree this does not know (log trees, future trees).
 */
bool btrfs_tree_holds_key_type(u64 tree, u8 type);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mending one leaf that fails the tree-checker, on a private copy (for
 * check --repair, check/repair-leaves.c): what is mended is listed in
 * repair-leaves.h.  Only a leaf whose checksum and header were verified may
 * be given: its nritems and keys are not trusted, its item bytes are.
 */
#ifndef BTRFS_KIT_CHECK_LEAF_MEND_H
#define BTRFS_KIT_CHECK_LEAF_MEND_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"

/*
 * Mend eb (a leaf of tree, read from fs) in place, printing every change.
 * bound: every key of the leaf is below it (its parent's key after the
 * leaf's, or the largest key for a tree's last leaf); NULL when not known.
 * 0 when it now passes the tree-checker in full (its checksum is the
 * caller's to redo), -EUCLEAN when it cannot be mended (the reason
 * printed; eb is then garbage), -ENOMEM.
 */
int check_mend_leaf(struct btrfs_fs_info *fs, struct extent_buffer *eb, u64 tree,
		    const struct btrfs_key *bound);

#endif

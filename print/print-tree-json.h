/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dump-tree as one JSON document: every block as an object with its header
 * fields, key pointers or items; every item's fields named as the members
 * of its on-disk structure, numbers as numbers, flag sets as arrays of
 * names.
 */
#ifndef BTRFS_KIT_PRINT_TREE_JSON_H
#define BTRFS_KIT_PRINT_TREE_JSON_H

#include "print/print-tree.h"

/*
 * Print the trees (all of them when ntrees is 0, else those ids in order)
 * or, when nblocks > 0, only those blocks (with their children if follow).
 * Returns 0, or 1 when something could not be read.
 */
int dump_tree_json(struct btrfs_fs_info *fs, const struct btrfs_print_opts *opts,
		   const u64 *trees, int ntrees, const u64 *blocks, int nblocks, bool follow);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dump-tree's frame: which trees it prints, in which order, each under its
 * header ("root tree", "extent tree key (EXTENT_TREE ROOT_ITEM 0)"), then
 * the backup roots (-R) and the filesystem's sizes; or only the blocks of
 * -b.  Described once through the emitters (emit.h): btrfs-progs' text, or
 * one JSON document (Documentation/json.rst) with the same trees in the
 * same order.
 */
#ifndef BTRFS_KIT_PRINT_DUMP_TREE_H
#define BTRFS_KIT_PRINT_DUMP_TREE_H

#include "print/print-tree.h"

#define BTRFS_DUMP_TREE_MAX_LIST 64

/* What dump-tree's options ask for. */
struct btrfs_dump_tree_args {
	bool extent_only;       /* -e: leaves of the extent and device trees */
	bool device_only;       /* -d */
	bool roots_only;        /* -r: one line per tree */
	bool backups;           /* -R: -r and the superblock's backup roots */
	bool uuid_only;         /* -u */
	bool follow;            /* with -b: the blocks below too */
	int nblocks, ntrees;
	u64 blocks[BTRFS_DUMP_TREE_MAX_LIST];   /* -b, in order */
	u64 trees[BTRFS_DUMP_TREE_MAX_LIST];    /* -t, in order */
};

/*
 * Print what a asks for to stdout, as text or (json) one JSON document.
 * Returns 0, or 1 when something could not be read or written.
 */
int btrfs_dump_tree(struct btrfs_fs_info *fs, const struct btrfs_dump_tree_args *a,
		    const struct btrfs_print_opts *opts, bool json);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree block printer: the text btrfs-progs' dump-tree prints for headers,
 * node key pointers and every leaf item, and tree traversal (BFS or DFS)
 * on top of the verified read path.  Output goes to stdout.
 *
 * Every item is printed from its bytes in the block, bounds checked against
 * the item size: a short or damaged item prints what it can, never reads
 * past the block.
 */
#ifndef BTRFS_KIT_PRINT_TREE_H
#define BTRFS_KIT_PRINT_TREE_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/ctree.h"
#include "print/print-names.h"

/* What the printer needs to know: geometry and the dump-tree switches. */
struct btrfs_print_opts {
	u32 nodesize;
	u32 sectorsize;
	u16 csum_type;
	u16 csum_size;
	bool hide_names;      /* --hide-names: names and xattr values as HIDDEN */
	bool csum_headers;    /* --csum-headers: print the header checksum */
	bool csum_items;      /* --csum-items: print each data checksum */
	bool dfs;             /* traversal order of a tree's blocks */
};

/* Fill geometry fields of opts from the filesystem geometry. */
void btrfs_print_opts_init(struct btrfs_print_opts *opts, const struct btrfs_fs_geometry *geo);

/*
 * Visit every leaf of the tree rooted at eb in key order (depth-first,
 * one block per level in memory).  Stops when fn returns non-zero and
 * returns that value; unreadable children are reported and skipped.
 */
typedef int (*btrfs_leaf_fn)(const struct extent_buffer *leaf, void *priv);
int btrfs_walk_leaves(struct btrfs_fs_info *fs, const struct extent_buffer *eb,
		      btrfs_leaf_fn fn, void *priv);

/* Read a block for printing: verified, except for the tree-checker. */
int btrfs_print_read_block(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			   struct extent_buffer **out);

#endif

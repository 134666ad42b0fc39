/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the print/ files only: one leaf item being printed, the
 * small text formatting helpers the emitter's text back end uses, and the
 * item emitters of each family.
 */
#ifndef BTRFS_KIT_PRINT_TREE_INTERNAL_H
#define BTRFS_KIT_PRINT_TREE_INTERNAL_H

#include <stdio.h>
#include "print/print-tree.h"
#include "kernel-shared/format/flags-names.h"
#include "print/emit.h"

/* One item of a leaf: its key and its bytes, already checked to be inside the block. */
struct print_item {
	const struct btrfs_print_opts *opts;
	const struct extent_buffer *eb;
	int slot;
	struct btrfs_key key;
	const u8 *data;       /* item data */
	u32 size;             /* item size */
};

/*
 * One block: its text lines or one JSON object (header, then "ptrs" or
 * "items"); sets e->hide_names from opts.
 */
void emit_block(struct emitter *e, const struct btrfs_print_opts *opts,
		const struct extent_buffer *eb);
/* What btrfs_emit_tree() writes of a tree. */
enum btrfs_emit_tree_what {
	EMIT_TREE_BLOCK,        /* the block alone */
	EMIT_TREE_ALL,          /* it and every block below, BFS or DFS (opts->dfs) */
	EMIT_TREE_LEAVES,       /* only the leaves, in key order */
};
/*
 * Emit eb and what lies below it through emit_block().  Every pointer is
 * followed (a block reached twice is written twice, as btrfs-progs);
 * children that cannot be read are reported on stderr and skipped.
 * Returns 0, or non-zero when some child could not be read.
 */
int btrfs_emit_tree(struct btrfs_fs_info *fs, struct emitter *e, const struct btrfs_print_opts *opts,
		    const struct extent_buffer *eb, enum btrfs_emit_tree_what what);
/*
 * Item families: each writes the body of the item (text lines after the
 * item line; JSON members of its "data") and returns true when it knows
 * the item's type.
 */
bool emit_fs_item(struct emitter *e, const struct print_item *it);
bool emit_extent_family_item(struct emitter *e, const struct print_item *it);

#endif

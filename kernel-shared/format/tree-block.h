/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Editing one leaf or node in memory (no I/O, no allocation): the one place
 * the leaf and node formats of accessors.h are written, by the CoW b-tree
 * (kernel-shared/engine/ctree-write.c) and by the bottom-up tree builder mkfs uses
 * (mkfs/tree-builder.c) alike.  The caller makes sure there is room
 * (btrfs_leaf_free_space(), btrfs_node_max_ptrs()).
 */
#ifndef BTRFS_KIT_TREE_BLOCK_H
#define BTRFS_KIT_TREE_BLOCK_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/extent-buffer.h"

/*
 * Open n items of sizes[] at slot of a leaf: later items and their data move
 * down, the new items get their offsets and sizes, their data is zeroed and
 * nritems grows by n.  Keys are left to the caller.
 */
void btrfs_leaf_make_room(struct extent_buffer *eb, int slot, const u32 *sizes, int n);

/* Insert a key pointer (key, child bytenr, child generation) at slot of a node. */
void btrfs_node_insert_ptr(struct extent_buffer *eb, int slot, const struct btrfs_disk_key *key,
			   u64 bytenr, u64 gen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build one b-tree from items in memory: collect (key, data) items in any
 * order, then lay them out bottom-up into leaves, packed in key order, and
 * nodes above them until one block is left (the root).
 *
 *   tree_builder_init(&tb, BTRFS_DEV_TREE_OBJECTID);
 *   p = tree_builder_add(&tb, &key, sizeof(struct btrfs_dev_extent));   zeroed, fill now
 *   n = tree_builder_plan(&tb, nodesize);           sorts, counts blocks (< 0: error)
 *   ...allocate n addresses: block i of tree_builder_block_info(&tb, i, ...)...
 *   tree_builder_build(&tb, &params, bytenrs, emit, ctx);   each block, leaves first
 *
 * Block numbering: the leaves first (left to right), then the nodes of
 * level 1, and so on; the root is the last block.  The data pointer from
 * tree_builder_add() is valid until the next tree_builder_add().
 */
#ifndef BTRFS_KIT_TREE_BUILDER_H
#define BTRFS_KIT_TREE_BUILDER_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/ctree.h"

struct tree_builder_item {
	struct btrfs_key key;
	u32 size;
	size_t data_off;               /* into the arena */
};

struct tree_builder {
	u64 owner;                     /* tree id, header owner */
	struct tree_builder_item *items;
	size_t nr;
	size_t alloc;
	u8 *arena;
	size_t arena_len;
	size_t arena_alloc;
	/* The plan (tree_builder_plan) */
	u32 nodesize;
	int levels;                    /* 1 = a single leaf */
	u32 level_count[BTRFS_MAX_LEVEL];
	u32 nr_blocks;
	size_t *leaf_first;            /* first item index of each leaf, +1 sentinel */
};

/* What every block's header carries. */
struct tree_builder_params {
	u64 generation;
	const u8 *fsid;                /* BTRFS_FSID_SIZE */
	const u8 *chunk_tree_uuid;     /* BTRFS_UUID_SIZE */
};

void tree_builder_init(struct tree_builder *tb, u64 owner);
void tree_builder_release(struct tree_builder *tb);
/* Forget the items (and the plan), keep the owner. */
void tree_builder_reset(struct tree_builder *tb);

/* Add an item of size bytes, zeroed; returns its data (NULL on -ENOMEM). */
void *tree_builder_add(struct tree_builder *tb, const struct btrfs_key *key, u32 size);
void *tree_builder_add_key(struct tree_builder *tb, u64 objectid, u8 type, u64 offset, u32 size);

/*
 * Sort the items and plan the blocks for nodesize: the number of blocks, or
 * -EEXIST for two items with one key, -E2BIG for an item too large for a
 * leaf (both printed).
 */
int tree_builder_plan(struct tree_builder *tb, u32 nodesize);
/* Level and first key of block index (after tree_builder_plan). */
void tree_builder_block_info(const struct tree_builder *tb, u32 index, int *level, struct btrfs_key *first);
/* The root: index nr_blocks - 1. */
static inline int tree_builder_root_level(const struct tree_builder *tb)
{
	return tb->levels - 1;
}

typedef int (*tree_builder_emit_fn)(struct extent_buffer *eb, void *ctx);

/*
 * Build every block (header, items or key pointers; checksum left zero) and
 * hand it to emit, leaves first, root last; bytenrs[i] is block i's
 * address.  Stops at the first error emit returns.
 */
int tree_builder_build(struct tree_builder *tb, const struct tree_builder_params *p, const u64 *bytenrs, tree_builder_emit_fn emit,
	     void *ctx);

#endif

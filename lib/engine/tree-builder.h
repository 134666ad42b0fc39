/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build one b-tree from items in memory: collect (key, data) items in any
 * order, then lay them out bottom-up into leaves, packed in key order, and
 * nodes above them until one block is left (the root).
 *
 *   tb_init(&tb, BTRFS_DEV_TREE_OBJECTID);
 *   p = tb_add(&tb, &key, sizeof(struct btrfs_dev_extent));   zeroed, fill now
 *   n = tb_plan(&tb, nodesize);           sorts, counts blocks (< 0: error)
 *   ...allocate n addresses: block i of tb_block_info(&tb, i, ...)...
 *   tb_build(&tb, &params, bytenrs, emit, ctx);   each block, leaves first
 *
 * Block numbering: the leaves first (left to right), then the nodes of
 * level 1, and so on; the root is the last block.  The data pointer from
 * tb_add() is valid until the next tb_add().
 */
#ifndef BTRFS_KIT_TREE_BUILDER_H
#define BTRFS_KIT_TREE_BUILDER_H

#include "lib/format/kerncompat.h"
#include "lib/format/format.h"
#include "lib/read/ctree.h"

struct tb_item {
	struct btrfs_key key;
	u32 size;
	size_t data_off;               /* into the arena */
};

struct tree_builder {
	u64 owner;                     /* tree id, header owner */
	struct tb_item *items;
	size_t nr;
	size_t alloc;
	u8 *arena;
	size_t arena_len;
	size_t arena_alloc;
	/* The plan (tb_plan) */
	u32 nodesize;
	int levels;                    /* 1 = a single leaf */
	u32 level_count[BTRFS_MAX_LEVEL];
	u32 nr_blocks;
	size_t *leaf_first;            /* first item index of each leaf, +1 sentinel */
};

/* What every block's header carries. */
struct tb_params {
	u64 generation;
	const u8 *fsid;                /* BTRFS_FSID_SIZE */
	const u8 *chunk_tree_uuid;     /* BTRFS_UUID_SIZE */
};

void tb_init(struct tree_builder *tb, u64 owner);
void tb_release(struct tree_builder *tb);
/* Forget the items (and the plan), keep the owner. */
void tb_reset(struct tree_builder *tb);

/* Add an item of size bytes, zeroed; returns its data (NULL on -ENOMEM). */
void *tb_add(struct tree_builder *tb, const struct btrfs_key *key, u32 size);
void *tb_add_key(struct tree_builder *tb, u64 objectid, u8 type, u64 offset, u32 size);

/*
 * Sort the items and plan the blocks for nodesize: the number of blocks, or
 * -EEXIST for two items with one key, -E2BIG for an item too large for a
 * leaf (both printed).
 */
int tb_plan(struct tree_builder *tb, u32 nodesize);
/* Level and first key of block index (after tb_plan). */
void tb_block_info(const struct tree_builder *tb, u32 index, int *level, struct btrfs_key *first);
/* The root: index nr_blocks - 1. */
static inline int tb_root_level(const struct tree_builder *tb)
{
	return tb->levels - 1;
}

typedef int (*tb_emit_fn)(struct extent_buffer *eb, void *ctx);

/*
 * Build every block (header, items or key pointers; checksum left zero) and
 * hand it to emit, leaves first, root last; bytenrs[i] is block i's
 * address.  Stops at the first error emit returns.
 */
int tb_build(struct tree_builder *tb, const struct tb_params *p, const u64 *bytenrs, tb_emit_fn emit,
	     void *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 3's own parts (check/extents*.c, lost-blocks.c and super-dev-items.c
 * only; the other rooms see check/extents.h).  check/extents.c runs the
 * steps in order, each in a part:
 *   extents-walk.c          every tree walked once, each block verified,
 *                           its other copies compared, its bytes counted
 *   extents-leaves.c        what the leaves say: the references trees make,
 *                           extent items and back references, block groups,
 *                           dev extents, device items, root items
 *   extents-tree-blocks.c   tree blocks against what the extent tree says
 *                           of them (header, owner, RELOC, FULL_BACKREF,
 *                           generation, block group kind)
 *   extents-refs.c          references against back references and counts
 *   extents-block-groups.c  extent items in block groups, block groups
 *                           against chunks
 *   extents-devices.c       chunk items, dev extents, devices, the
 *                           superblock's device figures
 *   lost-blocks.c           tree blocks pointed to without extent item
 *   super-dev-items.c       the superblocks' copies of the device items
 * Calls go one way: extents.c -> the parts; the walk -> leaves and tree
 * blocks; leaves -> devices -> super-dev-items; refs -> lost-blocks.
 */
#ifndef BTRFS_KIT_CHECK_EXTENTS_INTERNAL_H
#define BTRFS_KIT_CHECK_EXTENTS_INTERNAL_H

#include "check/context.h"
#include "check/extent-records.h"
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/volumes.h"

/* extents-walk.c: walk one tree (r: its root item, NULL for the root and chunk trees); 0 or < 0. */
int check_walk_tree(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_tree_ref *tree,
		    const struct check_root *r);

/* extents-leaves.c: an expected ref (a pointer or a file extent item); what one leaf of tree_id holds. */
int check_add_expected_ref(struct ext_state *st, u64 bytenr, u64 len, u64 parent, u64 root,
			   u64 objectid, u64 offset, u8 type);
int check_collect_leaf(struct check_ctx *ctx, struct ext_state *st, u64 tree_id, const struct extent_buffer *eb);

/* extents-tree-blocks.c, in the order check/extents.c calls them (the header: as the walk reads a block) */
void check_block_header(struct check_ctx *ctx, u64 tree_id, const struct extent_buffer *eb);
void check_full_backrefs(struct check_ctx *ctx, struct ext_state *st);
void check_queue_full_backref_fixes(struct check_ctx *ctx, struct ext_state *st);
void check_tree_block_generations(struct check_ctx *ctx, struct ext_state *st);
void check_block_owners(struct check_ctx *ctx, struct ext_state *st);
void check_block_kinds(struct check_ctx *ctx, struct ext_state *st);

/* extents-refs.c: resolve the expected refs, sort and merge a list, compare both lists */
int check_resolve_expected_refs(struct check_ctx *ctx, struct ext_state *st);
void check_sort_merge_refs(struct check_ref *arr, size_t *nr);
void check_compare_refs(struct check_ctx *ctx, struct ext_state *st);

/* extents-block-groups.c (check_cmp_bg: the qsort order of block groups, by start) */
int check_cmp_bg(const void *a, const void *b);
int check_add_missing_bgs(struct ext_state *st, const struct btrfs_chunk_tree_map *map);
void check_extent_items(struct check_ctx *ctx, struct ext_state *st);
void check_block_groups(struct check_ctx *ctx, struct ext_state *st);

/* extents-devices.c: a chunk item and a device item as the walk reads them; then all of them */
void check_compare_chunk_item(struct check_ctx *ctx, const struct btrfs_key *key,
			      const struct btrfs_chunk *chunk, u32 size);
void check_chunk_stripe_devs(struct check_ctx *ctx, const struct extent_buffer *eb,
			     const struct btrfs_key *key, const struct btrfs_chunk *chunk, u32 size);
void check_dev_item_uuid(struct check_ctx *ctx, const struct btrfs_dev_item *di);
void check_devices(struct check_ctx *ctx, struct ext_state *st);

/*
 * Tree blocks the trees point to without an extent item (check/lost-blocks.c):
 * find them and infer whether their lost item was FULL_BACKREF (before the
 * expected refs are resolved; 0 or -ENOMEM); is bytenr one, and *full_backref.
 */
int check_find_lost_blocks(struct check_ctx *ctx, struct ext_state *st);

/* Each device's superblock copy of its device item against the chunk tree's (warnings). */
void check_super_dev_items(struct check_ctx *ctx, const struct ext_state *st);
/*
 * Dev extents of devid without a device item in the chunk tree: with
 * --repair, the item is inserted from the device's superblock copy of it
 * (check/super-dev-items.c), bytes_used the sum of its dev extents.  true
 * when queued.
 */
bool check_dev_item_from_super(struct check_ctx *ctx, const struct ext_state *st, u64 devid);
/*
 * A device item's total_bytes beyond the device: an error; --repair sets it
 * (and d->total_bytes, which the superblock's total then counts) to what
 * the device's superblock copy says, else to the device's size.
 */
void check_device_size(struct check_ctx *ctx, const struct ext_state *st, struct check_dev *d);

#endif

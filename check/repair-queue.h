/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The repairs the passes queue (check/repair-extents.c,
 * check/repair-counters.c, check/repair-chunks.c): each called by a pass
 * right after the check_error() of the problem it mends.
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_QUEUE_H
#define BTRFS_KIT_CHECK_REPAIR_QUEUE_H

#include "check/extent-records.h"

/*
 * --repair (check/repair-extents.c, check/repair-counters.c): queue the
 * fix of a problem just reported with check_error().
 * check_queue_extent_rebuild() says whether the records of extent bytenr
 * can be rebuilt (queued once, later errors about the same extent counted
 * as mended by it).
 */
struct btrfs_trans;
bool check_queue_extent_rebuild(struct check_ctx *ctx, struct ext_state *st, u64 bytenr);
void check_queue_bg_used(struct check_ctx *ctx, const struct check_bg *bg);
/*
 * A chunk's missing block group item: added with the chunk's type and the
 * extents' sum, when every stripe has its dev extent.
 */
void check_queue_bg_item(struct check_ctx *ctx, const struct check_bg *bg);
void check_queue_super_bytes_used(struct check_ctx *ctx, u64 bytes_used);
/* --repair: set compat_ro bits a tree that exists needs (the free space tree: rebuilt too). */
void check_queue_super_compat_ro(struct check_ctx *ctx, u64 bits);
/* --repair: clear incompat bits whose structures do not exist (SIMPLE_QUOTA without a quota tree). */
void check_queue_super_incompat_clear(struct check_ctx *ctx, u64 bits);
/* Pass 2: superblock generations the open corrected from their root blocks (see ctree.h). */
void check_super_generations(struct check_ctx *ctx);
void check_queue_super_num_devices(struct check_ctx *ctx, u64 num_devices);
void check_queue_super_total_bytes(struct check_ctx *ctx, const struct ext_state *st);
void check_queue_orphan_dev_extent(struct check_ctx *ctx, const struct check_devext *d, bool has_dev);
void check_queue_dev_used(struct check_ctx *ctx, const struct check_dev *d);
/*
 * The dev extent d's chunk_offset set to that of the one chunk with a stripe
 * at its place (d too, once queued).
 */
void check_queue_dev_extent_chunk(struct check_ctx *ctx, struct check_devext *d, u64 chunk_offset);
/* The dev extent d's length set to len, its chunk's share of the device. */
void check_queue_dev_extent_length(struct check_ctx *ctx, struct check_dev *dev, const struct check_devext *d,
				   u64 len);
/* Stripe s of chunk ch has no dev extent: insert it when the room on dev (may be NULL) is free. */
void check_queue_missing_dev_extent(struct check_ctx *ctx, struct ext_state *st, struct check_dev *dev,
				    const struct btrfs_chunk_map *ch, int s);
/*
 * Block groups whose flags name another kind than they hold while their
 * chunk's type names it: reported; --repair sets the flags to the type (the
 * state at once, before the extents are held against them).
 */
void check_bg_kinds(struct check_ctx *ctx, struct ext_state *st);
/* Chunk item c (of map's stripe count) takes every field map has: length, type, stripes. */
void check_chunk_item_from_map(struct btrfs_chunk *c, const struct btrfs_chunk_map *map);
/* --repair: the system chunk item at logical set from the sys_chunk_array copy (check/repair-chunks.c). */
void check_queue_chunk_from_copy(struct check_ctx *ctx, u64 logical);
/* --repair: the missing item of system chunk ch (the sys_chunk_array's) inserted from it. */
void check_queue_chunk_item_from_copy(struct check_ctx *ctx, const struct btrfs_chunk_map *ch);
/*
 * A chunk whose type and block group flags differ (just reported): with
 * --repair the chunk takes the flags when they name what it holds and its
 * type does not (the in-memory map at once); else nothing is queued.
 */
void check_chunk_against_bg(struct check_ctx *ctx, const struct ext_state *st, const struct btrfs_chunk_map *ch,
			    const struct check_bg *bg);
/*
 * A chunk whose length differs from its block group's: when every stripe
 * has its dev extent at its place, each the block group's length over the
 * chunk's data stripes long, and no chunk starts inside that length, that is
 * reported and (--repair) the chunk takes the block group's length (the
 * in-memory map in the fix): true; the chunk is then kept as a stripe fix
 * with stripe -1 (check_stripe_fixed()).  false: not so, nothing said.
 */
bool check_chunk_length_from_bg(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_chunk_map *ch,
				const struct check_bg *bg);
/*
 * A block group without a chunk: when its profile is mirrored (not system)
 * and as many dev extents as it has copies name it, each as long as it, that
 * is reported and (--repair) a chunk item is made of them, added to the map
 * before the transaction: true; the chunk is kept as a stripe fix with
 * stripe -1.  false: not so, nothing said.
 */
bool check_chunk_from_dev_extents(struct check_ctx *ctx, struct ext_state *st, const struct check_bg *bg);
/*
 * The dev extent d finds no stripe of its chunk: when one stripe of the
 * chunk has no dev extent of its own and is d's but for its physical offset
 * (same device) or for a devid without a device item (same place), that is
 * reported and (--repair) the stripe takes d's device and place, the
 * in-memory map at once: true.  false: not so.
 */
bool check_chunk_stripe_place(struct check_ctx *ctx, struct ext_state *st, const struct check_devext *d);
/*
 * Has check_chunk_stripe_place() queued a fix of stripe of the chunk at
 * logical?  Stripe -1: the chunk item as a whole (its length, or made anew):
 * its dev extents are not held against the map.
 */
bool check_stripe_fixed(const struct ext_state *st, u64 logical, int stripe);
/* --repair: device devid's item gets total_bytes total. */
void check_queue_dev_total(struct check_ctx *ctx, u64 devid, u64 total);
/* Is [start, end) all data extents once the queued rebuilds are applied? */
bool check_repair_covers_data(struct check_ctx *ctx, u64 start, u64 end);
/*
 * Drop the checksums of [start, end) from the csum tree: every item that
 * overlaps it is deleted and what it holds outside the range put back.
 */
int check_delete_csums(struct check_ctx *ctx, struct btrfs_trans *t, u64 start, u64 end);
/* First thing in the repair transaction: reserve extents in use without an extent item. */
int check_repair_extents_prepare(struct check_ctx *ctx, struct btrfs_trans *t);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 3, extents (check/extents.c, with check/lost-blocks.c and
 * check/super-dev-items.c): the extent tree, block groups, chunks, dev
 * extents and devices against what the trees reference.  Its records
 * (check/extent-records.h) are kept for the passes after it.
 */
#ifndef BTRFS_KIT_CHECK_EXTENTS_H
#define BTRFS_KIT_CHECK_EXTENTS_H

#include "check/extent-records.h"

/*
 * Pass 3 (check_extents()) in its two steps: the root tree's walk, after
 * which st->root is complete (pass 5 may start on it, check/pass-thread.c),
 * then the other trees and the comparisons.
 */
int check_extents_roots(struct check_ctx *ctx);
int check_extents_rest(struct check_ctx *ctx);void check_extents_free(struct ext_state *st);
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

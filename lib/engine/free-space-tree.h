/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free space tree updates inside a transaction (free-space-tree.c).
 *
 * Per block group: (start, FREE_SPACE_INFO, length) with extent_count (free
 * extents) and flags; the free space itself either as (start,
 * FREE_SPACE_EXTENT, len) items, or with USING_BITMAPS as (start,
 * FREE_SPACE_BITMAP, len) items whose bit i (byte i / 8, bit i % 8) set
 * means sector start + i * sectorsize is free.  A range is taken out with
 * fst_remove_range() (it must be entirely free) and given back with
 * fst_add_range() (it must be entirely used); neighbouring free extents are
 * merged and extent_count follows.  After each change the block group
 * switches format at the kernel's thresholds: to bitmaps (one item per
 * 2048 sectors, 256 bytes, the last one shorter) when extent_count exceeds
 * HIGH = bitmap items needed for the block group * (25 + 256) / 25 (the
 * room bitmaps would take, counted in item headers), back to extents when
 * it drops below HIGH - 100 (never when HIGH <= 100).  A rebuilt tree is
 * converted the same way.
 *
 * The functions are declared in transaction.h (engine internals); a range
 * that is not in the state expected is -EUCLEAN naming block group and
 * range.
 */
#ifndef BTRFS_KIT_FREE_SPACE_TREE_H
#define BTRFS_KIT_FREE_SPACE_TREE_H

#include "lib/engine/transaction.h"

#endif

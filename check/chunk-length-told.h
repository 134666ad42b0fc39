/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The length of a chunk item whose own is damaged, told by the chunk tree
 * leaf that holds it (check --repair's leaf mend, at open: nothing else
 * maps yet, so the block group item and the dev extents cannot be read).
 *
 * A device item's bytes_used is the sum of the dev extents on it, one per
 * stripe of every chunk, each as long as its chunk's length over its data
 * stripes.  When the leaf is the whole chunk tree (its root leaf), the one
 * chunk whose length is unknown takes on each device what bytes_used leaves
 * after the other chunks' stripes there; every device it has stripes on
 * must leave the same.  The length is then kept only when the item passes
 * the tree-checker, overlaps no other chunk, and its stripes lie inside
 * their devices and on no other chunk's.  The extents pass then holds the
 * chunk against its block group and dev extents (check_block_groups()).
 */
#ifndef BTRFS_KIT_CHECK_CHUNK_LENGTH_TOLD_H
#define BTRFS_KIT_CHECK_CHUNK_LENGTH_TOLD_H

#include "kernel-shared/format/kerncompat.h"

struct extent_buffer;

/*
 * The slot of the one chunk item of the chunk tree's root leaf eb whose
 * length fails the tree-checker or reaches into the next chunk, -1 when
 * there is none or more than one.
 */
int chunk_length_suspect(const struct extent_buffer *eb, u32 sectorsize, u64 incompat_flags);

/* Does a chunk item of the leaf reach into the next one's? */
bool chunk_leaf_overlaps(const struct extent_buffer *eb);

/*
 * Does a chunk item of the leaf other than the one at skip (-1: none)
 * overlap [logical, logical + length), or does the range wrap?
 */
bool chunk_leaf_range_taken(const struct extent_buffer *eb, int skip, u64 logical, u64 length);

/* The length the leaf tells for the chunk item at slot (see above), 0 when not told. */
u64 chunk_length_told(const struct extent_buffer *eb, int slot, u32 sectorsize, u64 incompat_flags);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree block allocation inside a transaction (extent-alloc.c).
 *
 * Block groups: every METADATA (incl. mixed) and SYSTEM chunk, with the
 * used bytes of its block group item (block group tree when the fs has one,
 * else extent tree).  Free space of a block group is learnt the first time
 * a block is allocated from it: the block group's range minus every
 * EXTENT_ITEM / METADATA_ITEM in the extent tree, minus the superblock
 * copies' 64 KiB stripe units on any of its stripes (RAID5/6: their whole
 * stripe rows), minus blocks pinned in
 * the transaction.  Blocks are nodesize-aligned (never crossing a 64 KiB
 * stripe), first fit in address order; the chunk tree's in SYSTEM block
 * groups, all others in METADATA ones (DATA|METADATA on a mixed
 * filesystem).  When none has room a new chunk of that type is made
 * (trans-chunk.c); -ENOSPC only when the devices are full.  Data extents
 * come from DATA block groups the same way (data-alloc.c).
 *
 * Extent items: a new block gets (bytenr, METADATA_ITEM, level) [skinny] or
 * (bytenr, EXTENT_ITEM, nodesize) + tree_block_info, refs 1, generation =
 * transid, flags TREE_BLOCK, one inline TREE_BLOCK_REF to its tree.  A
 * freed block's item must have refs 1 and one TREE_BLOCK_REF (inline, or
 * keyed with no inline refs) to its tree, else -EOPNOTSUPP (shared).
 *
 * The functions are declared in transaction.h (engine internals).
 */
#ifndef BTRFS_KIT_EXTENT_ALLOC_H
#define BTRFS_KIT_EXTENT_ALLOC_H

#include "lib/engine/transaction.h"
#include "lib/read/volumes.h"

/*
 * The logical ranges of a chunk that hold superblock copies (each a 64 KiB
 * stripe unit; RAID5/6: the whole stripe row), into out (max entries);
 * returns how many.
 */
int ea_super_ranges(const struct btrfs_chunk_map *chunk, struct fs_range *out, int max);

#endif

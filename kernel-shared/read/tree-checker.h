/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tree-checker: everything a single tree block can say about itself is
 * checked when it is read (and, by mkfs and later writers, before it is
 * written), so code that uses a verified block need not re-check bounds.
 * The entry points are in ctree.h: btrfs_check_tree_block() (prints) and
 * btrfs_check_tree_block_msg() (returns the message).
 *
 * Message grammar (one line):
 *   corrupt <leaf|node>: root=<owner> block=<bytenr> slot=<slot>, <reason>
 * where slot is -1 for block-wide problems, item reasons start with the
 * item's key "key (objectid type offset) ", and values are given as
 * "have X expect Y" where both are known.
 *
 * Rules, per block:
 *   header: level < 8, owner != 0, generation <= super generation + 1;
 *   node:   1 <= nritems <= pointers per block; every pointer (the last
 *           included) non-zero and sectorsize aligned, its generation in
 *           (0, super generation + 1]; keys strictly increasing;
 *   leaf:   nritems fits; the root, chunk, dev, fs and data reloc trees are
 *           never empty; keys strictly increasing; items packed back to
 *           back from the end of the block, none overlapping the item array;
 *   inline extent refs: types in ascending order (owner ref first), within
 *           one type offsets in descending order (the kernel inserts so):
 *           the root for tree block refs, the parent for shared refs, the
 *           data ref hash for extent data refs;
 *   items:  inode item, inode ref/extref, dir item/index/xattr (name length,
 *           type, name hash), root item, root ref/backref, file extent,
 *           csum, extent/metadata item with inline refs, keyed back refs,
 *           chunk, device, dev extent and block group items (see the
 *           check_* functions in tree-checker.c).
 */
#ifndef BTRFS_KIT_TREE_CHECKER_H
#define BTRFS_KIT_TREE_CHECKER_H

#include "kernel-shared/format/kerncompat.h"

/* The btrfs directory name hash: crc32c register seeded with ~1, no final inversion. */
u32 btrfs_name_hash(const char *name, int len);
/* An INODE_EXTREF key offset: crc32c register seeded with the parent's low 32 bits. */
u64 btrfs_extref_hash(u64 parent, const char *name, int len);

/*
 * The key offset of a keyed EXTENT_DATA_REF and the sort order of inline
 * ones: crc32c (seed ~0, no final inversion) of the little-endian root gives
 * the high part, of objectid then offset the low part; high << 31 ^ low.
 */
u64 btrfs_extent_data_ref_hash(u64 root, u64 objectid, u64 offset);

#endif

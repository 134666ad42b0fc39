/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree blocks that passed the tree-checker, shared by the readers of one
 * filesystem (btrfs_fs_reader()): threads walking subvolumes that share
 * their blocks (snapshots) verify each block's items once, not once per
 * subvolume.  A block is known by its address, generation and checksum
 * (verified before the lookup), so another copy or another write at the
 * same address is checked anew.  A fixed table, direct mapped (a newer
 * entry replaces an older one), behind one lock.
 */
#ifndef BTRFS_KIT_CHECKED_BLOCKS_H
#define BTRFS_KIT_CHECKED_BLOCKS_H

#include "kernel-shared/format/kerncompat.h"

struct btrfs_checked_blocks;
struct extent_buffer;

/* NULL when out of memory (the readers then check every block). */
struct btrfs_checked_blocks *btrfs_checked_blocks_new(void);
void btrfs_checked_blocks_free(struct btrfs_checked_blocks *c);
/* eb (its checksum verified) passed the tree-checker before (c may be NULL). */
bool btrfs_checked_blocks_has(struct btrfs_checked_blocks *c, const struct extent_buffer *eb);
/* eb (its checksum verified) passed the tree-checker (c may be NULL). */
void btrfs_checked_blocks_add(struct btrfs_checked_blocks *c, const struct extent_buffer *eb);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree blocks built in memory, for the unit tests that judge one block (the
 * tree-checker, the image sanitizer): NS-byte blocks at BYTENR of a
 * filesystem of geometry geo (crc32c, skinny metadata, superblock generation
 * 10); new_block() an empty leaf or node of generation 9, add_item() appends
 * an item of zeroed data (packed from the end of the leaf) and returns it.
 */
#ifndef BTRFS_KIT_TESTS_TREE_BLOCK_FIXTURE_H
#define BTRFS_KIT_TESTS_TREE_BLOCK_FIXTURE_H

#include <string.h>
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/tree-checker.h"

#define NS 4096
#define BYTENR (SZ_16M)

static const struct btrfs_fs_geometry geo = {
	.nodesize = NS, .sectorsize = 4096, .csum_type = 0, .csum_size = 4,
	.incompat_flags = BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA, .super_generation = 10,
};

static inline struct extent_buffer *new_block(int level, u64 owner)
{
	struct extent_buffer *eb = alloc_extent_buffer(BYTENR, NS);
	struct btrfs_header *h = btrfs_header(eb);

	btrfs_set_header_bytenr(h, BYTENR);
	btrfs_set_header_owner(h, owner);
	btrfs_set_header_level(h, level);
	btrfs_set_header_generation(h, 9);
	return eb;
}

static inline void *add_item(struct extent_buffer *eb, u64 objectid, u8 type, u64 offset, u32 size)
{
	int slot = btrfs_eb_nritems(eb);
	struct btrfs_key k = { objectid, type, offset };

	btrfs_leaf_make_room(eb, slot, &size, 1);
	btrfs_cpu_key_to_disk(&btrfs_leaf_item(eb, slot)->key, &k);
	memset(btrfs_leaf_item_ptr(eb, slot), 0, size);
	return btrfs_leaf_item_ptr(eb, slot);
}

#endif

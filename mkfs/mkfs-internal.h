/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of mkfs-layout.c while a filesystem is built.
 */
#ifndef BTRFS_KIT_MKFS_INTERNAL_H
#define BTRFS_KIT_MKFS_INTERNAL_H

#include "mkfs/mkfs-layout.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "mkfs/tree-builder.h"
#include "kernel-shared/engine/tree-write.h"

/* Every tree of a new filesystem. */
enum { T_ROOT, T_EXTENT, T_CHUNK, T_DEV, T_FS, T_CSUM, T_UUID, T_QUOTA, T_FST, T_BGT, T_RELOC, T_NR };

/* Tree id of each T_* (mkfs-layout.c). */
extern const u64 mkfs_tree_ids[T_NR];

struct tree_blocks {
	u64 *bytenr;
	u32 nr;
	u32 alloc;
};

struct mkfs_ctx {
	const struct mkfs_config *cfg;
	struct chunk_alloc ca;
	struct chunk_placement *chunks[64];      /* live chunks by logical address */
	int nr_chunks;
	struct tree_builder tb[T_NR];
	struct tree_blocks blk[T_NR];
	bool present[T_NR];
	u64 tree_id[T_NR];
	bool skinny;
	u64 gen;
	struct btrfs_block_writer *w;     /* open from the first write on */
};


#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by mkfs-layout.c and rootdir.c while a filesystem is built.
 */
#ifndef BTRFS_KIT_MKFS_INTERNAL_H
#define BTRFS_KIT_MKFS_INTERNAL_H

#include "kernel-shared/mkfs-layout.h"
#include "kernel-shared/chunk-alloc.h"
#include "kernel-shared/tree-builder.h"
#include "kernel-shared/tree-write.h"

/* A data extent --rootdir wrote: its extent item and free space. */
struct mkfs_data_extent {
	u64 logical;
	u64 disk_len;                 /* sector aligned */
	u64 file_offset;
	u64 ino;                      /* owner inode */
	u64 root;                     /* owner tree (5 or a subvolume) */
};

#define MKFS_MAX_SUBVOLS 64

/* Fixed trees, then the subvolumes made by --subvol: T_SUBVOL + i. */
enum {
	T_ROOT, T_EXTENT, T_CHUNK, T_DEV, T_FS, T_CSUM, T_UUID, T_QUOTA, T_FST, T_BGT, T_RELOC, T_NR,
	T_SUBVOL = T_NR, T_MAX = T_NR + MKFS_MAX_SUBVOLS
};

/* Tree id of each fixed T_* (mkfs-layout.c). */
extern const u64 mkfs_tree_ids[T_NR];

/* A subvolume --rootdir made (tree T_SUBVOL + i). */
struct mkfs_subvol {
	u64 id;
	u64 parent;                   /* parent tree id */
	u64 dirid;                    /* directory in the parent holding it */
	u64 index;                    /* its DIR_INDEX there */
	char *name;
	bool readonly;
	u8 uuid[BTRFS_UUID_SIZE];
};

struct tree_blocks {
	u64 *bytenr;
	u32 nr;
	u32 alloc;
};

struct mkfs_ctx {
	const struct mkfs_config *cfg;
	struct chunk_alloc ca;
	struct ca_chunk *chunks[64];      /* live chunks by logical address */
	int nr_chunks;
	struct tree_builder tb[T_MAX];
	struct tree_blocks blk[T_MAX];
	bool present[T_MAX];
	u64 tree_id[T_MAX];
	int ntrees;                       /* T_NR + subvolumes */
	struct mkfs_subvol subvol[MKFS_MAX_SUBVOLS];
	int nr_subvols;
	u64 default_subvol;               /* tree the "default" dir item points to */
	u64 incompat_extra;               /* feature bits --rootdir needed (DEFAULT_SUBVOL) */
	bool skinny;
	u64 gen;
	struct btrfs_block_writer *w;     /* open from the first write on */
	/* --rootdir */
	struct mkfs_data_extent *data;    /* every data extent, in allocation order */
	size_t nr_data;
	size_t alloc_data;
	u64 next_ino;
};


/* An INODE_REF item with the one name (mkfs-layout.c). */
int mkfs_add_inode_ref(struct tree_builder *tb, u64 ino, u64 parent, u64 index, const char *name);
/* Make a chunk known to ctx->w (mkfs-layout.c). */
int mkfs_writer_add_chunk(struct mkfs_ctx *ctx, const struct ca_chunk *c);
/* Copy a directory tree into the trees; file data is written through ctx->w. */
int mkfs_add_rootdir(struct mkfs_ctx *ctx, const char *dir);
void mkfs_release_rootdir(struct mkfs_ctx *ctx);

#endif

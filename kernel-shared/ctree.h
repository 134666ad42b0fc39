/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory filesystem context and the read path's public API.
 *
 * This header is the contract between the read path (volumes.c, disk-io.c,
 * tree-checker.c), the printers (print-tree.c) and the commands.  On-disk
 * structures and their accessors are in format.h / accessors.h.
 */
#ifndef BTRFS_KIT_CTREE_H
#define BTRFS_KIT_CTREE_H

#include "kernel-shared/kerncompat.h"
#include "kernel-shared/format.h"

/* One tree block in memory: the raw bytes as on disk, header first. */
struct extent_buffer {
	u64 start;          /* logical address (the header's bytenr when valid) */
	u32 len;            /* nodesize */
	int mirror;         /* 1-based mirror number it was read from, 0 if built in memory */
	u8 data[];          /* len bytes */
};

struct extent_buffer *alloc_extent_buffer(u64 start, u32 len);
void free_extent_buffer(struct extent_buffer *eb);

/*
 * What a verified read must find in the header; zero/negative fields mean
 * "not known, do not check".
 */
struct tree_check {
	u64 owner;                      /* expected owner tree id, 0 = any */
	int level;                      /* expected level, -1 = any */
	u64 transid;                    /* generation from the parent's pointer, 0 = any */
	const struct btrfs_disk_key *first_key;  /* from the parent's pointer, NULL = any */
};

/* What the tree-checker needs to know of the filesystem, for reads and writes alike. */
struct btrfs_fs_geometry {
	u32 nodesize;
	u32 sectorsize;
	u16 csum_type;
	u16 csum_size;
	u64 incompat_flags;
	u64 compat_ro_flags;
	u64 super_generation;   /* the newest generation a block may carry */
	u8 fsid[BTRFS_FSID_SIZE];          /* the fsid headers carry (metadata_uuid if set) */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
};

struct btrfs_fs_info;   /* defined by disk-io.h; commands use the functions below */

/* How to open: device paths, scanning, which superblock, how strict. */
struct btrfs_open_args {
	char *const *devices;   /* device or image paths named by the user */
	int ndevices;
	bool noscan;            /* do not look for other members with libblkid */
	u64 super_bytenr;       /* 0 = primary (64 KiB) */
	bool writable;          /* open devices read-write */
	bool partial;           /* keep going when trees are damaged (dump-tree, check) */
};

int btrfs_open_fs(const struct btrfs_open_args *args, struct btrfs_fs_info **out);
void btrfs_close_fs(struct btrfs_fs_info *fs);
const struct btrfs_super_block *btrfs_fs_super(const struct btrfs_fs_info *fs);
const struct btrfs_fs_geometry *btrfs_fs_geometry(const struct btrfs_fs_info *fs);

/*
 * The one function that turns disk bytes into a tree block: range and
 * alignment checks before allocating, chunk mapping, then for each mirror:
 * read, checksum, header (bytenr, fsid, level, owner, generation, first key),
 * tree-checker.  On success *out holds a verified block (free_extent_buffer).
 * On failure it returns -EIO/-EUCLEAN after one error naming the logical
 * address, the mirrors tried and the reason.
 */
int btrfs_read_tree_block(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			  struct extent_buffer **out);

/*
 * The tree-checker on one block in memory (no I/O): 0 when valid, -EUCLEAN
 * after printing "corrupt <leaf|node>: root=%llu block=%llu slot=%d, <reason>".
 */
int btrfs_check_tree_block(const struct btrfs_fs_geometry *geo, const struct extent_buffer *eb);

#endif

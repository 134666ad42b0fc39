/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mkfs --rootdir through the write engine: the copy (rootdir.c, file data
 * in rootdir-data.c) and the filesystem side it works on (rootdir-fs.c: transactions, subvolume
 * trees, default subvolume, qgroup counts, --shrink, the summary).
 */
#ifndef BTRFS_KIT_ROOTDIR_INTERNAL_H
#define BTRFS_KIT_ROOTDIR_INTERNAL_H

#include <dirent.h>
#include <sys/stat.h>
#include "mkfs/mkfs-layout.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/engine/tree-write.h"
#include "crypto/hash.h"

#define ROOTDIR_MAX_SUBVOLS 64

/* A subvolume --subvol made. */
struct rootdir_subvol {
	u64 id;
	u8 uuid[BTRFS_UUID_SIZE];
	u64 data_bytes;                /* its data extents (qgroup counts) */
};

struct rootdir_fs {
	const struct mkfs_config *cfg;
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;         /* the open transaction */
	u64 top_data_bytes;            /* data extents of the top-level subvolume */
	struct rootdir_subvol sv[ROOTDIR_MAX_SUBVOLS];
	int nr_sv;
	u64 default_subvol;            /* 0: the top level */
};

/* Commit fs->t; with restart, start the next one. */
int rootdir_fs_commit(struct rootdir_fs *f, bool restart);

/*
 * A new subvolume (trees 256, 257, ... in order) named name in directory
 * dir (DIR_INDEX index) of tree parent, type MKFS_SUBVOL_*: its tree, root
 * item, ROOT_REF and ROOT_BACKREF, uuid tree entry, qgroup items.
 */
int rootdir_fs_new_subvol(struct rootdir_fs *f, u64 parent, u64 dir, u64 index, const char *name, int type,
		     struct rootdir_subvol **out);

/*
 * The filesystem btrfs_make_fs() has just written (cfg->devs) filled with
 * cfg->rootdir through the write engine, committed every so often and at
 * the end; then --shrink; summary describes the result.  0 or -errno
 * (printed).
 */
int mkfs_fill_rootdir(const struct mkfs_config *cfg, struct mkfs_summary *summary);

/* Copy cfg->rootdir in (rootdir.c); the last transaction is left open. */
int rootdir_copy_tree(struct rootdir_fs *f);

/* ---- the copy (rootdir.c, rootdir-data.c) ---- */

#define ROOTDIR_MAX_INLINE 2048
#define ROOTDIR_IO_SIZE SZ_1M            /* read, checksum and write in pieces of this size */

/* An inode being copied; its INODE_ITEM is inserted when it is complete. */
struct rootdir_inode {
	u64 ino;
	u32 flags;                 /* BTRFS_INODE_* */
	struct stat st;
	u64 size;                  /* directories: sum of 2 * name lengths */
	u64 nbytes;
};

/* A copied file with more links in the source: its other names only add links. */
struct rootdir_link {
	dev_t src_dev;
	ino_t src_ino;
	u64 ino;
};

/* One tree being filled: the top-level subvolume or one made by --subvol. */
struct rootdir_tree {
	u64 root;                  /* tree id */
	u64 next_ino;
	u64 *data_bytes;           /* data extents of the tree (qgroups) */
	struct rootdir_link *links;
	size_t nr_links;
	size_t alloc_links;
	/* (dev, ino) -> index into links, open addressing */
	size_t *slots;
	size_t slots_cap;
};

/* A path named by an option, by (dev, ino). */
struct rootdir_mark {
	dev_t dev;
	ino_t ino;
	int type;                  /* --subvol: MKFS_SUBVOL_* */
	u32 flags;                 /* --inode-flags */
};

struct rootdir {
	struct rootdir_fs *fs;          /* the engine side: transaction, subvolumes */
	const struct mkfs_config *cfg;
	const struct btrfs_csum *csum;   /* the filesystem's, keyed with the key */
	struct btrfs_csum own_csum;      /* csum when the config has none (plain types) */
	u16 csum_size;
	struct rootdir_tree *cur;
	struct btrfs_wroot *root;  /* cur's root in fs->t, NULL until looked up */
	struct rootdir_mark *subvols;
	int nr_subvols;
	struct rootdir_mark *iflags;
	int nr_iflags;
	bool compress;
	struct btrfs_compressor comp;
	u8 *buf;                   /* ROOTDIR_IO_SIZE bytes */
	u8 *cbuf;                  /* compressed output, BTRFS_MAX_UNCOMPRESSED bytes */
	/* Small extents next to each other are written together: wlen bytes at wstart. */
	u8 *wbuf;                  /* ROOTDIR_IO_SIZE bytes */
	u64 wstart;
	u64 wlen;
	/* The data writer of the transaction, made again when a chunk is added. */
	struct btrfs_block_writer w;
	struct block_writer_device *wdevs;
	bool w_open;
	int w_bgs;
	/* Checksums of adjacent sectors not yet in the csum tree: csum_nr from csum_start. */
	u8 *csums;
	u64 csum_start;
	u32 csum_nr;
	u32 csum_max;
};

/* rootdir.c */
u64 rootdir_transid(const struct rootdir *rd);
/* An item into the tree being filled. */
int rootdir_insert(struct rootdir *rd, u64 objectid, u8 type, u64 offset, const void *data, u32 size);
/* Open name in directory dfd, not following a symlink: the fd, or -errno (printed, path named). */
int rootdir_open_child(int dfd, const char *name, const char *path, bool dir);
/* A stream over directory dfd, or NULL with dfd closed and *ret set (printed). */
DIR *rootdir_open_dir_stream(int dfd, const char *path, int *ret);

/* rootdir-data.c */
/* The data of regular file fd (named path in messages): extents, checksums, in->size/nbytes/flags. */
int rootdir_copy_regular(struct rootdir *rd, int fd, const char *path, struct rootdir_inode *in);
/* An inline extent of len bytes (ram bytes uncompressed) at offset 0 of in. */
int rootdir_add_inline(struct rootdir *rd, struct rootdir_inode *in, const u8 *data, u32 len, u64 ram, int compress);
/* The pending checksum run into the csum tree. */
int rootdir_flush_csums(struct rootdir *rd);
/* Pending data out, the writer flushed and released (before a commit). */
int rootdir_close_writer(struct rootdir *rd);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mkfs --rootdir through the write engine: the copy (rootdir.c) and the
 * filesystem side it works on (rootdir-fs.c: transactions, subvolume
 * trees, default subvolume, qgroup counts, --shrink, the summary).
 */
#ifndef BTRFS_KIT_ROOTDIR_INTERNAL_H
#define BTRFS_KIT_ROOTDIR_INTERNAL_H

#include "kernel-shared/mkfs-layout.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/compress.h"
#include "crypto/hash.h"

#define RD_MAX_SUBVOLS 64

/* A subvolume --subvol made. */
struct rd_subvol {
	u64 id;
	u8 uuid[BTRFS_UUID_SIZE];
	u64 data_bytes;                /* its data extents (qgroup counts) */
};

struct rd_fs {
	const struct mkfs_config *cfg;
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;         /* the open transaction */
	u64 top_data_bytes;            /* data extents of the top-level subvolume */
	struct rd_subvol sv[RD_MAX_SUBVOLS];
	int nr_sv;
	u64 default_subvol;            /* 0: the top level */
};

/* Commit fs->t; with restart, start the next one. */
int rd_fs_commit(struct rd_fs *f, bool restart);

/*
 * A new subvolume (trees 256, 257, ... in order) named name in directory
 * dir (DIR_INDEX index) of tree parent, type MKFS_SUBVOL_*: its tree, root
 * item, ROOT_REF and ROOT_BACKREF, uuid tree entry, qgroup items.
 */
int rd_fs_new_subvol(struct rd_fs *f, u64 parent, u64 dir, u64 index, const char *name, int type,
		     struct rd_subvol **out);

/*
 * The filesystem btrfs_make_fs() has just written (cfg->devs) filled with
 * cfg->rootdir through the write engine, committed every so often and at
 * the end; then --shrink; summary describes the result.  0 or -errno
 * (printed).
 */
int mkfs_fill_rootdir(const struct mkfs_config *cfg, struct mkfs_summary *summary);

/* Copy cfg->rootdir in (rootdir.c); the last transaction is left open. */
int rd_copy_tree(struct rd_fs *f);

#endif

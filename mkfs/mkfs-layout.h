/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build a new filesystem: the chunks mkfs makes, every tree of a fresh
 * filesystem, the superblocks; written through the tree-block funnel.
 *
 * Chunks, as btrfs-progs 6.19 lays them out: first the temporary ones on
 * device 1 at 1 MiB (system 4 MiB, metadata or mixed 8 MiB, data 8 MiB, all
 * single); then, for each type whose profile is not single, a chunk of that
 * profile (see chunk-alloc.h) replacing the temporary one, which is dropped.
 *
 * Trees: root (1), extent (2), chunk (3), dev (4), fs (5) with the root
 * directory 256, csum (7), uuid (9) with the fs tree's uuid, free space
 * tree (10) unless disabled, block group tree (11) when enabled, data
 * reloc (-9), quota (8) with -O quota.  Every tree block is one generation;
 * extent items are skinny (METADATA_ITEM) unless skinny-metadata is off.
 *
 * Write order: old superblocks wiped first, then every block, flush, then
 * the superblocks of every device, flush.  An error before the last step
 * leaves no valid btrfs superblock behind.
 */
#ifndef BTRFS_KIT_MKFS_LAYOUT_H
#define BTRFS_KIT_MKFS_LAYOUT_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"

struct btrfs_csum;

struct mkfs_device {
	const char *path;
	int fd;
	u64 size;                        /* bytes the filesystem uses (dev_item.total_bytes) */
	u8 uuid[BTRFS_UUID_SIZE];        /* device uuid */
};

/* -u/--subvol TYPE:DIR */
enum { MKFS_SUBVOL_RW, MKFS_SUBVOL_RO, MKFS_SUBVOL_DEFAULT, MKFS_SUBVOL_DEFAULT_RO };

struct mkfs_subvol_arg {
	const char *path;                /* a directory inside rootdir */
	int type;                        /* MKFS_SUBVOL_* */
};

/* --inode-flags FLAGS:PATH */
struct mkfs_inode_flags_arg {
	const char *path;                /* a file or directory inside rootdir */
	u32 flags;                       /* BTRFS_INODE_NODATACOW, BTRFS_INODE_NODATASUM */
};

struct mkfs_config {
	struct mkfs_device *devs;
	int ndevs;
	u32 nodesize;
	u32 sectorsize;
	u16 csum_type;
	/*
	 * The checksum blocks and superblocks are written with, set up for
	 * csum_type (keyed types: with the key); NULL: csum_type is plain and
	 * set up where needed.
	 */
	const struct btrfs_csum *csum;
	const u8 *auth_key;              /* keyed types: the key, for the engine's open (--rootdir) */
	size_t auth_key_len;
	u64 incompat;                    /* BTRFS_FEATURE_INCOMPAT_* */
	u64 compat_ro;                   /* BTRFS_FEATURE_COMPAT_RO_* */
	u64 data_profile;                /* BTRFS_BLOCK_GROUP_* profile bit, 0 = single */
	u64 meta_profile;                /* also the system profile */
	bool mixed;
	bool quota;                      /* -O quota: quota tree, qgroup 0/5 */
	bool squota;                     /* -O squota: simple quotas */
	const char *label;
	u8 fsid[BTRFS_FSID_SIZE];
	u8 chunk_uuid[BTRFS_UUID_SIZE];
	u8 fs_uuid[BTRFS_UUID_SIZE];     /* uuid of the top-level subvolume */
	u64 now;                         /* seconds: inode and root times */
	u64 generation;                  /* transid of everything mkfs writes */
	const char *rootdir;             /* copy this directory tree into the fs tree, or NULL */
	const struct mkfs_subvol_arg *subvols;   /* with rootdir: directories made subvolumes */
	int nr_subvols;
	const struct mkfs_inode_flags_arg *inode_flags;
	int nr_inode_flags;
	int compress;                    /* BTRFS_COMPRESS_*: compress --rootdir file data */
	int compress_level;              /* 0: the default (3) */
	bool shrink;                     /* devs[0].size cut to the end of the last dev extent */
	bool reflink;                    /* --rootdir file data cloned (FICLONERANGE), never compressed */
	struct btrfs_write_log *write_log; /* every write and flush logged (dev-write.h), or NULL */
};

/* What was made, for the summary. */
struct mkfs_summary_chunk {
	u64 type;                        /* type and profile bits */
	u64 size;                        /* logical bytes */
};

struct mkfs_summary {
	struct mkfs_summary_chunk chunks[16];
	int nr_chunks;
	u64 total_bytes;
	u64 bytes_used;
	u64 dev_size[1];                 /* device 1's size as made (after --shrink) */
};

/* The smallest device size the layout of cfg fits on. */
u64 btrfs_mkfs_min_dev_size(const struct mkfs_config *cfg);

/*
 * What copying directory dir will take, over-estimated: bytes of file data
 * (sector aligned) and of metadata items.  0 or -errno (printed).
 */
int mkfs_rootdir_estimate(const char *dir, u32 sectorsize, u64 *data_bytes, u64 *meta_bytes);

/* Make the filesystem on cfg->devs (already open read-write).  0 or -errno (printed). */
int btrfs_make_fs(const struct mkfs_config *cfg, struct mkfs_summary *summary);

#endif

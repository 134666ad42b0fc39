/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write funnel for tree blocks and data: every tree block goes through
 * btrfs_write_tree_block(), which runs the tree-checker on it, puts the
 * checksum in last and writes every copy the chunk's profile asks for
 * (DUP/RAID1*: each stripe, RAID10: each sub stripe, RAID0/single: one).
 *
 * RAID5/6 chunks are written by full stripe rows (read-modify-write,
 * raid56-row.h): the bytes written into a row are collected in memory; a
 * data unit only partly written is read from its device first, and at
 * flush the units not written at all are read too, so that P (and Q) cover
 * what the disk holds.  A unit that cannot be read is rebuilt from the
 * others and the parity; when that is impossible the flush fails naming
 * the chunk and row, before anything is written.  Only the changed data
 * units and the parity are written.  fresh_space (mkfs: nothing else lives
 * in any row) skips the reads: the rest of a row is zero and every unit is
 * written.  Between the data and the parity writes a crash leaves the row's
 * parity stale (the RAID5/6 write hole, as in the kernel).
 *
 * Ordering: btrfs_block_writer_flush() writes pending rows and fsyncs every
 * device; only after it returns may a superblock that points at the blocks
 * be written.
 */
#ifndef BTRFS_KIT_TREE_WRITE_H
#define BTRFS_KIT_TREE_WRITE_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/volumes.h"
#include "crypto/hash.h"
#include "kernel-shared/format/csum.h"

struct block_writer_device {
	u64 devid;
	int fd;
	const char *path;
};

struct block_writer_row;

struct btrfs_block_writer {
	struct btrfs_fs_geometry geo;
	const struct btrfs_csum *csum;          /* the checksum blocks are written with */
	struct btrfs_csum own_csum;             /* csum when init was given none (plain types) */
	struct btrfs_chunk_tree_map map;
	struct block_writer_device *devs;
	int ndevs;
	struct block_writer_row *rows;          /* pending RAID5/6 rows */
	size_t nr_rows;
	size_t alloc_rows;
	size_t last_row;              /* the row written last (lookup hint) */
	bool fresh_space;             /* mkfs: rows hold nothing yet, no read-modify-write */
	u64 blocks_written;
	bool skip_checker;            /* only for tests of the checker itself */
	struct btrfs_write_log *log;  /* borrowed from the opener (dev-write.h), may be NULL */
};

/*
 * devs is borrowed (must outlive the writer).  csum: the filesystem's
 * checksum (borrowed; keyed types need it set up with the key), or NULL to
 * set up the plain type of geo.
 */
int btrfs_block_writer_init(struct btrfs_block_writer *w, const struct btrfs_fs_geometry *geo,
			    const struct btrfs_csum *csum, struct block_writer_device *devs,
			    int ndevs);
void btrfs_block_writer_release(struct btrfs_block_writer *w);

/* Make a chunk known to the writer (a CHUNK_ITEM as it goes on disk). */
int btrfs_block_writer_add_chunk(struct btrfs_block_writer *w, u64 logical,
				 const struct btrfs_chunk *chunk, u32 item_size);

/*
 * Check eb with the tree-checker, checksum it and write all its copies.
 * eb->start is the logical address.  On a failed check nothing is written
 * and -EUCLEAN is returned after the checker's message.
 */
int btrfs_write_tree_block(struct btrfs_block_writer *w, struct extent_buffer *eb);

/* Write len bytes at logical to every copy (data, no checks). */
int btrfs_write_logical(struct btrfs_block_writer *w, u64 logical, const void *buf, u64 len);
/*
 * The same bytes (buf, for the write log) cloned into every copy from file
 * src_fd at src_off (FICLONERANGE, mkfs --reflink): the devices must be
 * files on src_fd's btrfs, logical, src_off and len multiples of its block
 * size.  Not into RAID5/6 chunks (-EOPNOTSUPP).  0 or a negative errno
 * (printed: -EXDEV when the files are not on the same btrfs).
 */
int btrfs_clone_logical(struct btrfs_block_writer *w, u64 logical, int src_fd, u64 src_off, const void *buf,
			u64 len);

/* Complete (read) and write the pending RAID5/6 rows, then fsync every device. */
int btrfs_block_writer_flush(struct btrfs_block_writer *w);

struct btrfs_fs_info;
/*
 * Write eb's bytes as they are (checksummed already) over copy mirror
 * (1-based; 0 every copy) of the tree block at eb->start of an opened
 * filesystem, each device fsynced (tree-copy.c): the kernel's read repair,
 * for check --repair and the corruption tool.  Every copy is mapped before
 * one is written.  Not for RAID5/6 (-EOPNOTSUPP).
 */
int btrfs_write_tree_block_copies(struct btrfs_fs_info *fs, const struct extent_buffer *eb, int mirror);

#endif

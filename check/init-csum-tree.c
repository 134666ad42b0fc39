// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs check --init-csum-tree: the csum tree rebuilt from the data.
 *
 * What gets checksums is what the kernel checksums: the bytes the file
 * extents of inodes without NODATASUM reference.  Regular, uncompressed:
 * [disk_bytenr + offset, + num_bytes) (the written part of a preallocated
 * extent has checksums, the rest does not); compressed: the whole on-disk
 * extent.  Preallocated (unwritten) extents, holes and inline extents have
 * none.  Every live subvolume tree is walked (snapshots reach the same
 * extents: the ranges are merged; subvolumes being deleted are skipped),
 * the data read from the first mirror that can be read (as it is: nothing
 * can tell a good copy from a bad one now), and checksummed per sector with
 * the filesystem's algorithm, on two cores (check/csum-pipe.c).
 *
 * The old csum tree is emptied: its blocks freed, its leaves not even read
 * (they may be what is damaged), one empty leaf.  The new items,
 * (EXTENT_CSUM, EXTENT_CSUM, start), hold at most as many checksums as the
 * kernel puts in one (a leaf's data minus two item headers, one checksum
 * less) and never cross a chunk boundary.  All in one transaction: a read
 * error leaves the filesystem as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/check-extra.h"
#include "check/csum-pipe.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/volumes.h"

struct data_ranges {
	struct check_range *r;
	size_t r_nr, r_alloc;
	u64 ino;                    /* inode of the items being walked */
	bool ino_sums;              /* it has an INODE_ITEM without NODATASUM */
	u32 sectorsize;
};

static int data_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct data_ranges *d = arg;
	const struct btrfs_file_extent_item *fi;
	struct check_range *r;
	u64 start, len;

	if (key->type == BTRFS_INODE_ITEM_KEY) {
		d->ino = key->objectid;
		d->ino_sums = btrfs_leaf_item_size(eb, slot) >= sizeof(struct btrfs_inode_item) &&
			      !(btrfs_inode_flags(btrfs_leaf_item_ptr(eb, slot)) & BTRFS_INODE_NODATASUM);
		return 0;
	}
	if (key->type != BTRFS_EXTENT_DATA_KEY || key->objectid != d->ino || !d->ino_sums ||
	    btrfs_leaf_item_size(eb, slot) != sizeof(*fi))
		return 0;
	fi = btrfs_leaf_item_ptr(eb, slot);
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG || !btrfs_file_extent_disk_bytenr(fi))
		return 0;
	start = btrfs_file_extent_disk_bytenr(fi);
	len = btrfs_file_extent_disk_num_bytes(fi);
	if (btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE) {
		u64 offset = btrfs_file_extent_offset(fi), num = btrfs_file_extent_num_bytes(fi);

		if (offset > len || num > len - offset) {
			warning("inode %llu: file extent at %llu references [%llu +%llu) beyond its extent %llu+%llu: no checksums",
				key->objectid, key->offset, start + offset, num, start, len);
			return 0;
		}
		start += offset;
		len = num;
	}
	if (!len || !IS_ALIGNED(start, (u64)d->sectorsize) || !IS_ALIGNED(len, (u64)d->sectorsize) ||
	    start + len < start) {
		warning("inode %llu: file extent at %llu references [%llu +%llu), not sector aligned: no checksums",
			key->objectid, key->offset, start, len);
		return 0;
	}
	r = CHECK_PUSH(d, r);
	if (!r)
		return -ENOMEM;
	r->start = start;
	r->end = start + len;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct check_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int subvol_ranges(struct check_ctx *ctx, const struct btrfs_tree_ref *tree, void *arg)
{
	int ret = check_for_each_item(ctx, tree, NULL, data_item, arg);

	if (ret < 0)
		error("subvolume %llu cannot be read: %s", tree->objectid, strerror(-ret));
	return ret;
}

/* Every range to checksum, sorted, overlaps and neighbours merged. */
static int collect_ranges(struct check_ctx *ctx, struct data_ranges *d)
{
	size_t i, n = 0;
	int ret;

	ret = check_for_each_subvol(ctx, subvol_ranges, d);
	if (ret < 0)
		return ret;
	check_sort(d->r, d->r_nr, sizeof(*d->r), cmp_range);
	for (i = 0; i < d->r_nr; i++) {
		if (n && d->r[i].start <= d->r[n - 1].end) {
			if (d->r[i].end > d->r[n - 1].end)
				d->r[n - 1].end = d->r[i].end;
			continue;
		}
		d->r[n++] = d->r[i];
	}
	d->r_nr = n;
	return 0;
}

/* The new csum items: one per job of the pipe, written in order. */
struct csum_writer {
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct btrfs_fs_info *fs;
	struct csum_pipe *pipe;
	u32 sectorsize;
	u16 csum_size;
	u32 max;                    /* checksums per item */
	u64 items, bytes;           /* what was written */
};

/* The item of a finished job: the checksums from the first mirror that could be read. */
static int write_item(struct csum_writer *w, const struct csum_job *job)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, job->start };
	u64 end = job->start + (u64)job->nsect * w->sectorsize;
	u32 size = job->nsect * (u32)w->csum_size;
	int ret;

	for (int m = 1; m <= job->mirrors && m != job->good_mirror; m++)
		warning("data [%llu %llu) mirror %d cannot be read: %s", job->start, end, m,
			job->msg[m - 1]);
	if (!job->good_mirror) {
		error("data [%llu %llu) cannot be read from any mirror: no csum tree written",
		      job->start, end);
		return -EIO;
	}
	ret = btrfs_insert_item(w->t, w->root, &key,
				job->digests + (size_t)(job->good_mirror - 1) * size, size);
	if (ret < 0) {
		error("cannot insert csum item (EXTENT_CSUM %llu) of %u checksums: %s", job->start,
		      job->nsect, strerror(-ret));
		return ret;
	}
	w->items++;
	w->bytes += (u64)job->nsect * w->sectorsize;
	return 0;
}

/* Write the items whose data is ready (all of them with drain), in order. */
static int finish_items(struct csum_writer *w, bool drain)
{
	struct csum_job *job;
	int ret;

	while ((job = csum_pipe_done(w->fs, w->pipe, drain))) {
		ret = write_item(w, job);
		csum_pipe_release(w->pipe, job);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* One merged range, cut into items: at most max checksums, never across a chunk boundary. */
static int sum_range(struct csum_writer *w, u64 pos, u64 end)
{
	while (pos < end) {
		const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&w->fs->chunks, pos);
		u64 n;
		int ret;

		if (!c) {
			error("data at %llu is in no chunk: no csum tree written", pos);
			return -EUCLEAN;
		}
		n = min_t(u64, min_t(u64, end, c->logical + c->length) - pos, (u64)w->max * w->sectorsize);
		ret = finish_items(w, false);
		if (ret < 0)
			return ret;
		if (!csum_pipe_submit(w->fs, w->pipe, pos, (u32)(n / w->sectorsize), true))
			return -ENOMEM;
		pos += n;
	}
	return 0;
}

static int rebuild(struct check_ctx *ctx, struct btrfs_trans *t, const struct data_ranges *d,
		   struct csum_writer *w)
{
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_CSUM_TREE_OBJECTID, &w->root);
	if (ret == -ENOENT)
		ret = btrfs_create_tree(t, BTRFS_CSUM_TREE_OBJECTID, &w->root);
	else if (ret == 0)
		ret = btrfs_empty_tree(t, w->root);   /* its leaves are not read: they may be bad */
	if (ret < 0) {
		error("checksum tree initialization failed: %s", strerror(-ret));
		return ret;
	}
	w->t = t;
	for (size_t i = 0; i < d->r_nr && ret == 0; i++)
		ret = sum_range(w, d->r[i].start, d->r[i].end);
	if (ret == 0)
		ret = finish_items(w, true);
	return ret;
}

int check_init_csum_tree(struct check_ctx *ctx)
{
	const struct btrfs_fs_geometry *geo = btrfs_fs_geometry(ctx->fs);
	struct data_ranges d = { .sectorsize = geo->sectorsize };
	struct csum_writer w = {
		.fs = ctx->fs,
		.sectorsize = geo->sectorsize,
		.csum_size = geo->csum_size,
		/* as the kernel: a leaf's data minus two item headers, in checksums, minus one */
		.max = (u32)((BTRFS_LEAF_DATA_SIZE(geo->nodesize) - 2 * sizeof(struct btrfs_item)) /
			     geo->csum_size) - 1,
	};
	struct btrfs_trans *t = NULL;
	int ret;

	printf("Reinitialize checksum tree\n");
	fflush(stdout);
	ret = collect_ranges(ctx, &d);
	if (ret == 0)
		ret = csum_pipe_open(ctx->fs, &w.pipe);
	if (ret == 0)
		ret = btrfs_start_transaction(ctx->fs, &t);
	if (ret == 0)
		ret = rebuild(ctx, t, &d, &w);
	if (t && ret < 0)
		btrfs_abort_transaction(t);
	else if (t) {
		/* with --repair: refused before writing when the repair that follows would refuse */
		if (ctx->opts && ctx->opts->repair)
			btrfs_trans_set_verdict(t, check_init_csum_verdict, ctx);
		ret = btrfs_commit_transaction(t);
	}
	csum_pipe_close(w.pipe);
	free(d.r);
	if (ret < 0) {
		error("checksum tree refilling failed: %s; the filesystem is as it was", strerror(-ret));
		return 1;
	}
	printf("Checksum tree rebuilt: %llu items, %llu bytes of data\n", w.items, w.bytes);
	fflush(stdout);
	return 0;
}

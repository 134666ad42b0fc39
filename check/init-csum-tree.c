// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs check --init-csum-tree: the csum tree rebuilt from the data.
 *
 * What gets checksums is what the kernel checksums: the bytes the file
 * extents of inodes without NODATASUM reference.  Regular, uncompressed:
 * [disk_bytenr + offset, + num_bytes) (the written part of a preallocated
 * extent has checksums, the rest does not); compressed: the whole on-disk
 * extent.  Preallocated (unwritten) extents, holes and inline extents have
 * none.  Every subvolume tree is walked (snapshots reach the same extents:
 * the ranges are merged), the data read from the first mirror that can be
 * read, and checksummed per sector with the filesystem's algorithm.
 *
 * The old csum tree is reset (its blocks freed, one empty leaf) and the new
 * items, (EXTENT_CSUM, EXTENT_CSUM, start), hold at most as many checksums
 * as the kernel puts in one (a leaf's data minus two item headers, one
 * checksum less) and never cross a chunk boundary.  All in one
 * transaction: a read error leaves the filesystem as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/check-extra.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/messages.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"
#include "crypto/hash.h"

#define READ_CHUNK (1U << 20)   /* data read and hashed per call */

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
		start += btrfs_file_extent_offset(fi);
		len = btrfs_file_extent_num_bytes(fi);
	}
	if (!len || !IS_ALIGNED(start, (u64)d->sectorsize) || !IS_ALIGNED(len, (u64)d->sectorsize)) {
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

/* The csum items being built: checksums of [start, start + nr sectors). */
struct csum_writer {
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct btrfs_fs_info *fs;
	u32 sectorsize;
	u16 csum_size;
	u32 max;                    /* checksums per item */
	u64 start;
	u32 nr;
	u8 *sums;                   /* max * csum_size */
	u8 *buf;                    /* READ_CHUNK bytes of data */
	const void **blocks;        /* READ_CHUNK / sectorsize sector pointers */
	u64 items, bytes;           /* what was written */
};

static int flush_item(struct csum_writer *w)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, w->start };
	int ret;

	if (!w->nr)
		return 0;
	ret = btrfs_insert_item(w->t, w->root, &key, w->sums, w->nr * (u32)w->csum_size);
	if (ret < 0) {
		error("cannot insert csum item (EXTENT_CSUM %llu) of %u checksums: %s", w->start, w->nr,
		      strerror(-ret));
		return ret;
	}
	w->start += (u64)w->nr * w->sectorsize;
	w->items++;
	w->bytes += (u64)w->nr * w->sectorsize;
	w->nr = 0;
	return 0;
}

/* Data [logical, logical + len) (one chunk) from the first mirror that reads. */
static int read_data(struct csum_writer *w, u64 logical, u32 len)
{
	int mirrors = btrfs_num_mirrors(w->fs, logical);
	char msg[256] = "maps to no chunk";

	for (int m = 1; m <= mirrors; m++) {
		if (btrfs_read_data_mirror(w->fs, logical, m, w->buf, len, msg, sizeof(msg)) == 0)
			return 0;
		warning("data [%llu %llu) mirror %d cannot be read: %s", logical, logical + len, m, msg);
	}
	error("data [%llu %llu) cannot be read from any mirror (%s): no csum tree written", logical,
	      logical + len, msg);
	return -EIO;
}

/* Checksums of one merged range, appended to the items (flushed when full or not contiguous). */
static int sum_range(struct csum_writer *w, u64 pos, u64 end)
{
	const struct btrfs_chunk_map *c;
	int ret;

	while (pos < end) {
		u64 chunk_end;
		u32 len, n, take;

		c = btrfs_chunk_lookup(&w->fs->chunks, pos);
		if (!c) {
			error("data at %llu is in no chunk: no csum tree written", pos);
			return -EUCLEAN;
		}
		chunk_end = c->logical + c->length;
		/* an item never spans two chunks, nor a gap */
		if (w->nr && (w->start + (u64)w->nr * w->sectorsize != pos || pos == c->logical)) {
			ret = flush_item(w);
			if (ret < 0)
				return ret;
		}
		if (!w->nr)
			w->start = pos;
		len = (u32)min_t(u64, min_t(u64, end, chunk_end) - pos, READ_CHUNK);
		ret = read_data(w, pos, len);
		if (ret < 0)
			return ret;
		n = len / w->sectorsize;
		for (u32 i = 0; i < n; i++)
			w->blocks[i] = w->buf + (size_t)i * w->sectorsize;
		for (u32 done = 0; done < n; done += take) {
			take = min_t(u32, n - done, w->max - w->nr);
			ret = hash_digest_batch(&w->fs->csum_ctx, w->blocks + done, take, w->sectorsize,
						w->sums + (size_t)w->nr * w->csum_size);
			if (ret < 0) {
				error("checksum of data at %llu failed: %s", pos, strerror(-ret));
				return ret;
			}
			w->nr += take;
			if (w->nr == w->max) {
				ret = flush_item(w);
				if (ret < 0)
					return ret;
			}
		}
		pos += len;
		if (pos == chunk_end && w->nr) {
			ret = flush_item(w);
			if (ret < 0)
				return ret;
		}
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
	w->fs = ctx->fs;
	for (size_t i = 0; i < d->r_nr; i++) {
		ret = sum_range(w, d->r[i].start, d->r[i].end);
		if (ret < 0)
			return ret;
	}
	return flush_item(w);
}

int check_init_csum_tree(struct check_ctx *ctx)
{
	const struct btrfs_fs_geometry *geo = btrfs_fs_geometry(ctx->fs);
	struct data_ranges d = { .sectorsize = geo->sectorsize };
	struct csum_writer w = {
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
	w.sums = malloc((size_t)w.max * w.csum_size);
	w.buf = malloc(READ_CHUNK);
	w.blocks = malloc(READ_CHUNK / w.sectorsize * sizeof(*w.blocks));
	ret = w.sums && w.buf && w.blocks ? 0 : -ENOMEM;
	if (ret == 0)
		ret = collect_ranges(ctx, &d);
	if (ret == 0)
		ret = btrfs_start_transaction(ctx->fs, &t);
	if (ret == 0)
		ret = rebuild(ctx, t, &d, &w);
	if (t && ret < 0)
		btrfs_abort_transaction(t);
	else if (t)
		ret = btrfs_commit_transaction(t);
	free(w.sums);
	free(w.buf);
	free(w.blocks);
	free(d.r);
	if (ret < 0) {
		error("checksum tree refilling failed: %s; the filesystem is as it was", strerror(-ret));
		return 1;
	}
	printf("Checksum tree rebuilt: %llu items, %llu bytes of data\n", w.items, w.bytes);
	fflush(stdout);
	return 0;
}

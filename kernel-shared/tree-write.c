// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block and data writes through the chunk map; see tree-write.h.
 */
#include <stdlib.h>
#include <unistd.h>
#include "kernel-shared/tree-write.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"

struct bw_row {
	const struct btrfs_chunk_map *chunk;
	u64 start;                    /* logical start of the row */
	u8 *buf;                      /* nr_data * BTRFS_STRIPE_LEN bytes */
};

int btrfs_block_writer_init(struct btrfs_block_writer *w, const struct btrfs_fs_geometry *geo,
			    struct bw_device *devs, int ndevs)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->geo = *geo;
	w->devs = devs;
	w->ndevs = ndevs;
	ret = hash_ctx_init(&w->csum, (enum hash_alg)geo->csum_type, NULL, 0);
	if (ret < 0)
		error("cannot set up checksum type %u", geo->csum_type);
	return ret;
}

void btrfs_block_writer_release(struct btrfs_block_writer *w)
{
	for (size_t i = 0; i < w->nr_rows; i++)
		free(w->rows[i].buf);
	free(w->rows);
	btrfs_chunk_tree_map_free(&w->map);
	hash_ctx_release(&w->csum);
	memset(w, 0, sizeof(*w));
}

int btrfs_block_writer_add_chunk(struct btrfs_block_writer *w, u64 logical,
				 const struct btrfs_chunk *chunk, u32 item_size)
{
	return btrfs_add_chunk(&w->map, logical, chunk, item_size, w->geo.sectorsize);
}

static struct bw_device *find_dev(struct btrfs_block_writer *w, u64 devid)
{
	for (int i = 0; i < w->ndevs; i++)
		if (w->devs[i].devid == devid)
			return &w->devs[i];
	return NULL;
}

static int write_dev(struct btrfs_block_writer *w, u64 devid, u64 physical, const void *buf, u64 len)
{
	struct bw_device *d = find_dev(w, devid);
	const u8 *p = buf;

	if (!d || d->fd < 0) {
		error("write to devid %llu: device not open", (unsigned long long)devid);
		return -ENODEV;
	}
	while (len) {
		ssize_t n = pwrite(d->fd, p, len, physical);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno(-errno, "write of %llu bytes at %llu on %s",
				    (unsigned long long)len, (unsigned long long)physical, d->path);
			return -EIO;
		}
		if (n == 0) {
			error("short write at %llu on %s", (unsigned long long)physical, d->path);
			return -EIO;
		}
		p += n;
		len -= n;
		physical += n;
	}
	return 0;
}

static struct bw_row *get_row(struct btrfs_block_writer *w, const struct btrfs_chunk_map *c, u64 start)
{
	size_t rowlen = (size_t)btrfs_chunk_data_stripes(c) * c->stripe_len;
	struct bw_row *r;

	for (size_t i = 0; i < w->nr_rows; i++)
		if (w->rows[i].chunk == c && w->rows[i].start == start)
			return &w->rows[i];
	if (w->nr_rows == w->alloc_rows) {
		size_t n = w->alloc_rows ? w->alloc_rows * 2 : 16;
		struct bw_row *nr = realloc(w->rows, n * sizeof(*nr));

		if (!nr)
			return NULL;
		w->rows = nr;
		w->alloc_rows = n;
	}
	r = &w->rows[w->nr_rows];
	r->chunk = c;
	r->start = start;
	r->buf = calloc(1, rowlen);
	if (!r->buf)
		return NULL;
	w->nr_rows++;
	return r;
}

int btrfs_write_logical(struct btrfs_block_writer *w, u64 logical, const void *buf, u64 len)
{
	const u8 *p = buf;

	while (len) {
		const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&w->map, logical);
		u64 piece = len;
		int ret;

		if (!c) {
			error("write at logical %llu: no chunk maps it", (unsigned long long)logical);
			return -EINVAL;
		}
		if (logical + piece > c->logical + c->length)
			piece = c->logical + c->length - logical;
		if (c->type & BTRFS_BLOCK_GROUP_RAID56_MASK) {
			u64 rowlen = (u64)btrfs_chunk_data_stripes(c) * c->stripe_len;
			u64 start = c->logical + (logical - c->logical) / rowlen * rowlen;
			struct bw_row *r;

			if (logical + piece > start + rowlen)
				piece = start + rowlen - logical;
			r = get_row(w, c, start);
			if (!r)
				return -ENOMEM;
			memcpy(r->buf + (logical - start), p, piece);
		} else {
			int mirrors = btrfs_chunk_num_mirrors(c);
			u64 done = piece;

			for (int m = 1; m <= mirrors; m++) {
				struct btrfs_io_stripe io;

				ret = btrfs_chunk_map_one(c, logical, m, &io);
				if (ret < 0)
					return ret;
				if (io.len < done)
					done = io.len;
			}
			piece = done;
			for (int m = 1; m <= mirrors; m++) {
				struct btrfs_io_stripe io;

				ret = btrfs_chunk_map_one(c, logical, m, &io);
				if (ret < 0)
					return ret;
				ret = write_dev(w, io.devid, io.physical, p, piece);
				if (ret < 0)
					return ret;
			}
		}
		p += piece;
		logical += piece;
		len -= piece;
	}
	return 0;
}

int btrfs_write_tree_block(struct btrfs_block_writer *w, struct extent_buffer *eb)
{
	u8 csum[HASH_MAX_DIGEST];
	int ret;

	if (!w->skip_checker) {
		ret = btrfs_check_tree_block(&w->geo, eb);
		if (ret < 0) {
			error("refusing to write tree block %llu: it fails the tree-checker",
			      (unsigned long long)eb->start);
			return ret;
		}
	}
	memset(eb->data, 0, BTRFS_CSUM_SIZE);
	ret = hash_digest(&w->csum, eb->data + BTRFS_CSUM_SIZE, eb->len - BTRFS_CSUM_SIZE, csum);
	if (ret < 0)
		return ret;
	memcpy(eb->data, csum, w->geo.csum_size);
	ret = btrfs_write_logical(w, eb->start, eb->data, eb->len);
	if (ret == 0)
		w->blocks_written++;
	return ret;
}

static u8 gf_mul2(u8 x)
{
	return (u8)((x << 1) ^ ((x & 0x80) ? 0x1d : 0));
}

void btrfs_raid6_gen_pq(int n, size_t len, const u8 *const *data, u8 *p, u8 *q)
{
	for (size_t b = 0; b < len; b++) {
		u8 pp = 0, qq = 0;

		/* Horner: Q = sum of g^i * D_i with g = 2 in GF(2^8) mod 0x11d. */
		for (int i = n - 1; i >= 0; i--) {
			pp ^= data[i][b];
			qq = gf_mul2(qq) ^ data[i][b];
		}
		p[b] = pp;
		if (q)
			q[b] = qq;
	}
}

static int flush_row(struct btrfs_block_writer *w, struct bw_row *r)
{
	const struct btrfs_chunk_map *c = r->chunk;
	int ndata = btrfs_chunk_data_stripes(c);
	int npar = c->num_stripes - ndata;
	struct btrfs_io_stripe io[BTRFS_MAX_MIRRORS + 256];
	const u8 *units[256];
	u8 *p, *q = NULL;
	int n, ret = 0;

	if (ndata > 256 || c->num_stripes > (int)ARRAY_SIZE(io))
		return -EINVAL;
	n = btrfs_chunk_map_parity(c, r->start, io, ARRAY_SIZE(io));
	if (n < 0)
		return n;
	if (n != ndata + npar) {
		error("chunk %llu: parity map has %d entries, expected %d",
		      (unsigned long long)c->logical, n, ndata + npar);
		return -EINVAL;
	}
	p = calloc(npar, c->stripe_len);
	if (!p)
		return -ENOMEM;
	if (npar > 1)
		q = p + c->stripe_len;
	for (int i = 0; i < ndata; i++)
		units[i] = r->buf + (size_t)i * c->stripe_len;
	btrfs_raid6_gen_pq(ndata, c->stripe_len, units, p, q);
	for (int i = 0; i < n; i++) {
		const u8 *src = i < ndata ? units[i] : (i == ndata ? p : q);

		ret = write_dev(w, io[i].devid, io[i].physical, src, c->stripe_len);
		if (ret < 0)
			break;
	}
	free(p);
	return ret;
}

int btrfs_block_writer_flush(struct btrfs_block_writer *w)
{
	int ret = 0;

	for (size_t i = 0; i < w->nr_rows && !ret; i++)
		ret = flush_row(w, &w->rows[i]);
	for (size_t i = 0; i < w->nr_rows; i++)
		free(w->rows[i].buf);
	w->nr_rows = 0;
	if (ret < 0)
		return ret;
	for (int i = 0; i < w->ndevs; i++) {
		if (w->devs[i].fd >= 0 && fsync(w->devs[i].fd) < 0) {
			error_errno(-errno, "fsync of %s", w->devs[i].path);
			return -EIO;
		}
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block and data writes through the chunk map; see tree-write.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/engine/raid56-row.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/raid6.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/growable-array.h"

struct block_writer_row {
	const struct btrfs_chunk_map *chunk;
	struct raid56_row row;
};

int btrfs_block_writer_init(struct btrfs_block_writer *w, const struct btrfs_fs_geometry *geo,
			    const struct btrfs_csum *csum, struct block_writer_device *devs,
			    int ndevs)
{
	int ret = 0;

	memset(w, 0, sizeof(*w));
	w->geo = *geo;
	w->devs = devs;
	w->ndevs = ndevs;
	w->csum = csum;
	if (!csum) {
		ret = btrfs_csum_setup(&w->own_csum, geo->csum_type, NULL, 0);
		w->csum = &w->own_csum;
	}
	if (ret == 0 && w->csum->keyed && !w->csum->have_key)
		ret = -ENOKEY;
	if (ret < 0)
		error("cannot set up checksum type %u for writing: %s", geo->csum_type,
		      ret == -ENOKEY ? "the type needs the key" : strerror(-ret));
	return ret;
}

void btrfs_block_writer_release(struct btrfs_block_writer *w)
{
	for (size_t i = 0; i < w->nr_rows; i++)
		raid56_row_release(&w->rows[i].row);
	free(w->rows);
	btrfs_chunk_tree_map_free(&w->map);
	if (w->csum == &w->own_csum)
		btrfs_csum_release(&w->own_csum);
	memset(w, 0, sizeof(*w));
}

int btrfs_block_writer_add_chunk(struct btrfs_block_writer *w, u64 logical,
				 const struct btrfs_chunk *chunk, u32 item_size)
{
	return btrfs_add_chunk(&w->map, logical, chunk, item_size, w->geo.sectorsize);
}

static struct block_writer_device *find_dev(struct btrfs_block_writer *w, u64 devid)
{
	for (int i = 0; i < w->ndevs; i++)
		if (w->devs[i].devid == devid)
			return &w->devs[i];
	return NULL;
}

/* len bytes at physical of devid: buf written, or with src_fd >= 0 cloned from src_fd at src_off. */
static int put_dev(struct btrfs_block_writer *w, u64 devid, u64 physical, const void *buf, u64 len,
		   int src_fd, u64 src_off)
{
	struct block_writer_device *d = find_dev(w, devid);
	int ret;

	if (!d || d->fd < 0) {
		error("write to devid %llu: device not open", (unsigned long long)devid);
		return -ENODEV;
	}
	if (src_fd >= 0)
		ret = btrfs_dev_clone(w->log, d->fd, src_fd, src_off, buf, len, physical);
	else
		ret = btrfs_dev_write(w->log, d->fd, buf, len, physical);
	if (ret < 0) {
		error_errno(ret, "%s of %llu bytes at %llu on %s", src_fd >= 0 ? "clone" : "write",
			    (unsigned long long)len, (unsigned long long)physical, d->path);
		return src_fd >= 0 ? ret : -EIO;
	}
	return 0;
}

static int read_dev(struct btrfs_block_writer *w, u64 devid, u64 physical, void *buf, u64 len)
{
	struct block_writer_device *d = find_dev(w, devid);
	u8 *p = buf;

	if (!d || d->fd < 0)
		return -ENODEV;
	while (len) {
		ssize_t n = pread(d->fd, p, len, physical);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= n;
		physical += n;
	}
	return 0;
}

/* The device locations of a RAID5/6 row: data units, P, Q; n entries or < 0. */
static int map_row(const struct btrfs_chunk_map *c, u64 start, struct btrfs_io_stripe *io, int max)
{
	int ndata = btrfs_chunk_data_stripes(c);
	int n = btrfs_chunk_map_parity(c, start, io, max);

	if (n >= 0 && (ndata < 1 || n <= ndata || n > ndata + 2)) {
		error("chunk %llu: parity map of row %llu has %d entries for %d data units",
		      (unsigned long long)c->logical, (unsigned long long)start, n, ndata);
		return -EINVAL;
	}
	return n;
}

struct row_read_ctx {
	struct btrfs_block_writer *w;
	const struct btrfs_chunk_map *chunk;
};

/*
 * Data unit `unit` as the disk holds it, from the other units and the
 * parity when it cannot be read.  The others are read afresh from the disk
 * (the row in memory may already hold new bytes).
 */
static int rebuild_unit(struct row_read_ctx *x, const struct raid56_row *r, int unit, u8 *out)
{
	struct btrfs_io_stripe io[BTRFS_MAX_MIRRORS + 256];
	u8 *units[256 + 2] = { NULL };
	bool lost[256 + 2] = { false };
	int n, nlost = 0, ret;
	u8 *space;

	n = map_row(x->chunk, r->start, io, ARRAY_SIZE(io));
	if (n < 0)
		return n;
	space = malloc((size_t)n * r->unit_len);
	if (!space)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		units[i] = space + (size_t)i * r->unit_len;
		lost[i] = read_dev(x->w, io[i].devid, io[i].physical, units[i], r->unit_len) < 0;
		nlost += lost[i];
	}
	ret = raid56_rebuild_units(r->ndata, n - r->ndata, r->unit_len, units, lost);
	if (ret < 0)
		error("chunk %llu, stripe row %llu: data unit %d cannot be read and %d of its %d units are unreadable; not writing parity over it",
		      (unsigned long long)x->chunk->logical, (unsigned long long)r->start, unit,
		      nlost, n);
	else
		memcpy(out, units[unit], r->unit_len);
	free(space);
	return ret;
}

static int read_row_unit(void *ctx, const struct raid56_row *r, int unit, u8 *out)
{
	struct row_read_ctx *x = ctx;
	struct btrfs_io_stripe io[BTRFS_MAX_MIRRORS + 256];
	int n = map_row(x->chunk, r->start, io, ARRAY_SIZE(io));

	if (n < 0)
		return n;
	if (unit >= r->ndata || unit >= n)
		return -EINVAL;
	if (read_dev(x->w, io[unit].devid, io[unit].physical, out, r->unit_len) == 0)
		return 0;
	warning("chunk %llu, stripe row %llu: data unit %d unreadable on devid %llu at %llu, rebuilding it from parity",
		(unsigned long long)x->chunk->logical, (unsigned long long)r->start, unit,
		(unsigned long long)io[unit].devid, (unsigned long long)io[unit].physical);
	return rebuild_unit(x, r, unit, out);
}

static struct block_writer_row *find_row(struct btrfs_block_writer *w, const struct btrfs_chunk_map *c, u64 start)
{
	/* writes come in address order mostly: the last row used first */
	if (w->last_row < w->nr_rows && w->rows[w->last_row].chunk == c &&
	    w->rows[w->last_row].row.start == start)
		return &w->rows[w->last_row];
	for (size_t i = 0; i < w->nr_rows; i++) {
		if (w->rows[i].chunk == c && w->rows[i].row.start == start) {
			w->last_row = i;
			return &w->rows[i];
		}
	}
	return NULL;
}

static struct block_writer_row *get_row(struct btrfs_block_writer *w, const struct btrfs_chunk_map *c, u64 start)
{
	int ndata = btrfs_chunk_data_stripes(c);
	struct block_writer_row *r = find_row(w, c, start);
	int ret;

	if (r)
		return r;
	if (ARRAY_GROW(w->rows, w->nr_rows, w->alloc_rows))
		return NULL;
	r = &w->rows[w->nr_rows];
	r->chunk = c;
	ret = raid56_row_init(&r->row, start, ndata, c->num_stripes - ndata, (u32)c->stripe_len,
			      w->fresh_space);
	if (ret < 0) {
		error("chunk %llu: cannot set up stripe row %llu (%d data units of %llu bytes)",
		      (unsigned long long)c->logical, (unsigned long long)start, ndata,
		      (unsigned long long)c->stripe_len);
		return NULL;
	}
	w->last_row = w->nr_rows++;
	return r;
}

/*
 * Write the data units of row start of chunk c that write[] selects (NULL:
 * all) and the parity of all of them; units[] holds every data unit.
 */
static int write_row(struct btrfs_block_writer *w, const struct btrfs_chunk_map *c, u64 start,
		     const u8 *const *units, const bool *write)
{
	struct btrfs_io_stripe io[BTRFS_MAX_MIRRORS + 256];
	int ndata = btrfs_chunk_data_stripes(c);
	size_t unit = c->stripe_len;
	u8 *p, *q = NULL;
	int n, ret = 0;

	n = map_row(c, start, io, ARRAY_SIZE(io));
	if (n < 0)
		return n;
	p = malloc((size_t)(n - ndata) * unit);
	if (!p)
		return -ENOMEM;
	if (n - ndata > 1)
		q = p + unit;
	raid6_gen_pq(ndata, unit, units, p, q);
	for (int i = 0; i < n && ret == 0; i++) {
		if (i < ndata && write && !write[i])
			continue;
		ret = put_dev(w, io[i].devid, io[i].physical,
				i < ndata ? units[i] : (i == ndata ? p : q), unit, -1, 0);
	}
	free(p);
	return ret;
}

/*
 * The part of [logical, logical + *piece) inside one RAID5/6 row: into the
 * row's buffer, or, a whole row with nothing pending for it on an existing
 * filesystem, straight to the disks with its parity (no read, no copy).
 * *piece is cut to the row's end.
 */
static int write_raid56_piece(struct btrfs_block_writer *w, const struct btrfs_chunk_map *c,
			      u64 logical, const u8 *p, u64 *piece)
{
	int ndata = btrfs_chunk_data_stripes(c);
	u64 rowlen = (u64)ndata * c->stripe_len;
	u64 start = c->logical + (logical - c->logical) / rowlen * rowlen;
	struct block_writer_row *r;

	if (logical + *piece > start + rowlen)
		*piece = start + rowlen - logical;
	/* not with fresh_space: a later part-row write would zero this row's other units */
	if (!w->fresh_space && logical == start && *piece == rowlen && ndata <= 255 &&
	    !find_row(w, c, start)) {
		const u8 *units[255];

		for (int i = 0; i < ndata; i++)
			units[i] = p + (size_t)i * c->stripe_len;
		return write_row(w, c, start, units, NULL);
	}
	r = get_row(w, c, start);
	if (!r)
		return -ENOMEM;
	return raid56_row_write(&r->row, logical - start, p, *piece, read_row_unit,
				&(struct row_read_ctx){ w, c });
}

/* btrfs_write_logical(), or with src_fd >= 0 btrfs_clone_logical(). */
static int put_logical(struct btrfs_block_writer *w, u64 logical, const void *buf, u64 len, int src_fd,
		       u64 src_off)
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
		if (btrfs_raid_has_parity(c->type) && src_fd >= 0) {
			error("cannot clone data into RAID5/6 chunk %llu: its parity must be computed (write it instead)",
			      (unsigned long long)c->logical);
			return -EOPNOTSUPP;
		} else if (btrfs_raid_has_parity(c->type)) {
			ret = write_raid56_piece(w, c, logical, p, &piece);
			if (ret < 0)
				return ret;
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
				ret = put_dev(w, io.devid, io.physical, p, piece, src_fd, src_off);
				if (ret < 0)
					return ret;
			}
		}
		p += piece;
		logical += piece;
		src_off += piece;
		len -= piece;
	}
	return 0;
}

int btrfs_write_logical(struct btrfs_block_writer *w, u64 logical, const void *buf, u64 len)
{
	return put_logical(w, logical, buf, len, -1, 0);
}

int btrfs_clone_logical(struct btrfs_block_writer *w, u64 logical, int src_fd, u64 src_off, const void *buf,
			u64 len)
{
	return put_logical(w, logical, buf, len, src_fd, src_off);
}

int btrfs_write_tree_block(struct btrfs_block_writer *w, struct extent_buffer *eb)
{
	u8 csum[BTRFS_CSUM_SIZE];
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
	ret = btrfs_csum_compute(w->csum, eb->data + BTRFS_CSUM_SIZE, eb->len - BTRFS_CSUM_SIZE, csum);
	if (ret < 0)
		return ret;
	memcpy(eb->data, csum, w->geo.csum_size);
	ret = btrfs_write_logical(w, eb->start, eb->data, eb->len);
	if (ret == 0)
		w->blocks_written++;
	return ret;
}

static int flush_row(struct btrfs_block_writer *w, struct block_writer_row *r)
{
	const u8 *units[255];
	bool write[255];

	if (r->row.ndata > 255 || r->row.unit_len != r->chunk->stripe_len)
		return -EINVAL;
	for (int i = 0; i < r->row.ndata; i++) {
		units[i] = r->row.buf + (size_t)i * r->row.unit_len;
		write[i] = raid56_row_unit_to_write(&r->row, i);
	}
	return write_row(w, r->chunk, r->row.start, units, write);
}

int btrfs_block_writer_flush(struct btrfs_block_writer *w)
{
	int ret = 0;

	/* every read first: a row that cannot be completed stops the flush before any write */
	for (size_t i = 0; i < w->nr_rows && !ret; i++)
		ret = raid56_row_complete(&w->rows[i].row, read_row_unit,
					  &(struct row_read_ctx){ w, w->rows[i].chunk });
	for (size_t i = 0; i < w->nr_rows && !ret; i++)
		ret = flush_row(w, &w->rows[i]);
	for (size_t i = 0; i < w->nr_rows; i++)
		raid56_row_release(&w->rows[i].row);
	w->nr_rows = 0;
	w->last_row = 0;
	if (ret < 0)
		return ret;
	for (int i = 0; i < w->ndevs; i++) {
		if (w->devs[i].fd >= 0 && (ret = btrfs_dev_flush(w->log, w->devs[i].fd)) < 0) {
			error_errno(ret, "fsync of %s", w->devs[i].path);
			return -EIO;
		}
	}
	return 0;
}

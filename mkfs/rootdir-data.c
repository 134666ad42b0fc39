// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs --rootdir: the data of regular files (see rootdir.c).  Read once in
 * pieces of at most ROOTDIR_IO_SIZE, checksummed in batches (a run of checksums
 * of adjacent sectors becomes one csum item, as the kernel merges them),
 * written at once through a block writer that knows the transaction's
 * chunks (made again when a chunk is added); extents next to each other
 * are gathered into writes of up to ROOTDIR_IO_SIZE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <limits.h>
#include "mkfs/rootdir-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

#define ROOTDIR_MAX_EXTENT (128 * SZ_1M)
#define ROOTDIR_BATCH 64                 /* sectors checksummed per hash_digest_batch() call */

/* Gathered data out through the writer. */
static int flush_data(struct rootdir *rd)
{
	int ret = 0;

	if (rd->wlen)
		ret = btrfs_write_logical(&rd->w, rd->wstart, rd->wbuf, rd->wlen);
	rd->wlen = 0;
	return ret;
}

int rootdir_close_writer(struct rootdir *rd)
{
	int ret;

	if (!rd->w_open)
		return 0;
	ret = flush_data(rd);
	if (!ret)
		ret = btrfs_block_writer_flush(&rd->w);
	btrfs_block_writer_release(&rd->w);
	free(rd->wdevs);
	rd->wdevs = NULL;
	rd->w_open = false;
	return ret;
}

/* A writer that knows every chunk of the transaction. */
static int open_writer(struct rootdir *rd)
{
	struct btrfs_trans *t = rd->fs->t;
	int ret;

	if (rd->w_open && rd->w_bgs == btrfs_trans_nr_block_groups(t))
		return 0;
	ret = rootdir_close_writer(rd);
	if (ret < 0)
		return ret;
	ret = btrfs_trans_block_writer_init(t, &rd->w, &rd->wdevs);
	if (ret < 0) {
		if (rd->wdevs) {
			btrfs_block_writer_release(&rd->w);
			free(rd->wdevs);
			rd->wdevs = NULL;
		}
		return ret;
	}
	rd->w_open = true;
	rd->w_bgs = btrfs_trans_nr_block_groups(t);
	return 0;
}

/*
 * Write len bytes of file data at logical.  Pieces that continue the
 * previous one are gathered into one large write; a full piece
 * (ROOTDIR_IO_SIZE) goes out directly.
 */
static int write_data(struct rootdir *rd, u64 logical, const u8 *buf, u64 len)
{
	int ret = open_writer(rd);

	if (ret < 0)
		return ret;
	if (rd->wlen && (rd->wstart + rd->wlen != logical || rd->wlen + len > ROOTDIR_IO_SIZE)) {
		ret = flush_data(rd);
		if (ret < 0)
			return ret;
	}
	if (len >= ROOTDIR_IO_SIZE)
		return btrfs_write_logical(&rd->w, logical, buf, len);
	if (!rd->wlen)
		rd->wstart = logical;
	memcpy(rd->wbuf + rd->wlen, buf, len);
	rd->wlen += len;
	return 0;
}

/*
 * --reflink: the len bytes at logical (file data at file_off of fd, in buf
 * too; have of them inside the file) cloned from the file, whole sectors;
 * the last partial sector is written, as a clone may not end inside one.
 */
static int clone_data(struct rootdir *rd, int fd, const char *path, u64 logical, u64 file_off, const u8 *buf,
		      u64 len, u64 have)
{
	u64 whole = round_down(have, (u64)rd->cfg->sectorsize);
	int ret = open_writer(rd);

	if (!ret && whole)
		ret = btrfs_clone_logical(&rd->w, logical, fd, file_off, buf, whole);
	if (ret == -EXDEV)
		error("--reflink: cannot clone %s: source and image must be on the same btrfs", path);
	else if (ret == -EINVAL)
		error("--reflink: cannot clone %s: the btrfs holding it must have a block size that divides %u",
		      path, rd->cfg->sectorsize);
	if (!ret && whole < len)
		ret = write_data(rd, logical + whole, buf + whole, len - whole);
	return ret;
}

/* The pending checksum run into the csum tree. */
int rootdir_flush_csums(struct rootdir *rd)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, rd->csum_start };
	struct btrfs_wroot *csum;
	int ret;

	if (!rd->csum_nr)
		return 0;
	ret = btrfs_trans_get_root(rd->fs->t, BTRFS_CSUM_TREE_OBJECTID, &csum);
	if (!ret)
		ret = btrfs_insert_item(rd->fs->t, csum, &key, rd->csums, rd->csum_nr * rd->csum_size);
	if (ret < 0)
		error("cannot insert the checksums of data at %llu", (unsigned long long)rd->csum_start);
	rd->csum_nr = 0;
	return ret;
}

/*
 * Checksums of len bytes at logical.  A run that continues the pending one
 * grows it (as the kernel merges them), up to the largest item
 * btrfs-progs accepts: (leaf data - 2 item headers) / csum size - 1 entries.
 */
static int add_csums(struct rootdir *rd, u64 logical, const u8 *data, u64 len)
{
	const u32 ss = rd->cfg->sectorsize;
	u64 sectors = len / ss, done = 0;
	int ret;

	while (done < sectors) {
		u64 at = logical + done * ss, n;

		if (rd->csum_nr && (rd->csum_start + (u64)rd->csum_nr * ss != at ||
				    rd->csum_nr == rd->csum_max)) {
			ret = rootdir_flush_csums(rd);
			if (ret < 0)
				return ret;
		}
		if (!rd->csum_nr)
			rd->csum_start = at;
		n = min_t(u64, sectors - done, rd->csum_max - rd->csum_nr);
		/* The digests are the checksums (csum size = digest size), written in place. */
		for (u64 i = 0; i < n; i += ROOTDIR_BATCH) {
			const void *blocks[ROOTDIR_BATCH];
			size_t nb = min_t(u64, n - i, ROOTDIR_BATCH);

			for (size_t b = 0; b < nb; b++)
				blocks[b] = data + (done + i + b) * ss;
			ret = btrfs_csum_compute_batch(rd->csum, blocks, nb, ss,
						rd->csums + (rd->csum_nr + i) * rd->csum_size);
			if (ret < 0)
				return ret;
		}
		rd->csum_nr += n;
		done += n;
	}
	return 0;
}

/*
 * A data extent for len bytes of inode ino at file offset file_off (the
 * extent item in); unless fixed, *len may come back smaller.
 */
static int alloc_data(struct rootdir *rd, u64 ino, u64 file_off, u64 *len, bool fixed, u64 *logical)
{
	struct btrfs_trans *t = rd->fs->t;
	int ret;

	if (fixed)
		ret = btrfs_alloc_data_extent(t, *len, rd->cur->root, ino, file_off, logical);
	else
		ret = btrfs_alloc_data_extent_upto(t, len, rd->cur->root, ino, file_off, logical);
	if (!ret)
		*rd->cur->data_bytes += *len;
	return ret;
}

static int add_file_extent(struct rootdir *rd, u64 ino, u64 file_off, u64 disk_bytenr, u64 disk_len, u64 len,
			   int compress)
{
	struct btrfs_file_extent_item fi;

	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, rootdir_transid(rd));
	btrfs_set_file_extent_ram_bytes(&fi, len);
	btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_compression(&fi, compress);
	btrfs_set_file_extent_disk_bytenr(&fi, disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(&fi, disk_bytenr ? disk_len : 0);
	btrfs_set_file_extent_num_bytes(&fi, len);
	return rootdir_insert(rd, ino, BTRFS_EXTENT_DATA_KEY, file_off, &fi, sizeof(fi));
}

int rootdir_add_inline(struct rootdir *rd, struct rootdir_inode *in, const u8 *data, u32 len, u64 ram, int compress)
{
	u8 buf[BTRFS_FILE_EXTENT_INLINE_DATA_START + PATH_MAX];
	struct btrfs_file_extent_item *fi = (struct btrfs_file_extent_item *)buf;

	if (len > PATH_MAX)
		return -E2BIG;
	memset(buf, 0, BTRFS_FILE_EXTENT_INLINE_DATA_START);
	btrfs_set_file_extent_generation(fi, rootdir_transid(rd));
	btrfs_set_file_extent_ram_bytes(fi, ram);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	btrfs_set_file_extent_compression(fi, compress);
	memcpy(buf + BTRFS_FILE_EXTENT_INLINE_DATA_START, data, len);
	in->nbytes = ram;
	return rootdir_insert(rd, in->ino, BTRFS_EXTENT_DATA_KEY, 0, buf, BTRFS_FILE_EXTENT_INLINE_DATA_START + len);
}

static int read_full(int fd, u8 *buf, u64 len, u64 off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* have bytes of path at off into buf, zeros after them up to len; errors printed. */
static int read_piece(int fd, const char *path, u8 *buf, u64 have, u64 len, u64 off)
{
	int ret;

	memset(buf + have, 0, len - have);
	ret = read_full(fd, buf, have, off);
	if (ret < 0)
		error_errno(ret, "cannot read %s", path);
	return ret;
}

/*
 * Compress len bytes (zero padded to a sector) of rd->buf into rd->cbuf:
 * the compressed length when it saves at least one sector, else 0.
 */
static int try_compress(struct rootdir *rd, u64 len)
{
	const u32 ss = rd->cfg->sectorsize;
	u64 aligned = round_up(len, (u64)ss);
	int ret;

	if (aligned <= ss)
		return 0;
	ret = btrfs_compress_buf(&rd->comp, rd->buf, aligned, rd->cbuf, aligned - ss);
	if (ret == -E2BIG)
		return 0;
	return ret;
}

/* The data of regular file fd (named path in messages). */
int rootdir_copy_regular(struct rootdir *rd, int fd, const char *path, struct rootdir_inode *in)
{
	const u32 ss = rd->cfg->sectorsize;
	const bool no_holes = rd->cfg->incompat & BTRFS_FEATURE_INCOMPAT_NO_HOLES;
	const bool csums = !(in->flags & BTRFS_INODE_NODATASUM);
	bool compress = rd->compress && csums && !(in->flags & BTRFS_INODE_NODATACOW);
	u64 size = in->st.st_size, pos = 0, end_aligned = round_up(size, (u64)ss);
	int ret = 0;

	in->size = size;
	if (!size)
		return 0;
	if (size < ss && (size <= ROOTDIR_MAX_INLINE || compress)) {
		ret = read_full(fd, rd->buf, size, 0);  /* size < sectorsize <= ROOTDIR_IO_SIZE */
		if (ret < 0) {
			error_errno(ret, "cannot read %s", path);
			goto out;
		}
		if (compress) {
			int clen = btrfs_compress_buf(&rd->comp, rd->buf, size, rd->cbuf,
						      min_t(u64, size - 1, ROOTDIR_MAX_INLINE));

			if (clen > 0) {
				ret = rootdir_add_inline(rd, in, rd->cbuf, clen, size, rd->comp.type);
				goto out;
			}
			if (clen != -E2BIG) {
				ret = clen;
				goto out;
			}
			compress = false;
		}
		if (size <= ROOTDIR_MAX_INLINE)
			return rootdir_add_inline(rd, in, rd->buf, size, size, 0);
	}
	if (rd->cfg->reflink)
		compress = false;       /* as btrfs-progs: cloned extents stay as the source has them */
	while (pos < end_aligned) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;
		u64 start, stop;

		if (data < 0) {
			if (errno != ENXIO) {
				/* No SEEK_DATA here: the whole rest is data. */
				data = pos;
			} else {
				break;
			}
		}
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = size;
		start = round_down((u64)data, (u64)ss);
		stop = min_t(u64, round_up((u64)hole, (u64)ss), end_aligned);
		if (start < pos)
			start = pos;
		if (start > pos && !no_holes) {
			ret = add_file_extent(rd, in->ino, pos, 0, 0, start - pos, 0);
			if (ret < 0)
				goto out;
		}
		while (start < stop) {
			u64 len = min_t(u64, stop - start, compress ? BTRFS_MAX_UNCOMPRESSED : ROOTDIR_MAX_EXTENT);
			u64 valid = min_t(u64, len, size - start), logical, disk_len = len;
			int clen = 0;

			if (compress) {
				/* len <= 128 KiB <= ROOTDIR_IO_SIZE */
				ret = read_piece(fd, path, rd->buf, valid, len, start);
				if (ret < 0)
					goto out;
				clen = try_compress(rd, len);
				if (clen < 0) {
					ret = clen;
					goto out;
				}
				if (!clen && start == 0) {
					in->flags |= BTRFS_INODE_NOCOMPRESS;
					compress = false;
				}
				if (clen) {
					/* As btrfs-progs: COMPRESS marks a file with compressed extents. */
					in->flags |= BTRFS_INODE_COMPRESS;
					disk_len = round_up((u64)clen, (u64)ss);
					memset(rd->cbuf + clen, 0, disk_len - clen);
				}
			}
			if (clen) {
				ret = alloc_data(rd, in->ino, start, &disk_len, true, &logical);
			} else {
				ret = alloc_data(rd, in->ino, start, &len, false, &logical);
				disk_len = len;
				valid = min_t(u64, len, size - start);
			}
			if (ret < 0) {
				error("not enough space in the filesystem for %s (%llu bytes)", path,
				      (unsigned long long)size);
				goto out;
			}
			ret = add_file_extent(rd, in->ino, start, logical, disk_len, len,
					      clen ? rd->comp.type : 0);
			if (!ret && (clen || compress)) {
				/* Compressed in rd->cbuf, or did not compress: in rd->buf already. */
				const u8 *p = clen ? rd->cbuf : rd->buf;

				ret = add_csums(rd, logical, p, disk_len);
				if (!ret)
					ret = write_data(rd, logical, p, disk_len);
			} else {
				for (u64 done = 0; !ret && done < len; done += ROOTDIR_IO_SIZE) {
					u64 piece = min_t(u64, len - done, ROOTDIR_IO_SIZE);
					u64 have = done < valid ? min_t(u64, piece, valid - done) : 0;

					ret = read_piece(fd, path, rd->buf, have, piece, start + done);
					if (!ret && csums)
						ret = add_csums(rd, logical + done, rd->buf, piece);
					if (!ret && rd->cfg->reflink)
						ret = clone_data(rd, fd, path, logical + done, start + done, rd->buf, piece, have);
					else if (!ret)
						ret = write_data(rd, logical + done, rd->buf, piece);
				}
			}
			if (ret < 0)
				goto out;
			in->nbytes += len;
			start += len;
		}
		pos = stop;
	}
	if (pos < end_aligned && !no_holes)
		ret = add_file_extent(rd, in->ino, pos, 0, 0, end_aligned - pos, 0);
out:
	return ret;
}

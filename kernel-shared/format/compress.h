/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compression of file extents in btrfs' on-disk framing:
 *   zlib: one zlib stream (RFC 1950 header, deflate, adler32);
 *   zstd: one zstd frame (window at most 128 KiB: inputs are <= 128 KiB);
 *   lzo:  le32 total length (header included), then for every sector of
 *         input a le32 segment length and that segment's lzo1x data; a
 *         segment header never crosses a sector boundary (zero padding).
 * zstd and lzo exist when configure found libzstd / liblzo2.
 */
#ifndef BTRFS_KIT_COMPRESS_H
#define BTRFS_KIT_COMPRESS_H

#include "kernel-shared/format/kerncompat.h"

#define BTRFS_MAX_UNCOMPRESSED (128 * 1024)   /* input of one compressed extent */

struct btrfs_compressor {
	int type;                  /* BTRFS_COMPRESS_ZLIB, _LZO, _ZSTD */
	int level;
	u32 sectorsize;
	void *zstd_ctx;
	void *lzo_work;
	u8 *seg;                   /* lzo: one compressed segment */
};

/* Built into this binary? */
bool btrfs_compress_supported(int type);
/* Type by name ("zlib", "lzo", "zstd", "no"/"none" = 0), or -1. */
int btrfs_compress_type_by_name(const char *name);
/* The i-th name --compress takes ("no", "zlib", "lzo", "zstd"), NULL past the last. */
const char *btrfs_compress_name_at(size_t i);
const char *btrfs_compress_name(int type);
/* Level range of type: 0..0 for lzo, 1..9 zlib, 1..15 zstd; the default is 3. */
void btrfs_compress_level_range(int type, int *min, int *max);

/* 0 or -ENOMEM / -EOPNOTSUPP (type not built in) / -EINVAL (level). */
int btrfs_compressor_init(struct btrfs_compressor *c, int type, int level, u32 sectorsize);
void btrfs_compressor_release(struct btrfs_compressor *c);

/*
 * Compress len bytes (<= BTRFS_MAX_UNCOMPRESSED) into out: the compressed
 * length, or -E2BIG when the result would not fit in out_cap (give out_cap
 * smaller than len to refuse results that do not shrink), -EIO on a
 * library failure.
 */
int btrfs_compress_buf(struct btrfs_compressor *c, const u8 *in, u32 len, u8 *out, u32 out_cap);

/*
 * Decompress one extent of type (len bytes as stored) into out_len bytes;
 * the bytes produced or a negative errno (-EUCLEAN for a malformed stream).
 */
int btrfs_decompress_buf(int type, u32 sectorsize, const u8 *in, u32 len, u8 *out, u32 out_len);

/*
 * One whole zlib stream of exactly len bytes (btrfs-image's items): the
 * bytes it inflates to (at most out_cap, <= INT_MAX), or -ENODATA when the
 * input ends before the stream does (truncated), -E2BIG when it inflates to
 * more than out_cap, -EUCLEAN for bad data or bytes left after the stream's
 * end, -ENOMEM.
 */
int btrfs_zlib_inflate_exact(const u8 *in, u32 len, u8 *out, u32 out_cap);

/*
 * btrfs_zlib_inflate_exact() in bounded memory, for streams too large to
 * hold: the len bytes of the stream are read in pieces of at most in_cap
 * bytes by read_in(arg, in_buf, offset in the stream, n), and the output is
 * handed to put(arg, out_buf, n) in pieces of exactly out_cap bytes but the
 * last; at most max_out bytes in all.  Returns the bytes inflated, the
 * errors of btrfs_zlib_inflate_exact() (-E2BIG past max_out), or the first
 * negative value read_in or put returned (they say why themselves).
 */
struct btrfs_inflate_pieces {
	u8 *in_buf;
	u32 in_cap;
	u8 *out_buf;
	u32 out_cap;
	u64 max_out;
	int (*read_in)(void *arg, u8 *buf, u64 off, u32 n);
	int (*put)(void *arg, const u8 *out, u32 n);
	void *arg;
};
s64 btrfs_zlib_inflate_pieces(const struct btrfs_inflate_pieces *p, u32 len);

#endif

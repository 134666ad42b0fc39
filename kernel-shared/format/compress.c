// SPDX-License-Identifier: GPL-2.0
/*
 * Extent compression for mkfs --compress (and readers): see compress.h.
 */
#include <stdlib.h>
#include <strings.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif
#ifdef HAVE_LZO
#include <lzo/lzo1x.h>
#endif
#include "crypto/adler32.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/messages.h"

#define LZO_HDR 4

bool btrfs_compress_supported(int type)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return true;
#ifdef HAVE_LZO
	case BTRFS_COMPRESS_LZO:
		return true;
#endif
#ifdef HAVE_ZSTD
	case BTRFS_COMPRESS_ZSTD:
		return true;
#endif
	}
	return false;
}

/* The names mkfs --compress takes, by BTRFS_COMPRESS_* type. */
static const char *const compress_names[] = {
	[BTRFS_COMPRESS_NONE] = "no",
	[BTRFS_COMPRESS_ZLIB] = "zlib",
	[BTRFS_COMPRESS_LZO] = "lzo",
	[BTRFS_COMPRESS_ZSTD] = "zstd",
};

int btrfs_compress_type_by_name(const char *name)
{
	if (!strcasecmp(name, "none"))
		return BTRFS_COMPRESS_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(compress_names); i++)
		if (!strcasecmp(name, compress_names[i]))
			return (int)i;
	return -1;
}

const char *btrfs_compress_name_at(size_t i)
{
	return i < ARRAY_SIZE(compress_names) ? compress_names[i] : NULL;
}

const char *btrfs_compress_name(int type)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB: return "zlib";
	case BTRFS_COMPRESS_LZO: return "lzo";
	case BTRFS_COMPRESS_ZSTD: return "zstd";
	}
	return "none";
}

void btrfs_compress_level_range(int type, int *min, int *max)
{
	*min = *max = 0;
	if (type == BTRFS_COMPRESS_ZLIB) {
		*min = 1;
		*max = 9;
	} else if (type == BTRFS_COMPRESS_ZSTD) {
		*min = 1;
		*max = 15;
	}
}

int btrfs_compressor_init(struct btrfs_compressor *c, int type, int level, u32 sectorsize)
{
	int min, max;

	memset(c, 0, sizeof(*c));
	if (!btrfs_compress_supported(type))
		return -EOPNOTSUPP;
	btrfs_compress_level_range(type, &min, &max);
	if (!level && max)
		level = 3;
	if (level < min || level > max)
		return -EINVAL;
	c->type = type;
	c->level = level;
	c->sectorsize = sectorsize;
#ifdef HAVE_ZSTD
	if (type == BTRFS_COMPRESS_ZSTD) {
		c->zstd_ctx = ZSTD_createCCtx();
		if (!c->zstd_ctx)
			return -ENOMEM;
	}
#endif
#ifdef HAVE_LZO
	if (type == BTRFS_COMPRESS_LZO) {
		if (lzo_init() != LZO_E_OK)
			return -EIO;
		c->lzo_work = malloc(LZO1X_1_MEM_COMPRESS);
		/* Worst case of one sector: input + input / 16 + 64 + 3. */
		c->seg = malloc(sectorsize + sectorsize / 16 + 64 + 3);
		if (!c->lzo_work || !c->seg) {
			btrfs_compressor_release(c);
			return -ENOMEM;
		}
	}
#endif
	return 0;
}

void btrfs_compressor_release(struct btrfs_compressor *c)
{
#ifdef HAVE_ZSTD
	if (c->zstd_ctx)
		ZSTD_freeCCtx(c->zstd_ctx);
#endif
	free(c->lzo_work);
	free(c->seg);
	memset(c, 0, sizeof(*c));
}

static int zlib_compress_buf(int level, const u8 *in, u32 len, u8 *out, u32 out_cap)
{
	uLongf dlen = out_cap;
	int ret = compress2(out, &dlen, in, len, level);

	if (ret == Z_BUF_ERROR)
		return -E2BIG;
	if (ret != Z_OK)
		return ret == Z_MEM_ERROR ? -ENOMEM : -EIO;
	return (int)dlen;
}

#ifdef HAVE_LZO
static int lzo_compress_buf(struct btrfs_compressor *c, const u8 *in, u32 len, u8 *out, u32 out_cap)
{
	const u32 ss = c->sectorsize;
	u32 pos = LZO_HDR;

	if (out_cap < LZO_HDR)
		return -E2BIG;
	for (u32 off = 0; off < len; off += ss) {
		lzo_uint seg_len = 0;
		u32 n = min_t(u32, ss, len - off);
		u32 room = ss - pos % ss;

		if (lzo1x_1_compress(in + off, n, c->seg, &seg_len, c->lzo_work) != LZO_E_OK)
			return -EIO;
		if (room < LZO_HDR) {
			if (pos + room > out_cap)
				return -E2BIG;
			memset(out + pos, 0, room);
			pos += room;
		}
		if ((u64)pos + LZO_HDR + seg_len > out_cap)
			return -E2BIG;
		put_unaligned_le32((u32)seg_len, out + pos);
		memcpy(out + pos + LZO_HDR, c->seg, seg_len);
		pos += LZO_HDR + seg_len;
	}
	put_unaligned_le32(pos, out);
	return (int)pos;
}
#endif

int btrfs_compress_buf(struct btrfs_compressor *c, const u8 *in, u32 len, u8 *out, u32 out_cap)
{
	if (len > BTRFS_MAX_UNCOMPRESSED)
		return -EINVAL;
	switch (c->type) {
	case BTRFS_COMPRESS_ZLIB:
		return zlib_compress_buf(c->level, in, len, out, out_cap);
#ifdef HAVE_ZSTD
	case BTRFS_COMPRESS_ZSTD: {
		size_t r = ZSTD_compressCCtx(c->zstd_ctx, out, out_cap, in, len, c->level);

		if (ZSTD_isError(r))
			return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? -E2BIG : -EIO;
		return (int)r;
	}
#endif
#ifdef HAVE_LZO
	case BTRFS_COMPRESS_LZO:
		return lzo_compress_buf(c, in, len, out, out_cap);
#endif
	}
	return -EOPNOTSUPP;
}

/*
 * zlib streams (RFC 1950) are inflated raw (RFC 1951) between their 2-byte
 * header and 4-byte big-endian Adler-32 trailer, both checked here: the
 * checksum by crypto/adler32.c, several times faster than zlib's own.
 */
#define ZLIB_HEADER 2
#define ZLIB_TRAILER 4

/* Deflate, a window of at most 32 KiB, no preset dictionary, the check bits right. */
static bool zlib_header_ok(const u8 *in)
{
	return (in[0] & 0x0f) == Z_DEFLATED && in[0] >> 4 <= 7 && !(in[1] & 0x20) &&
	       ((in[0] << 8) | in[1]) % 31 == 0;
}

static int zlib_raw_init(z_stream *s)
{
	return inflateInit2(s, -MAX_WBITS) == Z_OK ? 0 : -ENOMEM;
}

/*
 * The one zlib inflate: *produced bytes into out; zlib's return code (the
 * header or the trailer's checksum wrong: Z_DATA_ERROR; the trailer cut
 * short: Z_BUF_ERROR), *left input unused after the trailer.
 */
static int zlib_inflate_once(const u8 *in, u32 len, u8 *out, u32 out_len, u32 *produced, u32 *left)
{
	z_stream s = { 0 };
	int ret;

	*produced = 0;
	*left = 0;
	if (len < ZLIB_HEADER)
		return Z_BUF_ERROR;
	if (!zlib_header_ok(in))
		return Z_DATA_ERROR;
	s.next_in = (Bytef *)in + ZLIB_HEADER;
	s.avail_in = len - ZLIB_HEADER;
	s.next_out = out;
	s.avail_out = out_len;
	if (zlib_raw_init(&s))
		return Z_MEM_ERROR;
	ret = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	*produced = out_len - s.avail_out;
	*left = s.avail_in;
	if (ret != Z_STREAM_END)
		return ret;
	if (s.avail_in < ZLIB_TRAILER)
		return Z_BUF_ERROR;
	*left = s.avail_in - ZLIB_TRAILER;
	if (get_unaligned_be32(s.next_in) != adler32_update(ADLER32_INIT, out, *produced))
		return Z_DATA_ERROR;
	return Z_STREAM_END;
}

/* An extent: its first out_len bytes are enough (a file extent may end before its stream). */
static int zlib_decompress_buf(const u8 *in, u32 len, u8 *out, u32 out_len)
{
	u32 produced, left;
	int ret = zlib_inflate_once(in, len, out, out_len, &produced, &left);

	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	if (ret != Z_STREAM_END && !(ret == Z_BUF_ERROR && produced == out_len))
		return -EUCLEAN;
	return (int)produced;
}

int btrfs_zlib_inflate_exact(const u8 *in, u32 len, u8 *out, u32 out_cap)
{
	u32 produced, left;
	int ret = zlib_inflate_once(in, len, out, out_cap, &produced, &left);

	switch (ret) {
	case Z_STREAM_END:
		return left ? -EUCLEAN : (int)produced;
	case Z_MEM_ERROR:
		return -ENOMEM;
	case Z_BUF_ERROR:
		return produced == out_cap ? -E2BIG : -ENODATA;
	default:
		return -EUCLEAN;
	}
}

/* The next byte of a pieces stream, reading more input as needed; -ENODATA at its end. */
static int pieces_byte(const struct btrfs_inflate_pieces *p, z_stream *s, u64 *in_off, u32 len)
{
	if (!s->avail_in) {
		u32 n = (u32)min_t(u64, p->in_cap, len - *in_off);
		int ret;

		if (!n)
			return -ENODATA;
		ret = p->read_in(p->arg, p->in_buf, *in_off, n);
		if (ret < 0)
			return ret;
		s->next_in = p->in_buf;
		s->avail_in = n;
		*in_off += n;
	}
	s->avail_in--;
	return *s->next_in++;
}

s64 btrfs_zlib_inflate_pieces(const struct btrfs_inflate_pieces *p, u32 len)
{
	z_stream s = { 0 };
	u64 in_off = 0, total = 0;
	u32 adler = ADLER32_INIT, trailer = 0;
	u8 header[ZLIB_HEADER];
	s64 ret = 0;
	int z = Z_OK;

	if (zlib_raw_init(&s))
		return -ENOMEM;
	for (int i = 0; ret >= 0 && i < ZLIB_HEADER; i++) {
		ret = pieces_byte(p, &s, &in_off, len);
		header[i] = (u8)ret;
	}
	if (ret >= 0 && !zlib_header_ok(header))
		ret = -EUCLEAN;
	while (ret >= 0 && z != Z_STREAM_END) {
		u32 filled;

		s.next_out = p->out_buf;
		s.avail_out = p->out_cap;
		/* fill the whole output piece, reading input as it is used up */
		for (;;) {
			if (!s.avail_in && in_off < len) {
				u32 n = (u32)min_t(u64, p->in_cap, len - in_off);

				ret = p->read_in(p->arg, p->in_buf, in_off, n);
				if (ret < 0)
					break;
				s.next_in = p->in_buf;
				s.avail_in = n;
				in_off += n;
			}
			z = inflate(&s, Z_NO_FLUSH);
			if (z != Z_OK || !s.avail_out || (!s.avail_in && in_off == len))
				break;
		}
		if (ret < 0)
			break;
		filled = p->out_cap - s.avail_out;
		if (z == Z_BUF_ERROR && !s.avail_in && in_off == len && s.avail_out) {
			ret = -ENODATA;         /* the input ended before the stream */
			break;
		}
		if (z != Z_OK && z != Z_STREAM_END && z != Z_BUF_ERROR) {
			ret = z == Z_MEM_ERROR ? -ENOMEM : -EUCLEAN;
			break;
		}
		if (total + filled > p->max_out) {
			ret = -E2BIG;
			break;
		}
		if (filled) {
			adler = adler32_update(adler, p->out_buf, filled);
			ret = p->put(p->arg, p->out_buf, filled);
			if (ret < 0)
				break;
		}
		total += filled;
	}
	for (int i = 0; ret >= 0 && i < ZLIB_TRAILER; i++) {
		ret = pieces_byte(p, &s, &in_off, len);
		trailer = trailer << 8 | (u8)ret;
	}
	if (ret >= 0 && (s.avail_in || in_off < len))
		ret = -EUCLEAN;                 /* bytes after the stream's end */
	if (ret >= 0 && trailer != adler)
		ret = -EUCLEAN;
	inflateEnd(&s);
	return ret < 0 ? ret : (s64)total;
}

#ifdef HAVE_LZO
static int lzo_decompress_buf(u32 ss, const u8 *in, u32 len, u8 *out, u32 out_len)
{
	u32 total, pos = LZO_HDR, done = 0;

	if (len < LZO_HDR)
		return -EUCLEAN;
	total = get_unaligned_le32(in);
	if (total > len || total < LZO_HDR)
		return -EUCLEAN;
	while (pos < total && done < out_len) {
		u32 seg;
		lzo_uint n = min_t(u32, ss, out_len - done);
		int r;

		if (ss - pos % ss < LZO_HDR)
			pos = round_up(pos, ss);
		if (pos + LZO_HDR > total)
			return -EUCLEAN;
		seg = get_unaligned_le32(in + pos);
		pos += LZO_HDR;
		if (seg > total - pos)
			return -EUCLEAN;
		r = lzo1x_decompress_safe(in + pos, seg, out + done, &n, NULL);
		if (r != LZO_E_OK && r != LZO_E_INPUT_NOT_CONSUMED)
			return -EUCLEAN;
		done += n;
		pos += seg;
	}
	return (int)done;
}
#endif

int btrfs_decompress_buf(int type, u32 sectorsize, const u8 *in, u32 len, u8 *out, u32 out_len)
{
	switch (type) {
	case BTRFS_COMPRESS_ZLIB:
		return zlib_decompress_buf(in, len, out, out_len);
#ifdef HAVE_ZSTD
	case BTRFS_COMPRESS_ZSTD: {
		ZSTD_DCtx *d = ZSTD_createDCtx();
		ZSTD_outBuffer ob = { out, out_len, 0 };
		ZSTD_inBuffer ib = { in, len, 0 };
		size_t r;

		if (!d)
			return -ENOMEM;
		do {
			r = ZSTD_decompressStream(d, &ob, &ib);
		} while (!ZSTD_isError(r) && r && ob.pos < ob.size && ib.pos < ib.size);
		ZSTD_freeDCtx(d);
		if (ZSTD_isError(r))
			return -EUCLEAN;
		return (int)ob.pos;
	}
#endif
#ifdef HAVE_LZO
	case BTRFS_COMPRESS_LZO:
		return lzo_decompress_buf(sectorsize, in, len, out, out_len);
#endif
	}
	(void)sectorsize;
	return -EOPNOTSUPP;
}

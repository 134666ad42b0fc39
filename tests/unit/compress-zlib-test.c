// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs_zlib_inflate_exact(): a whole stream inflates to its size; a stream
 * cut short, one with bytes after its end, one larger than the room and one
 * with bad data are each told apart.  The extent decompressor beside it
 * still accepts a stream that fills its output before the stream's end.
 * The checksum in the trailer is checked (ours, crypto/adler32.c), and
 * btrfs_zlib_inflate_pieces() gives the same answers in small pieces.
 */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/compress.h"

#define PLAIN 20000

static u8 plain[PLAIN], packed[PLAIN * 2], out[PLAIN + 64];
static u32 packed_len;

static void make_stream(void)
{
	uLongf n = sizeof(packed);

	for (u32 i = 0; i < PLAIN; i++)
		plain[i] = (u8)(i * 7 + i / 100);
	CHECK(compress2(packed, &n, plain, PLAIN, 9) == Z_OK);
	packed_len = (u32)n;
}

static void test_whole_stream(void)
{
	CHECK_EQ_U64(btrfs_zlib_inflate_exact(packed, packed_len, out, sizeof(out)), PLAIN);
	CHECK_MEM(out, plain, PLAIN);
	/* exactly the room it needs */
	CHECK_EQ_U64(btrfs_zlib_inflate_exact(packed, packed_len, out, PLAIN), PLAIN);
}

static void test_bad_streams(void)
{
	u8 *tail = malloc(packed_len + 1);

	CHECK(btrfs_zlib_inflate_exact(packed, packed_len - 5, out, sizeof(out)) == -ENODATA);
	CHECK(btrfs_zlib_inflate_exact(packed, packed_len, out, PLAIN - 1) == -E2BIG);
	memcpy(tail, packed, packed_len);
	tail[packed_len] = 0;
	CHECK(btrfs_zlib_inflate_exact(tail, packed_len + 1, out, sizeof(out)) == -EUCLEAN);
	tail[packed_len - 1] ^= 1;      /* the trailer's Adler-32 */
	CHECK(btrfs_zlib_inflate_exact(tail, packed_len, out, sizeof(out)) == -EUCLEAN);
	CHECK(btrfs_zlib_inflate_exact(tail, packed_len - 1, out, sizeof(out)) == -ENODATA);
	tail[packed_len - 1] ^= 1;
	tail[0] ^= 0xff;        /* the zlib header */
	CHECK(btrfs_zlib_inflate_exact(tail, packed_len, out, sizeof(out)) == -EUCLEAN);
	free(tail);
}

static void test_extent_prefix(void)
{
	CHECK_EQ_U64(btrfs_decompress_buf(BTRFS_COMPRESS_ZLIB, 4096, packed, packed_len, out, 4096), 4096);
	CHECK_MEM(out, plain, 4096);
}

/* The stream read 100 bytes at a time, put in pieces of 1000. */
struct pieces_run {
	const u8 *stream;
	u32 put;
};

static int read_piece(void *arg, u8 *buf, u64 off, u32 n)
{
	struct pieces_run *r = arg;

	CHECK(n <= 100);
	memcpy(buf, r->stream + off, n);
	return 0;
}

static int put_piece(void *arg, const u8 *o, u32 n)
{
	struct pieces_run *r = arg;

	CHECK(r->put + n <= PLAIN);
	if (r->put + n <= PLAIN)
		memcpy(out + r->put, o, n);
	r->put += n;
	return 0;
}

static s64 inflate_in_pieces(const u8 *stream, u32 len, u64 max_out)
{
	static u8 in_buf[100], out_buf[1000];
	struct pieces_run r = { .stream = stream };
	struct btrfs_inflate_pieces p = {
		.in_buf = in_buf, .in_cap = sizeof(in_buf), .out_buf = out_buf,
		.out_cap = sizeof(out_buf), .max_out = max_out, .read_in = read_piece,
		.put = put_piece, .arg = &r,
	};

	memset(out, 0, sizeof(out));
	return btrfs_zlib_inflate_pieces(&p, len);
}

static void test_pieces(void)
{
	u8 *copy = malloc(packed_len + 1);

	CHECK_EQ_U64(inflate_in_pieces(packed, packed_len, PLAIN), PLAIN);
	CHECK_MEM(out, plain, PLAIN);
	CHECK(inflate_in_pieces(packed, packed_len, PLAIN - 1) == -E2BIG);
	CHECK(inflate_in_pieces(packed, packed_len - 2, PLAIN) == -ENODATA);
	CHECK(inflate_in_pieces(packed, 1, PLAIN) == -ENODATA);
	memcpy(copy, packed, packed_len);
	copy[packed_len] = 0;
	CHECK(inflate_in_pieces(copy, packed_len + 1, PLAIN) == -EUCLEAN);
	copy[packed_len - 3] ^= 0x10;   /* the trailer's Adler-32 */
	CHECK(inflate_in_pieces(copy, packed_len, PLAIN) == -EUCLEAN);
	copy[packed_len - 3] ^= 0x10;
	copy[1] ^= 0x01;                /* the header's check bits */
	CHECK(inflate_in_pieces(copy, packed_len, PLAIN) == -EUCLEAN);
	free(copy);
}

int main(void)
{
	make_stream();
	RUN(test_whole_stream);
	RUN(test_bad_streams);
	RUN(test_extent_prefix);
	RUN(test_pieces);
	return unit_done();
}

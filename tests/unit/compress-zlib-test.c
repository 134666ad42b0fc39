// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs_zlib_inflate_exact(): a whole stream inflates to its size; a stream
 * cut short, one with bytes after its end, one larger than the room and one
 * with bad data are each told apart.  The extent decompressor beside it
 * still accepts a stream that fills its output before the stream's end.
 */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include "tests/unit/unit.h"
#include "lib/format/kerncompat.h"
#include "lib/format/format.h"
#include "lib/format/compress.h"

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
	tail[0] ^= 0xff;        /* the zlib header */
	CHECK(btrfs_zlib_inflate_exact(tail, packed_len, out, sizeof(out)) == -EUCLEAN);
	free(tail);
}

static void test_extent_prefix(void)
{
	CHECK_EQ_U64(btrfs_decompress_buf(BTRFS_COMPRESS_ZLIB, 4096, packed, packed_len, out, 4096), 4096);
	CHECK_MEM(out, plain, 4096);
}

int main(void)
{
	make_stream();
	RUN(test_whole_stream);
	RUN(test_bad_streams);
	RUN(test_extent_prefix);
	return unit_done();
}

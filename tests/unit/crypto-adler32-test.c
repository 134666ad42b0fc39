// SPDX-License-Identifier: GPL-2.0
/*
 * adler32_update() against zlib's adler32() and a published value: every
 * length up to a few blocks at every alignment, bytes all 0xff over many
 * blocks (the largest sums, where a lane would overflow first), and an
 * update in pieces equal to one over the whole.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tests/unit/unit.h"
#include "crypto/adler32.h"

#define BIG (3U << 20)

static uint8_t *buf;

static uint32_t reference(const uint8_t *p, size_t len)
{
	return (uint32_t)adler32_z(1, p, len);
}

static void test_known_value(void)
{
	const char *s = "Wikipedia";

	CHECK_EQ_U64(adler32_update(ADLER32_INIT, (const uint8_t *)s, strlen(s)), 0x11E60398);
	CHECK_EQ_U64(adler32_update_scalar(ADLER32_INIT, (const uint8_t *)s, strlen(s)), 0x11E60398);
	CHECK_EQ_U64(adler32_update(ADLER32_INIT, buf, 0), 1);
}

static void test_lengths_and_alignments(void)
{
	for (size_t off = 0; off < 32; off += 3)
		for (size_t len = 0; len < 2200; len += 1 + len / 64) {
			CHECK_EQ_U64(adler32_update(ADLER32_INIT, buf + off, len), reference(buf + off, len));
			CHECK_EQ_U64(adler32_update_scalar(ADLER32_INIT, buf + off, len),
				     reference(buf + off, len));
		}
	/* past the block size of the vector code, and past the scalar one */
	for (size_t len = 32 * 1024 - 40; len < 32 * 1024 + 40; len += 7)
		CHECK_EQ_U64(adler32_update(ADLER32_INIT, buf + 1, len), reference(buf + 1, len));
	CHECK_EQ_U64(adler32_update(ADLER32_INIT, buf, BIG), reference(buf, BIG));
}

static void test_largest_sums(void)
{
	uint8_t *ff = malloc(BIG);

	CHECK(ff != NULL);
	memset(ff, 0xff, BIG);
	CHECK_EQ_U64(adler32_update(ADLER32_INIT, ff, BIG), reference(ff, BIG));
	CHECK_EQ_U64(adler32_update(0xfff0fff0, ff, BIG - 5), (uint32_t)adler32_z(0xfff0fff0, ff, BIG - 5));
	free(ff);
}

static void test_pieces(void)
{
	uint32_t a = ADLER32_INIT;
	size_t at = 0;

	for (size_t n = 1; at + n <= BIG; at += n, n = n * 3 + 1)
		a = adler32_update(a, buf + at, n);
	a = adler32_update(a, buf + at, BIG - at);
	CHECK_EQ_U64(a, reference(buf, BIG));
}

int main(void)
{
	buf = malloc(BIG + 64);
	CHECK(buf != NULL);
	srand(19);
	for (size_t i = 0; i < BIG + 64; i++)
		buf[i] = (uint8_t)rand();
	RUN(test_known_value);
	RUN(test_lengths_and_alignments);
	RUN(test_largest_sums);
	RUN(test_pieces);
	free(buf);
	return unit_done();
}

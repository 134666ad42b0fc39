// SPDX-License-Identifier: GPL-2.0
/*
 * crypto/crc32c-fold.h: every folding and stream-shift constant recomputed
 * here as x^n mod P by square-and-multiply in the normal (non-reflected)
 * bit order with a bitwise carry-less product, then bit-reversed into the
 * reflected form the table holds.  Also checks the identity the 3-stream
 * combine rests on with the portable CRC: crc(A B) = shift(crc(A), |B|) ^ crc0(B).
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "tests/unit/xorshift.h"
#include "crypto/hash.h"
#include "crypto/crc32c-fold.h"

#define POLY 0x1EDC6F41ULL	/* x^32 + ... + 1 without the x^32 term, normal order */

/* a * b mod P, a and b of degree < 32, normal bit order. */
static uint32_t clmul_mod(uint32_t a, uint32_t b)
{
	uint64_t prod = 0;

	for (int i = 0; i < 32; i++)
		if (b & (1U << i))
			prod ^= (uint64_t)a << i;
	for (int i = 63; i >= 32; i--)
		if (prod & (1ULL << i))
			prod ^= (POLY | (1ULL << 32)) << (i - 32);
	return (uint32_t)prod;
}

static uint32_t xpow_mod(unsigned int n)
{
	uint32_t r = 1, base = 2;	/* x^0, x^1 */

	while (n) {
		if (n & 1)
			r = clmul_mod(r, base);
		base = clmul_mod(base, base);
		n >>= 1;
	}
	return r;
}

static uint32_t reflect32(uint32_t v)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i++)
		if (v & (1U << i))
			r |= 1U << (31 - i);
	return r;
}

static void test_fold_constants(void)
{
	for (int m = 0; m < CRC32C_FOLD_MAX; m++) {
		unsigned int f = 128 * (m + 1);

		CHECK_EQ_U64(crc32c_fold_k[m][0], reflect32(xpow_mod(f + 31)));
		CHECK_EQ_U64(crc32c_fold_k[m][1], reflect32(xpow_mod(f - 33)));
	}
	for (int j = 0; j < CRC32C_SHIFT_MAX; j++) {
		unsigned int l = 64 * (j + 1);

		CHECK_EQ_U64(crc32c_shift_k[j][0], reflect32(xpow_mod(8 * l - 33)));
		CHECK_EQ_U64(crc32c_shift_k[j][1], reflect32(xpow_mod(16 * l - 33)));
	}
	for (int n = 1; n <= CRC32C_HYB_MAX; n++)
		CHECK_EQ_U64(crc32c_hyb_k[n - 1], reflect32(xpow_mod(8 * 40 * n - 33)));
}

/* Reflected c * x^n mod P by multiplying in the normal domain. */
static uint32_t shift_ref(uint32_t c, unsigned int nbits)
{
	return reflect32(clmul_mod(reflect32(c), xpow_mod(nbits)));
}

static void test_combine_identity(void)
{
	uint8_t buf[3000];
	uint64_t s = 88172645463325252ULL;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)xorshift64(&s);
	for (size_t cut = 0; cut <= sizeof(buf); cut += 97) {
		uint32_t a = crc32c_raw(~0U, buf, cut);
		uint32_t b = crc32c_raw(0, buf + cut, sizeof(buf) - cut);

		CHECK_EQ_U64(shift_ref(a, 8 * (sizeof(buf) - cut)) ^ b,
			     crc32c_raw(~0U, buf, sizeof(buf)));
	}
}

int main(void)
{
	RUN(test_fold_constants);
	RUN(test_combine_identity);
	return unit_done();
}

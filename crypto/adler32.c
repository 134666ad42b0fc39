// SPDX-License-Identifier: GPL-2.0
/*
 * Adler-32: s1 = 1 + the sum of the bytes, s2 = the sum of every s1 after
 * each byte, both mod 65521.  Over n bytes b[0..n) from (s1, s2):
 *
 *   s1' = s1 + sum b[i]
 *   s2' = s2 + n * s1 + sum (n - i) * b[i]
 *
 * The AVX2 version takes 32 bytes per step j of a block of N steps: b at
 * step j, lane k has the weight n - i = 32 * (N - 1 - j) + (32 - k), so the
 * block's s2 is 32 * P + W, where W sums (32 - k) * b (vpmaddubsw, then
 * vpmaddwd into 32-bit lanes) and P sums, at each step, the byte sum of
 * the steps before it (vpsadbw).  N is small enough (see ADLER_AVX2_STEPS)
 * that no 32-bit lane overflows; the block is then folded mod 65521 in
 * 64-bit arithmetic.
 */
#include "crypto/adler32.h"
#include "crypto/hash-x86.h"

#define ADLER_MOD 65521U
/* Bytes after which the scalar s2 (from s1, s2 < 65521) still fits 32 bits. */
#define ADLER_NMAX 5552U

uint32_t adler32_update_scalar(uint32_t adler, const uint8_t *p, size_t len)
{
	uint32_t s1 = adler & 0xffff, s2 = adler >> 16;

	while (len) {
		size_t n = len < ADLER_NMAX ? len : ADLER_NMAX;

		len -= n;
		for (; n >= 8; n -= 8, p += 8) {
			s1 += p[0]; s2 += s1;
			s1 += p[1]; s2 += s1;
			s1 += p[2]; s2 += s1;
			s1 += p[3]; s2 += s1;
			s1 += p[4]; s2 += s1;
			s1 += p[5]; s2 += s1;
			s1 += p[6]; s2 += s1;
			s1 += p[7]; s2 += s1;
		}
		for (; n; n--, p++) {
			s1 += *p;
			s2 += s1;
		}
		s1 %= ADLER_MOD;
		s2 %= ADLER_MOD;
	}
	return s2 << 16 | s1;
}

#if HASH_X86
#include <immintrin.h>

/*
 * Steps of 32 bytes per block.  Per 32-bit lane and step, W grows by at
 * most 4 * 32 * 255 and the byte sum by 8 * 255 (one 64-bit vpsadbw lane),
 * so P reaches 8 * 255 * N^2 / 2: N = 1024 keeps both far below 2^32.
 */
#define ADLER_AVX2_STEPS 1024U

__attribute__((target("avx2"))) static uint64_t sum_lanes(__m256i v)
{
	__m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	uint32_t l[4];

	_mm_storeu_si128((__m128i *)l, s);
	return (uint64_t)l[0] + l[1] + l[2] + l[3];
}

__attribute__((target("avx2"))) static uint32_t adler32_avx2(uint32_t adler, const uint8_t *p, size_t len)
{
	const __m256i weights = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
						 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
						 2, 1);
	const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
	uint64_t s1 = adler & 0xffff, s2 = adler >> 16;

	while (len >= 32) {
		size_t steps = len / 32 < ADLER_AVX2_STEPS ? len / 32 : ADLER_AVX2_STEPS;
		__m256i sum = zero, before = zero, weighted = zero;

		for (size_t j = 0; j < steps; j++, p += 32) {
			__m256i b = _mm256_loadu_si256((const __m256i *)p);

			before = _mm256_add_epi32(before, sum);
			sum = _mm256_add_epi32(sum, _mm256_sad_epu8(b, zero));
			weighted = _mm256_add_epi32(weighted,
						    _mm256_madd_epi16(_mm256_maddubs_epi16(b, weights), ones));
		}
		s2 = (s2 + 32 * steps * s1 + 32 * sum_lanes(before) + sum_lanes(weighted)) % ADLER_MOD;
		s1 = (s1 + sum_lanes(sum)) % ADLER_MOD;
		len -= 32 * steps;
	}
	return adler32_update_scalar((uint32_t)(s2 << 16 | s1), p, len);
}
#endif

uint32_t adler32_update(uint32_t adler, const uint8_t *p, size_t len)
{
#if HASH_X86
	if (len >= 64 && hash_x86_has(hash_x86_features(), HX86_AVX2))
		return adler32_avx2(adler, p, len);
#endif
	return adler32_update_scalar(adler, p, len);
}

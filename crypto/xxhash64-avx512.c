// SPDX-License-Identifier: GPL-2.0
/*
 * XXH64 stripes of 8 independent messages at once in AVX-512 registers:
 * batch only (hash_digest_batch(); the xxhash64 secondary of the authsum
 * checksum types), single messages stay with the scalar reference.
 *
 * A message's four accumulators are one 256-bit half of a zmm register, so
 * a stripe (32 bytes) of two messages is one load into each half and the
 * round (acc + lane * P2, rotate left 31, * P1) runs on both at once with
 * vpmullq (AVX512DQ) and vprolq; four registers keep eight messages and
 * four independent dependency chains.  Merge, tail and avalanche are the
 * scalar xxh64_stream_final() per message.
 */
#include "crypto/hash-x86.h"

#if HASH_X86
#include <immintrin.h>

#define T_AVX512DQ	__attribute__((target("avx2,avx512f,avx512dq")))
#define MB_LANES	8
#define PAIRS		(MB_LANES / 2)

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL

/* Stripes of p[2i] in the low half of register i, of p[2i + 1] in the high half. */
T_AVX512DQ static void xxh64_multi_avx512(uint64_t (*v)[4], const uint8_t *const *p,
					  size_t nstripes)
{
	const __m512i p1 = _mm512_set1_epi64((long long)P1), p2 = _mm512_set1_epi64((long long)P2);
	__m512i acc[PAIRS];

	for (int i = 0; i < PAIRS; i++)
		acc[i] = _mm512_inserti64x4(
			_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)v[2 * i])),
			_mm256_loadu_si256((const __m256i *)v[2 * i + 1]), 1);
	for (size_t s = 0; s < nstripes; s++) {
		for (int i = 0; i < PAIRS; i++) {
			__m512i x = _mm512_inserti64x4(
				_mm512_castsi256_si512(
					_mm256_loadu_si256((const __m256i *)(p[2 * i] + 32 * s))),
				_mm256_loadu_si256((const __m256i *)(p[2 * i + 1] + 32 * s)), 1);

			x = _mm512_mullo_epi64(x, p2);
			acc[i] = _mm512_rol_epi64(_mm512_add_epi64(acc[i], x), 31);
			acc[i] = _mm512_mullo_epi64(acc[i], p1);
		}
	}
	for (int i = 0; i < PAIRS; i++) {
		_mm256_storeu_si256((__m256i *)v[2 * i], _mm512_castsi512_si256(acc[i]));
		_mm256_storeu_si256((__m256i *)v[2 * i + 1], _mm512_extracti64x4_epi64(acc[i], 1));
	}
}

static int cpu_avx512dq(unsigned int feat)
{
	return hash_x86_has(feat, HX86_AVX512F | HX86_AVX512DQ);
}

const struct hash_impl xxhash64_impl_avx512 = {
	.name = "simd-avx512", .short_name = "avx512", .alg = HASH_XXHASH64,
	.cpu_ok = cpu_avx512dq, .lanes = MB_LANES, .xxh64_multi = xxh64_multi_avx512,
};
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * BLAKE2b (RFC 7693) compression with AVX2, and with AVX-512VL's vprorq
 * for the rotations.
 *
 * Single block: the 16 working words are four rows of a 4x4 matrix, one
 * 256-bit register per row, so one pass of G runs the four column G's at
 * once; rotating rows a, c, d (vpermq) lines up the diagonals for the
 * second half of the round, and the reverse rotation restores the columns.  The message words of a round are picked by the
 * sigma schedule, with the indices folded in by the unrolled rounds.
 * Rotations: by 32 a dword shuffle, by 24 and 16 a byte shuffle, by 63
 * (x >> 63) | (x + x); with AVX-512VL each is one vprorq.
 *
 * Multi-buffer: the other way round, each of the 16 working words is one
 * register holding that word for 4 (AVX2) or 8 (AVX-512) independent
 * messages, whose message words are transposed into lanes first.  No lane
 * crossing at all in the rounds, and every G of a half-round independent.
 */
#include "crypto/hash-x86.h"

#if HASH_X86
#include <immintrin.h>
#include "crypto/blake2b-sigma.h"

#define T_AVX2		__attribute__((target("avx2")))
#define T_AVX512	__attribute__((target("avx2,avx512f,avx512vl")))

T_AVX2 static inline __m256i ror32_avx2(__m256i x)
{
	return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

T_AVX2 static inline __m256i ror24_avx2(__m256i x)
{
	const __m256i r24 = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10,
					     3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);

	return _mm256_shuffle_epi8(x, r24);
}

T_AVX2 static inline __m256i ror16_avx2(__m256i x)
{
	const __m256i r16 = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9,
					     2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);

	return _mm256_shuffle_epi8(x, r16);
}

T_AVX2 static inline __m256i ror63_avx2(__m256i x)
{
	return _mm256_or_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

/* The counter step of every block; the final block gets its own increment. */
static inline uint64_t b2_count(uint64_t t[2], size_t nleft, int final, size_t final_inc)
{
	uint64_t inc = (final && !nleft) ? final_inc : 128;

	t[0] += inc;
	if (t[0] < inc)
		t[1]++;
	return (final && !nleft) ? ~0ULL : 0;
}

#define M(r, i)		m[blake2b_sigma[r][i]]

/*
 * Four message words into one register from broadcasts and blends: loads
 * and blends leave the shuffle units to the rotations and permutes of the
 * critical path (inserts would compete with them).
 */
T_AVX2 static inline __m256i mk4(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3)
{
	__m256i lo = _mm256_blend_epi32(_mm256_set1_epi64x((long long)w0),
					_mm256_set1_epi64x((long long)w1), 0x0c);
	__m256i hi = _mm256_blend_epi32(_mm256_set1_epi64x((long long)w2),
					_mm256_set1_epi64x((long long)w3), 0xc0);

	return _mm256_blend_epi32(lo, hi, 0xf0);
}
#define VADD		_mm256_add_epi64
#define VXOR		_mm256_xor_si256

/* One G on each of the four lanes (rows a, b, c, d). */
#define G4(a, b, c, d, mx, my) do {						\
	a = VADD(VADD(a, mx), b); d = ROR32(VXOR(d, a));			\
	c = VADD(c, d);           b = ROR24(VXOR(b, c));			\
	a = VADD(VADD(a, my), b); d = ROR16(VXOR(d, a));			\
	c = VADD(c, d);           b = ROR63(VXOR(b, c));			\
} while (0)

/*
 * Diagonals: b stays, a moves one lane up, c one down, d two (lane j holds
 * a[j-1], b[j], c[j+1], d[j+2], so lane 0 is G7 and lanes 1-3 G4-G6).  b is
 * the row G needs first and the one computed last; a, c and d are ready
 * early, so the permute latency hides behind the adds.
 */
#define ROUND_ROWS(r) do {							\
	G4(a, b, c, d, mk4(M(r, 0), M(r, 2), M(r, 4), M(r, 6)),			\
	   mk4(M(r, 1), M(r, 3), M(r, 5), M(r, 7)));				\
	a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(2, 1, 0, 3));		\
	c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(0, 3, 2, 1));		\
	d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));		\
	G4(a, b, c, d, mk4(M(r, 14), M(r, 8), M(r, 10), M(r, 12)),		\
	   mk4(M(r, 15), M(r, 9), M(r, 11), M(r, 13)));			\
	a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(0, 3, 2, 1));		\
	c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(2, 1, 0, 3));		\
	d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(1, 0, 3, 2));		\
} while (0)

/* The whole primitive; ROR32..ROR63 are defined by each user. */
#define BLOCKS_ROWS() do {							\
	__m256i h0 = _mm256_loadu_si256((const __m256i *)h);			\
	__m256i h1 = _mm256_loadu_si256((const __m256i *)(h + 4));		\
	const __m256i iv0 = _mm256_loadu_si256((const __m256i *)blake2b_iv);	\
	const __m256i iv1 = _mm256_loadu_si256((const __m256i *)(blake2b_iv + 4)); \
										\
	while (nblocks--) {							\
		uint64_t m[16], f0 = b2_count(t, nblocks, final, final_inc);	\
		__m256i a = h0, b = h1, c = iv0;				\
		__m256i d = VXOR(iv1, _mm256_set_epi64x(0, (long long)f0,	\
					(long long)t[1], (long long)t[0]));	\
										\
		memcpy(m, p, 128);						\
		ROUND_ROWS(0); ROUND_ROWS(1); ROUND_ROWS(2); ROUND_ROWS(3);	\
		ROUND_ROWS(4); ROUND_ROWS(5); ROUND_ROWS(6); ROUND_ROWS(7);	\
		ROUND_ROWS(8); ROUND_ROWS(9); ROUND_ROWS(10); ROUND_ROWS(11);	\
		h0 = VXOR(h0, VXOR(a, c));					\
		h1 = VXOR(h1, VXOR(b, d));					\
		p += 128;							\
	}									\
	_mm256_storeu_si256((__m256i *)h, h0);					\
	_mm256_storeu_si256((__m256i *)(h + 4), h1);				\
} while (0)

#define ROR32 ror32_avx2
#define ROR24 ror24_avx2
#define ROR16 ror16_avx2
#define ROR63 ror63_avx2

T_AVX2 static void blake2b_blocks_avx2(uint64_t h[8], const uint8_t *p, size_t nblocks,
				       uint64_t t[2], int final, size_t final_inc)
{
	BLOCKS_ROWS();
}

/* 4 messages, one per 64-bit lane: v[i] is working word i of each. */
#define GV(a, b, c, d, x, y) G4(v[a], v[b], v[c], v[d], mv[blake2b_sigma[r][x]],	\
				mv[blake2b_sigma[r][y]])
#define ROUND_LANES(rr) do {							\
	const int r = rr;							\
	GV(0, 4, 8, 12, 0, 1); GV(1, 5, 9, 13, 2, 3);				\
	GV(2, 6, 10, 14, 4, 5); GV(3, 7, 11, 15, 6, 7);				\
	GV(0, 5, 10, 15, 8, 9); GV(1, 6, 11, 12, 10, 11);			\
	GV(2, 7, 8, 13, 12, 13); GV(3, 4, 9, 14, 14, 15);			\
} while (0)
#define ROUNDS_LANES() do {							\
	ROUND_LANES(0); ROUND_LANES(1); ROUND_LANES(2); ROUND_LANES(3);		\
	ROUND_LANES(4); ROUND_LANES(5); ROUND_LANES(6); ROUND_LANES(7);		\
	ROUND_LANES(8); ROUND_LANES(9); ROUND_LANES(10); ROUND_LANES(11);	\
} while (0)

T_AVX2 static void blake2b_multi_avx2(uint64_t (*h)[8], const uint8_t *const *pp, size_t nblocks,
				      uint64_t t[2], int final, size_t final_inc)
{
	const uint8_t *p0 = pp[0], *p1 = pp[1], *p2 = pp[2], *p3 = pp[3];
	__m256i hv[8];

	for (int i = 0; i < 8; i++)
		hv[i] = _mm256_set_epi64x((long long)h[3][i], (long long)h[2][i],
					  (long long)h[1][i], (long long)h[0][i]);
	while (nblocks--) {
		uint64_t f0 = b2_count(t, nblocks, final, final_inc);
		__m256i v[16], mv[16];

		/* 4x4 transposes of 64-bit words, four words at a time. */
		for (int g = 0; g < 4; g++) {
			__m256i r0 = _mm256_loadu_si256((const __m256i *)(p0 + 32 * g));
			__m256i r1 = _mm256_loadu_si256((const __m256i *)(p1 + 32 * g));
			__m256i r2 = _mm256_loadu_si256((const __m256i *)(p2 + 32 * g));
			__m256i r3 = _mm256_loadu_si256((const __m256i *)(p3 + 32 * g));
			__m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
			__m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);

			mv[4 * g] = _mm256_permute2x128_si256(t0, t2, 0x20);
			mv[4 * g + 1] = _mm256_permute2x128_si256(t1, t3, 0x20);
			mv[4 * g + 2] = _mm256_permute2x128_si256(t0, t2, 0x31);
			mv[4 * g + 3] = _mm256_permute2x128_si256(t1, t3, 0x31);
		}
		for (int i = 0; i < 8; i++) {
			v[i] = hv[i];
			v[i + 8] = _mm256_set1_epi64x((long long)blake2b_iv[i]);
		}
		v[12] = _mm256_set1_epi64x((long long)(blake2b_iv[4] ^ t[0]));
		v[13] = _mm256_set1_epi64x((long long)(blake2b_iv[5] ^ t[1]));
		v[14] = _mm256_set1_epi64x((long long)(blake2b_iv[6] ^ f0));
		ROUNDS_LANES();
		for (int i = 0; i < 8; i++)
			hv[i] = VXOR(hv[i], VXOR(v[i], v[i + 8]));
		p0 += 128; p1 += 128; p2 += 128; p3 += 128;
	}
	for (int i = 0; i < 8; i++) {
		uint64_t w[4];

		_mm256_storeu_si256((__m256i *)w, hv[i]);
		for (int l = 0; l < 4; l++)
			h[l][i] = w[l];
	}
}

#undef ROR32
#undef ROR24
#undef ROR16
#undef ROR63
#define ROR32(x) _mm256_ror_epi64(x, 32)
#define ROR24(x) _mm256_ror_epi64(x, 24)
#define ROR16(x) _mm256_ror_epi64(x, 16)
#define ROR63(x) _mm256_ror_epi64(x, 63)

T_AVX512 static void blake2b_blocks_avx512vl(uint64_t h[8], const uint8_t *p, size_t nblocks,
					     uint64_t t[2], int final, size_t final_inc)
{
	BLOCKS_ROWS();
}

#undef ROR32
#undef ROR24
#undef ROR16
#undef ROR63
#undef VADD
#undef VXOR
#define VADD _mm512_add_epi64
#define VXOR _mm512_xor_si512
#define ROR32(x) _mm512_ror_epi64(x, 32)
#define ROR24(x) _mm512_ror_epi64(x, 24)
#define ROR16(x) _mm512_ror_epi64(x, 16)
#define ROR63(x) _mm512_ror_epi64(x, 63)

/* 8 messages, one per lane of a 512-bit register; message words by gather. */
T_AVX512 static void blake2b_multi_avx512(uint64_t (*h)[8], const uint8_t *const *pp,
					  size_t nblocks, uint64_t t[2], int final, size_t final_inc)
{
	__m512i hv[8];
	__m512i addr = _mm512_set_epi64((long long)(uintptr_t)pp[7], (long long)(uintptr_t)pp[6],
					(long long)(uintptr_t)pp[5], (long long)(uintptr_t)pp[4],
					(long long)(uintptr_t)pp[3], (long long)(uintptr_t)pp[2],
					(long long)(uintptr_t)pp[1], (long long)(uintptr_t)pp[0]);

	for (int i = 0; i < 8; i++)
		hv[i] = _mm512_set_epi64((long long)h[7][i], (long long)h[6][i],
					 (long long)h[5][i], (long long)h[4][i],
					 (long long)h[3][i], (long long)h[2][i],
					 (long long)h[1][i], (long long)h[0][i]);
	while (nblocks--) {
		uint64_t f0 = b2_count(t, nblocks, final, final_inc);
		__m512i v[16], mv[16];

		for (int i = 0; i < 16; i++)
			mv[i] = _mm512_i64gather_epi64(_mm512_add_epi64(addr,
						       _mm512_set1_epi64(8 * i)), NULL, 1);
		for (int i = 0; i < 8; i++) {
			v[i] = hv[i];
			v[i + 8] = _mm512_set1_epi64((long long)blake2b_iv[i]);
		}
		v[12] = _mm512_set1_epi64((long long)(blake2b_iv[4] ^ t[0]));
		v[13] = _mm512_set1_epi64((long long)(blake2b_iv[5] ^ t[1]));
		v[14] = _mm512_set1_epi64((long long)(blake2b_iv[6] ^ f0));
		ROUNDS_LANES();
		for (int i = 0; i < 8; i++)
			hv[i] = VXOR(hv[i], VXOR(v[i], v[i + 8]));
		addr = _mm512_add_epi64(addr, _mm512_set1_epi64(128));
	}
	for (int i = 0; i < 8; i++) {
		uint64_t w[8];

		_mm512_storeu_si512((void *)w, hv[i]);
		for (int l = 0; l < 8; l++)
			h[l][i] = w[l];
	}
}

static int cpu_avx2(unsigned int feat)
{
	return hash_x86_has(feat, HX86_AVX2);
}

static int cpu_avx512vl(unsigned int feat)
{
	return hash_x86_has(feat, HX86_AVX2 | HX86_AVX512F | HX86_AVX512VL);
}

/*
 * One message in row vectors is latency bound (each half-round waits for
 * the diagonal permutes); the scalar reference runs the four G's of a
 * half-round as independent chains.  On Zen 5 (6 integer ALUs) the
 * reference takes half the cycles of either vector form, so CPUs with
 * AVX-512, whose cores are that wide, take it for one-shot digests; Zen 3
 * (AVX2 only) measured the AVX2 form faster than the reference of then.
 */
#define B2_SCALAR_WINS	(HX86_AVX512F | HX86_AVX512VL)

const struct hash_impl blake2b_impl_avx2 = {
	.name = "simd-avx2", .short_name = "avx2", .alg = HASH_BLAKE2B_256,
	.cpu_ok = cpu_avx2, .b2_blocks = blake2b_blocks_avx2,
	.lanes = 4, .b2_multi = blake2b_multi_avx2, .single_slower_with = B2_SCALAR_WINS,
};

const struct hash_impl blake2b_impl_avx512vl = {
	.name = "simd-avx512vl", .short_name = "avx512vl", .alg = HASH_BLAKE2B_256,
	.cpu_ok = cpu_avx512vl, .b2_blocks = blake2b_blocks_avx512vl,
	.lanes = 8, .b2_multi = blake2b_multi_avx512, .single_slower_with = B2_SCALAR_WINS,
};
#endif

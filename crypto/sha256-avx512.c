// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 (FIPS 180-4) for 16 independent messages at once in AVX-512
 * registers: batch only (hash_digest_batch()), single blocks stay with
 * SHA-NI or the reference.
 *
 * Each working variable a..h and each schedule word W[t] is one zmm
 * register holding that word for all 16 messages, so the rounds never cross
 * lanes: the rotations are vprord, the three-input functions one vpternlogd
 * each (Ch 0xca, Maj 0xe8, the xor of three rotations 0x96).  Each 64-byte
 * block of each message is loaded as one row, byte-swapped, and the 16x16
 * dword matrix transposed so that row t is W[t] of every message.
 */
#include "crypto/hash-x86.h"

#if HASH_X86
#include <immintrin.h>

#define T_AVX512	__attribute__((target("avx2,avx512f,avx512vl,avx512bw")))
#define MB_LANES	16

#define XOR3		0x96
#define CH		0xca	/* e ? f : g */
#define MAJ		0xe8

T_AVX512 static inline __m512i ror(__m512i x, int r)
{
	return _mm512_ror_epi32(x, r);
}

T_AVX512 static inline __m512i xor3(__m512i x, __m512i y, __m512i z)
{
	return _mm512_ternarylogic_epi32(x, y, z, XOR3);
}

/* The 16 rows r[i] (message i's block) into columns r[t] (word t of every message). */
T_AVX512 static inline void transpose16(__m512i r[16])
{
	__m512i t[16], u[16];

	for (int i = 0; i < 16; i += 2) {
		t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
		t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
	}
	/* u[4g + c]: in 128-bit lane k, word 4k + c of messages 4g..4g+3 */
	for (int g = 0; g < 16; g += 4) {
		u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
		u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
		u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
		u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
	}
	/* then the 4x4 matrix of 128-bit lanes: lane k of group g to lane g of word 4k + c */
	for (int c = 0; c < 4; c++) {
		__m512i v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
		__m512i v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
		__m512i v2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
		__m512i v3 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);

		r[c] = _mm512_shuffle_i32x4(v0, v2, 0x88);
		r[8 + c] = _mm512_shuffle_i32x4(v0, v2, 0xdd);
		r[4 + c] = _mm512_shuffle_i32x4(v1, v3, 0x88);
		r[12 + c] = _mm512_shuffle_i32x4(v1, v3, 0xdd);
	}
}

/*
 * One round; the caller renames the variables instead of moving them.
 * Vector integer ops take 2-4 cycles on Zen 5 and this is latency bound, so
 * the sums are ordered for the shortest chains: everything but Sigma1(e) is
 * added to d first, then Sigma1 (new e: rotate, ternlog, add); the new a
 * adds Sigma0(a) last.  (FIPS order: T1 = h + S1 + Ch + K + W, e = d + T1,
 * a = T1 + S0 + Maj; 1.5 times the cycles.)
 */
#define MB_ROUND(a, b, c, d, e, f, g, h, w, t) do {				\
	__m512i x_ = _mm512_add_epi32(_mm512_add_epi32(h,			\
			_mm512_add_epi32(w, _mm512_set1_epi32((int)sha256_k[t]))), \
		_mm512_ternarylogic_epi32(e, f, g, CH));			\
	__m512i s1_ = xor3(ror(e, 6), ror(e, 11), ror(e, 25));			\
	__m512i z_ = _mm512_add_epi32(x_, _mm512_ternarylogic_epi32(a, b, c, MAJ)); \
	d = _mm512_add_epi32(_mm512_add_epi32(d, x_), s1_);			\
	h = _mm512_add_epi32(_mm512_add_epi32(z_, s1_),				\
			     xor3(ror(a, 2), ror(a, 13), ror(a, 22)));		\
} while (0)

/* W[t] for t >= 16 in the ring of 16: sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16]. */
#define MB_SCHED(w, t) do {							\
	__m512i x_ = w[((t) - 15) & 15], y_ = w[((t) - 2) & 15];		\
	__m512i s0_ = xor3(ror(x_, 7), ror(x_, 18), _mm512_srli_epi32(x_, 3));	\
	__m512i s1_ = xor3(ror(y_, 17), ror(y_, 19), _mm512_srli_epi32(y_, 10));	\
	w[(t) & 15] = _mm512_add_epi32(_mm512_add_epi32(w[(t) & 15], s0_),	\
				       _mm512_add_epi32(w[((t) - 7) & 15], s1_)); \
} while (0)

#define MB_ROUND8(w, t) do {							\
	MB_ROUND(a, b, c, d, e, f, g, h, w[((t) + 0) & 15], (t) + 0);		\
	MB_ROUND(h, a, b, c, d, e, f, g, w[((t) + 1) & 15], (t) + 1);		\
	MB_ROUND(g, h, a, b, c, d, e, f, w[((t) + 2) & 15], (t) + 2);		\
	MB_ROUND(f, g, h, a, b, c, d, e, w[((t) + 3) & 15], (t) + 3);		\
	MB_ROUND(e, f, g, h, a, b, c, d, w[((t) + 4) & 15], (t) + 4);		\
	MB_ROUND(d, e, f, g, h, a, b, c, w[((t) + 5) & 15], (t) + 5);		\
	MB_ROUND(c, d, e, f, g, h, a, b, w[((t) + 6) & 15], (t) + 6);		\
	MB_ROUND(b, c, d, e, f, g, h, a, w[((t) + 7) & 15], (t) + 7);		\
} while (0)

#define MB_SCHED8(w, t) do {							\
	MB_SCHED(w, (t) + 0); MB_SCHED(w, (t) + 1);				\
	MB_SCHED(w, (t) + 2); MB_SCHED(w, (t) + 3);				\
	MB_SCHED(w, (t) + 4); MB_SCHED(w, (t) + 5);				\
	MB_SCHED(w, (t) + 6); MB_SCHED(w, (t) + 7);				\
} while (0)

T_AVX512 static void sha256_multi_avx512(uint32_t (*st)[8], const uint8_t *const *pp,
					 size_t nblocks)
{
	/* byte k of each dword from byte 3 - k: big-endian words */
	const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
	/* lane i of a column is st[i][j]: dword index 8 * i */
	const __m512i idx = _mm512_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88,
					      96, 104, 112, 120);
	__m512i s[8];

	for (int j = 0; j < 8; j++)
		s[j] = _mm512_i32gather_epi32(idx, &st[0][j], 4);
	for (size_t blk = 0; blk < nblocks; blk++) {
		__m512i a = s[0], b = s[1], c = s[2], d = s[3];
		__m512i e = s[4], f = s[5], g = s[6], h = s[7];
		__m512i w[16];

		for (int i = 0; i < MB_LANES; i++)
			w[i] = _mm512_shuffle_epi8(_mm512_loadu_si512(pp[i] + 64 * blk), bswap);
		transpose16(w);
		MB_ROUND8(w, 0);
		MB_ROUND8(w, 8);
#pragma GCC unroll 6
		for (int t = 16; t < 64; t += 8) {
			MB_SCHED8(w, t);
			MB_ROUND8(w, t);
		}
		s[0] = _mm512_add_epi32(s[0], a);
		s[1] = _mm512_add_epi32(s[1], b);
		s[2] = _mm512_add_epi32(s[2], c);
		s[3] = _mm512_add_epi32(s[3], d);
		s[4] = _mm512_add_epi32(s[4], e);
		s[5] = _mm512_add_epi32(s[5], f);
		s[6] = _mm512_add_epi32(s[6], g);
		s[7] = _mm512_add_epi32(s[7], h);
	}
	for (int j = 0; j < 8; j++)
		_mm512_i32scatter_epi32(&st[0][j], idx, s[j], 4);
}

static int cpu_avx512(unsigned int feat)
{
	return hash_x86_has(feat, HX86_AVX512F | HX86_AVX512VL | HX86_AVX512BW);
}

const struct hash_impl sha256_impl_avx512 = {
	.name = "simd-avx512", .short_name = "avx512", .alg = HASH_SHA256,
	.cpu_ok = cpu_avx512, .lanes = MB_LANES, .sha256_multi = sha256_multi_avx512,
};
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32C on x86-64: the SSE4.2 crc32 instruction, alone, in three
 * interleaved streams joined by carry-less multiplication, and folding with
 * VPCLMULQDQ over 256-bit and 512-bit vectors.
 *
 * The math, in the reflected form the crc32 instruction uses (a 32-bit
 * register value c has bit i as the coefficient of x^(31-i); a 64-bit word
 * loaded little-endian has bit i as the coefficient of x^(63-i)):
 *
 * - crc32q(c, D) = (C * x^64 + D * x^32) mod P, so crc32q(0, D) = D * x^32.
 * - PCLMULQDQ of two reflected values: bit m of the integer product is the
 *   sum of a_i*b_j with i + j = m.  With a and b both 32-bit reflected, bit m
 *   is the coefficient of x^(62-m): read as a 64-bit reflected word the
 *   product is A*B*x.  So crc32q(0, clmul(c, x^(n-33) mod P)) = C * x^n mod P:
 *   the register moved over n zero bits.  Three streams of L bytes give
 *   crc(S1 S2 S3) = shift(c1, 16L) ^ shift(c2, 8L) ^ c3 (c2, c3 started at 0).
 * - Folding: a 128-bit block loaded little-endian is the polynomial
 *   H * x^64 + L (H the low quadword).  Moving it F bits further is
 *   H * x^(64+F) + L * x^F; with 32-bit reflected constants each product
 *   comes out as 64x32 -> 96 bits scaled by x^33 as above, so the constants
 *   are x^(F+31) and x^(F-33) mod P (crypto/crc32c-fold.h).  The remaining
 *   128 bits A give the CRC A * x^32 mod P = crc32q(crc32q(0, H), L).
 * - The initial register value is the first 32 message bits xored in: a
 *   little-endian xor into the first 4 bytes.
 */
#include "crypto/hash-x86.h"

#if HASH_X86
#include <immintrin.h>
#include "crypto/crc32c-fold.h"

#define T_SSE42		__attribute__((target("sse4.2")))
#define T_PCLMUL	__attribute__((target("sse4.2,pclmul")))
#define T_VPCL256	__attribute__((target("sse4.2,pclmul,avx2,vpclmulqdq")))
#define T_VPCL512	__attribute__((target("sse4.2,pclmul,avx2,avx512f,vpclmulqdq")))

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* One stream, 8 bytes per instruction. */
T_SSE42 static inline uint32_t crc_serial(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 32) {
		c = _mm_crc32_u64(c, ld64(p));
		c = _mm_crc32_u64(c, ld64(p + 8));
		c = _mm_crc32_u64(c, ld64(p + 16));
		c = _mm_crc32_u64(c, ld64(p + 24));
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		c = _mm_crc32_u64(c, ld64(p));
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	if (len >= 4) {
		crc = _mm_crc32_u32(crc, ld32(p));
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

T_SSE42 static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc_serial(crc, p, len);
}

/* c * x^n mod P given k = x^(n-33) mod P. */
T_PCLMUL static inline uint32_t crc_shift(uint32_t c, uint32_t k)
{
	__m128i v = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c), _mm_cvtsi32_si128((int)k), 0);

	return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(v));
}

/*
 * Three streams of L = 64*j bytes (j <= 32) side by side: the crc32
 * instruction has a latency of 3 and a throughput of 1, so three
 * independent chains keep it busy.
 */
T_PCLMUL static uint32_t crc32c_sse42x3(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= 3 * 64) {
		size_t j = len / (3 * 64);
		size_t L;
		uint64_t a = crc, b = 0, d = 0;
		const uint8_t *p1, *p2;

		if (j > CRC32C_SHIFT_MAX)
			j = CRC32C_SHIFT_MAX;
		L = 64 * j;
		p1 = p + L;
		p2 = p1 + L;
		for (size_t i = 0; i < L; i += 16) {
			a = _mm_crc32_u64(a, ld64(p + i));
			b = _mm_crc32_u64(b, ld64(p1 + i));
			d = _mm_crc32_u64(d, ld64(p2 + i));
			a = _mm_crc32_u64(a, ld64(p + i + 8));
			b = _mm_crc32_u64(b, ld64(p1 + i + 8));
			d = _mm_crc32_u64(d, ld64(p2 + i + 8));
		}
		crc = crc_shift((uint32_t)a, crc32c_shift_k[j - 1][1]) ^
		      crc_shift((uint32_t)b, crc32c_shift_k[j - 1][0]) ^ (uint32_t)d;
		p += 3 * L;
		len -= 3 * L;
	}
	return crc_serial(crc, p, len);
}

/* Fold constants for F = 128*(m+1) bits: low quadword x^(F+31), high x^(F-33). */
T_PCLMUL static inline __m128i fold_k128(int m)
{
	return _mm_set_epi64x(crc32c_fold_k[m][1], crc32c_fold_k[m][0]);
}

T_PCLMUL static inline __m128i fold128(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The CRC of the last 128 folded bits. */
T_PCLMUL static inline uint32_t reduce128(__m128i x)
{
	uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));

	return (uint32_t)_mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(x, 1));
}

T_VPCL256 static inline __m256i fold256(__m256i x, __m256i k)
{
	return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
				_mm256_clmulepi64_epi128(x, k, 0x11));
}

T_VPCL256 static inline __m256i fold_k256(int m)
{
	return _mm256_set_epi64x(crc32c_fold_k[m][1], crc32c_fold_k[m][0],
				 crc32c_fold_k[m][1], crc32c_fold_k[m][0]);
}

/* Four 256-bit accumulators: 128 bytes per step, each folded 1024 bits on. */
T_VPCL256 static uint32_t crc32c_vpclmul256(uint32_t crc, const uint8_t *p, size_t len)
{
	__m256i x0, x1, x2, x3, k;
	__m128i lo, hi;

	if (len < 256)
		return crc32c_sse42x3(crc, p, len);
	x0 = _mm256_loadu_si256((const void *)p);
	x1 = _mm256_loadu_si256((const void *)(p + 32));
	x2 = _mm256_loadu_si256((const void *)(p + 64));
	x3 = _mm256_loadu_si256((const void *)(p + 96));
	x0 = _mm256_xor_si256(x0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)crc));
	p += 128;
	len -= 128;
	k = fold_k256(7);
	while (len >= 128) {
		x0 = _mm256_xor_si256(fold256(x0, k), _mm256_loadu_si256((const void *)p));
		x1 = _mm256_xor_si256(fold256(x1, k), _mm256_loadu_si256((const void *)(p + 32)));
		x2 = _mm256_xor_si256(fold256(x2, k), _mm256_loadu_si256((const void *)(p + 64)));
		x3 = _mm256_xor_si256(fold256(x3, k), _mm256_loadu_si256((const void *)(p + 96)));
		p += 128;
		len -= 128;
	}
	/* x0 is 96 bytes before x3, x1 64, x2 32: fold them all onto x3. */
	x3 = _mm256_xor_si256(x3, fold256(x0, fold_k256(5)));
	x3 = _mm256_xor_si256(x3, fold256(x1, fold_k256(3)));
	x3 = _mm256_xor_si256(x3, fold256(x2, fold_k256(1)));
	lo = _mm256_castsi256_si128(x3);
	hi = _mm256_extracti128_si256(x3, 1);
	lo = _mm_xor_si128(hi, fold128(lo, fold_k128(0)));
	return crc_serial(reduce128(lo), p, len);
}

/*
 * A hybrid chunk of @len bytes: n steps of @f folded bytes plus 40 bytes of
 * each of the three streams, after the first @f bytes.
 */
static inline size_t hyb_steps(size_t len, size_t f)
{
	size_t n = (len - f) / (f + 120);

	return n > CRC32C_HYB_MAX ? CRC32C_HYB_MAX : n;
}

/* The hybrid variants' crc32 side: 40 bytes (5 words) of each of three streams. */
T_SSE42 static inline void crc3_step40(uint64_t c[3], const uint8_t *s1, size_t L)
{
	for (int w = 0; w < 40; w += 8) {
		c[0] = _mm_crc32_u64(c[0], ld64(s1 + w));
		c[1] = _mm_crc32_u64(c[1], ld64(s1 + L + w));
		c[2] = _mm_crc32_u64(c[2], ld64(s1 + 2 * L + w));
	}
}

/* The folded part's CRC @r followed by the three streams of 40n bytes (Horner's rule). */
T_PCLMUL static inline uint32_t crc3_join(uint32_t r, size_t n, const uint64_t c[3])
{
	uint32_t kl = crc32c_hyb_k[n - 1];

	r = crc_shift(r, kl) ^ (uint32_t)c[0];
	r = crc_shift(r, kl) ^ (uint32_t)c[1];
	return crc_shift(r, kl) ^ (uint32_t)c[2];
}

/*
 * Folding and the crc32 instruction at once: they use different execution
 * units, so each chunk is split into a folded part (128 + 128n bytes, 4
 * ymm accumulators) and three crc32 streams of 40n bytes, advanced in the
 * same loop (one 128-byte fold step and 5 words of each stream per
 * iteration).  The four CRCs join by Horner's rule with x^(8*40n) (crc32c-fold.h).
 */
T_VPCL256 static uint32_t crc32c_vpclmul256x3(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m256i k = fold_k256(7);

	while (len >= 128 + 248) {
		size_t n = hyb_steps(len, 128), vlen = 128 * (n + 1), L = 40 * n;
		const uint8_t *q, *s1 = p + vlen;
		uint64_t c[3] = { 0, 0, 0 };
		__m256i x0, x1, x2, x3;
		__m128i lo, hi;
		uint32_t r;

		x0 = _mm256_loadu_si256((const void *)p);
		x1 = _mm256_loadu_si256((const void *)(p + 32));
		x2 = _mm256_loadu_si256((const void *)(p + 64));
		x3 = _mm256_loadu_si256((const void *)(p + 96));
		x0 = _mm256_xor_si256(x0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)crc));
		q = p + 128;
		for (size_t i = 0; i < n; i++) {
			x0 = _mm256_xor_si256(fold256(x0, k), _mm256_loadu_si256((const void *)q));
			x1 = _mm256_xor_si256(fold256(x1, k), _mm256_loadu_si256((const void *)(q + 32)));
			x2 = _mm256_xor_si256(fold256(x2, k), _mm256_loadu_si256((const void *)(q + 64)));
			x3 = _mm256_xor_si256(fold256(x3, k), _mm256_loadu_si256((const void *)(q + 96)));
			crc3_step40(c, s1, L);
			q += 128;
			s1 += 40;
		}
		x3 = _mm256_xor_si256(x3, fold256(x0, fold_k256(5)));
		x3 = _mm256_xor_si256(x3, fold256(x1, fold_k256(3)));
		x3 = _mm256_xor_si256(x3, fold256(x2, fold_k256(1)));
		lo = _mm256_castsi256_si128(x3);
		hi = _mm256_extracti128_si256(x3, 1);
		r = reduce128(_mm_xor_si128(hi, fold128(lo, fold_k128(0))));
		crc = crc3_join(r, n, c);
		p += vlen + 3 * L;
		len -= vlen + 3 * L;
	}
	/*
	 * gcc turns the call below into a jump without the vzeroupper it puts
	 * before a return: dirty upper ymm halves would then slow every later
	 * legacy-SSE instruction (SHA-NI) of the program by half on Zen 5.
	 */
	_mm256_zeroupper();
	return crc32c_sse42x3(crc, p, len);
}

T_VPCL512 static inline __m512i fold512(__m512i x, __m512i k, __m512i data)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

T_VPCL512 static inline __m512i fold_k512(int m)
{
	return _mm512_set_epi64(crc32c_fold_k[m][1], crc32c_fold_k[m][0],
				crc32c_fold_k[m][1], crc32c_fold_k[m][0],
				crc32c_fold_k[m][1], crc32c_fold_k[m][0],
				crc32c_fold_k[m][1], crc32c_fold_k[m][0]);
}

/* x ^ y ^ z */
T_VPCL512 static inline __m512i xor3_512(__m512i x, __m512i y, __m512i z)
{
	return _mm512_ternarylogic_epi64(x, y, z, 0x96);
}

/*
 * The CRC of four 512-bit accumulators, 256 consecutive bytes folded.  The
 * folds run side by side, not in a chain (every vector op takes 2-4 cycles
 * on Zen 5, and this fixed cost counts at 1 KiB): x0, x1, x2 onto x3 (192,
 * 128 and 64 bytes before it), then the 128-bit lanes 0-2 onto lane 3 (48,
 * 32 and 16 bytes before it) with per-lane constants, lane 3's zero.
 */
T_VPCL512 static inline uint32_t reduce512(__m512i x0, __m512i x1, __m512i x2, __m512i x3)
{
	const __m512i k11 = fold_k512(11), k7 = fold_k512(7), k3 = fold_k512(3);
	const __m512i kl = _mm512_set_epi64(0, 0, crc32c_fold_k[0][1], crc32c_fold_k[0][0],
					    crc32c_fold_k[1][1], crc32c_fold_k[1][0],
					    crc32c_fold_k[2][1], crc32c_fold_k[2][0]);
	__m512i a = xor3_512(_mm512_clmulepi64_epi128(x0, k11, 0x00),
			     _mm512_clmulepi64_epi128(x0, k11, 0x11), x3);
	__m512i b = xor3_512(_mm512_clmulepi64_epi128(x1, k7, 0x00),
			     _mm512_clmulepi64_epi128(x1, k7, 0x11),
			     _mm512_clmulepi64_epi128(x2, k3, 0x00));
	__m512i x = xor3_512(a, b, _mm512_clmulepi64_epi128(x2, k3, 0x11));
	__m512i y = xor3_512(_mm512_clmulepi64_epi128(x, kl, 0x00),
			     _mm512_clmulepi64_epi128(x, kl, 0x11),
			     _mm512_maskz_mov_epi64(0xc0, x));
	__m256i h = _mm256_xor_si256(_mm512_castsi512_si256(y), _mm512_extracti64x4_epi64(y, 1));

	return reduce128(_mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
}

/* Four 512-bit accumulators: 256 bytes per step, each folded 2048 bits on. */
T_VPCL512 static uint32_t crc32c_vpclmul512(uint32_t crc, const uint8_t *p, size_t len)
{
	__m512i x0, x1, x2, x3, k;

	if (len < 512)
		return crc32c_vpclmul256(crc, p, len);
	x0 = _mm512_loadu_si512((const void *)p);
	x1 = _mm512_loadu_si512((const void *)(p + 64));
	x2 = _mm512_loadu_si512((const void *)(p + 128));
	x3 = _mm512_loadu_si512((const void *)(p + 192));
	x0 = _mm512_xor_si512(x0, _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0,
						   0, 0, 0, 0, 0, 0, 0, (int)crc));
	p += 256;
	len -= 256;
	k = fold_k512(15);
	while (len >= 256) {
		x0 = fold512(x0, k, _mm512_loadu_si512((const void *)p));
		x1 = fold512(x1, k, _mm512_loadu_si512((const void *)(p + 64)));
		x2 = fold512(x2, k, _mm512_loadu_si512((const void *)(p + 128)));
		x3 = fold512(x3, k, _mm512_loadu_si512((const void *)(p + 192)));
		p += 256;
		len -= 256;
	}
	return crc_serial(reduce512(x0, x1, x2, x3), p, len);
}

/*
 * vpclmul256x3's scheme over 512-bit vectors: each chunk split into a
 * folded part (256 + 256n bytes, 4 zmm accumulators) and three crc32
 * streams of 40n bytes, advanced in the same loop.  On Zen 5 the folding
 * alone is bound by the carry-less multiplier's throughput; the crc32
 * instruction runs on the integer side meanwhile.
 */
T_VPCL512 __attribute__((noinline)) static uint32_t hybrid512(uint32_t crc, const uint8_t *p,
								size_t len)
{
	const __m512i k = fold_k512(15);

	while (len >= 256 + 376) {
		size_t n = hyb_steps(len, 256), vlen = 256 * (n + 1), L = 40 * n;
		const uint8_t *q, *s1 = p + vlen;
		uint64_t c[3] = { 0, 0, 0 };
		__m512i x0, x1, x2, x3;

		x0 = _mm512_loadu_si512((const void *)p);
		x1 = _mm512_loadu_si512((const void *)(p + 64));
		x2 = _mm512_loadu_si512((const void *)(p + 128));
		x3 = _mm512_loadu_si512((const void *)(p + 192));
		x0 = _mm512_xor_si512(x0, _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0,
							   0, 0, 0, 0, 0, 0, 0, (int)crc));
		q = p + 256;
		for (size_t i = 0; i < n; i++) {
			x0 = fold512(x0, k, _mm512_loadu_si512((const void *)q));
			x1 = fold512(x1, k, _mm512_loadu_si512((const void *)(q + 64)));
			x2 = fold512(x2, k, _mm512_loadu_si512((const void *)(q + 128)));
			x3 = fold512(x3, k, _mm512_loadu_si512((const void *)(q + 192)));
			crc3_step40(c, s1, L);
			q += 256;
			s1 += 40;
		}
		crc = crc3_join(reduce512(x0, x1, x2, x3), n, c);
		p += vlen + 3 * L;
		len -= vlen + 3 * L;
	}
	/* as in vpclmul256x3: no dirty upper halves left behind by the jump */
	_mm256_zeroupper();
	return crc32c_sse42x3(crc, p, len);
}

/* Below 2560 bytes the join costs more than the streams save (Zen 5: 2 KiB, 2.5 KiB). */
T_VPCL512 static uint32_t crc32c_vpclmul512x3(uint32_t crc, const uint8_t *p, size_t len)
{
	return len < 2560 ? crc32c_vpclmul512(crc, p, len) : hybrid512(crc, p, len);
}

static int cpu_sse42(unsigned int feat)
{
	return hash_x86_has(feat, HX86_SSE42);
}

static int cpu_sse42x3(unsigned int feat)
{
	return hash_x86_has(feat, HX86_SSE42 | HX86_PCLMUL);
}

static int cpu_vpclmul256(unsigned int feat)
{
	return hash_x86_has(feat, HX86_SSE42 | HX86_PCLMUL | HX86_AVX2 | HX86_VPCLMUL);
}

static int cpu_vpclmul512(unsigned int feat)
{
	return hash_x86_has(feat, HX86_SSE42 | HX86_PCLMUL | HX86_AVX2 | HX86_VPCLMUL | HX86_AVX512F);
}

/* Each variant as hash.h lists it: "simd-NAME", run by crc32c_NAME where cpu_ok says so. */
#define CRC32C_X86_IMPL(variant, cpu)							\
	const struct hash_impl crc32c_impl_##variant = {				\
		.name = "simd-" #variant, .short_name = #variant, .alg = HASH_CRC32C,	\
		.cpu_ok = cpu, .crc32c = crc32c_##variant,				\
	}
CRC32C_X86_IMPL(sse42, cpu_sse42);
CRC32C_X86_IMPL(sse42x3, cpu_sse42x3);
CRC32C_X86_IMPL(vpclmul256, cpu_vpclmul256);
CRC32C_X86_IMPL(vpclmul256x3, cpu_vpclmul256);
CRC32C_X86_IMPL(vpclmul512x3, cpu_vpclmul512);
CRC32C_X86_IMPL(vpclmul512, cpu_vpclmul512);

#endif

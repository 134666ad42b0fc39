// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 with the x86 SHA extensions.
 *
 * sha256rnds2 runs two rounds on the state split as {A,B,E,F} and
 * {C,D,G,H} (highest dword first), taking W[t]+K[t] for the two rounds in
 * the low quadword of its third operand and returning the new {A,B,E,F};
 * the old {A,B,E,F} is the new {C,D,G,H}, so the two state registers swap
 * roles every call.  sha256msg1 adds sigma0 of the next word to four
 * schedule words, sha256msg2 adds sigma1 of the words two back, giving
 * W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16] four at a time
 * (W[t-7] is the middle of the two previous groups: palignr).
 *
 * The multi-buffer form runs two independent messages in lock step:
 * one chain of sha256rnds2 is latency bound, several fill the unit.
 */
#include "crypto/hash-x86.h"

#if HASH_X86
#include <immintrin.h>

#define T_SHA	__attribute__((target("sse4.1,ssse3,sha")))

/* {A,B,E,F} and {C,D,G,H} from h[0..7] and back. */
T_SHA static inline void sha_load_state(const uint32_t h[8], __m128i *abef, __m128i *cdgh)
{
	*abef = _mm_set_epi32((int)h[0], (int)h[1], (int)h[4], (int)h[5]);
	*cdgh = _mm_set_epi32((int)h[2], (int)h[3], (int)h[6], (int)h[7]);
}

T_SHA static inline void sha_store_state(uint32_t h[8], __m128i abef, __m128i cdgh)
{
	uint32_t x[4], y[4];

	_mm_storeu_si128((__m128i *)x, abef);	/* F E B A */
	_mm_storeu_si128((__m128i *)y, cdgh);	/* H G D C */
	h[0] = x[3]; h[1] = x[2]; h[4] = x[1]; h[5] = x[0];
	h[2] = y[3]; h[3] = y[2]; h[6] = y[1]; h[7] = y[0];
}

T_SHA static inline __m128i sha_load_msg(const uint8_t *p)
{
	const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);

	return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
}

/* Four rounds with schedule words @m, round group @g (K[4g..4g+3]). */
#define SHA_R4(abef, cdgh, m, g) do {						\
	__m128i wk_ = _mm_add_epi32(m, _mm_load_si128((const __m128i *)&sha256_k[4 * (g)])); \
	cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk_);				\
	abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk_, 0x0e));	\
} while (0)

/* The next schedule group into @a from the four before it (a oldest, d newest). */
#define SHA_SCHED(a, b, c, d) \
	(a = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(a, b), \
						 _mm_alignr_epi8(d, c, 4)), d))

/* Groups 4..15 of one block; m0..m3 hold groups 0..3 and are consumed. */
#define SHA_BLOCK(abef, cdgh, m0, m1, m2, m3) do {				\
	SHA_R4(abef, cdgh, m0, 0);						\
	SHA_R4(abef, cdgh, m1, 1);						\
	SHA_R4(abef, cdgh, m2, 2);						\
	SHA_R4(abef, cdgh, m3, 3);						\
	for (int g_ = 4; g_ < 16; g_ += 4) {					\
		SHA_SCHED(m0, m1, m2, m3); SHA_R4(abef, cdgh, m0, g_);		\
		SHA_SCHED(m1, m2, m3, m0); SHA_R4(abef, cdgh, m1, g_ + 1);	\
		SHA_SCHED(m2, m3, m0, m1); SHA_R4(abef, cdgh, m2, g_ + 2);	\
		SHA_SCHED(m3, m0, m1, m2); SHA_R4(abef, cdgh, m3, g_ + 3);	\
	}									\
} while (0)

T_SHA static void sha256_blocks_shani(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	__m128i abef, cdgh;

	sha_load_state(h, &abef, &cdgh);
	while (nblocks--) {
		__m128i s0 = abef, s1 = cdgh;
		__m128i m0 = sha_load_msg(p), m1 = sha_load_msg(p + 16);
		__m128i m2 = sha_load_msg(p + 32), m3 = sha_load_msg(p + 48);

		SHA_BLOCK(abef, cdgh, m0, m1, m2, m3);
		abef = _mm_add_epi32(abef, s0);
		cdgh = _mm_add_epi32(cdgh, s1);
		p += 64;
	}
	sha_store_state(h, abef, cdgh);
}

/*
 * Two messages interleaved round by round.  On AMD Zen 3 two chains already
 * reach the sha256rnds2 throughput: four lanes measured no faster.
 */
#define SHA_LANES 2

#define SHA_R4X2(g, ma, mb) do {						\
	__m128i k_ = _mm_load_si128((const __m128i *)&sha256_k[4 * (g)]);	\
	__m128i wa_ = _mm_add_epi32(ma, k_), wb_ = _mm_add_epi32(mb, k_);	\
	cd_a = _mm_sha256rnds2_epu32(cd_a, ab_a, wa_);				\
	cd_b = _mm_sha256rnds2_epu32(cd_b, ab_b, wb_);				\
	ab_a = _mm_sha256rnds2_epu32(ab_a, cd_a, _mm_shuffle_epi32(wa_, 0x0e));	\
	ab_b = _mm_sha256rnds2_epu32(ab_b, cd_b, _mm_shuffle_epi32(wb_, 0x0e));	\
} while (0)

T_SHA static void sha256_multi_shani(uint32_t (*h)[8], const uint8_t *const *pp, size_t nblocks)
{
	__m128i ab_a, cd_a, ab_b, cd_b;
	const uint8_t *pa = pp[0], *pb = pp[1];

	sha_load_state(h[0], &ab_a, &cd_a);
	sha_load_state(h[1], &ab_b, &cd_b);
	while (nblocks--) {
		__m128i sa0 = ab_a, sa1 = cd_a, sb0 = ab_b, sb1 = cd_b;
		__m128i a0 = sha_load_msg(pa), a1 = sha_load_msg(pa + 16);
		__m128i a2 = sha_load_msg(pa + 32), a3 = sha_load_msg(pa + 48);
		__m128i b0 = sha_load_msg(pb), b1 = sha_load_msg(pb + 16);
		__m128i b2 = sha_load_msg(pb + 32), b3 = sha_load_msg(pb + 48);

		SHA_R4X2(0, a0, b0);
		SHA_R4X2(1, a1, b1);
		SHA_R4X2(2, a2, b2);
		SHA_R4X2(3, a3, b3);
		for (int g = 4; g < 16; g += 4) {
			SHA_SCHED(a0, a1, a2, a3); SHA_SCHED(b0, b1, b2, b3);
			SHA_R4X2(g, a0, b0);
			SHA_SCHED(a1, a2, a3, a0); SHA_SCHED(b1, b2, b3, b0);
			SHA_R4X2(g + 1, a1, b1);
			SHA_SCHED(a2, a3, a0, a1); SHA_SCHED(b2, b3, b0, b1);
			SHA_R4X2(g + 2, a2, b2);
			SHA_SCHED(a3, a0, a1, a2); SHA_SCHED(b3, b0, b1, b2);
			SHA_R4X2(g + 3, a3, b3);
		}
		ab_a = _mm_add_epi32(ab_a, sa0);
		cd_a = _mm_add_epi32(cd_a, sa1);
		ab_b = _mm_add_epi32(ab_b, sb0);
		cd_b = _mm_add_epi32(cd_b, sb1);
		pa += 64;
		pb += 64;
	}
	sha_store_state(h[0], ab_a, cd_a);
	sha_store_state(h[1], ab_b, cd_b);
}

static int cpu_shani(void)
{
	return hash_x86_has(HX86_SHA | HX86_SSE41 | HX86_SSSE3);
}

const struct hash_impl sha256_impl_shani = {
	.name = "simd-shani", .short_name = "shani", .alg = HASH_SHA256,
	.cpu_ok = cpu_shani, .sha256_blocks = sha256_blocks_shani,
	.lanes = SHA_LANES, .sha256_multi = sha256_multi_shani,
};
#endif

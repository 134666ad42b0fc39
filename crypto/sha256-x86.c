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
 * The multi-buffer form runs four independent messages in lock step:
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
 * Four messages interleaved round by round, each lane in its own named
 * registers.  One chain of sha256rnds2 is latency bound; on AMD Zen 3 two
 * chains nearly reach its throughput, four gain a few percent more.
 */
#define SHA_R4X4(g, j) do {							\
	__m128i k_ = _mm_load_si128((const __m128i *)&sha256_k[4 * (g)]);	\
	__m128i wa_ = _mm_add_epi32(ma##j, k_), wb_ = _mm_add_epi32(mb##j, k_);	\
	__m128i wc_ = _mm_add_epi32(mc##j, k_), wd_ = _mm_add_epi32(md##j, k_);	\
	cda = _mm_sha256rnds2_epu32(cda, aba, wa_);				\
	cdb = _mm_sha256rnds2_epu32(cdb, abb, wb_);				\
	cdc = _mm_sha256rnds2_epu32(cdc, abc, wc_);				\
	cdd = _mm_sha256rnds2_epu32(cdd, abd, wd_);				\
	aba = _mm_sha256rnds2_epu32(aba, cda, _mm_shuffle_epi32(wa_, 0x0e));	\
	abb = _mm_sha256rnds2_epu32(abb, cdb, _mm_shuffle_epi32(wb_, 0x0e));	\
	abc = _mm_sha256rnds2_epu32(abc, cdc, _mm_shuffle_epi32(wc_, 0x0e));	\
	abd = _mm_sha256rnds2_epu32(abd, cdd, _mm_shuffle_epi32(wd_, 0x0e));	\
} while (0)

#define SHA_SCHED4(w, x, y, z) do {						\
	SHA_SCHED(ma##w, ma##x, ma##y, ma##z); SHA_SCHED(mb##w, mb##x, mb##y, mb##z); \
	SHA_SCHED(mc##w, mc##x, mc##y, mc##z); SHA_SCHED(md##w, md##x, md##y, md##z); \
} while (0)

#define SHA_MSG4(x, pp) do {							\
	m##x##0 = sha_load_msg(pp); m##x##1 = sha_load_msg(pp + 16);		\
	m##x##2 = sha_load_msg(pp + 32); m##x##3 = sha_load_msg(pp + 48);	\
} while (0)

T_SHA static void sha256_multi_shani4(uint32_t (*h)[8], const uint8_t *const *pp, size_t nblocks)
{
	__m128i aba, abb, abc, abd, cda, cdb, cdc, cdd;
	const uint8_t *pa = pp[0], *pb = pp[1], *pc = pp[2], *pd = pp[3];

	sha_load_state(h[0], &aba, &cda);
	sha_load_state(h[1], &abb, &cdb);
	sha_load_state(h[2], &abc, &cdc);
	sha_load_state(h[3], &abd, &cdd);
	while (nblocks--) {
		__m128i sa0 = aba, sa1 = cda, sb0 = abb, sb1 = cdb;
		__m128i sc0 = abc, sc1 = cdc, sd0 = abd, sd1 = cdd;
		__m128i ma0, ma1, ma2, ma3, mb0, mb1, mb2, mb3;
		__m128i mc0, mc1, mc2, mc3, md0, md1, md2, md3;

		SHA_MSG4(a, pa); SHA_MSG4(b, pb); SHA_MSG4(c, pc); SHA_MSG4(d, pd);
		SHA_R4X4(0, 0);
		SHA_R4X4(1, 1);
		SHA_R4X4(2, 2);
		SHA_R4X4(3, 3);
		for (int g = 4; g < 16; g += 4) {
			SHA_SCHED4(0, 1, 2, 3); SHA_R4X4(g, 0);
			SHA_SCHED4(1, 2, 3, 0); SHA_R4X4(g + 1, 1);
			SHA_SCHED4(2, 3, 0, 1); SHA_R4X4(g + 2, 2);
			SHA_SCHED4(3, 0, 1, 2); SHA_R4X4(g + 3, 3);
		}
		aba = _mm_add_epi32(aba, sa0); cda = _mm_add_epi32(cda, sa1);
		abb = _mm_add_epi32(abb, sb0); cdb = _mm_add_epi32(cdb, sb1);
		abc = _mm_add_epi32(abc, sc0); cdc = _mm_add_epi32(cdc, sc1);
		abd = _mm_add_epi32(abd, sd0); cdd = _mm_add_epi32(cdd, sd1);
		pa += 64; pb += 64; pc += 64; pd += 64;
	}
	sha_store_state(h[0], aba, cda);
	sha_store_state(h[1], abb, cdb);
	sha_store_state(h[2], abc, cdc);
	sha_store_state(h[3], abd, cdd);
}

static int cpu_shani(unsigned int feat)
{
	return hash_x86_has(feat, HX86_SHA | HX86_SSE41 | HX86_SSSE3);
}

const struct hash_impl sha256_impl_shani = {
	.name = "simd-shani", .short_name = "shani", .alg = HASH_SHA256,
	.cpu_ok = cpu_shani, .sha256_blocks = sha256_blocks_shani,
	.lanes = 4, .sha256_multi = sha256_multi_shani4,
};
#endif

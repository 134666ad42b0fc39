// SPDX-License-Identifier: GPL-2.0
/*
 * XXH64 (xxHash 64-bit) from its specification: four accumulator lanes over
 * 32-byte stripes, merge, then 8/4/1-byte tail steps and the avalanche.
 * Plain scalar code: the four lanes are independent, so a modern core runs
 * them in parallel; loads go through get_le64() so big-endian hosts agree.
 */
#include "crypto/hash-impl.h"
#include "crypto/hash-x86.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	acc ^= xxh_round(0, v);
	return acc * P1 + P4;
}

void xxh64_stream_init(uint64_t v[4], uint64_t seed)
{
	v[0] = seed + P1 + P2;
	v[1] = seed + P2;
	v[2] = seed;
	v[3] = seed - P1;
}

/* Inlined into the one-shot digest too: its lanes then never go through memory. */
static inline __attribute__((always_inline)) void xxh_stripes(uint64_t v[4], const uint8_t *p,
							      size_t nstripes)
{
	uint64_t v1 = v[0], v2 = v[1], v3 = v[2], v4 = v[3];
	const uint8_t *end = p + 32 * nstripes;

	while (p < end) {
		uint64_t x1 = get_le64(p) * P2, x2 = get_le64(p + 8) * P2;
		uint64_t x3 = get_le64(p + 16) * P2, x4 = get_le64(p + 24) * P2;

		v1 = rotl64(v1 + x1, 31);
		v2 = rotl64(v2 + x2, 31);
		v3 = rotl64(v3 + x3, 31);
		v4 = rotl64(v4 + x4, 31);
		v1 *= P1;
		v2 *= P1;
		v3 *= P1;
		v4 *= P1;
		p += 32;
	}
	v[0] = v1; v[1] = v2; v[2] = v3; v[3] = v4;
}

void xxh64_stream_blocks(uint64_t v[4], const uint8_t *p, size_t nstripes)
{
	xxh_stripes(v, p, nstripes);
}

static inline uint64_t xxh_finish(uint64_t h, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		h ^= xxh_round(0, get_le64(p));
		h = rotl64(h, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		h ^= (uint64_t)get_le32(p) * P1;
		h = rotl64(h, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len--) {
		h ^= *p++ * P5;
		h = rotl64(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

static inline __attribute__((always_inline)) uint64_t
xxh_final(const uint64_t v[4], uint64_t total, const uint8_t *tail, size_t taillen, uint64_t seed)
{
	uint64_t h;

	if (total >= 32) {
		h = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18);
		h = xxh_merge(h, v[0]);
		h = xxh_merge(h, v[1]);
		h = xxh_merge(h, v[2]);
		h = xxh_merge(h, v[3]);
	} else {
		h = seed + P5;
	}
	h += total;
	return xxh_finish(h, tail, taillen);
}

uint64_t xxh64_stream_final(const uint64_t v[4], uint64_t total, const uint8_t *tail,
			    size_t taillen, uint64_t seed)
{
	return xxh_final(v, total, tail, taillen, seed);
}

uint64_t xxh64_digest(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t v[4];

	xxh64_stream_init(v, seed);
	if (len >= 32)
		xxh_stripes(v, p, len / 32);
	return xxh_final(v, len, p + (len & ~(size_t)31), len & 31, seed);
}

static const struct hash_impl xxhash64_impl_ref = {
	.name = "ref", .short_name = "ref", .alg = HASH_XXHASH64,
};

const struct hash_impl *const xxhash64_impls[] = {
#if HASH_X86
	&xxhash64_impl_avx512,	/* batch only */
#endif
	&xxhash64_impl_ref,
	NULL,
};

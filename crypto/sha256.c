// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 (FIPS 180-4).  The primitive compresses whole 64-byte blocks;
 * padding, HMAC and streaming live in hash.c.
 */
#include "crypto/hash-impl.h"
#include "crypto/hash-x86.h"

static inline uint32_t ror32(uint32_t x, int r)
{
	return (x >> r) | (x << (32 - r));
}

void sha256_blocks_ref(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	uint32_t w[64];

	while (nblocks--) {
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
		uint32_t e = h[4], f = h[5], g = h[6], hh = h[7];

		for (int i = 0; i < 16; i++)
			w[i] = get_be32(p + 4 * i);
		for (int i = 16; i < 64; i++) {
			uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
			uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

			w[i] = w[i - 16] + s0 + w[i - 7] + s1;
		}
		for (int i = 0; i < 64; i++) {
			uint32_t S1 = ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25);
			uint32_t ch = (e & f) ^ (~e & g);
			uint32_t t1 = hh + S1 + ch + sha256_k[i] + w[i];
			uint32_t S0 = ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22);
			uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
			uint32_t t2 = S0 + maj;

			hh = g; g = f; f = e; e = d + t1;
			d = c; c = b; b = a; a = t1 + t2;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d;
		h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
		p += 64;
	}
}

static const struct hash_impl sha256_impl_ref = {
	.name = "ref", .short_name = "ref", .alg = HASH_SHA256, .sha256_blocks = sha256_blocks_ref,
};

const struct hash_impl *const sha256_impls[] = {
#if HASH_HAVE_LIB
	&sha256_impl_lib,
#endif
#if HASH_X86
	&sha256_impl_avx512,	/* batch only: ahead of shani for batches */
	&sha256_impl_shani,
#endif
	&sha256_impl_ref,
	NULL,
};

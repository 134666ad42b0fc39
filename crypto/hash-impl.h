/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to crypto/: one struct hash_impl per implementation of one
 * algorithm.  Each algorithm file exports a static const table of them, best
 * first; hash.c picks one per context.  The per-block path makes at most one
 * indirect call (the primitive), no key setup.
 */
#ifndef BTRFS_KIT_CRYPTO_HASH_IMPL_H
#define BTRFS_KIT_CRYPTO_HASH_IMPL_H

#include <string.h>
#include <endian.h>
#include "crypto/hash.h"
#include "crypto/byte-order.h"

struct hash_impl {
	const char *name;		/* "ref", "simd-sse42", "lib-openssl" */
	const char *short_name;		/* what BTRFS_KIT_HASH_IMPL takes: "ref", "sse42" */
	enum hash_alg alg;
	/* Can this CPU run it, given hash_cpu_features()?  NULL: runs everywhere. */
	int (*cpu_ok)(unsigned int cpu_features);
	/* Primitives, one set by algorithm.  crc32c: raw register update, no inversion. */
	uint32_t (*crc32c)(uint32_t crc, const uint8_t *p, size_t len);
	/* sha256: compress @nblocks 64-byte blocks into @h. */
	void (*sha256_blocks)(uint32_t h[8], const uint8_t *p, size_t nblocks);
	/*
	 * blake2b: compress @nblocks 128-byte blocks, adding 128 to the counter
	 * @t before each; when @final, the last block adds @final_inc instead
	 * and is compressed with the last-block flag.
	 */
	void (*b2_blocks)(uint64_t h[8], const uint8_t *p, size_t nblocks, uint64_t t[2],
			  int final, size_t final_inc);
	/* Optional: whole one-shot digest (library providers); NULL: generic. */
	int (*digest)(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out);
	/* Optional: batch of same-size blocks; NULL: loop over the single path. */
	int (*batch)(const struct hash_ctx *ctx, const void *const *blocks, size_t nblocks,
		     size_t len, uint8_t *out);
	/* Optional: can this impl serve @ctx (library present, keyed form known)? */
	int (*usable)(const struct hash_ctx *ctx);
	/*
	 * Optional, library providers: once per context after the key is in
	 * ctx->key (HMAC keys longer than a block already hashed), build
	 * ctx->lib (the library's state after the key, copied per block);
	 * release frees it.  setup returns 0 or a negative errno.
	 */
	int (*setup)(struct hash_ctx *ctx);
	void (*release)(struct hash_ctx *ctx);
	/*
	 * Optional multi-buffer primitives: compress @nblocks blocks of each of
	 * @lanes independent messages at once (h[i] with p[i]).  blake2b lanes
	 * share the counter and flags: the batch path hashes equal lengths.
	 * hash_digest_batch() uses them when @lanes > 1.
	 */
	unsigned int lanes;
	/*
	 * Optional: on a CPU with all these feature bits the automatic choice
	 * passes this entry over for one-shot digests (a later entry is faster
	 * there, measured); batches and forcing still take it.
	 */
	unsigned int single_slower_with;
	void (*sha256_multi)(uint32_t (*h)[8], const uint8_t *const *p, size_t nblocks);
	void (*b2_multi)(uint64_t (*h)[8], const uint8_t *const *p, size_t nblocks, uint64_t t[2],
			 int final, size_t final_inc);
	/* xxhash64: @nstripes 32-byte stripes of each message into its accumulators v[i]. */
	void (*xxh64_multi)(uint64_t (*v)[4], const uint8_t *const *p, size_t nstripes);
};

/*
 * NULL-terminated tables, best first.  One-shot digests take the first entry
 * with a single-message path (crc32c, sha256_blocks, b2_blocks or digest);
 * batches the first with lanes (a batch-only entry has no single path).
 */
extern const struct hash_impl *const crc32c_impls[];
extern const struct hash_impl *const xxhash64_impls[];
extern const struct hash_impl *const sha256_impls[];
extern const struct hash_impl *const blake2b_impls[];

/* Reference primitives, also used by streaming under library providers. */
uint32_t crc32c_ref(uint32_t crc, const uint8_t *p, size_t len);
void sha256_blocks_ref(uint32_t h[8], const uint8_t *p, size_t nblocks);
void blake2b_blocks_ref(uint64_t h[8], const uint8_t *p, size_t nblocks, uint64_t t[2],
			int final, size_t final_inc);

/* xxhash64 has no per-block primitive beyond these. */
uint64_t xxh64_digest(const void *data, size_t len, uint64_t seed);
void xxh64_stream_init(uint64_t v[4], uint64_t seed);
void xxh64_stream_blocks(uint64_t v[4], const uint8_t *p, size_t nstripes);
uint64_t xxh64_stream_final(const uint64_t v[4], uint64_t total, const uint8_t *tail,
			    size_t taillen, uint64_t seed);

/*
 * The CPU feature bits the cpu_ok hooks take (crypto/hash-x86.h; 0 off x86),
 * queried once per context set-up and passed on.
 */
unsigned int hash_cpu_features(void);

/* The generic one-shot digests hash.c builds from the primitives. */
int hash_generic_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out);

/* The configured library provider's impls (crypto/lib-*.c), first in their tables. */
#if !defined(CRYPTOPROVIDER_BUILTIN)
extern const struct hash_impl sha256_impl_lib;
extern const struct hash_impl blake2b_impl_lib;
#define HASH_HAVE_LIB 1
#else
#define HASH_HAVE_LIB 0
#endif

extern const uint32_t sha256_iv[8];
extern const uint32_t sha256_k[64];
extern const uint64_t blake2b_iv[8];

/* Clear memory the compiler may not elide. */
static inline void hash_wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HASH_X86 1
#else
#define HASH_X86 0
#endif

#endif

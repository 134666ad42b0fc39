/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksums: crc32c, xxhash64, sha256, blake2b-256 and the keyed forms
 * HMAC-SHA256 and keyed BLAKE2b-256.  This layer knows nothing of btrfs.
 *
 * Usage: set up one struct hash_ctx per filesystem (algorithm, optional key)
 * with hash_ctx_init(); it selects the implementation once (CPUID, or the
 * BTRFS_KIT_HASH_IMPL environment variable) and precomputes everything that
 * depends on the key.  Then one hash_digest() call per block, or
 * hash_digest_batch() for many blocks of one size, or the streaming
 * hash_init()/hash_update()/hash_final() for data in pieces.
 *
 * Digest bytes are what btrfs stores: crc32c as the standard CRC-32C value
 * (init ~0, final xor ~0) in 4 little-endian bytes, xxhash64 (seed 0) in 8
 * little-endian bytes, sha256 and blake2b-256 as their natural byte strings.
 *
 * Every function returns 0 or a negative errno; nothing here exits.
 * The structures are fixed size: no allocation is ever needed, and a
 * hash_ctx may be shared read-only by many threads.
 */
#ifndef BTRFS_KIT_CRYPTO_HASH_H
#define BTRFS_KIT_CRYPTO_HASH_H

#include <stdint.h>
#include <stddef.h>

enum hash_alg {
	HASH_CRC32C = 0,
	HASH_XXHASH64 = 1,
	HASH_SHA256 = 2,
	HASH_BLAKE2B_256 = 3,
};
#define HASH_NR_ALGS		4
#define HASH_MAX_DIGEST		32
#define HASH_MAX_KEY		64	/* keyed BLAKE2b limit; HMAC keys may be longer */

/* Environment variable that forces one implementation (see hash_ctx_init()). */
#define HASH_IMPL_ENV		"BTRFS_KIT_HASH_IMPL"

struct hash_impl;			/* crypto/hash-impl.h, private */

/* Per-filesystem checksum context; treat the members as private. */
struct hash_ctx {
	enum hash_alg alg;
	uint32_t keyed;			/* 1 when set up with a key */
	const struct hash_impl *impl;	/* selected implementation */
	uint32_t keylen;		/* bytes in key[] (HMAC: hashed when > 64) */
	uint8_t key[HASH_MAX_KEY];	/* raw key, for library providers */
	union {
		struct {		/* HMAC-SHA256: states after ipad / opad block */
			uint32_t inner[8];
			uint32_t outer[8];
		} hmac;
		struct {		/* keyed BLAKE2b */
			uint64_t param[8];	/* IV ^ parameter block */
			uint64_t keyed[8];	/* after compressing the key block */
		} b2;
	} pre;
	void *lib;			/* library provider's keyed template, or NULL */
	const struct hash_impl *prim;	/* builtin primitives for streaming and key set-up */
	const struct hash_impl *multi;	/* multi-buffer primitives for batches, or NULL */
};

/* Streaming state; treat the members as private. */
struct hash_state {
	const struct hash_ctx *ctx;
	uint64_t total;			/* bytes fed so far */
	uint32_t buflen;		/* bytes pending in buf */
	union {
		uint32_t crc;
		uint64_t xxh[4];
		uint32_t sha[8];
		uint64_t b2[8];
	} h;
	uint8_t buf[128];
};

int hash_ctx_init(struct hash_ctx *ctx, enum hash_alg alg, const uint8_t *key, size_t keylen);
void hash_ctx_release(struct hash_ctx *ctx);
size_t hash_digest_size(enum hash_alg alg);
const char *hash_alg_name(enum hash_alg alg);
int hash_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out);
int hash_digest_batch(const struct hash_ctx *ctx, const void *const *blocks, size_t nblocks,
		      size_t len, uint8_t *out);
int hash_init(struct hash_state *st, const struct hash_ctx *ctx);
int hash_update(struct hash_state *st, const void *data, size_t len);
int hash_final(struct hash_state *st, uint8_t *out);
const char *hash_provider_name(void);
/*
 * The bare CRC-32C register update: no initial or final inversion, so the
 * caller picks the seed.  For hashes built on crc32c (btrfs name hashes and
 * data-ref hashes), not for checksums: use hash_digest() for those.
 */
uint32_t crc32c_raw(uint32_t seed, const void *data, size_t len);
const char *hash_impl_name(const struct hash_ctx *ctx);
/* The implementation hash_digest_batch() runs side by side, or NULL when it loops. */
const char *hash_batch_impl_name(const struct hash_ctx *ctx);
/* Blocks hash_digest_batch() hashes side by side for this context (1: none). */
unsigned int hash_impl_lanes(const struct hash_ctx *ctx);

/*
 * Extras for tests and benchmarks: the names of the implementations this
 * build has for @alg, supported by this CPU or not.  Returns the name of the
 * @idx-th one ("ref", "simd-sse42", ...) or NULL past the end; *supported
 * says whether the CPU can run it.  The short form (after "simd-"/"lib-") is
 * what BTRFS_KIT_HASH_IMPL accepts.
 */
const char *hash_impl_enum(enum hash_alg alg, unsigned int idx, int *supported);
/* Like hash_ctx_init() but with the implementation named explicitly. */
int hash_ctx_init_impl(struct hash_ctx *ctx, enum hash_alg alg, const uint8_t *key,
		       size_t keylen, const char *impl);

#endif

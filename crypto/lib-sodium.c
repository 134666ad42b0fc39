// SPDX-License-Identifier: GPL-2.0
/*
 * libsodium provider (./configure --with-crypto=libsodium): sha256,
 * blake2b-256, HMAC-SHA256 and keyed BLAKE2b-256.  Keyed digests copy a
 * state struct initialised with the key once in setup (HMAC inner/outer
 * states, the BLAKE2b state after its key block): a plain memory copy per
 * block, the import-and-finish of dm-verity.
 */
#ifdef CRYPTOPROVIDER_LIBSODIUM
#include <errno.h>
#include <stdlib.h>
#include <sodium.h>
#include "crypto/hash-impl.h"

static int so_setup(struct hash_ctx *ctx)
{
	if (sodium_init() < 0)
		return -EOPNOTSUPP;
	if (!ctx->keyed)
		return 0;
	if (ctx->alg == HASH_SHA256) {
		crypto_auth_hmacsha256_state *st = malloc(sizeof(*st));

		if (!st)
			return -ENOMEM;
		crypto_auth_hmacsha256_init(st, ctx->key, ctx->keylen);
		ctx->lib = st;
	} else {
		size_t sz = (sizeof(crypto_generichash_blake2b_state) + 63) & ~(size_t)63;
		crypto_generichash_blake2b_state *st = aligned_alloc(64, sz);

		if (!st)
			return -ENOMEM;
		if (crypto_generichash_blake2b_init(st, ctx->key, ctx->keylen, 32)) {
			free(st);
			return -EINVAL;
		}
		ctx->lib = st;
	}
	return 0;
}

static void so_release(struct hash_ctx *ctx)
{
	size_t sz = ctx->alg == HASH_SHA256 ? sizeof(crypto_auth_hmacsha256_state) :
		    sizeof(crypto_generichash_blake2b_state);

	sodium_memzero(ctx->lib, sz);
	free(ctx->lib);
	ctx->lib = NULL;
}

static int so_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out)
{
	int ret;

	if (ctx->alg == HASH_SHA256) {
		crypto_auth_hmacsha256_state st;

		if (!ctx->keyed)
			return crypto_hash_sha256(out, data, len) ? -EIO : 0;
		memcpy(&st, ctx->lib, sizeof(st));
		crypto_auth_hmacsha256_update(&st, data, len);
		ret = crypto_auth_hmacsha256_final(&st, out);
		sodium_memzero(&st, sizeof(st));
	} else {
		crypto_generichash_blake2b_state st;

		if (!ctx->keyed)
			return crypto_generichash_blake2b(out, 32, data, len, NULL, 0) ? -EIO : 0;
		memcpy(&st, ctx->lib, sizeof(st));
		crypto_generichash_blake2b_update(&st, data, len);
		ret = crypto_generichash_blake2b_final(&st, out, 32);
		sodium_memzero(&st, sizeof(st));
	}
	return ret ? -EIO : 0;
}

const struct hash_impl sha256_impl_lib = {
	.name = "lib-sodium", .short_name = "sodium", .alg = HASH_SHA256,
	.digest = so_digest, .setup = so_setup, .release = so_release,
};

const struct hash_impl blake2b_impl_lib = {
	.name = "lib-sodium", .short_name = "sodium", .alg = HASH_BLAKE2B_256,
	.digest = so_digest, .setup = so_setup, .release = so_release,
};
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * OpenSSL 3 provider (./configure --with-crypto=openssl): sha256,
 * HMAC-SHA256 and keyed BLAKE2b-256 (EVP_MAC "BLAKE2BMAC" with size 32).
 * OpenSSL 3.0 has no unkeyed BLAKE2b with a 32-byte digest parameter (only
 * BLAKE2B-512, whose truncation is a different hash), so unkeyed blake2b
 * stays with the builtin code: usable() says no and the next entry of the
 * table serves it.
 *
 * The digest or MAC is fetched once in setup.  A keyed context keeps an
 * EVP_MAC_CTX initialised with the key, duplicated per block (a copy of the
 * state after the key, never re-keyed) and freed; the template is only read.
 */
#ifdef CRYPTOPROVIDER_OPENSSL
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include "crypto/hash-impl.h"

static int os_usable(const struct hash_ctx *ctx)
{
	return ctx->alg == HASH_SHA256 || ctx->keyed;
}

static int os_setup(struct hash_ctx *ctx)
{
	OSSL_PARAM params[2];
	size_t size = 32;
	EVP_MAC_CTX *mc;
	EVP_MAC *mac;
	int ok;

	if (!ctx->keyed) {
		ctx->lib = EVP_MD_fetch(NULL, "SHA256", NULL);
		return ctx->lib ? 0 : -EOPNOTSUPP;
	}
	mac = EVP_MAC_fetch(NULL, ctx->alg == HASH_SHA256 ? "HMAC" : "BLAKE2BMAC", NULL);
	if (!mac)
		return -EOPNOTSUPP;
	mc = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac);
	if (!mc)
		return -ENOMEM;
	if (ctx->alg == HASH_SHA256)
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0);
	else
		params[0] = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(mc, ctx->key, ctx->keylen, params);
	if (!ok) {
		EVP_MAC_CTX_free(mc);
		return -EINVAL;
	}
	ctx->lib = mc;
	return 0;
}

static void os_release(struct hash_ctx *ctx)
{
	if (ctx->keyed)
		EVP_MAC_CTX_free(ctx->lib);
	else
		EVP_MD_free(ctx->lib);
	ctx->lib = NULL;
}

static int os_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out)
{
	EVP_MAC_CTX *mc;
	size_t outlen = 0;
	int ok;

	if (!ctx->keyed)
		return EVP_Digest(data, len, out, NULL, ctx->lib, NULL) ? 0 : -EIO;
	mc = EVP_MAC_CTX_dup(ctx->lib);
	if (!mc)
		return -ENOMEM;
	ok = EVP_MAC_update(mc, data, len) && EVP_MAC_final(mc, out, &outlen, 32) && outlen == 32;
	EVP_MAC_CTX_free(mc);
	return ok ? 0 : -EIO;
}

const struct hash_impl sha256_impl_lib = {
	.name = "lib-openssl", .short_name = "openssl", .alg = HASH_SHA256,
	.digest = os_digest, .usable = os_usable, .setup = os_setup, .release = os_release,
};

const struct hash_impl blake2b_impl_lib = {
	.name = "lib-openssl", .short_name = "openssl", .alg = HASH_BLAKE2B_256,
	.digest = os_digest, .usable = os_usable, .setup = os_setup, .release = os_release,
};
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * libgcrypt provider (./configure --with-crypto=libgcrypt): sha256,
 * blake2b-256, HMAC-SHA256 and keyed BLAKE2b-256.  Unkeyed digests are one
 * gcry_md_hash_buffer() call.  Keyed ones start from a handle keyed once in
 * setup (HMAC pads or the BLAKE2b key block processed) and copied per block
 * with gcry_md_copy(), so no key setup happens per block; the template is
 * only read, so the context stays shareable between threads.
 */
#ifdef CRYPTOPROVIDER_LIBGCRYPT
#include <errno.h>
#include <gcrypt.h>
#include "crypto/hash-impl.h"

static int gc_algo(const struct hash_ctx *ctx)
{
	return ctx->alg == HASH_SHA256 ? GCRY_MD_SHA256 : GCRY_MD_BLAKE2B_256;
}

static int gc_setup(struct hash_ctx *ctx)
{
	gcry_md_hd_t h;

	if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		if (!gcry_check_version(GCRYPT_VERSION))
			return -EOPNOTSUPP;
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	}
	if (!ctx->keyed)
		return 0;
	/* HMAC for sha256; for BLAKE2b a key on a plain handle is its own keyed mode. */
	if (gcry_md_open(&h, gc_algo(ctx), ctx->alg == HASH_SHA256 ? GCRY_MD_FLAG_HMAC : 0))
		return -ENOMEM;
	if (gcry_md_setkey(h, ctx->key, ctx->keylen)) {
		gcry_md_close(h);
		return -EINVAL;
	}
	ctx->lib = h;
	return 0;
}

static void gc_release(struct hash_ctx *ctx)
{
	gcry_md_close(ctx->lib);
	ctx->lib = NULL;
}

static int gc_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out)
{
	gcry_md_hd_t h;
	const unsigned char *d;

	if (!ctx->keyed) {
		gcry_md_hash_buffer(gc_algo(ctx), out, data, len);
		return 0;
	}
	if (gcry_md_copy(&h, ctx->lib))
		return -ENOMEM;
	gcry_md_write(h, data, len);
	d = gcry_md_read(h, 0);
	if (d)
		memcpy(out, d, 32);
	gcry_md_close(h);
	return d ? 0 : -EIO;
}

const struct hash_impl sha256_impl_lib = {
	.name = "lib-gcrypt", .short_name = "gcrypt", .alg = HASH_SHA256,
	.digest = gc_digest, .setup = gc_setup, .release = gc_release,
};

const struct hash_impl blake2b_impl_lib = {
	.name = "lib-gcrypt", .short_name = "gcrypt", .alg = HASH_BLAKE2B_256,
	.digest = gc_digest, .setup = gc_setup, .release = gc_release,
};
#endif

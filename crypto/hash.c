// SPDX-License-Identifier: GPL-2.0
/*
 * The checksum API (crypto/hash.h): implementation choice, key setup,
 * one-shot, batch and streaming digests on top of the per-algorithm
 * primitives of crc32c.c, xxhash64.c, sha256.c, blake2b.c and the library
 * providers.
 *
 * Choice of implementation, once per context: the first entry of the
 * algorithm's table (best first) that the CPU supports and that can serve
 * the context (a library provider may lack a form, e.g. OpenSSL 3.0 has no
 * unkeyed BLAKE2b-256).  One-shot digests and batches choose apart: a
 * one-shot needs a single-message path (and an entry may step aside for
 * one-shots on CPUs where a later one is faster), a batch the first entry
 * with lanes (none under a library provider: it computes what it can).
 * BTRFS_KIT_HASH_IMPL=name[,name...] forces one: for
 * each algorithm the first listed name it has ("ref", "sse42", "simd-sse42",
 * ...) is used, or hash_ctx_init() fails with -EOPNOTSUPP when this CPU or
 * build cannot run it; names no algorithm has give -EINVAL; an algorithm
 * that has none of the listed names keeps its default.  A forced entry
 * serves both paths it has; a batch-only one leaves one-shots the default.
 */
#include <errno.h>
#include <stdlib.h>
#include "crypto/hash-impl.h"
#include "crypto/hash-x86.h"

static const struct hash_impl *const *const impl_tables[HASH_NR_ALGS] = {
	[HASH_CRC32C] = crc32c_impls,
	[HASH_XXHASH64] = xxhash64_impls,
	[HASH_SHA256] = sha256_impls,
	[HASH_BLAKE2B_256] = blake2b_impls,
};

static const char *const alg_names[HASH_NR_ALGS] = {
	[HASH_CRC32C] = "crc32c",
	[HASH_XXHASH64] = "xxhash64",
	[HASH_SHA256] = "sha256",
	[HASH_BLAKE2B_256] = "blake2b",
};

static const uint8_t digest_sizes[HASH_NR_ALGS] = {
	[HASH_CRC32C] = 4,
	[HASH_XXHASH64] = 8,
	[HASH_SHA256] = 32,
	[HASH_BLAKE2B_256] = 32,
};

static int alg_valid(enum hash_alg alg)
{
	return (unsigned int)alg < HASH_NR_ALGS;
}

size_t hash_digest_size(enum hash_alg alg)
{
	return alg_valid(alg) ? digest_sizes[alg] : 0;
}

const char *hash_alg_name(enum hash_alg alg)
{
	return alg_valid(alg) ? alg_names[alg] : NULL;
}

const char *hash_provider_name(void)
{
	return CRYPTOPROVIDER;
}

const char *hash_impl_name(const struct hash_ctx *ctx)
{
	return ctx && ctx->impl ? ctx->impl->name : NULL;
}

const char *hash_batch_impl_name(const struct hash_ctx *ctx)
{
	return ctx && ctx->multi ? ctx->multi->name : NULL;
}

unsigned int hash_impl_lanes(const struct hash_ctx *ctx)
{
	return ctx && ctx->multi ? ctx->multi->lanes : 1;
}

unsigned int hash_cpu_features(void)
{
#if HASH_X86
	return hash_x86_features();
#else
	return 0;
#endif
}

static int impl_cpu_ok(const struct hash_impl *impl, unsigned int feat)
{
	return !impl->cpu_ok || impl->cpu_ok(feat);
}

const char *hash_impl_enum(enum hash_alg alg, unsigned int idx, int *supported)
{
	const struct hash_impl *const *tab;

	if (!alg_valid(alg))
		return NULL;
	tab = impl_tables[alg];
	for (unsigned int i = 0; tab[i]; i++) {
		if (i == idx) {
			if (supported)
				*supported = impl_cpu_ok(tab[i], hash_cpu_features());
			return tab[i]->name;
		}
	}
	return NULL;
}

static int impl_matches(const struct hash_impl *impl, const char *name, size_t len)
{
	return (strlen(impl->name) == len && !memcmp(impl->name, name, len)) ||
	       (strlen(impl->short_name) == len && !memcmp(impl->short_name, name, len));
}

static const struct hash_impl *find_impl(enum hash_alg alg, const char *name, size_t len)
{
	const struct hash_impl *const *tab = impl_tables[alg];

	for (unsigned int i = 0; tab[i]; i++)
		if (impl_matches(tab[i], name, len))
			return tab[i];
	return NULL;
}

/*
 * Pick the implementation named in the comma list @spec for @alg.
 * Returns 1 and *out when one is named, 0 when none applies to @alg,
 * -EINVAL for a name that no algorithm has.
 */
static int forced_impl(enum hash_alg alg, const char *spec, const struct hash_impl **out)
{
	const char *p = spec;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len) {
			const struct hash_impl *impl = find_impl(alg, p, len);
			int known = 0;

			if (impl) {
				*out = impl;
				return 1;
			}
			for (int a = 0; a < HASH_NR_ALGS; a++)
				if (find_impl(a, p, len))
					known = 1;
			if (!known)
				return -EINVAL;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* sha256 over a whole buffer with the context's primitive, ignoring any key. */
static void sha256_blocks_of(const struct hash_ctx *ctx, uint32_t h[8], const uint8_t *p,
			     size_t nblocks)
{
	if (ctx->prim && ctx->prim->sha256_blocks)
		ctx->prim->sha256_blocks(h, p, nblocks);
	else
		sha256_blocks_ref(h, p, nblocks);
}

static void b2_blocks_of(const struct hash_ctx *ctx, uint64_t h[8], const uint8_t *p,
			 size_t nblocks, uint64_t t[2], int final, size_t final_inc)
{
	if (ctx->prim && ctx->prim->b2_blocks)
		ctx->prim->b2_blocks(h, p, nblocks, t, final, final_inc);
	else
		blake2b_blocks_ref(h, p, nblocks, t, final, final_inc);
}

/* The padded last block(s) of the last (< 64) bytes; returns 1 or 2 blocks. */
static size_t sha256_pad(uint8_t blk[128], const uint8_t *tail, size_t taillen, uint64_t total)
{
	size_t n = taillen < 56 ? 64 : 128;

	memcpy(blk, tail, taillen);
	blk[taillen] = 0x80;
	memset(blk + taillen + 1, 0, n - taillen - 1 - 8);
	put_be64(blk + n - 8, total * 8);
	return n / 64;
}

/* Pad and compress the last (< 64) bytes; @total counts every byte hashed. */
static void sha256_tail(const struct hash_ctx *ctx, uint32_t h[8], const uint8_t *tail,
			size_t taillen, uint64_t total)
{
	uint8_t blk[128];
	size_t n = sha256_pad(blk, tail, taillen, total);

	sha256_blocks_of(ctx, h, blk, n);
}

static void sha256_out(const uint32_t h[8], uint8_t *out)
{
	for (int i = 0; i < 8; i++)
		put_be32(out + 4 * i, h[i]);
}

/* HMAC outer hash: H(K ^ opad || inner) from the precomputed opad state. */
static void hmac_outer(const struct hash_ctx *ctx, const uint32_t inner[8], uint8_t *out)
{
	uint32_t h[8];
	uint8_t d[32];

	sha256_out(inner, d);
	memcpy(h, ctx->pre.hmac.outer, sizeof(h));
	sha256_tail(ctx, h, d, 32, 64 + 32);
	sha256_out(h, out);
}

static void sha256_oneshot(const struct hash_ctx *ctx, const uint8_t *p, size_t len,
			   uint8_t *out)
{
	uint32_t h[8];
	size_t full = len / 64;

	memcpy(h, ctx->keyed ? ctx->pre.hmac.inner : sha256_iv, sizeof(h));
	if (full)
		sha256_blocks_of(ctx, h, p, full);
	sha256_tail(ctx, h, p + full * 64, len - full * 64, len + (ctx->keyed ? 64 : 0));
	if (ctx->keyed)
		hmac_outer(ctx, h, out);
	else
		sha256_out(h, out);
}

static void b2_out(const uint64_t h[8], uint8_t *out)
{
	for (int i = 0; i < 4; i++)
		put_le64(out + 8 * i, h[i]);
}

static void blake2b_oneshot(const struct hash_ctx *ctx, const uint8_t *p, size_t len,
			    uint8_t *out)
{
	uint64_t h[8], t[2] = { 0, 0 };
	uint8_t blk[128];
	size_t nonfinal, rest;

	if (!len) {
		/* Only the final block: the key block when keyed, else zeros. */
		memcpy(h, ctx->pre.b2.param, sizeof(h));
		memset(blk, 0, sizeof(blk));
		if (ctx->keyed)
			memcpy(blk, ctx->key, ctx->keylen);
		b2_blocks_of(ctx, h, blk, 1, t, 1, ctx->keyed ? 128 : 0);
		if (ctx->keyed)
			hash_wipe(blk, sizeof(blk));
		b2_out(h, out);
		return;
	}
	if (ctx->keyed) {
		memcpy(h, ctx->pre.b2.keyed, sizeof(h));
		t[0] = 128;
	} else {
		memcpy(h, ctx->pre.b2.param, sizeof(h));
	}
	nonfinal = (len - 1) / 128;
	rest = len - nonfinal * 128;
	if (rest == 128) {
		b2_blocks_of(ctx, h, p, nonfinal + 1, t, 1, 128);
	} else {
		if (nonfinal)
			b2_blocks_of(ctx, h, p, nonfinal, t, 0, 0);
		memcpy(blk, p + nonfinal * 128, rest);
		memset(blk + rest, 0, 128 - rest);
		b2_blocks_of(ctx, h, blk, 1, t, 1, rest);
	}
	b2_out(h, out);
}

int hash_generic_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out)
{
	switch (ctx->alg) {
	case HASH_CRC32C:
		put_le32(out, ~ctx->impl->crc32c(~0U, data, len));
		return 0;
	case HASH_XXHASH64:
		put_le64(out, xxh64_digest(data, len, 0));
		return 0;
	case HASH_SHA256:
		sha256_oneshot(ctx, data, len, out);
		return 0;
	case HASH_BLAKE2B_256:
		blake2b_oneshot(ctx, data, len, out);
		return 0;
	}
	return -EINVAL;
}

int hash_digest(const struct hash_ctx *ctx, const void *data, size_t len, uint8_t *out)
{
	if (!ctx || !ctx->impl || (!data && len) || !out)
		return -EINVAL;
	if (ctx->impl->digest)
		return ctx->impl->digest(ctx, data, len, out);
	return hash_generic_digest(ctx, data, len, out);
}

#define BATCH_MAX_LANES 16

/* @n (the impl's lane count) sha256 or HMAC-SHA256 digests of @len bytes each, side by side. */
static void sha256_multi_digest(const struct hash_ctx *ctx, const uint8_t *const *p,
				unsigned int n, size_t len, uint8_t *out)
{
	uint32_t h[BATCH_MAX_LANES][8];
	uint8_t tail[BATCH_MAX_LANES][128];
	const uint8_t *tp[BATCH_MAX_LANES] = { NULL };
	size_t full = len / 64, tn = 1;
	uint64_t total = len + (ctx->keyed ? 64 : 0);

	for (unsigned int i = 0; i < n; i++)
		memcpy(h[i], ctx->keyed ? ctx->pre.hmac.inner : sha256_iv, 32);
	if (full)
		ctx->multi->sha256_multi(h, p, full);
	for (unsigned int i = 0; i < n; i++) {
		tn = sha256_pad(tail[i], p[i] + full * 64, len - full * 64, total);
		tp[i] = tail[i];
	}
	ctx->multi->sha256_multi(h, tp, tn);
	if (ctx->keyed) {
		for (unsigned int i = 0; i < n; i++) {
			uint8_t d[32];

			sha256_out(h[i], d);
			sha256_pad(tail[i], d, 32, 64 + 32);
			memcpy(h[i], ctx->pre.hmac.outer, 32);
		}
		ctx->multi->sha256_multi(h, tp, 1);
	}
	for (unsigned int i = 0; i < n; i++)
		sha256_out(h[i], out + 32 * i);
}

/* @n blake2b-256 (keyed or not) digests of @len > 0 bytes each, side by side. */
static void b2_multi_digest(const struct hash_ctx *ctx, const uint8_t *const *p,
			    unsigned int n, size_t len, uint8_t *out)
{
	uint64_t h[BATCH_MAX_LANES][8], t[2] = { ctx->keyed ? 128 : 0, 0 };
	uint8_t tail[BATCH_MAX_LANES][128];
	const uint8_t *tp[BATCH_MAX_LANES] = { NULL };
	size_t nonfinal = (len - 1) / 128, rest = len - nonfinal * 128;

	for (unsigned int i = 0; i < n; i++)
		memcpy(h[i], ctx->keyed ? ctx->pre.b2.keyed : ctx->pre.b2.param, 64);
	if (nonfinal)
		ctx->multi->b2_multi(h, p, nonfinal, t, 0, 0);
	for (unsigned int i = 0; i < n; i++) {
		if (rest == 128) {
			tp[i] = p[i] + nonfinal * 128;
			continue;
		}
		memcpy(tail[i], p[i] + nonfinal * 128, rest);
		memset(tail[i] + rest, 0, 128 - rest);
		tp[i] = tail[i];
	}
	ctx->multi->b2_multi(h, tp, 1, t, 1, rest);
	for (unsigned int i = 0; i < n; i++)
		b2_out(h[i], out + 32 * i);
}

/* @n xxhash64 digests of @len bytes each: the stripes side by side, the rest per message. */
static void xxh_multi_digest(const struct hash_ctx *ctx, const uint8_t *const *p,
			     unsigned int n, size_t len, uint8_t *out)
{
	uint64_t v[BATCH_MAX_LANES][4];
	size_t nstripes = len / 32;

	for (unsigned int i = 0; i < n; i++)
		xxh64_stream_init(v[i], 0);
	if (nstripes)
		ctx->multi->xxh64_multi(v, p, nstripes);
	for (unsigned int i = 0; i < n; i++)
		put_le64(out + 8 * i, xxh64_stream_final(v[i], len, p[i] + 32 * nstripes, len & 31, 0));
}

/*
 * One group of @n blocks through the multi-buffer primitive, @n up to its
 * lane count: missing lanes repeat the last block and their digests are
 * dropped.
 */
static void multi_group(const struct hash_ctx *ctx, const void *const *blocks, unsigned int n,
			size_t len, uint8_t *out)
{
	const struct hash_impl *impl = ctx->multi;
	const uint8_t *p[BATCH_MAX_LANES];
	uint8_t tmp[BATCH_MAX_LANES * 32];
	uint8_t *dst = n < impl->lanes ? tmp : out;

	for (unsigned int i = 0; i < impl->lanes; i++)
		p[i] = blocks[i < n ? i : n - 1];
	if (ctx->alg == HASH_SHA256)
		sha256_multi_digest(ctx, p, impl->lanes, len, dst);
	else if (ctx->alg == HASH_XXHASH64)
		xxh_multi_digest(ctx, p, impl->lanes, len, dst);
	else
		b2_multi_digest(ctx, p, impl->lanes, len, dst);
	if (dst == tmp)
		memcpy(out, tmp, (size_t)n * digest_sizes[ctx->alg]);
}

/*
 * Groups of lanes through the multi-buffer primitive; returns blocks done.
 * A last partial group of at least a quarter of the lanes is padded (the
 * multi-buffer forms cost about as much as lanes/4 single digests or less),
 * fewer are left to the single path.
 */
static size_t multi_batch(const struct hash_ctx *ctx, const void *const *blocks, size_t nblocks,
			  size_t len, uint8_t *out)
{
	const struct hash_impl *impl = ctx->multi;
	size_t ds = digest_sizes[ctx->alg];
	unsigned int n;
	size_t done = 0;

	if (!impl || (ctx->alg == HASH_BLAKE2B_256 && !len))
		return 0;
	n = impl->lanes;
	for (; done + n <= nblocks; done += n)
		multi_group(ctx, blocks + done, n, len, out + done * ds);
	if (nblocks - done >= 2 && (nblocks - done) * 4 >= n) {
		multi_group(ctx, blocks + done, nblocks - done, len, out + done * ds);
		done = nblocks;
	}
	return done;
}

int hash_digest_batch(const struct hash_ctx *ctx, const void *const *blocks, size_t nblocks,
		      size_t len, uint8_t *out)
{
	size_t ds;

	if (!ctx || !ctx->impl || (!blocks && nblocks) || (!out && nblocks))
		return -EINVAL;
	if (ctx->impl->batch)
		return ctx->impl->batch(ctx, blocks, nblocks, len, out);
	ds = digest_sizes[ctx->alg];
	for (size_t i = multi_batch(ctx, blocks, nblocks, len, out); i < nblocks; i++) {
		int ret = hash_digest(ctx, blocks[i], len, out + i * ds);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Key setup: everything that depends only on the key, done once. */
static void setup_keyed(struct hash_ctx *ctx, const uint8_t *key, size_t keylen)
{
	uint8_t blk[128];

	if (ctx->alg == HASH_SHA256) {
		if (keylen > 64) {
			/* HMAC: a key longer than the block is replaced by its hash. */
			struct hash_ctx plain = *ctx;
			uint8_t kh[32];

			plain.keyed = 0;
			sha256_oneshot(&plain, key, keylen, kh);
			memcpy(ctx->key, kh, 32);
			ctx->keylen = 32;
			hash_wipe(kh, sizeof(kh));
		} else {
			memcpy(ctx->key, key, keylen);
			ctx->keylen = keylen;
		}
		memset(blk, 0, 64);
		memcpy(blk, ctx->key, ctx->keylen);
		for (int i = 0; i < 64; i++)
			blk[i] ^= 0x36;
		memcpy(ctx->pre.hmac.inner, sha256_iv, 32);
		sha256_blocks_of(ctx, ctx->pre.hmac.inner, blk, 1);
		for (int i = 0; i < 64; i++)
			blk[i] ^= 0x36 ^ 0x5c;
		memcpy(ctx->pre.hmac.outer, sha256_iv, 32);
		sha256_blocks_of(ctx, ctx->pre.hmac.outer, blk, 1);
	} else {
		uint64_t t[2] = { 0, 0 };

		memcpy(ctx->key, key, keylen);
		ctx->keylen = keylen;
		memset(blk, 0, 128);
		memcpy(blk, key, keylen);
		memcpy(ctx->pre.b2.keyed, ctx->pre.b2.param, 64);
		b2_blocks_of(ctx, ctx->pre.b2.keyed, blk, 1, t, 0, 0);
	}
	hash_wipe(blk, sizeof(blk));
}

/* An unkeyed context on @impl, without the choice (nor CPUID). */
static void plain_ctx(struct hash_ctx *ctx, enum hash_alg alg, const struct hash_impl *impl)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->alg = alg;
	ctx->impl = impl;
	ctx->prim = impl;
	ctx->multi = impl->lanes > 1 ? impl : NULL;
	if (alg == HASH_BLAKE2B_256) {
		memcpy(ctx->pre.b2.param, blake2b_iv, 64);
		ctx->pre.b2.param[0] ^= 0x01010000ULL | 32;
	}
}

/*
 * A CPU-specific implementation must agree with the reference before the
 * automatic choice takes it: the build machine cannot run every variant
 * (the AVX-512 ones), so this catches a broken one at run time.  A few
 * microseconds (the reference is the slow part), once per context; forced
 * implementations are not checked
 * here (the unit test compares them all).
 */
static int impl_selftest(enum hash_alg alg, const struct hash_impl *impl)
{
	/* 3000: past the 2560 bytes below which vpclmul512x3 hands over to vpclmul512 */
	const size_t lens[] = { 1, 200, alg == HASH_CRC32C ? 3000 : 300 };
	uint8_t buf[BATCH_MAX_LANES * 160 + 1100], want[32], got[BATCH_MAX_LANES * 32];
	const void *blocks[BATCH_MAX_LANES];
	struct hash_ctx ref, ctx;
	int bad = 0;

	plain_ctx(&ref, alg, find_impl(alg, "ref", 3));
	plain_ctx(&ctx, alg, impl);
	if (!ref.impl)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 167 + (i >> 8) * 13 + 1);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		hash_generic_digest(&ref, buf + 3, lens[i], want);
		hash_digest(&ctx, buf + 3, lens[i], got);
		bad |= memcmp(want, got, digest_sizes[alg]);
	}
	if (impl->lanes > 1 && impl->lanes <= BATCH_MAX_LANES) {
		for (unsigned int l = 0; l < impl->lanes; l++)
			blocks[l] = buf + 160 * l + l;
		hash_digest_batch(&ctx, blocks, impl->lanes, 150, got);
		for (unsigned int l = 0; l < impl->lanes; l++) {
			hash_generic_digest(&ref, blocks[l], 150, want);
			bad |= memcmp(want, got + l * digest_sizes[alg], digest_sizes[alg]);
		}
	}
	return bad ? -EIO : 0;
}

/*
 * Streaming, key set-up and the HMAC outer hash run builtin primitives:
 * @impl's own, or for a library provider (one-shot digests only) the best
 * builtin one this CPU runs.
 */
static const struct hash_impl *builtin_prim(enum hash_alg alg, const struct hash_impl *impl,
					    unsigned int feat)
{
	const struct hash_impl *const *tab = impl_tables[alg];

	if (impl->sha256_blocks || impl->b2_blocks || impl->crc32c)
		return impl;
	for (unsigned int i = 0; tab[i]; i++) {
		if (!tab[i]->sha256_blocks && !tab[i]->b2_blocks)
			continue;
		if (!impl_cpu_ok(tab[i], feat) || (tab[i]->cpu_ok && impl_selftest(alg, tab[i]) < 0))
			continue;
		return tab[i];
	}
	return impl;
}

/* Not batch-only: multi-buffer primitives without a single-message one. */
static int has_single(const struct hash_impl *impl)
{
	return !(impl->sha256_multi || impl->b2_multi || impl->xxh64_multi) || impl->sha256_blocks ||
	       impl->b2_blocks || impl->digest;
}

/*
 * The first entry of @ctx's algorithm table this CPU runs, that can serve
 * @ctx and passes the self-check: with a single-message path when @single,
 * else with lanes for batches.  Sets ctx->impl while asking (usable hooks
 * look at it); the caller sets it again.
 */
static const struct hash_impl *auto_pick(struct hash_ctx *ctx, unsigned int feat, int single)
{
	const struct hash_impl *const *tab = impl_tables[ctx->alg];
	const struct hash_impl *keep = ctx->impl;

	for (unsigned int i = 0; tab[i]; i++) {
		if (single ? !has_single(tab[i]) : tab[i]->lanes < 2 || tab[i]->lanes > BATCH_MAX_LANES)
			continue;
		if (single && tab[i]->single_slower_with &&
		    (feat & tab[i]->single_slower_with) == tab[i]->single_slower_with)
			continue;
		if (!impl_cpu_ok(tab[i], feat))
			continue;
		ctx->impl = tab[i];
		if (tab[i]->usable && !tab[i]->usable(ctx))
			continue;
		if (tab[i]->cpu_ok && impl_selftest(ctx->alg, tab[i]) < 0)
			continue;
		ctx->impl = keep;
		return tab[i];
	}
	ctx->impl = keep;
	return NULL;
}

int hash_ctx_init_impl(struct hash_ctx *ctx, enum hash_alg alg, const uint8_t *key,
		       size_t keylen, const char *impl_name)
{
	const struct hash_impl *impl = NULL;
	unsigned int feat;

	if (!ctx)
		return -EINVAL;
	memset(ctx, 0, sizeof(*ctx));
	if (!alg_valid(alg) || (!key && keylen))
		return -EINVAL;
	if (keylen) {
		if (alg == HASH_CRC32C || alg == HASH_XXHASH64)
			return -EINVAL;
		if (alg == HASH_BLAKE2B_256 && keylen > HASH_MAX_KEY)
			return -EINVAL;
		ctx->keyed = 1;
	}
	ctx->alg = alg;
	if (alg == HASH_BLAKE2B_256) {
		memcpy(ctx->pre.b2.param, blake2b_iv, 64);
		/* digest length 32, key length, fanout 1, depth 1 */
		ctx->pre.b2.param[0] ^= 0x01010000ULL | ((uint64_t)keylen << 8) | 32;
	}
	feat = hash_cpu_features();
	/* The key state is needed before the choice (library impls look at keyed). */
	if (impl_name && *impl_name) {
		int ret = forced_impl(alg, impl_name, &impl);

		if (ret < 0)
			return ret;
		if (ret == 1 && !impl_cpu_ok(impl, feat))
			return -EOPNOTSUPP;
	}
	if (impl && !has_single(impl)) {
		/* a batch-only implementation forced: one-shots take the default */
		ctx->multi = impl;
		impl = NULL;
	} else if (impl) {
		ctx->impl = impl;
		if (impl->usable && !impl->usable(ctx)) {
			memset(ctx, 0, sizeof(*ctx));
			return -EOPNOTSUPP;
		}
		ctx->multi = impl->lanes > 1 ? impl : NULL;
	}
	if (!impl) {
		impl = auto_pick(ctx, feat, 1);
		if (!impl) {
			memset(ctx, 0, sizeof(*ctx));
			return -EOPNOTSUPP;
		}
		ctx->impl = impl;
		/* a library provider computes everything it can itself */
		if (!ctx->multi && !impl->digest)
			ctx->multi = auto_pick(ctx, feat, 0);
	}
	ctx->prim = builtin_prim(alg, impl, feat);
	if (ctx->keyed)
		setup_keyed(ctx, key, keylen);
	if (impl->setup) {
		int ret = impl->setup(ctx);

		if (ret < 0) {
			hash_wipe(ctx, sizeof(*ctx));
			return ret;
		}
	}
	return 0;
}

int hash_ctx_init(struct hash_ctx *ctx, enum hash_alg alg, const uint8_t *key, size_t keylen)
{
	return hash_ctx_init_impl(ctx, alg, key, keylen, getenv(HASH_IMPL_ENV));
}

void hash_ctx_release(struct hash_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->impl && ctx->impl->release && ctx->lib)
		ctx->impl->release(ctx);
	hash_wipe(ctx, sizeof(*ctx));
}

/* Streaming.  Library providers serve one-shot digests; streaming always
 * runs the builtin primitives (no allocation, nothing to free). */
int hash_init(struct hash_state *st, const struct hash_ctx *ctx)
{
	if (!st || !ctx || !ctx->impl)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->ctx = ctx;
	switch (ctx->alg) {
	case HASH_CRC32C:
		st->h.crc = ~0U;
		break;
	case HASH_XXHASH64:
		xxh64_stream_init(st->h.xxh, 0);
		break;
	case HASH_SHA256:
		memcpy(st->h.sha, ctx->keyed ? ctx->pre.hmac.inner : sha256_iv, 32);
		st->total = ctx->keyed ? 64 : 0;
		break;
	case HASH_BLAKE2B_256:
		/* total counts compressed bytes; a key block waits in buf. */
		memcpy(st->h.b2, ctx->pre.b2.param, 64);
		if (ctx->keyed) {
			memcpy(st->buf, ctx->key, ctx->keylen);
			st->buflen = 128;
		}
		break;
	}
	return 0;
}

static uint32_t crc_update_of(const struct hash_ctx *ctx, uint32_t crc, const uint8_t *p,
			      size_t len)
{
	return ctx->impl->crc32c ? ctx->impl->crc32c(crc, p, len) : crc32c_ref(crc, p, len);
}

/*
 * Streaming over a hash of fixed blocks of bs bytes: complete the buffered
 * block from p and hash it, hash the whole blocks of p, keep the rest in
 * st->buf.
 */
typedef void (*stream_blocks_fn)(struct hash_state *st, const uint8_t *p, size_t nblocks);

static void stream_blocks(struct hash_state *st, const uint8_t *p, size_t len, size_t bs, stream_blocks_fn fn)
{
	if (st->buflen) {
		size_t n = bs - st->buflen < len ? bs - st->buflen : len;

		memcpy(st->buf + st->buflen, p, n);
		st->buflen += n;
		p += n;
		len -= n;
		if (st->buflen < bs)
			return;
		fn(st, st->buf, 1);
		st->buflen = 0;
	}
	if (len >= bs) {
		fn(st, p, len / bs);
		p += len - len % bs;
		len %= bs;
	}
	memcpy(st->buf, p, len);
	st->buflen = len;
}

static void xxh64_stream_fn(struct hash_state *st, const uint8_t *p, size_t nblocks)
{
	xxh64_stream_blocks(st->h.xxh, p, nblocks);
}

static void sha256_stream_fn(struct hash_state *st, const uint8_t *p, size_t nblocks)
{
	sha256_blocks_of(st->ctx, st->h.sha, p, nblocks);
}

int hash_update(struct hash_state *st, const void *data, size_t len)
{
	const uint8_t *p = data;
	const struct hash_ctx *ctx;

	if (!st || !st->ctx || (!data && len))
		return -EINVAL;
	ctx = st->ctx;
	switch (ctx->alg) {
	case HASH_CRC32C:
		st->h.crc = crc_update_of(ctx, st->h.crc, p, len);
		st->total += len;
		break;
	case HASH_XXHASH64:
		st->total += len;
		stream_blocks(st, p, len, 32, xxh64_stream_fn);
		break;
	case HASH_SHA256:
		st->total += len;
		stream_blocks(st, p, len, 64, sha256_stream_fn);
		break;
	case HASH_BLAKE2B_256: {
		uint64_t t[2] = { st->total, 0 };

		/* Keep the last block back: it may be the final one. */
		if (!len)
			break;
		if (st->buflen) {
			size_t n = 128 - st->buflen < len ? 128 - st->buflen : len;

			memcpy(st->buf + st->buflen, p, n);
			st->buflen += n;
			p += n;
			len -= n;
			if (!len)
				break;
			b2_blocks_of(ctx, st->h.b2, st->buf, 1, t, 0, 0);
			st->buflen = 0;
		}
		if (len > 128) {
			size_t nb = (len - 1) / 128;

			b2_blocks_of(ctx, st->h.b2, p, nb, t, 0, 0);
			p += nb * 128;
			len -= nb * 128;
		}
		memcpy(st->buf, p, len);
		st->buflen = len;
		st->total = t[0];
		break;
	}
	}
	return 0;
}

int hash_final(struct hash_state *st, uint8_t *out)
{
	const struct hash_ctx *ctx;

	if (!st || !st->ctx || !out)
		return -EINVAL;
	ctx = st->ctx;
	switch (ctx->alg) {
	case HASH_CRC32C:
		put_le32(out, ~st->h.crc);
		break;
	case HASH_XXHASH64:
		put_le64(out, xxh64_stream_final(st->h.xxh, st->total, st->buf, st->buflen, 0));
		break;
	case HASH_SHA256:
		sha256_tail(ctx, st->h.sha, st->buf, st->buflen, st->total);
		if (ctx->keyed)
			hmac_outer(ctx, st->h.sha, out);
		else
			sha256_out(st->h.sha, out);
		break;
	case HASH_BLAKE2B_256: {
		uint64_t t[2] = { st->total, 0 };

		memset(st->buf + st->buflen, 0, 128 - st->buflen);
		b2_blocks_of(ctx, st->h.b2, st->buf, 1, t, 1, st->buflen);
		b2_out(st->h.b2, out);
		break;
	}
	}
	hash_wipe(st, sizeof(*st));
	return 0;
}

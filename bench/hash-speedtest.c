// SPDX-License-Identifier: GPL-2.0
/*
 * hash-speedtest: CPU cycles per block and MiB/s for every checksum
 * implementation of this build and every peer library found at configure
 * time, measured side by side in one run.
 *
 *   hash-speedtest [-b SIZE] [-n ITERATIONS] [--tsv]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "crypto/hash.h"
#ifdef HAVE_PEER_ISAL
#include <isa-l/crc.h>
#endif
#ifdef HAVE_PEER_XXHASH
#include <xxhash.h>
#endif
#ifdef HAVE_PEER_B2
#include <blake2.h>
#endif
#ifdef HAVE_PEER_PGCRYPT
#include <gcrypt.h>
#endif
#ifdef HAVE_PEER_PSODIUM
#include <sodium.h>
#endif
#ifdef HAVE_PEER_PCRYPTO
#include <openssl/evp.h>
#endif

struct bench {
	size_t size;
	unsigned long iters;
	int tsv;
	unsigned char *buf;
	unsigned char *dst;
};

#define BATCH_BLOCKS 8

typedef void (*block_fn)(const struct bench *b, void *arg, unsigned char *out);

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const struct bench *b, const char *alg, const char *impl, block_fn fn, void *arg)
{
	unsigned char out[64];
	unsigned long long c0, c1;
	double t0, t1;

	for (unsigned long i = 0; i < b->iters / 16 + 1; i++)  /* warm up */
		fn(b, arg, out);
	t0 = now_sec();
	c0 = __rdtsc();
	for (unsigned long i = 0; i < b->iters; i++)
		fn(b, arg, out);
	c1 = __rdtsc();
	t1 = now_sec();
	/* A batch call hashes BATCH_BLOCKS blocks: report the cost of one block. */
	int per_call = !strncmp(impl, "batch-", 6) ? BATCH_BLOCKS : 1;
	double cycles = (double)(c1 - c0) / b->iters / per_call;
	double mibs = (double)b->size * b->iters * per_call / (t1 - t0) / (1024.0 * 1024.0);

	if (b->tsv)
		printf("%s\t%s\t%.0f\t%.1f\n", alg, impl, cycles, mibs);
	else
		printf("%-14s %-20s %12.0f %12.1f\n", alg, impl, cycles, mibs);
}

static void null_nop(const struct bench *b, void *arg, unsigned char *out)
{
	__asm__ volatile("" : : "r"(b->buf) : "memory");
}

static void null_memcpy(const struct bench *b, void *arg, unsigned char *out)
{
	memcpy(b->dst, b->buf, b->size);
	__asm__ volatile("" : : "r"(b->dst) : "memory");
}

static void ours(const struct bench *b, void *arg, unsigned char *out)
{
	hash_digest(arg, b->buf, b->size, out);
}

struct batch_arg {
	struct hash_ctx *ctx;
	const void *blocks[8];
	unsigned char outs[8 * HASH_MAX_DIGEST];
};

/* The batch path, 8 independent blocks per call. */
static void ours_batch(const struct bench *b, void *arg, unsigned char *out)
{
	struct batch_arg *ba = arg;

	hash_digest_batch(ba->ctx, ba->blocks, 8, b->size, ba->outs);
}

#ifdef HAVE_PEER_ISAL
static void isal_crc32c(const struct bench *b, void *arg, unsigned char *out)
{
	unsigned int c = crc32_iscsi(b->buf, (int)b->size, ~0U);

	memcpy(out, &c, 4);
}
#endif
#ifdef HAVE_PEER_XXHASH
static void lib_xxh64(const struct bench *b, void *arg, unsigned char *out)
{
	unsigned long long h = XXH64(b->buf, b->size, 0);

	memcpy(out, &h, 8);
}
#endif
#ifdef HAVE_PEER_B2
static void libb2_blake2b(const struct bench *b, void *arg, unsigned char *out)
{
	blake2b(out, b->buf, arg, 32, b->size, arg ? 32 : 0);
}
#endif
#ifdef HAVE_PEER_PGCRYPT
static void gcry_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	gcry_md_hash_buffer(GCRY_MD_SHA256, out, b->buf, b->size);
}
static void gcry_blake2b(const struct bench *b, void *arg, unsigned char *out)
{
	gcry_md_hash_buffer(GCRY_MD_BLAKE2B_256, out, b->buf, b->size);
}
#endif
#ifdef HAVE_PEER_PSODIUM
static void sodium_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_hash_sha256(out, b->buf, b->size);
}
static void sodium_blake2b(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_generichash(out, 32, b->buf, b->size, arg, arg ? 32 : 0);
}
static void sodium_hmac(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_auth_hmacsha256(out, b->buf, b->size, arg);
}
#endif
#ifdef HAVE_PEER_PCRYPTO
static void ossl_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	unsigned int len = 32;

	EVP_Digest(b->buf, b->size, out, &len, EVP_sha256(), NULL);
}
#endif

static const char *const alg_names[] = { "crc32c", "xxhash", "sha256", "blake2b" };

int main(int argc, char **argv)
{
	struct bench b = { .size = 4096, .iters = 100000 };
	static const unsigned char key[32] = "btrfs-kit hash-speedtest key 32";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tsv"))
			b.tsv = 1;
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			b.size = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			b.iters = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: hash-speedtest [-b SIZE] [-n ITERATIONS] [--tsv]\n");
			return 1;
		}
	}
	if (b.size == 0 || b.size > 65536 || b.iters == 0) {
		fprintf(stderr, "ERROR: block size must be 1..65536 and iterations > 0\n");
		return 1;
	}
	b.buf = aligned_alloc(64, 65536 * 8);
	b.dst = aligned_alloc(64, 65536);
	if (!b.buf || !b.dst)
		return 1;
	for (size_t i = 0; i < 65536 * 8; i++)
		b.buf[i] = (unsigned char)(i * 131 + 7);
#ifdef HAVE_PEER_PSODIUM
	if (sodium_init() < 0)
		return 1;
#endif
	if (!b.tsv)
		printf("block size %zu, %lu iterations\n%-14s %-20s %12s %12s\n", b.size, b.iters,
		       "algorithm", "implementation", "cycles/block", "MiB/s");
	report(&b, "null-nop", "ref", null_nop, NULL);
	report(&b, "null-memcpy", "ref", null_memcpy, NULL);

	for (int alg = 0; alg < HASH_NR_ALGS; alg++) {
		const char *impl;
		int supported;

		for (unsigned int idx = 0; (impl = hash_impl_enum(alg, idx, &supported)); idx++) {
			struct hash_ctx ctx;
			const char *shortname = strchr(impl, '-') ? strchr(impl, '-') + 1 : impl;
			char label[64];

			if (!supported || hash_ctx_init_impl(&ctx, alg, NULL, 0, shortname))
				continue;
			report(&b, alg_names[alg], impl, ours, &ctx);
			struct batch_arg ba = { .ctx = &ctx };
			for (int k = 0; k < 8; k++)
				ba.blocks[k] = b.buf + (size_t)k * 65536;
			snprintf(label, sizeof(label), "batch-%s", shortname);
			report(&b, alg_names[alg], label, ours_batch, &ba);
			hash_ctx_release(&ctx);
		}
		switch (alg) {
#ifdef HAVE_PEER_ISAL
		case HASH_CRC32C: report(&b, "crc32c", "lib-isal", isal_crc32c, NULL); break;
#endif
#ifdef HAVE_PEER_XXHASH
		case HASH_XXHASH64: report(&b, "xxhash", "lib-xxhash", lib_xxh64, NULL); break;
#endif
		case HASH_SHA256:
#ifdef HAVE_PEER_PGCRYPT
			report(&b, "sha256", "lib-gcrypt", gcry_sha256, NULL);
#endif
#ifdef HAVE_PEER_PSODIUM
			report(&b, "sha256", "lib-sodium", sodium_sha256, NULL);
#endif
#ifdef HAVE_PEER_PCRYPTO
			report(&b, "sha256", "lib-openssl", ossl_sha256, NULL);
#endif
			break;
		case HASH_BLAKE2B_256:
#ifdef HAVE_PEER_B2
			report(&b, "blake2b", "lib-b2", libb2_blake2b, NULL);
#endif
#ifdef HAVE_PEER_PGCRYPT
			report(&b, "blake2b", "lib-gcrypt", gcry_blake2b, NULL);
#endif
#ifdef HAVE_PEER_PSODIUM
			report(&b, "blake2b", "lib-sodium", sodium_blake2b, NULL);
#endif
			break;
		default:
			break;
		}
	}
	/* Keyed forms. */
	{
		struct hash_ctx ctx;

		if (!hash_ctx_init(&ctx, HASH_SHA256, key, sizeof(key))) {
			report(&b, "hmac-sha256", hash_impl_name(&ctx), ours, &ctx);
			hash_ctx_release(&ctx);
		}
#ifdef HAVE_PEER_PSODIUM
		report(&b, "hmac-sha256", "lib-sodium", sodium_hmac, (void *)key);
#endif
		if (!hash_ctx_init(&ctx, HASH_BLAKE2B_256, key, sizeof(key))) {
			report(&b, "blake2b-keyed", hash_impl_name(&ctx), ours, &ctx);
			hash_ctx_release(&ctx);
		}
#ifdef HAVE_PEER_PSODIUM
		report(&b, "blake2b-keyed", "lib-sodium", sodium_blake2b, (void *)key);
#endif
#ifdef HAVE_PEER_B2
		report(&b, "blake2b-keyed", "lib-b2", libb2_blake2b, (void *)key);
#endif
	}
	free(b.buf);
	free(b.dst);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * hash-speedtest: CPU cycles per block and MiB/s for every checksum
 * implementation of this build and every peer library found at configure
 * time, measured side by side in one run.
 *
 *   hash-speedtest [-b SIZE] [-n ITERATIONS] [-r ROUNDS] [--tsv]
 *
 * Each row hashes one block of SIZE bytes (default 4096, up to 65536)
 * ITERATIONS times (default 100000), in ROUNDS rounds (default 20) after a
 * warm-up; the best round is reported (the least disturbed by other load),
 * cycles from rdtsc.  On a busy machine many short rounds find undisturbed
 * ones more surely: -n 20000 -r 200 times 100 digests per round.
 * The rounds of all rows are interleaved (round 1 of every row, then round
 * 2...), so a burst of load elsewhere hits every row alike instead of a few
 * rows measured during it; the table comes out at the end.
 * Batch rows hash 16 different blocks per call and report the cost of one.
 * Each row starts with the upper halves of the vector registers cleared
 * (vzeroupper): a peer that leaves them dirty must not slow the next row.
 * Keyed peers are timed the way our providers use them: the library's state
 * after the key is copied per block (no key setup per block).
 *
 * The keyed btrfs checksum types (auth-sha256, auth-blake2b, authsum-sha256,
 * authsum-blake2b: every keyed entry of kernel-shared/format/csum.c's type table) are
 * timed as the filesystem computes them, one block (implementation "csum")
 * and a batch ("batch-csum").
 *
 * --tsv prints algorithm<TAB>implementation<TAB>cycles_per_block<TAB>mib_per_s
 * with algorithm in null-nop, null-memcpy, crc32c, xxhash, sha256, blake2b,
 * hmac-sha256, blake2b-keyed and the four keyed type names, implementation
 * ref, simd-<isa>, batch-<isa>, lib-<name>, csum or batch-csum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "crypto/hash.h"
#include "kernel-shared/format/csum.h"
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
#include <openssl/core_names.h>
#endif

#define BATCH_BLOCKS	16
#define ROUNDS		20	/* default */
#define MAX_BLOCK	65536

struct bench;
typedef void (*block_fn)(const struct bench *b, void *arg, unsigned char *out);

struct row {
	char alg[16], impl[32];
	block_fn fn;
	void *arg;
	void (*fini)(void *arg);	/* frees @arg, or NULL */
	int per_call;			/* blocks hashed by one call of @fn */
	double best_cycles, best_sec;
};

#define MAX_ROWS	64

struct bench {
	size_t size;
	unsigned long iters;
	int rounds;
	int tsv;
	unsigned char *buf;	/* BATCH_BLOCKS blocks of MAX_BLOCK */
	unsigned char *dst;
	struct row rows[MAX_ROWS];
	int nrows;
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Legacy-SSE code (SHA-NI has no VEX form) runs at half speed on Zen 5
 * while the upper ymm/zmm halves are dirty; ISA-L's crc32c leaves them so.
 */
__attribute__((target("avx"))) static void clean_upper_avx(void)
{
	_mm256_zeroupper();
}

static void clean_upper(void)
{
	if (__builtin_cpu_supports("avx"))
		clean_upper_avx();
}

/* A row to time later; @fini (or nothing) releases @arg after the run. */
static void add_row(struct bench *b, const char *alg, const char *impl, block_fn fn, void *arg,
		    int per_call, void (*fini)(void *))
{
	struct row *r;

	if (b->nrows == MAX_ROWS) {
		fprintf(stderr, "hash-speedtest: more than %d rows\n", MAX_ROWS);
		if (fini)
			fini(arg);
		return;
	}
	r = &b->rows[b->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->alg, sizeof(r->alg), "%s", alg);
	snprintf(r->impl, sizeof(r->impl), "%s", impl);
	r->fn = fn;
	r->arg = arg;
	r->fini = fini;
	r->per_call = per_call;
}

static void time_round(const struct bench *b, struct row *row, unsigned long n)
{
	unsigned char out[BATCH_BLOCKS * 64];
	unsigned long long c0, c1;
	double t0, t1;

	clean_upper();
	t0 = now_sec();
	c0 = __rdtsc();
	for (unsigned long i = 0; i < n; i++)
		row->fn(b, row->arg, out);
	c1 = __rdtsc();
	t1 = now_sec();
	if (!row->best_cycles || (double)(c1 - c0) < row->best_cycles) {
		row->best_cycles = (double)(c1 - c0);
		row->best_sec = t1 - t0;
	}
}

/*
 * Every row warmed up, then the rounds interleaved; prints the table with
 * the cost relative to our fastest crc32c (text form) and frees the rows.
 */
static void run_rows(struct bench *b)
{
	unsigned long n = b->iters / b->rounds ? b->iters / b->rounds : 1;
	double crc = 0;

	for (int i = 0; i < b->nrows; i++)
		time_round(b, &b->rows[i], n / 8 + 1);
	for (int i = 0; i < b->nrows; i++)
		b->rows[i].best_cycles = 0;
	for (int r = 0; r < b->rounds; r++)
		for (int i = 0; i < b->nrows; i++)
			time_round(b, &b->rows[i], n);
	for (int i = 0; i < b->nrows; i++) {
		struct row *row = &b->rows[i];
		double cycles = row->best_cycles / n / row->per_call;

		if (!strcmp(row->alg, "crc32c") && strncmp(row->impl, "lib-", 4) &&
		    (!crc || cycles < crc))
			crc = cycles;
	}
	for (int i = 0; i < b->nrows; i++) {
		struct row *row = &b->rows[i];
		double cycles = row->best_cycles / n / row->per_call;
		double mibs = (double)b->size * n * row->per_call / row->best_sec / (1024.0 * 1024.0);

		if (b->tsv)
			printf("%s\t%s\t%.0f\t%.1f\n", row->alg, row->impl, cycles, mibs);
		else
			printf("%-14s %-20s %12.0f %12.1f %9.2f\n", row->alg, row->impl, cycles, mibs,
			       crc ? cycles / crc : 0);
		if (row->fini)
			row->fini(row->arg);
	}
	b->nrows = 0;
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
	struct hash_ctx ctx;		/* a copy: builtin contexts own nothing */
	const void *blocks[BATCH_BLOCKS];
};

static void ours_batch(const struct bench *b, void *arg, unsigned char *out)
{
	struct batch_arg *ba = arg;

	hash_digest_batch(&ba->ctx, ba->blocks, BATCH_BLOCKS, b->size, out);
}

/* A keyed btrfs checksum type as the filesystem computes it (kernel-shared/format/csum.h). */
struct fs_csum_arg {
	struct btrfs_csum csum;
	const void *blocks[BATCH_BLOCKS];
};

static void fs_csum(const struct bench *b, void *arg, unsigned char *out)
{
	btrfs_csum_compute(&((struct fs_csum_arg *)arg)->csum, b->buf, b->size, out);
}

static void fs_csum_batch(const struct bench *b, void *arg, unsigned char *out)
{
	struct fs_csum_arg *fa = arg;

	btrfs_csum_compute_batch(&fa->csum, fa->blocks, BATCH_BLOCKS, b->size, out);
}

static void fs_csum_free(void *arg)
{
	btrfs_csum_release(&((struct fs_csum_arg *)arg)->csum);
	free(arg);
}

static void ctx_free(void *arg)
{
	hash_ctx_release(arg);
	free(arg);
}

/* A heap copy of @size bytes at @p for a row's argument; aborts the run when out of memory. */
static void *dup_arg(const void *p, size_t size)
{
	void *q = malloc(size);

	if (!q) {
		fprintf(stderr, "hash-speedtest: out of memory\n");
		exit(1);
	}
	memcpy(q, p, size);
	return q;
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
static void b2_plain(const struct bench *b, void *arg, unsigned char *out)
{
	blake2b(out, b->buf, NULL, 32, b->size, 0);
}

static void b2_keyed(const struct bench *b, void *arg, unsigned char *out)
{
	blake2b_state st;

	memcpy(&st, arg, sizeof(st));
	blake2b_update(&st, b->buf, b->size);
	blake2b_final(&st, out, 32);
}
#endif
#ifdef HAVE_PEER_PGCRYPT
static void gc_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	gcry_md_hash_buffer(GCRY_MD_SHA256, out, b->buf, b->size);
}

static void gc_blake2b(const struct bench *b, void *arg, unsigned char *out)
{
	gcry_md_hash_buffer(GCRY_MD_BLAKE2B_256, out, b->buf, b->size);
}

static void gc_keyed(const struct bench *b, void *arg, unsigned char *out)
{
	gcry_md_hd_t h;

	if (gcry_md_copy(&h, arg))
		return;
	gcry_md_write(h, b->buf, b->size);
	memcpy(out, gcry_md_read(h, 0), 32);
	gcry_md_close(h);
}

static void gc_close(void *arg)
{
	gcry_md_close(arg);
}

static gcry_md_hd_t gc_keyed_handle(int algo, unsigned int flags, const unsigned char *key)
{
	gcry_md_hd_t h;

	if (gcry_md_open(&h, algo, flags))
		return NULL;
	if (gcry_md_setkey(h, key, 32)) {
		gcry_md_close(h);
		return NULL;
	}
	return h;
}
#endif
#ifdef HAVE_PEER_PSODIUM
static void so_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_hash_sha256(out, b->buf, b->size);
}

static void so_blake2b(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_generichash_blake2b(out, 32, b->buf, b->size, NULL, 0);
}

static void so_hmac(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_auth_hmacsha256_state st;

	memcpy(&st, arg, sizeof(st));
	crypto_auth_hmacsha256_update(&st, b->buf, b->size);
	crypto_auth_hmacsha256_final(&st, out);
}

static void so_b2keyed(const struct bench *b, void *arg, unsigned char *out)
{
	crypto_generichash_blake2b_state st;

	memcpy(&st, arg, sizeof(st));
	crypto_generichash_blake2b_update(&st, b->buf, b->size);
	crypto_generichash_blake2b_final(&st, out, 32);
}
#endif
#ifdef HAVE_PEER_PCRYPTO
static void os_sha256(const struct bench *b, void *arg, unsigned char *out)
{
	EVP_Digest(b->buf, b->size, out, NULL, arg, NULL);
}

static void os_mac(const struct bench *b, void *arg, unsigned char *out)
{
	EVP_MAC_CTX *c = EVP_MAC_CTX_dup(arg);
	size_t n;

	if (!c)
		return;
	EVP_MAC_update(c, b->buf, b->size);
	EVP_MAC_final(c, out, &n, 32);
	EVP_MAC_CTX_free(c);
}

static void os_md_free(void *arg)
{
	EVP_MD_free(arg);
}

static void os_mac_free(void *arg)
{
	EVP_MAC_CTX_free(arg);
}

static EVP_MAC_CTX *os_mac_ctx(const char *name, const unsigned char *key)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, name, NULL);
	OSSL_PARAM params[2];
	size_t size = 32;
	EVP_MAC_CTX *c;

	if (!mac)
		return NULL;
	c = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac);
	if (!c)
		return NULL;
	if (!strcmp(name, "HMAC"))
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0);
	else
		params[0] = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size);
	params[1] = OSSL_PARAM_construct_end();
	if (!EVP_MAC_init(c, key, 32, params)) {
		EVP_MAC_CTX_free(c);
		return NULL;
	}
	return c;
}
#endif

/* Our implementations of @alg (keyed with @key when given): one row each, and a batch row. */
static void our_rows(struct bench *b, enum hash_alg alg, const char *label,
		     const unsigned char *key, size_t keylen)
{
	const char *impl;
	int supported;

	for (unsigned int idx = 0; (impl = hash_impl_enum(alg, idx, &supported)); idx++) {
		struct hash_ctx ctx;
		const char *shortname = strchr(impl, '-') ? strchr(impl, '-') + 1 : impl;
		char batch[64];

		/* a configured library provider is timed with the peers */
		if (!supported || !strncmp(impl, "lib-", 4) ||
		    hash_ctx_init_impl(&ctx, alg, key, keylen, impl))
			continue;
		struct batch_arg ba = { .ctx = ctx };

		/* a batch-only implementation has only its batch row */
		if (!strcmp(hash_impl_name(&ctx), impl))
			add_row(b, label, impl, ours, dup_arg(&ctx, sizeof(ctx)), 1, ctx_free);
		if (hash_batch_impl_name(&ctx) && !strcmp(hash_batch_impl_name(&ctx), impl)) {
			for (int k = 0; k < BATCH_BLOCKS; k++)
				ba.blocks[k] = b->buf + (size_t)k * MAX_BLOCK;
			snprintf(batch, sizeof(batch), "batch-%s", shortname);
			add_row(b, label, batch, ours_batch, dup_arg(&ba, sizeof(ba)), BATCH_BLOCKS, free);
		}
		if (strcmp(hash_impl_name(&ctx), impl))
			hash_ctx_release(&ctx);
	}
}

/*
 * Every keyed type of the one csum-type table (kernel-shared/format/csum.c, aliases
 * skipped) as btrfs_csum_compute() and btrfs_csum_compute_batch() run it:
 * impl "csum" and "batch-csum", whatever hash implementation they select.
 */
static void fs_csum_rows(struct bench *b, const unsigned char *key, size_t keylen)
{
	const char *name;

	for (size_t i = 0; (name = btrfs_csum_name_at(i)); i++) {
		int type = btrfs_csum_type_by_name(name);

		if (type < 0 || !btrfs_csum_type_keyed((u16)type) ||
		    strcmp(btrfs_csum_type_name((u16)type), name))
			continue;
		for (int batch = 0; batch < 2; batch++) {
			struct fs_csum_arg *fa = dup_arg(&(struct fs_csum_arg){ 0 }, sizeof(*fa));

			if (btrfs_csum_setup(&fa->csum, (u16)type, key, keylen)) {
				free(fa);
				continue;
			}
			for (int k = 0; k < BATCH_BLOCKS; k++)
				fa->blocks[k] = b->buf + (size_t)k * MAX_BLOCK;
			add_row(b, name, batch ? "batch-csum" : "csum", batch ? fs_csum_batch : fs_csum,
				fa, batch ? BATCH_BLOCKS : 1, fs_csum_free);
		}
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: hash-speedtest [-b SIZE] [-n ITERATIONS] [-r ROUNDS] [--tsv]\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct bench b = { .size = 4096, .iters = 100000, .rounds = ROUNDS };
	static const unsigned char key[32] = "btrfs-kit hash-speedtest key 32";

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--tsv")) {
			b.tsv = 1;
		} else if (!strcmp(argv[i], "-b") && i + 1 < argc) {
			b.size = strtoul(argv[++i], &end, 0);
			if (*end)
				return usage();
		} else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			b.iters = strtoul(argv[++i], &end, 0);
			if (*end)
				return usage();
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			long r = strtol(argv[++i], &end, 0);

			if (*end || r < 1 || r > 100000)
				return usage();
			b.rounds = (int)r;
		} else {
			return usage();
		}
	}
	if (b.size == 0 || b.size > MAX_BLOCK || b.iters == 0) {
		fprintf(stderr, "ERROR: block size must be 1..%d and iterations > 0\n", MAX_BLOCK);
		return 1;
	}
	b.buf = aligned_alloc(64, (size_t)MAX_BLOCK * BATCH_BLOCKS);
	b.dst = aligned_alloc(64, MAX_BLOCK);
	if (!b.buf || !b.dst)
		return 1;
	for (size_t i = 0; i < (size_t)MAX_BLOCK * BATCH_BLOCKS; i++)
		b.buf[i] = (unsigned char)(i * 131 + 7);
#ifdef HAVE_PEER_PSODIUM
	if (sodium_init() < 0)
		return 1;
#endif
#ifdef HAVE_PEER_PGCRYPT
	gcry_check_version(NULL);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
#endif
	if (!b.tsv)
		printf("block size %zu, %lu iterations, best of %d interleaved rounds, %s\n"
		       "%-14s %-20s %12s %12s %9s\n", b.size, b.iters, b.rounds, "cycles from rdtsc",
		       "algorithm", "implementation", "cycles/block", "MiB/s", "x crc32c");
	add_row(&b, "null-nop", "ref", null_nop, NULL, 1, NULL);
	add_row(&b, "null-memcpy", "ref", null_memcpy, NULL, 1, NULL);

	our_rows(&b, HASH_CRC32C, "crc32c", NULL, 0);
#ifdef HAVE_PEER_ISAL
	add_row(&b, "crc32c", "lib-isal", isal_crc32c, NULL, 1, NULL);
#endif
	our_rows(&b, HASH_XXHASH64, "xxhash", NULL, 0);
#ifdef HAVE_PEER_XXHASH
	add_row(&b, "xxhash", "lib-xxhash", lib_xxh64, NULL, 1, NULL);
#endif
	our_rows(&b, HASH_SHA256, "sha256", NULL, 0);
#ifdef HAVE_PEER_PGCRYPT
	add_row(&b, "sha256", "lib-gcrypt", gc_sha256, NULL, 1, NULL);
#endif
#ifdef HAVE_PEER_PSODIUM
	add_row(&b, "sha256", "lib-sodium", so_sha256, NULL, 1, NULL);
#endif
#ifdef HAVE_PEER_PCRYPTO
	{
		EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);

		if (md)
			add_row(&b, "sha256", "lib-openssl", os_sha256, md, 1, os_md_free);
	}
#endif
	our_rows(&b, HASH_BLAKE2B_256, "blake2b", NULL, 0);
#ifdef HAVE_PEER_B2
	add_row(&b, "blake2b", "lib-b2", b2_plain, NULL, 1, NULL);
#endif
#ifdef HAVE_PEER_PGCRYPT
	add_row(&b, "blake2b", "lib-gcrypt", gc_blake2b, NULL, 1, NULL);
#endif
#ifdef HAVE_PEER_PSODIUM
	add_row(&b, "blake2b", "lib-sodium", so_blake2b, NULL, 1, NULL);
#endif
	/* OpenSSL 3.0 has no unkeyed BLAKE2b-256: no row. */

	our_rows(&b, HASH_SHA256, "hmac-sha256", key, sizeof(key));
#ifdef HAVE_PEER_PGCRYPT
	{
		gcry_md_hd_t h = gc_keyed_handle(GCRY_MD_SHA256, GCRY_MD_FLAG_HMAC, key);

		if (h)
			add_row(&b, "hmac-sha256", "lib-gcrypt", gc_keyed, h, 1, gc_close);
	}
#endif
#ifdef HAVE_PEER_PSODIUM
	{
		crypto_auth_hmacsha256_state st;

		crypto_auth_hmacsha256_init(&st, key, sizeof(key));
		add_row(&b, "hmac-sha256", "lib-sodium", so_hmac, dup_arg(&st, sizeof(st)), 1, free);
	}
#endif
#ifdef HAVE_PEER_PCRYPTO
	{
		EVP_MAC_CTX *c = os_mac_ctx("HMAC", key);

		if (c)
			add_row(&b, "hmac-sha256", "lib-openssl", os_mac, c, 1, os_mac_free);
	}
#endif
	our_rows(&b, HASH_BLAKE2B_256, "blake2b-keyed", key, sizeof(key));
#ifdef HAVE_PEER_B2
	{
		blake2b_state st;

		if (!blake2b_init_key(&st, 32, key, sizeof(key)))
			add_row(&b, "blake2b-keyed", "lib-b2", b2_keyed, dup_arg(&st, sizeof(st)), 1, free);
	}
#endif
#ifdef HAVE_PEER_PGCRYPT
	{
		gcry_md_hd_t h = gc_keyed_handle(GCRY_MD_BLAKE2B_256, 0, key);

		if (h)
			add_row(&b, "blake2b-keyed", "lib-gcrypt", gc_keyed, h, 1, gc_close);
	}
#endif
#ifdef HAVE_PEER_PSODIUM
	{
		crypto_generichash_blake2b_state st;

		if (!crypto_generichash_blake2b_init(&st, key, sizeof(key), 32))
			add_row(&b, "blake2b-keyed", "lib-sodium", so_b2keyed, dup_arg(&st, sizeof(st)), 1,
				free);
	}
#endif
#ifdef HAVE_PEER_PCRYPTO
	{
		EVP_MAC_CTX *c = os_mac_ctx("BLAKE2BMAC", key);

		if (c)
			add_row(&b, "blake2b-keyed", "lib-openssl", os_mac, c, 1, os_mac_free);
	}
#endif
	fs_csum_rows(&b, key, sizeof(key));
	run_rows(&b);
	free(b.buf);
	free(b.dst);
	return 0;
}

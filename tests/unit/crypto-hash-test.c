// SPDX-License-Identifier: GPL-2.0
/*
 * crypto/hash.h: published known-answer vectors for every algorithm and
 * keyed form, run through every implementation this CPU supports (one-shot,
 * batch and streaming), then each implementation cross-checked against the
 * reference on pseudo-random data of many lengths and alignments, and the
 * error paths (bad keys, forced implementations).
 */
#include <errno.h>
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "tests/unit/xorshift.h"
#include "crypto/hash.h"
#include "crypto/hash-impl.h"
#include "crypto/hash-x86.h"

#define BATCH_LANES_MAX 16

static void unhex(const char *hex, uint8_t *out, size_t *len)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned int b;

		sscanf(hex, "%2x", &b);
		out[n++] = b;
	}
	*len = n;
}

struct kat {
	enum hash_alg alg;
	const char *key;	/* hex, NULL: unkeyed */
	const char *msg;	/* text, or NULL: see gen */
	int gen;		/* msg NULL: gen < 0: -gen bytes of 'a', gen >= 0: bytes 0..gen-1 */
	const char *digest;	/* hex, as stored */
};

#define HMAC_AA131 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ZERO64 "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
#define B2KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" \
	      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"

static const struct kat kats[] = {
	/* CRC-32C: the check value and RFC 3720 B.4 (stored little-endian) */
	{ HASH_CRC32C, NULL, "123456789", 0, "839206e3" },
	{ HASH_CRC32C, NULL, "", 0, "00000000" },
	{ HASH_CRC32C, NULL, NULL, 32, "4e79dd46" },		/* 00..1f -> 0x46dd794e */
	{ HASH_CRC32C, NULL, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 0, NULL },
	/* XXH64 seed 0 (values from the xxHash reference library) */
	{ HASH_XXHASH64, NULL, "", 0, "99e9d85137db46ef" },
	{ HASH_XXHASH64, NULL, "a", 0, "5b6e8ca9f1c44ed2" },
	{ HASH_XXHASH64, NULL, "abc", 0, "990977adf52cbc44" },
	{ HASH_XXHASH64, NULL, "123456789", 0, "83aee640db41b88c" },
	{ HASH_XXHASH64, NULL, "The quick brown fox jumps over the lazy dog", 0, "bc71da1f362d240b" },
	{ HASH_XXHASH64, NULL, NULL, 101, "1e38855f493890e9" },
	{ HASH_XXHASH64, NULL, NULL, 256, "4b90cd0684beac1f" },
	/* SHA-256: FIPS 180-4 examples */
	{ HASH_SHA256, NULL, "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ HASH_SHA256, NULL, "abc", 0, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ HASH_SHA256, NULL, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ HASH_SHA256, NULL, NULL, -1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	/* HMAC-SHA256: RFC 4231 test cases 1, 2, 3, 4, 6, 7 */
	{ HASH_SHA256, "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There", 0,
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ HASH_SHA256, "4a656665", "what do ya want for nothing?", 0,
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ HASH_SHA256, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd"
	  "\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd\xdd", 0,
	  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
	{ HASH_SHA256, "0102030405060708090a0b0c0d0e0f10111213141516171819",
	  "\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd"
	  "\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd\xcd", 0,
	  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
	{ HASH_SHA256, HMAC_AA131, "Test Using Larger Than Block-Size Key - Hash Key First", 0,
	  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
	{ HASH_SHA256, HMAC_AA131, "This is a test using a larger than block-size key and a larger than "
	  "block-size data. The key needs to be hashed before being used by the HMAC algorithm.", 0,
	  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	/* BLAKE2b with digest length 32 (RFC 7693 parameter block, reference code) */
	{ HASH_BLAKE2B_256, NULL, "", 0, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8" },
	{ HASH_BLAKE2B_256, NULL, "abc", 0, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319" },
	/* keyed BLAKE2b-256, key 00..3f, message 00..n-1 (the BLAKE2 KAT layout) */
	{ HASH_BLAKE2B_256, B2KEY, NULL, 0, "2fa9fbd9be36437de204e139e97d402bce68c828f43391608c891b5faed8a98a" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 1, "34758b647135628297fb09c7930cd04e9528e5669112f5b1318493e14de77e55" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 2, "2a18c32a9441f937ae772cd14327013e99ce2fea438c3d5b45e25a5d80739a5b" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 63, "6fb66ed039b6f5a082c3b40bce75df2f68be1cdb63cac4b532942c3b703045ac" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 64, "28c89a7c58f807ae33bc5aae78340e9c565290597436632f4613dbe33192c5db" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 127, "7c0bfe069b3ba04e2c88bac200999e2b1c9ef2f96f9ffa69b665efca9230c9ab" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 128, "6a591b356f19ca93ae2bcc7406653ff34aea53cea58bec62803e571d94944165" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 129, "20f607da31ed9652deecf4ef78905d4916ba6f5df37bfc4b610d50ba5447623a" },
	{ HASH_BLAKE2B_256, B2KEY, NULL, 255, "fe7b76a61787c089141f9e10fca1e5092488d89c62ea793fb2c5b1f849b4f2cb" },
	/*
	 * Binary keys with zero bytes, and the 64-byte keyed BLAKE2b maximum
	 * (python3 hashlib.blake2b(m, key=k, digest_size=32), hmac.new(k, m, "sha256")):
	 * keyed BLAKE2b-256 is not keyed BLAKE2b-512 cut to 32 bytes (that
	 * would be fd285f4a... for the 64 zero-byte key and "abc").
	 */
	{ HASH_SHA256, "0000ff000100", NULL, 200, "32ec7bd56495f9fc351508cfa0102e37476c7a57984f41ab7ef194d253ac6f87" },
	{ HASH_BLAKE2B_256, "0000ff000100", NULL, 200, "ae56204f280960daa8d5f369f6ec62f7827195b8c7d277ebe57a1badab448865" },
	{ HASH_BLAKE2B_256, ZERO64, "abc", 0, "04f2de7a30c34787a7d27aa83fc9df9bec29eb62094479630e5d6c9b54f2c77e" },
	{ HASH_SHA256, ZERO64 "00", "abc", 0, "bd10d9b4fef20ede625ff7402f67a93c93fbab7711b715414fce186f5c7f4687" },
};

static uint8_t *kat_message(const struct kat *k, size_t *len)
{
	uint8_t *m;

	if (k->msg) {
		*len = strlen(k->msg);
		if (k->alg == HASH_CRC32C && !k->digest)
			*len = 32;	/* the 32 zero bytes case */
		m = malloc(*len + 1);
		memcpy(m, k->msg, *len);
		return m;
	}
	*len = k->gen < 0 ? (size_t)-k->gen : (size_t)k->gen;
	m = malloc(*len + 1);
	for (size_t i = 0; i < *len; i++)
		m[i] = k->gen < 0 ? 'a' : (uint8_t)i;
	return m;
}

/* Run every vector through implementation @impl; returns vectors checked. */
static int run_kats(const char *impl)
{
	int done = 0;

	for (size_t i = 0; i < sizeof(kats) / sizeof(kats[0]); i++) {
		const struct kat *k = &kats[i];
		uint8_t key[256], want[64], got[64], got2[64];
		size_t keylen = 0, wantlen, len;
		struct hash_ctx ctx;
		struct hash_state st;
		uint8_t *msg;
		const void *blocks[3];
		uint8_t batch[3 * HASH_MAX_DIGEST];
		int ret;

		if (k->key)
			unhex(k->key, key, &keylen);
		ret = hash_ctx_init_impl(&ctx, k->alg, k->key ? key : NULL, keylen, impl);
		if (ret == -EOPNOTSUPP)
			continue;	/* this impl does not serve this alg/form */
		CHECK_EQ_U64(ret, 0);
		if (ret)
			continue;
		msg = kat_message(k, &len);
		if (k->digest)
			unhex(k->digest, want, &wantlen);
		else
			unhex("aa36918a", want, &wantlen);	/* 32 zero bytes: 0x8a9136aa */
		CHECK_EQ_U64(wantlen, hash_digest_size(k->alg));
		memset(got, 0xee, sizeof(got));
		CHECK_EQ_U64(hash_digest(&ctx, msg, len, got), 0);
		if (memcmp(got, want, wantlen))
			fprintf(stderr, "KAT %zu (%s, %s, len %zu) mismatch\n", i,
				hash_alg_name(k->alg), hash_impl_name(&ctx), len);
		CHECK_MEM(got, want, wantlen);

		/* streaming in uneven pieces */
		CHECK_EQ_U64(hash_init(&st, &ctx), 0);
		for (size_t off = 0, step = 1; off < len; off += step, step = step * 3 + 1) {
			size_t n = len - off < step ? len - off : step;

			CHECK_EQ_U64(hash_update(&st, msg + off, n), 0);
		}
		CHECK_EQ_U64(hash_final(&st, got2), 0);
		CHECK_MEM(got2, want, wantlen);

		/* batch of three copies */
		blocks[0] = blocks[1] = blocks[2] = msg;
		CHECK_EQ_U64(hash_digest_batch(&ctx, blocks, 3, len, batch), 0);
		for (int b = 0; b < 3; b++)
			CHECK_MEM(batch + b * wantlen, want, wantlen);
		hash_ctx_release(&ctx);
		free(msg);
		done++;
	}
	return done;
}

static void test_names(void)
{
	CHECK_EQ_U64(hash_digest_size(HASH_CRC32C), 4);
	CHECK_EQ_U64(hash_digest_size(HASH_XXHASH64), 8);
	CHECK_EQ_U64(hash_digest_size(HASH_SHA256), 32);
	CHECK_EQ_U64(hash_digest_size(HASH_BLAKE2B_256), 32);
	CHECK_EQ_U64(hash_digest_size((enum hash_alg)7), 0);
	CHECK_STR(hash_alg_name(HASH_CRC32C), "crc32c");
	CHECK_STR(hash_alg_name(HASH_XXHASH64), "xxhash64");
	CHECK_STR(hash_alg_name(HASH_SHA256), "sha256");
	CHECK_STR(hash_alg_name(HASH_BLAKE2B_256), "blake2b");
	CHECK(hash_alg_name((enum hash_alg)9) == NULL);
	CHECK_STR(hash_provider_name(), CRYPTOPROVIDER);
}

static void test_kats_all_impls(void)
{
	int total = 0;

	for (int alg = 0; alg < 4; alg++) {
		const char *name;
		int sup;

		for (unsigned int i = 0; (name = hash_impl_enum(alg, i, &sup)); i++) {
			int n;

			if (!sup) {
				printf("  %s %s: not supported by this CPU, skipped\n",
				       hash_alg_name(alg), name);
				continue;
			}
			n = run_kats(name);
			printf("  %s %s: vectors ok\n", hash_alg_name(alg), name);
			total += n;
		}
	}
	/* the default choice too */
	total += run_kats(NULL);
	CHECK(total >= (int)(sizeof(kats) / sizeof(kats[0])) * 2);
}

static uint64_t rnd_state = 0x243f6a8885a308d3ULL;

static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);
}

/* Every implementation against "ref" on random data, lengths 0..70000, odd offsets. */
static void cross_check(enum hash_alg alg, const uint8_t *key, size_t keylen)
{
	enum { MAXLEN = 70000 };
	uint8_t *buf = malloc(MAXLEN + 64);
	const char *name;
	struct hash_ctx ref;
	int sup;

	for (size_t i = 0; i < MAXLEN + 64; i++)
		buf[i] = rnd();
	CHECK_EQ_U64(hash_ctx_init_impl(&ref, alg, key, keylen, "ref"), 0);
	for (unsigned int i = 0; (name = hash_impl_enum(alg, i, &sup)); i++) {
		struct hash_ctx ctx;
		size_t len = 0, checked = 0;
		int bad = 0;

		if (!sup || !strcmp(name, "ref"))
			continue;
		if (hash_ctx_init_impl(&ctx, alg, key, keylen, name))
			continue;
		while (len <= MAXLEN && bad < 5) {
			size_t off = (len * 7 + checked) % 61;
			uint8_t want[32], got[32];
			struct hash_state st;
			size_t cut = len ? rnd() % (len + 1) : 0;

			hash_digest(&ref, buf + off, len, want);
			hash_digest(&ctx, buf + off, len, got);
			if (memcmp(want, got, hash_digest_size(alg))) {
				fprintf(stderr, "%s %s%s differs from ref at len %zu offset %zu\n",
					hash_alg_name(alg), name, keylen ? " keyed" : "", len, off);
				bad++;
			}
			hash_init(&st, &ctx);
			hash_update(&st, buf + off, cut);
			hash_update(&st, buf + off + cut, len - cut);
			hash_final(&st, got);
			if (memcmp(want, got, hash_digest_size(alg))) {
				fprintf(stderr, "%s %s%s streaming differs at len %zu cut %zu\n",
					hash_alg_name(alg), name, keylen ? " keyed" : "", len, cut);
				bad++;
			}
			checked++;
			/* every length up to 1100, then coarser with odd steps, and the block sizes */
			if (len < 1100)
				len++;
			else if (len == 4095 || len == 4096 || len == 16383 || len == 16384 ||
				 len == 65535)
				len++;
			else if (len < 4095 && len + 97 > 4095)
				len = 4095;
			else if (len < 16383 && len + 397 > 16383)
				len = 16383;
			else if (len < 65535 && len + 1499 > 65535)
				len = 65535;
			else
				len += len < 20000 ? 97 + (checked & 7) * 50 : 1499;
		}
		/* batch of many different blocks against single digests */
		{
			const void *blocks[37];
			uint8_t out[37 * 32], one[32];
			size_t ds = hash_digest_size(alg);
			size_t sizes[] = { 0, 1, 64, 128, 1000, 4096, 16384 };

			/* 37: whole groups and a remainder left to single digests; 11: a padded group */
			for (size_t s = 0; s < 2 * sizeof(sizes) / sizeof(sizes[0]); s++) {
				int nb = s & 1 ? 11 : 37;

				for (int b = 0; b < nb; b++)
					blocks[b] = buf + (b * 1021) % (MAXLEN - 16384);
				CHECK_EQ_U64(hash_digest_batch(&ctx, blocks, nb, sizes[s / 2], out), 0);
				for (int b = 0; b < nb; b++) {
					hash_digest(&ref, blocks[b], sizes[s / 2], one);
					if (memcmp(one, out + b * ds, ds)) {
						fprintf(stderr, "%s %s batch block %d of %d len %zu differs\n",
							hash_alg_name(alg), name, b, nb, sizes[s / 2]);
						bad++;
					}
				}
			}
		}
		printf("  %s %s%s: %zu lengths agree with ref\n", hash_alg_name(alg), name,
		       keylen ? " keyed" : "", checked);
		CHECK(bad == 0);
		hash_ctx_release(&ctx);
	}
	/* ref streaming and batch against ref one-shot too */
	for (size_t len = 0; len < 3000; len += 37) {
		uint8_t want[32], got[32];
		struct hash_state st;

		hash_digest(&ref, buf + 3, len, want);
		hash_init(&st, &ref);
		for (size_t off = 0; off < len; off += 61)
			hash_update(&st, buf + 3 + off, len - off < 61 ? len - off : 61);
		hash_final(&st, got);
		CHECK_MEM(want, got, hash_digest_size(alg));
	}
	hash_ctx_release(&ref);
	free(buf);
}

static void test_cross_check(void)
{
	uint8_t key[100];

	for (int i = 0; i < 100; i++)
		key[i] = 0xa0 + i;
	cross_check(HASH_CRC32C, NULL, 0);
	cross_check(HASH_XXHASH64, NULL, 0);
	cross_check(HASH_SHA256, NULL, 0);
	cross_check(HASH_SHA256, key, 32);
	cross_check(HASH_SHA256, key, 100);
	cross_check(HASH_BLAKE2B_256, NULL, 0);
	cross_check(HASH_BLAKE2B_256, key, 64);
	cross_check(HASH_BLAKE2B_256, key, 5);
}

static void test_errors(void)
{
	struct hash_ctx ctx;
	uint8_t key[65] = { 1 }, out[32];
	const char *name;
	int sup;

	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, key, 4), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_XXHASH64, key, 4), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_BLAKE2B_256, key, 65), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_SHA256, NULL, 4), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init(&ctx, (enum hash_alg)4, NULL, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, NULL, 0), 0);
	CHECK_EQ_U64(hash_digest(&ctx, NULL, 5, out), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_digest(&ctx, NULL, 0, out), 0);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_BLAKE2B_256, key, 64), 0);
	hash_ctx_release(&ctx);
	CHECK(ctx.keylen == 0 && ctx.key[0] == 0);
	CHECK_EQ_U64(hash_digest(&ctx, "x", 1, out), (uint64_t)-EINVAL);

	/* forcing */
	CHECK_EQ_U64(hash_ctx_init_impl(&ctx, HASH_CRC32C, NULL, 0, "no-such-impl"), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hash_ctx_init_impl(&ctx, HASH_SHA256, NULL, 0, "ref"), 0);
	CHECK_STR(hash_impl_name(&ctx), "ref");
	for (int alg = 0; alg < 4; alg++)
		for (unsigned int i = 0; (name = hash_impl_enum(alg, i, &sup)); i++)
			if (!sup) {
				CHECK_EQ_U64(hash_ctx_init_impl(&ctx, alg, NULL, 0, name),
					     (uint64_t)-EOPNOTSUPP);
				printf("  %s %s refused on this CPU\n", hash_alg_name(alg), name);
			}
	setenv("BTRFS_KIT_HASH_IMPL", "ref", 1);
	for (int alg = 0; alg < 4; alg++) {
		CHECK_EQ_U64(hash_ctx_init(&ctx, alg, NULL, 0), 0);
		CHECK_STR(hash_impl_name(&ctx), "ref");
	}
	/* every implementation this CPU runs, forced through the variable by its short name */
	for (int alg = 0; alg < 4; alg++)
		for (unsigned int i = 0; (name = hash_impl_enum(alg, i, &sup)); i++) {
			const char *dash = strchr(name, '-');

			if (!sup)
				continue;
			setenv("BTRFS_KIT_HASH_IMPL", dash ? dash + 1 : name, 1);
			/* a library may lack a form (OpenSSL 3.0: unkeyed BLAKE2b-256) */
			if (!strncmp(name, "lib-", 4) &&
			    hash_ctx_init(&ctx, alg, NULL, 0) == -EOPNOTSUPP)
				continue;
			CHECK_EQ_U64(hash_ctx_init(&ctx, alg, NULL, 0), 0);
			/* a batch-only one serves batches, one-shots keep the default */
			if (hash_batch_impl_name(&ctx) && !strcmp(hash_batch_impl_name(&ctx), name))
				CHECK_EQ_U64(hash_impl_lanes(&ctx) > 1, 1);
			else
				CHECK_STR(hash_impl_name(&ctx), name);
			hash_ctx_release(&ctx);
		}
	/* a list: each algorithm takes the first name it has */
	setenv("BTRFS_KIT_HASH_IMPL", "ref,sse42", 1);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, NULL, 0), 0);
	CHECK_STR(hash_impl_name(&ctx), "ref");
	setenv("BTRFS_KIT_HASH_IMPL", "bogus", 1);
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, NULL, 0), (uint64_t)-EINVAL);
	unsetenv("BTRFS_KIT_HASH_IMPL");
	CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, NULL, 0), 0);
	printf("  default impls:");
	for (int alg = 0; alg < 4; alg++) {
		hash_ctx_init(&ctx, alg, NULL, 0);
		printf(" %s=%s", hash_alg_name(alg), hash_impl_name(&ctx));
		if (hash_batch_impl_name(&ctx))
			printf("/batch:%s", hash_batch_impl_name(&ctx));
	}
#if HASH_X86
	/* the preferences the measurements on Zen 5 set (ch-checksumming.rst) */
	if (hash_x86_has(hash_cpu_features(), HX86_AVX512F | HX86_AVX512VL | HX86_AVX512BW |
					      HX86_VPCLMUL) &&
	    !strcmp(hash_provider_name(), "builtin")) {
		CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_SHA256, NULL, 0), 0);
		CHECK_STR(hash_batch_impl_name(&ctx), "simd-avx512");
		CHECK_EQ_U64(hash_impl_lanes(&ctx), 16);
		CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_BLAKE2B_256, NULL, 0), 0);
		CHECK_STR(hash_impl_name(&ctx), "ref");
		CHECK_STR(hash_batch_impl_name(&ctx), "simd-avx512vl");
		CHECK_EQ_U64(hash_ctx_init(&ctx, HASH_CRC32C, NULL, 0), 0);
		CHECK_STR(hash_impl_name(&ctx), "simd-vpclmul512x3");
	}
#endif
	hash_ctx_init(&ctx, HASH_SHA256, key, 16);
	printf(" hmac-sha256=%s", hash_impl_name(&ctx));
	hash_ctx_init(&ctx, HASH_BLAKE2B_256, key, 16);
	printf(" blake2b-keyed=%s provider=%s\n", hash_impl_name(&ctx), hash_provider_name());
}

/* The bare register update: seeded and inverted by hand it is the standard CRC-32C. */
static void test_crc32c_raw(void)
{
	CHECK_EQ_U64(~crc32c_raw(~0U, "123456789", 9), 0xE3069283U);
	/* split updates chain */
	CHECK_EQ_U64(crc32c_raw(crc32c_raw(~0U, "1234", 4), "56789", 5), crc32c_raw(~0U, "123456789", 9));
	CHECK_EQ_U64(crc32c_raw(7, "", 0), 7);
}

/*
 * BLAKE2b-512 through every blake2b compression primitive (single and
 * multi-buffer), parameter block built here: RFC 7693 Appendix A ("abc")
 * and the first, second and last keyed entries of the official BLAKE2b KAT
 * (key 00..3f, message 00..n-1).  Checks the primitives apart from the
 * 32-byte digest handling of hash.c.
 */
static void b2_512(const struct hash_impl *impl, int multi, const uint8_t *key, size_t keylen,
		   const uint8_t *msg, size_t len, uint8_t out[64])
{
	uint64_t h[BATCH_LANES_MAX][8], t[2] = { 0, 0 };
	uint8_t blk[BATCH_LANES_MAX][128];
	const uint8_t *p[BATCH_LANES_MAX];
	unsigned int lanes = multi ? impl->lanes : 1;
	size_t nb, rest;

	for (unsigned int l = 0; l < lanes; l++) {
		memcpy(h[l], blake2b_iv, 64);
		h[l][0] ^= 0x01010000ULL | ((uint64_t)keylen << 8) | 64;
	}
#define B2_RUN(pp, n, fin, inc) do {						\
		if (multi)							\
			impl->b2_multi(h, pp, n, t, fin, inc);			\
		else								\
			impl->b2_blocks(h[0], (pp)[0], n, t, fin, inc);		\
	} while (0)
	if (keylen) {
		for (unsigned int l = 0; l < lanes; l++) {
			memset(blk[l], 0, 128);
			memcpy(blk[l], key, keylen);
			p[l] = blk[l];
		}
		B2_RUN(p, 1, !len, 128);
	}
	if (len || !keylen) {
		nb = len ? (len - 1) / 128 : 0;
		rest = len - nb * 128;
		for (unsigned int l = 0; l < lanes; l++)
			p[l] = msg;
		if (nb)
			B2_RUN(p, nb, 0, 0);
		for (unsigned int l = 0; l < lanes; l++) {
			memset(blk[l], 0, 128);
			memcpy(blk[l], msg + nb * 128, rest);
			p[l] = blk[l];
		}
		B2_RUN(p, 1, 1, rest);
	}
#undef B2_RUN
	for (unsigned int l = 0; l < lanes; l++) {
		uint8_t o[64];

		for (int i = 0; i < 8; i++)
			for (int b = 0; b < 8; b++)
				o[8 * i + b] = (uint8_t)(h[l][i] >> (8 * b));
		if (l && memcmp(o, out, 64))
			memset(out, 0, 64);	/* lanes disagree: fail the comparison */
		else
			memcpy(out, o, 64);
	}
}

static void test_blake2b512_vectors(void)
{
	static const struct { int keyed; int n; const char *want; } v[] = {
		{ 0, -1, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
			 "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923" },
		{ 1, 0, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
			"b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568" },
		{ 1, 1, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
			"187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd" },
		{ 1, 255, "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
			  "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461" },
	};
	uint8_t key[64], msg[256], want[64], got[64];
	size_t wl;

	for (int i = 0; i < 64; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 256; i++)
		msg[i] = (uint8_t)i;
	for (unsigned int i = 0; blake2b_impls[i]; i++) {
		const struct hash_impl *impl = blake2b_impls[i];

		if (!impl->b2_blocks || (impl->cpu_ok && !impl->cpu_ok(hash_cpu_features())))
			continue;
		for (int multi = 0; multi <= (impl->b2_multi && impl->lanes <= BATCH_LANES_MAX); multi++) {
			for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
				const uint8_t *m = v[k].n < 0 ? (const uint8_t *)"abc" : msg;
				size_t len = v[k].n < 0 ? 3 : (size_t)v[k].n;

				unhex(v[k].want, want, &wl);
				b2_512(impl, multi, v[k].keyed ? key : NULL, v[k].keyed ? 64 : 0, m, len, got);
				if (memcmp(got, want, 64))
					fprintf(stderr, "BLAKE2b-512 vector %zu: %s%s differs\n", k,
						impl->name, multi ? " multi" : "");
				CHECK_MEM(got, want, 64);
			}
			printf("  blake2b-512 %s%s: RFC 7693 and keyed KAT vectors ok\n", impl->name,
			       multi ? " multi-buffer" : "");
		}
	}
}

/* The feature bits the selection uses (libgcc's CPU model) against raw CPUID/XGETBV. */
static void test_cpu_features(void)
{
#if HASH_X86
	printf("  features 0x%x (CPUID 0x%x)\n", hash_cpu_features(), hash_x86_features_cpuid());
	CHECK_EQ_U64(hash_cpu_features(), hash_x86_features_cpuid());
#else
	CHECK_EQ_U64(hash_cpu_features(), 0);
#endif
}

#if HASH_X86
/* XGETBV with ECX=1: the state components in use (XINUSE), where CPUID says it exists. */
static int xinuse(uint64_t *bits)
{
	unsigned int a, b, c, d;
	uint32_t lo, hi;

	if (__get_cpuid_max(0, NULL) < 0xd)
		return 0;
	__cpuid_count(0xd, 1, a, b, c, d);
	(void)b, (void)c, (void)d;
	if (!(a & (1U << 2)))
		return 0;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	*bits = ((uint64_t)hi << 32) | lo;
	return 1;
}
#endif

/*
 * Every implementation returns with the upper halves of ymm0-15/zmm0-15
 * clean (vzeroupper): dirty ones slow every later legacy-SSE instruction
 * (SHA-NI has no VEX form) by half on Zen 5.  XINUSE bit 2 is the upper
 * ymm halves, bit 6 the upper zmm halves of registers 0-15.
 */
static void test_upper_state_clean(void)
{
#if HASH_X86
	static uint8_t buf[16 * 5000];
	const void *blocks[16];
	uint8_t out[16 * 32];
	const char *name;
	uint64_t bits;
	int sup, seen = 0;

	if (!xinuse(&bits)) {
		printf("  no XGETBV(1) on this CPU: not checked\n");
		return;
	}
	for (int i = 0; i < 16; i++)
		blocks[i] = buf + 5000 * i;
	for (int alg = 0; alg < HASH_NR_ALGS; alg++)
		for (unsigned int i = 0; (name = hash_impl_enum(alg, i, &sup)); i++) {
			struct hash_ctx ctx;
			const size_t lens[] = { 100, 1000, 4096 };

			if (!sup || hash_ctx_init_impl(&ctx, alg, NULL, 0, name))
				continue;
			for (int l = 0; l < 3; l++) {
				hash_digest(&ctx, buf, lens[l], out);
				xinuse(&bits);
				if (bits & 0x44)
					fprintf(stderr, "%s %s len %zu: XINUSE %#llx after a digest\n",
						hash_alg_name(alg), name, lens[l], (unsigned long long)bits);
				CHECK_EQ_U64(bits & 0x44, 0);
				hash_digest_batch(&ctx, blocks, 16, lens[l], out);
				xinuse(&bits);
				if (bits & 0x44)
					fprintf(stderr, "%s %s len %zu: XINUSE %#llx after a batch\n",
						hash_alg_name(alg), name, lens[l], (unsigned long long)bits);
				CHECK_EQ_U64(bits & 0x44, 0);
			}
			hash_ctx_release(&ctx);
			seen++;
		}
	printf("  %d implementations leave the upper vector halves clean\n", seen);
#endif
}

int main(void)
{
	/* a forced impl in the caller's environment would skew the default checks */
	unsetenv("BTRFS_KIT_HASH_IMPL");
	RUN(test_names);
	RUN(test_cpu_features);
	RUN(test_crc32c_raw);
	RUN(test_kats_all_impls);
	RUN(test_errors);
	RUN(test_blake2b512_vectors);
	RUN(test_cross_check);
	RUN(test_upper_state_clean);
	return unit_done();
}

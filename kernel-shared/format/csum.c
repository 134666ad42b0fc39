// SPDX-License-Identifier: GPL-2.0
/* btrfs csum types mapped onto the crypto layer, plain and keyed. */
#include <string.h>
#include "kernel-shared/format/csum.h"

#define CSUM_KEYED	0x1	/* needs a key */
#define CSUM_AUTHSUM	0x2	/* 24 bytes keyed + 8 bytes xxhash64 */

static const struct {
	u16 type;
	const char *name;       /* as btrfs-progs prints it (keyed: btrfs-kit's names) */
	u16 size;               /* digest bytes */
	enum hash_alg alg;      /* the (keyed) hash */
	u8 flags;               /* CSUM_* */
} csum_types[] = {
	{ BTRFS_CSUM_TYPE_CRC32, "crc32c", 4, HASH_CRC32C, 0 },
	{ BTRFS_CSUM_TYPE_XXHASH, "xxhash64", 8, HASH_XXHASH64, 0 },
	{ BTRFS_CSUM_TYPE_SHA256, "sha256", 32, HASH_SHA256, 0 },
	{ BTRFS_CSUM_TYPE_BLAKE2, "blake2b", 32, HASH_BLAKE2B_256, 0 },
	{ BTRFS_CSUM_TYPE_AUTH_SHA256, "auth-sha256", 32, HASH_SHA256, CSUM_KEYED },
	{ BTRFS_CSUM_TYPE_AUTH_BLAKE2, "auth-blake2b", 32, HASH_BLAKE2B_256, CSUM_KEYED },
	{ BTRFS_CSUM_TYPE_AUTHSUM_SHA256, "authsum-sha256", 32, HASH_SHA256,
	  CSUM_KEYED | CSUM_AUTHSUM },
	{ BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2, "authsum-blake2b", 32, HASH_BLAKE2B_256,
	  CSUM_KEYED | CSUM_AUTHSUM },
};

static int csum_index(u16 type)
{
	for (size_t i = 0; i < ARRAY_SIZE(csum_types); i++)
		if (csum_types[i].type == type)
			return (int)i;
	return -1;
}

const char *btrfs_csum_type_name(u16 type)
{
	int i = csum_index(type);

	return i < 0 ? NULL : csum_types[i].name;
}

u16 btrfs_csum_type_size(u16 type)
{
	int i = csum_index(type);

	return i < 0 ? 0 : csum_types[i].size;
}

bool btrfs_csum_type_keyed(u16 type)
{
	int i = csum_index(type);

	return i >= 0 && (csum_types[i].flags & CSUM_KEYED);
}

bool btrfs_csum_type_authsum(u16 type)
{
	int i = csum_index(type);

	return i >= 0 && (csum_types[i].flags & CSUM_AUTHSUM);
}

/* The names mkfs --csum takes. */
static const struct {
	const char *name;
	int type;
} csum_names[] = {
	{ "crc32c", BTRFS_CSUM_TYPE_CRC32 },
	{ "xxhash", BTRFS_CSUM_TYPE_XXHASH },
	{ "xxhash64", BTRFS_CSUM_TYPE_XXHASH },
	{ "sha256", BTRFS_CSUM_TYPE_SHA256 },
	{ "blake2", BTRFS_CSUM_TYPE_BLAKE2 },
	{ "blake2b", BTRFS_CSUM_TYPE_BLAKE2 },
	{ "auth-sha256", BTRFS_CSUM_TYPE_AUTH_SHA256 },
	{ "hmac-sha256", BTRFS_CSUM_TYPE_AUTH_SHA256 },
	{ "auth-blake2b", BTRFS_CSUM_TYPE_AUTH_BLAKE2 },
	{ "authsum-sha256", BTRFS_CSUM_TYPE_AUTHSUM_SHA256 },
	{ "authsum-blake2b", BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2 },
};

int btrfs_csum_type_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(csum_names); i++)
		if (!strcasecmp(name, csum_names[i].name))
			return csum_names[i].type;
	return -1;
}

const char *btrfs_csum_name_at(size_t i)
{
	return i < ARRAY_SIZE(csum_names) ? csum_names[i].name : NULL;
}

int btrfs_csum_ctx_init(struct hash_ctx *ctx, u16 type, const u8 *key, size_t keylen)
{
	int i = csum_index(type);

	if (i < 0 || (csum_types[i].flags & CSUM_AUTHSUM))
		return -EOPNOTSUPP;
	if (!(csum_types[i].flags & CSUM_KEYED))
		return hash_ctx_init(ctx, csum_types[i].alg, NULL, 0);
	if (!key || !keylen)
		return -ENOKEY;
	return hash_ctx_init(ctx, csum_types[i].alg, key, keylen);
}

int btrfs_csum_setup(struct btrfs_csum *c, u16 type, const u8 *key, size_t keylen)
{
	int i = csum_index(type);
	int ret;

	memset(c, 0, sizeof(*c));
	if (i < 0)
		return -EOPNOTSUPP;
	c->type = type;
	c->size = csum_types[i].size;
	c->keyed = csum_types[i].flags & CSUM_KEYED;
	c->authsum = csum_types[i].flags & CSUM_AUTHSUM;
	if (key && keylen && !c->keyed)
		return -EINVAL;
	c->have_key = c->keyed && key && keylen;
	if (!c->keyed || c->have_key) {
		ret = hash_ctx_init(&c->hash, csum_types[i].alg, c->have_key ? key : NULL,
				    c->have_key ? keylen : 0);
		if (ret < 0)
			return ret;
	}
	if (c->authsum) {
		ret = hash_ctx_init(&c->xxh, HASH_XXHASH64, NULL, 0);
		if (ret < 0) {
			btrfs_csum_release(c);
			return ret;
		}
	}
	return 0;
}

void btrfs_csum_release(struct btrfs_csum *c)
{
	if (!c->keyed || c->have_key)
		hash_ctx_release(&c->hash);
	if (c->authsum)
		hash_ctx_release(&c->xxh);
	/* hash_ctx holds the key and the states derived from it */
	explicit_bzero(c, sizeof(*c));
}

/* The xxhash64 secondary of an authsum checksum into out[24..32). */
static int csum_secondary(const struct btrfs_csum *c, const void *data, size_t len, u8 *out)
{
	return hash_digest(&c->xxh, data, len, out + BTRFS_AUTHSUM_KEYED_BYTES);
}

int btrfs_csum_compute(const struct btrfs_csum *c, const void *data, size_t len, u8 *out)
{
	u8 digest[HASH_MAX_DIGEST];
	int ret;

	if (c->keyed && !c->have_key)
		return -ENOKEY;
	ret = hash_digest(&c->hash, data, len, digest);
	if (ret < 0)
		return ret;
	memset(out, 0, BTRFS_CSUM_SIZE);
	if (!c->authsum) {
		memcpy(out, digest, c->size);
		return 0;
	}
	memcpy(out, digest, BTRFS_AUTHSUM_KEYED_BYTES);
	return csum_secondary(c, data, len, out);
}

/* Blocks of an authsum batch per round: keyed hashes, then their xxhash64 parts. */
#define AUTHSUM_GROUP 16

/* The xxhash64 parts of k (at most AUTHSUM_GROUP) blocks into their checksums at out. */
static int put_secondaries(const struct btrfs_csum *c, const void *const *blocks, size_t k,
			   size_t len, u8 *out)
{
	u8 secondary[AUTHSUM_GROUP * 8];
	int ret = hash_digest_batch(&c->xxh, blocks, k, len, secondary);

	for (size_t i = 0; i < k && ret == 0; i++)
		memcpy(out + i * c->size + BTRFS_AUTHSUM_KEYED_BYTES, secondary + 8 * i, 8);
	return ret;
}

int btrfs_csum_compute_batch(const struct btrfs_csum *c, const void *const *blocks, size_t n,
			     size_t len, u8 *out)
{
	int ret;

	if (c->keyed && !c->have_key)
		return -ENOKEY;
	/* every keyed digest is 32 bytes, c->size: the stride fits the hash's output */
	if (!c->authsum)
		return hash_digest_batch(&c->hash, blocks, n, len, out);
	/*
	 * Both hashes through their batch paths (multi-buffer xxhash64 too), a
	 * group at a time: the blocks are still in cache for the second hash.
	 */
	for (size_t g = 0; g < n; g += AUTHSUM_GROUP) {
		size_t k = min_t(size_t, AUTHSUM_GROUP, n - g);

		ret = hash_digest_batch(&c->hash, blocks + g, k, len, out + g * c->size);
		if (ret == 0)
			ret = put_secondaries(c, blocks + g, k, len, out + g * c->size);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void btrfs_csum_verify_span(const struct btrfs_csum *c, u32 *off, u32 *len)
{
	*off = 0;
	*len = c->size;
	if (!c->authsum)
		return;
	if (c->have_key) {
		*len = BTRFS_AUTHSUM_KEYED_BYTES;
	} else {
		*off = BTRFS_AUTHSUM_KEYED_BYTES;
		*len = c->size - BTRFS_AUTHSUM_KEYED_BYTES;
	}
}

int btrfs_csum_verify_batch(const struct btrfs_csum *c, const void *const *blocks, size_t n,
			    size_t len, u8 *out)
{
	int ret;

	if (!c->authsum)
		return btrfs_csum_compute_batch(c, blocks, n, len, out);
	if (c->have_key) {
		/* the keyed digests are c->size bytes: bytes 24.. are cleared */
		ret = hash_digest_batch(&c->hash, blocks, n, len, out);
		for (size_t i = 0; i < n && ret == 0; i++)
			memset(out + i * c->size + BTRFS_AUTHSUM_KEYED_BYTES, 0,
			       c->size - BTRFS_AUTHSUM_KEYED_BYTES);
		return ret;
	}
	for (size_t g = 0; g < n; g += AUTHSUM_GROUP) {
		size_t k = min_t(size_t, AUTHSUM_GROUP, n - g);

		memset(out + g * c->size, 0, k * c->size);
		ret = put_secondaries(c, blocks + g, k, len, out + g * c->size);
		if (ret < 0)
			return ret;
	}
	return 0;
}

const char *btrfs_csum_result_name(enum btrfs_csum_result r)
{
	static const char *const names[] = {
		[BTRFS_CSUM_VALID] = "match",
		[BTRFS_CSUM_DAMAGED] = "DAMAGED",
		[BTRFS_CSUM_ALTERED] = "ALTERED",
		[BTRFS_CSUM_NO_KEY] = "NO KEY",
		[BTRFS_CSUM_UNAUTHENTICATED] = "UNAUTHENTICATED",
	};

	return (unsigned int)r < ARRAY_SIZE(names) ? names[r] : "?";
}

int btrfs_csum_verify(const struct btrfs_csum *c, const void *data, size_t len, const u8 *stored)
{
	u8 sum[BTRFS_CSUM_SIZE];
	bool secondary_ok;
	int ret;

	if (c->keyed && !c->have_key) {
		if (!c->authsum)
			return BTRFS_CSUM_NO_KEY;
		memset(sum, 0, sizeof(sum));
		ret = csum_secondary(c, data, len, sum);
		if (ret < 0)
			return ret;
		secondary_ok = !memcmp(sum + BTRFS_AUTHSUM_KEYED_BYTES,
				       stored + BTRFS_AUTHSUM_KEYED_BYTES, 8);
		return secondary_ok ? BTRFS_CSUM_UNAUTHENTICATED : BTRFS_CSUM_DAMAGED;
	}
	ret = btrfs_csum_compute(c, data, len, sum);
	if (ret < 0)
		return ret;
	if (!memcmp(sum, stored, c->size))
		return BTRFS_CSUM_VALID;
	if (!c->authsum)
		return BTRFS_CSUM_DAMAGED;
	secondary_ok = !memcmp(sum + BTRFS_AUTHSUM_KEYED_BYTES, stored + BTRFS_AUTHSUM_KEYED_BYTES, 8);
	return secondary_ok ? BTRFS_CSUM_ALTERED : BTRFS_CSUM_DAMAGED;
}

int btrfs_csum_key_check(const struct btrfs_csum *c, const u8 *fsid, u8 *out)
{
	static const char msg[] = BTRFS_AUTH_KEY_CHECK_MSG;
	u8 buf[sizeof(msg) - 1 + BTRFS_FSID_SIZE];

	if (!c->keyed)
		return -EINVAL;
	if (!c->have_key)
		return -ENOKEY;
	memcpy(buf, msg, sizeof(msg) - 1);
	memcpy(buf + sizeof(msg) - 1, fsid, BTRFS_FSID_SIZE);
	return hash_digest(&c->hash, buf, sizeof(buf), out);
}

int btrfs_csum_data_keyed(u16 type, const u8 *key, size_t keylen, const void *data, size_t len,
			  u8 *out)
{
	struct btrfs_csum c;
	int ret;

	ret = btrfs_csum_setup(&c, type, btrfs_csum_type_keyed(type) ? key : NULL,
			       btrfs_csum_type_keyed(type) ? keylen : 0);
	if (ret < 0)
		return ret;
	ret = btrfs_csum_compute(&c, data, len, out);
	btrfs_csum_release(&c);
	return ret;
}

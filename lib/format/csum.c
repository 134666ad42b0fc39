// SPDX-License-Identifier: GPL-2.0
/* btrfs csum types mapped onto the crypto layer. */
#include <string.h>
#include "lib/format/csum.h"

static const struct {
	const char *name;       /* as btrfs-progs prints it */
	u16 size;               /* digest bytes */
	enum hash_alg alg;
} csum_types[] = {
	[BTRFS_CSUM_TYPE_CRC32] = { "crc32c", 4, HASH_CRC32C },
	[BTRFS_CSUM_TYPE_XXHASH] = { "xxhash64", 8, HASH_XXHASH64 },
	[BTRFS_CSUM_TYPE_SHA256] = { "sha256", 32, HASH_SHA256 },
	[BTRFS_CSUM_TYPE_BLAKE2] = { "blake2b", 32, HASH_BLAKE2B_256 },
};

const char *btrfs_csum_type_name(u16 type)
{
	return type < ARRAY_SIZE(csum_types) ? csum_types[type].name : NULL;
}

u16 btrfs_csum_type_size(u16 type)
{
	return type < ARRAY_SIZE(csum_types) ? csum_types[type].size : 0;
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
	if (!btrfs_csum_type_valid(type))
		return -EOPNOTSUPP;
	return hash_ctx_init(ctx, csum_types[type].alg, key, keylen);
}

int btrfs_csum_data_keyed(u16 type, const u8 *key, size_t keylen, const void *data, size_t len,
			  u8 *out)
{
	struct hash_ctx ctx;
	u8 digest[HASH_MAX_DIGEST];
	int ret;

	ret = btrfs_csum_ctx_init(&ctx, type, key, keylen);
	if (ret < 0)
		return ret;
	ret = hash_digest(&ctx, data, len, digest);
	hash_ctx_release(&ctx);
	if (ret < 0)
		return ret;
	memset(out, 0, BTRFS_CSUM_SIZE);
	memcpy(out, digest, csum_types[type].size);
	return 0;
}

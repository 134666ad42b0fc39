/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btrfs checksum types (super_block.csum_type) and the checksum of a byte
 * range, on top of crypto/hash.h.  A checksum is stored in a 32-byte field
 * (BTRFS_CSUM_SIZE): the digest first, the rest zero.
 */
#ifndef BTRFS_KIT_CSUM_H
#define BTRFS_KIT_CSUM_H

#include "lib/format/kerncompat.h"
#include "lib/format/format.h"
#include "crypto/hash.h"

/* "crc32c", "xxhash64", "sha256", "blake2b"; NULL for an unknown type. */
const char *btrfs_csum_type_name(u16 type);
/* Digest size in bytes: 4, 8, 32, 32; 0 for an unknown type. */
u16 btrfs_csum_type_size(u16 type);
static inline bool btrfs_csum_type_valid(u16 type)
{
	return btrfs_csum_type_size(type) != 0;
}
/* Type by name as mkfs --csum takes it ("crc32c", "xxhash", "xxhash64", "sha256", "blake2", "blake2b"); -1 if none. */
int btrfs_csum_type_by_name(const char *name);
/* The i-th of those names, NULL past the last. */
const char *btrfs_csum_name_at(size_t i);

/*
 * Set up a hash context for a btrfs csum type (one per filesystem, then
 * hash_digest() per block).  key/keylen: an authentication key or NULL.
 * Returns 0, -EOPNOTSUPP for an unknown type, or the backend's error.
 */
int btrfs_csum_ctx_init(struct hash_ctx *ctx, u16 type, const u8 *key, size_t keylen);

/*
 * Checksum of data[0..len) into out (BTRFS_CSUM_SIZE bytes, zero padded).
 * key/keylen: an authentication key (keyed BLAKE2b / HMAC-SHA256), or NULL.
 * Returns 0, -EOPNOTSUPP for an unknown type, or the backend's error.
 */
int btrfs_csum_data_keyed(u16 type, const u8 *key, size_t keylen, const void *data, size_t len,
			  u8 *out);
static inline int btrfs_csum_data(u16 type, const void *data, size_t len, u8 *out)
{
	return btrfs_csum_data_keyed(type, NULL, 0, data, len, out);
}

#endif

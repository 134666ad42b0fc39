/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btrfs checksum types (super_block.csum_type) and the checksum of a byte
 * range, on top of crypto/hash.h.  A checksum is stored in a 32-byte field
 * (BTRFS_CSUM_SIZE): the digest first, the rest zero.
 */
#ifndef BTRFS_KIT_CSUM_H
#define BTRFS_KIT_CSUM_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "crypto/hash.h"

/*
 * "crc32c", "xxhash64", "sha256", "blake2b", "auth-sha256", "auth-blake2b",
 * "authsum-sha256", "authsum-blake2b"; NULL for an unknown type.
 */
const char *btrfs_csum_type_name(u16 type);
/* Digest size in bytes: 4, 8, 32, 32, then 32 for the keyed ones; 0 for an unknown type. */
u16 btrfs_csum_type_size(u16 type);
/* Needs a key to compute (auth-* and authsum-*). */
bool btrfs_csum_type_keyed(u16 type);
/* Keyed hash in 24 bytes followed by an xxhash64 secondary (authsum-*). */
bool btrfs_csum_type_authsum(u16 type);
static inline bool btrfs_csum_type_valid(u16 type)
{
	return btrfs_csum_type_size(type) != 0;
}
/*
 * Type by name as mkfs --csum takes it ("crc32c", "xxhash", "xxhash64",
 * "sha256", "blake2", "blake2b", the keyed names above and "hmac-sha256"
 * for auth-sha256); -1 if none.
 */
int btrfs_csum_type_by_name(const char *name);
/* The i-th of those names, NULL past the last. */
const char *btrfs_csum_name_at(size_t i);

/*
 * Set up a hash context for a btrfs csum type (one per filesystem, then
 * hash_digest() per block).  key/keylen: an authentication key or NULL.
 * Returns 0, -EOPNOTSUPP for an unknown type or an authsum type (two hashes:
 * use struct btrfs_csum), -ENOKEY for an auth type without a key, or the
 * backend's error.
 */
int btrfs_csum_ctx_init(struct hash_ctx *ctx, u16 type, const u8 *key, size_t keylen);

/*
 * Checksum of data[0..len) into out (BTRFS_CSUM_SIZE bytes, zero padded),
 * for any type: key/keylen the filesystem's key for a keyed type, NULL for
 * a plain one (a plain type ignores a key).  One context per call: for many
 * blocks use struct btrfs_csum.  Returns 0, -EOPNOTSUPP for an unknown
 * type, -ENOKEY for a keyed type without a key, -EINVAL for a key the hash
 * refuses (keyed BLAKE2b: more than 64 bytes), or the backend's error.
 */
int btrfs_csum_data_keyed(u16 type, const u8 *key, size_t keylen, const void *data, size_t len,
			  u8 *out);
static inline int btrfs_csum_data(u16 type, const void *data, size_t len, u8 *out)
{
	return btrfs_csum_data_keyed(type, NULL, 0, data, len, out);
}

/*
 * One filesystem's checksum: the type, and the key when there is one.
 * Set up once with btrfs_csum_setup(), shared read-only afterwards.
 */
struct btrfs_csum {
	u16 type;
	u16 size;			/* digest bytes */
	bool keyed;			/* the type needs a key */
	bool authsum;			/* keyed part + xxhash64 secondary */
	bool have_key;			/* hash is keyed: compute and verify fully */
	struct hash_ctx hash;		/* plain or keyed hash; unset for keyed without key */
	struct hash_ctx xxh;		/* authsum: the xxhash64 secondary */
};

/* Bytes of the keyed hash an authsum checksum keeps; the xxhash64 follows. */
#define BTRFS_AUTHSUM_KEYED_BYTES 24

/*
 * Set up @c for @type.  key/keylen: the key for a keyed type, or NULL (then
 * only btrfs_csum_verify() without authenticity is possible).  A plain type
 * with a key is -EINVAL (the caller says "not a keyed filesystem").
 * Returns 0, -EOPNOTSUPP (unknown type), -EINVAL (key refused: keyed
 * BLAKE2b takes at most 64 bytes) or the backend's error.
 */
int btrfs_csum_setup(struct btrfs_csum *c, u16 type, const u8 *key, size_t keylen);
/* Release @c and wipe the key material it holds. */
void btrfs_csum_release(struct btrfs_csum *c);

/* Checksum of data[0..len) into out[BTRFS_CSUM_SIZE], zero padded; -ENOKEY without the key. */
int btrfs_csum_compute(const struct btrfs_csum *c, const void *data, size_t len, u8 *out);

/*
 * Checksums of @n blocks of @len bytes each into out, c->size bytes per
 * block (no padding): the batch paths of the hash (several blocks side by
 * side), keyed too.  -ENOKEY without the key of a keyed type.
 */
int btrfs_csum_compute_batch(const struct btrfs_csum *c, const void *const *blocks, size_t n,
			     size_t len, u8 *out);

/*
 * The bytes [*off, *off + *len) of a stored checksum that
 * btrfs_csum_verify_batch() computes: the whole checksum, except for an
 * authsum type: its keyed part with the key (the xxhash64 part is then only
 * needed to tell damage from tampering once the keyed part fails), its
 * xxhash64 part without.
 */
void btrfs_csum_verify_span(const struct btrfs_csum *c, u32 *off, u32 *len);

/*
 * btrfs_csum_compute_batch() for verifying data against checksums that are
 * themselves protected (data checksums in csum tree leaves, whose own
 * checksums cover them): only the bytes btrfs_csum_verify_span() names are
 * computed (the others in out are zero), so an authsum type costs its keyed
 * hash with the key and its xxhash64 without.  -ENOKEY for a full keyed type
 * without the key.
 */
int btrfs_csum_verify_batch(const struct btrfs_csum *c, const void *const *blocks, size_t n,
			    size_t len, u8 *out);

/* What btrfs_csum_verify() found. */
enum btrfs_csum_result {
	BTRFS_CSUM_VALID = 0,		/* matches (with the key for keyed types) */
	BTRFS_CSUM_DAMAGED,		/* mismatch; authsum: the xxhash64 part fails too */
	BTRFS_CSUM_ALTERED,		/* authsum with the key: keyed part fails, xxhash64 matches:
					   changed by someone without the key */
	BTRFS_CSUM_NO_KEY,		/* full keyed type, no key: cannot verify */
	BTRFS_CSUM_UNAUTHENTICATED,	/* authsum without the key: the xxhash64 part matches,
					   authenticity NOT verified */
};
/* Short name of a result: "match", "DAMAGED", "ALTERED", "NO KEY", "UNAUTHENTICATED". */
const char *btrfs_csum_result_name(enum btrfs_csum_result r);

/*
 * Check data[0..len) against the stored checksum @stored (BTRFS_CSUM_SIZE
 * bytes; only the type's size compared).  Returns an enum btrfs_csum_result
 * or a negative errno from the hash.
 */
int btrfs_csum_verify(const struct btrfs_csum *c, const void *data, size_t len, const u8 *stored);

/*
 * The key check value of a keyed filesystem (super_block.auth_key_check):
 * the type's full keyed hash (32 bytes) of BTRFS_AUTH_KEY_CHECK_MSG
 * (without its NUL) followed by @fsid (BTRFS_FSID_SIZE bytes).  -ENOKEY
 * without a key, -EINVAL for a plain type.
 */
int btrfs_csum_key_check(const struct btrfs_csum *c, const u8 *fsid, u8 *out);

#endif

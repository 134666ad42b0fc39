// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs image -s / -ss: every name in the dumped leaves replaced by another
 * name of the same length and the same btrfs name hash.
 *
 * Why the same hash: a dir item's and an xattr item's key offset is the
 * crc32c name hash, which the kernel's tree-checker and both checks verify,
 * and an inode extref's key offset is a crc32c of the name too.  A name of
 * another hash would move its item inside its leaf, and out of it when the
 * leaf's first or last key changes, which a dump that copies block by block
 * cannot do.  A name of the same length and hash changes no key, no item
 * size and no directory size: the restored trees have the dumped shape.
 *
 * How: the btrfs name hash is the CRC-32C register started at ~1 and not
 * inverted, so feeding 4 bytes w (as a little-endian word) to a register r
 * gives Z(r ^ w), Z being the register update by 4 zero bytes, a bijective
 * linear map over GF(2)^32.  A new name is len - 4 bytes drawn from
 * [A-Za-z0-9_-] (a keyed BLAKE2b of the original name seeds the draws, with a
 * key drawn at random for each dump: within a dump the same name always
 * becomes the same new name, so a dir item, its dir index, the inode ref of
 * the same entry, the root ref of a subvolume and every snapshot's copy
 * agree, and nobody without the key can test a guess), then the 4 bytes
 * Z^-1(hash) ^ r that give back the original hash.  Same length, so for any
 * seed the crc32c of the new name differs from the old one's by the same
 * value (CRC is affine): extref hashes (seeded by the parent inode) match too.
 * The 4 computed bytes are wanted in the alphabet too (1 in 256 candidates:
 * the bytes before them run through 4096 values, 64 for a name of 5 bytes);
 * when none is, any byte but NUL and '/' is taken.  Names of 1 to 4 bytes have
 * no other name of their length and hash (4 bytes fed to a known register
 * are a bijection): they are kept, and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "image/sanitize.h"
#include "crypto/hash.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/read/tree-checker.h"

#define SANITIZE_MIN_LEN 5              /* shorter names have no other name of their length and hash */

static const char alphabet[64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

struct image_sanitizer {
	struct hash_ctx key;            /* keyed BLAKE2b-256, a random key per dump */
	u32 zinv[32];                   /* Z^-1 (1 << j) */
	u64 kept;
	u8 orig[BTRFS_MAX_METADATA_BLOCKSIZE];  /* the dir item being rewritten, as it was */
};

/* The register update by 4 zero bytes. */
static u32 crc_zero4(u32 reg)
{
	static const u8 zeros[4];

	return crc32c_raw(reg, zeros, sizeof(zeros));
}

/* Z^-1 by Gauss-Jordan elimination on the pairs (Z(e), e), e the unit vectors. */
static void invert_zero4(u32 zinv[32])
{
	u32 img[32], pre[32];

	for (int i = 0; i < 32; i++) {
		pre[i] = 1U << i;
		img[i] = crc_zero4(pre[i]);
	}
	for (int j = 0; j < 32; j++) {
		int p = j;

		while (p < 32 && !(img[p] & (1U << j)))
			p++;
		/* Z is bijective: a pivot exists (p < 32) */
		if (p != j) {
			u32 t = img[p];

			img[p] = img[j];
			img[j] = t;
			t = pre[p];
			pre[p] = pre[j];
			pre[j] = t;
		}
		for (int q = 0; q < 32; q++) {
			if (q != j && (img[q] & (1U << j))) {
				img[q] ^= img[j];
				pre[q] ^= pre[j];
			}
		}
	}
	memcpy(zinv, pre, sizeof(pre));
}

int image_sanitizer_new(struct image_sanitizer **out)
{
	struct image_sanitizer *s = calloc(1, sizeof(*s));
	u8 key[32];
	int ret;

	if (!s) {
		error("out of memory for the name sanitizer");
		return -ENOMEM;
	}
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		ret = -errno;
		error_errno(ret, "cannot draw the random key of the name sanitizer");
		free(s);
		return ret;
	}
	ret = hash_ctx_init(&s->key, HASH_BLAKE2B_256, key, sizeof(key));
	memset(key, 0, sizeof(key));
	if (ret) {
		error("cannot set up the keyed hash of the name sanitizer");
		free(s);
		return ret;
	}
	invert_zero4(s->zinv);
	*out = s;
	return 0;
}

void image_sanitizer_free(struct image_sanitizer *s)
{
	if (!s)
		return;
	hash_ctx_release(&s->key);
	free(s);
}

u64 image_sanitizer_kept(const struct image_sanitizer *s)
{
	return s->kept;
}

/* The draws: xorshift64* from the keyed digest of the name. */
static u64 next_draw(u64 *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545f4914f6cdd1dULL;
}

static bool suffix_ok(const u8 *p, bool nice)
{
	for (int i = 0; i < 4; i++) {
		if (nice ? !memchr(alphabet, p[i], sizeof(alphabet)) : (!p[i] || p[i] == '/'))
			return false;
	}
	return true;
}

/*
 * name (len bytes) replaced in place by its new name; a name it cannot
 * replace (too short: kept and counted) stays.  The draws fix the first
 * bytes; the up to 2 bytes before the 4 computed ones run through all their
 * 64^2 values from a drawn start, so a name costs one register update of
 * its prefix and then updates of 2 bytes.
 */
static void sanitize_name(struct image_sanitizer *s, u8 *name, u32 len)
{
	u8 digest[HASH_MAX_DIGEST];
	u8 cand[BTRFS_NAME_LEN];
	u32 prefix = len - 4, vary, combos, start, hash, target = 0, reg0;
	u64 st;

	if (len < SANITIZE_MIN_LEN || len > BTRFS_NAME_LEN || hash_digest(&s->key, name, len, digest)) {
		s->kept++;
		return;
	}
	hash = btrfs_name_hash((const char *)name, (int)len);
	for (int j = 0; j < 32; j++)
		if (hash & (1U << j))
			target ^= s->zinv[j];
	memcpy(&st, digest, sizeof(st));
	st |= 1;                        /* xorshift never leaves 0 */
	vary = prefix < 2 ? prefix : 2;
	for (u32 i = 0; i < prefix - vary; i++)
		cand[i] = (u8)alphabet[next_draw(&st) >> 58];
	reg0 = crc32c_raw(~1U, cand, prefix - vary);
	combos = vary == 2 ? 64 * 64 : 64;
	start = (u32)(next_draw(&st) % combos);
	for (int nice = 1; nice >= 0; nice--) {
		for (u32 k = 0; k < combos; k++) {
			u32 combo = (start + k) % combos, w;

			cand[prefix - 1] = (u8)alphabet[combo % 64];
			if (vary == 2)
				cand[prefix - 2] = (u8)alphabet[combo / 64];
			w = target ^ crc32c_raw(reg0, cand + prefix - vary, vary);
			for (int i = 0; i < 4; i++)
				cand[prefix + i] = (u8)(w >> (8 * i));
			if (suffix_ok(cand + prefix, nice) && memcmp(cand, name, len)) {
				memcpy(name, cand, len);
				return;
			}
		}
	}
	s->kept++;
}

/* ---- the items that hold names ----------------------------------------- */

/*
 * The entries of a dir item, dir index or xattr item: names replaced, xattr
 * values zeroed.  Two names of the item that become one are an error (but
 * for two equal names, which a damaged item may hold: they stay equal).
 * An entry that runs past the item ends the walk, the rest zeroed.
 */
static int sanitize_dir_entries(struct image_sanitizer *s, const struct extent_buffer *eb, int slot,
				u8 *p, u32 size, bool xattr)
{
	u32 cur = 0;

	if (size > sizeof(s->orig))
		return 0;       /* larger than any leaf: the caller checked the item against the block */
	memcpy(s->orig, p, size);
	while (cur < size) {
		const struct btrfs_dir_item *di = (const void *)(p + cur);
		u32 name_len, data_len;
		u8 *name;

		if (size - cur < sizeof(*di))
			break;
		name_len = btrfs_dir_name_len(di);
		data_len = btrfs_dir_data_len(di);
		if ((u64)name_len + data_len > size - cur - sizeof(*di))
			break;
		name = p + cur + sizeof(*di);
		sanitize_name(s, name, name_len);
		if (xattr)
			memset(name + name_len, 0, data_len);
		for (u32 o = 0; o < cur;) {
			const struct btrfs_dir_item *prev = (const void *)(p + o);
			u32 plen = btrfs_dir_name_len(prev);

			if (plen == name_len && !memcmp(p + o + sizeof(*prev), name, name_len) &&
			    memcmp(s->orig + o + sizeof(*prev), s->orig + cur + sizeof(*di), name_len)) {
				error("leaf %llu slot %d: two names of one dir item would get the same new name",
				      (unsigned long long)eb->start, slot);
				return -EEXIST;
			}
			o += (u32)sizeof(*prev) + plen + btrfs_dir_data_len(prev);
		}
		cur += (u32)sizeof(*di) + name_len + data_len;
	}
	if (cur < size)
		memset(p + cur, 0, size - cur);
	return 0;
}

/* The head of one inode ref, inode extref or root ref entry (the name follows it), and its name length. */
static u32 ref_head(u8 type)
{
	if (type == BTRFS_INODE_REF_KEY)
		return sizeof(struct btrfs_inode_ref);
	if (type == BTRFS_INODE_EXTREF_KEY)
		return sizeof(struct btrfs_inode_extref);
	return sizeof(struct btrfs_root_ref);
}

static u32 ref_name_len(u8 type, const void *entry)
{
	if (type == BTRFS_INODE_REF_KEY)
		return btrfs_inode_ref_name_len(entry);
	if (type == BTRFS_INODE_EXTREF_KEY)
		return btrfs_inode_extref_name_len(entry);
	return btrfs_root_ref_name_len(entry);
}

/* The entries of an inode ref, inode extref, root ref or root backref; a bad entry ends it, the rest zeroed. */
static void sanitize_ref_entries(struct image_sanitizer *s, u8 type, u8 *p, u32 size)
{
	u32 head = ref_head(type), cur = 0;

	while (cur < size && size - cur >= head) {
		u32 name_len = ref_name_len(type, p + cur);

		if (name_len > size - cur - head)
			break;
		sanitize_name(s, p + cur + head, name_len);
		cur += head + name_len;
	}
	if (cur < size)
		memset(p + cur, 0, size - cur);
}

int image_sanitize_leaf(struct image_sanitizer *s, struct extent_buffer *eb)
{
	u32 nritems = btrfs_eb_nritems(eb);
	u64 hdr = sizeof(struct btrfs_header);

	if (btrfs_eb_level(eb) || (u64)nritems * sizeof(struct btrfs_item) > btrfs_leaf_data_size(eb))
		return 0;
	for (u32 i = 0; i < nritems; i++) {
		struct btrfs_key key;
		u64 off = hdr + btrfs_leaf_item_offset(eb, (int)i);
		u32 size = btrfs_leaf_item_size(eb, (int)i);
		u8 *p = eb->data + off;
		int ret = 0;

		if (off > eb->len || size > eb->len - off)
			continue;
		btrfs_item_key_to_cpu(eb, &key, (int)i);
		switch (key.type) {
		case BTRFS_DIR_ITEM_KEY:
		case BTRFS_DIR_INDEX_KEY:
			/* the root tree's "default" is the name the kernel looks up, not a user's */
			if (key.objectid != BTRFS_ROOT_TREE_DIR_OBJECTID)
				ret = sanitize_dir_entries(s, eb, (int)i, p, size, false);
			break;
		case BTRFS_XATTR_ITEM_KEY:
			ret = sanitize_dir_entries(s, eb, (int)i, p, size, true);
			break;
		case BTRFS_INODE_REF_KEY:
		case BTRFS_INODE_EXTREF_KEY:
		case BTRFS_ROOT_REF_KEY:
		case BTRFS_ROOT_BACKREF_KEY:
			sanitize_ref_entries(s, key.type, p, size);
			break;
		case BTRFS_EXTENT_DATA_KEY:
			/* symlink targets are inline extents: zeroed whatever the dump keeps */
			if (size > BTRFS_FILE_EXTENT_INLINE_DATA_START &&
			    btrfs_file_extent_type((const void *)p) == BTRFS_FILE_EXTENT_INLINE)
				memset(p + BTRFS_FILE_EXTENT_INLINE_DATA_START, 0,
				       btrfs_file_extent_inline_item_len(size));
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

int image_sanitize_super(struct btrfs_super_block *sb, const struct btrfs_csum *csum)
{
	memset(sb->label, 0, sizeof(sb->label));
	return btrfs_super_csum_set(sb, csum);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The tree-checker (see tree-checker.h for the rules and message grammar).
 * A pure function of (geometry, block bytes): no I/O, no state.
 *
 * Order: header, then the structure of the item or pointer array, and only
 * when every item lies inside the block the per-type item checks, so a
 * check_<item>() may read anything within its item's bytes.
 */
#include <stdio.h>
#include <stdarg.h>
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/read/volumes.h"
#include "crypto/hash.h"

u32 btrfs_name_hash(const char *name, int len)
{
	/* The raw crc32c register started at ~1, not inverted at the end. */
	return crc32c_raw(~1U, name, len);
}

u64 btrfs_extref_hash(u64 parent, const char *name, int len)
{
	return crc32c_raw((u32)parent, name, len);
}

struct tc {
	const struct btrfs_fs_geometry *geo;
	const struct extent_buffer *eb;
	char *msg;
	size_t msglen;
	struct btrfs_key key;      /* key of the item being checked */
	struct btrfs_key prev;     /* key of the previous item */
	int slot;
};

static __printf(3, 4) int tc_err(struct tc *t, int slot, const char *fmt, ...)
{
	const struct btrfs_header *h = btrfs_header(t->eb);
	char reason[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (t->msg && t->msglen)
		snprintf(t->msg, t->msglen, "corrupt %s: root=%llu block=%llu slot=%d, %s",
			 btrfs_header_level(h) ? "node" : "leaf", btrfs_header_owner(h),
			 t->eb->start, slot, reason);
	return -EUCLEAN;
}

/* An error about the current item: the reason starts with its key. */
#define item_err(t, fmt, ...) tc_err(t, (t)->slot, "key (%llu %u %llu) " fmt, \
	(t)->key.objectid, (t)->key.type, (t)->key.offset, ##__VA_ARGS__)

static bool single_bit(u64 v)
{
	return v && !(v & (v - 1));
}

static u64 max_generation(const struct tc *t)
{
	/* a superblock generation of all ones must not wrap the limit to 0 */
	return t->geo->super_generation == UINT64_MAX ? UINT64_MAX : t->geo->super_generation + 1;
}

static bool check_gen(const struct tc *t, u64 gen)
{
	return !t->geo->super_generation || gen <= max_generation(t);
}

/* ---- inode items ---- */

static bool valid_inode_objectid(u64 id)
{
	return (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID) ||
	       id == BTRFS_ROOT_TREE_DIR_OBJECTID || id == BTRFS_FREE_INO_OBJECTID;
}

static int check_inode_item(struct tc *t, const void *p, u32 size)
{
	const struct btrfs_inode_item *ii = p;
	u32 mode, type;
	u64 flags;

	if (!valid_inode_objectid(t->key.objectid))
		return item_err(t, "invalid inode objectid %llu", t->key.objectid);
	if (t->key.offset != 0)
		return item_err(t, "invalid inode key offset, have %llu expect 0", t->key.offset);
	if (size != sizeof(*ii))
		return item_err(t, "invalid inode item size, have %u expect %zu", size, sizeof(*ii));
	if (!check_gen(t, btrfs_inode_generation(ii)))
		return item_err(t, "invalid inode generation, have %llu expect (0, %llu]",
				btrfs_inode_generation(ii), max_generation(t));
	if (!check_gen(t, btrfs_inode_transid(ii)))
		return item_err(t, "invalid inode transid, have %llu expect (0, %llu]",
				btrfs_inode_transid(ii), max_generation(t));
	mode = btrfs_inode_mode(ii);
	/* file type, set-id and sticky bits, permissions: nothing else */
	if (mode & ~(0170000 | 07777))
		return item_err(t, "unknown mode bit detected: 0%o", mode & ~(0170000 | 07777));
	type = mode & 0170000;
	if (type != 0100000 && type != 0040000 && type != 0020000 && type != 0060000 &&
	    type != 0010000 && type != 0120000 && type != 0140000)
		return item_err(t, "invalid inode mode, have 0%o expect a valid S_IF* type", mode);
	if (type == 0040000 && btrfs_inode_nlink(ii) > 1)
		return item_err(t, "invalid nlink for directory, have %u expect no more than 1",
				btrfs_inode_nlink(ii));
	flags = btrfs_inode_flags(ii);
	if ((u32)flags & ~BTRFS_INODE_FLAG_MASK)
		return item_err(t, "unknown inode flags 0x%x", (u32)flags & ~BTRFS_INODE_FLAG_MASK);
	if ((u32)(flags >> 32) & ~BTRFS_INODE_RO_FLAG_MASK)
		return item_err(t, "unknown inode ro-compat flags 0x%x",
				(u32)(flags >> 32) & ~BTRFS_INODE_RO_FLAG_MASK);
	return 0;
}

static int check_inode_ref(struct tc *t, const u8 *p, u32 size)
{
	u32 cur = 0;

	while (cur < size) {
		const struct btrfs_inode_ref *ref = (const void *)(p + cur);

		if (size - cur < sizeof(*ref))
			return item_err(t, "inode ref overflow, ptr %u end %u header %zu", cur, size,
					sizeof(*ref));
		cur += sizeof(*ref);
		if (size - cur < btrfs_inode_ref_name_len(ref))
			return item_err(t, "inode ref name overflow, ptr %u end %u name_len %u", cur,
					size, btrfs_inode_ref_name_len(ref));
		cur += btrfs_inode_ref_name_len(ref);
	}
	return 0;
}

static int check_inode_extref(struct tc *t, const u8 *p, u32 size)
{
	u32 cur = 0;

	while (cur < size) {
		const struct btrfs_inode_extref *ref = (const void *)(p + cur);

		if (size - cur < sizeof(*ref))
			return item_err(t, "inode extref overflow, ptr %u end %u header %zu", cur, size,
					sizeof(*ref));
		cur += sizeof(*ref);
		if (size - cur < btrfs_inode_extref_name_len(ref))
			return item_err(t, "inode extref name overflow, ptr %u end %u name_len %u", cur,
					size, btrfs_inode_extref_name_len(ref));
		cur += btrfs_inode_extref_name_len(ref);
	}
	return 0;
}

/* ---- dir items ---- */

static int check_dir_item(struct tc *t, const u8 *p, u32 size)
{
	u32 nodesize = t->geo->nodesize;
	u32 cur = 0;
	int entries = 0;

	if (!valid_inode_objectid(t->key.objectid))
		return item_err(t, "invalid directory objectid %llu", t->key.objectid);
	while (cur < size) {
		const struct btrfs_dir_item *di = (const void *)(p + cur);
		struct btrfs_key loc;
		u32 name_len, data_len;
		u8 type;

		if (size - cur < sizeof(*di))
			return item_err(t, "dir item header overflow, ptr %u end %u header %zu", cur,
					size, sizeof(*di));
		btrfs_disk_key_to_cpu(&loc, &di->location);
		type = btrfs_dir_ftype(di);
		name_len = btrfs_dir_name_len(di);
		data_len = btrfs_dir_data_len(di);
		if (type >= BTRFS_FT_MAX)
			return item_err(t, "invalid dir item type, have %u expect [0, %u)", type,
					BTRFS_FT_MAX);
		if (t->key.type == BTRFS_XATTR_ITEM_KEY && type != BTRFS_FT_XATTR)
			return item_err(t, "invalid dir item type for xattr, have %u expect %u", type,
					BTRFS_FT_XATTR);
		if (t->key.type != BTRFS_XATTR_ITEM_KEY && type == BTRFS_FT_XATTR)
			return item_err(t, "xattr dir item type in a non-xattr item");
		if (t->key.type != BTRFS_XATTR_ITEM_KEY && loc.type != BTRFS_INODE_ITEM_KEY &&
		    loc.type != BTRFS_ROOT_ITEM_KEY)
			return item_err(t, "invalid dir item location key type, have %u expect %u or %u",
					loc.type, BTRFS_INODE_ITEM_KEY, BTRFS_ROOT_ITEM_KEY);
		if (t->key.type == BTRFS_XATTR_ITEM_KEY) {
			if (name_len + data_len > BTRFS_MAX_XATTR_SIZE(nodesize))
				return item_err(t, "xattr name and data too long, have %u expect at most %zu",
						name_len + data_len, BTRFS_MAX_XATTR_SIZE(nodesize));
		} else {
			if (name_len > BTRFS_NAME_LEN)
				return item_err(t, "dir item name too long, have %u expect at most %u",
						name_len, BTRFS_NAME_LEN);
			if (data_len)
				return item_err(t, "dir item with data, have data_len %u expect 0",
						data_len);
		}
		if (name_len == 0)
			return item_err(t, "dir item with empty name");
		cur += sizeof(*di);
		if (size - cur < name_len + data_len)
			return item_err(t, "dir item name/data overflow, ptr %u end %u have %u",
					cur, size, name_len + data_len);
		if (t->key.type == BTRFS_DIR_ITEM_KEY || t->key.type == BTRFS_XATTR_ITEM_KEY) {
			u32 hash = btrfs_name_hash((const char *)p + cur, name_len);

			if (hash != t->key.offset)
				return item_err(t, "name hash mismatch with key, have 0x%08x expect 0x%08llx",
						hash, t->key.offset);
		}
		cur += name_len + data_len;
		entries++;
	}
	if (t->key.type == BTRFS_DIR_INDEX_KEY && entries != 1)
		return item_err(t, "dir index item with %d entries, expect 1", entries);
	return 0;
}

/* ---- root items ---- */

static int check_root_item(struct tc *t, const void *p, u32 size)
{
	const struct btrfs_root_item *ri = p;
	u32 sectorsize = t->geo->sectorsize;
	u64 flags;

	if (t->key.objectid == 0)
		return item_err(t, "invalid root id 0");
	if (size != sizeof(*ri) && size != BTRFS_LEGACY_ROOT_ITEM_SIZE)
		return item_err(t, "invalid root item size, have %u expect %zu or %zu", size,
				sizeof(*ri), (size_t)BTRFS_LEGACY_ROOT_ITEM_SIZE);
	if (!check_gen(t, btrfs_root_generation(ri)))
		return item_err(t, "invalid root generation, have %llu expect (0, %llu]",
				btrfs_root_generation(ri), max_generation(t));
	if (size == sizeof(*ri) && !check_gen(t, btrfs_root_generation_v2(ri)))
		return item_err(t, "invalid root generation_v2, have %llu expect (0, %llu]",
				btrfs_root_generation_v2(ri), max_generation(t));
	if (!check_gen(t, btrfs_root_last_snapshot(ri)))
		return item_err(t, "invalid root last_snapshot, have %llu expect (0, %llu]",
				btrfs_root_last_snapshot(ri), max_generation(t));
	if (!IS_ALIGNED(btrfs_root_bytenr(ri), sectorsize))
		return item_err(t, "invalid root bytenr, have %llu expect to be aligned to %u",
				btrfs_root_bytenr(ri), sectorsize);
	if (btrfs_root_level(ri) >= BTRFS_MAX_LEVEL)
		return item_err(t, "invalid root level, have %u expect [0, %u]", btrfs_root_level(ri),
				BTRFS_MAX_LEVEL - 1);
	if (btrfs_root_drop_level(ri) >= BTRFS_MAX_LEVEL)
		return item_err(t, "invalid root drop_level, have %u expect [0, %u]",
				btrfs_root_drop_level(ri), BTRFS_MAX_LEVEL - 1);
	flags = btrfs_root_flags(ri);
	if (flags & ~(BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD))
		return item_err(t, "invalid root flags, have 0x%llx expect mask 0x%llx", flags,
				BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD);
	return 0;
}

static int check_root_ref(struct tc *t, const void *p, u32 size)
{
	const struct btrfs_root_ref *rr = p;

	if (size < sizeof(*rr))
		return item_err(t, "invalid root ref size, have %u expect at least %zu", size,
				sizeof(*rr));
	if (size != sizeof(*rr) + btrfs_root_ref_name_len(rr))
		return item_err(t, "invalid root ref size, have %u expect %zu", size,
				sizeof(*rr) + btrfs_root_ref_name_len(rr));
	return 0;
}

/* ---- file extents ---- */

static u64 file_extent_end(const struct btrfs_key *key, const struct btrfs_file_extent_item *fi,
			   u32 sectorsize)
{
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
		return key->offset + round_up(btrfs_file_extent_ram_bytes(fi), (u64)sectorsize);
	return key->offset + btrfs_file_extent_num_bytes(fi);
}

static int check_file_extent(struct tc *t, const void *p, u32 size, const void *prev_p,
			     u32 prev_size)
{
	const struct btrfs_file_extent_item *fi = p;
	u32 sectorsize = t->geo->sectorsize;
	u8 type;

	if (!valid_inode_objectid(t->key.objectid))
		return item_err(t, "invalid file extent objectid %llu", t->key.objectid);
	if (!IS_ALIGNED(t->key.offset, sectorsize))
		return item_err(t, "unaligned file_offset for file extent, have %llu should be aligned to %u",
				t->key.offset, sectorsize);
	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return item_err(t, "invalid file extent item size, have %u expect at least %zu",
				size, (size_t)BTRFS_FILE_EXTENT_INLINE_DATA_START);
	type = btrfs_file_extent_type(fi);
	if (type >= BTRFS_NR_FILE_EXTENT_TYPES)
		return item_err(t, "invalid type for file extent, have %u expect range [0, %u]",
				type, BTRFS_NR_FILE_EXTENT_TYPES - 1);
	if (btrfs_file_extent_compression(fi) >= BTRFS_NR_COMPRESS_TYPES)
		return item_err(t, "invalid compression for file extent, have %u expect range [0, %u]",
				btrfs_file_extent_compression(fi), BTRFS_NR_COMPRESS_TYPES - 1);
	if (btrfs_file_extent_encryption(fi))
		return item_err(t, "invalid encryption for file extent, have %u expect 0",
				btrfs_file_extent_encryption(fi));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		/* The kernel writes an inline extent only at file offset 0. */
		if (t->key.offset)
			return item_err(t, "invalid file_offset for inline file extent, have %llu expect 0",
					t->key.offset);
		if (btrfs_file_extent_other_encoding(fi))
			return item_err(t, "invalid other_encoding for inline file extent, have %u expect 0",
					btrfs_file_extent_other_encoding(fi));
		if (btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE &&
		    btrfs_file_extent_ram_bytes(fi) != btrfs_file_extent_inline_item_len(size))
			return item_err(t, "invalid ram_bytes for uncompressed inline extent, have %u expect %llu",
					btrfs_file_extent_inline_item_len(size),
					btrfs_file_extent_ram_bytes(fi));
	} else {
		if (size != sizeof(*fi))
			return item_err(t, "invalid item size for reg/prealloc file extent, have %u expect %zu",
					size, sizeof(*fi));
#define FE_ALIGNED(field)                                                              \
		if (!IS_ALIGNED(btrfs_file_extent_##field(fi), sectorsize))             \
			return item_err(t, "invalid " #field " for file extent, have %llu, should be aligned to %u", \
					btrfs_file_extent_##field(fi), sectorsize);
		FE_ALIGNED(ram_bytes)
		FE_ALIGNED(disk_bytenr)
		FE_ALIGNED(disk_num_bytes)
		FE_ALIGNED(offset)
		FE_ALIGNED(num_bytes)
#undef FE_ALIGNED
		if (btrfs_file_extent_offset(fi) + btrfs_file_extent_num_bytes(fi) <
		    btrfs_file_extent_offset(fi))
			return item_err(t, "file extent end range overflow, offset %llu num_bytes %llu",
					btrfs_file_extent_offset(fi), btrfs_file_extent_num_bytes(fi));
		if (t->key.offset + btrfs_file_extent_num_bytes(fi) < t->key.offset)
			return item_err(t, "file extent end range overflow, file offset %llu num_bytes %llu",
					t->key.offset, btrfs_file_extent_num_bytes(fi));
	}
	/* The previous extent of the same inode must end where this one starts, or before. */
	if (prev_p && t->prev.objectid == t->key.objectid && t->prev.type == BTRFS_EXTENT_DATA_KEY &&
	    prev_size >= BTRFS_FILE_EXTENT_INLINE_DATA_START) {
		const struct btrfs_file_extent_item *pfi = prev_p;
		u8 ptype = btrfs_file_extent_type(pfi);

		if (ptype < BTRFS_NR_FILE_EXTENT_TYPES &&
		    (ptype == BTRFS_FILE_EXTENT_INLINE || prev_size == sizeof(*pfi))) {
			u64 pend = file_extent_end(&t->prev, pfi, sectorsize);

			if (pend > t->key.offset)
				return item_err(t, "file extent end range (%llu) goes beyond start offset (%llu) of the next file extent",
						pend, t->key.offset);
		}
	}
	return 0;
}

/* ---- checksums ---- */

static int check_csum_item(struct tc *t, u32 size, u32 prev_size)
{
	u32 sectorsize = t->geo->sectorsize;
	u32 csum_size = t->geo->csum_size;

	if (t->key.objectid != BTRFS_EXTENT_CSUM_OBJECTID)
		return item_err(t, "invalid key objectid for csum item, have %llu expect %llu",
				t->key.objectid, BTRFS_EXTENT_CSUM_OBJECTID);
	if (!IS_ALIGNED(t->key.offset, sectorsize))
		return item_err(t, "unaligned key offset for csum item, have %llu should be aligned to %u",
				t->key.offset, sectorsize);
	if (!csum_size || size % csum_size)
		return item_err(t, "unaligned item size for csum item, have %u should be aligned to %u",
				size, csum_size);
	if (t->prev.type == BTRFS_EXTENT_CSUM_KEY && t->prev.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
	    csum_size) {
		u64 prev_end = t->prev.offset + (u64)(prev_size / csum_size) * sectorsize;

		if (prev_end > t->key.offset)
			return item_err(t, "csum end range (%llu) goes beyond the start range (%llu) of the next csum item",
					prev_end, t->key.offset);
	}
	return 0;
}

/* ---- extent tree ---- */

u64 btrfs_extent_data_ref_hash(u64 root, u64 objectid, u64 offset)
{
	u8 le[8];
	u32 high, low;

	put_unaligned_le64(root, le);
	high = crc32c_raw(~0U, le, 8);
	put_unaligned_le64(objectid, le);
	low = crc32c_raw(~0U, le, 8);
	put_unaligned_le64(offset, le);
	low = crc32c_raw(low, le, 8);
	return ((u64)high << 31) ^ (u64)low;
}

/* The value inline refs of one type are ordered by (descending). */
static u64 inline_ref_seq(const struct btrfs_extent_inline_ref *iref, u8 type)
{
	if (type == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *dref = (const void *)&iref->offset;

		return btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(dref),
						  btrfs_extent_data_ref_objectid(dref),
						  btrfs_extent_data_ref_offset(dref));
	}
	return btrfs_extent_inline_ref_offset(iref);
}

static int check_extent_item(struct tc *t, const u8 *p, u32 size)
{
	const struct btrfs_extent_item *ei = (const void *)p;
	u32 sectorsize = t->geo->sectorsize, nodesize = t->geo->nodesize;
	bool skinny = t->geo->incompat_flags & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA;
	u64 flags, refs, inline_refs = 0;
	u64 seq, prev_seq = 0;
	u32 cur;
	int prev_type = 0;

	if (t->key.type == BTRFS_METADATA_ITEM_KEY && !skinny)
		return item_err(t, "invalid key type, METADATA_ITEM type invalid when SKINNY_METADATA feature disabled");
	if (!IS_ALIGNED(t->key.objectid, sectorsize))
		return item_err(t, "invalid key objectid, have %llu expect to be aligned to %u",
				t->key.objectid, sectorsize);
	if (t->key.type == BTRFS_EXTENT_ITEM_KEY &&
	    (!t->key.offset || !IS_ALIGNED(t->key.offset, sectorsize)))
		return item_err(t, "invalid extent length, have %llu expect aligned to %u",
				t->key.offset, sectorsize);
	if (t->key.type == BTRFS_METADATA_ITEM_KEY && t->key.offset >= BTRFS_MAX_LEVEL)
		return item_err(t, "invalid tree level, have %llu expect [0, %u]", t->key.offset,
				BTRFS_MAX_LEVEL - 1);
	if (size == sizeof(struct btrfs_extent_item_v0))
		return item_err(t, "invalid item size, have %u: deprecated v0 extent item", size);
	if (size < sizeof(*ei))
		return item_err(t, "invalid item size, have %u expect [%zu, %zu)", size, sizeof(*ei),
				BTRFS_LEAF_DATA_SIZE(nodesize));
	flags = btrfs_extent_flags(ei);
	refs = btrfs_extent_refs(ei);
	if (flags & ~(BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK |
		      BTRFS_BLOCK_FLAG_FULL_BACKREF))
		return item_err(t, "invalid extent flag, have 0x%llx expect valid bits 0x%llx", flags,
				BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK |
				BTRFS_BLOCK_FLAG_FULL_BACKREF);
	if (!single_bit(flags & (BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK)))
		return item_err(t, "invalid extent flag, have 0x%llx expect exactly one of DATA and TREE_BLOCK",
				flags);
	if (!check_gen(t, btrfs_extent_generation(ei)))
		return item_err(t, "invalid generation, have %llu expect (0, %llu]",
				btrfs_extent_generation(ei), max_generation(t));
	cur = sizeof(*ei);
	if (flags & BTRFS_EXTENT_FLAG_DATA) {
		if (t->key.type != BTRFS_EXTENT_ITEM_KEY)
			return item_err(t, "invalid key type for data extent, have %u expect %u",
					t->key.type, BTRFS_EXTENT_ITEM_KEY);
		if (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)
			return item_err(t, "invalid extent flag, FULL_BACKREF set on a data extent");
	} else {
		if (t->key.type == BTRFS_EXTENT_ITEM_KEY) {
			const struct btrfs_tree_block_info *info = (const void *)(p + cur);

			if (t->key.offset != nodesize)
				return item_err(t, "invalid extent length, have %llu expect %u",
						t->key.offset, nodesize);
			if (size - cur < sizeof(*info))
				return item_err(t, "invalid item size, have %u expect at least %zu", size,
						sizeof(*ei) + sizeof(*info));
			if (btrfs_tree_block_level(info) >= BTRFS_MAX_LEVEL)
				return item_err(t, "invalid tree block level, have %u expect [0, %u]",
						btrfs_tree_block_level(info), BTRFS_MAX_LEVEL - 1);
			cur += sizeof(*info);
		}
	}
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
		u32 rsize;
		u8 type;

		if (size - cur < sizeof(iref->type))
			return item_err(t, "inline ref item overflows extent item, ptr %u end %u", cur, size);
		type = btrfs_extent_inline_ref_type(iref);
		rsize = btrfs_extent_inline_ref_size(type);
		if (!rsize)
			return item_err(t, "unknown inline ref type %u at offset %u", type, cur);
		if (size - cur < rsize)
			return item_err(t, "inline ref item overflows extent item, ptr %u wanted %u end %u",
					cur, rsize, size);
		if (type < prev_type)
			return item_err(t, "inline ref out-of-order: type %u after type %u", type,
					prev_type);
		seq = inline_ref_seq(iref, type);
		if (type == prev_type && seq > prev_seq)
			return item_err(t, "inline ref out-of-order: type %u offset 0x%llx after offset 0x%llx, expect descending within a type",
					type, seq, prev_seq);
		prev_type = type;
		prev_seq = seq;
		switch (type) {
		case BTRFS_TREE_BLOCK_REF_KEY:
			if (flags & BTRFS_EXTENT_FLAG_DATA)
				return item_err(t, "invalid inline ref type %u for a data extent", type);
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			if (flags & BTRFS_EXTENT_FLAG_DATA)
				return item_err(t, "invalid inline ref type %u for a data extent", type);
			if (!IS_ALIGNED(btrfs_extent_inline_ref_offset(iref), sectorsize))
				return item_err(t, "invalid shared block ref parent, have %llu expect aligned to %u",
						btrfs_extent_inline_ref_offset(iref), sectorsize);
			break;
		case BTRFS_EXTENT_DATA_REF_KEY:
			if (!(flags & BTRFS_EXTENT_FLAG_DATA))
				return item_err(t, "invalid inline ref type %u for a tree block", type);
			break;
		case BTRFS_SHARED_DATA_REF_KEY:
			if (!(flags & BTRFS_EXTENT_FLAG_DATA))
				return item_err(t, "invalid inline ref type %u for a tree block", type);
			if (!IS_ALIGNED(btrfs_extent_inline_ref_offset(iref), sectorsize))
				return item_err(t, "invalid shared data ref parent, have %llu expect aligned to %u",
						btrfs_extent_inline_ref_offset(iref), sectorsize);
			break;
		case BTRFS_EXTENT_OWNER_REF_KEY:
			if (!(t->geo->incompat_flags & BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA))
				return item_err(t, "extent owner ref without the simple quota feature");
			if (cur != sizeof(*ei))
				return item_err(t, "extent owner ref not the first inline ref");
			break;
		}
		inline_refs += btrfs_extent_inline_ref_count(iref, type);
		cur += rsize;
	}
	if (inline_refs > refs)
		return item_err(t, "invalid extent refs, have %llu expect >= inline %llu", refs,
				inline_refs);
	return 0;
}

static int check_keyed_ref(struct tc *t, u32 size)
{
	u32 sectorsize = t->geo->sectorsize;

	if (!IS_ALIGNED(t->key.objectid, sectorsize))
		return item_err(t, "invalid key objectid, have %llu expect to be aligned to %u",
				t->key.objectid, sectorsize);
	switch (t->key.type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
		if (size != 0)
			return item_err(t, "invalid item size, have %u expect 0", size);
		if (t->key.type == BTRFS_SHARED_BLOCK_REF_KEY && !IS_ALIGNED(t->key.offset, sectorsize))
			return item_err(t, "invalid tree parent bytenr, have %llu expect aligned to %u",
					t->key.offset, sectorsize);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (size == 0 || size % sizeof(struct btrfs_extent_data_ref))
			return item_err(t, "invalid item size, have %u expect aligned to %zu", size,
					sizeof(struct btrfs_extent_data_ref));
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		if (size != sizeof(struct btrfs_shared_data_ref))
			return item_err(t, "invalid item size, have %u expect %zu", size,
					sizeof(struct btrfs_shared_data_ref));
		if (!IS_ALIGNED(t->key.offset, sectorsize))
			return item_err(t, "invalid data parent bytenr, have %llu expect aligned to %u",
					t->key.offset, sectorsize);
		break;
	}
	return 0;
}

static int check_block_group_item(struct tc *t, const void *p, u32 size)
{
	const struct btrfs_block_group_item *bg = p;
	u64 flags, type, prof;

	if (!t->key.offset)
		return item_err(t, "invalid block group size 0");
	if (size != sizeof(*bg))
		return item_err(t, "invalid item size, have %u expect %zu", size, sizeof(*bg));
	if (btrfs_block_group_chunk_objectid(bg) != BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return item_err(t, "invalid block group chunk objectid, have %llu expect %llu",
				btrfs_block_group_chunk_objectid(bg), BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	if (btrfs_block_group_used(bg) > t->key.offset)
		return item_err(t, "invalid block group used, have %llu expect [0, %llu]",
				btrfs_block_group_used(bg), t->key.offset);
	flags = btrfs_block_group_flags(bg);
	prof = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	if (prof && !single_bit(prof))
		return item_err(t, "invalid profile flags, have 0x%llx (%d bits set) expect no more than 1 bit set",
				prof, __builtin_popcountll(prof));
	type = flags & BTRFS_BLOCK_GROUP_TYPE_MASK;
	if (type != BTRFS_BLOCK_GROUP_DATA && type != BTRFS_BLOCK_GROUP_METADATA &&
	    type != BTRFS_BLOCK_GROUP_SYSTEM &&
	    type != (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DATA))
		return item_err(t, "invalid type, have 0x%llx (%d bits set) expect either 0x%llx, 0x%llx, 0x%llx or 0x%llx",
				type, __builtin_popcountll(type), BTRFS_BLOCK_GROUP_DATA,
				BTRFS_BLOCK_GROUP_METADATA, BTRFS_BLOCK_GROUP_SYSTEM,
				BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DATA);
	if (flags & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK))
		return item_err(t, "unknown block group flags 0x%llx",
				flags & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK));
	return 0;
}

/* ---- chunk tree and dev tree ---- */

static int check_chunk_item(struct tc *t, const void *p, u32 size)
{
	char reason[200];

	if (t->key.objectid != BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return item_err(t, "invalid chunk objectid, have %llu expect %llu", t->key.objectid,
				BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	if (btrfs_check_chunk(t->key.offset, p, size, t->geo->sectorsize, t->geo->incompat_flags,
			      reason, sizeof(reason)) < 0)
		return item_err(t, "%s", reason);
	return 0;
}

static int check_dev_item(struct tc *t, const void *p, u32 size)
{
	const struct btrfs_dev_item *di = p;

	if (t->key.objectid != BTRFS_DEV_ITEMS_OBJECTID)
		return item_err(t, "invalid objectid, have %llu expect %llu", t->key.objectid,
				BTRFS_DEV_ITEMS_OBJECTID);
	if (size != sizeof(*di))
		return item_err(t, "invalid item size, have %u expect %zu", size, sizeof(*di));
	if (btrfs_device_id(di) != t->key.offset)
		return item_err(t, "devid mismatch, have %llu expect %llu (key offset)",
				btrfs_device_id(di), t->key.offset);
	if (btrfs_device_bytes_used(di) > btrfs_device_total_bytes(di))
		return item_err(t, "invalid bytes_used, have %llu expect [0, %llu]",
				btrfs_device_bytes_used(di), btrfs_device_total_bytes(di));
	return 0;
}

static int check_dev_extent(struct tc *t, const void *p, u32 size, const void *prev_p,
			    u32 prev_size)
{
	const struct btrfs_dev_extent *de = p;
	u32 sectorsize = t->geo->sectorsize;

	if (size != sizeof(*de))
		return item_err(t, "invalid item size, have %u expect %zu", size, sizeof(*de));
	if (btrfs_dev_extent_chunk_tree(de) != BTRFS_CHUNK_TREE_OBJECTID)
		return item_err(t, "invalid dev extent chunk tree id, have %llu expect %llu",
				btrfs_dev_extent_chunk_tree(de), BTRFS_CHUNK_TREE_OBJECTID);
	if (btrfs_dev_extent_chunk_objectid(de) != BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return item_err(t, "invalid dev extent chunk objectid, have %llu expect %llu",
				btrfs_dev_extent_chunk_objectid(de), BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	if (!IS_ALIGNED(t->key.offset, sectorsize) ||
	    !IS_ALIGNED(btrfs_dev_extent_length(de), sectorsize) ||
	    !IS_ALIGNED(btrfs_dev_extent_chunk_offset(de), sectorsize))
		return item_err(t, "invalid dev extent key offset, length or chunk offset, expect aligned to %u",
				sectorsize);
	if (prev_p && t->prev.type == BTRFS_DEV_EXTENT_KEY && t->prev.objectid == t->key.objectid &&
	    prev_size == sizeof(*de)) {
		u64 prev_end = t->prev.offset + btrfs_dev_extent_length(prev_p);

		if (prev_end > t->key.offset)
			return item_err(t, "dev extent overlap, prev offset %llu len %llu current offset %llu",
					t->prev.offset, btrfs_dev_extent_length(prev_p), t->key.offset);
	}
	return 0;
}

/* ---- dispatch ---- */

static int check_item(struct tc *t, int slot)
{
	const struct extent_buffer *eb = t->eb;
	const void *p = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot);
	const void *prev_p = slot ? btrfs_leaf_item_ptr(eb, slot - 1) : NULL;
	u32 prev_size = slot ? btrfs_leaf_item_size(eb, slot - 1) : 0;

	switch (t->key.type) {
	case BTRFS_INODE_ITEM_KEY:
		/* The v1 space cache header in the root tree also uses type 0/1 keys: only check fs-style inodes. */
		if (t->key.objectid == BTRFS_FREE_SPACE_OBJECTID)
			return 0;
		return check_inode_item(t, p, size);
	case BTRFS_INODE_REF_KEY:
		return check_inode_ref(t, p, size);
	case BTRFS_INODE_EXTREF_KEY:
		return check_inode_extref(t, p, size);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		return check_dir_item(t, p, size);
	case BTRFS_ROOT_ITEM_KEY:
		return check_root_item(t, p, size);
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		return check_root_ref(t, p, size);
	case BTRFS_EXTENT_DATA_KEY:
		return check_file_extent(t, p, size, slot ? prev_p : NULL, prev_size);
	case BTRFS_EXTENT_CSUM_KEY:
		return check_csum_item(t, size, prev_size);
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		return check_extent_item(t, p, size);
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		return check_keyed_ref(t, size);
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return check_block_group_item(t, p, size);
	case BTRFS_CHUNK_ITEM_KEY:
		return check_chunk_item(t, p, size);
	case BTRFS_DEV_ITEM_KEY:
		return check_dev_item(t, p, size);
	case BTRFS_DEV_EXTENT_KEY:
		return check_dev_extent(t, p, size, slot ? prev_p : NULL, prev_size);
	default:
		return 0;
	}
}

static void key_of(const struct extent_buffer *eb, int slot, struct btrfs_key *key)
{
	if (btrfs_eb_level(eb))
		btrfs_node_key_to_cpu(eb, key, slot);
	else
		btrfs_item_key_to_cpu(eb, key, slot);
}

static int check_leaf(struct tc *t)
{
	const struct extent_buffer *eb = t->eb;
	const struct btrfs_header *h = btrfs_header(eb);
	u32 nritems = btrfs_header_nritems(h);
	u32 data_size = BTRFS_LEAF_DATA_SIZE(eb->len);
	u64 owner = btrfs_header_owner(h);
	u32 prev_offset = data_size;
	int slot, ret;

	if (nritems == 0) {
		if (owner == BTRFS_ROOT_TREE_OBJECTID || owner == BTRFS_CHUNK_TREE_OBJECTID ||
		    owner == BTRFS_DEV_TREE_OBJECTID || owner == BTRFS_FS_TREE_OBJECTID ||
		    owner == BTRFS_DATA_RELOC_TREE_OBJECTID)
			return tc_err(t, -1, "invalid root, root %llu must never be empty", owner);
		return 0;
	}
	if ((u64)nritems * sizeof(struct btrfs_item) > data_size)
		return tc_err(t, -1, "invalid nritems, have %u expect at most %zu", nritems,
			      data_size / sizeof(struct btrfs_item));
	/* Structure first: keys in order, items packed and inside the block. */
	for (slot = 0; slot < (int)nritems; slot++) {
		u32 off = btrfs_leaf_item_offset(eb, slot);
		u32 size = btrfs_leaf_item_size(eb, slot);

		btrfs_item_key_to_cpu(eb, &t->key, slot);
		if (slot > 0 && btrfs_comp_cpu_keys(&t->prev, &t->key) >= 0)
			return tc_err(t, slot, "bad key order, prev (%llu %u %llu) current (%llu %u %llu)",
				      t->prev.objectid, t->prev.type, t->prev.offset,
				      t->key.objectid, t->key.type, t->key.offset);
		if ((u64)off + size != prev_offset)
			return tc_err(t, slot, "unexpected item end, have %llu expect %u",
				      (u64)off + size, prev_offset);
		if ((u64)off + size > data_size)
			return tc_err(t, slot, "slot end outside of leaf, have %llu expect range [0, %u]",
				      (u64)off + size, data_size);
		if ((u64)sizeof(struct btrfs_item) * (slot + 1) > off)
			return tc_err(t, slot, "slot overlaps with its data, item end %zu data start %u",
				      sizeof(struct btrfs_item) * (slot + 1), off);
		prev_offset = off;
		t->prev = t->key;
	}
	/* Then each item by type. */
	for (slot = 0; slot < (int)nritems; slot++) {
		t->slot = slot;
		if (slot > 0)
			btrfs_item_key_to_cpu(eb, &t->prev, slot - 1);
		else
			memset(&t->prev, 0, sizeof(t->prev));
		btrfs_item_key_to_cpu(eb, &t->key, slot);
		ret = check_item(t, slot);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int check_node(struct tc *t)
{
	const struct extent_buffer *eb = t->eb;
	const struct btrfs_header *h = btrfs_header(eb);
	u32 nritems = btrfs_header_nritems(h);
	u32 max = BTRFS_NODEPTRS_PER_BLOCK(eb->len);
	u32 sectorsize = t->geo->sectorsize;
	int slot;

	if (nritems == 0 || nritems > max)
		return tc_err(t, -1, "invalid nritems, have %u should be in range [1, %u]", nritems, max);
	for (slot = 0; slot < (int)nritems; slot++) {
		u64 ptr = btrfs_node_blockptr(eb, slot);
		u64 gen = btrfs_node_ptr_generation(eb, slot);

		if (!ptr)
			return tc_err(t, slot, "invalid NULL node pointer");
		if (!IS_ALIGNED(ptr, sectorsize))
			return tc_err(t, slot, "unaligned pointer, have %llu should be aligned to %u",
				      ptr, sectorsize);
		if (!gen || !check_gen(t, gen))
			return tc_err(t, slot, "invalid generation, have %llu expect (0, %llu]", gen,
				      max_generation(t));
		key_of(eb, slot, &t->key);
		if (slot > 0 && btrfs_comp_cpu_keys(&t->prev, &t->key) >= 0)
			return tc_err(t, slot, "bad key order, prev (%llu %u %llu) current (%llu %u %llu)",
				      t->prev.objectid, t->prev.type, t->prev.offset,
				      t->key.objectid, t->key.type, t->key.offset);
		t->prev = t->key;
	}
	return 0;
}

int btrfs_check_tree_block_msg(const struct btrfs_fs_geometry *geo, const struct extent_buffer *eb,
			       char *msg, size_t msglen)
{
	struct tc t = { .geo = geo, .eb = eb, .msg = msg, .msglen = msglen, .slot = -1 };
	const struct btrfs_header *h;

	if (msg && msglen)
		msg[0] = 0;
	if (eb->len < sizeof(struct btrfs_header) + sizeof(struct btrfs_key_ptr) ||
	    eb->len != geo->nodesize) {
		if (msg && msglen)
			snprintf(msg, msglen, "corrupt block: block=%llu, invalid length %u expect %u",
				 eb->start, eb->len, geo->nodesize);
		return -EUCLEAN;
	}
	h = btrfs_header(eb);
	if (btrfs_header_level(h) >= BTRFS_MAX_LEVEL)
		return tc_err(&t, -1, "invalid level, have %u expect [0, %u]", btrfs_header_level(h),
			      BTRFS_MAX_LEVEL - 1);
	if (btrfs_header_bytenr(h) != eb->start)
		return tc_err(&t, -1, "invalid bytenr, have %llu expect %llu", btrfs_header_bytenr(h),
			      eb->start);
	if (btrfs_header_owner(h) == 0)
		return tc_err(&t, -1, "invalid owner, root 0");
	if (!check_gen(&t, btrfs_header_generation(h)))
		return tc_err(&t, -1, "invalid generation, have %llu expect (0, %llu]",
			      btrfs_header_generation(h), max_generation(&t));
	if (btrfs_header_level(h) == 0)
		return check_leaf(&t);
	return check_node(&t);
}

int btrfs_check_tree_block(const struct btrfs_fs_geometry *geo, const struct extent_buffer *eb)
{
	char msg[512];
	int ret = btrfs_check_tree_block_msg(geo, eb, msg, sizeof(msg));

	if (ret < 0)
		return CORRUPT("%s", msg);
	return 0;
}

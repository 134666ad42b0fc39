/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian accessors for every on-disk field, generated from the field
 * table accessors.def, plus key helpers and leaf/node helpers over
 * struct extent_buffer.
 *
 * Accessors take real pointers into memory (a tree block is one contiguous
 * buffer; the superblock a 4096-byte one) and read through memcpy, so any
 * alignment is fine.  They return the field's own width (u8/u16/u32/u64),
 * as the kernel's do:
 *
 *   struct btrfs_item *item = btrfs_leaf_item(eb, slot);
 *   u32 size = btrfs_item_size(item);
 *   struct btrfs_inode_item *ii = btrfs_leaf_item_ptr(eb, slot);
 *   u64 isize = btrfs_inode_size(ii);
 *
 * They do no bounds checking: before calling btrfs_leaf_item_ptr() on a
 * block not yet verified by the tree-checker, check nritems, the item's
 * offset and size against eb->len yourself.
 */
#ifndef BTRFS_KIT_ACCESSORS_H
#define BTRFS_KIT_ACCESSORS_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/extent-buffer.h"

static inline u8 get_unaligned_le8(const void *p)
{
	return *(const u8 *)p;
}
static inline void put_unaligned_le8(u8 v, void *p)
{
	*(u8 *)p = v;
}

#define BTRFS_FIELD(tag, name, member, bits, off)                                      \
	static inline u##bits btrfs_##name(const struct btrfs_##tag *p)                \
	{                                                                              \
		return get_unaligned_le##bits(&p->member);                             \
	}                                                                              \
	static inline void btrfs_set_##name(struct btrfs_##tag *p, u##bits v)          \
	{                                                                              \
		put_unaligned_le##bits(v, &p->member);                                 \
	}                                                                              \
	static inline u##bits btrfs_stack_##name(const struct btrfs_##tag *p)          \
	{                                                                              \
		return get_unaligned_le##bits(&p->member);                             \
	}                                                                              \
	static inline void btrfs_set_stack_##name(struct btrfs_##tag *p, u##bits v)    \
	{                                                                              \
		put_unaligned_le##bits(v, &p->member);                                 \
	}                                                                              \
	_Static_assert(offsetof(struct btrfs_##tag, member) == (off),                  \
		       "offset of btrfs_" #tag "." #member);                           \
	_Static_assert(sizeof(((struct btrfs_##tag *)0)->member) == (bits) / 8,        \
		       "size of btrfs_" #tag "." #member);
#include "kernel-shared/format/accessors.def"
#undef BTRFS_FIELD

/* ---- Arrays inside items ------------------------------------------------ */

static inline struct btrfs_stripe *btrfs_chunk_stripe(const struct btrfs_chunk *c, int nr)
{
	return (struct btrfs_stripe *)((u8 *)c + sizeof(*c) + sizeof(struct btrfs_stripe) * (size_t)nr);
}
/*
 * A new chunk item's fixed part as the kernel writes it: owned by the extent
 * tree, stripe_len, io_align and io_width BTRFS_STRIPE_LEN, the filesystem's
 * sector size (the stripes are the caller's).
 */
static inline void btrfs_chunk_item_init(struct btrfs_chunk *c, u64 length, u64 type, u32 sectorsize,
					 u16 num_stripes, u16 sub_stripes)
{
	btrfs_set_chunk_length(c, length);
	btrfs_set_chunk_owner(c, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(c, type);
	btrfs_set_chunk_io_align(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_io_width(c, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_sector_size(c, sectorsize);
	btrfs_set_chunk_num_stripes(c, num_stripes);
	btrfs_set_chunk_sub_stripes(c, sub_stripes);
}
/*
 * The top directory of a tree of files in its root item (subvolumes, the
 * data relocation tree), as the kernel makes it: inode 256's parent, a
 * directory of one block.
 */
static inline void btrfs_root_item_init_top_dir(struct btrfs_root_item *ri, u32 nodesize)
{
	btrfs_set_inode_generation(&ri->inode, 1);
	btrfs_set_inode_size(&ri->inode, 3);
	btrfs_set_inode_nlink(&ri->inode, 1);
	btrfs_set_inode_nbytes(&ri->inode, nodesize);
	btrfs_set_inode_mode(&ri->inode, 040755);
	btrfs_set_root_dirid(ri, BTRFS_FIRST_FREE_OBJECTID);
}

/* A block group item: used bytes, its chunk's type, owned by the chunk tree's objectid. */
static inline void btrfs_block_group_item_init(struct btrfs_block_group_item *bgi, u64 used, u64 flags)
{
	memset(bgi, 0, sizeof(*bgi));
	btrfs_set_block_group_used(bgi, used);
	btrfs_set_block_group_chunk_objectid(bgi, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_block_group_flags(bgi, flags);
}
static inline u64 btrfs_stripe_devid_nr(const struct btrfs_chunk *c, int nr)
{
	return btrfs_stripe_devid(btrfs_chunk_stripe(c, nr));
}
static inline u64 btrfs_stripe_offset_nr(const struct btrfs_chunk *c, int nr)
{
	return btrfs_stripe_offset(btrfs_chunk_stripe(c, nr));
}

static inline u64 btrfs_dev_stats_value(const struct btrfs_dev_stats_item *p, int index)
{
	return get_unaligned_le64(&p->values[index]);
}
static inline void btrfs_set_dev_stats_value(struct btrfs_dev_stats_item *p, int index, u64 v)
{
	put_unaligned_le64(v, &p->values[index]);
}

static inline struct btrfs_raid_stride *btrfs_raid_stride_nr(const struct btrfs_stripe_extent *p, int nr)
{
	return (struct btrfs_raid_stride *)((u8 *)p + sizeof(struct btrfs_raid_stride) * (size_t)nr);
}

/* Directory entry type without the BTRFS_FT_ENCRYPTED flag. */
static inline u8 btrfs_dir_ftype(const struct btrfs_dir_item *d)
{
	return btrfs_dir_type(d) & ~BTRFS_FT_ENCRYPTED;
}
/* The name follows the item; the xattr value follows the name. */
static inline char *btrfs_dir_name_ptr(const struct btrfs_dir_item *d)
{
	return (char *)d + sizeof(*d);
}
static inline char *btrfs_inode_ref_name_ptr(const struct btrfs_inode_ref *r)
{
	return (char *)r + sizeof(*r);
}
static inline char *btrfs_root_ref_name_ptr(const struct btrfs_root_ref *r)
{
	return (char *)r + sizeof(*r);
}

/* Inline file extent data, and its length given the item size. */
static inline u8 *btrfs_file_extent_inline_start(const struct btrfs_file_extent_item *fi)
{
	return (u8 *)fi + BTRFS_FILE_EXTENT_INLINE_DATA_START;
}
static inline u32 btrfs_file_extent_inline_item_len(u32 item_size)
{
	return item_size - BTRFS_FILE_EXTENT_INLINE_DATA_START;
}

/*
 * Size of one inline extent back reference of the given type, 0 for a type
 * that cannot be inline.  EXTENT_DATA_REF's data_ref overlays the offset.
 */
static inline u32 btrfs_extent_inline_ref_size(int type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		return sizeof(struct btrfs_extent_inline_ref);
	case BTRFS_SHARED_DATA_REF_KEY:
		return sizeof(struct btrfs_shared_data_ref) + sizeof(struct btrfs_extent_inline_ref);
	case BTRFS_EXTENT_DATA_REF_KEY:
		return sizeof(struct btrfs_extent_data_ref) + offsetof(struct btrfs_extent_inline_ref, offset);
	default:
		return 0;
	}
}

/* The references one inline back reference of the given type counts (an owner ref: none). */
static inline u64 btrfs_extent_inline_ref_count(const struct btrfs_extent_inline_ref *iref, int type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
		return 1;
	case BTRFS_SHARED_DATA_REF_KEY:
		return btrfs_shared_data_ref_count((const struct btrfs_shared_data_ref *)(iref + 1));
	case BTRFS_EXTENT_DATA_REF_KEY:
		return btrfs_extent_data_ref_count((const struct btrfs_extent_data_ref *)&iref->offset);
	default:
		return 0;
	}
}

/* Back reference revision, bits 56-63 of the header flags. */
static inline u8 btrfs_header_backref_rev(const struct btrfs_header *h)
{
	return (u8)(btrfs_header_flags(h) >> BTRFS_BACKREF_REV_SHIFT);
}
static inline bool btrfs_header_flag(const struct btrfs_header *h, u64 flag)
{
	return (btrfs_header_flags(h) & flag) == flag;
}

/* Qgroup ids: level in the top 16 bits, id below. */
static inline u64 btrfs_qgroup_level(u64 qgroupid)
{
	return qgroupid >> BTRFS_QGROUP_LEVEL_SHIFT;
}
static inline u64 btrfs_qgroup_subvolid(u64 qgroupid)
{
	return qgroupid & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1);
}

/* A qgroup's usage; the _cmpr fields carry the same numbers, as the kernel writes them. */
static inline void btrfs_set_qgroup_info_usage(struct btrfs_qgroup_info_item *q, u64 rfer, u64 excl)
{
	btrfs_set_qgroup_info_rfer(q, rfer);
	btrfs_set_qgroup_info_rfer_cmpr(q, rfer);
	btrfs_set_qgroup_info_excl(q, excl);
	btrfs_set_qgroup_info_excl_cmpr(q, excl);
}

/* ---- Keys --------------------------------------------------------------- */

static inline void btrfs_disk_key_to_cpu(struct btrfs_key *cpu, const struct btrfs_disk_key *disk)
{
	cpu->objectid = btrfs_disk_key_objectid(disk);
	cpu->type = btrfs_disk_key_type(disk);
	cpu->offset = btrfs_disk_key_offset(disk);
}
static inline void btrfs_cpu_key_to_disk(struct btrfs_disk_key *disk, const struct btrfs_key *cpu)
{
	btrfs_set_disk_key_objectid(disk, cpu->objectid);
	btrfs_set_disk_key_type(disk, cpu->type);
	btrfs_set_disk_key_offset(disk, cpu->offset);
}

/* -1, 0 or 1 as k1 sorts before, equal to or after k2. */
static inline int btrfs_comp_cpu_keys(const struct btrfs_key *k1, const struct btrfs_key *k2)
{
	if (k1->objectid != k2->objectid)
		return k1->objectid < k2->objectid ? -1 : 1;
	if (k1->type != k2->type)
		return k1->type < k2->type ? -1 : 1;
	if (k1->offset != k2->offset)
		return k1->offset < k2->offset ? -1 : 1;
	return 0;
}
/* The same with an on-disk first key (the kernel's signature). */
static inline int btrfs_comp_keys(const struct btrfs_disk_key *disk, const struct btrfs_key *k2)
{
	struct btrfs_key k1;

	btrfs_disk_key_to_cpu(&k1, disk);
	return btrfs_comp_cpu_keys(&k1, k2);
}

/* ---- Tree blocks (struct extent_buffer, extent-buffer.h) ------------------------ */

static inline struct btrfs_header *btrfs_header(const struct extent_buffer *eb)
{
	return (struct btrfs_header *)eb->data;
}
static inline u32 btrfs_eb_nritems(const struct extent_buffer *eb)
{
	return btrfs_header_nritems(btrfs_header(eb));
}
static inline u8 btrfs_eb_level(const struct extent_buffer *eb)
{
	return btrfs_header_level(btrfs_header(eb));
}

static inline void btrfs_set_eb_nritems(struct extent_buffer *eb, u32 n)
{
	btrfs_set_header_nritems(btrfs_header(eb), n);
}

/*
 * A new tree block's header (the rest of the block untouched): fsid, chunk
 * tree uuid, bytenr (eb->start), mixed back references, generation, owner,
 * level; no items yet.
 */
static inline void btrfs_init_header(struct extent_buffer *eb, const u8 *fsid, const u8 *chunk_tree_uuid,
				     u64 generation, u64 owner, int level)
{
	struct btrfs_header *h = btrfs_header(eb);

	memcpy(h->fsid, fsid, BTRFS_FSID_SIZE);
	memcpy(h->chunk_tree_uuid, chunk_tree_uuid, BTRFS_UUID_SIZE);
	btrfs_set_header_bytenr(h, eb->start);
	btrfs_set_header_flags(h, (u64)BTRFS_MIXED_BACKREF_REV << BTRFS_BACKREF_REV_SHIFT);
	btrfs_set_header_generation(h, generation);
	btrfs_set_header_owner(h, owner);
	btrfs_set_header_nritems(h, 0);
	btrfs_set_header_level(h, (u8)level);
}

/*
 * Leaf layout: the header, the item array growing up from it, item data
 * packed at the end growing down; item i's data lies below item i-1's and
 * offsets count from the end of the header.  Node layout: the header, then
 * key pointers.
 */

/* Leaf: item header of a slot (no bounds check). */
static inline struct btrfs_item *btrfs_leaf_item(const struct extent_buffer *eb, int slot)
{
	return (struct btrfs_item *)(eb->data + sizeof(struct btrfs_header) +
				     sizeof(struct btrfs_item) * (size_t)slot);
}
/* Leaf: the item's data, sizeof(header) + item offset (no bounds check). */
static inline void *btrfs_leaf_item_ptr(const struct extent_buffer *eb, int slot)
{
	return (u8 *)eb->data + sizeof(struct btrfs_header) + btrfs_item_offset(btrfs_leaf_item(eb, slot));
}
static inline u32 btrfs_leaf_item_size(const struct extent_buffer *eb, int slot)
{
	return btrfs_item_size(btrfs_leaf_item(eb, slot));
}
static inline u32 btrfs_leaf_item_offset(const struct extent_buffer *eb, int slot)
{
	return btrfs_item_offset(btrfs_leaf_item(eb, slot));
}
static inline void btrfs_set_leaf_item_size(struct extent_buffer *eb, int slot, u32 v)
{
	btrfs_set_item_size(btrfs_leaf_item(eb, slot), v);
}
static inline void btrfs_set_leaf_item_offset(struct extent_buffer *eb, int slot, u32 v)
{
	btrfs_set_item_offset(btrfs_leaf_item(eb, slot), v);
}
/* Leaf: start of the area item offsets count from (just after the header). */
static inline u8 *btrfs_leaf_data(const struct extent_buffer *eb)
{
	return (u8 *)eb->data + sizeof(struct btrfs_header);
}
/* Leaf: bytes for item headers and data together. */
static inline u32 btrfs_leaf_data_size(const struct extent_buffer *eb)
{
	return (u32)BTRFS_LEAF_DATA_SIZE(eb->len);
}
/* Leaf: lowest data offset in use (btrfs_leaf_data_size() when empty; no bounds check). */
static inline u32 btrfs_leaf_data_end(const struct extent_buffer *eb)
{
	u32 n = btrfs_eb_nritems(eb);

	return n ? btrfs_leaf_item_offset(eb, (int)n - 1) : btrfs_leaf_data_size(eb);
}
/* Leaf: bytes free between the item array and the data (negative when corrupt). */
static inline int btrfs_leaf_free_space(const struct extent_buffer *eb)
{
	return (int)btrfs_leaf_data_end(eb) - (int)(btrfs_eb_nritems(eb) * sizeof(struct btrfs_item));
}
static inline void btrfs_item_key_to_cpu(const struct extent_buffer *eb, struct btrfs_key *key, int slot)
{
	btrfs_disk_key_to_cpu(key, &btrfs_leaf_item(eb, slot)->key);
}

/* Node: key pointer of a slot (no bounds check). */
static inline struct btrfs_key_ptr *btrfs_node_key_ptr(const struct extent_buffer *eb, int slot)
{
	return (struct btrfs_key_ptr *)(eb->data + sizeof(struct btrfs_header) +
					sizeof(struct btrfs_key_ptr) * (size_t)slot);
}
/* Node: how many key pointers fit. */
static inline u32 btrfs_node_max_ptrs(const struct extent_buffer *eb)
{
	return (u32)BTRFS_NODEPTRS_PER_BLOCK(eb->len);
}
static inline u64 btrfs_node_blockptr(const struct extent_buffer *eb, int slot)
{
	return btrfs_key_blockptr(btrfs_node_key_ptr(eb, slot));
}
static inline u64 btrfs_node_ptr_generation(const struct extent_buffer *eb, int slot)
{
	return btrfs_key_generation(btrfs_node_key_ptr(eb, slot));
}
static inline void btrfs_node_key_to_cpu(const struct extent_buffer *eb, struct btrfs_key *key, int slot)
{
	btrfs_disk_key_to_cpu(key, &btrfs_node_key_ptr(eb, slot)->key);
}
/* The key at slot of a node or a leaf (no bounds check). */
static inline void btrfs_block_key_to_cpu(const struct extent_buffer *eb, struct btrfs_key *key, int slot)
{
	if (btrfs_eb_level(eb))
		btrfs_node_key_to_cpu(eb, key, slot);
	else
		btrfs_item_key_to_cpu(eb, key, slot);
}

#endif

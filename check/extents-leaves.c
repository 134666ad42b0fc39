// SPDX-License-Identifier: GPL-2.0
/*
 * What pass 3 gathers from the leaves its walk reads (check/extents-walk.c):
 * the references file extent items make (the walk adds the pointers'), the
 * extent tree's extent and metadata items with their inline and keyed back
 * references, block group items (extent tree or block group tree), dev
 * extents, the chunk tree's device items and chunk items (checked as they
 * are read, check/extents-devices.c), the root items, and the data and csum
 * figures of the summary.
 */
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "kernel-shared/format/accessors.h"

static int push_ref(struct check_ref **arr, size_t *nr, size_t *alloc, const struct check_ref *r)
{
	if (ARRAY_GROW(*arr, *nr, *alloc))
		return -ENOMEM;
	(*arr)[(*nr)++] = *r;
	return 0;
}

/* A reference a tree makes (pointer or file extent item). */
int check_add_expected_ref(struct ext_state *st, u64 bytenr, u64 len, u64 parent, u64 root,
			   u64 objectid, u64 offset, u8 type)
{
	struct check_ref r = { .bytenr = bytenr, .len = len, .parent = parent, .root = root,
			       .objectid = objectid, .offset = offset, .count = 1, .type = type };

	return push_ref(&st->exp, &st->exp_nr, &st->exp_alloc, &r);
}

/* A back reference the extent tree holds. */
static int add_found(struct ext_state *st, u64 bytenr, u8 type, u64 parent, u64 root,
		     u64 objectid, u64 offset, u32 count)
{
	struct check_ref r = { .bytenr = bytenr, .parent = parent, .root = root,
			       .objectid = objectid, .offset = offset, .count = count, .type = type };

	return push_ref(&st->got, &st->got_nr, &st->got_alloc, &r);
}

/* One EXTENT_ITEM or METADATA_ITEM with its inline refs. */
static int collect_extent_item(struct check_ctx *ctx, struct ext_state *st, const struct extent_buffer *eb,
			       int slot, const struct btrfs_key *key)
{
	u32 size = btrfs_leaf_item_size(eb, slot);
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + size;
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)p;
	struct check_extent *x;
	u64 flags;
	int ret;

	if (size < sizeof(*ei)) {
		check_error(ctx, "extent tree: item (%llu %u %llu) in leaf %llu has size %u, expected at least %zu (old format extent items are not supported)",
			    key->objectid, key->type, key->offset, eb->start, size, sizeof(*ei));
		return 0;
	}
	x = CHECK_PUSH(st, ext);
	if (!x)
		return -ENOMEM;
	flags = btrfs_extent_flags(ei);
	x->start = key->objectid;
	x->refs = btrfs_extent_refs(ei);
	x->flags = flags;
	x->generation = btrfs_extent_generation(ei);
	x->leaf = eb->start;
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		x->len = st->nodesize;
		x->level = (u8)key->offset;
		x->metadata_item = 1;
	} else {
		x->len = key->offset;
	}
	p += sizeof(*ei);
	if ((flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && key->type == BTRFS_EXTENT_ITEM_KEY) {
		if (p + sizeof(struct btrfs_tree_block_info) > end) {
			check_error(ctx, "extent tree: extent item (%llu %u %llu) too short for tree block info: size %u",
				    key->objectid, key->type, key->offset, size);
			return 0;
		}
		x->level = btrfs_tree_block_level((struct btrfs_tree_block_info *)p);
		p += sizeof(struct btrfs_tree_block_info);
	}
	while (p < end) {
		struct btrfs_extent_inline_ref *iref = (struct btrfs_extent_inline_ref *)p;
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);
		u64 off;

		if (!rsize || p + rsize > end) {
			check_error(ctx, "extent tree: extent item (%llu %u %llu): bad inline ref type %u at offset %u, item size %u",
				    key->objectid, key->type, key->offset, type,
				    (u32)(p - (u8 *)ei), size);
			return 0;
		}
		off = btrfs_extent_inline_ref_offset(iref);
		ret = 0;
		switch (type) {
		case BTRFS_TREE_BLOCK_REF_KEY:
			ret = add_found(st, x->start, type, 0, off, 0, 0, 1);
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			ret = add_found(st, x->start, type, off, 0, 0, 0, 1);
			break;
		case BTRFS_SHARED_DATA_REF_KEY: {
			struct btrfs_shared_data_ref *sr = (void *)(p + sizeof(*iref));

			ret = add_found(st, x->start, type, off, 0, 0, 0, btrfs_shared_data_ref_count(sr));
			break;
		}
		case BTRFS_EXTENT_DATA_REF_KEY: {
			struct btrfs_extent_data_ref *dr = (void *)(p + offsetof(struct btrfs_extent_inline_ref, offset));

			ret = add_found(st, x->start, type, 0, btrfs_extent_data_ref_root(dr),
					btrfs_extent_data_ref_objectid(dr), btrfs_extent_data_ref_offset(dr),
					btrfs_extent_data_ref_count(dr));
			break;
		}
		case BTRFS_EXTENT_OWNER_REF_KEY:
			break;   /* simple quota owner: not a reference */
		}
		if (ret)
			return ret;
		p += rsize;
	}
	return 0;
}

/* A BLOCK_GROUP_ITEM, from the extent tree or the block group tree (short ones skipped). */
static int add_bg(struct ext_state *st, const struct btrfs_key *key, const void *ptr, u32 size)
{
	struct check_bg *bg;

	if (size < sizeof(struct btrfs_block_group_item))
		return 0;
	bg = CHECK_PUSH(st, bg);
	if (!bg)
		return -ENOMEM;
	bg->start = key->objectid;
	bg->len = key->offset;
	bg->used = btrfs_block_group_used(ptr);
	bg->flags = btrfs_block_group_flags(ptr);
	return 0;
}

static int collect_extent_leaf(struct check_ctx *ctx, struct ext_state *st, const struct extent_buffer *eb)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct btrfs_key key;
		u32 size = btrfs_leaf_item_size(eb, (int)i);
		void *ptr = btrfs_leaf_item_ptr(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		switch (key.type) {
		case BTRFS_EXTENT_ITEM_KEY:
		case BTRFS_METADATA_ITEM_KEY:
			ret = collect_extent_item(ctx, st, eb, (int)i, &key);
			break;
		case BTRFS_TREE_BLOCK_REF_KEY:
			ret = add_found(st, key.objectid, key.type, 0, key.offset, 0, 0, 1);
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			ret = add_found(st, key.objectid, key.type, key.offset, 0, 0, 0, 1);
			break;
		case BTRFS_EXTENT_DATA_REF_KEY:
			if (size < sizeof(struct btrfs_extent_data_ref)) {
				check_error(ctx, "extent tree: data ref (%llu %u %llu) has size %u, expected %zu",
					    key.objectid, key.type, key.offset, size, sizeof(struct btrfs_extent_data_ref));
				break;
			}
			ret = add_found(st, key.objectid, key.type, 0, btrfs_extent_data_ref_root(ptr),
					btrfs_extent_data_ref_objectid(ptr), btrfs_extent_data_ref_offset(ptr),
					btrfs_extent_data_ref_count(ptr));
			break;
		case BTRFS_SHARED_DATA_REF_KEY:
			if (size < sizeof(struct btrfs_shared_data_ref)) {
				check_error(ctx, "extent tree: shared data ref (%llu %u %llu) has size %u, expected %zu",
					    key.objectid, key.type, key.offset, size, sizeof(struct btrfs_shared_data_ref));
				break;
			}
			ret = add_found(st, key.objectid, key.type, key.offset, 0, 0, 0,
					btrfs_shared_data_ref_count(ptr));
			break;
		case BTRFS_BLOCK_GROUP_ITEM_KEY:
			if (!st->bg_tree)
				ret = add_bg(st, &key, ptr, size);
			break;
		}
	}
	return ret;
}

int check_collect_leaf(struct check_ctx *ctx, struct ext_state *st, u64 tree_id, const struct extent_buffer *eb)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	bool data_tree = check_is_file_tree(tree_id) || tree_id == BTRFS_ROOT_TREE_OBJECTID ||
			 tree_id == BTRFS_TREE_RELOC_OBJECTID;
	u64 owner = btrfs_header_owner(btrfs_header(eb));

	if (tree_id == BTRFS_EXTENT_TREE_OBJECTID)
		return collect_extent_leaf(ctx, st, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		u32 size = btrfs_leaf_item_size(eb, (int)i);
		void *ptr = btrfs_leaf_item_ptr(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type == BTRFS_EXTENT_DATA_KEY && data_tree) {
			struct btrfs_file_extent_item *fi = ptr;
			u8 type;
			u64 disk, dlen, off;

			if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
				continue;
			type = btrfs_file_extent_type(fi);
			if (type == BTRFS_FILE_EXTENT_INLINE)
				continue;
			if (size < sizeof(*fi))
				continue;
			disk = btrfs_file_extent_disk_bytenr(fi);
			if (!disk)
				continue;
			dlen = btrfs_file_extent_disk_num_bytes(fi);
			off = btrfs_file_extent_offset(fi);
			st->stats_alloc += dlen;
			st->stats_ref += btrfs_file_extent_num_bytes(fi);
			if (check_add_expected_ref(st, disk, dlen, eb->start, owner, key.objectid,
						   key.offset - off, BTRFS_EXTENT_DATA_REF_KEY))
				return -ENOMEM;
			st->exp[st->exp_nr - 1].written = type == BTRFS_FILE_EXTENT_REG;
		} else if (key.type == BTRFS_EXTENT_CSUM_KEY && tree_id == BTRFS_CSUM_TREE_OBJECTID) {
			ctx->stats.total_csum_bytes += size;
		} else if (key.type == BTRFS_BLOCK_GROUP_ITEM_KEY && tree_id == BTRFS_BLOCK_GROUP_TREE_OBJECTID) {
			if (add_bg(st, &key, ptr, size))
				return -ENOMEM;
		} else if (key.type == BTRFS_DEV_EXTENT_KEY && tree_id == BTRFS_DEV_TREE_OBJECTID) {
			struct check_devext *d;

			if (size < sizeof(struct btrfs_dev_extent))
				continue;
			d = CHECK_PUSH(st, dext);
			if (!d)
				return -ENOMEM;
			d->devid = key.objectid;
			d->physical = key.offset;
			d->len = btrfs_dev_extent_length(ptr);
			d->chunk_offset = btrfs_dev_extent_chunk_offset(ptr);
		} else if (key.type == BTRFS_CHUNK_ITEM_KEY && tree_id == BTRFS_CHUNK_TREE_OBJECTID) {
			check_compare_chunk_item(ctx, &key, ptr, size);
			check_chunk_stripe_devs(ctx, eb, &key, ptr, size);
		} else if (key.type == BTRFS_DEV_ITEM_KEY && tree_id == BTRFS_CHUNK_TREE_OBJECTID) {
			struct check_dev *d;

			if (size < sizeof(struct btrfs_dev_item))
				continue;
			d = CHECK_PUSH(st, dev);
			if (!d)
				return -ENOMEM;
			d->devid = btrfs_device_id(ptr);
			d->total_bytes = btrfs_device_total_bytes(ptr);
			d->bytes_used = btrfs_device_bytes_used(ptr);
			check_dev_item_uuid(ctx, ptr);
		} else if (key.type == BTRFS_ROOT_ITEM_KEY && tree_id == BTRFS_ROOT_TREE_OBJECTID) {
			struct check_root *r;

			if (size < offsetof(struct btrfs_root_item, generation_v2))
				continue;
			r = CHECK_PUSH(st, root);
			if (!r)
				return -ENOMEM;
			r->key = key;
			btrfs_tree_ref_from_root_item(&r->tree, key.objectid, ptr);
			btrfs_disk_key_to_cpu(&r->drop_key, &((struct btrfs_root_item *)ptr)->drop_progress);
			r->drop_level = btrfs_root_drop_level(ptr);
			r->refs = btrfs_root_refs(ptr);
			r->last_snapshot = btrfs_root_last_snapshot(ptr);
		}
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dump-tree --format json: the same trees, in the same order, as one JSON
 * document.  Header and item fields are named as the on-disk structure
 * members; flag sets are arrays of names.  Items without a decoder here
 * carry only their key, offset and size.
 */
#include <stdio.h>
#include "print/print-tree-json.h"
#include "print/print-tree-internal.h"
#include "print/emit.h"
#include "lib/format/accessors.h"
#include "lib/format/messages.h"
#include "common/json-writer.h"
#include "lib/format/flags-names.h"

struct jctx {
	struct json_writer *w;
	const struct btrfs_print_opts *opts;
};

/* Flag sets only the JSON output names (the text prints these as numbers). */
static const struct btrfs_flag_name balance_flag_names[] = {
	{ 1ULL << 0, "DATA" }, { 1ULL << 1, "SYSTEM" }, { 1ULL << 2, "METADATA" },
	{ 1ULL << 3, "FORCE" }, { 1ULL << 4, "RESUME" },
};
static const struct btrfs_flag_table balance_flags_table = {
	balance_flag_names, ARRAY_SIZE(balance_flag_names)
};
static const struct btrfs_flag_name balance_args_flag_names[] = {
	{ 1ULL << 0, "PROFILES" }, { 1ULL << 1, "USAGE" }, { 1ULL << 2, "DEVID" },
	{ 1ULL << 3, "DRANGE" }, { 1ULL << 4, "VRANGE" }, { 1ULL << 5, "LIMIT" },
	{ 1ULL << 6, "LIMIT_RANGE" }, { 1ULL << 7, "STRIPES_RANGE" }, { 1ULL << 8, "CONVERT" },
	{ 1ULL << 9, "SOFT" }, { 1ULL << 10, "USAGE_RANGE" },
};
static const struct btrfs_flag_table balance_args_flags_table = {
	balance_args_flag_names, ARRAY_SIZE(balance_args_flag_names)
};
static const struct btrfs_flag_name qgroup_limit_flag_names[] = {
	{ 1ULL << 0, "MAX_RFER" }, { 1ULL << 1, "MAX_EXCL" }, { 1ULL << 2, "RSV_RFER" },
	{ 1ULL << 3, "RSV_EXCL" },
};
static const struct btrfs_flag_table qgroup_limit_flags_table = {
	qgroup_limit_flag_names, ARRAY_SIZE(qgroup_limit_flag_names)
};

static void j_key(struct json_writer *w, const char *name, const struct btrfs_disk_key *k)
{
	struct emitter e = emit_json_to(w);

	emit_disk_key(&e, name, NULL, k);
}

static void j_time(struct json_writer *w, const char *name, const struct btrfs_timespec *t)
{
	json_begin_object(w, name);
	json_u64(w, "sec", btrfs_timespec_sec(t));
	json_u64(w, "nsec", btrfs_timespec_nsec(t));
	json_end_object(w);
}

static void j_inode(struct json_writer *w, const char *name, const struct btrfs_inode_item *ii)
{
	json_begin_object(w, name);
	json_u64(w, "generation", btrfs_inode_generation(ii));
	json_u64(w, "transid", btrfs_inode_transid(ii));
	json_u64(w, "size", btrfs_inode_size(ii));
	json_u64(w, "nbytes", btrfs_inode_nbytes(ii));
	json_u64(w, "block_group", btrfs_inode_block_group(ii));
	json_u64(w, "nlink", btrfs_inode_nlink(ii));
	json_u64(w, "uid", btrfs_inode_uid(ii));
	json_u64(w, "gid", btrfs_inode_gid(ii));
	json_u64(w, "mode", btrfs_inode_mode(ii));
	json_u64(w, "rdev", btrfs_inode_rdev(ii));
	json_flags(w, "flags", btrfs_inode_flags(ii), &btrfs_inode_flags_table);
	json_u64(w, "sequence", btrfs_inode_sequence(ii));
	j_time(w, "atime", &ii->atime);
	j_time(w, "ctime", &ii->ctime);
	j_time(w, "mtime", &ii->mtime);
	j_time(w, "otime", &ii->otime);
	json_end_object(w);
}

/* A name from an item, or nothing with --hide-names. */
static void j_name(struct json_writer *w, const struct print_item *it, const char *key,
		   const void *p, u32 len)
{
	if (!it->opts->hide_names)
		json_string_len(w, key, p, len);
}

static void j_inode_refs(struct json_writer *w, const struct print_item *it)
{
	u32 cur;

	json_begin_array(w, "refs");
	for (cur = 0; cur + sizeof(struct btrfs_inode_ref) <= it->size;) {
		const struct btrfs_inode_ref *r = (const void *)(it->data + cur);
		u32 len = min_t(u32, btrfs_inode_ref_name_len(r), it->size - cur - sizeof(*r));

		json_begin_object(w, NULL);
		json_u64(w, "index", btrfs_inode_ref_index(r));
		json_u64(w, "name_len", btrfs_inode_ref_name_len(r));
		j_name(w, it, "name", (const u8 *)r + sizeof(*r), len);
		json_end_object(w);
		cur += sizeof(*r) + len;
	}
	json_end_array(w);
}

static void j_inode_extrefs(struct json_writer *w, const struct print_item *it)
{
	u32 cur;

	json_begin_array(w, "refs");
	for (cur = 0; cur + sizeof(struct btrfs_inode_extref) <= it->size;) {
		const struct btrfs_inode_extref *r = (const void *)(it->data + cur);
		u32 len = min_t(u32, btrfs_inode_extref_name_len(r), it->size - cur - sizeof(*r));

		json_begin_object(w, NULL);
		json_u64(w, "parent_objectid", btrfs_inode_extref_parent(r));
		json_u64(w, "index", btrfs_inode_extref_index(r));
		json_u64(w, "name_len", btrfs_inode_extref_name_len(r));
		j_name(w, it, "name", (const u8 *)r + sizeof(*r), len);
		json_end_object(w);
		cur += sizeof(*r) + len;
	}
	json_end_array(w);
}

static void j_dir_items(struct json_writer *w, const struct print_item *it)
{
	u32 cur;

	json_begin_array(w, "entries");
	for (cur = 0; cur + sizeof(struct btrfs_dir_item) <= it->size;) {
		const struct btrfs_dir_item *d = (const void *)(it->data + cur);
		u32 avail = it->size - cur - sizeof(*d);
		u32 nl = min_t(u32, btrfs_dir_name_len(d), avail);
		u32 dl = min_t(u32, btrfs_dir_data_len(d), avail - nl);

		json_begin_object(w, NULL);
		j_key(w, "location", &d->location);
		json_u64(w, "transid", btrfs_dir_transid(d));
		json_u64(w, "data_len", btrfs_dir_data_len(d));
		json_u64(w, "name_len", btrfs_dir_name_len(d));
		json_u64(w, "type", btrfs_dir_type(d));
		j_name(w, it, "name", (const u8 *)d + sizeof(*d), nl);
		if (dl)
			j_name(w, it, "data", (const u8 *)d + sizeof(*d) + nl, dl);
		json_end_object(w);
		cur += sizeof(*d) + nl + dl;
	}
	json_end_array(w);
}

static void j_file_extent(struct json_writer *w, const struct print_item *it)
{
	const struct btrfs_file_extent_item *fi = (const void *)it->data;

	json_u64(w, "generation", btrfs_file_extent_generation(fi));
	json_u64(w, "ram_bytes", btrfs_file_extent_ram_bytes(fi));
	json_u64(w, "compression", btrfs_file_extent_compression(fi));
	json_u64(w, "encryption", btrfs_file_extent_encryption(fi));
	json_u64(w, "other_encoding", btrfs_file_extent_other_encoding(fi));
	json_u64(w, "type", btrfs_file_extent_type(fi));
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
		json_u64(w, "inline_size", btrfs_file_extent_inline_item_len(it->size));
	} else if (it->size >= sizeof(*fi)) {
		json_u64(w, "disk_bytenr", btrfs_file_extent_disk_bytenr(fi));
		json_u64(w, "disk_num_bytes", btrfs_file_extent_disk_num_bytes(fi));
		json_u64(w, "offset", btrfs_file_extent_offset(fi));
		json_u64(w, "num_bytes", btrfs_file_extent_num_bytes(fi));
	}
}

static void j_root_item(struct json_writer *w, const struct print_item *it)
{
	const struct btrfs_root_item *ri = (const void *)it->data;

	j_inode(w, "inode", &ri->inode);
	json_u64(w, "generation", btrfs_root_generation(ri));
	json_u64(w, "root_dirid", btrfs_root_dirid(ri));
	json_u64(w, "bytenr", btrfs_root_bytenr(ri));
	json_u64(w, "byte_limit", btrfs_root_limit(ri));
	json_u64(w, "bytes_used", btrfs_root_used(ri));
	json_u64(w, "last_snapshot", btrfs_root_last_snapshot(ri));
	json_flags(w, "flags", btrfs_root_flags(ri), &btrfs_root_flags_table);
	json_u64(w, "refs", btrfs_root_refs(ri));
	j_key(w, "drop_progress", &ri->drop_progress);
	json_u64(w, "drop_level", btrfs_root_drop_level(ri));
	json_u64(w, "level", btrfs_root_level(ri));
	if (it->size < sizeof(*ri))
		return;
	json_u64(w, "generation_v2", btrfs_root_generation_v2(ri));
	json_uuid(w, "uuid", ri->uuid);
	json_uuid(w, "parent_uuid", ri->parent_uuid);
	json_uuid(w, "received_uuid", ri->received_uuid);
	json_u64(w, "ctransid", btrfs_root_ctransid(ri));
	json_u64(w, "otransid", btrfs_root_otransid(ri));
	json_u64(w, "stransid", btrfs_root_stransid(ri));
	json_u64(w, "rtransid", btrfs_root_rtransid(ri));
	j_time(w, "ctime", &ri->ctime);
	j_time(w, "otime", &ri->otime);
	j_time(w, "stime", &ri->stime);
	j_time(w, "rtime", &ri->rtime);
}

static void j_root_ref(struct json_writer *w, const struct print_item *it)
{
	const struct btrfs_root_ref *r = (const void *)it->data;
	u32 len = min_t(u32, btrfs_root_ref_name_len(r), it->size - sizeof(*r));

	json_u64(w, "dirid", btrfs_root_ref_dirid(r));
	json_u64(w, "sequence", btrfs_root_ref_sequence(r));
	json_u64(w, "name_len", btrfs_root_ref_name_len(r));
	j_name(w, it, "name", (const u8 *)r + sizeof(*r), len);
}

static void j_data_ref(struct json_writer *w, const struct btrfs_extent_data_ref *dr)
{
	json_u64(w, "root", btrfs_extent_data_ref_root(dr));
	json_u64(w, "objectid", btrfs_extent_data_ref_objectid(dr));
	json_u64(w, "offset", btrfs_extent_data_ref_offset(dr));
	json_u64(w, "count", btrfs_extent_data_ref_count(dr));
}

/* Extent/metadata item: header, tree block info, inline refs (stops at a bad one). */
static void j_extent_item(struct json_writer *w, const struct print_item *it)
{
	const struct btrfs_extent_item *ei = (const void *)it->data;
	u64 flags = btrfs_extent_flags(ei);
	u32 cur = sizeof(*ei);

	json_u64(w, "refs", btrfs_extent_refs(ei));
	json_u64(w, "generation", btrfs_extent_generation(ei));
	json_flags(w, "flags", flags, &btrfs_extent_flags_table);
	if (it->key.type == BTRFS_EXTENT_ITEM_KEY && (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) &&
	    cur + sizeof(struct btrfs_tree_block_info) <= it->size) {
		const struct btrfs_tree_block_info *tb = (const void *)(it->data + cur);

		json_begin_object(w, "tree_block_info");
		j_key(w, "key", &tb->key);
		json_u64(w, "level", btrfs_tree_block_level(tb));
		json_end_object(w);
		cur += sizeof(*tb);
	}
	json_begin_array(w, "inline_refs");
	while (cur < it->size) {
		const struct btrfs_extent_inline_ref *ir = (const void *)(it->data + cur);
		u8 type = btrfs_extent_inline_ref_type(ir);
		u32 len = btrfs_extent_inline_ref_size(type);

		if (!len || cur + len > it->size)
			break;
		json_begin_object(w, NULL);
		json_u64(w, "type", type);
		switch (type) {
		case BTRFS_TREE_BLOCK_REF_KEY:
			json_u64(w, "root", btrfs_extent_inline_ref_offset(ir));
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			json_u64(w, "parent", btrfs_extent_inline_ref_offset(ir));
			break;
		case BTRFS_EXTENT_DATA_REF_KEY:
			j_data_ref(w, (const void *)&ir->offset);
			break;
		case BTRFS_SHARED_DATA_REF_KEY:
			json_u64(w, "parent", btrfs_extent_inline_ref_offset(ir));
			json_u64(w, "count", btrfs_shared_data_ref_count((const void *)(ir + 1)));
			break;
		case BTRFS_EXTENT_OWNER_REF_KEY:
			json_u64(w, "root_id", btrfs_extent_inline_ref_offset(ir));
			break;
		}
		json_end_object(w);
		cur += len;
	}
	json_end_array(w);
}

static void j_balance_args(struct json_writer *w, const char *name,
			   const struct btrfs_disk_balance_args *a)
{
	json_begin_object(w, name);
	json_u64(w, "profiles", btrfs_disk_balance_args_profiles(a));
	json_u64(w, "usage", btrfs_disk_balance_args_usage(a));
	json_u64(w, "devid", btrfs_disk_balance_args_devid(a));
	json_u64(w, "pstart", btrfs_disk_balance_args_pstart(a));
	json_u64(w, "pend", btrfs_disk_balance_args_pend(a));
	json_u64(w, "vstart", btrfs_disk_balance_args_vstart(a));
	json_u64(w, "vend", btrfs_disk_balance_args_vend(a));
	json_u64(w, "target", btrfs_disk_balance_args_target(a));
	json_flags(w, "flags", btrfs_disk_balance_args_flags(a), &balance_args_flags_table);
	json_u64(w, "limit_min", btrfs_disk_balance_args_limit_min(a));
	json_u64(w, "limit_max", btrfs_disk_balance_args_limit_max(a));
	json_u64(w, "stripes_min", btrfs_disk_balance_args_stripes_min(a));
	json_u64(w, "stripes_max", btrfs_disk_balance_args_stripes_max(a));
	json_end_object(w);
}

/* The smallest item size each decoder needs (0: no decoder, no "data"). */
static u32 j_min_size(const struct print_item *it)
{
	switch (it->key.type) {
	case BTRFS_INODE_ITEM_KEY: return sizeof(struct btrfs_inode_item);
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY: return 1;
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY: return sizeof(struct btrfs_dir_log_item);
	case BTRFS_EXTENT_DATA_KEY: return BTRFS_FILE_EXTENT_INLINE_DATA_START;
	case BTRFS_ROOT_ITEM_KEY: return BTRFS_LEGACY_ROOT_ITEM_SIZE;
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY: return sizeof(struct btrfs_root_ref);
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY: return sizeof(struct btrfs_extent_item);
	case BTRFS_EXTENT_DATA_REF_KEY: return sizeof(struct btrfs_extent_data_ref);
	case BTRFS_SHARED_DATA_REF_KEY: return sizeof(struct btrfs_shared_data_ref);
	case BTRFS_BLOCK_GROUP_ITEM_KEY: return sizeof(struct btrfs_block_group_item);
	case BTRFS_FREE_SPACE_INFO_KEY: return sizeof(struct btrfs_free_space_info);
	case BTRFS_DEV_EXTENT_KEY: return sizeof(struct btrfs_dev_extent);
	case BTRFS_DEV_ITEM_KEY: return sizeof(struct btrfs_dev_item);
	case BTRFS_CHUNK_ITEM_KEY: return sizeof(struct btrfs_chunk);
	case BTRFS_QGROUP_STATUS_KEY: return offsetof(struct btrfs_qgroup_status_item, enable_gen);
	case BTRFS_QGROUP_INFO_KEY: return sizeof(struct btrfs_qgroup_info_item);
	case BTRFS_QGROUP_LIMIT_KEY: return sizeof(struct btrfs_qgroup_limit_item);
	case BTRFS_TEMPORARY_ITEM_KEY:
		return it->key.objectid == BTRFS_BALANCE_OBJECTID ? sizeof(struct btrfs_balance_item) : 0;
	case BTRFS_PERSISTENT_ITEM_KEY:
		return it->key.objectid == BTRFS_DEV_STATS_OBJECTID ? sizeof(struct btrfs_dev_stats_item) : 0;
	case BTRFS_DEV_REPLACE_KEY: return sizeof(struct btrfs_dev_replace_item);
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL: return sizeof(__le64);
	case BTRFS_VERITY_DESC_ITEM_KEY: return it->key.offset == 0 ?
		sizeof(struct btrfs_verity_descriptor_item) : 1;
	case BTRFS_VERITY_MERKLE_ITEM_KEY: return 1;
	case BTRFS_RAID_STRIPE_KEY: return sizeof(struct btrfs_raid_stride);
	case BTRFS_EXTENT_CSUM_KEY:
		return it->opts->csum_items && it->opts->csum_size ? it->opts->csum_size : 0;
	case BTRFS_FREE_SPACE_EXTENT_KEY:
	default:
		if (it->key.objectid == BTRFS_FREE_SPACE_OBJECTID && it->key.type == 0)
			return sizeof(struct btrfs_free_space_header);
		return 0;
	}
}

/*
 * The item's decoded structure as "data": members named as in format.h,
 * numbers as numbers, flag sets as arrays of names (unknown bits as one
 * "0x.." string).  Items without members (orphan, keyed tree/shared block
 * refs, qgroup relations, free space extents) and undecodable ones (too
 * small) have no "data".
 */
static void j_item_body(struct json_writer *w, const struct print_item *it)
{
	struct emitter e = emit_json_to(w);
	const void *p = it->data;
	u32 need = j_min_size(it), cur;

	if (!need || it->size < need)
		return;
	json_begin_object(w, "data");
	switch (it->key.type) {
	case BTRFS_INODE_ITEM_KEY:
		j_inode(w, "inode_item", p);
		break;
	case BTRFS_INODE_REF_KEY:
		j_inode_refs(w, it);
		break;
	case BTRFS_INODE_EXTREF_KEY:
		j_inode_extrefs(w, it);
		break;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		j_dir_items(w, it);
		break;
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
		json_u64(w, "end", btrfs_dir_log_end(p));
		break;
	case BTRFS_EXTENT_DATA_KEY:
		j_file_extent(w, it);
		break;
	case BTRFS_ROOT_ITEM_KEY:
		j_root_item(w, it);
		break;
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		j_root_ref(w, it);
		break;
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		j_extent_item(w, it);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		j_data_ref(w, p);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		json_u64(w, "count", btrfs_shared_data_ref_count(p));
		break;
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		emit_block_group_item(&e, p);
		break;
	case BTRFS_FREE_SPACE_INFO_KEY: {
		const struct btrfs_free_space_info *fsi = p;

		json_u64(w, "extent_count", btrfs_free_space_extent_count(fsi));
		json_begin_array(w, "flags");
		if (btrfs_free_space_flags(fsi) & BTRFS_FREE_SPACE_USING_BITMAPS)
			json_string(w, NULL, "USING_BITMAPS");
		if (btrfs_free_space_flags(fsi) & ~(u32)BTRFS_FREE_SPACE_USING_BITMAPS) {
			char hex[16];

			snprintf(hex, sizeof(hex), "0x%x",
				 btrfs_free_space_flags(fsi) & ~(u32)BTRFS_FREE_SPACE_USING_BITMAPS);
			json_string(w, NULL, hex);
		}
		json_end_array(w);
		break;
	}
	case BTRFS_DEV_EXTENT_KEY:
		emit_dev_extent(&e, p);
		break;
	case BTRFS_CHUNK_ITEM_KEY:
		emit_chunk_item(&e, p, it->size);
		break;
	case BTRFS_DEV_ITEM_KEY:
		emit_dev_item(&e, p);
		break;
	case BTRFS_QGROUP_STATUS_KEY: {
		const struct btrfs_qgroup_status_item *qs = p;

		json_u64(w, "version", btrfs_qgroup_status_version(qs));
		json_u64(w, "generation", btrfs_qgroup_status_generation(qs));
		json_flags(w, "flags", btrfs_qgroup_status_flags(qs), &btrfs_qgroup_status_flags_table);
		json_u64(w, "rescan", btrfs_qgroup_status_rescan(qs));
		if (it->size >= sizeof(*qs))
			json_u64(w, "enable_gen", btrfs_qgroup_status_enable_gen(qs));
		break;
	}
	case BTRFS_QGROUP_INFO_KEY:
		emit_qgroup_info(&e, p);
		break;
	case BTRFS_QGROUP_LIMIT_KEY: {
		const struct btrfs_qgroup_limit_item *ql = p;

		json_flags(w, "flags", btrfs_qgroup_limit_flags(ql), &qgroup_limit_flags_table);
		json_u64(w, "max_rfer", btrfs_qgroup_limit_max_rfer(ql));
		json_u64(w, "max_excl", btrfs_qgroup_limit_max_excl(ql));
		json_u64(w, "rsv_rfer", btrfs_qgroup_limit_rsv_rfer(ql));
		json_u64(w, "rsv_excl", btrfs_qgroup_limit_rsv_excl(ql));
		break;
	}
	case BTRFS_TEMPORARY_ITEM_KEY: {
		const struct btrfs_balance_item *bi = p;

		json_flags(w, "flags", btrfs_balance_flags(bi), &balance_flags_table);
		j_balance_args(w, "data", &bi->data);
		j_balance_args(w, "meta", &bi->meta);
		j_balance_args(w, "sys", &bi->sys);
		break;
	}
	case BTRFS_PERSISTENT_ITEM_KEY: {
		static const char *const names[] = {
			"write_errs", "read_errs", "flush_errs", "corruption_errs", "generation",
		};
		u32 i;

		for (i = 0; i < ARRAY_SIZE(names); i++)
			json_u64(w, names[i], btrfs_dev_stats_value(p, (int)i));
		break;
	}
	case BTRFS_DEV_REPLACE_KEY: {
		const struct btrfs_dev_replace_item *r = p;

		json_s64(w, "src_devid", (s64)btrfs_dev_replace_src_devid(r));
		json_u64(w, "cursor_left", btrfs_dev_replace_cursor_left(r));
		json_u64(w, "cursor_right", btrfs_dev_replace_cursor_right(r));
		json_u64(w, "cont_reading_from_srcdev_mode",
			 btrfs_dev_replace_cont_reading_from_srcdev_mode(r));
		json_u64(w, "replace_state", btrfs_dev_replace_replace_state(r));
		json_u64(w, "time_started", btrfs_dev_replace_time_started(r));
		json_u64(w, "time_stopped", btrfs_dev_replace_time_stopped(r));
		json_u64(w, "num_write_errors", btrfs_dev_replace_num_write_errors(r));
		json_u64(w, "num_uncorrectable_read_errors",
			 btrfs_dev_replace_num_uncorrectable_read_errors(r));
		break;
	}
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		json_begin_array(w, "subvol_ids");
		for (cur = 0; cur + sizeof(__le64) <= it->size; cur += sizeof(__le64))
			json_u64(w, NULL, get_unaligned_le64(it->data + cur));
		json_end_array(w);
		break;
	case BTRFS_VERITY_DESC_ITEM_KEY:
		if (it->key.offset == 0) {
			const struct btrfs_verity_descriptor_item *vd = p;

			json_u64(w, "size", btrfs_verity_descriptor_size(vd));
			json_u64(w, "encryption", btrfs_verity_descriptor_encryption(vd));
			break;
		}
		json_hex(w, "bytes", it->data, it->size);
		break;
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
		json_u64(w, "merkle_bytes", it->size);
		break;
	case BTRFS_RAID_STRIPE_KEY:
		emit_raid_stripe(&e, p, it->size);
		break;
	case BTRFS_EXTENT_CSUM_KEY:
		json_begin_array(w, "csum");
		for (cur = 0; cur + it->opts->csum_size <= it->size; cur += it->opts->csum_size)
			json_hex(w, NULL, it->data + cur, it->opts->csum_size);
		json_end_array(w);
		break;
	default: {   /* free space cache header (v1) */
		const struct btrfs_free_space_header *fh = p;

		j_key(w, "location", &fh->location);
		json_u64(w, "generation", btrfs_free_space_generation(fh));
		json_u64(w, "num_entries", btrfs_free_space_entries(fh));
		json_u64(w, "num_bitmaps", btrfs_free_space_bitmaps(fh));
		break;
	}
	}
	json_end_object(w);
}

static void j_block(const struct extent_buffer *eb, void *priv)
{
	struct jctx *jc = priv;
	struct json_writer *w = jc->w;
	const struct btrfs_header *h = (const struct btrfs_header *)eb->data;
	u32 data_size = min_t(u32, eb->len, jc->opts->nodesize ? jc->opts->nodesize : eb->len) - sizeof(*h);
	u32 i, nr = btrfs_header_nritems(h);

	json_begin_object(w, NULL);
	json_u64(w, "bytenr", btrfs_header_bytenr(h));
	json_u64(w, "level", btrfs_header_level(h));
	json_u64(w, "nritems", nr);
	json_u64(w, "generation", btrfs_header_generation(h));
	json_u64(w, "owner", btrfs_header_owner(h));
	json_flags(w, "flags", btrfs_header_flags(h), &btrfs_header_flags_table);
	json_u64(w, "backref_rev", btrfs_header_backref_rev(h));
	json_uuid(w, "fsid", h->fsid);
	json_uuid(w, "chunk_tree_uuid", h->chunk_tree_uuid);
	if (jc->opts->csum_headers)
		json_hex(w, "csum", h->csum, jc->opts->csum_size);
	if (btrfs_header_level(h)) {
		nr = min_t(u32, nr, data_size / sizeof(struct btrfs_key_ptr));
		json_begin_array(w, "ptrs");
		for (i = 0; i < nr; i++) {
			const struct btrfs_key_ptr *kp = (const void *)(eb->data + sizeof(*h) +
									 (size_t)i * sizeof(*kp));

			json_begin_object(w, NULL);
			j_key(w, "key", &kp->key);
			json_u64(w, "blockptr", btrfs_key_blockptr(kp));
			json_u64(w, "generation", btrfs_key_generation(kp));
			json_end_object(w);
		}
		json_end_array(w);
	} else {
		nr = min_t(u32, nr, data_size / sizeof(struct btrfs_item));
		json_begin_array(w, "items");
		for (i = 0; i < nr; i++) {
			const struct btrfs_item *item = (const void *)(eb->data + sizeof(*h) +
								       (size_t)i * sizeof(*item));
			u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
			struct print_item it = { .opts = jc->opts, .eb = eb, .slot = (int)i };

			json_begin_object(w, NULL);
			j_key(w, "key", &item->key);
			json_u64(w, "offset", off);
			json_u64(w, "size", size);
			if ((u64)off + size <= data_size) {
				it.key.objectid = btrfs_disk_key_objectid(&item->key);
				it.key.type = btrfs_disk_key_type(&item->key);
				it.key.offset = btrfs_disk_key_offset(&item->key);
				it.data = eb->data + sizeof(*h) + off;
				it.size = size;
				j_item_body(w, &it);
			}
			json_end_object(w);
		}
		json_end_array(w);
	}
	json_end_object(w);
}

struct jscan {
	struct btrfs_fs_info *fs;
	struct jctx *jc;
	u64 only;      /* 0 = every root item */
	const char *name;   /* of each tree found: "root item", "log tree" */
	int ret;
};

static void j_tree(struct jscan *js, const char *name, u64 id, const struct btrfs_disk_key *key,
		   const struct extent_buffer *eb)
{
	struct json_writer *w = js->jc->w;

	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_u64(w, "tree_id", id);
	if (key)
		j_key(w, "key", key);
	json_begin_array(w, "blocks");
	if (btrfs_visit_tree(js->fs, eb, js->jc->opts->dfs, j_block, js->jc))
		js->ret = 1;
	json_end_array(w);
	json_end_object(w);
}

static int j_root_items(const struct extent_buffer *leaf, void *priv)
{
	struct jscan *js = priv;
	const struct btrfs_header *h = (const struct btrfs_header *)leaf->data;
	u32 data_size = leaf->len - sizeof(*h);
	u32 i, nr = min_t(u32, btrfs_header_nritems(h), data_size / sizeof(struct btrfs_item));

	for (i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const void *)(leaf->data + sizeof(*h) +
							       (size_t)i * sizeof(*item));
		u64 objectid = btrfs_disk_key_objectid(&item->key);
		u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
		const struct btrfs_root_item *ri;
		struct tree_check check = { .level = -1 };
		struct extent_buffer *eb;

		if (btrfs_disk_key_type(&item->key) != BTRFS_ROOT_ITEM_KEY ||
		    (u64)off + size > data_size || size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
			continue;
		if (js->only && objectid != js->only)
			continue;
		ri = (const void *)(leaf->data + sizeof(*h) + off);
		check.level = btrfs_root_level(ri);
		check.transid = btrfs_root_generation(ri);
		if (btrfs_print_read_block(js->fs, btrfs_root_bytenr(ri), &check, &eb)) {
			js->ret = 1;
			continue;
		}
		j_tree(js, js->name, objectid, &item->key, eb);
		free_extent_buffer(eb);
	}
	return 0;
}

int dump_tree_json(struct btrfs_fs_info *fs, const struct btrfs_print_opts *opts,
		   const u64 *trees, int ntrees, const u64 *blocks, int nblocks, bool follow)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	struct json_writer w;
	struct jctx jc = { .w = &w, .opts = opts };
	struct jscan js = { .fs = fs, .jc = &jc, .name = "root item" };
	struct extent_buffer *root = NULL, *chunk = NULL, *log = NULL;
	struct tree_check rc = { .owner = BTRFS_ROOT_TREE_OBJECTID, .level = btrfs_super_root_level(sb),
				 .transid = btrfs_super_generation(sb) };
	struct tree_check cc = { .owner = BTRFS_CHUNK_TREE_OBJECTID,
				 .level = btrfs_super_chunk_root_level(sb),
				 .transid = btrfs_super_chunk_root_generation(sb) };
	int i;

	json_init(&w, stdout);
	json_begin_object(&w, NULL);
	if (nblocks) {
		json_begin_array(&w, "blocks");
		for (i = 0; i < nblocks; i++) {
			struct tree_check any = { .level = -1 };
			struct extent_buffer *eb;

			if (btrfs_print_read_block(fs, blocks[i], &any, &eb)) {
				js.ret = 1;
				continue;
			}
			if (follow) {
				if (btrfs_visit_tree(fs, eb, opts->dfs, j_block, &jc))
					js.ret = 1;
			} else {
				j_block(eb, &jc);
			}
			free_extent_buffer(eb);
		}
		json_end_array(&w);
		goto out;
	}
	if (btrfs_print_read_block(fs, btrfs_super_root(sb), &rc, &root)) {
		root = NULL;
		js.ret = 1;
	}
	if (btrfs_print_read_block(fs, btrfs_super_chunk_root(sb), &cc, &chunk)) {
		chunk = NULL;
		js.ret = 1;
	}
	if (btrfs_super_log_root(sb)) {
		struct tree_check lc = { .owner = BTRFS_TREE_LOG_OBJECTID,
					 .level = btrfs_super_log_root_level(sb) };

		if (btrfs_print_read_block(fs, btrfs_super_log_root(sb), &lc, &log)) {
			log = NULL;
			js.ret = 1;
		}
	}
	json_begin_array(&w, "trees");
	if (!ntrees) {
		/* The text order: root, chunk, log root tree, every root item, every log tree. */
		if (root)
			j_tree(&js, "root tree", BTRFS_ROOT_TREE_OBJECTID, NULL, root);
		if (chunk)
			j_tree(&js, "chunk tree", BTRFS_CHUNK_TREE_OBJECTID, NULL, chunk);
		if (log)
			j_tree(&js, "log root tree", BTRFS_TREE_LOG_OBJECTID, NULL, log);
		if (root)
			btrfs_walk_leaves(fs, root, j_root_items, &js);
		if (log) {
			js.name = "log tree";
			btrfs_walk_leaves(fs, log, j_root_items, &js);
			js.name = "root item";
		}
	}
	for (i = 0; i < ntrees; i++) {
		if (trees[i] == BTRFS_ROOT_TREE_OBJECTID) {
			if (root)
				j_tree(&js, "root tree", trees[i], NULL, root);
		} else if (trees[i] == BTRFS_CHUNK_TREE_OBJECTID) {
			if (chunk)
				j_tree(&js, "chunk tree", trees[i], NULL, chunk);
		} else if (root) {
			js.only = trees[i];
			btrfs_walk_leaves(fs, root, j_root_items, &js);
		}
	}
	json_end_array(&w);
	json_u64(&w, "total_bytes", btrfs_super_total_bytes(sb));
	json_u64(&w, "bytes_used", btrfs_super_bytes_used(sb));
	json_uuid(&w, "fsid", sb->fsid);
out:
	json_end_object(&w);
	if (json_finish(&w))
		js.ret = 1;
	if (root)
		free_extent_buffer(root);
	if (chunk)
		free_extent_buffer(chunk);
	if (log)
		free_extent_buffer(log);
	return js.ret;
}

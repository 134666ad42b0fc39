// SPDX-License-Identifier: GPL-2.0
/*
 * Item emitters, allocation and device items: extent and metadata items
 * with their inline back references, keyed back references, data
 * checksums, block groups, the free space tree, chunks, devices and device
 * extents, device stats and replace, qgroups, uuid items, balance and raid
 * stripe extents.  Each writes dump-tree's text or the members of the
 * item's JSON "data" (emit.h).
 */
#include <time.h>
#include <stdio.h>
#include <string.h>
#include "print/print-tree-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"

/* Flag sets the JSON names (the text prints these as numbers). */
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
static const struct btrfs_flag_name free_space_info_flag_names[] = {
	{ BTRFS_FREE_SPACE_USING_BITMAPS, "USING_BITMAPS" },
};
static const struct btrfs_flag_table free_space_info_flags_table = {
	free_space_info_flag_names, ARRAY_SIZE(free_space_info_flag_names)
};

static void emit_block_group_item(struct emitter *e, const struct btrfs_block_group_item *bg)
{
	emit_u64(e, "used", "\t\tblock group used ", btrfs_block_group_used(bg));
	emit_u64(e, "chunk_objectid", " chunk_objectid ", btrfs_block_group_chunk_objectid(bg));
	emit_bg_flags(e, "flags", " flags ", btrfs_block_group_flags(bg));
	emit_eol(e);
}

static void emit_dev_extent(struct emitter *e, const struct btrfs_dev_extent *de)
{
	emit_u64(e, "chunk_tree", "\t\tdev extent chunk_tree ", btrfs_dev_extent_chunk_tree(de));
	emit_eol(e);
	emit_u64(e, "chunk_objectid", "\t\tchunk_objectid ", btrfs_dev_extent_chunk_objectid(de));
	emit_u64(e, "chunk_offset", " chunk_offset ", btrfs_dev_extent_chunk_offset(de));
	emit_u64(e, "length", " length ", btrfs_dev_extent_length(de));
	emit_eol(e);
	emit_uuid(e, "chunk_tree_uuid", "\t\tchunk_tree_uuid ", de->chunk_tree_uuid);
	emit_eol(e);
}

static void emit_qgroup_info(struct emitter *e, const struct btrfs_qgroup_info_item *qi)
{
	emit_u64(e, "generation", "\t\tgeneration ", btrfs_qgroup_info_generation(qi));
	emit_eol(e);
	emit_u64(e, "rfer", "\t\treferenced ", btrfs_qgroup_info_rfer(qi));
	emit_u64(e, "rfer_cmpr", " referenced_compressed ", btrfs_qgroup_info_rfer_cmpr(qi));
	emit_eol(e);
	emit_u64(e, "excl", "\t\texclusive ", btrfs_qgroup_info_excl(qi));
	emit_u64(e, "excl_cmpr", " exclusive_compressed ", btrfs_qgroup_info_excl_cmpr(qi));
	emit_eol(e);
}

/* The strides of a RAID stripe extent item of size bytes (those that fit). */
static void emit_raid_stripe(struct emitter *e, const struct btrfs_stripe_extent *se, u32 size)
{
	u32 i, nr = size / sizeof(struct btrfs_raid_stride);

	if (!nr)
		return;
	emit_begin_array(e, "strides");
	for (i = 0; i < nr; i++) {
		const struct btrfs_raid_stride *s = btrfs_raid_stride_nr(se, (int)i);

		emit_begin_object(e, NULL);
		emit_textf(e, "\t\t\tstripe %u", i);
		emit_u64(e, "devid", " devid ", btrfs_raid_stride_devid(s));
		emit_u64(e, "physical", " physical ", btrfs_raid_stride_physical(s));
		emit_eol(e);
		emit_end_object(e);
	}
	emit_end_array(e);
}

/* "extent data backref root R objectid O offset F count C" after the caller's prefix. */
static void emit_data_ref_body(struct emitter *e, const struct btrfs_extent_data_ref *dref)
{
	emit_objectid(e, "root", "extent data backref root ", btrfs_extent_data_ref_root(dref), 0);
	emit_u64(e, "objectid", " objectid ", btrfs_extent_data_ref_objectid(dref));
	emit_u64(e, "offset", " offset ", btrfs_extent_data_ref_offset(dref));
	emit_u64(e, "count", " count ", btrfs_extent_data_ref_count(dref));
	emit_eol(e);
}

/*
 * One inline reference "(TYPE 0xOFFSET) ..."; its size was checked by the caller.  The
 * simple-quota owner ref is printed as btrfs-progs 6.19 prints it, typo included (its
 * format string has "\t\(" for "\t\t(" and "\textent" for "extent"): one tab, then
 * "(172 0xROOT) textent owner root ROOT"; scripts parse what 6.19 prints.
 */
static void emit_inline_ref(struct emitter *e, const struct btrfs_extent_inline_ref *iref, u8 type)
{
	u64 offset = btrfs_extent_inline_ref_offset(iref);

	emit_begin_object(e, NULL);
	emit_u64(e, "type", type == BTRFS_EXTENT_OWNER_REF_KEY ? "\t(" : "\t\t(", type);
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		emit_textf(e, " 0x%llx) tree block backref", (unsigned long long)offset);
		emit_objectid(e, "root", " root ", offset, 0);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		emit_textf(e, " 0x%llx) shared block backref", (unsigned long long)offset);
		emit_u64(e, "parent", " parent ", offset);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY: {
		const struct btrfs_extent_data_ref *dref = (const void *)&iref->offset;

		if (!emit_is_json(e))
			emit_textf(e, " 0x%llx) ", (unsigned long long)btrfs_extent_data_ref_hash(
					   btrfs_extent_data_ref_root(dref),
					   btrfs_extent_data_ref_objectid(dref),
					   btrfs_extent_data_ref_offset(dref)));
		emit_data_ref_body(e, dref);
		break;
	}
	case BTRFS_SHARED_DATA_REF_KEY:
		emit_textf(e, " 0x%llx) shared data backref", (unsigned long long)offset);
		emit_u64(e, "parent", " parent ", offset);
		emit_u64(e, "count", " count ",
			 btrfs_shared_data_ref_count((const struct btrfs_shared_data_ref *)(iref + 1)));
		break;
	case BTRFS_EXTENT_OWNER_REF_KEY:
		emit_textf(e, " 0x%llx) textent owner", (unsigned long long)offset);
		emit_u64(e, "root_id", " root ", offset);
		break;
	}
	if (type != BTRFS_EXTENT_DATA_REF_KEY)
		emit_eol(e);
	emit_end_object(e);
}

static void emit_extent_item(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_extent_item *ei = (const void *)it->data;
	const u8 *ptr, *end = it->data + it->size;
	u64 flags;

	if (it->size < sizeof(*ei)) {
		if (it->size >= sizeof(struct btrfs_extent_item_v0)) {
			emit_u64(e, NULL, "\t\trefs ",
				 btrfs_extent_refs_v0((const struct btrfs_extent_item_v0 *)it->data));
			emit_eol(e);
		}
		return;
	}
	flags = btrfs_extent_flags(ei);
	emit_u64(e, "refs", "\t\trefs ", btrfs_extent_refs(ei));
	emit_u64(e, "generation", " gen ", btrfs_extent_generation(ei));
	emit_flags(e, "flags", " flags ", flags, &btrfs_extent_flags_table);
	emit_eol(e);
	ptr = it->data + sizeof(*ei);
	if ((flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && it->key.type == BTRFS_EXTENT_ITEM_KEY) {
		const struct btrfs_tree_block_info *info = (const void *)ptr;

		if (end - ptr < (long)sizeof(*info))
			return;
		emit_begin_object(e, "tree_block_info");
		emit_disk_key(e, "key", "\t\ttree block ", &info->key);
		emit_u64(e, "level", " level ", btrfs_tree_block_level(info));
		emit_eol(e);
		emit_end_object(e);
		ptr += sizeof(*info);
	} else if (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		emit_u64(e, NULL, "\t\ttree block skinny level ", it->key.offset);
		emit_eol(e);
	}

	emit_begin_array(e, "inline_refs");
	while (end - ptr >= 1) {
		const struct btrfs_extent_inline_ref *iref = (const void *)ptr;
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 size = btrfs_extent_inline_ref_size(type);

		if (size == 0) {
			emit_textf(e, "\t\tunknown extent inline ref type %u\n", type);
			break;
		}
		if (end - ptr < (long)size)
			break;
		emit_inline_ref(e, iref, type);
		ptr += size;
	}
	emit_end_array(e);
}

static void emit_csum_item(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_print_opts *o = it->opts;
	u32 csum_size = o->csum_size ? o->csum_size : 4;
	u32 sectorsize = o->sectorsize ? o->sectorsize : 4096;
	u32 count = it->size / csum_size;
	u64 start = it->key.offset;
	u32 per_line, i;

	emit_textf(e, "\t\trange start %llu end %llu length %llu\n", (unsigned long long)start,
		   (unsigned long long)(start + (u64)count * sectorsize),
		   (unsigned long long)((u64)count * sectorsize));
	/* the text lists them with --csum-items, the JSON always */
	if ((!o->csum_items && !emit_is_json(e)) || count == 0)
		return;
	per_line = csum_size >= 16 ? 1 : 16 / csum_size;
	emit_begin_array(e, "csum");
	for (i = 0; i < count; i++) {
		emit_textf(e, i % per_line == 0 ? "\t\t[%llu] " : " [%llu] ",
			   (unsigned long long)(start + (u64)i * sectorsize));
		emit_hex(e, "", "", it->data + (size_t)i * csum_size, csum_size);
		if (i % per_line == per_line - 1 || i == count - 1)
			emit_eol(e);
	}
	emit_end_array(e);
}

static void emit_qgroup_status(struct emitter *e, const struct print_item *it)
{
	struct btrfs_qgroup_status_item st;
	u64 flags;

	if (it->size < offsetof(struct btrfs_qgroup_status_item, enable_gen))
		return;
	memset(&st, 0, sizeof(st));
	memcpy(&st, it->data, min_t(u32, it->size, sizeof(st)));
	flags = btrfs_qgroup_status_flags(&st);
	emit_u64(e, "version", "\t\tversion ", btrfs_qgroup_status_version(&st));
	emit_u64(e, "generation", " generation ", btrfs_qgroup_status_generation(&st));
	emit_flags(e, "flags", NULL, flags, &btrfs_qgroup_status_flags_table);
	/*
	 * btrfs-progs' own spelling, not the flag table's: ON or OFF first,
	 * then SIMPLE_MODE, SCANNING (the RESCAN bit), INCONSISTENT, then
	 * UNKNOWN(0x..) for the other bits.
	 */
	emit_textf(e, " flags %s%s%s%s", flags & BTRFS_QGROUP_STATUS_FLAG_ON ? "ON" : "OFF",
		   flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE ? "|SIMPLE_MODE" : "",
		   flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN ? "|SCANNING" : "",
		   flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT ? "|INCONSISTENT" : "");
	if (flags & ~BTRFS_QGROUP_STATUS_FLAGS_MASK)
		emit_textf(e, "|UNKNOWN(0x%llx)",
			   (unsigned long long)(flags & ~BTRFS_QGROUP_STATUS_FLAGS_MASK));
	emit_u64(e, "rescan", " scan ", btrfs_qgroup_status_rescan(&st));
	if (it->size >= sizeof(st))
		emit_u64(e, "enable_gen",
			 flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE ? " enable_gen " : NULL,
			 btrfs_qgroup_status_enable_gen(&st));
	emit_eol(e);
}

/* A limit: signed in the text (as btrfs-progs), the unsigned field in JSON. */
static void emit_limit(struct emitter *e, const char *name, const char *label, u64 v)
{
	emit_s64(e, NULL, label, (s64)v);
	emit_u64(e, name, NULL, v);
}

static void emit_qgroup_limit(struct emitter *e, const struct btrfs_qgroup_limit_item *ql)
{
	u64 flags = btrfs_qgroup_limit_flags(ql);

	emit_textf(e, "\t\tflags %llx\n", (unsigned long long)flags);
	emit_flags(e, "flags", NULL, flags, &qgroup_limit_flags_table);
	emit_limit(e, "max_rfer", "\t\tmax_referenced ", btrfs_qgroup_limit_max_rfer(ql));
	emit_limit(e, "max_excl", " max_exclusive ", btrfs_qgroup_limit_max_excl(ql));
	emit_eol(e);
	emit_limit(e, "rsv_rfer", "\t\trsv_referenced ", btrfs_qgroup_limit_rsv_rfer(ql));
	emit_limit(e, "rsv_excl", " rsv_exclusive ", btrfs_qgroup_limit_rsv_excl(ql));
	emit_eol(e);
}

static void emit_balance_args(struct emitter *e, const char *name, const char *what,
			      const struct btrfs_disk_balance_args *a)
{
	u64 flags = btrfs_disk_balance_args_flags(a);

	emit_begin_object(e, name);
	emit_textf(e, "\t\t%s\n", what);
	emit_u64(e, "profiles", "\t\tprofiles ", btrfs_disk_balance_args_profiles(a));
	emit_u64(e, "devid", " devid ", btrfs_disk_balance_args_devid(a));
	emit_u64(e, "target", " target ", btrfs_disk_balance_args_target(a));
	emit_u64(e, NULL, " flags ", flags);
	emit_flags(e, "flags", NULL, flags, &balance_args_flags_table);
	emit_eol(e);
	/* usage is a union with usage_min/usage_max: the text shows the halves */
	emit_u64(e, "usage", NULL, btrfs_disk_balance_args_usage(a));
	emit_u64(e, NULL, "\t\tusage_min ", btrfs_disk_balance_args_usage_min(a));
	emit_u64(e, NULL, " usage_max ", btrfs_disk_balance_args_usage_max(a));
	emit_u64(e, "pstart", " pstart ", btrfs_disk_balance_args_pstart(a));
	emit_u64(e, "pend", " pend ", btrfs_disk_balance_args_pend(a));
	emit_eol(e);
	emit_u64(e, "vstart", "\t\tvstart ", btrfs_disk_balance_args_vstart(a));
	emit_u64(e, "vend", " vend ", btrfs_disk_balance_args_vend(a));
	emit_u64(e, "limit_min", " limit_min ", btrfs_disk_balance_args_limit_min(a));
	emit_u64(e, "limit_max", " limit_max ", btrfs_disk_balance_args_limit_max(a));
	emit_eol(e);
	emit_u64(e, "stripes_min", "\t\tstripes_min ", btrfs_disk_balance_args_stripes_min(a));
	emit_u64(e, "stripes_max", " stripes_max ", btrfs_disk_balance_args_stripes_max(a));
	emit_eol(e);
	emit_end_object(e);
}

/* "<what> item objectid O offset N" of temporary and persistent items (text only). */
static void emit_special_key(struct emitter *e, const struct print_item *it, const char *what)
{
	emit_textf(e, "\t\t%s item objectid ", what);
	emit_objectid(e, NULL, "", it->key.objectid, it->key.type);
	emit_u64(e, NULL, " offset ", it->key.offset);
	emit_eol(e);
}

static void emit_temporary_item(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_balance_item *bi = (const void *)it->data;

	emit_special_key(e, it, "temporary");
	if (it->key.objectid != BTRFS_BALANCE_OBJECTID) {
		emit_textf(e, "\t\tunknown temporary item\n");
		return;
	}
	if (it->size < sizeof(*bi))
		return;
	emit_u64(e, NULL, "\t\tbalance status flags ", btrfs_balance_flags(bi));
	emit_flags(e, "flags", NULL, btrfs_balance_flags(bi), &balance_flags_table);
	emit_eol(e);
	emit_balance_args(e, "data", "DATA", &bi->data);
	emit_balance_args(e, "meta", "METADATA", &bi->meta);
	emit_balance_args(e, "sys", "SYSTEM", &bi->sys);
}

static void emit_persistent_item(struct emitter *e, const struct print_item *it)
{
	static const char *const names[] = {
		"write_errs", "read_errs", "flush_errs", "corruption_errs", "generation",
	};
	const struct btrfs_dev_stats_item *ds = (const void *)it->data;
	char label[24];
	u32 i;

	emit_special_key(e, it, "persistent");
	if (it->key.objectid != BTRFS_DEV_STATS_OBJECTID) {
		emit_textf(e, "\t\tunknown persistent item\n");
		return;
	}
	if (it->size < sizeof(*ds))
		return;
	emit_textf(e, "\t\tdevice stats\n");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(label, sizeof(label), "%s%s ", i ? " " : "\t\t", names[i]);
		emit_u64(e, names[i], label, btrfs_dev_stats_value(ds, (int)i));
	}
	emit_eol(e);
}

static const char *dev_replace_mode_name(u64 mode, char *buf, size_t len)
{
	if (mode == BTRFS_DEV_REPLACE_ITEM_CONT_READING_FROM_SRCDEV_MODE_ALWAYS)
		return "ALWAYS";
	if (mode == BTRFS_DEV_REPLACE_ITEM_CONT_READING_FROM_SRCDEV_MODE_AVOID)
		return "AVOID";
	snprintf(buf, len, "unknown value(%llu)", (unsigned long long)mode);
	return buf;
}

static const char *dev_replace_state_name(u64 state, char *buf, size_t len)
{
	static const char *const names[] = {
		"NEVER_STARTED", "STARTED", "FINISHED", "CANCELED", "SUSPENDED",
	};

	if (state < ARRAY_SIZE(names))
		return names[state];
	snprintf(buf, len, "unknown value(%llu)", (unsigned long long)state);
	return buf;
}

/* "<label><seconds> (YYYY-MM-DD HH:MM:SS)" in local time, as btrfs-progs; a number in JSON. */
static void emit_seconds(struct emitter *e, const char *name, const char *label, u64 secs)
{
	time_t t = (time_t)secs;
	struct tm tm;
	char when[64] = "";

	emit_u64(e, name, label, secs);
	if (emit_is_json(e))
		return;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	emit_textf(e, " (%s)\n", when);
}

/*
 * btrfs-progs 6.19 (print-tree since 6.10):
 *   src devid -1 cursor left N cursor right N mode ALWAYS|AVOID
 *   state NEVER_STARTED|STARTED|FINISHED|CANCELED|SUSPENDED write errors N uncorrectable read errors N
 *   start time N (local time)
 *   stop time N (local time)
 * The source devid is printed signed (-1 once the replace finished).
 */
static void emit_dev_replace(struct emitter *e, const struct btrfs_dev_replace_item *r)
{
	u64 mode = btrfs_dev_replace_cont_reading_from_srcdev_mode(r);
	u64 state = btrfs_dev_replace_replace_state(r);
	char buf[48];

	emit_s64(e, "src_devid", "\t\tsrc devid ", (s64)btrfs_dev_replace_src_devid(r));
	emit_u64(e, "cursor_left", " cursor left ", btrfs_dev_replace_cursor_left(r));
	emit_u64(e, "cursor_right", " cursor right ", btrfs_dev_replace_cursor_right(r));
	emit_named(e, "cont_reading_from_srcdev_mode", " mode ", mode,
		   dev_replace_mode_name(mode, buf, sizeof(buf)));
	emit_eol(e);
	emit_named(e, "replace_state", "\t\tstate ", state,
		   dev_replace_state_name(state, buf, sizeof(buf)));
	emit_u64(e, "num_write_errors", " write errors ", btrfs_dev_replace_num_write_errors(r));
	emit_u64(e, "num_uncorrectable_read_errors", " uncorrectable read errors ",
		 btrfs_dev_replace_num_uncorrectable_read_errors(r));
	emit_eol(e);
	emit_seconds(e, "time_started", "\t\tstart time ", btrfs_dev_replace_time_started(r));
	emit_seconds(e, "time_stopped", "\t\tstop time ", btrfs_dev_replace_time_stopped(r));
}

static void emit_uuid_item(struct emitter *e, const struct print_item *it)
{
	bool legal = it->size % sizeof(u64) == 0;
	u32 off;

	if (!legal)
		emit_textf(e, "btrfs: uuid item with illegal size %u!\n", it->size);
	if (it->size < sizeof(u64))
		return;
	emit_begin_array(e, "subvol_ids");
	for (off = 0; off + sizeof(u64) <= it->size; off += sizeof(u64)) {
		emit_u64(e, "", legal ? "\t\tsubvol_id " : NULL, get_unaligned_le64(it->data + off));
		if (legal)
			emit_eol(e);
	}
	emit_end_array(e);
}

/* The item types whose body is one fixed-size structure, emitted when the item holds it. */
static bool emit_fixed_item(struct emitter *e, const struct print_item *it)
{
	const void *p = it->data;

	switch (it->key.type) {
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (it->size >= sizeof(struct btrfs_extent_data_ref)) {
			emit_textf(e, "\t\t");
			emit_data_ref_body(e, p);
		}
		return true;
	case BTRFS_SHARED_DATA_REF_KEY:
		if (it->size >= sizeof(struct btrfs_shared_data_ref)) {
			emit_u64(e, "count", "\t\tshared data backref count ",
				 btrfs_shared_data_ref_count(p));
			emit_eol(e);
		}
		return true;
	case BTRFS_EXTENT_REF_V0_KEY:
		if (it->size >= sizeof(struct btrfs_extent_ref_v0)) {
			emit_u64(e, NULL, "\t\textent back ref root ", btrfs_ref_root_v0(p));
			emit_u64(e, NULL, " gen ", btrfs_ref_generation_v0(p));
			emit_u64(e, NULL, " owner ", btrfs_ref_objectid_v0(p));
			emit_u64(e, NULL, " num_refs ", btrfs_ref_count_v0(p));
			emit_eol(e);
		}
		return true;
	case BTRFS_EXTENT_OWNER_REF_KEY:
		if (it->size >= sizeof(struct btrfs_extent_owner_ref)) {
			emit_u64(e, NULL, "\t\textent owner root ", btrfs_extent_owner_ref_root_id(p));
			emit_eol(e);
		}
		return true;
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_block_group_item))
			emit_block_group_item(e, p);
		return true;
	case BTRFS_FREE_SPACE_INFO_KEY:
		if (it->size >= sizeof(struct btrfs_free_space_info)) {
			emit_u64(e, "extent_count", "\t\tfree space info extent count ",
				 btrfs_free_space_extent_count(p));
			emit_u64(e, NULL, " flags ", btrfs_free_space_flags(p));
			emit_flags(e, "flags", NULL, btrfs_free_space_flags(p),
				   &free_space_info_flags_table);
			emit_eol(e);
		}
		return true;
	case BTRFS_DEV_EXTENT_KEY:
		if (it->size >= sizeof(struct btrfs_dev_extent))
			emit_dev_extent(e, p);
		return true;
	case BTRFS_DEV_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_dev_item))
			emit_dev_item(e, p);
		return true;
	case BTRFS_CHUNK_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_chunk))
			emit_chunk_item(e, p, it->size);
		return true;
	case BTRFS_QGROUP_INFO_KEY:
		if (it->size >= sizeof(struct btrfs_qgroup_info_item))
			emit_qgroup_info(e, p);
		return true;
	case BTRFS_QGROUP_LIMIT_KEY:
		if (it->size >= sizeof(struct btrfs_qgroup_limit_item))
			emit_qgroup_limit(e, p);
		return true;
	case BTRFS_DEV_REPLACE_KEY:
		if (it->size >= sizeof(struct btrfs_dev_replace_item))
			emit_dev_replace(e, p);
		return true;
	}
	return false;
}

bool emit_extent_family_item(struct emitter *e, const struct print_item *it)
{
	if (emit_fixed_item(e, it))
		return true;
	switch (it->key.type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		emit_extent_item(e, it);
		return true;
	case BTRFS_TREE_BLOCK_REF_KEY:
		emit_textf(e, "\t\ttree block backref\n");
		return true;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		emit_textf(e, "\t\tshared block backref\n");
		return true;
	case BTRFS_EXTENT_CSUM_KEY:
		emit_csum_item(e, it);
		return true;
	case BTRFS_FREE_SPACE_EXTENT_KEY:
		emit_textf(e, "\t\tfree space extent\n");
		return true;
	case BTRFS_FREE_SPACE_BITMAP_KEY:
		emit_textf(e, "\t\tfree space bitmap\n");
		return true;
	case BTRFS_QGROUP_STATUS_KEY:
		emit_qgroup_status(e, it);
		return true;
	case BTRFS_QGROUP_RELATION_KEY:
		return true;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		emit_uuid_item(e, it);
		return true;
	case BTRFS_TEMPORARY_ITEM_KEY:
		emit_temporary_item(e, it);
		return true;
	case BTRFS_PERSISTENT_ITEM_KEY:
		emit_persistent_item(e, it);
		return true;
	case BTRFS_RAID_STRIPE_KEY:
		emit_raid_stripe(e, (const void *)it->data, it->size);
		return true;
	}
	return false;
}

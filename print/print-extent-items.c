// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block printer, allocation and device items: extent and metadata
 * items with their inline back references, keyed back references, data
 * checksums, block groups, the free space tree, chunks, devices and device
 * extents, device stats and replace, qgroups, uuid items, balance and raid
 * stripe extents.
 */
#include <time.h>
#include <stdio.h>
#include <string.h>
#include "print/print-tree-internal.h"
#include "print/emit.h"
#include "lib/format/accessors.h"
#include "crypto/hash.h"
#include "lib/read/tree-checker.h"

static void print_data_ref_body(const struct btrfs_extent_data_ref *dref)
{
	printf("extent data backref root ");
	btrfs_print_objectid(stdout, btrfs_extent_data_ref_root(dref), 0);
	printf(" objectid %llu offset %llu count %u\n",
	       (unsigned long long)btrfs_extent_data_ref_objectid(dref),
	       (unsigned long long)btrfs_extent_data_ref_offset(dref),
	       btrfs_extent_data_ref_count(dref));
}

static void print_extent_item(const struct print_item *it)
{
	const struct btrfs_extent_item *ei = (const void *)it->data;
	const u8 *ptr, *end = it->data + it->size;
	u64 flags;

	if (it->size < sizeof(*ei)) {
		if (it->size >= sizeof(struct btrfs_extent_item_v0))
			printf("\t\trefs %u\n",
			       btrfs_extent_refs_v0((const struct btrfs_extent_item_v0 *)it->data));
		return;
	}
	flags = btrfs_extent_flags(ei);
	printf("\t\trefs %llu gen %llu flags ", (unsigned long long)btrfs_extent_refs(ei),
	       (unsigned long long)btrfs_extent_generation(ei));
	print_flag_names(stdout, flags, &btrfs_extent_flags_table);
	putchar('\n');
	ptr = it->data + sizeof(*ei);
	if ((flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && it->key.type == BTRFS_EXTENT_ITEM_KEY) {
		const struct btrfs_tree_block_info *info = (const void *)ptr;

		if (end - ptr < (long)sizeof(*info))
			return;
		printf("\t\ttree block ");
		btrfs_print_disk_key(stdout, &info->key);
		printf(" level %u\n", btrfs_tree_block_level(info));
		ptr += sizeof(*info);
	} else if (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		printf("\t\ttree block skinny level %llu\n", (unsigned long long)it->key.offset);
	}

	while (end - ptr >= 1) {
		const struct btrfs_extent_inline_ref *iref = (const void *)ptr;
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 size = btrfs_extent_inline_ref_size(type);
		u64 offset;

		if (size == 0) {
			printf("\t\tunknown extent inline ref type %u\n", type);
			return;
		}
		if (end - ptr < (long)size)
			return;
		offset = btrfs_extent_inline_ref_offset(iref);
		switch (type) {
		case BTRFS_TREE_BLOCK_REF_KEY:
			printf("\t\t(%u 0x%llx) tree block backref root ", type, (unsigned long long)offset);
			btrfs_print_objectid(stdout, offset, 0);
			putchar('\n');
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			printf("\t\t(%u 0x%llx) shared block backref parent %llu\n", type,
			       (unsigned long long)offset, (unsigned long long)offset);
			break;
		case BTRFS_EXTENT_DATA_REF_KEY: {
			const struct btrfs_extent_data_ref *dref = (const void *)&iref->offset;

			printf("\t\t(%u 0x%llx) ", type, (unsigned long long)btrfs_extent_data_ref_hash(
				       btrfs_extent_data_ref_root(dref),
				       btrfs_extent_data_ref_objectid(dref),
				       btrfs_extent_data_ref_offset(dref)));
			print_data_ref_body(dref);
			break;
		}
		case BTRFS_SHARED_DATA_REF_KEY: {
			const struct btrfs_shared_data_ref *sref = (const void *)(iref + 1);

			printf("\t\t(%u 0x%llx) shared data backref parent %llu count %u\n", type,
			       (unsigned long long)offset, (unsigned long long)offset,
			       btrfs_shared_data_ref_count(sref));
			break;
		}
		case BTRFS_EXTENT_OWNER_REF_KEY:
			printf("\t\t(%u 0x%llx) extent owner root %llu\n", type,
			       (unsigned long long)offset, (unsigned long long)offset);
			break;
		}
		ptr += size;
	}
}

static void print_csum_item(const struct print_item *it)
{
	const struct btrfs_print_opts *o = it->opts;
	u32 csum_size = o->csum_size ? o->csum_size : 4;
	u32 sectorsize = o->sectorsize ? o->sectorsize : 4096;
	u32 count = it->size / csum_size;
	u64 start = it->key.offset;
	u32 per_line, i;

	printf("\t\trange start %llu end %llu length %llu\n", (unsigned long long)start,
	       (unsigned long long)(start + (u64)count * sectorsize),
	       (unsigned long long)((u64)count * sectorsize));
	if (!o->csum_items || count == 0)
		return;
	per_line = csum_size >= 16 ? 1 : 16 / csum_size;
	for (i = 0; i < count; i++) {
		if (i % per_line == 0)
			fputs("\t\t", stdout);
		else
			putchar(' ');
		printf("[%llu] ", (unsigned long long)(start + (u64)i * sectorsize));
		print_hex_bytes(stdout, it->data + (size_t)i * csum_size, csum_size);
		if (i % per_line == per_line - 1 || i == count - 1)
			putchar('\n');
	}
}

static void print_dev_item(const struct print_item *it)
{
	struct emitter e = emit_text_to(stdout);

	if (it->size < sizeof(struct btrfs_dev_item))
		return;
	emit_dev_item(&e, (const void *)it->data);
}

static void print_chunk(const struct print_item *it)
{
	struct emitter e = emit_text_to(stdout);

	if (it->size < sizeof(struct btrfs_chunk))
		return;
	emit_chunk_item(&e, (const void *)it->data, it->size);
}

static void print_dev_extent(const struct print_item *it)
{
	struct emitter e = emit_text_to(stdout);

	if (it->size < sizeof(struct btrfs_dev_extent))
		return;
	emit_dev_extent(&e, (const void *)it->data);
}

static void print_qgroup_status(const struct print_item *it)
{
	struct btrfs_qgroup_status_item st;
	u64 flags;

	if (it->size < offsetof(struct btrfs_qgroup_status_item, enable_gen))
		return;
	memset(&st, 0, sizeof(st));
	memcpy(&st, it->data, min_t(u32, it->size, sizeof(st)));
	flags = btrfs_qgroup_status_flags(&st);
	printf("\t\tversion %llu generation %llu flags ",
	       (unsigned long long)btrfs_qgroup_status_version(&st),
	       (unsigned long long)btrfs_qgroup_status_generation(&st));
	/*
	 * btrfs-progs' own spelling, not the flag table's: ON or OFF first,
	 * then SIMPLE_MODE, SCANNING (the RESCAN bit), INCONSISTENT, then
	 * UNKNOWN(0x..) for the other bits.
	 */
	fputs(flags & BTRFS_QGROUP_STATUS_FLAG_ON ? "ON" : "OFF", stdout);
	if (flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE)
		fputs("|SIMPLE_MODE", stdout);
	if (flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN)
		fputs("|SCANNING", stdout);
	if (flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT)
		fputs("|INCONSISTENT", stdout);
	if (flags & ~BTRFS_QGROUP_STATUS_FLAGS_MASK)
		printf("|UNKNOWN(0x%llx)", (unsigned long long)(flags & ~BTRFS_QGROUP_STATUS_FLAGS_MASK));
	printf(" scan %llu", (unsigned long long)btrfs_qgroup_status_rescan(&st));
	if ((flags & BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE) && it->size >= sizeof(st))
		printf(" enable_gen %llu", (unsigned long long)btrfs_qgroup_status_enable_gen(&st));
	putchar('\n');
}

static void print_qgroup_info(const struct print_item *it)
{
	struct emitter e = emit_text_to(stdout);

	if (it->size < sizeof(struct btrfs_qgroup_info_item))
		return;
	emit_qgroup_info(&e, (const void *)it->data);
}

static void print_qgroup_limit(const struct print_item *it)
{
	const struct btrfs_qgroup_limit_item *ql = (const void *)it->data;

	if (it->size < sizeof(*ql))
		return;
	printf("\t\tflags %llx\n\t\tmax_referenced %lld max_exclusive %lld\n"
	       "\t\trsv_referenced %lld rsv_exclusive %lld\n",
	       (unsigned long long)btrfs_qgroup_limit_flags(ql),
	       (long long)btrfs_qgroup_limit_max_rfer(ql),
	       (long long)btrfs_qgroup_limit_max_excl(ql),
	       (long long)btrfs_qgroup_limit_rsv_rfer(ql),
	       (long long)btrfs_qgroup_limit_rsv_excl(ql));
}

static void print_balance_args(const char *what, const struct btrfs_disk_balance_args *a)
{
	printf("\t\t%s\n", what);
	printf("\t\tprofiles %llu devid %llu target %llu flags %llu\n",
	       (unsigned long long)btrfs_disk_balance_args_profiles(a),
	       (unsigned long long)btrfs_disk_balance_args_devid(a),
	       (unsigned long long)btrfs_disk_balance_args_target(a),
	       (unsigned long long)btrfs_disk_balance_args_flags(a));
	printf("\t\tusage_min %u usage_max %u pstart %llu pend %llu\n",
	       btrfs_disk_balance_args_usage_min(a), btrfs_disk_balance_args_usage_max(a),
	       (unsigned long long)btrfs_disk_balance_args_pstart(a),
	       (unsigned long long)btrfs_disk_balance_args_pend(a));
	printf("\t\tvstart %llu vend %llu limit_min %u limit_max %u\n",
	       (unsigned long long)btrfs_disk_balance_args_vstart(a),
	       (unsigned long long)btrfs_disk_balance_args_vend(a),
	       btrfs_disk_balance_args_limit_min(a), btrfs_disk_balance_args_limit_max(a));
	printf("\t\tstripes_min %u stripes_max %u\n", btrfs_disk_balance_args_stripes_min(a),
	       btrfs_disk_balance_args_stripes_max(a));
}

static void print_temporary_item(const struct print_item *it)
{
	printf("\t\ttemporary item objectid ");
	btrfs_print_objectid(stdout, it->key.objectid, it->key.type);
	printf(" offset %llu\n", (unsigned long long)it->key.offset);
	if (it->key.objectid == BTRFS_BALANCE_OBJECTID) {
		const struct btrfs_balance_item *bi = (const void *)it->data;

		if (it->size < sizeof(*bi))
			return;
		printf("\t\tbalance status flags %llu\n", (unsigned long long)btrfs_balance_flags(bi));
		print_balance_args("DATA", &bi->data);
		print_balance_args("METADATA", &bi->meta);
		print_balance_args("SYSTEM", &bi->sys);
		return;
	}
	printf("\t\tunknown temporary item\n");
}

static void print_persistent_item(const struct print_item *it)
{
	printf("\t\tpersistent item objectid ");
	btrfs_print_objectid(stdout, it->key.objectid, it->key.type);
	printf(" offset %llu\n", (unsigned long long)it->key.offset);
	if (it->key.objectid == BTRFS_DEV_STATS_OBJECTID) {
		const struct btrfs_dev_stats_item *ds = (const void *)it->data;

		if (it->size < sizeof(*ds))
			return;
		printf("\t\tdevice stats\n");
		printf("\t\twrite_errs %llu read_errs %llu flush_errs %llu corruption_errs %llu generation %llu\n",
		       (unsigned long long)btrfs_dev_stats_value(ds, 0),
		       (unsigned long long)btrfs_dev_stats_value(ds, 1),
		       (unsigned long long)btrfs_dev_stats_value(ds, 2),
		       (unsigned long long)btrfs_dev_stats_value(ds, 3),
		       (unsigned long long)btrfs_dev_stats_value(ds, 4));
		return;
	}
	printf("\t\tunknown persistent item\n");
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

/* "<prefix><seconds> (YYYY-MM-DD HH:MM:SS)" in local time, as btrfs-progs. */
static void print_seconds_local(const char *prefix, u64 secs)
{
	time_t t = (time_t)secs;
	struct tm tm;
	char when[64] = "";

	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s%llu (%s)\n", prefix, (unsigned long long)secs, when);
}

/*
 * btrfs-progs 6.19 (print-tree since 6.10):
 *   src devid -1 cursor left N cursor right N mode ALWAYS|AVOID
 *   state NEVER_STARTED|STARTED|FINISHED|CANCELED|SUSPENDED write errors N uncorrectable read errors N
 *   start time N (local time)
 *   stop time N (local time)
 * The source devid is printed signed (-1 once the replace finished).
 */
static void print_dev_replace(const struct print_item *it)
{
	const struct btrfs_dev_replace_item *r = (const void *)it->data;
	char mode[48], state[48];

	if (it->size < sizeof(*r))
		return;
	printf("\t\tsrc devid %lld cursor left %llu cursor right %llu mode %s\n",
	       (long long)btrfs_dev_replace_src_devid(r),
	       (unsigned long long)btrfs_dev_replace_cursor_left(r),
	       (unsigned long long)btrfs_dev_replace_cursor_right(r),
	       dev_replace_mode_name(btrfs_dev_replace_cont_reading_from_srcdev_mode(r),
				     mode, sizeof(mode)));
	printf("\t\tstate %s write errors %llu uncorrectable read errors %llu\n",
	       dev_replace_state_name(btrfs_dev_replace_replace_state(r), state, sizeof(state)),
	       (unsigned long long)btrfs_dev_replace_num_write_errors(r),
	       (unsigned long long)btrfs_dev_replace_num_uncorrectable_read_errors(r));
	print_seconds_local("\t\tstart time ", btrfs_dev_replace_time_started(r));
	print_seconds_local("\t\tstop time ", btrfs_dev_replace_time_stopped(r));
}

static void print_raid_stripe(const struct print_item *it)
{
	struct emitter e = emit_text_to(stdout);

	emit_raid_stripe(&e, (const void *)it->data, it->size);
}

bool print_extent_family_item(const struct print_item *it)
{
	switch (it->key.type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		print_extent_item(it);
		return true;
	case BTRFS_TREE_BLOCK_REF_KEY:
		printf("\t\ttree block backref\n");
		return true;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		printf("\t\tshared block backref\n");
		return true;
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (it->size >= sizeof(struct btrfs_extent_data_ref)) {
			printf("\t\t");
			print_data_ref_body((const void *)it->data);
		}
		return true;
	case BTRFS_SHARED_DATA_REF_KEY:
		if (it->size >= sizeof(struct btrfs_shared_data_ref))
			printf("\t\tshared data backref count %u\n",
			       btrfs_shared_data_ref_count((const void *)it->data));
		return true;
	case BTRFS_EXTENT_REF_V0_KEY:
		if (it->size >= sizeof(struct btrfs_extent_ref_v0)) {
			const struct btrfs_extent_ref_v0 *r = (const void *)it->data;

			printf("\t\textent back ref root %llu gen %llu owner %llu num_refs %u\n",
			       (unsigned long long)btrfs_ref_root_v0(r),
			       (unsigned long long)btrfs_ref_generation_v0(r),
			       (unsigned long long)btrfs_ref_objectid_v0(r), btrfs_ref_count_v0(r));
		}
		return true;
	case BTRFS_EXTENT_OWNER_REF_KEY:
		if (it->size >= sizeof(struct btrfs_extent_owner_ref))
			printf("\t\textent owner root %llu\n", (unsigned long long)
			       btrfs_extent_owner_ref_root_id((const void *)it->data));
		return true;
	case BTRFS_EXTENT_CSUM_KEY:
		print_csum_item(it);
		return true;
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_block_group_item)) {
			struct emitter e = emit_text_to(stdout);

			emit_block_group_item(&e, (const void *)it->data);
		}
		return true;
	case BTRFS_FREE_SPACE_INFO_KEY:
		if (it->size >= sizeof(struct btrfs_free_space_info)) {
			const struct btrfs_free_space_info *fsi = (const void *)it->data;

			printf("\t\tfree space info extent count %u flags %u\n",
			       btrfs_free_space_extent_count(fsi), btrfs_free_space_flags(fsi));
		}
		return true;
	case BTRFS_FREE_SPACE_EXTENT_KEY:
		printf("\t\tfree space extent\n");
		return true;
	case BTRFS_FREE_SPACE_BITMAP_KEY:
		printf("\t\tfree space bitmap\n");
		return true;
	case BTRFS_DEV_EXTENT_KEY:
		print_dev_extent(it);
		return true;
	case BTRFS_DEV_ITEM_KEY:
		print_dev_item(it);
		return true;
	case BTRFS_CHUNK_ITEM_KEY:
		print_chunk(it);
		return true;
	case BTRFS_QGROUP_STATUS_KEY:
		print_qgroup_status(it);
		return true;
	case BTRFS_QGROUP_INFO_KEY:
		print_qgroup_info(it);
		return true;
	case BTRFS_QGROUP_LIMIT_KEY:
		print_qgroup_limit(it);
		return true;
	case BTRFS_QGROUP_RELATION_KEY:
		return true;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL: {
		u32 off;

		if (it->size % sizeof(u64)) {
			printf("btrfs: uuid item with illegal size %u!\n", it->size);
			return true;
		}
		for (off = 0; off + 8 <= it->size; off += 8)
			printf("\t\tsubvol_id %llu\n",
			       (unsigned long long)get_unaligned_le64(it->data + off));
		return true;
	}
	case BTRFS_TEMPORARY_ITEM_KEY:
		print_temporary_item(it);
		return true;
	case BTRFS_PERSISTENT_ITEM_KEY:
		print_persistent_item(it);
		return true;
	case BTRFS_DEV_REPLACE_KEY:
		print_dev_replace(it);
		return true;
	case BTRFS_RAID_STRIPE_KEY:
		print_raid_stripe(it);
		return true;
	}
	return false;
}

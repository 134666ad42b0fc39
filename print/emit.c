// SPDX-License-Identifier: GPL-2.0
/* Text and JSON back ends of the item emitters (see emit.h). */
#include <stdarg.h>
#include "print/emit.h"
#include "print/print-tree.h"
#include "lib/format/accessors.h"
#include "lib/format/flags-names.h"

void emit_begin_object(struct emitter *e, const char *name)
{
	if (e->json)
		json_begin_object(e->json, name);
}

void emit_end_object(struct emitter *e)
{
	if (e->json)
		json_end_object(e->json);
}

void emit_begin_array(struct emitter *e, const char *name)
{
	if (e->json)
		json_begin_array(e->json, name);
}

void emit_end_array(struct emitter *e)
{
	if (e->json)
		json_end_array(e->json);
}

void emit_u64(struct emitter *e, const char *name, const char *label, u64 v)
{
	if (e->json) {
		if (name)
			json_u64(e->json, name, v);
	} else if (label) {
		fprintf(e->out, "%s%llu", label, (unsigned long long)v);
	}
}

void emit_uuid(struct emitter *e, const char *name, const char *label, const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	if (e->json) {
		if (name)
			json_uuid(e->json, name, uuid);
	} else if (label) {
		btrfs_uuid_to_str(uuid, buf);
		fprintf(e->out, "%s%s", label, buf);
	}
}

void emit_bg_flags(struct emitter *e, const char *name, const char *label, u64 flags)
{
	char buf[64];

	if (e->json) {
		u64 known = btrfs_flag_table_mask(&btrfs_bg_type_table) |
			    btrfs_flag_table_mask(&btrfs_bg_profile_table);
		u64 bit;

		if (!name)
			return;
		/* in bit order: the type bits, the profile bit, then any unknown bits */
		json_begin_array(e->json, name);
		for (bit = 1; bit; bit <<= 1) {
			const char *n;

			if (!(flags & bit & known))
				continue;
			n = btrfs_flag_name(&btrfs_bg_type_table, bit);
			if (!n)
				n = btrfs_flag_name(&btrfs_bg_profile_table, bit);
			json_string(e->json, NULL, n);
		}
		if (flags & ~known) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(flags & ~known));
			json_string(e->json, NULL, hex);
		}
		json_end_array(e->json);
	} else if (label) {
		btrfs_bg_flags_to_str(flags, buf, sizeof(buf));
		fprintf(e->out, "%s%s", label, buf);
	}
}

void emit_disk_key(struct emitter *e, const char *name, const char *label,
		   const struct btrfs_disk_key *key)
{
	if (e->json) {
		if (!name)
			return;
		json_begin_object(e->json, name);
		json_u64(e->json, "objectid", btrfs_disk_key_objectid(key));
		json_u64(e->json, "type", btrfs_disk_key_type(key));
		json_u64(e->json, "offset", btrfs_disk_key_offset(key));
		json_end_object(e->json);
	} else if (label) {
		fputs(label, e->out);
		btrfs_print_disk_key(e->out, key);
	}
}

void emit_eol(struct emitter *e)
{
	if (!e->json)
		fputc('\n', e->out);
}

void emit_textf(struct emitter *e, const char *fmt, ...)
{
	va_list ap;

	if (e->json)
		return;
	va_start(ap, fmt);
	vfprintf(e->out, fmt, ap);
	va_end(ap);
}

/* ---- item types ---- */

void emit_chunk_item(struct emitter *e, const struct btrfs_chunk *c, u32 size)
{
	u32 i, nr = btrfs_chunk_num_stripes(c);
	u32 fit = (size - sizeof(*c)) / sizeof(struct btrfs_stripe);

	emit_u64(e, "length", "\t\tlength ", btrfs_chunk_length(c));
	emit_u64(e, "owner", " owner ", btrfs_chunk_owner(c));
	emit_u64(e, "stripe_len", " stripe_len ", btrfs_chunk_stripe_len(c));
	emit_bg_flags(e, "type", " type ", btrfs_chunk_type(c));
	emit_eol(e);
	emit_u64(e, "io_align", "\t\tio_align ", btrfs_chunk_io_align(c));
	emit_u64(e, "io_width", " io_width ", btrfs_chunk_io_width(c));
	emit_u64(e, "sector_size", " sector_size ", btrfs_chunk_sector_size(c));
	emit_eol(e);
	emit_u64(e, "num_stripes", "\t\tnum_stripes ", nr);
	emit_u64(e, "sub_stripes", " sub_stripes ", btrfs_chunk_sub_stripes(c));
	emit_eol(e);
	/* the stripes that fit in the item */
	emit_begin_array(e, "stripe");
	for (i = 0; i < nr && i < fit; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(c, (int)i);

		emit_begin_object(e, NULL);
		emit_textf(e, "\t\t\tstripe %u", i);
		emit_u64(e, "devid", " devid ", btrfs_stripe_devid(s));
		emit_u64(e, "offset", " offset ", btrfs_stripe_offset(s));
		emit_eol(e);
		emit_uuid(e, "dev_uuid", "\t\t\tdev_uuid ", s->dev_uuid);
		emit_eol(e);
		emit_end_object(e);
	}
	emit_end_array(e);
}

void emit_dev_item(struct emitter *e, const struct btrfs_dev_item *d)
{
	emit_u64(e, "devid", "\t\tdevid ", btrfs_device_id(d));
	emit_u64(e, "total_bytes", " total_bytes ", btrfs_device_total_bytes(d));
	emit_u64(e, "bytes_used", " bytes_used ", btrfs_device_bytes_used(d));
	emit_eol(e);
	emit_u64(e, "io_align", "\t\tio_align ", btrfs_device_io_align(d));
	emit_u64(e, "io_width", " io_width ", btrfs_device_io_width(d));
	emit_u64(e, "sector_size", " sector_size ", btrfs_device_sector_size(d));
	emit_u64(e, "type", " type ", btrfs_device_type(d));
	emit_eol(e);
	emit_u64(e, "generation", "\t\tgeneration ", btrfs_device_generation(d));
	emit_u64(e, "start_offset", " start_offset ", btrfs_device_start_offset(d));
	emit_u64(e, "dev_group", " dev_group ", btrfs_device_group(d));
	emit_eol(e);
	emit_u64(e, "seek_speed", "\t\tseek_speed ", btrfs_device_seek_speed(d));
	emit_u64(e, "bandwidth", " bandwidth ", btrfs_device_bandwidth(d));
	emit_eol(e);
	emit_uuid(e, "uuid", "\t\tuuid ", d->uuid);
	emit_eol(e);
	emit_uuid(e, "fsid", "\t\tfsid ", d->fsid);
	emit_eol(e);
}

void emit_block_group_item(struct emitter *e, const struct btrfs_block_group_item *bg)
{
	emit_u64(e, "used", "\t\tblock group used ", btrfs_block_group_used(bg));
	emit_u64(e, "chunk_objectid", " chunk_objectid ", btrfs_block_group_chunk_objectid(bg));
	emit_bg_flags(e, "flags", " flags ", btrfs_block_group_flags(bg));
	emit_eol(e);
}

void emit_dev_extent(struct emitter *e, const struct btrfs_dev_extent *de)
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

void emit_qgroup_info(struct emitter *e, const struct btrfs_qgroup_info_item *qi)
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

void emit_raid_stripe(struct emitter *e, const struct btrfs_stripe_extent *se, u32 size)
{
	u32 i, nr = size / sizeof(struct btrfs_raid_stride);

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

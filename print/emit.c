// SPDX-License-Identifier: GPL-2.0
/* Text and JSON back ends of the emitters, and the chunk and device item emitters (see emit.h). */
#include <stdarg.h>
#include <time.h>
#include "print/emit.h"
#include "print/print-names.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/flags-names.h"

/*
 * The JSON writer when something is to be written there: a member with a
 * name, or a container.  A pending lazy object is opened first.
 */
static struct json_writer *jw(struct emitter *e, bool write)
{
	if (!e->json || !write)
		return NULL;
	if (e->lazy && !e->lazy_open) {
		json_begin_object(e->json, e->lazy);
		e->lazy_open = true;
	}
	return e->json;
}

void emit_begin_object(struct emitter *e, const char *name)
{
	struct json_writer *w = jw(e, true);

	if (w)
		json_begin_object(w, name);
}

void emit_end_object(struct emitter *e)
{
	if (e->json)
		json_end_object(e->json);
}

void emit_begin_array(struct emitter *e, const char *name)
{
	struct json_writer *w = jw(e, true);

	if (w)
		json_begin_array(w, name);
}

void emit_end_array(struct emitter *e)
{
	if (e->json)
		json_end_array(e->json);
}

void emit_begin_lazy_object(struct emitter *e, const char *name)
{
	e->lazy = name;
	e->lazy_open = false;
}

void emit_end_lazy_object(struct emitter *e)
{
	if (e->lazy_open)
		json_end_object(e->json);
	e->lazy = NULL;
	e->lazy_open = false;
}

/* label then v in decimal, without printf's format parsing (the text hot path) */
static void put_label_u64(FILE *out, const char *label, u64 v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = 0;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fputs_unlocked(label, out);
	fputs_unlocked(p, out);
}

void emit_u64(struct emitter *e, const char *name, const char *label, u64 v)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_u64(w, *name ? name : NULL, v);
	} else if (label) {
		put_label_u64(e->out, label, v);
	}
}

void emit_string(struct emitter *e, const char *name, const char *label, const char *s)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_string(w, name, s);
	} else if (label) {
		fputs_unlocked(label, e->out);
		fputs_unlocked(s, e->out);
	}
}

void emit_s64(struct emitter *e, const char *name, const char *label, s64 v)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_s64(w, name, v);
	} else if (label) {
		fprintf(e->out, "%s%lld", label, (long long)v);
	}
}

void emit_octal(struct emitter *e, const char *name, const char *label, u64 v)
{
	if (e->json)
		emit_u64(e, name, NULL, v);
	else if (label)
		fprintf(e->out, "%s%llo", label, (unsigned long long)v);
}

void emit_named(struct emitter *e, const char *name, const char *label, u64 v, const char *text)
{
	if (e->json) {
		emit_u64(e, name, NULL, v);
	} else if (label) {
		fputs_unlocked(label, e->out);
		fputs_unlocked(text, e->out);
	}
}

void emit_flags(struct emitter *e, const char *name, const char *label, u64 flags,
		const struct btrfs_flag_table *table)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_flags(w, name, flags, table);
	} else if (label) {
		fputs_unlocked(label, e->out);
		print_flag_names(e->out, flags, table);
	}
}

void emit_objectid(struct emitter *e, const char *name, const char *label, u64 objectid, u8 type)
{
	if (e->json) {
		emit_u64(e, name, NULL, objectid);
	} else if (label) {
		fputs_unlocked(label, e->out);
		btrfs_print_objectid(e->out, objectid, type);
	}
}

void emit_hex(struct emitter *e, const char *name, const char *label, const u8 *p, size_t len)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_hex(w, *name ? name : NULL, p, len);
	} else if (label) {
		fputs_unlocked(label, e->out);
		print_hex_bytes(e->out, p, len);
	}
}

void emit_name(struct emitter *e, const char *name, const char *label, const u8 *s, size_t len)
{
	if (e->json) {
		struct json_writer *w = jw(e, name && !e->hide_names);

		if (w)
			json_string_len(w, name, s, len);
	} else if (label) {
		fputs_unlocked(label, e->out);
		if (e->hide_names)
			fputs_unlocked("HIDDEN", e->out);
		else
			print_escaped(e->out, s, len);
	}
}

void emit_time(struct emitter *e, const char *name, const char *label,
	       const struct btrfs_timespec *ts)
{
	u64 sec = btrfs_timespec_sec(ts);
	u32 nsec = btrfs_timespec_nsec(ts);

	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (!w)
			return;
		json_begin_object(w, name);
		json_u64(w, "sec", sec);
		json_u64(w, "nsec", nsec);
		json_end_object(w);
	} else if (label) {
		time_t t = (time_t)sec;
		struct tm tm;
		char buf[64];

		if (localtime_r(&t, &tm))
			strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		else
			buf[0] = 0;
		fprintf(e->out, "%s%llu.%u (%s)", label, (unsigned long long)sec, nsec, buf);
	}
}

void emit_uuid(struct emitter *e, const char *name, const char *label, const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	if (e->json) {
		struct json_writer *w = jw(e, name);

		if (w)
			json_uuid(w, name, uuid);
	} else if (label) {
		btrfs_uuid_to_str(uuid, buf);
		fputs_unlocked(label, e->out);
		fputs_unlocked(buf, e->out);
	}
}

void emit_bg_flags(struct emitter *e, const char *name, const char *label, u64 flags)
{
	char buf[64];

	if (e->json) {
		struct json_writer *w = jw(e, name);
		u64 known = btrfs_flag_table_mask(&btrfs_bg_type_table) |
			    btrfs_flag_table_mask(&btrfs_bg_profile_table);
		u64 bit;

		if (!w)
			return;
		/* in bit order: the type bits, the profile bit, then any unknown bits */
		json_begin_array(w, name);
		for (bit = 1; bit; bit <<= 1) {
			const char *n;

			if (!(flags & bit & known))
				continue;
			n = btrfs_flag_name(&btrfs_bg_type_table, bit);
			if (!n)
				n = btrfs_flag_name(&btrfs_bg_profile_table, bit);
			json_string(w, NULL, n);
		}
		if (flags & ~known) {
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(flags & ~known));
			json_string(w, NULL, hex);
		}
		json_end_array(w);
	} else if (label) {
		btrfs_bg_flags_to_str(flags, buf, sizeof(buf));
		fputs_unlocked(label, e->out);
		fputs_unlocked(buf, e->out);
	}
}

void emit_disk_key(struct emitter *e, const char *name, const char *label,
		   const struct btrfs_disk_key *key)
{
	if (e->json) {
		struct json_writer *w = jw(e, name);
		const char *type_name;
		char unknown[16];

		if (!w)
			return;
		json_begin_object(w, name);
		json_u64(w, "objectid", btrfs_disk_key_objectid(key));
		json_u64(w, "type", btrfs_disk_key_type(key));
		type_name = btrfs_key_type_name(btrfs_disk_key_type(key));
		if (!type_name) {
			snprintf(unknown, sizeof(unknown), "UNKNOWN.%u", btrfs_disk_key_type(key));
			type_name = unknown;
		}
		json_string(w, "type_name", type_name);
		json_u64(w, "offset", btrfs_disk_key_offset(key));
		json_end_object(w);
	} else if (label) {
		fputs_unlocked(label, e->out);
		btrfs_print_disk_key(e->out, key);
	}
}

void emit_eol(struct emitter *e)
{
	if (!e->json)
		fputc_unlocked('\n', e->out);
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

/* ---- item types dump-super shares with dump-tree (emit.h) ---- */

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

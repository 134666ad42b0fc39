/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One description per item type, two outputs.  An emitter writes either
 * btrfs-progs' text (to a FILE) or JSON (through a json_writer); an item
 * type is described once as a sequence of fields, each with its JSON member
 * name and its text label:
 *
 *   emit_u64(e, "length", "\t\tlength ", btrfs_chunk_length(c));
 *   emit_u64(e, "owner", " owner ", btrfs_chunk_owner(c));
 *   emit_eol(e);
 *
 * The text back end prints the label then the value (decimal); the JSON
 * back end writes the member.  A NULL name makes a field text-only, a NULL
 * label JSON-only; an empty name ("") writes an array element (emit_u64(),
 * emit_hex()).  Objects and arrays exist only in JSON; text-only pieces
 * (line ends, indices) are written with emit_eol() and emit_textf().  Where
 * the text and JSON spell one member differently (a number in text, names
 * in JSON), the emitter writes it twice, once with each half NULL.
 *
 * A lazy object (emit_begin_lazy_object()) is opened in JSON only when its
 * first member is written: an item's "data" exists only when its emitter
 * decoded something.
 */
#ifndef BTRFS_KIT_PRINT_EMIT_H
#define BTRFS_KIT_PRINT_EMIT_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "common/json-writer.h"

struct btrfs_flag_table;
struct btrfs_timespec;

struct emitter {
	FILE *out;                 /* text back end */
	struct json_writer *json;  /* JSON back end when not NULL */
	bool hide_names;           /* names as HIDDEN in text, left out of JSON */
	const char *lazy;          /* a lazy object not yet opened */
	bool lazy_open;            /* the lazy object was opened */
};

static inline struct emitter emit_text_to(FILE *out)
{
	return (struct emitter){ .out = out };
}

static inline struct emitter emit_json_to(struct json_writer *w)
{
	return (struct emitter){ .json = w };
}

static inline bool emit_is_json(const struct emitter *e)
{
	return e->json != NULL;
}

void emit_begin_object(struct emitter *e, const char *name);
void emit_end_object(struct emitter *e);
void emit_begin_array(struct emitter *e, const char *name);
void emit_end_array(struct emitter *e);

void emit_begin_lazy_object(struct emitter *e, const char *name);
void emit_end_lazy_object(struct emitter *e);

void emit_u64(struct emitter *e, const char *name, const char *label, u64 v);
/* label, then s; a string in JSON */
void emit_string(struct emitter *e, const char *name, const char *label, const char *s);
void emit_s64(struct emitter *e, const char *name, const char *label, s64 v);
/* label, then the value in octal in text (a mode); a number in JSON */
void emit_octal(struct emitter *e, const char *name, const char *label, u64 v);
/* label, then text; v as a number in JSON (a type printed by name) */
void emit_named(struct emitter *e, const char *name, const char *label, u64 v, const char *text);
/* label, then the names of the set bits joined by '|' ("none"); JSON: json_flags() */
void emit_flags(struct emitter *e, const char *name, const char *label, u64 flags,
		const struct btrfs_flag_table *table);
/* label, then the objectid as dump-tree names it (btrfs_print_objectid); a number in JSON */
void emit_objectid(struct emitter *e, const char *name, const char *label, u64 objectid, u8 type);
/* label, then "0x" and the bytes in hex (at most 64 in text) */
void emit_hex(struct emitter *e, const char *name, const char *label, const u8 *p, size_t len);
/* label, then a name escaped as dump-tree prints it (HIDDEN with hide_names) */
void emit_name(struct emitter *e, const char *name, const char *label, const u8 *s, size_t len);
/* label, then "SEC.NSEC (YYYY-MM-DD HH:MM:SS)" in local time; {sec, nsec} in JSON */
void emit_time(struct emitter *e, const char *name, const char *label,
	       const struct btrfs_timespec *ts);
/* label, then the UUID in its 36-character form */
void emit_uuid(struct emitter *e, const char *name, const char *label, const u8 *uuid);
/*
 * label, then "TYPE|PROFILE" in text; in JSON an array of the names of the
 * set bits and, when unknown bits are set, their hex value ("0x...").
 */
void emit_bg_flags(struct emitter *e, const char *name, const char *label, u64 flags);
/* label, then "(OBJECTID TYPE OFFSET)" with names in text; numbers in JSON */
void emit_disk_key(struct emitter *e, const char *name, const char *label,
		   const struct btrfs_disk_key *key);

void emit_eol(struct emitter *e);
__attribute__((format(printf, 2, 3)))
void emit_textf(struct emitter *e, const char *fmt, ...);

/*
 * ---- item types dump-super shares with dump-tree ----
 * (the other item emitters are print/print-fs-items.c and
 * print-extent-items.c, reached through print-tree.c's block emitter)
 */

/*
 * A chunk item of size bytes (at least sizeof(struct btrfs_chunk)), in the
 * chunk tree or the superblock's sys_chunk_array.  Text, as btrfs-progs:
 *
 *		length L owner O stripe_len S type SYSTEM|DUP
 *		io_align A io_width W sector_size S
 *		num_stripes N sub_stripes M
 *			stripe 0 devid D offset P
 *			dev_uuid U
 *
 * Only the stripes that fit in size are written.
 */
void emit_chunk_item(struct emitter *e, const struct btrfs_chunk *c, u32 size);
/* A device item (in the chunk tree or the superblock). */
void emit_dev_item(struct emitter *e, const struct btrfs_dev_item *d);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON emitter: objects, arrays, strings (escaped, always
 * valid UTF-8 on output), unsigned/signed integers, booleans and null,
 * pretty-printed with two-space indentation.  No allocation, no global
 * state: one struct json_writer per document.
 *
 *   struct json_writer w;
 *   json_init(&w, stdout);
 *   json_begin_object(&w, NULL);            // top level: key NULL
 *   json_u64(&w, "generation", gen);
 *   json_begin_array(&w, "flags");
 *   json_string(&w, NULL, "WRITTEN");       // inside arrays: key NULL
 *   json_end_array(&w);
 *   json_end_object(&w);
 *   ret = json_finish(&w);                  // newline; -EINVAL if unbalanced
 *
 * Inside an object every value needs a key; inside an array none.
 * Misuse (a key where none belongs, too deep, unbalanced) is recorded and
 * reported by json_finish() rather than aborting.
 */
#ifndef BTRFS_KIT_JSON_WRITER_H
#define BTRFS_KIT_JSON_WRITER_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;                       /* open containers */
	bool in_array[JSON_MAX_DEPTH];   /* container kind per level */
	bool has_items[JSON_MAX_DEPTH];  /* a comma is needed before the next value */
	bool done;                       /* a complete top-level value was written */
	int err;                         /* first misuse, negative errno */
};

void json_init(struct json_writer *w, FILE *out);
void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *s);
/* Bytes that need not be NUL terminated; invalid UTF-8 bytes become \u00XX. */
void json_string_len(struct json_writer *w, const char *key, const void *s, size_t len);
void json_u64(struct json_writer *w, const char *key, u64 v);
void json_s64(struct json_writer *w, const char *key, s64 v);
void json_bool(struct json_writer *w, const char *key, bool v);
void json_null(struct json_writer *w, const char *key);
/* "0x..." lower-case hex of raw bytes, as a string. */
void json_hex(struct json_writer *w, const char *key, const u8 *p, size_t len);
/*
 * A flag set as an array of the names in t; bits without a name add one
 * "0x..." string with all of them.
 */
struct btrfs_flag_table;
void json_flags(struct json_writer *w, const char *key, u64 flags, const struct btrfs_flag_table *t);
/* A uuid as its canonical lower-case text. */
void json_uuid(struct json_writer *w, const char *key, const u8 *uuid);
/* End the document: newline; 0, or -EINVAL after misuse / unbalanced containers. */
int json_finish(struct json_writer *w);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON emitter, see json-writer.h. */
#include "common/json-writer.h"
#include "kernel-shared/format/flags-names.h"

void json_init(struct json_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

static void indent(struct json_writer *w)
{
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_seq_len(const u8 *s, size_t left)
{
	size_t n;
	u32 cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

static void put_string(FILE *out, const u8 *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		u8 c = s[i];
		size_t n;

		switch (c) {
		case '"': fputs("\\\"", out); i++; continue;
		case '\\': fputs("\\\\", out); i++; continue;
		case '\n': fputs("\\n", out); i++; continue;
		case '\t': fputs("\\t", out); i++; continue;
		case '\r': fputs("\\r", out); i++; continue;
		case '\b': fputs("\\b", out); i++; continue;
		case '\f': fputs("\\f", out); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_seq_len(s + i, len - i);
		if (!n) {
			/* Not UTF-8: keep the byte value as a Latin-1 code point. */
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(s + i, 1, n, out);
		i += n;
	}
	fputc('"', out);
}

/* Separator, indentation and key before a value; false on misuse. */
static bool begin_value(struct json_writer *w, const char *key)
{
	if (w->err)
		return false;
	if (w->depth == 0) {
		if (w->done || key) {
			w->err = -EINVAL;
			return false;
		}
		return true;
	}
	if (w->in_array[w->depth - 1] == (key != NULL)) {
		w->err = -EINVAL;
		return false;
	}
	if (w->has_items[w->depth - 1])
		fputc(',', w->out);
	w->has_items[w->depth - 1] = true;
	indent(w);
	if (key) {
		put_string(w->out, (const u8 *)key, strlen(key));
		fputs(": ", w->out);
	}
	return true;
}

static void end_value(struct json_writer *w)
{
	if (w->depth == 0)
		w->done = true;
}

static void begin_container(struct json_writer *w, const char *key, bool array)
{
	if (!begin_value(w, key))
		return;
	if (w->depth >= JSON_MAX_DEPTH) {
		w->err = -EINVAL;
		return;
	}
	fputc(array ? '[' : '{', w->out);
	w->in_array[w->depth] = array;
	w->has_items[w->depth] = false;
	w->depth++;
}

static void end_container(struct json_writer *w, bool array)
{
	bool had;

	if (w->err)
		return;
	if (w->depth == 0 || w->in_array[w->depth - 1] != array) {
		w->err = -EINVAL;
		return;
	}
	had = w->has_items[w->depth - 1];
	w->depth--;
	if (had)
		indent(w);
	fputc(array ? ']' : '}', w->out);
	end_value(w);
}

void json_begin_object(struct json_writer *w, const char *key)
{
	begin_container(w, key, false);
}

void json_end_object(struct json_writer *w)
{
	end_container(w, false);
}

void json_begin_array(struct json_writer *w, const char *key)
{
	begin_container(w, key, true);
}

void json_end_array(struct json_writer *w)
{
	end_container(w, true);
}

void json_string_len(struct json_writer *w, const char *key, const void *s, size_t len)
{
	if (!begin_value(w, key))
		return;
	put_string(w->out, s, len);
	end_value(w);
}

void json_string(struct json_writer *w, const char *key, const char *s)
{
	json_string_len(w, key, s, strlen(s));
}

void json_u64(struct json_writer *w, const char *key, u64 v)
{
	if (!begin_value(w, key))
		return;
	fprintf(w->out, "%llu", (unsigned long long)v);
	end_value(w);
}

void json_s64(struct json_writer *w, const char *key, s64 v)
{
	if (!begin_value(w, key))
		return;
	fprintf(w->out, "%lld", (long long)v);
	end_value(w);
}

void json_bool(struct json_writer *w, const char *key, bool v)
{
	if (!begin_value(w, key))
		return;
	fputs(v ? "true" : "false", w->out);
	end_value(w);
}

void json_null(struct json_writer *w, const char *key)
{
	if (!begin_value(w, key))
		return;
	fputs("null", w->out);
	end_value(w);
}

void json_hex(struct json_writer *w, const char *key, const u8 *p, size_t len)
{
	if (!begin_value(w, key))
		return;
	fputs("\"0x", w->out);
	for (size_t i = 0; i < len; i++)
		fprintf(w->out, "%02x", p[i]);
	fputc('"', w->out);
	end_value(w);
}

void json_flags(struct json_writer *w, const char *key, u64 flags, const struct btrfs_flag_table *t)
{
	u64 unknown = flags & ~btrfs_flag_table_mask(t);
	char buf[24];

	json_begin_array(w, key);
	for (size_t i = 0; i < t->nr; i++)
		if (flags & t->names[i].bit)
			json_string(w, NULL, t->names[i].name);
	if (unknown) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)unknown);
		json_string(w, NULL, buf);
	}
	json_end_array(w);
}

void json_uuid(struct json_writer *w, const char *key, const u8 *uuid)
{
	static const char hex[] = "0123456789abcdef";
	char buf[37];
	int n = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[n++] = '-';
		buf[n++] = hex[uuid[i] >> 4];
		buf[n++] = hex[uuid[i] & 15];
	}
	json_string_len(w, key, buf, (size_t)n);
}

int json_finish(struct json_writer *w)
{
	if (!w->err && (w->depth || !w->done))
		w->err = -EINVAL;
	fputc('\n', w->out);
	return w->err;
}

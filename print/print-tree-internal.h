/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the print-tree*.c files only: one leaf item being printed
 * and the small formatting helpers every item family uses.
 */
#ifndef BTRFS_KIT_PRINT_TREE_INTERNAL_H
#define BTRFS_KIT_PRINT_TREE_INTERNAL_H

#include <stdio.h>
#include "print/print-tree.h"
#include "lib/format/flags-names.h"

/* One item of a leaf: its key and its bytes, already checked to be inside the block. */
struct print_item {
	const struct btrfs_print_opts *opts;
	const struct extent_buffer *eb;
	int slot;
	struct btrfs_key key;
	const u8 *data;       /* item data */
	u32 size;             /* item size */
};

/* Names of the set bits joined by '|', "none" when flags is 0 (tables in flags-names.h). */
void print_flag_names(FILE *out, u64 flags, const struct btrfs_flag_table *table);
/* A name as dump-tree prints it: escaped, or HIDDEN with --hide-names. */
void print_escaped(FILE *out, const u8 *s, size_t len);
void print_name(const struct print_item *it, const u8 *s, size_t len);
/* "%llu.%u (YYYY-MM-DD HH:MM:SS)" of a struct btrfs_timespec (local time). */
void print_timespec(FILE *out, const char *label, const struct btrfs_timespec *ts);
/* "<label> <uuid>\n" (label carries its indentation). */
void print_uuid_line(const char *label, const u8 *uuid);
/* "0x" and the bytes in hex. */
void print_hex_bytes(FILE *out, const u8 *p, size_t len);

/* Item families: each returns true when it printed the item's type. */
bool print_fs_item(const struct print_item *it);
bool print_extent_family_item(const struct print_item *it);

#endif

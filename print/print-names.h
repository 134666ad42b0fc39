/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names dump-tree prints: objectids, key types, keys, block group
 * profiles, uuids, flag sets and escaped names, as btrfs-progs spells them.
 * print-tree.h passes them on to its users.
 */
#ifndef BTRFS_KIT_PRINT_NAMES_H
#define BTRFS_KIT_PRINT_NAMES_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/flags-names.h"
#include "kernel-shared/read/ctree.h"

/* "EXTENT_TREE", "DEV_ITEMS", "256", "0x00ab..." as dump-tree prints objectids. */
void btrfs_print_objectid(FILE *out, u64 objectid, u8 type);
/* "INODE_ITEM", "UNKNOWN.77". */
void btrfs_print_key_type(FILE *out, u8 type);
/* "key (OBJECTID TYPE OFFSET)" without newline. */
void btrfs_print_disk_key(FILE *out, const struct btrfs_disk_key *key);
void btrfs_print_key(FILE *out, const struct btrfs_key *key);

/* Block group / chunk type string, e.g. "DATA|METADATA|single" (buf >= 64). */
void btrfs_bg_flags_to_str(u64 flags, char *buf, size_t len);
/* Lower-case uuid text (buf >= BTRFS_UUID_UNPARSED_SIZE). */
void btrfs_uuid_to_str(const u8 *uuid, char *buf);

/* Names of the set bits joined by '|', "none" when flags is 0 (tables in flags-names.h). */
void print_flag_names(FILE *out, u64 flags, const struct btrfs_flag_table *table);
/* A name as dump-tree prints it: whitespace, backslash and non-printable bytes escaped. */
void print_escaped(FILE *out, const u8 *s, size_t len);
/* "0x" and the bytes in hex (at most 64). */
void print_hex_bytes(FILE *out, const u8 *p, size_t len);

#endif

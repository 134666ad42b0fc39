// SPDX-License-Identifier: GPL-2.0
/* The names dump-tree prints (print-names.h). */
#include <stdio.h>
#include <string.h>
#include "print/print-names.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/profiles.h"

/* ---- Small formatting helpers ------------------------------------------ */

void print_flag_names(FILE *out, u64 flags, const struct btrfs_flag_table *table)
{
	const struct btrfs_flag_name *names = table->names;
	size_t nr = table->nr;
	bool first = true;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!(flags & names[i].bit))
			continue;
		if (!first)
			fputc('|', out);
		fputs(names[i].name, out);
		first = false;
	}
	if (first)
		fputs("none", out);
}

void print_hex_bytes(FILE *out, const u8 *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char buf[2 + 2 * 64 + 1];
	size_t i, n = 0;

	buf[n++] = '0';
	buf[n++] = 'x';
	for (i = 0; i < len && i < 64; i++) {
		buf[n++] = hex[p[i] >> 4];
		buf[n++] = hex[p[i] & 15];
	}
	buf[n] = 0;
	fputs(buf, out);
}

void btrfs_uuid_to_str(const u8 *uuid, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int i, n = 0;

	for (i = 0; i < BTRFS_UUID_SIZE; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[n++] = '-';
		buf[n++] = hex[uuid[i] >> 4];
		buf[n++] = hex[uuid[i] & 15];
	}
	buf[n] = 0;
}

/*
 * Names are printed with whitespace, backslash and non-printable bytes
 * escaped: "\ " for a space, "\\" for a backslash, C escapes for the usual
 * control characters and three octal digits for anything else.
 */
void print_escaped(FILE *out, const u8 *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		u8 c = s[i];

		switch (c) {
		case '\a': fputs("\\a", out); break;
		case '\b': fputs("\\b", out); break;
		case '\t': fputs("\\t", out); break;
		case '\n': fputs("\\n", out); break;
		case '\v': fputs("\\v", out); break;
		case '\f': fputs("\\f", out); break;
		case '\r': fputs("\\r", out); break;
		case ' ': fputs("\\ ", out); break;
		case '\\': fputs("\\\\", out); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
}

/* ---- Objectids, key types, keys ----------------------------------------- */

void btrfs_print_objectid(FILE *out, u64 objectid, u8 type)
{
	const char *name = NULL;

	switch (type) {
	case BTRFS_DEV_EXTENT_KEY:
		fprintf(out, "%llu", (unsigned long long)objectid);
		return;
	case BTRFS_QGROUP_RELATION_KEY:
		fprintf(out, "%llu/%llu", (unsigned long long)(objectid >> BTRFS_QGROUP_LEVEL_SHIFT),
			(unsigned long long)(objectid & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1)));
		return;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		fprintf(out, "0x%016llx", (unsigned long long)objectid);
		return;
	case BTRFS_PERSISTENT_ITEM_KEY:
		if (objectid == BTRFS_DEV_STATS_OBJECTID) {
			fputs("DEV_STATS", out);
			return;
		}
		break;
	}

	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:
		name = type == BTRFS_DEV_ITEM_KEY ? "DEV_ITEMS" : "ROOT_TREE";
		break;
	case BTRFS_EXTENT_TREE_OBJECTID: name = "EXTENT_TREE"; break;
	case BTRFS_CHUNK_TREE_OBJECTID: name = "CHUNK_TREE"; break;
	case BTRFS_DEV_TREE_OBJECTID: name = "DEV_TREE"; break;
	case BTRFS_FS_TREE_OBJECTID: name = "FS_TREE"; break;
	case BTRFS_ROOT_TREE_DIR_OBJECTID: name = "ROOT_TREE_DIR"; break;
	case BTRFS_CSUM_TREE_OBJECTID: name = "CSUM_TREE"; break;
	case BTRFS_QUOTA_TREE_OBJECTID: name = "QUOTA_TREE"; break;
	case BTRFS_UUID_TREE_OBJECTID: name = "UUID_TREE"; break;
	case BTRFS_FREE_SPACE_TREE_OBJECTID: name = "FREE_SPACE_TREE"; break;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID: name = "BLOCK_GROUP_TREE"; break;
	case BTRFS_RAID_STRIPE_TREE_OBJECTID: name = "RAID_STRIPE_TREE"; break;
	case BTRFS_BALANCE_OBJECTID: name = "BALANCE"; break;
	case BTRFS_ORPHAN_OBJECTID: name = "ORPHAN"; break;
	case BTRFS_TREE_LOG_OBJECTID: name = "TREE_LOG"; break;
	case BTRFS_TREE_LOG_FIXUP_OBJECTID: name = "LOG_FIXUP"; break;
	case BTRFS_TREE_RELOC_OBJECTID: name = "TREE_RELOC"; break;
	case BTRFS_DATA_RELOC_TREE_OBJECTID: name = "DATA_RELOC_TREE"; break;
	case BTRFS_EXTENT_CSUM_OBJECTID: name = "EXTENT_CSUM"; break;
	case BTRFS_FREE_SPACE_OBJECTID: name = "FREE_SPACE"; break;
	case BTRFS_FREE_INO_OBJECTID: name = "FREE_INO"; break;
	case BTRFS_CSUM_CHANGE_OBJECTID: name = "CSUM_CHANGE"; break;
	case BTRFS_MULTIPLE_OBJECTIDS: name = "MULTIPLE"; break;
	case (u64)-1: name = "-1"; break;
	case BTRFS_FIRST_CHUNK_TREE_OBJECTID:
		if (type == BTRFS_CHUNK_ITEM_KEY)
			name = "FIRST_CHUNK_TREE";
		break;
	}
	if (name)
		fputs(name, out);
	else
		fprintf(out, "%llu", (unsigned long long)objectid);
}

void btrfs_print_key_type(FILE *out, u8 type)
{
	const char *name = btrfs_key_type_name(type);

	if (name)
		fputs(name, out);
	else
		fprintf(out, "UNKNOWN.%u", type);
}

void btrfs_print_key(FILE *out, const struct btrfs_key *key)
{
	u64 off = key->offset;

	fputs("key (", out);
	btrfs_print_objectid(out, key->objectid, key->type);
	fputc(' ', out);
	/* the free space cache (v1) headers: btrfs-progs names their type 0 so */
	if (key->type == 0 && key->objectid == BTRFS_FREE_SPACE_OBJECTID)
		fputs("UNTYPED", out);
	else
		btrfs_print_key_type(out, key->type);
	switch (key->type) {
	case BTRFS_QGROUP_RELATION_KEY:
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		fprintf(out, " %llu/%llu)", (unsigned long long)(off >> BTRFS_QGROUP_LEVEL_SHIFT),
			(unsigned long long)(off & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1)));
		break;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		fprintf(out, " 0x%016llx)", (unsigned long long)off);
		break;
	case BTRFS_ROOT_ITEM_KEY:
		if (key->objectid == BTRFS_TREE_RELOC_OBJECTID) {
			fputc(' ', out);
			btrfs_print_objectid(out, off, 0);
			fputc(')', out);
			break;
		}
		fprintf(out, " %llu)", (unsigned long long)off);
		break;
	default:
		if (off == (u64)-1)
			fputs(" -1)", out);
		else
			fprintf(out, " %llu)", (unsigned long long)off);
	}
}

void btrfs_print_disk_key(FILE *out, const struct btrfs_disk_key *dk)
{
	struct btrfs_key key = {
		.objectid = btrfs_disk_key_objectid(dk),
		.type = btrfs_disk_key_type(dk),
		.offset = btrfs_disk_key_offset(dk),
	};

	btrfs_print_key(out, &key);
}

/* ---- Block group profile strings ----------------------------------------- */

void btrfs_bg_flags_to_str(u64 flags, char *buf, size_t len)
{
	const struct btrfs_raid_profile *p;
	const char *type, *profile;

	switch (flags & BTRFS_BLOCK_GROUP_TYPE_MASK) {
	case BTRFS_BLOCK_GROUP_DATA: type = "DATA"; break;
	case BTRFS_BLOCK_GROUP_METADATA: type = "METADATA"; break;
	case BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA: type = "DATA|METADATA"; break;
	case BTRFS_BLOCK_GROUP_SYSTEM: type = "SYSTEM"; break;
	default: type = "UNKNOWN"; break;
	}
	p = btrfs_raid_profile_find(flags);
	profile = p ? p->upper : "UNKNOWN";
	snprintf(buf, len, "%s|%s", type, profile);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dump-super's output of one superblock copy: btrfs-progs' text, or one
 * JSON object.
 */
#ifndef BTRFS_KIT_PRINT_SUPER_H
#define BTRFS_KIT_PRINT_SUPER_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/flags-names.h"
#include "common/json-writer.h"

/*
 * Every field of sb in dump-super's layout; full adds sys_chunk_array and
 * the backup roots.  Problems in sys_chunk_array are reported on stderr
 * and printing goes on with the next section.
 */
void btrfs_print_superblock(FILE *out, const struct btrfs_super_block *sb, bool full);
/*
 * The same with the authentication key key[0..keylen) (NULL: none; btrfs
 * --auth-key): a keyed type's csum line is verified with the key, and the
 * auth_key_check line says whether the key is the filesystem's ("[match]
 * (right key)" or "[DON'T MATCH] (wrong key for this filesystem)"); with a
 * wrong key the csum line says [WRONG KEY] where it would say [NO KEY].
 * Plain types print as btrfs_print_superblock().
 */
void btrfs_print_superblock_key(FILE *out, const struct btrfs_super_block *sb, bool full,
				const u8 *key, size_t keylen);

/*
 * The copy at bytenr of device as one JSON object: member names as in
 * struct btrfs_super_block ("__unused_" dropped), plus the checks
 * (csum_match, magic_match, dev_item.fsid_match); full adds
 * sys_chunk_array and super_roots.
 */
void btrfs_print_superblock_json(struct json_writer *w, const char *device, u64 bytenr,
				 const struct btrfs_super_block *sb, bool full);

/*
 * dump-super's flag list under a "name\t\t0x..." line:
 * "\t\t\t( A |\n\t\t\t  B |\n\t\t\t  unknown flag: 0x... )\n"; nothing for 0.
 */
void btrfs_print_readable_flags(FILE *out, u64 flags, const struct btrfs_flag_table *t);

#endif

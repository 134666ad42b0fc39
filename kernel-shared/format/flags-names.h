/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of on-disk flag bits as btrfs-progs prints them, in its order:
 * superblock flags, incompat/compat_ro features, header flags, block group
 * type and profile bits, inode, root, extent and qgroup status flags.
 * Shared by dump-super, dump-tree and the JSON output.
 */
#ifndef BTRFS_KIT_FLAGS_NAMES_H
#define BTRFS_KIT_FLAGS_NAMES_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"

struct btrfs_flag_name {
	u64 bit;
	const char *name;
};

struct btrfs_flag_table {
	const struct btrfs_flag_name *names;
	size_t nr;
};

extern const struct btrfs_flag_table btrfs_super_flags_table;      /* WRITTEN, RELOC, ... */
extern const struct btrfs_flag_table btrfs_incompat_flags_table;   /* MIXED_BACKREF, ... */
extern const struct btrfs_flag_table btrfs_compat_ro_flags_table;  /* FREE_SPACE_TREE, ... */
extern const struct btrfs_flag_table btrfs_header_flags_table;     /* WRITTEN, RELOC */
extern const struct btrfs_flag_table btrfs_bg_type_table;          /* DATA, SYSTEM, METADATA */
extern const struct btrfs_flag_table btrfs_bg_profile_table;       /* RAID0, RAID1, DUP, ... */
extern const struct btrfs_flag_table btrfs_inode_flags_table;      /* NODATASUM, ... */
extern const struct btrfs_flag_table btrfs_root_flags_table;       /* RDONLY, DEAD */
extern const struct btrfs_flag_table btrfs_extent_flags_table;     /* DATA, TREE_BLOCK, FULL_BACKREF */
extern const struct btrfs_flag_table btrfs_qgroup_status_flags_table; /* ON, RESCAN, INCONSISTENT, SIMPLE_MODE */

/* Name of a key type as dump-tree prints it ("INODE_ITEM"), NULL if it has none. */
const char *btrfs_key_type_name(u8 type);

/* All bits that have a name in the table. */
u64 btrfs_flag_table_mask(const struct btrfs_flag_table *t);
/* Name of exactly one bit, NULL if it has none. */
const char *btrfs_flag_name(const struct btrfs_flag_table *t, u64 bit);

#endif

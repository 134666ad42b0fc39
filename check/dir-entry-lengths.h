/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name and data lengths of the entries of a DIR_ITEM, DIR_INDEX or
 * XATTR_ITEM whose own lengths are damaged (check --repair's leaf mend).
 *
 * An item is a run of entries, each a struct btrfs_dir_item followed by
 * name_len name bytes and data_len data bytes, filling the item exactly.
 * The lengths the tree-checker allows: name 1..255 bytes; no data in a
 * directory entry; name and data within BTRFS_MAX_XATTR_SIZE in an xattr;
 * one entry in a DIR_INDEX.  In a DIR_ITEM and an XATTR_ITEM every name
 * hashes to the key's offset, which pins a name's length; a DIR_INDEX has
 * no hash and its one entry fills the item.
 *
 * When the lengths as written do not fill the item by those rules (a name
 * that hashes elsewhere is not judged here), one entry with other lengths
 * may: every entry and every pair of lengths that fits (for a hashed item:
 * whose name hashes to the key) is tried, the others kept as written.  The
 * fix is taken only when exactly one exists.
 */
#ifndef BTRFS_KIT_CHECK_DIR_ENTRY_LENGTHS_H
#define BTRFS_KIT_CHECK_DIR_ENTRY_LENGTHS_H

#include "kernel-shared/format/kerncompat.h"

struct dir_entry_fix {
	u32 offset;        /* of the entry's struct btrfs_dir_item in the item */
	u16 name_len;
	u16 data_len;
};

/*
 * For the item of key type and offset (p, size bytes) in a filesystem of
 * nodesize: 0 when its lengths are right as written; 1 with *fix set when
 * one entry's lengths, changed, make it right and no other change does;
 * -1 when none or several do.
 */
int dir_entry_lengths_fix(u8 type, u64 offset, const u8 *p, u32 size, u32 nodesize,
			  struct dir_entry_fix *fix);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixes pass 5 (check/fs-roots.c) queues with check_fixable(), applied
 * by check_repair() through the transaction engine (check/repair-fs-roots.c).
 * Each takes a private copy of one of the structs below.
 *
 * Order matters and is the order queued: absolute settings first (an inode
 * field set to what its items account, a recreated inode item), then the
 * name fixes, which adjust the numbers they change by a delta (an entry
 * added or deleted moves its directory's isize by the name length, an inode
 * ref added raises nlink by one).
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_FS_ROOTS_H
#define BTRFS_KIT_CHECK_REPAIR_FS_ROOTS_H

#include "check/context.h"
#include "kernel-shared/format/format.h"

/* The 64-bit name hash pass 5 matches names by (FNV-1a, seeded with the length). */
static inline u64 check_name_hash64(const u8 *p, u32 len)
{
	u64 h = 0xcbf29ce484222325ULL ^ len;

	for (u32 i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

enum repair_inode_field { REPAIR_INODE_NLINK, REPAIR_INODE_SIZE, REPAIR_INODE_NBYTES, REPAIR_INODE_MODE,
			  REPAIR_INODE_FLAGS, REPAIR_INODE_GENERATION, REPAIR_INODE_TRANSID };

/* Set one field of inode ino's item in tree root. */
struct repair_set_inode {
	u64 root, ino;
	enum repair_inode_field field;
	u64 value;
};
int repair_set_inode_field(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/* One field of a file extent item: the item (ino EXTENT_DATA offset) of root. */
enum repair_file_extent_field {
	REPAIR_FILE_EXTENT_NUM_BYTES,
	REPAIR_FILE_EXTENT_RAM_BYTES,
	REPAIR_FILE_EXTENT_OTHER_ENCODING,
	REPAIR_FILE_EXTENT_GENERATION,
	REPAIR_FILE_EXTENT_TYPE,
};
struct repair_file_extent {
	u64 root, ino, offset;
	enum repair_file_extent_field field;
	u64 value;
};
int repair_set_file_extent_field(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * The file extent items of (root, ino) that point at data extent bytenr
 * with disk_num_bytes bad: set to good, the extent item's length.  Only an
 * uncompressed item whose ram_bytes is good too (a second witness); another
 * is an error (the repair then writes nothing).
 */
struct repair_file_extent_disk_len {
	u64 root, ino, bytenr;
	u64 bad, good;
};
int repair_set_file_extent_disk_len(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/* A new inode item for an inode whose other items exist. */
struct repair_new_inode {
	u64 root, ino;
	u32 mode, nlink;
	u64 size, nbytes;
};
int repair_recreate_inode(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/* Hole file extents for the ranges of a file no extent covers (no NO_HOLES). */
struct repair_holes {
	u64 root, ino;
	u32 nr;
	struct check_range hole[];
};
int repair_insert_holes(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * One name: a directory entry (key_type DIR_ITEM or DIR_INDEX, in dir,
 * pointing to ino) or an inode ref (INODE_REF, of ino, in dir).
 */
struct repair_name {
	u64 root, dir, ino;
	u64 index;          /* DIR_INDEX key offset; the inode ref's index */
	u8 key_type;
	u8 ftype;           /* BTRFS_FT_* of a directory entry */
	bool subvol;        /* an entry naming subvolume ino (location (ino, ROOT_ITEM, -1)) */
	u16 name_len;
	char name[BTRFS_NAME_LEN];
};
/* Add the entry (dir isize += name_len). */
int repair_add_entry(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* Remove the entry named name pointing to ino (dir isize -= name_len). */
int repair_del_entry(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* Give the entry named name pointing to ino the file type ftype. */
int repair_set_entry_type(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* Add the inode ref (nlink += 1). */
int repair_add_ref(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * An inode ref whose name neither entry has, while its directory's
 * DIR_INDEX at its index and the DIR_ITEM agree on another name for the
 * inode: the ref (from) takes the entries' name (to), nlink unchanged.
 * Also a ref whose directory has neither entry while another directory's
 * both name the inode by its name and index: the ref moves to to->dir.
 * Also the top directory's own ref (256 in 256) made index 0 name "..".
 */
struct repair_ref_rename {
	struct repair_name from, to;
};
int repair_rename_ref(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * An inode with nlink > 0 but no name anything proves: linked into
 * lost+found (made in the tree's top directory when missing) under its
 * inode number, nlink 1, as btrfs-progs does.
 */
struct repair_lost_inode {
	u64 root, ino;
	u8 ftype;
};
int repair_link_lost_found(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * A second entry with the name of another in the same directory (two inodes
 * under one name: lookups find only one): the entry of n->ino, its DIR_ITEM,
 * DIR_INDEX and inode ref, renamed to "NAME.INO" (the first entry keeps the
 * name).  The same inode named twice: the second DIR_ITEM entry dropped.
 */
int repair_rename_dup_entry(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/* An orphan item for an inode without names and nlink 0 (the kernel deletes it at mount). */
struct repair_orphan {
	u64 root, ino;
};
int repair_add_orphan(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);

/*
 * Read the full name of a directory entry (key (dir, key_type, key_offset),
 * the entry pointing to n->ino whose name has n->name_len bytes and hash
 * nhash) or of an inode ref of n->ino in n->dir with index n->index, from
 * the committed tree, into n->name.  0, -ENOENT, or a read error.
 */
int repair_read_entry_name(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			u64 key_offset, u64 nhash, struct repair_name *n);
int repair_read_ref_name(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree, u64 nhash,
		      struct repair_name *n);

#endif

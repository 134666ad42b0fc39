/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The leaf mend's own state and helpers (check/leaf-mend*.c only): the
 * leaf as it is rebuilt, the message every change prints, and the lookups
 * the mends share.  check/leaf-mend.c holds the order of the steps and
 * dispatches each item by its kind; leaf-mend-layout.c mends the header
 * and the item array, leaf-mend-keys.c keys, leaf-mend-inodes.c inode
 * items, leaf-mend-file-extents.c file extents, leaf-mend-dir-items.c
 * directory entries and xattrs, leaf-mend-inode-refs.c inode refs,
 * leaf-mend-system.c the chunk tree's and block group items,
 * leaf-mend-extents.c extent items, leaf-mend-roots.c root items and root
 * refs; leaf-mend-common.c what they share.  Calls go one way:
 * leaf-mend.c -> layout -> keys -> the item kinds -> common.
 */
#ifndef BTRFS_KIT_CHECK_LEAF_MEND_INTERNAL_H
#define BTRFS_KIT_CHECK_LEAF_MEND_INTERNAL_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"

/* One item of the leaf as it will be rebuilt. */
struct item_plan {
	bool deleted;
	struct btrfs_key key;
	const u8 *data;            /* inside the leaf being mended, or own */
	u8 *own;                   /* data made for the rebuilt leaf, freed after */
	u32 size;
};

/* The leaf being mended. */
struct mend {
	struct btrfs_fs_info *fs;
	struct extent_buffer *eb;  /* private copy, changed in place */
	u64 tree;                  /* tree whose walk found it */
	u64 limit;                 /* superblock generation: nothing may be newer */
	const struct btrfs_key *bound;  /* every key below it; NULL: not known */
	struct item_plan *plan;    /* one per slot, then items added */
	size_t plan_nr;
	size_t plan_alloc;
	bool rebuild;              /* some item is deleted, changed in size or added */
	bool close_gaps;           /* step 1 moves item data over gaps (see mend_close_gaps()) */
	bool quiet;                /* a trial: nothing printed */
	unsigned int changes;      /* changes said (in a trial too) */
	unsigned int item_changes; /* of them, to items' contents (after the item array's) */
};

/* Print one change (slot -1: the leaf's) and count it, in a trial too. */
/* "(objectid type offset)" of k, in buf. */
void mend_key_fmt(char *buf, size_t len, const struct btrfs_key *k);
void mend_say(struct mend *m, int slot, const char *fmt, ...) __printf(3, 4);
/* The item at want by mode, in the mended leaves or the tree m->tree (committed). */
bool mend_find_item(struct mend *m, const struct btrfs_key *want, enum btrfs_search_mode mode,
		    struct btrfs_path *path, const struct extent_buffer **eb, int *slot);
/* Is the leaf its tree's root block? */
bool mend_leaf_is_root(const struct mend *m);
/* A copy of the block at bytenr whose checksum and header verify (any tree-checker verdict), or NULL. */
struct extent_buffer *mend_good_block(struct btrfs_fs_info *fs, u64 bytenr);
/* The header of that block in *hdr, or false. */
bool mend_block_header(struct btrfs_fs_info *fs, u64 bytenr, struct btrfs_header *hdr);
/* A generation for tree block bytenr: its header's, or the limit when that is newer too. */
u64 mend_tree_block_generation(struct mend *m, u64 bytenr);
/* An extent tree record the extents pass rebuilds from the trees that use the extent? */
bool mend_is_rebuilt_record(u8 type);
/* Does the csum tree hold a checksum for the data sector at bytenr? */
bool mend_has_csum(struct mend *m, u64 bytenr);
/* The refs of the INODE_REF at slot of eb named name, the first one's index in *index (may be NULL). */
int mend_refs_named(const struct extent_buffer *eb, int slot, const char *name, u32 len, u64 *index);
/* Lay the items out again from m->plan, in key order: 0, or -EUCLEAN (said), -ENOMEM. */
int mend_rebuild_leaf(struct mend *m);
/* Free m->plan and the data its items own. */
void mend_plan_free(struct mend *m);
/* The leaf rebuilt without item slot. */
int mend_drop_slot(struct mend *m, int slot);

/* leaf-mend-layout.c */
int mend_leaf_header(struct mend *m);
int mend_layout(struct mend *m);
int mend_close_gaps(struct mend *m);
bool mend_layout_has_gap(const struct extent_buffer *eb);

/* leaf-mend-keys.c */
void mend_fixed_objectid(struct mend *m, int slot);
void mend_key_objectid(struct mend *m, int first, int last);
bool mend_key_offset(struct mend *m, int slot);
void mend_key_type(struct mend *m, int first, int last);

/* leaf-mend-inodes.c */
void mend_inode(struct mend *m, int slot, u64 ino, struct btrfs_inode_item *ii);

/* leaf-mend-file-extents.c */
void mend_file_extent(struct mend *m, int slot, struct btrfs_file_extent_item *fi, u32 size);

/* leaf-mend-dir-items.c */
void mend_entry_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size);
void mend_entry_type(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size);
int mend_dir_item(struct mend *m, int slot, const struct btrfs_key *key, const u8 *p, u32 size);

/* leaf-mend-inode-refs.c */
void mend_inode_ref_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size);

/* leaf-mend-system.c */
bool mend_chunk_key_offset_told(struct mend *m, int slot, const struct btrfs_key *key, u64 *off);
void mend_block_group(struct mend *m, int slot, const struct btrfs_key *key, struct btrfs_block_group_item *bg);
void mend_dev_extent(struct mend *m, int slot, const struct btrfs_key *key, struct btrfs_dev_extent *de);
void mend_dev_item(struct mend *m, int slot, const struct btrfs_key *key, struct btrfs_dev_item *di);
void mend_chunk(struct mend *m, int slot, struct btrfs_chunk *c, u32 size);
void mend_chunk_length(struct mend *m);

/* leaf-mend-extents.c */
void mend_extent_item(struct mend *m, int slot, const struct btrfs_key *key, struct btrfs_extent_item *ei,
		      u32 size);

/* leaf-mend-roots.c */
int mend_root_item(struct mend *m, int slot, u64 objectid, struct btrfs_root_item *ri, u32 size);
int mend_add_global_roots(struct mend *m);
void mend_root_ref_length(struct mend *m, int slot, u8 *p, u32 size);

#endif

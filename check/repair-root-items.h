/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check --repair, before the passes: a root item (of a subvolume, the data
 * relocation tree or a global tree but the extent tree) whose root block
 * does not read at the bytenr, level and generation the item states, owned
 * by the tree.  The root block is the
 * one the extent tree names: the tree block of the highest level with a
 * TREE_BLOCK_REF back reference to the tree (inline or keyed), alone at
 * that level, which then reads in full (checksum, header, tree-checker)
 * owned by the tree.  The item gets its bytenr, level and generation (and
 * generation_v2 when it had the old generation) from that block; with no
 * such block, or two at the top level, it is left as is and the repair
 * refuses.  (Debian's btrfs check --repair mends the root items of
 * subvolumes the same way, from the extent tree's back references.)  check/leaf-mend.c mends
 * the root tree leaf, check/repair-leaves.c serves and writes it.
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_ROOT_ITEMS_H
#define BTRFS_KIT_CHECK_REPAIR_ROOT_ITEMS_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"

/* A tree whose root item may be mended so: not the extent tree, no reloc or log tree. */
bool check_root_item_mendable(u64 objectid);

/* Does the root block of tree objectid read (quietly) at what root item ri states, owned by it? */
bool check_root_block_reads(struct btrfs_fs_info *fs, u64 objectid, const struct btrfs_root_item *ri);

/*
 * A root tree leaf with a root item whose generation is 0 or beyond the
 * superblock's, or a mendable one whose root block does not read, or one
 * of a tree that is no subvolume at another key offset than 0, or a leaf
 * lacking a global tree's root item that it spans
 * (check_leaf_spans_root_item()) and check_global_root_told() tells.
 */
bool check_leaf_has_stale_root(struct btrfs_fs_info *fs, const struct extent_buffer *eb);

/*
 * Is tree objectid's root item keyed at offset 0?  The kernel looks a tree
 * that is no subvolume up there (not so with extent tree v2).
 */
bool check_root_item_at_zero(const struct btrfs_super_block *sb, u64 objectid);

/*
 * The root of tree objectid (root, chunk, extent, fs, dev or csum tree) as
 * the backup root of the superblock's own commit names it: false when none
 * does.
 */
bool check_commit_backup_root(const struct btrfs_super_block *sb, u64 objectid, struct btrfs_tree_ref *out);

/*
 * The trees every filesystem has whose missing root item can be told:
 * extent, fs, dev, csum (by the commit's backup root) and the data
 * relocation tree (the kernel does not mount without it; by the extent
 * tree).
 */
extern const u64 check_global_root_ids[5];

/*
 * Does the root tree leaf eb span the key of tree objectid's root item (a
 * key below it and one above it, or only one below in the root tree's last
 * leaf; or the root tree's root leaf), so that a missing item would be
 * there?  (The leaf mend also holds the key below the leaf's bound.)
 */
bool check_leaf_spans_root_item(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 objectid);

/*
 * The root of tree objectid (one of check_global_root_ids) whose root item
 * is missing: for extent, fs, dev and csum the commit's backup root, for the
 * data relocation tree its one top block by the extent tree's back
 * references, a leaf; when that block reads as the tree's root.  false
 * when not told.
 */
bool check_global_root_told(struct btrfs_fs_info *fs, u64 objectid, struct btrfs_tree_ref *out);

/* The root block of a tree found by the extent tree. */
struct check_found_root {
	u64 bytenr;
	u8 level;
	u64 generation;           /* its header's; its extent item's when that is newer or 0 */
};

/*
 * The verified root block of tree objectid by the extent tree's back
 * references (the extent tree at extent_root, NULL: the root tree's):
 * 0 with *out, -ENOENT (none, or none that reads as the tree's) or
 * -EUCLEAN (two or more at the top level) with the reason in why, or
 * another negative errno (the extent tree cannot be read).
 */
int check_find_root_block(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *extent_root,
			  u64 objectid, struct check_found_root *out, char *why, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check --repair, before the passes: leaves whose checksum and header are
 * good but which fail the tree-checker, mended in memory when the fault is
 * one we can undo safely:
 *   - an item offset/size that breaks the packing: recomputed from its
 *     neighbours;
 *   - item entries exchanged whole, their data in key order: put back in
 *     key order;
 *   - a generation beyond the superblock's (leaf header, inode item, root
 *     item, extent item): set from what the filesystem says (the block's own
 *     header for root and tree block extent items, the inode's transid) or
 *     clamped to the superblock's generation;
 *   - a DIR_ITEM or XATTR_ITEM entry whose name does not hash to its key:
 *     moved to the key of its hash when the name can be trusted (the
 *     inode's INODE_REF names it; the root tree's "default"; a printable
 *     xattr name), else dropped (the fs roots repair can re-add a directory
 *     entry from the inode ref; until then the repair refuses);
 *   - a directory or xattr entry's name_len or data_len that does not fill
 *     its item: the one change that does (check/dir-entry-lengths.h), its
 *     name confirmed by the key's hash or, in a DIR_INDEX, by the inode's
 *     ref; a directory entry item that cannot be so mended is removed (as
 *     above, the fs roots repair re-adds what the other two prove);
 *   - a directory entry's file type beyond the known ones: its inode's (a
 *     subvolume's: a directory);
 *   - a key type that breaks the key order between two items of one
 *     objectid, or that the tree does not have (kernel-shared/format/tree-key-types.h;
 *     such a leaf is mended even when it passes the tree-checker): the one
 *     type that keeps the order and makes the leaf pass the tree-checker;
 *   - a DEV_EXTENT's chunk_tree or chunk_objectid: each has one valid value;
 *   - a root item whose root block is another tree's (its owner) and reads
 *     as that tree's root, which has no root item: the key's objectid set to
 *     the owner;
 *   - a root item (not the extent tree's) whose root block does not read at
 *     its bytenr, level and generation (owned by the tree): all three from the
 *     extent tree (repair-root-items.h); this leaf of the root tree is
 *     mended even when it passes the tree-checker.
 * (check/leaf-mend.c mends one leaf; this part finds them and writes them.)
 * A mended leaf must pass the tree-checker in full; it is then served by
 * the read path in place of the disk's (btrfs_override_tree_block()), so the
 * passes check the mended filesystem, and check_repair() copies it on write
 * (check_salvage_write()) in its one transaction.  Leaves that cannot be
 * mended are left as they are: the passes report them, the repair refuses.
 */
#ifndef BTRFS_KIT_CHECK_REPAIR_LEAVES_H
#define BTRFS_KIT_CHECK_REPAIR_LEAVES_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"

struct check_salvage;
struct btrfs_trans;

/*
 * Walk every tree (root, chunk, then each ROOT_ITEM's but log and reloc
 * trees), mend the leaves that can be and install them; prints each leaf's
 * tree-checker verdict and every change.  *out (free with
 * check_salvage_free) lists the mended leaves and the trees reaching them;
 * one check_salvage_chunk_root() made at open is added to.
 * 0, or -ENOMEM.
 */
int check_salvage_leaves(struct btrfs_fs_info *fs, struct check_salvage **out);

/*
 * The open's hook (btrfs_open_args.mend_chunk_root; arg: a struct
 * check_salvage **, NULL at first): the chunk tree's root block as the
 * superblock names it, when its header alone is wrong (check_mend_header()),
 * mended and installed so that the open goes on, and kept for the repair
 * to write.  Said as an error: a check without --repair counts it
 * (check_salvage_count()).  1 mended, 0 not, -ENOMEM.
 */
int check_salvage_chunk_root(struct btrfs_fs_info *fs, const char *why, void *arg);

/* Number of leaves mended (s may be NULL). */
size_t check_salvage_count(const struct check_salvage *s);

/* Was the leaf at bytenr mended (s may be NULL)?  Its copies on disk are the old bytes. */
bool check_salvaged(const struct check_salvage *s, u64 bytenr);

/*
 * In t: copy every mended leaf on write in each tree that reaches it, so
 * the commit writes the mended bytes.  0 or a negative errno (printed).
 */
int check_salvage_write(const struct check_salvage *s, struct btrfs_trans *t);

void check_salvage_free(struct check_salvage *s);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The btrfs check modes that run instead of the eight passes, or before
 * them, as btrfs-progs' options do:
 *   --clear-space-cache v1|v2   check_clear_space_cache()   check/clear-space-cache.c
 *   --init-csum-tree            check_init_csum_tree()      check/init-csum-tree.c
 *   -E|--subvol-extents ID      check_subvol_extents()      check/subvol-extents.c
 * Each writes through the transaction engine (one transaction, committed
 * or, on any error, dropped: the filesystem stays as it was) and returns 0
 * on success, 1 after an error it printed.
 */
#ifndef BTRFS_KIT_CHECK_EXTRA_H
#define BTRFS_KIT_CHECK_EXTRA_H

#include "check/context.h"

int check_clear_space_cache(struct check_ctx *ctx, int version);
/* --repair: the deprecated inode cache of subvolume *(u64 *)arg deleted (a check_fixable() fix). */
struct btrfs_trans;
int check_fix_inode_cache(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/*
 * --repair moves blocks, so space cache v1 files no longer describe the free
 * space: each cache header's generation is set to 0, which no inode
 * generation matches, and the kernel and btrfs check then ignore the cache
 * (the kernel rebuilds it).  Nothing to do with a free space tree.
 */
int check_stale_v1_caches(struct check_ctx *ctx, struct btrfs_trans *t);
int check_init_csum_tree(struct check_ctx *ctx);
/*
 * --init-csum-tree --repair: the verdict of the new tree's commit
 * (btrfs_trans_set_verdict(), arg the check_ctx, check/repair.c).  The new
 * generation is checked in memory as --repair would; with an error no
 * repair mends, nothing is written (-EUCLEAN, printed).
 */
struct btrfs_trans;
int check_init_csum_verdict(struct btrfs_trans *t, void *arg);
int check_subvol_extents(struct check_ctx *ctx, u64 subvol);

/*
 * One use of a tree block or data extent by a subvolume, as found walking
 * the subvolume's tree (shared blocks included): for the quota groups pass
 * and the subvolume extents report.
 */
struct check_use {
	u64 bytenr, len, root;
};
struct check_uses {
	struct check_use *use;
	size_t use_nr, use_alloc;
};
/* Append every block of subvolume tree root (tree) and every data extent its leaves reference. */
int check_collect_uses(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree, u64 root,
		       struct check_uses *u);
/* Sort by bytenr, then root. */
void check_sort_uses(struct check_uses *u);

/*
 * Call fn for every live subvolume tree (FS_TREE and 256.., ROOT_ITEM with
 * references left: one being deleted is skipped), in root tree order; fn
 * returns 0 to go on, < 0 to stop with that error.
 */
typedef int (*check_subvol_fn)(struct check_ctx *ctx, const struct btrfs_tree_ref *tree, void *arg);
int check_for_each_subvol(struct check_ctx *ctx, check_subvol_fn fn, void *arg);

#endif

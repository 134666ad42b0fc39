// SPDX-License-Identifier: GPL-2.0
/*
 * --repair, through the transaction engine (kernel-shared/transaction.h):
 * the old generation stays valid until the new superblock is written.
 *
 * What is repaired so far: a free space tree that disagrees with the extent
 * tree is rebuilt from it.  When any other pass found errors nothing is
 * written: those repairs are not implemented, and rebuilding the free space
 * tree from a damaged extent tree would make things worse.
 */
#include <stdio.h>
#include "check/check.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"
#include "kernel-shared/transaction.h"

static const char *const pass_names[8] = {
	"log", "root items", "extents", "free space", "fs roots", "csums", "root refs",
	"quota groups",
};

int check_repair(struct check_ctx *ctx)
{
	struct btrfs_trans *t;
	int i, ret;

	for (i = 0; i < 8; i++) {
		if (i == 3 || !ctx->pass_errors[i])
			continue;
		error("repair of the %llu error(s) found checking %s is not implemented; nothing was written",
		      ctx->pass_errors[i], pass_names[i]);
		return 1;
	}
	if (!ctx->pass_errors[3])
		return 0;
	if (!(btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs)) &
	      BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		error("free space cache (v1) errors: clear it with the kernel (mount -o clear_cache); nothing was written");
		return 1;
	}
	printf("Rebuilding the free space tree from the extent tree\n");
	fflush(stdout);
	ret = btrfs_start_transaction(ctx->fs, &t);
	if (ret < 0) {
		error("cannot start a transaction: %s", strerror(-ret));
		return 1;
	}
	btrfs_trans_set_lenient(t, true);
	btrfs_trans_rebuild_free_space_tree(t);
	ret = btrfs_commit_transaction(t);
	if (ret < 0) {
		error("repair failed, the filesystem is as it was: %s", strerror(-ret));
		return 1;
	}
	printf("Free space tree rebuilt\n");
	return CHECK_REPAIRED;
}

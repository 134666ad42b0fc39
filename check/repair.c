// SPDX-License-Identifier: GPL-2.0
/*
 * --repair, through the transaction engine (lib/engine/transaction.h):
 * the old generation stays valid until the new superblock is written.
 *
 * The passes queue a fix for each problem they can mend (check_fixable(),
 * see check.h); here they are applied in one transaction, in the order
 * queued, and only when every error found has its fix: a filesystem with
 * any problem we cannot mend is left untouched.  A free space tree that
 * disagrees with the extent tree is rebuilt from it at commit (after the
 * extent fixes, so from the repaired extent tree).
 *
 * Nothing reaches the devices before the commit's verdict (the engine's
 * btrfs_trans_set_verdict(): every block computed, none written): a
 * refusal, a failing fix or --dry-run leaves every byte as it was.  Fixes
 * that write themselves (a bad mirror overwritten by its good copy) run
 * only after the commit succeeded.
 */
#include <stdio.h>
#include <time.h>
#include "check/check.h"
#include "check/extents.h"
#include "check/repair-leaves.h"
#include "lib/format/accessors.h"
#include "lib/format/messages.h"
#include "lib/engine/transaction.h"
#include "check/repair-qgroups.h"

static const char *const pass_names[8] = {
	"log", "root items", "extents", "free space", "fs roots", "csums", "root refs",
	"quota groups",
};

/* Every error of pass i has a fix queued (free space tree errors: the rebuild). */
static bool pass_repairable(struct check_ctx *ctx, int i, bool fst)
{
	if (i == 3 && fst)
		return true;
	return ctx->pass_errors[i] <= ctx->pass_fixable[i];
}

/* The commit's verdict: its blocks are computed, none written yet. */
struct repair_commit {
	bool dry_run;
	bool progress;
	struct timespec t0;     /* start of the phase running */
	u64 blocks;             /* tree blocks the commit writes */
};

static int repair_verdict(struct btrfs_trans *t, void *arg)
{
	struct repair_commit *c = arg;

	c->blocks = btrfs_trans_dirty_blocks(t);
	if (c->progress) {
		check_progress_done(&c->t0, c->blocks, "tree blocks computed");
		if (!c->dry_run)
			fprintf(stderr, "[repair 3/3] writing transaction %llu\n",
				(unsigned long long)btrfs_trans_transid(t));
		clock_gettime(CLOCK_MONOTONIC, &c->t0);
	}
	if (!c->dry_run)
		return 0;
	printf("dry run: transaction %llu computed (%llu tree blocks), not written\n",
	       (unsigned long long)btrfs_trans_transid(t), (unsigned long long)c->blocks);
	return -ECANCELED;
}

int check_repair(struct check_ctx *ctx)
{
	bool fst = btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs)) &
		   BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE;
	struct repair_commit commit = { .dry_run = ctx->opts->dry_run,
					.progress = check_progress_on(ctx) };
	struct btrfs_trans *t;
	size_t f;
	int i, ret;

	for (i = 0; i < 8; i++) {
		if (pass_repairable(ctx, i, fst))
			continue;
		if (i == 3)
			error("free space cache (v1) errors: clear it with --clear-space-cache v1 or the kernel (mount -o clear_cache); nothing was written");
		else
			error("repair of %llu of the %llu error(s) found checking %s is not implemented; nothing was written",
			      ctx->pass_errors[i] - ctx->pass_fixable[i], ctx->pass_errors[i],
			      pass_names[i]);
		return 1;
	}
	if (!ctx->fixes_nr && !ctx->pass_errors[3] && !check_salvage_count(ctx->salvage) &&
	    !ctx->repair_super_dev_items)
		return 0;
	ret = btrfs_start_transaction(ctx->fs, &t);
	if (ret < 0) {
		error("cannot start a transaction: %s", strerror(-ret));
		return 1;
	}
	btrfs_trans_set_lenient(t, true);
	if (commit.progress) {
		fprintf(stderr, "[repair 1/3] applying %zu fixes\n", ctx->fixes_nr);
		clock_gettime(CLOCK_MONOTONIC, &commit.t0);
	}
	ret = check_salvage_write(ctx->salvage, t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("writing the mended leaves failed (%s): nothing was written", strerror(-ret));
		return 1;
	}
	ret = check_repair_extents_prepare(ctx, t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("repair of extents failed (%s): nothing was written", strerror(-ret));
		return 1;
	}
	for (f = 0; f < ctx->fixes_nr; f++) {
		if (!ctx->fixes[f].fn || ctx->fixes[f].after_commit)
			continue;
		ret = ctx->fixes[f].fn(ctx, t, ctx->fixes[f].arg);
		if (ret < 0) {
			btrfs_abort_transaction(t);
			error("repair of %s failed (%s): nothing was written",
			      pass_names[ctx->fixes[f].pass], strerror(-ret));
			return 1;
		}
	}
	/* quotas follow the tree blocks the fixes changed; the status keeps the generation */
	ret = repair_qgroup_update_status(t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("repair of quota groups failed (%s): nothing was written", strerror(-ret));
		return 1;
	}
	/* the commit writes them: each superblock gets its device's item of the chunk tree */
	if (ctx->repair_super_dev_items)
		printf("Rewriting the superblocks' device items from the chunk tree\n");
	if (ctx->pass_errors[3] || ctx->repair_rebuild_fst) {
		printf("Rebuilding the free space tree from the extent tree\n");
		btrfs_trans_rebuild_free_space_tree(t);
	}
	fflush(stdout);
	if (commit.progress) {
		check_progress_done(&commit.t0, ctx->fixes_nr, "fixes applied");
		fprintf(stderr, "[repair 2/3] computing the commit\n");
		clock_gettime(CLOCK_MONOTONIC, &commit.t0);
	}
	btrfs_trans_set_verdict(t, repair_verdict, &commit);
	ret = btrfs_commit_transaction(t);
	if (ret == 0 && commit.progress)
		check_progress_done(&commit.t0, commit.blocks, "tree blocks written");
	if (ret == -ECANCELED && ctx->opts->dry_run) {
		printf("dry run: nothing written\n");
		return 0;
	}
	if (ret < 0) {
		error("repair failed, the filesystem is as it was: %s", strerror(-ret));
		return 1;
	}
	printf("Repair committed, transaction %llu\n", (unsigned long long)btrfs_super_generation(btrfs_fs_super(ctx->fs)));
	for (f = 0; f < ctx->fixes_nr; f++) {
		if (!ctx->fixes[f].fn || !ctx->fixes[f].after_commit)
			continue;
		ret = ctx->fixes[f].fn(ctx, NULL, ctx->fixes[f].arg);
		if (ret < 0) {
			error("repair of %s after the commit failed (%s)",
			      pass_names[ctx->fixes[f].pass], strerror(-ret));
			return 1;
		}
	}
	return CHECK_REPAIRED;
}

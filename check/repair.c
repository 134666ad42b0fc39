// SPDX-License-Identifier: GPL-2.0
/*
 * --repair, through the transaction engine (kernel-shared/engine/transaction.h):
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
#include <unistd.h>
#include <errno.h>
#include "check/check.h"
#include "check/check-extra.h"
#include "check/extents.h"
#include "check/repair-leaves.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"
#include "check/repair-qgroups.h"
#include "check/repair-queue.h"

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
	struct check_ctx *ctx;  /* the check that found what the repair mends */
	bool dry_run;
	bool progress;
	struct timespec t0;     /* start of the phase running */
	u64 blocks;             /* tree blocks the commit writes */
};

/* The re-check of the repaired generation (btrfs_trans_view()) and what it found. */
struct recheck {
	const struct check_ctx *orig;
	bool queue_fixes;       /* as --repair: find which errors a repair would mend */
	int ret;                /* check_run()'s */
	u64 pass_errors[8];
	int unrepairable;       /* queue_fixes: the first pass with an error no fix mends, or -1 */
	FILE *out;              /* its stdout and stderr */
};

static int recheck_run(struct btrfs_fs_info *fs, void *arg)
{
	struct recheck *r = arg;
	struct check_options opts = *r->orig->opts;
	struct check_ctx ctx = { .fs = fs, .opts = &opts };
	int saved_out, saved_err;

	opts.repair = r->queue_fixes;
	opts.dry_run = opts.progress = false;
	r->out = tmpfile();
	if (!r->out)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	if (saved_out < 0 || saved_err < 0 || dup2(fileno(r->out), STDOUT_FILENO) < 0 ||
	    dup2(fileno(r->out), STDERR_FILENO) < 0) {
		if (saved_out >= 0)
			close(saved_out);
		if (saved_err >= 0)
			close(saved_err);
		return -errno;
	}
	r->ret = check_run(&ctx);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	memcpy(r->pass_errors, ctx.pass_errors, sizeof(r->pass_errors));
	r->unrepairable = -1;
	for (int i = 7; i >= 0; i--)
		if (!pass_repairable(&ctx, i, btrfs_super_compat_ro_flags(btrfs_fs_super(fs)) &
					      BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
			r->unrepairable = i;
	check_ctx_free(&ctx);
	return 0;
}

/*
 * Errors of pass i the re-check may still see: those mended after the
 * commit (a bad mirror rewritten from the good copy).  Every other error
 * the original check found has its fix in the commit (check_repair() goes
 * no further otherwise), so any other error is one the repair left or made.
 */
static u64 recheck_allowed(const struct check_ctx *ctx, int pass)
{
	u64 n = 0;

	for (size_t f = 0; f < ctx->fixes_nr; f++)
		if (ctx->fixes[f].phase == CHECK_FIX_AFTER_COMMIT && ctx->fixes[f].pass == pass)
			n++;
	return n;
}

/* The re-check's ERROR lines, on stderr, at most max of them. */
static void recheck_print_errors(FILE *out, int max)
{
	char line[1024];
	int n = 0;

	rewind(out);
	while (fgets(line, sizeof(line), out))
		if (!strncmp(line, "ERROR: ", 7) && strncmp(line, "ERROR: errors found in ", 23) &&
		    n++ < max)
			fprintf(stderr, "  re-check: %s", line);
	if (n > max)
		fprintf(stderr, "  re-check: ... %d more\n", n - max);
}

/*
 * --init-csum-tree --repair, the verdict of the new csum tree's commit: the
 * new generation is checked in memory, the repairs queued as --repair
 * would; when an error is found that no repair mends, the repair after the
 * commit would refuse: nothing is written (-EUCLEAN, printed).
 */
int check_init_csum_verdict(struct btrfs_trans *t, void *arg)
{
	struct recheck r = { .orig = arg, .queue_fixes = true };
	int ret = btrfs_trans_view(t, recheck_run, &r);

	if (ret < 0) {
		error("cannot check the new checksum tree's generation (%s): nothing was written",
		      strerror(-ret));
	} else if (r.ret < 0 || r.unrepairable >= 0) {
		if (r.unrepairable >= 0)
			error("with the new checksum tree (transaction %llu, checked in memory) %llu error(s) checking %s remain that --repair does not mend: nothing was written",
			      (unsigned long long)btrfs_trans_transid(t),
			      (unsigned long long)r.pass_errors[r.unrepairable],
			      pass_names[r.unrepairable]);
		else
			error("the check of the new checksum tree's generation (transaction %llu, in memory) could not run to its end: nothing was written",
			      (unsigned long long)btrfs_trans_transid(t));
		recheck_print_errors(r.out, 20);
		ret = -EUCLEAN;
	}
	if (r.out)
		fclose(r.out);
	return ret;
}

/*
 * Check the generation the commit would write, in memory: 0 when it is
 * clean (but for errors mended after the commit), -EUCLEAN (printed, with
 * what the re-check found) when the repair would leave errors or make new
 * ones, another negative errno when the re-check could not run.
 */
static int repair_recheck(struct btrfs_trans *t, const struct check_ctx *ctx)
{
	struct recheck r = { .orig = ctx };
	bool worse = false;
	int i, ret;

	ret = btrfs_trans_view(t, recheck_run, &r);
	if (ret < 0) {
		if (r.out)
			fclose(r.out);
		error("cannot re-check the repaired filesystem (%s): nothing was written",
		      strerror(-ret));
		return ret;
	}
	for (i = 0; i < 8; i++)
		if (r.pass_errors[i] > recheck_allowed(ctx, i))
			worse = true;
	if (r.ret < 0 || worse) {
		error("the re-check of the repaired filesystem (transaction %llu, in memory) finds errors: repair refused, nothing was written",
		      (unsigned long long)btrfs_trans_transid(t));
		for (i = 0; i < 8; i++)
			if (r.pass_errors[i] || ctx->pass_errors[i])
				fprintf(stderr, "  checking %s: %llu error(s) before the repair, %llu after\n",
					pass_names[i], (unsigned long long)ctx->pass_errors[i],
					(unsigned long long)r.pass_errors[i]);
		recheck_print_errors(r.out, 20);
		ret = -EUCLEAN;
	}
	fclose(r.out);
	return ret;
}

static int repair_verdict(struct btrfs_trans *t, void *arg)
{
	struct repair_commit *c = arg;
	int ret;

	c->blocks = btrfs_trans_dirty_blocks(t);
	if (c->progress)
		check_progress_done(&c->t0, c->blocks, "tree blocks computed");
	ret = repair_recheck(t, c->ctx);
	if (ret < 0)
		return ret;
	if (c->progress) {
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

/* The queued fixes of one phase, in order: 0, or the first failure's errno with its index in *failed. */
static int run_fixes(struct check_ctx *ctx, struct btrfs_trans *t, enum check_fix_phase phase, size_t *failed)
{
	for (size_t f = 0; f < ctx->fixes_nr; f++) {
		int ret;

		if (!ctx->fixes[f].fn || ctx->fixes[f].phase != phase)
			continue;
		ret = ctx->fixes[f].fn(ctx, t, ctx->fixes[f].arg);
		if (ret < 0) {
			*failed = f;
			return ret;
		}
	}
	return 0;
}

int check_repair(struct check_ctx *ctx)
{
	bool fst = btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs)) &
		   BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE;
	struct repair_commit commit = { .ctx = ctx, .dry_run = ctx->opts->dry_run,
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
	ret = run_fixes(ctx, NULL, CHECK_FIX_BEFORE_TRANS, &f);
	if (ret < 0) {
		error("repair of %s failed (%s): nothing was written", pass_names[ctx->fixes[f].pass], strerror(-ret));
		return 1;
	}
	/* a chunk without a block group item: check_queue_bg_item() adds it */
	ret = btrfs_start_transaction_flags(ctx->fs, BTRFS_TRANS_MISSING_BG_ITEMS, &t);
	if (ret < 0) {
		error("cannot start a transaction: %s", strerror(-ret));
		return 1;
	}
	btrfs_trans_set_lenient(t, true);
	if (commit.progress) {
		fprintf(stderr, "[repair 1/3] applying %zu fixes\n", ctx->fixes_nr);
		clock_gettime(CLOCK_MONOTONIC, &commit.t0);
	}
	/* blocks in use without an extent item reserved before a mended leaf is copied anywhere */
	ret = check_repair_extents_prepare(ctx, t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("repair of extents failed (%s): nothing was written", strerror(-ret));
		return 1;
	}
	ret = check_salvage_write(ctx->salvage, t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("writing the mended leaves failed (%s): nothing was written", strerror(-ret));
		return 1;
	}
	ret = run_fixes(ctx, t, CHECK_FIX_IN_TRANS, &f);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("repair of %s failed (%s): nothing was written", pass_names[ctx->fixes[f].pass], strerror(-ret));
		return 1;
	}
	ret = check_stale_v1_caches(ctx, t);
	if (ret < 0) {
		btrfs_abort_transaction(t);
		error("invalidating the space cache v1 failed (%s): nothing was written", strerror(-ret));
		return 1;
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
	ret = run_fixes(ctx, NULL, CHECK_FIX_AFTER_COMMIT, &f);
	if (ret < 0) {
		error("repair of %s after the commit failed (%s)", pass_names[ctx->fixes[f].pass], strerror(-ret));
		return 1;
	}
	return CHECK_REPAIRED;
}

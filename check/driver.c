// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's driver: runs the eight passes in the order btrfs-progs
 * announces them, prints the pass lines on stderr and the summary on stdout.
 * Pass 5 runs on a second thread beside passes 3 and 4 (check/pass-thread.c),
 * its output printed in its turn.
 *
 * check_repair() is in check/repair.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "check/check.h"
#include "check/extents.h"
#include "check/extent-records.h"
#include "check/pass-thread.h"
#include "check/passes.h"
#include "check/fs-roots.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

void check_ctx_free(struct check_ctx *ctx)
{
	CHECK_FREE_ARRAY(ctx, fixes, arg);
	check_extents_free(ctx->extents_state);
	ctx->extents_state = NULL;
	check_fs_roots_free(ctx);
	free(ctx->log_extents);
	ctx->log_extents = NULL;
	ctx->log_extents_nr = 0;
}

/* The quota tree exists: its ROOT_ITEM is in the root tree. */
static bool quota_enabled(struct check_ctx *ctx)
{
	struct btrfs_tree_ref ref;

	return btrfs_find_tree_root(ctx->fs, BTRFS_QUOTA_TREE_OBJECTID, &ref) == 0;
}

struct pass {
	int (*fn)(struct check_ctx *ctx);
	const char *what;     /* "ERROR: errors found in <what>", NULL: no such line */
};

/*
 * Pass i; pass 5 runs on a second thread beside passes 3 and 4 when it can
 * (check/pass-thread.c), started as soon as pass 3 has the root items and
 * joined here, at its turn (*t0: when it started).
 */
static int run_pass(struct check_ctx *ctx, int i, int (*fn)(struct check_ctx *ctx),
		    struct timespec *t0)
{
	int ret;

	if (i == 2 && check_thread_wanted(ctx)) {
		ret = check_extents_roots(ctx);
		if (ret)
			return ret;
		/* not started (out of memory): pass 5 runs in its turn */
		(void)check_thread_start(ctx);
		return check_extents_rest(ctx);
	}
	if (i == 4 && ctx->thread)
		return check_thread_join(ctx, t0);
	return fn(ctx);
}

int check_run(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	const struct check_stats *s = &ctx->stats;
	static const struct pass passes[8] = {
		{ check_log, "log" },
		{ check_root_items, "root items" },
		{ check_extents, "extent allocation tree or chunk allocation" },
		{ check_free_space, NULL },
		{ check_fs_roots, "fs roots" },
		{ check_csums, "csum tree" },
		{ check_root_refs, "root refs" },
		{ check_qgroups, NULL },
	};
	bool fst = btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE;
	int i, ret, fatal = 0;
	bool progress = check_progress_on(ctx);
	struct timespec t0;
	u64 items0;

	for (i = 0; i < 8; i++) {
		u64 before = ctx->errors;

		fflush(stdout);
		switch (i) {
		case 0:
			if (!btrfs_super_log_root(sb)) {
				fprintf(stderr, "[1/8] checking log skipped (none written)\n");
				continue;
			}
			fprintf(stderr, "[1/8] checking log\n");
			break;
		case 1: fprintf(stderr, "[2/8] checking root items\n"); break;
		case 2: fprintf(stderr, "[3/8] checking extents\n"); break;
		case 3:
			fprintf(stderr, "[4/8] checking free space %s\n", fst ? "tree" : "cache");
			break;
		case 4: fprintf(stderr, "[5/8] checking fs roots\n"); break;
		case 5:
			fprintf(stderr, "[6/8] checking %s\n", ctx->opts && ctx->opts->check_data_csum ?
				"csums against data" : "only csums items (without verifying data)");
			break;
		case 6: fprintf(stderr, "[7/8] checking root refs\n"); break;
		case 7:
			if (!quota_enabled(ctx)) {
				fprintf(stderr, "[8/8] checking quota groups skipped (not enabled on this FS)\n");
				continue;
			}
			fprintf(stderr, "[8/8] checking quota groups\n");
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		items0 = ctx->items;
		ctx->pass = i;
		ret = run_pass(ctx, i, passes[i].fn, &t0);
		fflush(stdout);
		if (progress)
			check_progress_done(&t0, ctx->items - items0, "items checked");
		if (ret < 0) {
			/* The pass could not go on: that is an error of the filesystem too. */
			if (ctx->errors == before)
				ctx->errors++;
			if (!fatal)
				fatal = ret;
		}
		ctx->pass_errors[i] = ctx->errors - before;
		if (ctx->errors != before && passes[i].what)
			error("errors found in %s", passes[i].what);
	}
	printf("found %llu bytes used, %s\n", s->bytes_used,
	       ctx->errors ? "error(s) found" : "no error found");
	printf("total csum bytes: %llu\n", s->total_csum_bytes);
	printf("total tree bytes: %llu\n", s->total_tree_bytes);
	printf("total fs tree bytes: %llu\n", s->total_fs_tree_bytes);
	printf("total extent tree bytes: %llu\n", s->total_extent_tree_bytes);
	printf("btree space waste bytes: %llu\n", s->btree_space_waste);
	printf("file data blocks allocated: %llu\n", s->data_bytes_allocated);
	printf(" referenced %llu\n", s->data_bytes_referenced);
	fflush(stdout);
	return ctx->errors ? 1 : 0;
}

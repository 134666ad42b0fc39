// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's context, shared by every pass, mend and repair: reporting
 * errors, queueing fixes, progress lines, and pass 3's records handed to
 * pass 5's threads (see check.h).  It calls no pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "check/context.h"
#include "kernel-shared/format/messages.h"

void check_error(struct check_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	ctx->errors++;
	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
}

int check_fixable(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size)
{
	struct check_fix *f;
	void *copy = NULL;

	if (size) {
		copy = malloc(size);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, arg, size);
	}
	f = CHECK_PUSH(ctx, fixes);
	if (!f) {
		free(copy);
		return -ENOMEM;
	}
	f->fn = fn;
	f->arg = copy;
	f->pass = ctx->pass;
	ctx->pass_fixable[ctx->pass]++;
	return 0;
}

int check_fixable_after_commit(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size)
{
	int ret = check_fixable(ctx, fn, arg, size);

	if (ret == 0)
		ctx->fixes[ctx->fixes_nr - 1].phase = CHECK_FIX_AFTER_COMMIT;
	return ret;
}

int check_fixable_before_trans(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size)
{
	int ret = check_fixable(ctx, fn, arg, size);

	if (ret == 0) {
		ctx->fixes[ctx->fixes_nr - 1].phase = CHECK_FIX_BEFORE_TRANS;
		ctx->pass_fixable[ctx->pass]--;   /* the companion of the fix that answers the error */
	}
	return ret;
}

int check_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

bool check_progress_on(const struct check_ctx *ctx)
{
	return (ctx->opts && ctx->opts->progress) || isatty(STDERR_FILENO);
}

void check_progress_done(const struct timespec *t0, u64 count, const char *what)
{
	struct timespec t1;
	u64 secs;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (u64)(t1.tv_sec - t0->tv_sec);
	fprintf(stderr, "      done (%llu:%02llu:%02llu elapsed, %llu %s)\n",
		secs / 3600, secs / 60 % 60, secs % 60, count, what);
}

void check_fst_block_unreadable(struct check_ctx *ctx, u64 tree_id)
{
	if (tree_id != BTRFS_FREE_SPACE_TREE_OBJECTID || !check_repairing(ctx))
		return;
	ctx->repair_rebuild_fst = true;
	check_fixable(ctx, NULL, NULL, 0);
}

void check_handoff_init(struct check_handoff *h)
{
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	h->published = false;
}

void check_handoff_publish(struct check_handoff *h)
{
	pthread_mutex_lock(&h->lock);
	h->published = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

void check_handoff_destroy(struct check_handoff *h)
{
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
}

struct ext_state *check_extents_final(struct check_ctx *ctx)
{
	struct check_handoff *h = ctx->handoff;
	struct ext_state *st;

	/* the driver's context has the records; a worker's waits for them */
	if (!h || ctx->extents_state)
		return ctx->extents_state;
	pthread_mutex_lock(&h->lock);
	while (!h->published)
		pthread_cond_wait(&h->cond, &h->lock);
	st = h->st;
	pthread_mutex_unlock(&h->lock);
	return st;
}

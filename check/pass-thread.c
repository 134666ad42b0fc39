// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (fs roots) on a second thread, beside passes 3 and 4.
 *
 * The fs roots pass needs of the extents pass only the list of root items
 * (complete once pass 3 has walked the root tree, check_extents_roots()) and,
 * rarely, the extent records (check_extents_final(): it waits until passes 3
 * and 4 are done with them).  Everything else it has of its own:
 *   - a check_ctx: its errors, per-pass counters, queued fixes and items,
 *     added to the caller's when it is joined (its fixes after those of
 *     passes 3 and 4, the order a single thread queues them in);
 *   - a reader of the filesystem (btrfs_fs_reader(): its own block cache;
 *     the devices, chunk map and superblock are only read by both);
 *   - a message stream in memory (messages_set_stream()): every line it
 *     writes, its own and the read path's, is printed by the caller in pass
 *     order after the lines of passes 3 and 4, so the output is byte for
 *     byte what one thread prints.
 * The caller runs passes 3 and 4 meanwhile and joins the thread where pass 5
 * would begin (check_run(), check/check.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "check/check.h"
#include "check/extents.h"
#include "lib/format/messages.h"

struct check_thread {
	pthread_t tid;
	struct check_ctx ctx;          /* the pass's own */
	struct check_root *roots;      /* a copy of the root items pass 3 found */
	size_t roots_nr;
	struct ext_state *st;          /* the caller's, for check_extents_final() */
	FILE *out;                     /* the pass's messages, in buf */
	char *buf;
	size_t len;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool extents_final;            /* passes 3 and 4 are done with st */
	struct timespec t0;
	int ret;
};

static void *pass_main(void *arg)
{
	struct check_thread *th = arg;

	messages_set_stream(th->out);
	th->ret = check_fs_roots_of(&th->ctx, th->roots, th->roots_nr);
	fflush(th->out);
	messages_set_stream(NULL);
	return NULL;
}

struct ext_state *check_extents_final(struct check_ctx *ctx)
{
	struct check_thread *th = ctx->thread;

	if (!th || &th->ctx != ctx)
		return ctx->extents_state;
	pthread_mutex_lock(&th->lock);
	while (!th->extents_final)
		pthread_cond_wait(&th->cond, &th->lock);
	pthread_mutex_unlock(&th->lock);
	return th->st;
}

bool check_thread_wanted(const struct check_ctx *ctx)
{
	return !(ctx->opts && ctx->opts->serial) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static void thread_free(struct btrfs_fs_info *fs, struct check_thread *th)
{
	size_t i;

	if (th->out)
		fclose(th->out);
	free(th->buf);
	free(th->roots);
	for (i = 0; i < th->ctx.fixes_nr; i++)
		free(th->ctx.fixes[i].arg);
	free(th->ctx.fixes);
	btrfs_fs_reader_free(fs, th->ctx.fs);
	free(th);
}

int check_thread_start(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;
	struct check_thread *th = calloc(1, sizeof(*th));
	int ret = -ENOMEM;

	if (!th)
		return -ENOMEM;
	th->st = st;
	th->ctx.opts = ctx->opts;
	th->ctx.pass = 4;
	th->ctx.thread = th;
	th->roots_nr = st->root_nr;
	th->roots = calloc(st->root_nr + 1, sizeof(*st->root));
	th->out = open_memstream(&th->buf, &th->len);
	if (!th->roots || !th->out || btrfs_fs_reader(ctx->fs, &th->ctx.fs))
		goto fail;
	if (st->root_nr)
		memcpy(th->roots, st->root, st->root_nr * sizeof(*st->root));
	pthread_mutex_init(&th->lock, NULL);
	pthread_cond_init(&th->cond, NULL);
	clock_gettime(CLOCK_MONOTONIC, &th->t0);
	ret = -pthread_create(&th->tid, NULL, pass_main, th);
	if (ret) {
		pthread_cond_destroy(&th->cond);
		pthread_mutex_destroy(&th->lock);
		goto fail;
	}
	ctx->thread = th;
	return 0;
fail:
	thread_free(ctx->fs, th);
	return ret;
}

/* The pass's queued fixes after the caller's (they move: the args are the caller's to free). */
static int merge_fixes(struct check_ctx *ctx, struct check_ctx *pass)
{
	size_t i;

	for (i = 0; i < pass->fixes_nr; i++) {
		struct check_fix *f = CHECK_PUSH(ctx, fixes);

		if (!f)
			return -ENOMEM;
		*f = pass->fixes[i];
		pass->fixes[i].arg = NULL;
	}
	return 0;
}

int check_thread_join(struct check_ctx *ctx, struct timespec *t0)
{
	struct check_thread *th = ctx->thread;
	struct check_ctx *p = &th->ctx;
	int ret;

	pthread_mutex_lock(&th->lock);
	th->extents_final = true;
	pthread_cond_broadcast(&th->cond);
	pthread_mutex_unlock(&th->lock);
	pthread_join(th->tid, NULL);
	pthread_cond_destroy(&th->cond);
	pthread_mutex_destroy(&th->lock);
	ctx->thread = NULL;

	fclose(th->out);    /* buf and len final */
	th->out = NULL;
	fwrite(th->buf, 1, th->len, messages_stream());
	ctx->errors += p->errors;
	ctx->items += p->items;
	for (int i = 0; i < 8; i++)
		ctx->pass_fixable[i] += p->pass_fixable[i];
	ctx->repair_rebuild_fst |= p->repair_rebuild_fst;
	ctx->repair_super_dev_items |= p->repair_super_dev_items;
	*t0 = th->t0;
	ret = merge_fixes(ctx, p);
	if (!ret)
		ret = th->ret;
	thread_free(ctx->fs, th);
	return ret;
}

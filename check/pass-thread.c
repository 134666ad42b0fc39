// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (fs roots) on worker threads, beside passes 3 and 4.
 *
 * The fs roots pass needs of the extents pass only the list of root items
 * (complete once pass 3 has walked the root tree, check_extents_roots()) and,
 * rarely, the extent records (check_extents_final(): it waits until passes 3
 * and 4 are done with them).  Its subvolumes are independent of each other,
 * so one worker per CPU takes them in turn (snapshots make many).  For each
 * subvolume a worker keeps
 *   - a check_ctx: its errors, per-pass counters, queued fixes and items;
 *   - a message stream in memory (messages_set_stream()): every line it
 *     writes, its own and the read path's.
 * Each worker reads through a reader of its own (btrfs_fs_reader(): its own
 * block cache; the devices, chunk map and superblock are only read by all).
 * The caller runs passes 3 and 4 meanwhile, then takes the subvolumes left
 * with them where pass 5 would begin (check_run(), check/driver.c) and joins
 * them: the subvolumes' lines are printed
 * and their counters and fixes added in root order, after those of passes 3
 * and 4, so the output and the fixes are what one thread gives.  One
 * exception: read errors met while reading the csum tree for all subvolumes
 * (struct fs_root_csums) come before the lines of the first subvolume that
 * needed it rather than among them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "check/context.h"
#include "check/extents.h"
#include "check/fs-roots.h"
#include "check/pass-thread.h"
#include "kernel-shared/format/messages.h"

enum { MAX_WORKERS = 8 };

/* One subvolume's part of the pass. */
struct root_result {
	struct check_ctx ctx;
	char *buf;                     /* its messages */
	size_t len;
	bool used_csums;
	int ret;
};

/* A worker thread and the reader of the filesystem it reads through. */
struct worker {
	struct check_thread *th;
	pthread_t tid;
	struct btrfs_fs_info *reader;
};

struct check_thread {
	struct worker worker[MAX_WORKERS];
	int workers;                   /* started */
	struct check_root *roots;      /* a copy of the root items pass 3 found */
	struct root_result *res;       /* one per root */
	size_t roots_nr;
	size_t next;                   /* the next root a worker takes (under lock) */
	bool stop;                     /* a root failed (out of memory): take no more */
	struct fs_root_csums *csums;
	struct check_handoff handoff;  /* the caller's records, for check_extents_final() */
	const struct check_options *opts;
	pthread_mutex_t lock;          /* of next and stop */
	struct timespec t0;
};

static int check_one_root(struct check_thread *th, struct btrfs_fs_info *reader, size_t i)
{
	struct root_result *r = &th->res[i];
	FILE *out = open_memstream(&r->buf, &r->len), *own = messages_stream();

	r->ctx.fs = reader;
	r->ctx.opts = th->opts;
	r->ctx.pass = 4;
	r->ctx.handoff = &th->handoff;
	if (!out)
		return r->ret = -ENOMEM;
	messages_set_stream(out);
	r->ret = check_fs_root(&r->ctx, &th->roots[i], th->csums, &r->used_csums);
	messages_set_stream(own);
	if (fclose(out) && !r->ret)
		r->ret = -ENOMEM;
	return r->ret;
}

/* Take roots until none is left (or one could not go on). */
static void take_roots(struct check_thread *th, struct btrfs_fs_info *reader)
{
	for (;;) {
		size_t i;

		pthread_mutex_lock(&th->lock);
		i = th->stop ? th->roots_nr : th->next++;
		pthread_mutex_unlock(&th->lock);
		if (i >= th->roots_nr)
			break;
		if (check_one_root(th, reader, i)) {
			pthread_mutex_lock(&th->lock);
			th->stop = true;
			pthread_mutex_unlock(&th->lock);
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	take_roots(w->th, w->reader);
	return NULL;
}

static int cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (int)n;
}

bool check_thread_wanted(const struct check_ctx *ctx)
{
	return !(ctx->opts && ctx->opts->serial) && cpus() > 1;
}

static void free_result(struct root_result *r)
{
	for (size_t i = 0; i < r->ctx.fixes_nr; i++)
		free(r->ctx.fixes[i].arg);
	free(r->ctx.fixes);
	free(r->buf);
}

static void thread_free(struct btrfs_fs_info *fs, struct check_thread *th)
{
	for (size_t i = 0; th->res && i < th->roots_nr; i++)
		free_result(&th->res[i]);
	free(th->res);
	free(th->roots);
	for (int i = 0; i < MAX_WORKERS; i++)
		btrfs_fs_reader_free(fs, th->worker[i].reader);
	check_fs_root_csums_free(th->csums);
	free(th);
}

int check_thread_start(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;
	struct check_thread *th = calloc(1, sizeof(*th));
	int i, n = cpus(), ret = -ENOMEM;

	if (!th)
		return -ENOMEM;
	th->handoff.st = st;
	th->opts = ctx->opts;
	th->roots_nr = st->root_nr;
	th->roots = calloc(st->root_nr + 1, sizeof(*st->root));
	th->res = calloc(st->root_nr + 1, sizeof(*th->res));
	th->csums = check_fs_root_csums_new(true);
	if (!th->roots || !th->res || !th->csums)
		goto fail;
	for (i = 0; i < n; i++) {
		th->worker[i].th = th;
		if (btrfs_fs_reader(ctx->fs, &th->worker[i].reader))
			goto fail;
	}
	if (st->root_nr)
		memcpy(th->roots, st->root, st->root_nr * sizeof(*st->root));
	pthread_mutex_init(&th->lock, NULL);
	check_handoff_init(&th->handoff);
	clock_gettime(CLOCK_MONOTONIC, &th->t0);
	for (i = 0; i < n && !pthread_create(&th->worker[i].tid, NULL, worker_main, &th->worker[i]); i++)
		th->workers++;
	if (!th->workers) {
		check_handoff_destroy(&th->handoff);
		pthread_mutex_destroy(&th->lock);
		goto fail;
	}
	ctx->thread = th;
	return 0;
fail:
	thread_free(ctx->fs, th);
	return ret;
}

/* One root's queued fixes after the caller's (they move: the args are the caller's to free). */
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

/* One root's lines, counters and fixes added to the caller's. */
static int merge_root(struct check_ctx *ctx, struct root_result *r)
{
	struct check_ctx *p = &r->ctx;

	if (r->len)
		fwrite(r->buf, 1, r->len, messages_stream());
	ctx->errors += p->errors;
	ctx->items += p->items;
	for (int i = 0; i < 8; i++)
		ctx->pass_fixable[i] += p->pass_fixable[i];
	ctx->repair_rebuild_fst |= p->repair_rebuild_fst;
	ctx->repair_super_dev_items |= p->repair_super_dev_items;
	return merge_fixes(ctx, p);
}

int check_thread_join(struct check_ctx *ctx, struct timespec *t0)
{
	struct check_thread *th = ctx->thread;
	bool csum_msgs = false;
	int ret = 0;

	check_handoff_publish(&th->handoff);
	/* passes 3 and 4 are done: the caller takes roots too, reading through its own fs */
	take_roots(th, ctx->fs);
	for (int i = 0; i < th->workers; i++)
		pthread_join(th->worker[i].tid, NULL);
	check_handoff_destroy(&th->handoff);
	pthread_mutex_destroy(&th->lock);
	ctx->thread = NULL;

	/* in root order, as one thread would: up to the first root that could not go on */
	for (size_t i = 0; i < th->roots_nr && !ret; i++) {
		struct root_result *r = &th->res[i];

		if (r->used_csums && !csum_msgs) {
			size_t len;
			const char *m = check_fs_root_csums_messages(th->csums, &len);

			if (len)
				fwrite(m, 1, len, messages_stream());
			csum_msgs = true;
		}
		ret = merge_root(ctx, r);
		if (!ret)
			ret = r->ret;
	}
	*t0 = th->t0;
	thread_free(ctx->fs, th);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* btrfs image: the worker threads of dump (-t: compression) and restore (-t: inflating). */
#ifndef BTRFS_KIT_IMAGE_PARALLEL_INTERNAL_H
#define BTRFS_KIT_IMAGE_PARALLEL_INTERNAL_H

#include <pthread.h>
#include "kernel-shared/format/kerncompat.h"

#define IMAGE_MAX_THREADS 64

/*
 * fn(arg, i) for every i in [0, nr), in up to `threads` threads (the
 * caller's among them; at most IMAGE_MAX_THREADS), each taking the next i
 * not taken yet under a lock: calls of different i run at the same time,
 * so fn must touch nothing that another i touches except read-only data.
 * Returns when every call has returned.  A thread that cannot be started
 * leaves its share to the others (the caller alone at worst).
 */
void image_parallel_for(int threads, u32 nr, void (*fn)(void *arg, u32 i), void *arg);

/*
 * One consumer thread that runs fn(arg, job) for the jobs handed to it, one
 * at a time and in order, while the caller prepares the next job: restore's
 * writes behind its inflating.  The caller hands a job over with
 * image_handoff_give(), which first waits until the previous job is done,
 * so the caller may reuse what that job used once the next give (or wait)
 * has returned.  The first non-zero value fn returns stops the consumer:
 * later jobs are dropped, and give, wait and stop return that value.
 * image_handoff_stop() waits for the last job and ends the thread.
 */
struct image_handoff {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int (*fn)(void *arg, void *job);
	void *arg;
	void *pending;          /* handed over and not done; under lock */
	bool stop;              /* under lock */
	bool started;
	int err;                /* fn's first error; read by the caller after a wait */
};

/* 0, or a negative errno when no thread could be started (then do the jobs yourself). */
int image_handoff_start(struct image_handoff *h, int (*fn)(void *arg, void *job), void *arg);
int image_handoff_give(struct image_handoff *h, void *job);
int image_handoff_wait(struct image_handoff *h);
/* Waits for the last job, ends the thread; fn's first error or 0.  Nothing if not started. */
int image_handoff_stop(struct image_handoff *h);

#endif

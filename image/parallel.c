// SPDX-License-Identifier: GPL-2.0
/* The worker threads of btrfs image: image_parallel_for(). */
#include <pthread.h>
#include "image/parallel-internal.h"

struct parallel_job {
	pthread_mutex_t lock;
	u32 next;                       /* the next i to take, under lock */
	u32 nr;
	void (*fn)(void *arg, u32 i);
	void *arg;
};

static void *parallel_worker(void *p)
{
	struct parallel_job *job = p;

	for (;;) {
		u32 i;

		pthread_mutex_lock(&job->lock);
		i = job->next < job->nr ? job->next++ : job->nr;
		pthread_mutex_unlock(&job->lock);
		if (i == job->nr)
			return NULL;
		job->fn(job->arg, i);
	}
}

void image_parallel_for(int threads, u32 nr, void (*fn)(void *arg, u32 i), void *arg)
{
	struct parallel_job job = { .nr = nr, .fn = fn, .arg = arg };
	pthread_t tids[IMAGE_MAX_THREADS];
	u32 started = 0;

	pthread_mutex_init(&job.lock, NULL);
	for (; (int)started + 1 < threads && started + 1 < nr && started + 1 < IMAGE_MAX_THREADS; started++)
		if (pthread_create(&tids[started], NULL, parallel_worker, &job))
			break;
	parallel_worker(&job);
	for (u32 t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	pthread_mutex_destroy(&job.lock);
}

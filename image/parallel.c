// SPDX-License-Identifier: GPL-2.0
/* The worker threads of btrfs image: image_parallel_for() and struct image_handoff. */
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

static void *handoff_consumer(void *p)
{
	struct image_handoff *h = p;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		void *job;

		while (!h->pending && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		if (!h->pending)
			break;
		job = h->pending;
		pthread_mutex_unlock(&h->lock);
		if (!h->err)
			h->err = h->fn(h->arg, job);
		pthread_mutex_lock(&h->lock);
		h->pending = NULL;
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int image_handoff_start(struct image_handoff *h, int (*fn)(void *arg, void *job), void *arg)
{
	int ret;

	*h = (struct image_handoff){ .fn = fn, .arg = arg };
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	ret = pthread_create(&h->thread, NULL, handoff_consumer, h);
	if (ret) {
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
		return -ret;
	}
	h->started = true;
	return 0;
}

int image_handoff_wait(struct image_handoff *h)
{
	pthread_mutex_lock(&h->lock);
	while (h->pending)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return h->err;
}

int image_handoff_give(struct image_handoff *h, void *job)
{
	int ret = image_handoff_wait(h);

	if (ret)
		return ret;
	pthread_mutex_lock(&h->lock);
	h->pending = job;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

int image_handoff_stop(struct image_handoff *h)
{
	int ret;

	if (!h->started)
		return 0;
	ret = image_handoff_wait(h);
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	h->started = false;
	return ret;
}

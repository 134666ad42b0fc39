// SPDX-License-Identifier: GPL-2.0
/*
 * The read-and-hash queue of --check-data-csum and --init-csum-tree (see
 * csum-pipe.h).  A ring
 * of QUEUE_DEPTH jobs: the worker takes the oldest pending one; the caller,
 * waiting for the oldest job, runs a pending one itself rather than sleep,
 * so both cores read and hash.  Data is read in READ_PIECE pieces into a
 * buffer each thread owns: memory does not grow with item size.
 */
#include <stdlib.h>
#include <stdio.h>
#include <pthread.h>
#include <unistd.h>
#include "check/csum-pipe.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"
#include "crypto/hash.h"

#define QUEUE_DEPTH 8
#define READ_PIECE (1U << 20)

enum { JOB_FREE, JOB_PENDING, JOB_RUNNING, JOB_DONE };

struct csum_pipe {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t worker;
	bool threaded;
	bool stop;
	struct csum_job jobs[QUEUE_DEPTH];
	u64 head;                   /* seq of the oldest job not handed back */
	u64 tail;                   /* seq of the next job */
	u8 *buf;                    /* the caller's READ_PIECE buffer */
	const void **blocks;        /* the caller's sector pointers */
	struct btrfs_fs_info *fs;
};

/* Read and hash one job with a thread's buffers. */
static void run_job(struct btrfs_fs_info *fs, struct csum_job *job, u8 *buf, const void **blocks)
{
	const struct btrfs_fs_geometry *geo = btrfs_fs_geometry(fs);
	u32 ss = geo->sectorsize, per = READ_PIECE / ss;

	for (int m = 1; m <= job->mirrors; m++) {
		u8 *out = job->digests + (size_t)(m - 1) * job->nsect * geo->csum_size;

		job->read_err[m - 1] = 0;
		for (u32 done = 0, n; done < job->nsect; done += n) {
			u64 pos = job->start + (u64)done * ss;
			const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&fs->chunks, pos);
			int mirror = m;

			n = min_t(u32, per, job->nsect - done);
			/*
			 * The kernel's csum items run on across adjacent data
			 * chunks: read each chunk's part on its own, with its
			 * own number of copies (mirror m, or its last one).
			 */
			if (c) {
				u64 left = (c->logical + c->length - pos) / ss;

				if (left && left < n)
					n = (u32)left;
				mirror = min_t(int, m, btrfs_chunk_num_mirrors(c));
			}
			if (btrfs_read_data_mirror(fs, pos, mirror, buf, n * ss,
						   job->msg[m - 1], CSUM_PIPE_MSG) < 0) {
				job->read_err[m - 1] = -EIO;
				break;
			}
			for (u32 i = 0; i < n; i++)
				blocks[i] = buf + (size_t)i * ss;
			/*
			 * first_readable jobs make checksums (--init-csum-tree),
			 * the others verify data against protected ones
			 */
			if ((job->first_readable ? btrfs_csum_compute_batch : btrfs_csum_verify_batch)(
				    &fs->csum, blocks, n, ss, out + (size_t)done * geo->csum_size) < 0) {
				snprintf(job->msg[m - 1], CSUM_PIPE_MSG, "checksum computation failed");
				job->read_err[m - 1] = -EIO;
				break;
			}
		}
		if (job->first_readable && !job->read_err[m - 1]) {
			job->good_mirror = m;
			return;
		}
	}
}

/* The oldest pending job, marked running (lock held), or NULL. */
static struct csum_job *take_pending(struct csum_pipe *p)
{
	for (u64 s = p->head; s < p->tail; s++) {
		struct csum_job *j = &p->jobs[s % QUEUE_DEPTH];

		if (j->state == JOB_PENDING) {
			j->state = JOB_RUNNING;
			return j;
		}
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct csum_pipe *p = arg;
	u8 *buf = malloc(READ_PIECE);
	const void **blocks = malloc(READ_PIECE / btrfs_fs_geometry(p->fs)->sectorsize * sizeof(*blocks));
	struct csum_job *j;

	pthread_mutex_lock(&p->lock);
	while (buf && blocks) {
		j = take_pending(p);
		if (!j) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		run_job(p->fs, j, buf, blocks);
		pthread_mutex_lock(&p->lock);
		j->state = JOB_DONE;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	free(buf);
	free(blocks);
	return NULL;
}

/* Parity rebuilds share the filesystem's scratch buffer: no worker with RAID5/6. */
static bool can_share_reads(struct btrfs_fs_info *fs)
{
	for (size_t i = 0; i < fs->chunks.nr; i++)
		if (btrfs_raid_has_parity(fs->chunks.chunks[i]->type))
			return false;
	return true;
}

int csum_pipe_open(struct btrfs_fs_info *fs, struct csum_pipe **out)
{
	struct csum_pipe *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->fs = fs;
	p->buf = malloc(READ_PIECE);
	p->blocks = malloc(READ_PIECE / btrfs_fs_geometry(fs)->sectorsize * sizeof(*p->blocks));
	if (!p->buf || !p->blocks) {
		free(p->buf);
		free(p->blocks);
		free(p);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	/* without a worker every job runs at once, in the caller */
	if (can_share_reads(fs) && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		p->threaded = pthread_create(&p->worker, NULL, worker_main, p) == 0;
	*out = p;
	return 0;
}

struct csum_job *csum_pipe_submit(struct btrfs_fs_info *fs, struct csum_pipe *p, u64 start,
				  u32 nsect, bool first_readable)
{
	u16 csum_size = btrfs_fs_geometry(fs)->csum_size;
	int mirrors = btrfs_num_mirrors(fs, start);
	struct csum_job *j;

	if (p->tail - p->head >= QUEUE_DEPTH)
		return NULL;   /* the caller hands back the oldest first */
	j = &p->jobs[p->tail % QUEUE_DEPTH];
	memset(j, 0, sizeof(*j));
	j->start = start;
	j->nsect = nsect;
	j->mirrors = mirrors;
	j->first_readable = first_readable;
	j->digests = malloc((size_t)(mirrors ? mirrors : 1) * (nsect ? nsect : 1) * csum_size);
	j->read_err = calloc((size_t)(mirrors ? mirrors : 1), sizeof(*j->read_err));
	j->msg = calloc((size_t)(mirrors ? mirrors : 1), sizeof(*j->msg));
	if (!j->digests || !j->read_err || !j->msg) {
		free(j->digests);
		free(j->read_err);
		free(j->msg);
		return NULL;
	}
	j->seq = p->tail;
	if (!p->threaded) {
		run_job(fs, j, p->buf, p->blocks);
		j->state = JOB_DONE;
		p->tail++;
		return j;
	}
	pthread_mutex_lock(&p->lock);
	j->state = JOB_PENDING;
	p->tail++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return j;
}

struct csum_job *csum_pipe_done(struct btrfs_fs_info *fs, struct csum_pipe *p, bool drain)
{
	struct csum_job *oldest, *j;

	if (p->head == p->tail || (!drain && p->tail - p->head < QUEUE_DEPTH))
		return NULL;
	oldest = &p->jobs[p->head % QUEUE_DEPTH];
	if (!p->threaded)
		return oldest;
	pthread_mutex_lock(&p->lock);
	while (oldest->state != JOB_DONE) {
		/* rather than sleep, read and hash a pending job here (the oldest first) */
		j = take_pending(p);
		if (!j) {
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		run_job(fs, j, p->buf, p->blocks);
		pthread_mutex_lock(&p->lock);
		j->state = JOB_DONE;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return oldest;
}

void csum_pipe_release(struct csum_pipe *p, struct csum_job *job)
{
	free(job->digests);
	free(job->read_err);
	free(job->msg);
	job->digests = NULL;
	job->read_err = NULL;
	job->msg = NULL;
	if (p->threaded)
		pthread_mutex_lock(&p->lock);
	job->state = JOB_FREE;
	p->head++;
	if (p->threaded)
		pthread_mutex_unlock(&p->lock);
}

void csum_pipe_close(struct csum_pipe *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		/* jobs not handed back (the caller stopped on an error) are dropped */
		for (u64 s = p->head; s < p->tail; s++)
			if (p->jobs[s % QUEUE_DEPTH].state == JOB_PENDING)
				p->jobs[s % QUEUE_DEPTH].state = JOB_FREE;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->worker, NULL);
	}
	for (; p->head < p->tail; p->head++) {
		struct csum_job *j = &p->jobs[p->head % QUEUE_DEPTH];

		free(j->digests);
		free(j->read_err);
		free(j->msg);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->buf);
	free(p->blocks);
	free(p);
}

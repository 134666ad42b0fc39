/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data checksums on two cores (--check-data-csum, --init-csum-tree): data
 * is read and hashed by a worker thread (and by the caller while it waits),
 * ahead of the code that compares or writes the checksums.  Jobs complete in the order they were
 * submitted, so the pass prints exactly what it printed single-threaded.
 *
 *   csum_pipe_open(fs, &p);
 *   for each item:
 *       while ((done = csum_pipe_done(fs, p, false)))   the oldest, once the queue is full
 *               report done; csum_pipe_release(p, done);
 *       job = csum_pipe_submit(fs, p, start, nsect, false); job->owner = ...;
 *   while ((done = csum_pipe_done(fs, p, true)))         the rest, in order
 *       ...
 *   csum_pipe_close(p);
 *
 * Only the read path's data reads and the hash context are used by the
 * worker (both safe to share); filesystems with RAID5/6 chunks get no worker
 * (parity rebuilds use the filesystem's scratch buffer).
 */
#ifndef BTRFS_KIT_CHECK_CSUM_PIPE_H
#define BTRFS_KIT_CHECK_CSUM_PIPE_H

#include "kernel-shared/format/kerncompat.h"

struct btrfs_fs_info;
struct csum_pipe;

#define CSUM_PIPE_MSG 256

struct csum_job {
	u64 start;                  /* logical address of the first sector */
	u32 nsect;
	int mirrors;
	bool first_readable;        /* stop at the first mirror read in full (its digests at m - 1) */
	int good_mirror;            /* with first_readable: that mirror, 0 if none */
	/*
	 * mirrors * nsect * csum_size: mirror m (1-based) at m - 1; whole
	 * checksums with first_readable, else btrfs_csum_verify_batch()'s
	 */
	u8 *digests;
	int *read_err;              /* per mirror: 0, or the read failed (msg says why) */
	char (*msg)[CSUM_PIPE_MSG];
	void *owner;                /* the caller's: what to report against */
	int state;                  /* pipe internal */
	u64 seq;                    /* pipe internal */
};

/* A pipe, with one worker thread when one can and should be made (else jobs run inline). 0 or -ENOMEM. */
int csum_pipe_open(struct btrfs_fs_info *fs, struct csum_pipe **out);
/*
 * Queue the reading and hashing of nsect sectors at start on every mirror
 * (first_readable: on mirrors in turn until one reads in full).  Returns the
 * job (NULL on -ENOMEM) for the caller to attach owner to.
 */
struct csum_job *csum_pipe_submit(struct btrfs_fs_info *fs, struct csum_pipe *p, u64 start,
				  u32 nsect, bool first_readable);
/*
 * The oldest job when it is done, waiting for it (and helping) when the
 * queue is full or drain is set; NULL when there is none to hand back.
 */
struct csum_job *csum_pipe_done(struct btrfs_fs_info *fs, struct csum_pipe *p, bool drain);
void csum_pipe_release(struct csum_pipe *p, struct csum_job *job);
/* Stops the worker (after the job it is running) and frees every job left. */
void csum_pipe_close(struct csum_pipe *p);

#endif

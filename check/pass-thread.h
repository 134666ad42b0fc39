/* SPDX-License-Identifier: GPL-2.0 */
/* Pass 5 beside passes 3 and 4 (check/pass-thread.c): the driver's. */
#ifndef BTRFS_KIT_CHECK_PASS_THREAD_H
#define BTRFS_KIT_CHECK_PASS_THREAD_H

#include "check/context.h"

struct timespec;
/*
 * Pass 5 on a second thread (check/pass-thread.c): wanted unless
 * opts->serial or one CPU; started once pass 3 has walked the root tree
 * (0, or a negative errno: nothing started, run it in turn); joined where
 * it would begin: its messages printed, its counters and fixes added to
 * ctx's, *t0 set to when it started; its return value.
 */
bool check_thread_wanted(const struct check_ctx *ctx);
int check_thread_start(struct check_ctx *ctx);
int check_thread_join(struct check_ctx *ctx, struct timespec *t0);

#endif

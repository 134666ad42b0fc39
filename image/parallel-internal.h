/* SPDX-License-Identifier: GPL-2.0 */
/* btrfs image: the worker threads of dump (-t: compression) and restore (-t: inflating). */
#ifndef BTRFS_KIT_IMAGE_PARALLEL_INTERNAL_H
#define BTRFS_KIT_IMAGE_PARALLEL_INTERNAL_H

#include "lib/format/kerncompat.h"

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

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 3, extents (check/extents.c, its parts check/extents-*.c,
 * check/lost-blocks.c and check/super-dev-items.c, which share
 * check/extents-internal.h): the extent tree, block groups, chunks, dev
 * extents and devices against what the trees reference.  Its records
 * (check/extent-records.h) are kept for the passes after it.
 */
#ifndef BTRFS_KIT_CHECK_EXTENTS_H
#define BTRFS_KIT_CHECK_EXTENTS_H

#include "check/extent-records.h"

/*
 * Pass 3 (check_extents()) in its two steps: the root tree's walk, after
 * which st->root is complete (pass 5 may start on it, check/pass-thread.c),
 * then the other trees and the comparisons.
 */
int check_extents_roots(struct check_ctx *ctx);
int check_extents_rest(struct check_ctx *ctx);
void check_extents_free(struct ext_state *st);

#endif

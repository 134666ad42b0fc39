/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queries of the csum tree shared by the passes (check/csum-tree.c): what it
 * covers, read through the verified read path.
 */
#ifndef BTRFS_KIT_CHECK_CSUM_TREE_H
#define BTRFS_KIT_CHECK_CSUM_TREE_H

#include "check/context.h"

/* Do the csum tree's items cover every sector of [start, end)? */
bool check_csum_tree_covers(struct check_ctx *ctx, u64 start, u64 end);

/*
 * The byte ranges the csum tree's items cover, sorted, adjacent and
 * overlapping items merged (*spans to free).  0, -ENOENT without a csum
 * tree, or the negative errno of a read that failed.
 */
int check_csum_tree_spans(struct check_ctx *ctx, struct check_range **spans, size_t *nr);

#endif

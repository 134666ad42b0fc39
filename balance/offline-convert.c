// SPDX-License-Identifier: GPL-2.0
/*
 * Offline balance: run the plan chunk by chunk (see offline.h).
 */
#include "balance/offline.h"
#include "lib/format/messages.h"

int offline_convert(struct btrfs_fs_info *fs, const struct offline_plan *plan, FILE *out)
{
	(void)fs;
	(void)out;
	error("offline convert of %zu chunks: not implemented yet, use --dry-run", plan->nr_chunks);
	return -EOPNOTSUPP;
}

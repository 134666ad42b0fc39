/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offline consistency checker (btrfs check), as cmds/check.c calls it.
 * It sits above kernel-shared/: it reads through the verified read path and
 * knows no CLI (cmds/check.c parses options and fills struct check_options).
 *
 * The rooms of check/ (ARCHITECTURE.md; tests/tools/check-rooms.py keeps them):
 *   driver    driver.c (the passes in order, the summary), repair.c (the
 *             queued repairs in one transaction, then the check again),
 *             pass-thread.c (pass 5 beside passes 3 and 4), init-csum-tree.c
 *             (the new tree, then the check of it in memory)
 *   passes    one file per pass (check/passes.h), its parts named after it
 *   mends     blocks and items the tree-checker rejects, mended before the
 *             passes read them (header-mend.c, leaf-mend*.c, and the field
 *             rules they use)
 *   repairs   repair-*.c: the fixes the passes queue, written in the
 *             repair's transaction; the other modes (check/check-extra.h:
 *             clear-space-cache.c, subvol-extents.c)
 *   context   context.c, iter.c, extent-records.c, csum-tree.c, csum-pipe.c:
 *             what every room shares
 * Calls go one way: driver -> passes -> (mends, repairs) -> context.
 */
#ifndef BTRFS_KIT_CHECK_H
#define BTRFS_KIT_CHECK_H

#include "check/context.h"

/* All passes and the summary; 0 clean, 1 errors found, negative errno. */
int check_run(struct check_ctx *ctx);

/*
 * After check_run found errors: repair what the passes recorded, through the
 * transaction engine (check/repair.c).  CHECK_REPAIRED when something was
 * written (the caller reopens the filesystem and checks again), 0 when
 * nothing needed it, 1 when errors remain that cannot be repaired.
 */
#define CHECK_REPAIRED 2
int check_repair(struct check_ctx *ctx);

/* Free the passes' state and the queued repairs. */
void check_ctx_free(struct check_ctx *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The eight passes, as btrfs-progs announces them; called by the driver
 * (check/driver.c) alone.  One file per pass, its parts named after it:
 *   1 log                 check_log()          check/log.c
 *   2 root items          check_root_items()   check/roots.c
 *   3 extents             check_extents()      check/extents.c, extents-*.c, lost-blocks.c,
 *                                              super-dev-items.c
 *   4 free space tree     check_free_space()   check/free-space.c
 *   5 fs roots            check_fs_roots()     check/fs-roots.c, fs-roots-*.c (fs-roots-internal.h)
 *   6 csums               check_csums()        check/csums.c
 *   7 root refs           check_root_refs()    check/root-refs.c
 *   8 quota groups        check_qgroups()      check/qgroups.c
 * A pass calls the context (check/context.h and the shared lookups), the
 * mends and the repairs it queues, never another pass (tests/tools/check-rooms.py).
 */
#ifndef BTRFS_KIT_CHECK_PASSES_H
#define BTRFS_KIT_CHECK_PASSES_H

#include "check/context.h"

int check_log(struct check_ctx *ctx);
int check_root_items(struct check_ctx *ctx);
int check_extents(struct check_ctx *ctx);
int check_free_space(struct check_ctx *ctx);
int check_fs_roots(struct check_ctx *ctx);
int check_csums(struct check_ctx *ctx);
int check_root_refs(struct check_ctx *ctx);
int check_qgroups(struct check_ctx *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 5, fs roots (check/fs-roots.c, its parts check/fs-roots-*.c): every
 * subvolume's inodes, names and file extents, one root item at a time
 * (check/pass-thread.c runs it on several threads).
 */
#ifndef BTRFS_KIT_CHECK_FS_ROOTS_H
#define BTRFS_KIT_CHECK_FS_ROOTS_H

#include "check/extent-records.h"

/* Pass 5 over these root items (check_fs_roots(): pass 3's). */
int check_fs_roots_of(struct check_ctx *ctx, const struct check_root *roots, size_t nr);
/*
 * Pass 5 over one root item (nothing unless a file tree not being deleted):
 * 0, or -ENOMEM (the pass cannot go on).  csums: the csum tree's coverage,
 * shared by the subvolumes (check_fs_root_csums_new(true): by several
 * threads, the read path's messages of reading it kept for the caller);
 * *used_csums (may be NULL): this root asked for it.
 */
struct fs_root_csums;
int check_fs_root(struct check_ctx *ctx, const struct check_root *r, struct fs_root_csums *csums,
		  bool *used_csums);
struct fs_root_csums *check_fs_root_csums_new(bool shared);
const char *check_fs_root_csums_messages(const struct fs_root_csums *cs, size_t *len);
void check_fs_root_csums_free(struct fs_root_csums *cs);
/* Free pass 5's state in ctx. */
void check_fs_roots_free(struct check_ctx *ctx);
#endif

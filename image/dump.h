/* SPDX-License-Identifier: GPL-2.0 */
/* btrfs image: creating a metadata dump in the btrfs-image format (kernel-shared/format/metadump.h). */
#ifndef BTRFS_KIT_IMAGE_DUMP_H
#define BTRFS_KIT_IMAGE_DUMP_H

#include <stdbool.h>
#include "kernel-shared/format/kerncompat.h"

#define IMAGE_DUMP_MAX_THREADS 64

struct image_dump_opts {
	int compress_level;     /* 0 = no compression, 1..9 zlib level */
	bool walk_trees;        /* find blocks by walking the trees, not from the extent tree */
	int sanitize;           /* -s given (once or twice: the same names, image/sanitize.c) */
	int threads;            /* compression threads, 1..IMAGE_DUMP_MAX_THREADS (0 = 1) */
	bool dump_data;         /* -d: data extents too (v1 dump), inline file data kept; not with walk_trees */
	const u8 *auth_key;     /* keyed csum types: the key (the open verifies, scrubbed blocks re-MACed) */
	size_t auth_key_len;
};

/*
 * Dump the metadata of the filesystem on the nsources devices or images
 * sources (its other devices are found by scanning) to target ("-" =
 * stdout).  Clusters are written as
 * they fill: memory does not grow with the filesystem.  A mounted source is
 * refused unless every mount of it is read-only.  Returns 0 or a negative
 * errno after an error naming the block (a tree block bad in every copy
 * ends the dump, as in btrfs-image).
 */
int image_dump(const char *const *sources, int nsources, const char *target,
	       const struct image_dump_opts *opts);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* A tree block's bytes in memory; its fields are read through accessors.h. */
#ifndef BTRFS_KIT_EXTENT_BUFFER_H
#define BTRFS_KIT_EXTENT_BUFFER_H

#include "kernel-shared/format/kerncompat.h"

/* One tree block in memory: the raw bytes as on disk, header first. */
struct extent_buffer {
	u64 start;          /* logical address (the header's bytenr when valid) */
	u32 len;            /* nodesize */
	int mirror;         /* 1-based mirror number it was read from, 0 if built in memory */
	u8 data[];          /* len bytes */
};

struct extent_buffer *alloc_extent_buffer(u64 start, u32 len);
void free_extent_buffer(struct extent_buffer *eb);
/* A copy of src (same start, len, mirror and bytes), NULL on -ENOMEM. */
struct extent_buffer *clone_extent_buffer(const struct extent_buffer *src);

#endif

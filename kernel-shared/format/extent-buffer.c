// SPDX-License-Identifier: GPL-2.0
/*
 * Extent buffers: one tree block's bytes in memory (see extent-buffer.h).  No
 * reference counting: every reader gets its own copy and frees it.
 */
#include <stdlib.h>
#include "kernel-shared/format/extent-buffer.h"
#include "kernel-shared/format/format.h"

struct extent_buffer *alloc_extent_buffer(u64 start, u32 len)
{
	struct extent_buffer *eb;

	if (len == 0 || len > BTRFS_MAX_METADATA_BLOCKSIZE)
		return NULL;
	eb = calloc(1, sizeof(*eb) + len);
	if (!eb)
		return NULL;
	eb->start = start;
	eb->len = len;
	return eb;
}

void free_extent_buffer(struct extent_buffer *eb)
{
	free(eb);
}

struct extent_buffer *clone_extent_buffer(const struct extent_buffer *src)
{
	struct extent_buffer *eb = alloc_extent_buffer(src->start, src->len);

	if (!eb)
		return NULL;
	eb->mirror = src->mirror;
	memcpy(eb->data, src->data, src->len);
	return eb;
}

// SPDX-License-Identifier: GPL-2.0
/* The trees a transaction changed and by how many blocks: see trans-tree-changes.h. */
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/engine/trans-tree-changes.h"
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/format/accessors.h"

static bool uuid_set(const u8 *uuid)
{
	for (int i = 0; i < BTRFS_UUID_SIZE; i++)
		if (uuid[i])
			return true;
	return false;
}

int btrfs_trans_tree_changes(const struct btrfs_trans *t, struct btrfs_tree_change **out, int *nr)
{
	struct btrfs_tree_change *c = NULL;
	int n = 0;

	*out = NULL;
	*nr = 0;
	if (t->nr_roots) {
		c = calloc((size_t)t->nr_roots, sizeof(*c));
		if (!c)
			return -ENOMEM;
	}
	for (int i = 0; i < t->nr_roots; i++) {
		const struct btrfs_wroot *r = t->roots[i];
		s64 d = 0;

		if (!r->dirty)
			continue;
		for (u32 h = 0; h < t->hash_size; h++)
			for (const struct trans_block *tb = t->hash[h]; tb; tb = tb->next)
				d += tb->owner == r->objectid;
		for (size_t p = 0; p < t->nr_pinned; p++)
			d -= t->pinned[p].owner == r->objectid;
		c[n].objectid = r->objectid;
		c[n].may_share = r->last_snapshot ||
				 (r->has_item && uuid_set(r->item.parent_uuid));
		c[n].blocks_delta = d;
		n++;
	}
	*out = c;
	*nr = n;
	return 0;
}

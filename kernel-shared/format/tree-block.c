// SPDX-License-Identifier: GPL-2.0
/*
 * Leaf and node editing in memory (see tree-block.h; layout in accessors.h).
 */
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/format/accessors.h"

void btrfs_leaf_make_room(struct extent_buffer *eb, int slot, const u32 *sizes, int n)
{
	u32 nr = btrfs_eb_nritems(eb), total = 0, old_end, dend, cur;
	u8 *ld = btrfs_leaf_data(eb);
	int i;

	for (i = 0; i < n; i++)
		total += sizes[i];
	old_end = slot ? btrfs_leaf_item_offset(eb, slot - 1) : btrfs_leaf_data_size(eb);
	dend = btrfs_leaf_data_end(eb);
	if ((u32)slot < nr) {
		memmove(ld + dend - total, ld + dend, old_end - dend);
		for (i = slot; i < (int)nr; i++)
			btrfs_set_leaf_item_offset(eb, i, btrfs_leaf_item_offset(eb, i) - total);
		memmove(btrfs_leaf_item(eb, slot + n), btrfs_leaf_item(eb, slot),
			(size_t)(nr - slot) * sizeof(struct btrfs_item));
	}
	cur = old_end;
	for (i = 0; i < n; i++) {
		cur -= sizes[i];
		btrfs_set_leaf_item_offset(eb, slot + i, cur);
		btrfs_set_leaf_item_size(eb, slot + i, sizes[i]);
	}
	memset(ld + cur, 0, total);
	btrfs_set_eb_nritems(eb, nr + n);
}

void btrfs_node_insert_ptr(struct extent_buffer *eb, int slot, const struct btrfs_disk_key *key,
			   u64 bytenr, u64 gen)
{
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_key_ptr *p;

	if ((u32)slot < nr)
		memmove(btrfs_node_key_ptr(eb, slot + 1), btrfs_node_key_ptr(eb, slot),
			(size_t)(nr - slot) * sizeof(struct btrfs_key_ptr));
	p = btrfs_node_key_ptr(eb, slot);
	p->key = *key;
	btrfs_set_key_blockptr(p, bytenr);
	btrfs_set_key_generation(p, gen);
	btrfs_set_eb_nritems(eb, nr + 1);
}

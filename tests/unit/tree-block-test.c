// SPDX-License-Identifier: GPL-2.0
/*
 * The one writer of the leaf and node formats (kernel-shared/format/tree-block.c) and
 * the layout helpers of accessors.h: items and key pointers inserted in a
 * scrambled order at the slots btrfs_bin_search() gives must come out in key
 * order, packed, with their data intact.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"

#define NS 4096
#define NR 40

static const u8 fsid[BTRFS_FSID_SIZE] = { 1, 2, 3 }, cuuid[BTRFS_UUID_SIZE] = { 4, 5, 6 };

/* 0..NR-1 in a scrambled order (7 is prime to NR). */
static u32 scrambled(u32 i)
{
	return (i * 7 + 3) % NR;
}

static u32 item_size(u32 objectid)
{
	return (objectid * 13) % 50;
}

static void test_leaf_insert(void)
{
	struct extent_buffer *eb = alloc_extent_buffer(SZ_16M, NS);
	u32 used = 0, end;

	btrfs_init_header(eb, fsid, cuuid, 7, BTRFS_FS_TREE_OBJECTID, 0);
	CHECK_EQ_U64(btrfs_eb_nritems(eb), 0);
	CHECK_EQ_U64(btrfs_leaf_free_space(eb), NS - sizeof(struct btrfs_header));
	for (u32 i = 0; i < NR; i++) {
		struct btrfs_key key = { scrambled(i), BTRFS_TEMPORARY_ITEM_KEY, 0 };
		u32 size = item_size(key.objectid);
		int slot;
		u8 *data;

		CHECK(btrfs_bin_search(eb, &key, &slot) == 1);
		btrfs_leaf_make_room(eb, slot, &size, 1);
		btrfs_cpu_key_to_disk(&btrfs_leaf_item(eb, slot)->key, &key);
		data = btrfs_leaf_item_ptr(eb, slot);
		for (u32 j = 0; j < size; j++)
			data[j] = (u8)(key.objectid + j);
		used += size + sizeof(struct btrfs_item);
	}
	CHECK_EQ_U64(btrfs_eb_nritems(eb), NR);
	CHECK_EQ_U64(btrfs_leaf_free_space(eb), NS - sizeof(struct btrfs_header) - used);
	end = btrfs_leaf_data_size(eb);
	for (u32 slot = 0; slot < NR; slot++) {
		struct btrfs_key key = { slot, BTRFS_TEMPORARY_ITEM_KEY, 0 };
		const u8 *data = btrfs_leaf_item_ptr(eb, (int)slot);
		struct btrfs_key got;
		int found;
		bool ok = true;

		btrfs_item_key_to_cpu(eb, &got, (int)slot);
		CHECK_EQ_U64(got.objectid, slot);
		CHECK_EQ_U64(btrfs_leaf_item_size(eb, (int)slot), item_size(slot));
		/* packed: each item's data ends where the previous one's starts */
		CHECK_EQ_U64(btrfs_leaf_item_offset(eb, (int)slot) + item_size(slot), end);
		end = btrfs_leaf_item_offset(eb, (int)slot);
		for (u32 j = 0; j < item_size(slot); j++)
			ok &= data[j] == (u8)(slot + j);
		CHECK(ok);
		CHECK(btrfs_bin_search(eb, &key, &found) == 0);
		CHECK_EQ_U64(found, slot);
	}
	CHECK_EQ_U64(btrfs_leaf_data_end(eb), end);
	free_extent_buffer(eb);
}

static void test_node_insert(void)
{
	struct extent_buffer *eb = alloc_extent_buffer(SZ_16M, NS);

	btrfs_init_header(eb, fsid, cuuid, 7, BTRFS_FS_TREE_OBJECTID, 1);
	CHECK_EQ_U64(btrfs_node_max_ptrs(eb), (NS - sizeof(struct btrfs_header)) / 33);
	for (u32 i = 0; i < NR; i++) {
		struct btrfs_key key = { scrambled(i), BTRFS_TEMPORARY_ITEM_KEY, 0 };
		struct btrfs_disk_key dk;
		int slot;

		CHECK(btrfs_bin_search(eb, &key, &slot) == 1);
		btrfs_cpu_key_to_disk(&dk, &key);
		btrfs_node_insert_ptr(eb, slot, &dk, SZ_1G + key.objectid * NS, 5 + key.objectid);
	}
	CHECK_EQ_U64(btrfs_eb_nritems(eb), NR);
	CHECK_EQ_U64(btrfs_eb_level(eb), 1);
	for (u32 slot = 0; slot < NR; slot++) {
		struct btrfs_key got;

		btrfs_node_key_to_cpu(eb, &got, (int)slot);
		CHECK_EQ_U64(got.objectid, slot);
		CHECK_EQ_U64(btrfs_node_blockptr(eb, (int)slot), SZ_1G + (u64)slot * NS);
		CHECK_EQ_U64(btrfs_node_ptr_generation(eb, (int)slot), 5 + slot);
	}
	free_extent_buffer(eb);
}

int main(void)
{
	RUN(test_leaf_insert);
	RUN(test_node_insert);
	return unit_done();
}

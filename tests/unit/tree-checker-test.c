// SPDX-License-Identifier: GPL-2.0
/*
 * Tree-checker: leaves and nodes built in memory, each rule broken once and
 * rejected with its message (grammar "corrupt <leaf|node>: root= block= slot=, reason").
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "tests/unit/tree-block-fixture.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/read/tree-checker.h"

static char msg[512];

static int run(struct extent_buffer *eb)
{
	msg[0] = 0;
	return btrfs_check_tree_block_msg(&geo, eb, msg, sizeof(msg));
}

#define EXPECT_BAD(eb, text) do {                                                   \
	CHECK(run(eb) == -EUCLEAN);                                                  \
	if (!strstr(msg, text))                                                      \
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", msg, text);         \
	CHECK(strstr(msg, text) != NULL);                                            \
} while (0)

static void inode(struct btrfs_inode_item *ii, u32 mode)
{
	memset(ii, 0, sizeof(*ii));
	btrfs_set_inode_generation(ii, 5);
	btrfs_set_inode_transid(ii, 5);
	btrfs_set_inode_mode(ii, mode);
	btrfs_set_inode_nlink(ii, 1);
}

static void test_name_hash(void)
{
	/* from a kernel-written root tree: (ROOT_TREE_DIR DIR_ITEM 2378154706) "default" */
	CHECK_EQ_U64(btrfs_name_hash("default", 7), 2378154706ULL);
}

static void test_leaf_structure(void)
{
	struct extent_buffer *eb = new_block(0, 5);

	inode(add_item(eb, 256, BTRFS_INODE_ITEM_KEY, 0, 160), 040755);
	inode(add_item(eb, 257, BTRFS_INODE_ITEM_KEY, 0, 160), 0100644);
	CHECK(run(eb) == 0);
	CHECK_STR(msg, "");

	/* key order */
	btrfs_set_disk_key_objectid(&btrfs_leaf_item(eb, 1)->key, 255);
	EXPECT_BAD(eb, "corrupt leaf: root=5 block=16777216 slot=1, bad key order");
	btrfs_set_disk_key_objectid(&btrfs_leaf_item(eb, 1)->key, 257);
	/* item end */
	btrfs_set_item_offset(btrfs_leaf_item(eb, 1), btrfs_leaf_item_offset(eb, 1) - 1);
	EXPECT_BAD(eb, "slot=1, unexpected item end");
	btrfs_set_item_offset(btrfs_leaf_item(eb, 1), btrfs_leaf_item_offset(eb, 1) + 1);
	btrfs_set_item_offset(btrfs_leaf_item(eb, 0), NS);
	EXPECT_BAD(eb, "slot=0, unexpected item end");
	btrfs_set_item_offset(btrfs_leaf_item(eb, 0), BTRFS_LEAF_DATA_SIZE(NS) - 160);
	/* nritems too big */
	btrfs_set_header_nritems(btrfs_header(eb), 1000);
	EXPECT_BAD(eb, "slot=-1, invalid nritems");
	btrfs_set_header_nritems(btrfs_header(eb), 2);
	CHECK(run(eb) == 0);
	/* header */
	btrfs_set_header_bytenr(btrfs_header(eb), BYTENR + 4096);
	EXPECT_BAD(eb, "invalid bytenr, have 16781312 expect 16777216");
	btrfs_set_header_bytenr(btrfs_header(eb), BYTENR);
	btrfs_set_header_generation(btrfs_header(eb), 12);
	EXPECT_BAD(eb, "invalid generation, have 12 expect (0, 11]");
	btrfs_set_header_generation(btrfs_header(eb), 9);
	/* empty leaf of a tree that must never be empty */
	btrfs_set_header_nritems(btrfs_header(eb), 0);
	EXPECT_BAD(eb, "invalid root, root 5 must never be empty");
	free_extent_buffer(eb);
}

static void test_inode_item(void)
{
	struct extent_buffer *eb = new_block(0, 5);
	struct btrfs_inode_item *ii = add_item(eb, 256, BTRFS_INODE_ITEM_KEY, 0, 160);

	inode(ii, 0);
	EXPECT_BAD(eb, "slot=0, key (256 1 0) invalid inode mode");
	inode(ii, 0100644 | 040000000);
	EXPECT_BAD(eb, "slot=0, key (256 1 0) unknown mode bit detected: 040000000");
	inode(ii, 0106755);   /* setuid, setgid, sticky: fine */
	CHECK(run(eb) == 0);
	inode(ii, 040755);
	btrfs_set_inode_nlink(ii, 2);
	EXPECT_BAD(eb, "invalid nlink for directory");
	inode(ii, 0100644);
	btrfs_set_inode_generation(ii, 100);
	EXPECT_BAD(eb, "invalid inode generation, have 100");
	inode(ii, 0100644);
	btrfs_set_inode_flags(ii, 1ULL << 20);
	EXPECT_BAD(eb, "unknown inode flags");
	inode(ii, 0100644);
	CHECK(run(eb) == 0);
	free_extent_buffer(eb);
}

static void test_dir_item(void)
{
	struct extent_buffer *eb = new_block(0, 5);
	u32 hash = btrfs_name_hash("foo", 3);
	struct btrfs_dir_item *di = add_item(eb, 256, BTRFS_DIR_ITEM_KEY, hash, 33);
	struct btrfs_key loc = { 257, BTRFS_INODE_ITEM_KEY, 0 };

	btrfs_cpu_key_to_disk(&di->location, &loc);
	btrfs_set_dir_name_len(di, 3);
	btrfs_set_dir_type(di, BTRFS_FT_REG_FILE);
	memcpy(btrfs_dir_name_ptr(di), "foo", 3);
	CHECK(run(eb) == 0);
	memcpy(btrfs_dir_name_ptr(di), "fop", 3);
	EXPECT_BAD(eb, "name hash mismatch with key");
	memcpy(btrfs_dir_name_ptr(di), "foo", 3);
	btrfs_set_dir_name_len(di, 4);
	EXPECT_BAD(eb, "dir item name/data overflow");
	btrfs_set_dir_name_len(di, 3);
	btrfs_set_dir_type(di, BTRFS_FT_MAX);
	EXPECT_BAD(eb, "invalid dir item type");
	btrfs_set_dir_type(di, BTRFS_FT_XATTR);
	EXPECT_BAD(eb, "xattr dir item type in a non-xattr item");
	free_extent_buffer(eb);
}

static void test_items_by_type(void)
{
	struct extent_buffer *eb = new_block(0, 2);
	struct btrfs_block_group_item *bg;
	struct btrfs_extent_item *ei;
	struct btrfs_extent_inline_ref *iref;

	bg = add_item(eb, SZ_16M, BTRFS_BLOCK_GROUP_ITEM_KEY, SZ_8M, sizeof(*bg));
	btrfs_set_block_group_chunk_objectid(bg, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_block_group_flags(bg, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1);
	CHECK(run(eb) == 0);
	btrfs_set_block_group_flags(bg, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1 |
				    BTRFS_BLOCK_GROUP_RAID0);
	EXPECT_BAD(eb, "invalid profile flags, have 0x18 (2 bits set)");
	btrfs_set_block_group_flags(bg, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_SYSTEM);
	EXPECT_BAD(eb, "invalid type");
	btrfs_set_block_group_flags(bg, BTRFS_BLOCK_GROUP_DATA);
	btrfs_set_block_group_used(bg, SZ_16M);
	EXPECT_BAD(eb, "invalid block group used");
	btrfs_set_block_group_used(bg, 0);

	/* metadata item with a data ref inline */
	ei = add_item(eb, SZ_16M + SZ_8M, BTRFS_METADATA_ITEM_KEY, 0, sizeof(*ei) + 9);
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, 5);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	iref = (void *)(ei + 1);
	btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(iref, 5);
	CHECK(run(eb) == 0);
	btrfs_set_extent_inline_ref_type(iref, BTRFS_SHARED_DATA_REF_KEY);
	EXPECT_BAD(eb, "inline ref item overflows extent item");
	btrfs_set_extent_inline_ref_type(iref, 99);
	EXPECT_BAD(eb, "unknown inline ref type 99");
	btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK | BTRFS_EXTENT_FLAG_DATA);
	EXPECT_BAD(eb, "invalid extent flag");
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	btrfs_set_extent_refs(ei, 0);
	EXPECT_BAD(eb, "invalid extent refs, have 0 expect >= inline 1");
	free_extent_buffer(eb);

	eb = new_block(0, 7);
	add_item(eb, BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, SZ_16M, 8);
	CHECK(run(eb) == 0);
	add_item(eb, BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, SZ_16M + 4096, 4);
	EXPECT_BAD(eb, "slot=1, key (18446744073709551606 128 16781312) csum end range (16785408)");
	free_extent_buffer(eb);

	eb = new_block(0, 5);
	{
		struct btrfs_file_extent_item *fi = add_item(eb, 257, BTRFS_EXTENT_DATA_KEY, 0,
							     sizeof(*fi));

		btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
		btrfs_set_file_extent_num_bytes(fi, 4096);
		btrfs_set_file_extent_ram_bytes(fi, 4096);
		CHECK(run(eb) == 0);
		btrfs_set_file_extent_type(fi, 3);
		EXPECT_BAD(eb, "invalid type for file extent, have 3");
		btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_PREALLOC);
		btrfs_set_file_extent_disk_bytenr(fi, 4097);
		EXPECT_BAD(eb, "invalid disk_bytenr for file extent");
	}
	free_extent_buffer(eb);
}

/* Inline refs: types ascending, offsets (data refs: their hash) descending within a type. */
static void test_inline_ref_order(void)
{
	struct extent_buffer *eb = new_block(0, 2);
	struct btrfs_extent_item *ei;
	struct btrfs_extent_inline_ref *r0, *r1;
	struct btrfs_extent_data_ref *d0, *d1;
	u32 dsize = btrfs_extent_inline_ref_size(BTRFS_EXTENT_DATA_REF_KEY);
	u64 h0, h1;

	ei = add_item(eb, SZ_16M, BTRFS_METADATA_ITEM_KEY, 0, sizeof(*ei) + 2 * 9);
	btrfs_set_extent_refs(ei, 2);
	btrfs_set_extent_generation(ei, 5);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
	r0 = (void *)(ei + 1);
	r1 = (void *)((u8 *)r0 + 9);
	btrfs_set_extent_inline_ref_type(r0, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(r0, 257);
	btrfs_set_extent_inline_ref_type(r1, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(r1, 256);
	CHECK(run(eb) == 0);                       /* as the kernel writes them */
	btrfs_set_extent_inline_ref_offset(r0, 255);
	EXPECT_BAD(eb, "corrupt leaf: root=2 block=16777216 slot=0, key (16777216 169 0) inline ref out-of-order: type 176 offset 0x100 after offset 0xff");
	btrfs_set_extent_inline_ref_type(r0, BTRFS_SHARED_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(r0, SZ_32M);
	EXPECT_BAD(eb, "inline ref out-of-order: type 176 after type 182");
	free_extent_buffer(eb);

	/* a data extent with two inline extent data refs, ordered by hash */
	eb = new_block(0, 2);
	ei = add_item(eb, SZ_16M, BTRFS_EXTENT_ITEM_KEY, 4096, sizeof(*ei) + 2 * dsize);
	btrfs_set_extent_refs(ei, 2);
	btrfs_set_extent_generation(ei, 5);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	r0 = (void *)(ei + 1);
	r1 = (void *)((u8 *)r0 + dsize);
	d0 = (void *)&r0->offset;
	d1 = (void *)&r1->offset;
	h0 = btrfs_extent_data_ref_hash(5, 257, 0);
	h1 = btrfs_extent_data_ref_hash(5, 258, 0);
	CHECK(h0 != h1);
	btrfs_set_extent_inline_ref_type(r0, BTRFS_EXTENT_DATA_REF_KEY);
	btrfs_set_extent_inline_ref_type(r1, BTRFS_EXTENT_DATA_REF_KEY);
	btrfs_set_extent_data_ref_root(d0, 5);
	btrfs_set_extent_data_ref_root(d1, 5);
	btrfs_set_extent_data_ref_objectid(d0, h0 > h1 ? 257 : 258);
	btrfs_set_extent_data_ref_objectid(d1, h0 > h1 ? 258 : 257);
	btrfs_set_extent_data_ref_count(d0, 1);
	btrfs_set_extent_data_ref_count(d1, 1);
	CHECK(run(eb) == 0);
	btrfs_set_extent_data_ref_objectid(d0, h0 > h1 ? 258 : 257);
	btrfs_set_extent_data_ref_objectid(d1, h0 > h1 ? 257 : 258);
	EXPECT_BAD(eb, "slot=0, key (16777216 168 4096) inline ref out-of-order: type 178 offset");
	free_extent_buffer(eb);

	/* data ref hashes btrfs-progs 6.19 prints in the corpus (default-rich) */
	CHECK_EQ_U64(btrfs_extent_data_ref_hash(5, 303, 0), 0xdfb591f2a542a55ULL);
	CHECK_EQ_U64(btrfs_extent_data_ref_hash(5, 303, 2097152), 0xdfb591fafa03cd8ULL);
}

/* An inline file extent only at file offset 0. */
static void test_inline_extent_offset(void)
{
	struct extent_buffer *eb = new_block(0, 5);
	u32 isize = BTRFS_FILE_EXTENT_INLINE_DATA_START + 10;
	struct btrfs_file_extent_item *fi = add_item(eb, 257, BTRFS_EXTENT_DATA_KEY, 0, isize);

	btrfs_set_file_extent_generation(fi, 5);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	btrfs_set_file_extent_ram_bytes(fi, 10);
	CHECK(run(eb) == 0);
	free_extent_buffer(eb);

	eb = new_block(0, 5);
	fi = add_item(eb, 257, BTRFS_EXTENT_DATA_KEY, 4096, isize);
	btrfs_set_file_extent_generation(fi, 5);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	btrfs_set_file_extent_ram_bytes(fi, 10);
	EXPECT_BAD(eb, "slot=0, key (257 108 4096) invalid file_offset for inline file extent, have 4096 expect 0");
	free_extent_buffer(eb);
}

static void test_node(void)
{
	struct extent_buffer *eb = new_block(1, 5);
	int i;

	for (i = 0; i < 3; i++) {
		struct btrfs_key_ptr *kp = btrfs_node_key_ptr(eb, i);
		struct btrfs_key k = { 256 + i, 1, 0 };

		btrfs_cpu_key_to_disk(&kp->key, &k);
		btrfs_set_key_blockptr(kp, SZ_32M + i * 4096);
		btrfs_set_key_generation(kp, 8);
	}
	btrfs_set_header_nritems(btrfs_header(eb), 3);
	CHECK(run(eb) == 0);
	/* the last pointer is checked too */
	btrfs_set_key_blockptr(btrfs_node_key_ptr(eb, 2), 0);
	EXPECT_BAD(eb, "corrupt node: root=5 block=16777216 slot=2, invalid NULL node pointer");
	btrfs_set_key_blockptr(btrfs_node_key_ptr(eb, 2), SZ_32M + 100);
	EXPECT_BAD(eb, "slot=2, unaligned pointer");
	btrfs_set_key_blockptr(btrfs_node_key_ptr(eb, 2), SZ_32M + 8192);
	btrfs_set_key_generation(btrfs_node_key_ptr(eb, 2), 0);
	EXPECT_BAD(eb, "slot=2, invalid generation, have 0");
	btrfs_set_key_generation(btrfs_node_key_ptr(eb, 2), 8);
	btrfs_set_disk_key_objectid(&btrfs_node_key_ptr(eb, 2)->key, 257);
	EXPECT_BAD(eb, "slot=2, bad key order");
	btrfs_set_header_nritems(btrfs_header(eb), 0);
	EXPECT_BAD(eb, "invalid nritems, have 0");
	btrfs_set_header_level(btrfs_header(eb), 8);
	EXPECT_BAD(eb, "invalid level, have 8");
	free_extent_buffer(eb);
}

int main(void)
{
	RUN(test_name_hash);
	RUN(test_leaf_structure);
	RUN(test_inode_item);
	RUN(test_dir_item);
	RUN(test_items_by_type);
	RUN(test_inline_ref_order);
	RUN(test_inline_extent_offset);
	RUN(test_node);
	return unit_done();
}

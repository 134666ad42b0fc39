// SPDX-License-Identifier: GPL-2.0
/*
 * On-disk layout: structure sizes and field offsets against the btrfs
 * on-disk format documentation (typed here independently of accessors.def),
 * the field table's own consistency (no overlaps, inside the struct), and
 * accessor round trips at unaligned addresses.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/accessors.h"

#define OFF(type, member) ((unsigned long long)offsetof(struct type, member))

static void test_sizes(void)
{
	CHECK_EQ_U64(sizeof(struct btrfs_super_block), 4096);
	CHECK_EQ_U64(sizeof(struct btrfs_header), 101);
	CHECK_EQ_U64(sizeof(struct btrfs_item), 25);
	CHECK_EQ_U64(sizeof(struct btrfs_disk_key), 17);
	CHECK_EQ_U64(sizeof(struct btrfs_key_ptr), 33);
	CHECK_EQ_U64(sizeof(struct btrfs_inode_item), 160);
	CHECK_EQ_U64(sizeof(struct btrfs_root_item), 439);
	CHECK_EQ_U64(sizeof(struct btrfs_chunk), 48);
	CHECK_EQ_U64(sizeof(struct btrfs_stripe), 32);
	CHECK_EQ_U64(btrfs_chunk_item_size(2), 112);
	CHECK_EQ_U64(sizeof(struct btrfs_dev_item), 98);
	CHECK_EQ_U64(sizeof(struct btrfs_root_backup), 168);
	CHECK_EQ_U64(sizeof(struct btrfs_file_extent_item), 53);
	CHECK_EQ_U64(sizeof(struct btrfs_dir_item), 30);
	CHECK_EQ_U64(sizeof(struct btrfs_extent_item), 24);
	CHECK_EQ_U64(sizeof(struct btrfs_balance_item), 448);
	CHECK_EQ_U64(sizeof(struct btrfs_dev_extent), 48);
	CHECK_EQ_U64(sizeof(struct btrfs_free_space_header), 41);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_EXTENT_DATA_REF_KEY), 29);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_SHARED_DATA_REF_KEY), 13);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_TREE_BLOCK_REF_KEY), 9);
	CHECK_EQ_U64(btrfs_extent_inline_ref_size(BTRFS_EXTENT_ITEM_KEY), 0);
}

/* Offsets from the documented superblock table (hex as documented). */
static void test_super_offsets(void)
{
	CHECK_EQ_U64(OFF(btrfs_super_block, fsid), 0x20);
	CHECK_EQ_U64(OFF(btrfs_super_block, bytenr), 0x30);
	CHECK_EQ_U64(OFF(btrfs_super_block, magic), 0x40);
	CHECK_EQ_U64(OFF(btrfs_super_block, generation), 0x48);
	CHECK_EQ_U64(OFF(btrfs_super_block, root), 0x50);
	CHECK_EQ_U64(OFF(btrfs_super_block, chunk_root), 0x58);
	CHECK_EQ_U64(OFF(btrfs_super_block, log_root), 0x60);
	CHECK_EQ_U64(OFF(btrfs_super_block, total_bytes), 0x70);
	CHECK_EQ_U64(OFF(btrfs_super_block, root_dir_objectid), 0x80);
	CHECK_EQ_U64(OFF(btrfs_super_block, sectorsize), 0x90);
	CHECK_EQ_U64(OFF(btrfs_super_block, sys_chunk_array_size), 0xa0);
	CHECK_EQ_U64(OFF(btrfs_super_block, chunk_root_generation), 0xa4);
	CHECK_EQ_U64(OFF(btrfs_super_block, incompat_flags), 0xbc);
	CHECK_EQ_U64(OFF(btrfs_super_block, csum_type), 0xc4);
	CHECK_EQ_U64(OFF(btrfs_super_block, auth_key_check), 0x30b);
	CHECK_EQ_U64(OFF(btrfs_super_block, root_level), 0xc6);
	CHECK_EQ_U64(OFF(btrfs_super_block, dev_item), 0xc9);
	CHECK_EQ_U64(OFF(btrfs_super_block, label), 0x12b);
	CHECK_EQ_U64(OFF(btrfs_super_block, cache_generation), 0x22b);
	CHECK_EQ_U64(OFF(btrfs_super_block, uuid_tree_generation), 0x233);
	CHECK_EQ_U64(OFF(btrfs_super_block, metadata_uuid), 0x23b);
	CHECK_EQ_U64(OFF(btrfs_super_block, sys_chunk_array), 0x32b);
	CHECK_EQ_U64(OFF(btrfs_super_block, super_roots), 0xb2b);
	CHECK_EQ_U64(OFF(btrfs_super_block, padding), 0xdcb);
	CHECK_EQ_U64(btrfs_sb_offset(0), 0x10000);
	CHECK_EQ_U64(btrfs_sb_offset(1), 0x4000000);
	CHECK_EQ_U64(btrfs_sb_offset(2), 0x4000000000ULL);
	CHECK_EQ_U64(BTRFS_MAGIC, 0x4D5F53665248425FULL);
	CHECK(!memcmp("_BHRfS_M", &(u64){ htole64(BTRFS_MAGIC) }, 8));
}

static void test_item_offsets(void)
{
	CHECK_EQ_U64(OFF(btrfs_header, bytenr), 0x30);
	CHECK_EQ_U64(OFF(btrfs_header, chunk_tree_uuid), 0x40);
	CHECK_EQ_U64(OFF(btrfs_header, generation), 0x50);
	CHECK_EQ_U64(OFF(btrfs_header, owner), 0x58);
	CHECK_EQ_U64(OFF(btrfs_header, nritems), 0x60);
	CHECK_EQ_U64(OFF(btrfs_header, level), 0x64);
	CHECK_EQ_U64(OFF(btrfs_dev_item, uuid), 0x42);
	CHECK_EQ_U64(OFF(btrfs_dev_item, fsid), 0x52);
	CHECK_EQ_U64(OFF(btrfs_inode_item, flags), 0x40);
	CHECK_EQ_U64(OFF(btrfs_inode_item, atime), 0x70);
	CHECK_EQ_U64(OFF(btrfs_inode_item, otime), 0x94);
	CHECK_EQ_U64(OFF(btrfs_root_item, generation), 0xa0);
	CHECK_EQ_U64(OFF(btrfs_root_item, bytenr), 0xb0);
	CHECK_EQ_U64(OFF(btrfs_root_item, refs), 0xd8);
	CHECK_EQ_U64(OFF(btrfs_root_item, drop_progress), 0xdc);
	CHECK_EQ_U64(OFF(btrfs_root_item, level), 0xee);
	CHECK_EQ_U64(OFF(btrfs_root_item, generation_v2), 0xef);
	CHECK_EQ_U64(OFF(btrfs_root_item, uuid), 0xf7);
	CHECK_EQ_U64(OFF(btrfs_root_item, ctransid), 0x127);
	CHECK_EQ_U64(OFF(btrfs_root_item, ctime), 0x147);
	CHECK_EQ_U64(OFF(btrfs_root_item, reserved), 0x177);
	CHECK_EQ_U64(OFF(btrfs_chunk, num_stripes), 0x2c);
	CHECK_EQ_U64(OFF(btrfs_chunk, stripe), 0x30);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, type), 0x14);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, disk_bytenr), 0x15);
	CHECK_EQ_U64(OFF(btrfs_file_extent_item, num_bytes), 0x2d);
	CHECK_EQ_U64(OFF(btrfs_dir_item, transid), 0x11);
	CHECK_EQ_U64(OFF(btrfs_dir_item, type), 0x1d);
	CHECK_EQ_U64(OFF(btrfs_disk_balance_args, flags), 0x40);
	CHECK_EQ_U64(OFF(btrfs_disk_balance_args, stripes_min), 0x50);
	CHECK_EQ_U64(OFF(btrfs_balance_item, meta), 0x90);
	CHECK_EQ_U64(OFF(btrfs_balance_item, sys), 0x118);
}

/* Every row of the field table lies inside its struct and rows do not overlap
 * (except the documented unions of balance args). */
struct field_row {
	const char *tag, *name;
	unsigned off, bytes, struct_size;
};

static const struct field_row rows[] = {
#define BTRFS_FIELD(tag, name, member, bits, o) \
	{ #tag, #name, (o), (bits) / 8, sizeof(struct btrfs_##tag) },
#include "kernel-shared/format/accessors.def"
#undef BTRFS_FIELD
};

static void test_field_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		CHECK(rows[i].off + rows[i].bytes <= rows[i].struct_size);
		if (i && !strcmp(rows[i].tag, rows[i - 1].tag) &&
		    strcmp(rows[i].tag, "disk_balance_args")) {
			if (rows[i - 1].off + rows[i - 1].bytes > rows[i].off)
				fprintf(stderr, "overlap: %s %s\n", rows[i - 1].name, rows[i].name);
			CHECK(rows[i - 1].off + rows[i - 1].bytes <= rows[i].off);
		}
	}
	CHECK(ARRAY_SIZE(rows) > 200);
}

static void test_accessors_unaligned(void)
{
	u8 *buf = calloc(1, 4096 + 3);
	struct btrfs_super_block *sb = (struct btrfs_super_block *)(buf + 3);
	struct btrfs_inode_item *ii = (struct btrfs_inode_item *)(buf + 1);
	struct btrfs_key k1 = { 256, BTRFS_INODE_ITEM_KEY, 0 }, k2;
	struct btrfs_disk_key dk;

	btrfs_set_super_generation(sb, 0x1122334455667788ULL);
	CHECK_EQ_U64(btrfs_super_generation(sb), 0x1122334455667788ULL);
	CHECK_EQ_U64(buf[3 + 0x48], 0x88);     /* little-endian on disk */
	CHECK_EQ_U64(buf[3 + 0x4f], 0x11);
	btrfs_set_super_csum_type(sb, 0xbeef);
	CHECK_EQ_U64(get_unaligned_le16(buf + 3 + 0xc4), 0xbeef);
	btrfs_set_device_id(&sb->dev_item, 7);
	CHECK_EQ_U64(get_unaligned_le64(buf + 3 + 0xc9), 7);
	btrfs_set_backup_csum_root_level(&sb->super_roots[3], 2);
	CHECK_EQ_U64(buf[3 + 0xb2b + 3 * 168 + 157], 2);
	btrfs_set_inode_nlink(ii, 0xdeadbeef);
	CHECK_EQ_U64(btrfs_inode_nlink(ii), 0xdeadbeef);
	CHECK_EQ_U64(btrfs_stack_inode_nlink(ii), 0xdeadbeef);

	btrfs_cpu_key_to_disk(&dk, &k1);
	btrfs_disk_key_to_cpu(&k2, &dk);
	CHECK(btrfs_comp_cpu_keys(&k1, &k2) == 0);
	k2.type = BTRFS_INODE_REF_KEY;
	CHECK(btrfs_comp_keys(&dk, &k2) < 0);
	k2.objectid = 255;
	CHECK(btrfs_comp_keys(&dk, &k2) > 0);
	k2 = k1;
	k2.offset = -1ULL;
	CHECK(btrfs_comp_cpu_keys(&k1, &k2) < 0);
	free(buf);
}

static void test_leaf_helpers(void)
{
	struct extent_buffer *eb = calloc(1, sizeof(*eb) + 4096);
	struct btrfs_item *item;
	struct btrfs_key key;

	eb->len = 4096;
	btrfs_set_header_nritems(btrfs_header(eb), 2);
	item = btrfs_leaf_item(eb, 1);
	CHECK_EQ_U64((u8 *)item - eb->data, 101 + 25);
	btrfs_set_item_offset(item, 4000);
	btrfs_set_item_size(item, 10);
	btrfs_set_disk_key_objectid(&item->key, 5);
	btrfs_set_disk_key_type(&item->key, BTRFS_ROOT_ITEM_KEY);
	CHECK_EQ_U64((u8 *)btrfs_leaf_item_ptr(eb, 1) - eb->data, 4101);
	CHECK_EQ_U64(btrfs_leaf_item_size(eb, 1), 10);
	btrfs_item_key_to_cpu(eb, &key, 1);
	CHECK_EQ_U64(key.objectid, 5);
	CHECK_EQ_U64(key.type, BTRFS_ROOT_ITEM_KEY);
	CHECK_EQ_U64((u8 *)btrfs_node_key_ptr(eb, 2) - eb->data, 101 + 66);
	CHECK_EQ_U64(btrfs_eb_nritems(eb), 2);
	free(eb);
}

int main(void)
{
	RUN(test_sizes);
	RUN(test_super_offsets);
	RUN(test_item_offsets);
	RUN(test_field_table);
	RUN(test_accessors_unaligned);
	RUN(test_leaf_helpers);
	return unit_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The mkfs building blocks: the tree builder (multi-level trees, every block
 * through the tree-checker, items read back in order), the chunk planner
 * (layouts btrfs-progs 6.19 makes) and the RAID6 syndrome.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "mkfs/tree-builder.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/format/raid6.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/ctree.h"

struct collect {
	struct btrfs_fs_geometry geo;
	u64 next_offset;           /* next dev extent offset expected in leaf order */
	u32 leaves, nodes, items, bad;
	int max_level;
};

static int collect_block(struct extent_buffer *eb, void *p)
{
	struct collect *c = p;
	int level = btrfs_eb_level(eb);

	if (btrfs_check_tree_block(&c->geo, eb) < 0)
		c->bad++;
	if (level > c->max_level)
		c->max_level = level;
	if (level) {
		c->nodes++;
		return 0;
	}
	c->leaves++;
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_key key;
		struct btrfs_dev_extent *de = btrfs_leaf_item_ptr(eb, i);

		btrfs_item_key_to_cpu(eb, &key, i);
		if (key.offset != c->next_offset || btrfs_dev_extent_chunk_offset(de) != key.offset)
			c->bad++;
		c->next_offset += SZ_1M;
		c->items++;
	}
	return 0;
}

static void test_tree_builder_levels(void)
{
	const u32 nodesize = 4096, n = 20000;
	struct tree_builder tb;
	struct collect c = { 0 };
	struct tree_builder_params p;
	u8 fsid[16] = { 1, 2, 3 }, cuuid[16] = { 4, 5, 6 };
	u64 *bytenr;
	int blocks;

	tree_builder_init(&tb, BTRFS_DEV_TREE_OBJECTID);
	/* Added in reverse order: the builder sorts. */
	for (u32 i = n; i-- > 0;) {
		struct btrfs_dev_extent *de = tree_builder_add_key(&tb, 1, BTRFS_DEV_EXTENT_KEY,
							 SZ_1M + (u64)i * SZ_1M, sizeof(*de));

		CHECK(de != NULL);
		btrfs_set_dev_extent_chunk_tree(de, BTRFS_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_objectid(de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_dev_extent_chunk_offset(de, SZ_1M + (u64)i * SZ_1M);
		btrfs_set_dev_extent_length(de, SZ_1M);
	}
	blocks = tree_builder_plan(&tb, nodesize);
	CHECK(blocks > 1);
	CHECK(tb.levels == 3);   /* 20000 items of 73 bytes: ~370 leaves, 4 nodes, 1 root */
	bytenr = calloc(blocks, sizeof(*bytenr));
	for (int i = 0; i < blocks; i++)
		bytenr[i] = SZ_16M + (u64)i * nodesize;
	p.generation = 7;
	p.fsid = fsid;
	p.chunk_tree_uuid = cuuid;
	c.geo.nodesize = nodesize;
	c.geo.sectorsize = 4096;
	c.geo.csum_type = 0;
	c.geo.csum_size = 4;
	c.geo.super_generation = 7;
	memcpy(c.geo.fsid, fsid, 16);
	memcpy(c.geo.chunk_tree_uuid, cuuid, 16);
	c.next_offset = SZ_1M;
	CHECK(tree_builder_build(&tb, &p, bytenr, collect_block, &c) == 0);
	CHECK_EQ_U64(c.items, n);
	CHECK_EQ_U64(c.bad, 0);
	CHECK_EQ_U64(c.leaves + c.nodes, blocks);
	CHECK_EQ_U64(c.max_level, 2);
	/* Duplicate keys are refused. */
	tree_builder_add_key(&tb, 1, BTRFS_DEV_EXTENT_KEY, SZ_1M, sizeof(struct btrfs_dev_extent));
	CHECK(tree_builder_plan(&tb, nodesize) == -EEXIST);
	free(bytenr);
	tree_builder_release(&tb);
}

static void test_tree_builder_empty(void)
{
	struct tree_builder tb;

	tree_builder_init(&tb, BTRFS_CSUM_TREE_OBJECTID);
	CHECK(tree_builder_plan(&tb, 16384) == 1);
	CHECK(tree_builder_root_level(&tb) == 0);
	tree_builder_release(&tb);
}

/* The stripes of a chunk as "devid@MiB ...". */
static void stripes(const struct chunk_placement *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < c->num_stripes; i++)
		off += snprintf(buf + off, len - off, "%s%llu@%llu", i ? " " : "",
				(unsigned long long)c->stripes[i].devid,
				(unsigned long long)(c->stripes[i].physical / SZ_1M));
}

/* mkfs.btrfs -d raid1c3 -m raid1c4 on 4 x 200 MiB, as btrfs-progs makes it. */
static void test_chunks_raid1c3_raid1c4(void)
{
	struct chunk_alloc ca;
	u64 sizes[4] = { 200 * SZ_1M, 200 * SZ_1M, 200 * SZ_1M, 200 * SZ_1M };
	struct chunk_placement *t[3], *sys, *meta, *data;
	char buf[128];

	CHECK(chunk_alloc_init(&ca, 4, sizes, 4096) == 0);
	t[0] = chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_SYSTEM, 1, 4 * SZ_1M);
	t[1] = chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_METADATA, 1, SZ_8M);
	t[2] = chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_DATA, 1, SZ_8M);
	sys = chunk_alloc_new_chunk(&ca, BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_RAID1C4);
	meta = chunk_alloc_new_chunk(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1C4);
	data = chunk_alloc_new_chunk(&ca, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1C3);
	CHECK(!IS_ERR(sys) && !IS_ERR(meta) && !IS_ERR(data));
	for (int i = 0; i < 3; i++)
		chunk_alloc_remove_chunk(&ca, t[i]);
	CHECK_EQ_U64(sys->logical, 21 * SZ_1M);
	CHECK_EQ_U64(sys->length, SZ_8M);
	stripes(sys, buf, sizeof(buf));
	CHECK_STR(buf, "1@21 2@1 3@1 4@1");
	CHECK_EQ_U64(meta->logical, 29 * SZ_1M);
	CHECK_EQ_U64(meta->length, 32 * SZ_1M);
	stripes(meta, buf, sizeof(buf));
	CHECK_STR(buf, "1@29 2@9 3@9 4@9");
	CHECK_EQ_U64(data->logical, 61 * SZ_1M);
	CHECK_EQ_U64(data->length, 64 * SZ_1M);
	stripes(data, buf, sizeof(buf));
	CHECK_STR(buf, "2@41 3@41 4@41");
	CHECK_EQ_U64(chunk_alloc_find_device(&ca, 1)->bytes_used, 40 * SZ_1M);
	CHECK_EQ_U64(chunk_alloc_find_device(&ca, 2)->bytes_used, 104 * SZ_1M);
	chunk_alloc_release(&ca);
}

/* One device: DUP metadata 10% of the filesystem, at least 32 MiB, 256 MiB at most. */
static void test_chunks_dup_sizes(void)
{
	static const struct { u64 size, meta; } cases[] = {
		{ 200 * SZ_1M, 32 * SZ_1M },
		{ SZ_1G, 53673984 },        /* 10% / 2, in 64 KiB units */
		{ 3 * SZ_1G, SZ_256M },
		{ 60 * SZ_1G, SZ_1G },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct chunk_alloc ca;
		struct chunk_placement *m;

		CHECK(chunk_alloc_init(&ca, 1, &cases[i].size, 4096) == 0);
		chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_SYSTEM, 1, 4 * SZ_1M);
		chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_METADATA, 1, SZ_8M);
		chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_DATA, 1, SZ_8M);
		chunk_alloc_new_chunk(&ca, BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_DUP);
		m = chunk_alloc_new_chunk(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP);
		CHECK(!IS_ERR(m));
		if (!IS_ERR(m)) {
			CHECK_EQ_U64(m->length, cases[i].meta);
			CHECK_EQ_U64(m->stripes[0].physical, 37 * SZ_1M);
			CHECK_EQ_U64(m->stripes[1].physical, 37 * SZ_1M + cases[i].meta);
		}
		chunk_alloc_release(&ca);
	}
}

/* A block never lands on a superblock copy (64 MiB here, inside the DUP chunk). */
static void test_alloc_skips_super(void)
{
	struct chunk_alloc ca;
	u64 size = 200 * SZ_1M, logical, super_logical;
	struct chunk_placement *m;
	bool hit = false;

	CHECK(chunk_alloc_init(&ca, 1, &size, 4096) == 0);
	m = chunk_alloc_new_chunk_on_device(&ca, BTRFS_BLOCK_GROUP_METADATA, 1, 100 * SZ_1M);
	CHECK(!IS_ERR(m));
	super_logical = m->logical + (SZ_64M - m->stripes[0].physical);
	while (chunk_alloc_bytes(&ca, BTRFS_BLOCK_GROUP_METADATA, 16384, 16384, &logical) == 0)
		if (logical <= super_logical && super_logical < logical + 16384)
			hit = true;
	CHECK(!hit);
	CHECK(m->used < m->length);
	chunk_alloc_release(&ca);
}

static u8 gf_mul(u8 a, u8 b)
{
	u8 r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (u8)((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
		b >>= 1;
	}
	return r;
}

static void test_raid6_pq(void)
{
	u8 d[3][8], p[8], q[8];
	const u8 *units[3] = { d[0], d[1], d[2] };

	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 8; b++)
			d[i][b] = (u8)(i * 37 + b * 11 + 1);
	raid6_gen_pq(3, 8, units, p, q);
	for (int b = 0; b < 8; b++) {
		u8 wp = d[0][b] ^ d[1][b] ^ d[2][b];
		/* Q = D0 + 2 D1 + 4 D2 */
		u8 wq = d[0][b] ^ gf_mul(2, d[1][b]) ^ gf_mul(4, d[2][b]);

		CHECK_EQ_U64(p[b], wp);
		CHECK_EQ_U64(q[b], wq);
	}
}

int main(void)
{
	RUN(test_tree_builder_levels);
	RUN(test_tree_builder_empty);
	RUN(test_chunks_raid1c3_raid1c4);
	RUN(test_chunks_dup_sizes);
	RUN(test_alloc_skips_super);
	RUN(test_raid6_pq);
	return unit_done();
}

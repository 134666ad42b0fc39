// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk mapping for every profile on hand-built chunks: device stripe and
 * physical offset for many logical addresses, incl. RAID10 groups and the
 * RAID5/6 parity rotation; chunk item validation and the sorted map.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/accessors.h"

#define L0 (1ULL << 30)
#define K64 0x10000ULL

static struct btrfs_chunk_map *mk(u64 type, int n, int sub)
{
	struct btrfs_chunk_map *c = calloc(1, sizeof(*c) + n * sizeof(c->stripes[0]));
	int i;

	c->logical = L0;
	c->length = 6 * 64 * K64;
	c->type = type;
	c->stripe_len = K64;
	c->num_stripes = n;
	c->sub_stripes = sub;
	for (i = 0; i < n; i++) {
		c->stripes[i].devid = i + 1;
		c->stripes[i].physical = (u64)(i + 1) << 28;   /* device i+1 extent at (i+1) * 256M */
	}
	return c;
}

/* A RAID5/6 chunk of n stripes, with the data stripes and mirrors its profile gives. */
static struct btrfs_chunk_map *mk_parity(u64 type, int n, u64 data_stripes, u64 mirrors)
{
	struct btrfs_chunk_map *c = mk(type, n, 1);

	CHECK_EQ_U64(btrfs_chunk_data_stripes(c), data_stripes);
	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), mirrors);
	return c;
}

/* Expect logical L0+off, mirror m on stripe idx at that stripe's start + dev_off. */
static void expect(const struct btrfs_chunk_map *c, u64 off, int m, int idx, u64 dev_off)
{
	struct btrfs_io_stripe io;

	CHECK(btrfs_chunk_map_one(c, L0 + off, m, &io) == 0);
	CHECK_EQ_U64(io.stripe_index, idx);
	CHECK_EQ_U64(io.devid, (u64)idx + 1);
	CHECK_EQ_U64(io.physical, ((u64)(idx + 1) << 28) + dev_off);
}

static void test_single_dup_raid1(void)
{
	struct btrfs_chunk_map *c = mk(BTRFS_BLOCK_GROUP_METADATA, 1, 1);
	struct btrfs_io_stripe io;

	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 1);
	expect(c, 0, 1, 0, 0);
	expect(c, 3 * K64 + 4096, 1, 0, 3 * K64 + 4096);
	CHECK(btrfs_chunk_map_one(c, L0 + 5, 2, &io) == -EINVAL);
	CHECK(btrfs_chunk_map_one(c, L0 - 1, 1, &io) == -EINVAL);
	CHECK(btrfs_chunk_map_one(c, L0 + c->length, 1, &io) == -EINVAL);
	free(c);

	c = mk(BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP, 2, 1);
	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 2);
	expect(c, 7 * K64 + 16384, 1, 0, 7 * K64 + 16384);
	expect(c, 7 * K64 + 16384, 2, 1, 7 * K64 + 16384);
	free(c);

	c = mk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1C3, 3, 1);
	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 3);
	expect(c, 12345 * 4096ULL % c->length, 3, 2, 12345 * 4096ULL % c->length);
	free(c);

	c = mk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1C4, 4, 1);
	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 4);
	expect(c, K64, 4, 3, K64);
	expect(c, K64, 1, 0, K64);
	free(c);
}

static void test_raid0(void)
{
	struct btrfs_chunk_map *c = mk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID0, 3, 1);
	struct btrfs_io_stripe io;

	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 1);
	expect(c, 0, 1, 0, 0);
	expect(c, K64, 1, 1, 0);
	expect(c, 2 * K64 + 5, 1, 2, 5);
	expect(c, 3 * K64, 1, 0, K64);
	expect(c, 10 * K64 + 100, 1, 1, 3 * K64 + 100);   /* unit 10: stripe 1, row 3 */
	CHECK(btrfs_chunk_map_one(c, L0 + K64 + 4096, 1, &io) == 0);
	CHECK_EQ_U64(io.len, K64 - 4096);                   /* to the end of the unit */
	free(c);
}

static void test_raid10(void)
{
	struct btrfs_chunk_map *c = mk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID10, 4, 2);

	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), 2);
	CHECK_EQ_U64(btrfs_chunk_data_stripes(c), 2);
	expect(c, 0, 1, 0, 0);
	expect(c, 0, 2, 1, 0);
	expect(c, K64 + 7, 1, 2, 7);
	expect(c, K64 + 7, 2, 3, 7);
	expect(c, 2 * K64, 1, 0, K64);
	expect(c, 5 * K64 + 4096, 2, 3, 2 * K64 + 4096);  /* unit 5: group 1, row 2 */
	free(c);

	c = mk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID10, 6, 2);
	expect(c, 2 * K64, 1, 4, 0);
	expect(c, 4 * K64, 2, 3, K64);   /* unit 4: group 1, row 1 */
	free(c);
}

static void test_raid5(void)
{
	struct btrfs_chunk_map *c = mk_parity(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID5, 3, 2, 2);
	struct btrfs_io_stripe row[4];

	/* row 0: D0 on 0, D1 on 1, P on 2 */
	expect(c, 0, 1, 0, 0);
	expect(c, K64 + 9, 1, 1, 9);
	/* row 1: D0 on 1, D1 on 2, P on 0 */
	expect(c, 2 * K64, 1, 1, K64);
	expect(c, 3 * K64 + 4096, 1, 2, K64 + 4096);
	/* row 2: D0 on 2, D1 on 0, P on 1 */
	expect(c, 4 * K64, 1, 2, 2 * K64);
	expect(c, 5 * K64, 1, 0, 2 * K64);
	/* row 3 wraps to row 0's layout */
	expect(c, 6 * K64, 1, 0, 3 * K64);
	/* every mirror maps the data stripe (mirror 2 = rebuild from P by the reader) */
	expect(c, 5 * K64, 2, 0, 2 * K64);

	CHECK_EQ_U64(btrfs_chunk_map_parity(c, L0 + 2 * K64 + 4096, row, 4), 3);
	CHECK_EQ_U64(row[0].stripe_index, 1);   /* D0 */
	CHECK_EQ_U64(row[1].stripe_index, 2);   /* D1 */
	CHECK_EQ_U64(row[2].stripe_index, 0);   /* P */
	CHECK_EQ_U64(row[2].physical, (1ULL << 28) + K64 + 4096);
	CHECK(btrfs_chunk_map_parity(c, L0, row, 2) == -EINVAL);
	free(c);
}

static void test_raid6(void)
{
	/* 4 mirrors: direct, from P, from Q (P lost), from P+Q (the other data unit lost) */
	struct btrfs_chunk_map *c = mk_parity(BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID6, 4, 2, 4);
	struct btrfs_io_stripe row[4];

	expect(c, 0, 1, 0, 0);
	expect(c, K64, 1, 1, 0);
	/* row 1: D0 on 1, D1 on 2, P on 3, Q on 0 */
	expect(c, 2 * K64 + 16384, 1, 1, K64 + 16384);
	expect(c, 3 * K64, 1, 2, K64);
	CHECK_EQ_U64(btrfs_chunk_map_parity(c, L0 + 3 * K64, row, 4), 4);
	CHECK_EQ_U64(row[2].stripe_index, 3);
	CHECK_EQ_U64(row[3].stripe_index, 0);
	/* row 3: D0 on 3, D1 on 0, P on 1, Q on 2 */
	expect(c, 6 * K64, 1, 3, 3 * K64);
	expect(c, 7 * K64 + 1, 1, 0, 3 * K64 + 1);
	CHECK_EQ_U64(btrfs_chunk_map_parity(c, L0 + 7 * K64, row, 4), 4);
	CHECK_EQ_U64(row[2].stripe_index, 1);
	CHECK_EQ_U64(row[3].stripe_index, 2);
	free(c);
}

/* A chunk item in memory: 48 bytes + n stripes. */
static struct btrfs_chunk *item(u8 *buf, u64 len, u64 type, int n, int sub)
{
	struct btrfs_chunk *ch = (void *)buf;
	int i;

	memset(buf, 0, btrfs_chunk_item_size(n));
	btrfs_set_chunk_length(ch, len);
	btrfs_set_chunk_owner(ch, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(ch, K64);
	btrfs_set_chunk_type(ch, type);
	btrfs_set_chunk_sector_size(ch, 4096);
	btrfs_set_chunk_num_stripes(ch, n);
	btrfs_set_chunk_sub_stripes(ch, sub);
	for (i = 0; i < n; i++) {
		btrfs_set_stripe_devid(btrfs_chunk_stripe(ch, i), i + 1);
		btrfs_set_stripe_offset(btrfs_chunk_stripe(ch, i), SZ_1M * (i + 1));
	}
	return ch;
}

static void test_chunk_items(void)
{
	struct btrfs_chunk_tree_map map = { 0 };
	u8 buf[48 + 32 * 4];
	struct btrfs_chunk *ch;
	const struct btrfs_chunk_map *c;
	char msg[200];

	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID10, 4, 2);
	CHECK(btrfs_add_chunk(&map, SZ_16M, ch, btrfs_chunk_item_size(4), 4096) == 0);
	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_SYSTEM, 1, 1);
	CHECK(btrfs_add_chunk(&map, SZ_1M, ch, btrfs_chunk_item_size(1), 4096) == 0);
	CHECK(btrfs_add_chunk(&map, SZ_1M, ch, btrfs_chunk_item_size(1), 4096) == 0); /* same again */
	CHECK(btrfs_add_chunk(&map, SZ_4K * 1000, ch, btrfs_chunk_item_size(1), 4096) == -EEXIST);
	CHECK_EQ_U64(map.nr, 2);
	c = btrfs_chunk_lookup(&map, SZ_16M + SZ_4K);
	CHECK(c && c->logical == SZ_16M && c->num_stripes == 4 && c->stripes[3].physical == 4 * SZ_1M);
	CHECK(btrfs_chunk_lookup(&map, SZ_16M + SZ_8M) == NULL);
	CHECK(btrfs_chunk_lookup(&map, 0) == NULL);

	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID10, 2, 0);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(2), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(strstr(msg, "num_stripes:sub_stripes 2:0") != NULL);
	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA, 1, 1);
	btrfs_set_chunk_stripe_len(ch, 0);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(1), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(strstr(msg, "stripe length") != NULL);
	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA, 1, 1);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(1), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(1), 4096,
				BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, msg, sizeof(msg)) == 0);
	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_DUP, 2, 1);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(2), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(strstr(msg, "profile") != NULL);
	ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA, 1, 1);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(2), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(btrfs_check_chunk(SZ_64M + 1, ch, btrfs_chunk_item_size(1), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	/* the length limit: one sector below passes, the limit itself does not */
	btrfs_set_chunk_length(ch, BTRFS_MAX_CHUNK_LENGTH - 4096);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(1), 4096, 0, msg, sizeof(msg)) == 0);
	btrfs_set_chunk_length(ch, BTRFS_MAX_CHUNK_LENGTH);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(1), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	CHECK(strstr(msg, "chunk length too large") != NULL);
	btrfs_set_chunk_length(ch, SZ_8M);
	btrfs_set_chunk_num_stripes(ch, 0);
	CHECK(btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(0), 4096, 0, msg, sizeof(msg)) == -EUCLEAN);
	btrfs_chunk_tree_map_free(&map);
}

/* The tree-checker's stripe counts per profile, read from the profile table. */
static void test_chunk_stripe_counts(void)
{
	static const struct {
		u64 prof;
		u16 num_stripes, sub_stripes;
		bool ok;
	} cases[] = {
		{ 0, 1, 1, true }, { 0, 2, 1, false },
		{ BTRFS_BLOCK_GROUP_DUP, 2, 1, true }, { BTRFS_BLOCK_GROUP_DUP, 1, 1, false },
		{ BTRFS_BLOCK_GROUP_DUP, 3, 1, false },
		{ BTRFS_BLOCK_GROUP_RAID0, 1, 1, true }, { BTRFS_BLOCK_GROUP_RAID0, 4, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID1, 1, 1, false }, { BTRFS_BLOCK_GROUP_RAID1, 2, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID1, 3, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID1C3, 2, 1, false }, { BTRFS_BLOCK_GROUP_RAID1C3, 3, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID1C4, 3, 1, false }, { BTRFS_BLOCK_GROUP_RAID1C4, 4, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID10, 2, 2, true }, { BTRFS_BLOCK_GROUP_RAID10, 3, 2, false },
		{ BTRFS_BLOCK_GROUP_RAID10, 4, 1, false }, { BTRFS_BLOCK_GROUP_RAID10, 4, 2, true },
		{ BTRFS_BLOCK_GROUP_RAID5, 1, 1, false }, { BTRFS_BLOCK_GROUP_RAID5, 2, 1, true },
		{ BTRFS_BLOCK_GROUP_RAID6, 2, 1, false }, { BTRFS_BLOCK_GROUP_RAID6, 3, 1, true },
	};
	u8 buf[48 + 32 * 4];
	char msg[200];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct btrfs_chunk *ch = item(buf, SZ_8M, BTRFS_BLOCK_GROUP_DATA | cases[i].prof,
					      cases[i].num_stripes, cases[i].sub_stripes);
		int ret = btrfs_check_chunk(SZ_64M, ch, btrfs_chunk_item_size(cases[i].num_stripes),
					    4096, 0, msg, sizeof(msg));

		if (cases[i].ok) {
			CHECK(ret == 0);
		} else {
			CHECK(ret == -EUCLEAN);
			CHECK(strstr(msg, btrfs_profile_name(cases[i].prof)) != NULL);
		}
	}
	CHECK_STR(btrfs_profile_name(BTRFS_BLOCK_GROUP_METADATA), "single");
	CHECK_STR(btrfs_profile_name(BTRFS_BLOCK_GROUP_RAID1C3), "RAID1C3");
	CHECK_STR(btrfs_profile_name(BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_DUP), "unknown");
	CHECK(btrfs_raid_profile_find(BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6) == NULL);
	CHECK_STR(btrfs_raid_profile_of(BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6)->name, "raid5");
	CHECK_EQ_U64(btrfs_raid_profile_by_name("RAID10")->bg_flag, BTRFS_BLOCK_GROUP_RAID10);
	CHECK_EQ_U64(btrfs_raid_profile_by_name("raid1c4")->incompat, BTRFS_FEATURE_INCOMPAT_RAID1C34);
	CHECK(btrfs_raid_profile_by_name("raid7") == NULL);
}

/* ---- superblock ranges ---- */

#define M1 (1ULL << 20)
#define SB1 (64ULL << 20)               /* second copy: 64 MiB */
#define SB2 (256ULL << 30)              /* third copy: 256 GiB */

static struct btrfs_chunk_map *mkc(u64 type, int n, u64 logical, u64 length, const u64 *phys)
{
	struct btrfs_chunk_map *c = calloc(1, sizeof(*c) + n * sizeof(c->stripes[0]));

	c->logical = logical;
	c->length = length;
	c->type = type;
	c->stripe_len = K64;
	c->num_stripes = n;
	c->sub_stripes = (type & BTRFS_BLOCK_GROUP_RAID10) ? 2 : 1;
	for (int i = 0; i < n; i++) {
		c->stripes[i].devid = i + 1;
		c->stripes[i].physical = phys[i];
	}
	return c;
}

/*
 * The ranges of c are exactly want (start, len pairs, sorted); and, outside
 * RAID5/6, every superblock copy inside a stripe's device extent is reached
 * by some mirror of some address of a range, so no copy is left allocatable.
 */
static void expect_super(struct btrfs_chunk_map *c, int nwant, const u64 *want)
{
	struct btrfs_range *r = NULL;
	int n = btrfs_chunk_super_ranges(c, &r);
	u64 dev_len = c->length / btrfs_chunk_data_stripes(c);

	CHECK_EQ_U64(n, nwant);
	for (int i = 0; i < n && i < nwant; i++) {
		CHECK_EQ_U64(r[i].start, want[2 * i]);
		CHECK_EQ_U64(r[i].len, want[2 * i + 1]);
	}
	for (int s = 0; s < c->num_stripes && !btrfs_raid_profile_of(c->type)->nparity; s++) {
		for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
			u64 sb = btrfs_sb_offset(m), phys = c->stripes[s].physical;
			bool found = false;

			if (sb < phys || sb - phys >= dev_len)
				continue;
			for (int i = 0; i < n && !found; i++)
				for (u64 x = r[i].start; x < r[i].start + r[i].len && !found; x += 4096)
					for (int mir = 1; mir <= btrfs_chunk_num_mirrors(c); mir++) {
						struct btrfs_io_stripe io;

						if (btrfs_chunk_map_one(c, x, mir, &io) == 0 &&
						    io.stripe_index == s && io.physical == sb)
							found = true;
					}
			CHECK(found);
		}
	}
	free(r);
	free(c);
}

static void test_super_ranges(void)
{
	const u64 md = BTRFS_BLOCK_GROUP_METADATA;

	/* single: the 64 KiB unit under the copy; a stripe starting 4 KiB past a copy has none */
	expect_super(mkc(md, 1, L0, 128 * M1, (u64[]){ 32 * M1 }), 1, (u64[]){ L0 + 32 * M1, K64 });
	expect_super(mkc(md, 1, L0, 128 * M1, (u64[]){ SB1 + 4096 }), 0, NULL);
	expect_super(mkc(md, 1, L0, 128 * M1, (u64[]){ SB1 }), 1, (u64[]){ L0, K64 });
	/* a chunk at logical 0: below the first copy too, merged with the unit after it */
	expect_super(mkc(md, 1, 0, 8 * M1, (u64[]){ 0 }), 1, (u64[]){ 0, 2 * K64 });
	expect_super(mkc(md, 1, 0, 32768, (u64[]){ M1 }), 1, (u64[]){ 0, 32768 });
	/* dup: the second stripe holds the 64 MiB copy */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_DUP, 2, L0, 16 * M1, (u64[]){ 40 * M1, 56 * M1 }),
		     1, (u64[]){ L0 + 8 * M1, K64 });
	/* raid1: each device its own offset */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID1, 2, L0, 16 * M1, (u64[]){ 60 * M1, SB1 - 2 * K64 }),
		     2, (u64[]){ L0 + 2 * K64, K64, L0 + 4 * M1, K64 });
	/* raid0 over three: unit row * 3 + stripe; the 256 GiB copy too; a copy 4 KiB into a unit */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID0, 3, L0, 48 * M1,
			 (u64[]){ 60 * M1, 56 * M1 + K64, SB2 - M1 }),
		     3, (u64[]){ L0 + 50 * K64, K64, L0 + 192 * K64, K64, L0 + 382 * K64, K64 });
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID0, 3, L0, 48 * M1, (u64[]){ 60 * M1 + 4096, M1, 2 * M1 }),
		     1, (u64[]){ L0 + 189 * K64, K64 });
	/* raid0 whose device extents end in a partial unit: clipped to the chunk, or past it */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID0, 3, L0, 3 * (M1 + 4096),
			 (u64[]){ SB1 - M1, M1, 2 * M1 }),
		     1, (u64[]){ L0 + 3 * M1, 12288 });
	/* raid10: two copies of one unit give one range; unit (row * 4 + stripe) / 2 */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID10, 4, L0, 32 * M1,
			 (u64[]){ 60 * M1, 60 * M1, 56 * M1, SB2 - K64 }),
		     3, (u64[]){ L0 + 3 * K64, K64, L0 + 8 * M1, K64, L0 + 257 * K64, K64 });
	/* raid5 over three: the whole row of two data units */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID5, 3, L0, 32 * M1,
			 (u64[]){ 60 * M1, SB2 - 16 * M1 + K64, L0 }),
		     2, (u64[]){ L0 + 8 * M1, 2 * K64, L0 + 255 * 2 * K64, 2 * K64 });
	/* raid6 over four: rows of two data units */
	expect_super(mkc(md | BTRFS_BLOCK_GROUP_RAID6, 4, L0, 32 * M1,
			 (u64[]){ L0, SB1, L0, SB2 - 3 * K64 }),
		     2, (u64[]){ L0, 2 * K64, L0 + 3 * 2 * K64, 2 * K64 });
}

int main(void)
{
	RUN(test_single_dup_raid1);
	RUN(test_raid0);
	RUN(test_raid10);
	RUN(test_chunk_stripe_counts);
	RUN(test_raid5);
	RUN(test_raid6);
	RUN(test_chunk_items);
	RUN(test_super_ranges);
	return unit_done();
}

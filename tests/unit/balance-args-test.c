// SPDX-License-Identifier: GPL-2.0
/* Balance filter parsing (every error path) and chunk selection as the kernel selects. */
#include "tests/unit/unit.h"
#include "balance/balance-args.h"

static int parse(const char *s, struct btrfs_balance_args *a)
{
	memset(a, 0, sizeof(*a));
	return btrfs_balance_parse_filters(s, a);
}

static void test_parse_ok(void)
{
	struct btrfs_balance_args a;

	CHECK(parse("", &a) == 0 && a.flags == 0);
	CHECK(parse(NULL, &a) == 0 && a.flags == 0);
	CHECK(parse("usage=50", &a) == 0 && a.flags == BTRFS_BALANCE_ARGS_USAGE && a.usage == 50);
	CHECK(parse("usage=5..20", &a) == 0 && a.flags == BTRFS_BALANCE_ARGS_USAGE_RANGE);
	CHECK_EQ_U64(a.usage_min, 5);
	CHECK_EQ_U64(a.usage_max, 20);
	CHECK(parse("usage=..50", &a) == 0 && a.usage_min == 0 && a.usage_max == 50);
	/* a later usage replaces the earlier form */
	CHECK(parse("usage=5,usage=1..2", &a) == 0 && a.flags == BTRFS_BALANCE_ARGS_USAGE_RANGE);
	CHECK(parse("devid=3", &a) == 0 && a.flags == BTRFS_BALANCE_ARGS_DEVID && a.devid == 3);
	CHECK(parse("devid=1,drange=0..1048576", &a) == 0 && a.pstart == 0 && a.pend == 1048576);
	CHECK(parse("vrange=..5", &a) == 0 && a.vstart == 0 && a.vend == 5);
	CHECK(parse("vrange=7..", &a) == 0 && a.vstart == 7 && a.vend == (u64)-1);
	CHECK(parse("convert=raid1c3,soft", &a) == 0);
	CHECK_EQ_U64(a.flags, BTRFS_BALANCE_ARGS_CONVERT | BTRFS_BALANCE_ARGS_SOFT);
	CHECK_EQ_U64(a.target, BTRFS_BLOCK_GROUP_RAID1C3);
	CHECK(parse("convert=single", &a) == 0 && a.target == BTRFS_AVAIL_ALLOC_BIT_SINGLE);
	CHECK(parse("convert=raid1c3,convert=dup", &a) == 0 && a.target == BTRFS_BLOCK_GROUP_DUP);
	CHECK(parse("profiles=raid1|dup", &a) == 0);
	CHECK_EQ_U64(a.profiles, BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_DUP);
	CHECK(parse("limit=5000000000", &a) == 0 && a.limit == 5000000000ULL);
	CHECK(parse("limit=2..3", &a) == 0 && a.flags == BTRFS_BALANCE_ARGS_LIMIT_RANGE &&
	      a.limit_min == 2 && a.limit_max == 3);
	CHECK(parse("stripes=..3", &a) == 0 && a.stripes_min == 0 && a.stripes_max == 3);
	CHECK(parse("stripes=3..", &a) == 0 && a.stripes_min == 3 && a.stripes_max == (u32)-1);
	CHECK(parse("stripes=2..2", &a) == 0);
	CHECK(parse("USAGE=5", &a) != 0);   /* names are case sensitive */
	CHECK(parse("convert=RAID1", &a) == 0 && a.target == BTRFS_BLOCK_GROUP_RAID1);
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"foo", "foo=1", "usage", "usage=", "usage=101", "usage=-1", "usage=x", "usage=5..3",
		"usage=0..101", "usage=50..", "usage=..", "profiles", "profiles=", "profiles=bogus",
		"profiles=raid1|bogus", "devid", "devid=0", "devid=x", "devid=1x", "drange",
		"drange=3..3", "drange=5..1", "drange=4..5x", "drange=5", "vrange=", "vrange=5..1",
		"convert", "convert=", "convert=bogus", "limit", "limit=x", "limit=3..1",
		"limit=1..99999999999", "stripes", "stripes=5", "stripes=3..1", "stripes=a..b",
		"usage=5,bogus",
	};
	struct btrfs_balance_args a;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = parse(bad[i], &a);

		if (ret != -EINVAL)
			fprintf(stderr, "filter '%s' accepted\n", bad[i]);
		CHECK(ret == -EINVAL);
	}
	memset(&a, 0, sizeof(a));
	a.flags = BTRFS_BALANCE_ARGS_DRANGE;
	CHECK(btrfs_balance_check_args(&a) == -EINVAL);
	a.flags = BTRFS_BALANCE_ARGS_DRANGE | BTRFS_BALANCE_ARGS_DEVID;
	CHECK(btrfs_balance_check_args(&a) == 0);
	a.flags = BTRFS_BALANCE_ARGS_SOFT;
	CHECK(btrfs_balance_check_args(&a) == -EINVAL);
	a.flags = BTRFS_BALANCE_ARGS_SOFT | BTRFS_BALANCE_ARGS_CONVERT;
	CHECK(btrfs_balance_check_args(&a) == 0);
}

static void test_profiles(void)
{
	CHECK_STR(btrfs_raid_profile_of(BTRFS_BLOCK_GROUP_DATA)->name, "single");
	CHECK_STR(btrfs_raid_profile_of(BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1C4)->name, "raid1c4");
	CHECK_EQ_U64(btrfs_extended_profile(BTRFS_BLOCK_GROUP_DATA), BTRFS_AVAIL_ALLOC_BIT_SINGLE);
	CHECK_EQ_U64(btrfs_raid_data_stripes(btrfs_raid_profile_by_name("raid10"), 4), 2);
	CHECK_EQ_U64(btrfs_raid_data_stripes(btrfs_raid_profile_by_name("raid6"), 5), 3);
	CHECK_EQ_U64(btrfs_raid_data_stripes(btrfs_raid_profile_by_name("dup"), 2), 1);
	CHECK(btrfs_balance_reduces_redundancy(BTRFS_BLOCK_GROUP_RAID1C3, BTRFS_BLOCK_GROUP_RAID1));
	CHECK(btrfs_balance_reduces_redundancy(BTRFS_BLOCK_GROUP_RAID1, BTRFS_BLOCK_GROUP_DUP));
	CHECK(!btrfs_balance_reduces_redundancy(BTRFS_BLOCK_GROUP_RAID1, BTRFS_BLOCK_GROUP_RAID10));
	CHECK(!btrfs_balance_reduces_redundancy(BTRFS_BLOCK_GROUP_DUP, BTRFS_BLOCK_GROUP_RAID1C3));
}

static struct btrfs_balance_stripe stripes[8][2];

static void mk(struct btrfs_balance_chunk *c, int i, u64 type, u64 used, u64 dev_a, u64 dev_b)
{
	c->logical = (u64)(i + 1) * SZ_1G;
	c->length = SZ_256M;
	c->type = type;
	c->used = used;
	c->num_stripes = dev_b ? 2 : 1;
	stripes[i][0] = (struct btrfs_balance_stripe){ dev_a, SZ_1M + (u64)i * SZ_256M };
	stripes[i][1] = (struct btrfs_balance_stripe){ dev_b, SZ_1M + (u64)i * SZ_256M };
	c->stripes = stripes[i];
}

static void test_selection(void)
{
	struct btrfs_balance_chunk c[6];
	struct btrfs_ioctl_balance_args req;
	bool sel[6];

	mk(&c[0], 0, BTRFS_BLOCK_GROUP_DATA, 0, 1, 0);
	mk(&c[1], 1, BTRFS_BLOCK_GROUP_DATA, SZ_256M / 2, 2, 0);
	mk(&c[2], 2, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1, SZ_256M, 1, 2);
	mk(&c[3], 3, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1, SZ_1M, 1, 3);
	mk(&c[4], 4, BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_RAID1, SZ_16K, 2, 3);
	mk(&c[5], 5, BTRFS_BLOCK_GROUP_DATA, SZ_256M / 10, 3, 0);

	memset(&req, 0, sizeof(req));
	req.flags = BTRFS_BALANCE_DATA;
	req.data.flags = BTRFS_BALANCE_ARGS_USAGE;
	req.data.usage = 0;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 1);
	CHECK(sel[0]);
	req.data.usage = 50;     /* below 50%: the empty one and the 10% one, not exactly 50% */
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 2);
	CHECK(sel[0] && !sel[1] && sel[5]);
	req.data.flags = BTRFS_BALANCE_ARGS_USAGE_RANGE;
	req.data.usage_min = 50;
	req.data.usage_max = 100;   /* used < max: a full chunk is never below 100% */
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 1);
	CHECK(sel[1] && !sel[2]);

	/* devid, profiles, soft */
	req.data.flags = BTRFS_BALANCE_ARGS_DEVID;
	req.data.devid = 2;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 2);
	CHECK(sel[1] && sel[2]);
	req.data.flags = BTRFS_BALANCE_ARGS_PROFILES;
	req.data.profiles = BTRFS_AVAIL_ALLOC_BIT_SINGLE;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 3);
	CHECK(!sel[2]);
	req.data.flags = BTRFS_BALANCE_ARGS_CONVERT | BTRFS_BALANCE_ARGS_SOFT;
	req.data.target = BTRFS_BLOCK_GROUP_RAID1;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 3);
	CHECK(!sel[2]);
	req.data.flags = BTRFS_BALANCE_ARGS_CONVERT;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 4);

	/* limit counts from the highest address down */
	req.data.flags = BTRFS_BALANCE_ARGS_LIMIT;
	req.data.limit = 2;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 2);
	CHECK(sel[5] && sel[2] && !sel[0]);
	/* limit range: fewer matches than min, none moves */
	req.data.flags = BTRFS_BALANCE_ARGS_LIMIT_RANGE | BTRFS_BALANCE_ARGS_DEVID;
	req.data.devid = 3;
	req.data.limit_min = 2;
	req.data.limit_max = 5;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 0);
	req.data.limit_min = 1;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 1);

	/* vrange, stripes, drange */
	req.data.flags = BTRFS_BALANCE_ARGS_VRANGE;
	req.data.vstart = 2 * SZ_1G + 5;
	req.data.vend = 3 * SZ_1G + 1;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 2);
	CHECK(sel[1] && sel[2]);
	req.data.flags = BTRFS_BALANCE_ARGS_STRIPES_RANGE;
	req.data.stripes_min = 2;
	req.data.stripes_max = 2;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 1);
	CHECK(sel[2]);
	req.data.flags = BTRFS_BALANCE_ARGS_DEVID | BTRFS_BALANCE_ARGS_DRANGE;
	req.data.devid = 1;
	req.data.pstart = 0;
	req.data.pend = SZ_1M + 1;   /* only chunk 0's stripe starts below */
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 1);
	CHECK(sel[0]);

	/* type filter: metadata and system each by their own args */
	memset(&req, 0, sizeof(req));
	req.flags = BTRFS_BALANCE_METADATA | BTRFS_BALANCE_SYSTEM;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 2);
	CHECK(sel[3] && sel[4]);
	req.flags = BTRFS_BALANCE_TYPE_MASK;
	CHECK_EQ_U64(btrfs_balance_select_all(&req, c, 6, sel), 6);
}

int main(void)
{
	RUN(test_parse_ok);
	RUN(test_parse_errors);
	RUN(test_profiles);
	RUN(test_selection);
	return unit_done();
}

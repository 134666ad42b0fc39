// SPDX-License-Identifier: GPL-2.0
/* The convert planner: kernel chunk placement, and fits / refuses on small layouts. */
#include "tests/unit/unit.h"
#include "balance/balance-plan.h"

static void test_alloc_chunk(void)
{
	u64 free_b[4] = { 500 * SZ_1M, 400 * SZ_1M, 300 * SZ_1M, 200 * SZ_1M };
	u64 take[4], stripe, size;
	u64 total = 4 * 512 * SZ_1M;

	/* raid1: the two devices with most free space; 10% of 2GiB, rounded up to 16MiB */
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1, free_b, 4, total, take, &stripe);
	CHECK_EQ_U64(stripe, 208 * SZ_1M);
	CHECK_EQ_U64(size, 208 * SZ_1M);
	CHECK(take[0] == stripe && take[1] == stripe && take[2] == 0 && take[3] == 0);
	/* raid1c3 limited by the third device */
	free_b[2] = 100 * SZ_1M;
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1C3, free_b, 4, total, take, &stripe);
	CHECK_EQ_U64(take[2], 0);
	CHECK_EQ_U64(take[3], 200 * SZ_1M > 208 * SZ_1M ? 0 : 200 * SZ_1M);
	CHECK_EQ_U64(size, 200 * SZ_1M);
	/* raid0 over all four, chunk capped at 10% and rounded up per stripe */
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID0, free_b, 4, total, take, &stripe);
	CHECK_EQ_U64(stripe, 64 * SZ_1M);
	CHECK_EQ_U64(size, 256 * SZ_1M);
	/* dup: both stripes on the device with most space */
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP, free_b, 4, total, take, &stripe);
	CHECK(take[0] == 2 * stripe && take[1] == 0);
	CHECK_EQ_U64(size, stripe);
	/* system chunks are 32MiB */
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_RAID1, free_b, 4, total, take, &stripe);
	CHECK_EQ_U64(size, SZ_32M);
	/* raid1 with one device having space: none */
	free_b[1] = free_b[2] = free_b[3] = 32 * 1024;
	size = btrfs_plan_alloc_chunk(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_RAID1, free_b, 4, total, take, &stripe);
	CHECK_EQ_U64(size, 0);
}

#define NCH 8
static struct btrfs_balance_chunk chunks[NCH];
static struct btrfs_balance_stripe st[NCH][4];

/* n single data chunks of len, each used `used`, spread round-robin over ndev devices */
static size_t layout_single(size_t n, u64 len, u64 used, int ndev)
{
	for (size_t i = 0; i < n; i++) {
		chunks[i].logical = SZ_1G + i * len;
		chunks[i].length = len;
		chunks[i].type = BTRFS_BLOCK_GROUP_DATA;
		chunks[i].used = used;
		chunks[i].num_stripes = 1;
		st[i][0].devid = 1 + i % ndev;
		st[i][0].physical = SZ_1M + (i / ndev) * len;
		chunks[i].stripes = st[i];
	}
	return n;
}

static void data_convert(struct btrfs_ioctl_balance_args *req, u64 target)
{
	memset(req, 0, sizeof(*req));
	req->flags = BTRFS_BALANCE_DATA;
	req->data.flags = BTRFS_BALANCE_ARGS_CONVERT;
	req->data.target = target;
}

static void test_plan_fits_and_refuses(void)
{
	struct btrfs_plan_device devs[4];
	struct btrfs_plan_layout l = { chunks, 0, devs, 4 };
	struct btrfs_ioctl_balance_args req;
	struct btrfs_balance_plan plan;

	for (int d = 0; d < 4; d++)
		devs[d] = (struct btrfs_plan_device){ (u64)d + 1, SZ_1G, 0 };
	/* 4 x 1GiB, 4 single chunks of 256MiB each 200MiB used: raid1 needs 1.6GiB of 4GiB */
	l.nr_chunks = layout_single(4, SZ_256M, 200 * SZ_1M, 4);
	for (int d = 0; d < 4; d++)
		devs[d].allocated = SZ_256M;
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_FITS);
	CHECK_EQ_U64(plan.selected, 4);
	CHECK_EQ_U64(plan.kind[PLAN_DATA].used, 800 * SZ_1M);
	CHECK_EQ_U64(plan.kind[PLAN_DATA].raw, 1600 * SZ_1M);
	CHECK(plan.kind[PLAN_DATA].new_chunks >= 2);
	btrfs_balance_plan_release(&plan);

	/*
	 * raid1c4 on 4 devices: 3.2GiB raw of 4GiB, but the chunk being moved
	 * still holds its space when the last new chunk is needed: the 416MiB
	 * and 351MiB chunks use up devid 4 and the last chunk's 33MiB has no
	 * fourth device.
	 */
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1C4);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_NO_SPACE);
	CHECK_EQ_U64(plan.fail_done, 3);
	CHECK_EQ_U64(plan.kind[PLAN_DATA].new_chunks, 2);
	btrfs_balance_plan_release(&plan);

	/* 2 devices, raid1c3: too few devices */
	l.nr_devs = 2;
	l.nr_chunks = layout_single(2, SZ_256M, SZ_1M, 2);
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1C3);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_TOO_FEW_DEVICES);
	CHECK_EQ_U64(plan.devs_needed, 3);
	CHECK_EQ_U64(plan.devs_usable, 2);
	btrfs_balance_plan_release(&plan);

	/* 2 x 1GiB nearly full of single data: raid1 cannot hold it */
	devs[0].allocated = devs[1].allocated = 3 * SZ_256M + 200 * SZ_1M;
	l.nr_chunks = layout_single(7, SZ_256M, 250 * SZ_1M, 2);
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_NO_SPACE);
	CHECK(plan.fail_kind == PLAN_DATA);
	CHECK_EQ_U64(plan.fail_profile, BTRFS_BLOCK_GROUP_RAID1);
	CHECK(plan.fail_short > 0 && plan.fail_short <= 7 * 250 * SZ_1M);
	CHECK(plan.dev_free != NULL);
	btrfs_balance_plan_release(&plan);

	/* the same with soft and everything already raid1: nothing moves, fits */
	for (size_t i = 0; i < l.nr_chunks; i++)
		chunks[i].type |= BTRFS_BLOCK_GROUP_RAID1;
	req.data.flags |= BTRFS_BALANCE_ARGS_SOFT;
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_FITS);
	CHECK_EQ_U64(plan.selected, 0);
	btrfs_balance_plan_release(&plan);

	/* empty chunks always fit: nothing to place */
	for (size_t i = 0; i < l.nr_chunks; i++) {
		chunks[i].type = BTRFS_BLOCK_GROUP_DATA;
		chunks[i].used = 0;
	}
	req.data.flags = BTRFS_BALANCE_ARGS_CONVERT;
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_FITS);
	CHECK_EQ_U64(plan.kind[PLAN_DATA].new_chunks, 0);
	btrfs_balance_plan_release(&plan);
}

static void test_plan_different_sizes(void)
{
	/* 3 devices 1GiB, 1GiB, 128MiB; raid1c3 is bounded by the small one */
	struct btrfs_plan_device devs[3] = { { 1, SZ_1G, 0 }, { 2, SZ_1G, 0 }, { 3, 128 * SZ_1M, 0 } };
	struct btrfs_plan_layout l = { chunks, 0, devs, 3 };
	struct btrfs_ioctl_balance_args req;
	struct btrfs_balance_plan plan;

	l.nr_chunks = layout_single(2, SZ_256M, 200 * SZ_1M, 2);
	devs[0].allocated = devs[1].allocated = SZ_256M;
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1C3);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_NO_SPACE);
	CHECK_EQ_U64(plan.devs_needed, 3);
	CHECK_EQ_U64(plan.devs_usable, 2);
	btrfs_balance_plan_release(&plan);
	/* raid1 fits on the two large devices */
	data_convert(&req, BTRFS_BLOCK_GROUP_RAID1);
	CHECK(btrfs_balance_plan(&l, &req, &plan) == 0);
	CHECK(plan.verdict == PLAN_FITS);
	btrfs_balance_plan_release(&plan);
}

int main(void)
{
	RUN(test_alloc_chunk);
	RUN(test_plan_fits_and_refuses);
	RUN(test_plan_different_sizes);
	return unit_done();
}

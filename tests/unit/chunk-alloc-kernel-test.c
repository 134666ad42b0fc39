// SPDX-License-Identifier: GPL-2.0
/*
 * chunk_alloc_new_chunk_kernel(): the kernel's rules for a new chunk on an
 * existing filesystem, on devices described in memory (no image): chunk
 * and stripe sizes by type and filesystem size, devices with the largest
 * hole first, dev extents in the first hole big enough (else the largest),
 * striped profiles over as many devices as they take, ENOSPC when too few
 * devices have room.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/format/messages.h"

#define MIB (1024ULL * 1024)
#define GIB (1024 * MIB)

static struct chunk_placement *alloc(struct chunk_alloc *ca, u64 type)
{
	struct chunk_placement *c = chunk_alloc_new_chunk_kernel(ca, type);

	return IS_ERR(c) ? NULL : c;
}

static void test_sizes_by_type(void)
{
	struct chunk_alloc ca;
	u64 small[1] = { 512 * MIB }, big[1] = { 100 * GIB };
	struct chunk_placement *c;

	/* 512 MiB: 10% is 51.2 MiB, rounded up to 16 MiB */
	chunk_alloc_init(&ca, 1, small, 4096);
	ca.next_logical = 30 * MIB;
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA);
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ_U64(c->length, 64 * MIB);
		CHECK_EQ_U64(c->logical, 30 * MIB);
		CHECK_EQ_U64(c->stripes[0].physical, MIB);
	}
	c = alloc(&ca, BTRFS_BLOCK_GROUP_SYSTEM);
	CHECK(c && c->length == 32 * MIB && c->logical == 94 * MIB && c->stripes[0].physical == 65 * MIB);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP);
	CHECK(c && c->num_stripes == 2 && c->length == 64 * MIB);
	CHECK(c && c->stripes[0].physical == 97 * MIB && c->stripes[1].physical == 161 * MIB);
	chunk_alloc_release(&ca);

	/* 100 GiB: metadata 1 GiB (above 50 GiB), data stripes at most 1 GiB */
	chunk_alloc_init(&ca, 1, big, 4096);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA);
	CHECK(c && c->length == GIB);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_DATA);
	CHECK(c && c->length == GIB && c->stripe_size == GIB);
	chunk_alloc_release(&ca);
}

static void test_devices_and_holes(void)
{
	struct chunk_alloc ca;
	u64 sizes[5] = { 1 * GIB, 2 * GIB, 1 * GIB, 3 * GIB, 1 * GIB };
	struct chunk_placement *c;

	/* RAID1 takes the two devices with the most room: 4 (3 GiB), then 2 */
	chunk_alloc_init(&ca, 5, sizes, 4096);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1);
	CHECK(c && c->num_stripes == 2 && c->stripes[0].devid == 4 && c->stripes[1].devid == 2);
	/* 8 GiB: 10% rounded up to 16 MiB is above the 256 MiB metadata size */
	CHECK(c && c->length == 256 * MIB);
	/* RAID10 on 5 devices: 4 stripes, the least free device left out */
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID10);
	CHECK(c && c->num_stripes == 4 && c->sub_stripes == 2 && c->length == 2 * c->stripe_size);
	chunk_alloc_release(&ca);

	/* a hole too small is skipped for the first one big enough */
	chunk_alloc_init(&ca, 1, sizes, 4096);
	chunk_alloc_add_dev_extent(&ca.devs[0], MIB, 10 * MIB);
	chunk_alloc_add_dev_extent(&ca.devs[0], 12 * MIB, 100 * MIB);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA);
	CHECK(c && c->stripes[0].physical == 112 * MIB);
	chunk_alloc_release(&ca);

	/* nothing big enough: the largest hole, the stripe cut to it */
	chunk_alloc_init(&ca, 1, sizes, 4096);
	chunk_alloc_add_dev_extent(&ca.devs[0], MIB, 100 * MIB);
	chunk_alloc_add_dev_extent(&ca.devs[0], 141 * MIB, GIB - 141 * MIB);
	c = alloc(&ca, BTRFS_BLOCK_GROUP_METADATA);
	CHECK(c && c->stripes[0].physical == 101 * MIB && c->length == 40 * MIB);
	chunk_alloc_release(&ca);
}

static void test_enospc(void)
{
	struct chunk_alloc ca;
	u64 sizes[2] = { GIB, GIB };

	chunk_alloc_init(&ca, 2, sizes, 4096);
	/* RAID1C3 needs 3 devices */
	CHECK(IS_ERR(chunk_alloc_new_chunk_kernel(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1C3)));
	/* one device full: RAID1 cannot be placed */
	chunk_alloc_add_dev_extent(&ca.devs[1], MIB, GIB - MIB);
	CHECK(IS_ERR(chunk_alloc_new_chunk_kernel(&ca, BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_RAID1)));
	CHECK(alloc(&ca, BTRFS_BLOCK_GROUP_METADATA) != NULL);
	chunk_alloc_release(&ca);
}

int main(void)
{
	RUN(test_sizes_by_type);
	RUN(test_devices_and_holes);
	RUN(test_enospc);
	return unit_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The shared table of blocks that passed the tree-checker
 * (kernel-shared/read/checked-blocks.h): a block is known again only with the same
 * address, generation and checksum; a newer entry replaces an older one in
 * its slot; no table (out of memory) knows nothing.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/extent-buffer.h"
#include "kernel-shared/read/checked-blocks.h"

static struct extent_buffer *block(u64 bytenr, u64 gen, u8 csum0)
{
	struct extent_buffer *eb = alloc_extent_buffer(bytenr, 4096);

	if (!eb)
		abort();
	btrfs_set_header_bytenr(btrfs_header(eb), bytenr);
	btrfs_set_header_generation(btrfs_header(eb), gen);
	btrfs_header(eb)->csum[0] = csum0;
	btrfs_header(eb)->csum[3] = 0x5a;
	return eb;
}

static void test_known_by_address_generation_checksum(void)
{
	struct btrfs_checked_blocks *c = btrfs_checked_blocks_new();
	struct extent_buffer *a = block(30408704, 9, 1), *same = block(30408704, 9, 1);
	struct extent_buffer *other_csum = block(30408704, 9, 2), *other_gen = block(30408704, 10, 1);
	struct extent_buffer *other_place = block(30425088, 9, 1);

	CHECK(c != NULL);
	CHECK(!btrfs_checked_blocks_has(c, a));
	btrfs_checked_blocks_add(c, a);
	CHECK(btrfs_checked_blocks_has(c, a));
	CHECK(btrfs_checked_blocks_has(c, same));
	CHECK(!btrfs_checked_blocks_has(c, other_csum));   /* another copy or write: check anew */
	CHECK(!btrfs_checked_blocks_has(c, other_gen));
	CHECK(!btrfs_checked_blocks_has(c, other_place));
	/* the same slot keeps the newest */
	btrfs_checked_blocks_add(c, other_csum);
	CHECK(btrfs_checked_blocks_has(c, other_csum));
	CHECK(!btrfs_checked_blocks_has(c, a));
	free_extent_buffer(a);
	free_extent_buffer(same);
	free_extent_buffer(other_csum);
	free_extent_buffer(other_gen);
	free_extent_buffer(other_place);
	btrfs_checked_blocks_free(c);
}

static void test_no_table(void)
{
	struct extent_buffer *a = block(30408704, 9, 1);

	btrfs_checked_blocks_add(NULL, a);
	CHECK(!btrfs_checked_blocks_has(NULL, a));
	free_extent_buffer(a);
}

int main(void)
{
	RUN(test_known_by_address_generation_checksum);
	RUN(test_no_table);
	return unit_done();
}

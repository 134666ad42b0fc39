// SPDX-License-Identifier: GPL-2.0
/* The length of a damaged chunk item, told by its leaf: see chunk-length-told.h. */
#include <stdlib.h>
#include <string.h>
#include "check/chunk-length-told.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/volumes.h"

/* The chunk item at slot, whole (its stripes fill the item), or NULL. */
static const struct btrfs_chunk *chunk_at(const struct extent_buffer *eb, int slot, u64 *logical)
{
	struct btrfs_key key;
	const struct btrfs_chunk *c;
	u32 size = btrfs_leaf_item_size(eb, slot);

	btrfs_item_key_to_cpu(eb, &key, slot);
	if (key.type != BTRFS_CHUNK_ITEM_KEY || size < sizeof(*c))
		return NULL;
	c = btrfs_leaf_item_ptr(eb, slot);
	if (!btrfs_chunk_num_stripes(c) || btrfs_chunk_item_size(btrfs_chunk_num_stripes(c)) != size)
		return NULL;
	*logical = key.offset;
	return c;
}

/* Does the chunk item pass the tree-checker with this length? */
static bool passes_with_length(const struct btrfs_chunk *c, u64 logical, u64 length, u32 ss, u64 incompat)
{
	u32 size = (u32)btrfs_chunk_item_size(btrfs_chunk_num_stripes(c));
	struct btrfs_chunk *copy = malloc(size);
	bool ok;

	if (!copy)
		return false;
	memcpy(copy, c, size);
	btrfs_set_chunk_length(copy, length);
	ok = btrfs_check_chunk(logical, copy, size, ss, incompat, NULL, 0) == 0;
	free(copy);
	return ok;
}

static u32 data_stripes(const struct btrfs_chunk *c)
{
	return btrfs_raid_data_stripes(btrfs_raid_profile_of(btrfs_chunk_type(c)), btrfs_chunk_num_stripes(c));
}

/* What each stripe of a chunk takes on its device. */
static u64 dev_length(const struct btrfs_chunk *c)
{
	return btrfs_chunk_length(c) / data_stripes(c);
}

/* The next chunk item after slot, or NULL. */
static const struct btrfs_chunk *next_chunk(const struct extent_buffer *eb, u32 slot, u64 *logical)
{
	const struct btrfs_chunk *next = NULL;

	for (u32 j = slot + 1; j < btrfs_eb_nritems(eb) && !next; j++)
		next = chunk_at(eb, (int)j, logical);
	return next;
}

bool chunk_leaf_overlaps(const struct extent_buffer *eb)
{
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		const struct btrfs_chunk *c;
		u64 logical, next_logical;

		if ((c = chunk_at(eb, (int)i, &logical)) && next_chunk(eb, i, &next_logical) &&
		    (logical + btrfs_chunk_length(c) > next_logical || logical + btrfs_chunk_length(c) < logical))
			return true;
	}
	return false;
}

int chunk_length_suspect(const struct extent_buffer *eb, u32 ss, u64 incompat)
{
	u32 nr = btrfs_eb_nritems(eb);
	int found = -1;

	for (u32 i = 0; i < nr; i++) {
		const struct btrfs_chunk *c, *next;
		u64 logical, next_logical = 0, len;
		bool bad;

		if (!(c = chunk_at(eb, (int)i, &logical)))
			continue;
		next = next_chunk(eb, i, &next_logical);
		len = btrfs_chunk_length(c);
		bad = btrfs_check_chunk(logical, c, btrfs_leaf_item_size(eb, (int)i), ss, incompat, NULL, 0) < 0;
		/* failing for its length alone, or reaching into the next chunk */
		if ((bad && passes_with_length(c, logical, ss, ss, incompat)) ||
		    (!bad && next && logical + len > next_logical)) {
			if (found >= 0)
				return -1;
			found = (int)i;
		} else if (bad) {
			return -1;   /* another chunk's damage: nothing to count on */
		}
	}
	return found;
}

/* The device item of devid in the leaf, or NULL. */
static const struct btrfs_dev_item *dev_item_of(const struct extent_buffer *eb, u64 devid)
{
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.objectid == BTRFS_DEV_ITEMS_OBJECTID && key.type == BTRFS_DEV_ITEM_KEY &&
		    key.offset == devid && btrfs_leaf_item_size(eb, (int)i) == sizeof(struct btrfs_dev_item))
			return btrfs_leaf_item_ptr(eb, (int)i);
	}
	return NULL;
}

static u32 stripes_on(const struct btrfs_chunk *c, u64 devid)
{
	u32 n = 0;

	for (u16 i = 0; i < btrfs_chunk_num_stripes(c); i++)
		n += btrfs_stripe_devid(btrfs_chunk_stripe(c, i)) == devid;
	return n;
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* What bytes_used of devid leaves for each stripe of the chunk at slot there, 0: nothing exact. */
static u64 left_on_device(const struct extent_buffer *eb, int slot, u64 devid)
{
	const struct btrfs_dev_item *dev = dev_item_of(eb, devid);
	const struct btrfs_chunk *c = btrfs_leaf_item_ptr(eb, slot);
	u64 others = 0, logical, used;
	u32 n = stripes_on(c, devid);

	if (!dev)
		return 0;
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		const struct btrfs_chunk *x = (int)i == slot ? NULL : chunk_at(eb, (int)i, &logical);

		if (x)
			others += (u64)stripes_on(x, devid) * dev_length(x);
	}
	used = btrfs_device_bytes_used(dev);
	if (used <= others || (used - others) % n)
		return 0;
	return (used - others) / n;
}

/* Do the chunk's stripes, each dev_len long, lie inside their devices and on no other chunk's? */
static bool stripes_fit(const struct extent_buffer *eb, int slot, u64 dev_len)
{
	const struct btrfs_chunk *c = btrfs_leaf_item_ptr(eb, slot);
	u64 logical;

	for (u16 i = 0; i < btrfs_chunk_num_stripes(c); i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(c, i);
		const struct btrfs_dev_item *dev = dev_item_of(eb, btrfs_stripe_devid(s));
		u64 at = btrfs_stripe_offset(s);

		if (!dev || at + dev_len < at || at + dev_len > btrfs_device_total_bytes(dev))
			return false;
		for (u16 j = 0; j < i; j++) {
			const struct btrfs_stripe *t = btrfs_chunk_stripe(c, j);

			if (btrfs_stripe_devid(t) == btrfs_stripe_devid(s) &&
			    overlaps(btrfs_stripe_offset(t), dev_len, at, dev_len))
				return false;
		}
		for (u32 k = 0; k < btrfs_eb_nritems(eb); k++) {
			const struct btrfs_chunk *x = (int)k == slot ? NULL : chunk_at(eb, (int)k, &logical);

			for (u16 j = 0; x && j < btrfs_chunk_num_stripes(x); j++) {
				const struct btrfs_stripe *t = btrfs_chunk_stripe(x, j);

				if (btrfs_stripe_devid(t) == btrfs_stripe_devid(s) &&
				    overlaps(btrfs_stripe_offset(t), dev_length(x), at, dev_len))
					return false;
			}
		}
	}
	return true;
}

u64 chunk_length_told(const struct extent_buffer *eb, int slot, u32 ss, u64 incompat)
{
	const struct btrfs_chunk *c;
	u64 logical, dev_len = 0, length;

	if (!(c = chunk_at(eb, slot, &logical)))
		return 0;
	/* every device with a stripe of it leaves the same */
	for (u16 i = 0; i < btrfs_chunk_num_stripes(c); i++) {
		u64 left = left_on_device(eb, slot, btrfs_stripe_devid(btrfs_chunk_stripe(c, i)));

		if (!left || (dev_len && left != dev_len))
			return 0;
		dev_len = left;
	}
	length = dev_len * data_stripes(c);
	if (length / data_stripes(c) != dev_len || !IS_ALIGNED(dev_len, ss) ||
	    !passes_with_length(c, logical, length, ss, incompat) || !stripes_fit(eb, slot, dev_len))
		return 0;
	return chunk_leaf_range_taken(eb, slot, logical, length) ? 0 : length;
}

bool chunk_leaf_range_taken(const struct extent_buffer *eb, int skip, u64 logical, u64 length)
{
	if (logical + length < logical)
		return true;
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_key k;

		btrfs_item_key_to_cpu(eb, &k, (int)i);
		if ((int)i != skip && k.type == BTRFS_CHUNK_ITEM_KEY &&
		    btrfs_leaf_item_size(eb, (int)i) >= sizeof(struct btrfs_chunk) &&
		    overlaps(k.offset, btrfs_chunk_length(btrfs_leaf_item_ptr(eb, (int)i)), logical, length))
			return true;
	}
	return false;
}

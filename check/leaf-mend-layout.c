// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of the leaf's header and
 * item array, its first step: nritems and generation; item entries out of
 * key order (exchanged whole, a copy of the item before, an extent record
 * out of order; a damaged key is leaf-mend-keys.c's); offsets and sizes
 * packed between their neighbours, or the data moved over a gap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

/* An item entry as the leaf holds it, for ordering them by key. */
struct entry_at {
	struct btrfs_key key;
	u32 off, size;
};

static int entry_cmp(const void *a, const void *b)
{
	return btrfs_comp_cpu_keys(&((const struct entry_at *)a)->key, &((const struct entry_at *)b)->key);
}

/*
 * Entries exchanged whole (key, offset and size together): taken in key
 * order, the keys are distinct and their data is packed as the kernel packs
 * it.  A damaged key leaves the data in slot order instead, and is not
 * this case.  1 yes, 0 no, -ENOMEM.
 */
static int entries_exchanged(const struct extent_buffer *eb, u32 nr, u64 items_end)
{
	struct entry_at *e = calloc(nr ? nr : 1, sizeof(*e));
	u64 end = BTRFS_LEAF_DATA_SIZE(eb->len);
	int yes = 1;

	if (!e)
		return -ENOMEM;
	for (u32 i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(eb, &e[i].key, (int)i);
		e[i].off = btrfs_leaf_item_offset(eb, (int)i);
		e[i].size = btrfs_leaf_item_size(eb, (int)i);
	}
	check_sort(e, nr, sizeof(*e), entry_cmp);
	for (u32 i = 0; i < nr && yes; i++) {
		if ((i && !btrfs_comp_cpu_keys(&e[i - 1].key, &e[i].key)) ||
		    (u64)e[i].off + e[i].size != end || e[i].off < items_end)
			yes = 0;
		end = e[i].off;
	}
	free(e);
	return yes;
}

/*
 * Item i has the key of item i - 1 and, both in the leaf's data area, the
 * same bytes: a copy that adds nothing (a duplicated item).
 */
static bool is_duplicate(const struct extent_buffer *eb, u32 i, u64 items_end, u32 data_size)
{
	const struct btrfs_item *a = btrfs_leaf_item(eb, (int)i - 1), *b = btrfs_leaf_item(eb, (int)i);
	u64 aoff = btrfs_item_offset(a), boff = btrfs_item_offset(b), size = btrfs_item_size(a);
	struct btrfs_key ka, kb;

	btrfs_item_key_to_cpu(eb, &ka, (int)i - 1);
	btrfs_item_key_to_cpu(eb, &kb, (int)i);
	return !btrfs_comp_cpu_keys(&ka, &kb) && size == btrfs_item_size(b) &&
	       aoff >= items_end && aoff + size <= data_size && boff >= items_end &&
	       boff + size <= data_size &&
	       !memcmp(btrfs_leaf_item_ptr(eb, (int)i - 1), btrfs_leaf_item_ptr(eb, (int)i), size);
}

/*
 * Can an item of this type be size bytes, by rules the tree-checker does
 * not hold (the readers do): uuid items are subvolume ids of 8 bytes each,
 * csum items whole checksums.
 */
static bool size_fits_type(const struct mend *m, u8 type, u64 size)
{
	switch (type) {
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		return size && size % sizeof(__le64) == 0;
	case BTRFS_EXTENT_CSUM_KEY:
		return size && m->fs->geo.csum_size && size % m->fs->geo.csum_size == 0;
	}
	return true;
}

/*
 * Keys out of order at slot (against slot - 1) in the extent tree: the one
 * of the two, an extent record, without which its neighbours are in order
 * (its key is the damaged one); -1 when not exactly one.
 */
static int extent_record_out_of_order(struct mend *m, int slot)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	int drop = -1, n = 0;

	if (m->tree != BTRFS_EXTENT_TREE_OBJECTID)
		return -1;
	for (int s = slot - 1; s <= slot; s++) {
		struct btrfs_key key, before, after;

		btrfs_item_key_to_cpu(m->eb, &key, s);
		if (!mend_is_rebuilt_record(key.type) || ((s == 0 || (u32)s == nr - 1) && !mend_leaf_is_root(m)))
			continue;
		if (s > 0)
			btrfs_item_key_to_cpu(m->eb, &before, s - 1);
		if ((u32)s + 1 < nr)
			btrfs_item_key_to_cpu(m->eb, &after, s + 1);
		if (s > 0 && (u32)s + 1 < nr && btrfs_comp_cpu_keys(&before, &after) >= 0)
			continue;
		n++;
		drop = s;
	}
	return n == 1 ? drop : -1;
}

/*
 * Items are packed back to back from the end of the block: item i ends
 * where item i - 1 starts.  An item whose end is wrong gets its end from its
 * predecessor's start and its start from its successor's end; when there is
 * no successor or it is damaged too, it keeps whichever of its offset and
 * size is plausible (refused when both or neither are).  The tree-checker
 * has the last word on the result.
 */
int mend_layout(struct mend *m)
{
	struct extent_buffer *eb = m->eb;
	u32 nr = btrfs_eb_nritems(eb), data_size = BTRFS_LEAF_DATA_SIZE(eb->len);
	u64 items_end = (u64)nr * sizeof(struct btrfs_item);
	u64 end = data_size, noff, nsize;
	struct btrfs_key prev = { 0 }, key;
	u32 i;

	if (items_end > data_size) {
		mend_say(m, -1, "%u items cannot fit, not mended", nr);
		return -EUCLEAN;
	}
	for (i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(eb, &key, i);
		if (i && btrfs_comp_cpu_keys(&prev, &key) >= 0) {
			int ret = entries_exchanged(eb, nr, items_end);

			if (ret < 0)
				return ret;
			if (ret) {
				/* the rebuild lays them out in key order */
				mend_say(m, i, "item entries out of key order, their data in key order: entries put back in order");
				m->rebuild = true;
				return 0;
			}
			if (is_duplicate(eb, i, items_end, data_size)) {
				mend_say(m, i, "item a copy of the one before it (same key, same bytes): removed");
				ret = mend_drop_slot(m, (int)i);
				return ret < 0 ? ret : mend_layout(m);
			}
			if (prev.objectid == key.objectid)
				mend_key_type(m, (int)i - 1, (int)i);
			btrfs_item_key_to_cpu(eb, &prev, i - 1);
			btrfs_item_key_to_cpu(eb, &key, i);
			if (btrfs_comp_cpu_keys(&prev, &key) >= 0 && !mend_key_offset(m, (int)i))
				mend_key_offset(m, (int)i - 1);
			btrfs_item_key_to_cpu(eb, &prev, i - 1);
			btrfs_item_key_to_cpu(eb, &key, i);
			if (btrfs_comp_cpu_keys(&prev, &key) >= 0)
				mend_key_objectid(m, (int)i - 1, (int)i);
			btrfs_item_key_to_cpu(eb, &prev, i - 1);
			btrfs_item_key_to_cpu(eb, &key, i);
			if (btrfs_comp_cpu_keys(&prev, &key) >= 0) {
				int drop = extent_record_out_of_order(m, (int)i);

				if (drop >= 0) {
					mend_say(m, drop, "extent record out of key order: item removed, the extent's records are rebuilt from the trees");
					ret = mend_drop_slot(m, drop);
					return ret < 0 ? ret : mend_layout(m);
				}
			}
			if (btrfs_comp_cpu_keys(&prev, &key) >= 0) {
				mend_say(m, i, "keys out of order, not mended");
				return -EUCLEAN;
			}
		}
		prev = key;
	}
	for (i = 0; i < nr; i++) {
		struct btrfs_item *item = btrfs_leaf_item(eb, i);
		u64 off = btrfs_item_offset(item), size = btrfs_item_size(item);

		if (off + size == end && off >= items_end) {
			end = off;
			continue;
		}
		noff = UINT64_MAX;
		if (i + 1 < nr) {
			struct btrfs_item *next = btrfs_leaf_item(eb, i + 1);

			noff = (u64)btrfs_item_offset(next) + btrfs_item_size(next);
			if (noff > end || noff < items_end)
				noff = UINT64_MAX;     /* the successor is damaged too */
		}
		if (noff == UINT64_MAX) {
			bool keep_size = size <= end - items_end;
			bool keep_off = off >= items_end && off <= end;

			/* the last item, both plausible: the one under which the leaf passes the tree-checker */
			if (keep_size && keep_off && i + 1 == nr) {
				bool by_size, by_off;

				btrfs_set_item_offset(item, (u32)(end - size));
				by_size = btrfs_check_tree_block_msg(btrfs_fs_geometry(m->fs), eb, NULL, 0) == 0;
				btrfs_set_item_offset(item, (u32)off);
				btrfs_set_item_size(item, (u32)(end - off));
				by_off = btrfs_check_tree_block_msg(btrfs_fs_geometry(m->fs), eb, NULL, 0) == 0;
				btrfs_set_item_size(item, (u32)size);
				/* both pass: the size the item's type allows */
				if (by_size && by_off) {
					struct btrfs_key ik;

					btrfs_item_key_to_cpu(eb, &ik, i);
					by_size = size_fits_type(m, ik.type, size);
					by_off = size_fits_type(m, ik.type, end - off);
				}
				if (by_size != by_off) {
					keep_off = by_off;
					keep_size = by_size;
				}
			}
			if (keep_size == keep_off) {
				mend_say(m, i, "item offset %llu size %llu: cannot tell which one is wrong, not mended",
				    off, size);
				return -EUCLEAN;
			}
			noff = keep_size ? end - size : off;
		}
		nsize = end - noff;
		mend_say(m, i, "item offset %llu size %llu, set to offset %llu size %llu (packed between its neighbours)",
		    off, size, noff, nsize);
		btrfs_set_item_offset(item, (u32)noff);
		btrfs_set_item_size(item, (u32)nsize);
		end = noff;
	}
	return 0;
}

/*
 * The other reading of an item that ends short of its predecessor's start:
 * its data (and that of the items after it, which follow it) was moved down
 * with the offsets, leaving a gap.  Each such item's data is moved up to
 * close the gap, sizes kept (btrfs-progs' check repairs the same way).  An
 * item reaching into its predecessor or out of the block is not this case.
 */
int mend_close_gaps(struct mend *m)
{
	struct extent_buffer *eb = m->eb;
	u32 nr = btrfs_eb_nritems(eb), data_size = btrfs_leaf_data_size(eb);
	u64 items_end = (u64)nr * sizeof(struct btrfs_item), end = data_size;

	for (u32 i = 0; i < nr; i++) {
		u64 off = btrfs_leaf_item_offset(eb, i), size = btrfs_leaf_item_size(eb, i);

		if (off < items_end || off + size > end)
			return -EUCLEAN;
		if (off + size < end) {
			u64 to = end - size;

			/*
			 * Data over the next item's end: the offset is what is wrong
			 * (the data sits where the next item ends), not a gap to close.
			 */
			if (i + 1 < nr && (u64)btrfs_leaf_item_offset(eb, i + 1) +
					  btrfs_leaf_item_size(eb, i + 1) > off)
				return -EUCLEAN;
			mend_say(m, i, "item offset %llu size %llu ends %llu bytes before the item before it: data moved to offset %llu",
			    off, size, end - off - size, to);
			memmove(btrfs_leaf_data(eb) + to, btrfs_leaf_data(eb) + off, size);
			btrfs_set_leaf_item_offset(eb, i, (u32)to);
			off = to;
		}
		end = off;
	}
	return 0;
}

/* Does some item end short of its predecessor's start (mend_close_gaps()'s case)? */
bool mend_layout_has_gap(const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	u64 end = btrfs_leaf_data_size(eb);

	if ((u64)nr * sizeof(struct btrfs_item) > end)
		return false;
	for (u32 i = 0; i < nr; i++) {
		u64 off = btrfs_leaf_item_offset(eb, i), size = btrfs_leaf_item_size(eb, i);

		if (off + size < end)
			return true;
		end = off;
	}
	return false;
}

int mend_leaf_header(struct mend *m)
{
	struct btrfs_header *h = btrfs_header(m->eb);
	u64 gen = btrfs_header_generation(h);
	u32 nr = btrfs_header_nritems(h);
	static const struct btrfs_item zero;

	/*
	 * trailing item entries of zero bytes (key (0 0 0), no data) are free
	 * space counted in: no item has that key after another or data there.
	 * A count beyond what the leaf holds ends at the first such entry.
	 */
	if ((u64)sizeof(*h) + (u64)nr * sizeof(zero) > m->eb->len) {
		u32 max = (m->eb->len - (u32)sizeof(*h)) / (u32)sizeof(zero), i;

		for (i = 1; i < max && memcmp(btrfs_leaf_item(m->eb, (int)i), &zero, sizeof(zero)); i++)
			;
		if (i < max)
			nr = i;
	}
	while (nr > 1 && (u64)sizeof(*h) + (u64)nr * sizeof(zero) <= m->eb->len &&
	       !memcmp(btrfs_leaf_item(m->eb, (int)nr - 1), &zero, sizeof(zero)))
		nr--;
	if (nr != btrfs_header_nritems(h)) {
		mend_say(m, -1, "header nritems %u, its last %u item entries are zero bytes (free space): set to %u",
		    btrfs_header_nritems(h), btrfs_header_nritems(h) - nr, nr);
		btrfs_set_header_nritems(h, nr);
	}

	/* the tree-checker allows the transaction being committed; so does the parent's pointer */
	if (gen <= m->limit + 1)
		return 0;
	mend_say(m, -1, "header generation %llu beyond the superblock's, set to %llu",
	    (unsigned long long)gen, (unsigned long long)m->limit);
	btrfs_set_header_generation(h, m->limit);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Mending one leaf that fails the tree-checker (check --repair), on a
 * private copy: see leaf-mend.h.
 *
 * Two steps: first the item array (offsets and sizes, so that every item
 * lies where the packing says), then the items one by one, which is only
 * safe once the first step made every item pointer point inside the block.
 * Every change is printed with block, tree, slot, key, field, old and new
 * value.  Here: the layout, keys, and the items of trees of files; the
 * chunk tree's, extent and root tree items in leaf-mend-system.c,
 * leaf-mend-extents.c and leaf-mend-roots.c (leaf-mend-internal.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "check/context.h"
#include "check/chunk-length-told.h"
#include "check/dir-entry-lengths.h"
#include "check/extent-records.h"
#include "check/file-extent-codes.h"
#include "check/leaf-mend.h"
#include "check/leaf-mend-internal.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/tree-checker.h"

/* ---- step 1: the item array ---------------------------------------------- */

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
 * Items are packed back to back from the end of the block: item i ends
 * where item i - 1 starts.  An item whose end is wrong gets its end from its
 * predecessor's start and its start from its successor's end; when there is
 * no successor or it is damaged too, it keeps whichever of its offset and
 * size is plausible (refused when both or neither are).  The tree-checker
 * has the last word on the result.
 */
static void mend_key_type(struct mend *m, int first, int last);

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

static int drop_slot(struct mend *m, int slot);

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
 * May slot's key be mended?  Not at a leaf's first slot unless the leaf is
 * its tree's root (the parent names the leaf by that key: header-mend.c),
 * nor at its last unless the key that bounds the leaf is known.
 */
static bool key_mendable_at(const struct mend *m, int slot)
{
	u32 nr = btrfs_eb_nritems(m->eb);

	return slot >= 0 && (u32)slot < nr &&
	       ((slot > 0 && ((u32)slot < nr - 1 || m->bound)) || mend_leaf_is_root(m));
}

/* Would k at slot lie between its neighbours' keys, and below the leaf's bound? */
static bool key_fits_at(const struct mend *m, int slot, const struct btrfs_key *k)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	struct btrfs_key other;

	if (slot > 0) {
		btrfs_item_key_to_cpu(m->eb, &other, slot - 1);
		if (btrfs_comp_cpu_keys(&other, k) >= 0)
			return false;
	}
	if ((u32)slot + 1 < nr) {
		btrfs_item_key_to_cpu(m->eb, &other, slot + 1);
		if (btrfs_comp_cpu_keys(k, &other) >= 0)
			return false;
	}
	return !m->bound || btrfs_comp_cpu_keys(k, m->bound) < 0;
}

/* Does the leaf pass the tree-checker with key k at slot?  The slot's key is put back. */
static bool passes_with_key(struct mend *m, int slot, const struct btrfs_key *k)
{
	struct btrfs_item *item = btrfs_leaf_item(m->eb, slot);
	struct btrfs_disk_key was = item->key;
	char msg[512];
	bool ok;

	btrfs_cpu_key_to_disk(&item->key, k);
	ok = btrfs_check_tree_block_msg(btrfs_fs_geometry(m->fs), m->eb, msg, sizeof(msg)) == 0;
	item->key = was;
	return ok;
}

/* An extent tree record the extents pass rebuilds from the trees that use the extent? */
static bool is_rebuilt_record(u8 type)
{
	switch (type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		return true;
	}
	return false;
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
		if (!is_rebuilt_record(key.type) || ((s == 0 || (u32)s == nr - 1) && !mend_leaf_is_root(m)))
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
 * A damaged key objectid that breaks the key order: of the two items
 * around the break, the one whose objectid, set to a neighbour's, puts its
 * key between its neighbours and makes the leaf pass the tree-checker.
 * Mended when exactly one such (slot, objectid) exists; an objectid
 * between the neighbours' (another inode's) is not told.
 */
/*
 * In a file tree, does objectid have its inode item in the leaf, or is it
 * the leaf's first objectid (its inode item in a leaf before)?
 */
static bool objectid_has_inode(const struct mend *m, u64 objectid)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	struct btrfs_key k;

	for (u32 i = 0; i < nr; i++) {
		btrfs_item_key_to_cpu(m->eb, &k, (int)i);
		if (k.objectid == objectid && (!i || k.type == BTRFS_INODE_ITEM_KEY))
			return true;
	}
	return false;
}

/* The one objectid a key of this type has (its tree's fixed id), false when it varies. */
static bool fixed_objectid(u8 type, u64 *id)
{
	switch (type) {
	case BTRFS_CHUNK_ITEM_KEY:
		*id = BTRFS_FIRST_CHUNK_TREE_OBJECTID;
		return true;
	case BTRFS_DEV_ITEM_KEY:
		*id = BTRFS_DEV_ITEMS_OBJECTID;
		return true;
	case BTRFS_EXTENT_CSUM_KEY:
		*id = BTRFS_EXTENT_CSUM_OBJECTID;
		return true;
	case BTRFS_QGROUP_STATUS_KEY:
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		*id = 0;
		return true;
	}
	return false;
}

/* A key whose type has one objectid (fixed_objectid()) with another: that one, when it fits. */
static void mend_fixed_objectid(struct mend *m, int slot)
{
	struct btrfs_key key, k;
	u64 id;

	btrfs_item_key_to_cpu(m->eb, &key, slot);
	if (!fixed_objectid(key.type, &id) || key.objectid == id || !key_mendable_at(m, slot))
		return;
	k = (struct btrfs_key){ id, key.type, key.offset };
	if (!key_fits_at(m, slot, &k) || !passes_with_key(m, slot, &k))
		return;
	btrfs_cpu_key_to_disk(&btrfs_leaf_item(m->eb, slot)->key, &k);
	mend_say(m, slot, "key objectid %llu was %llu: the one every item of its type has",
	    (unsigned long long)id, (unsigned long long)key.objectid);
}

/* A key type of an inode's own items in a tree of files (keyed by its number). */
static bool inode_key_type(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
		return true;
	}
	return false;
}

static void mend_key_objectid(struct mend *m, int first, int last)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	struct btrfs_key found[4], key;
	int n = 0, at[4], keep = -1;

	for (int slot = first; slot <= last; slot++) {
		struct btrfs_key near = { 0 };
		u64 ids[2];

		if (!key_mendable_at(m, slot))
			continue;
		btrfs_item_key_to_cpu(m->eb, &key, slot);
		if (slot > 0)
			btrfs_item_key_to_cpu(m->eb, &near, slot - 1);
		ids[0] = near.objectid;
		if ((u32)slot + 1 < nr)
			btrfs_item_key_to_cpu(m->eb, &near, slot + 1);
		ids[1] = near.objectid;
		for (int j = 0; j < 2 && n < 4; j++) {
			struct btrfs_key k = { ids[j], key.type, key.offset };

			if ((j && ids[1] == ids[0]) || k.objectid == key.objectid || !key_fits_at(m, slot, &k) ||
			    !passes_with_key(m, slot, &k))
				continue;
			at[n] = slot;
			found[n++] = k;
		}
	}
	/*
	 * Several readings (the last leaf of a tree, whose keys nothing bounds):
	 * in a file tree, the one whose items then belong to an inode the leaf has.
	 */
	for (int i = 0; i < n; i++) {
		if (n > 1 && (!check_is_file_tree(m->tree) || !objectid_has_inode(m, found[i].objectid)))
			continue;
		if (keep >= 0)
			return;
		keep = i;
	}
	if (keep < 0)
		return;
	btrfs_item_key_to_cpu(m->eb, &key, at[keep]);
	btrfs_cpu_key_to_disk(&btrfs_leaf_item(m->eb, at[keep])->key, &found[keep]);
	mend_say(m, at[keep], "key objectid %llu was %llu: the one neighbour's objectid that keeps the keys in order and passes the tree-checker%s",
	    (unsigned long long)found[keep].objectid, (unsigned long long)key.objectid,
	    n > 1 ? " (of the inode the leaf has)" : "");
}

static int refs_named(const struct extent_buffer *eb, int slot, const char *name, u32 len, u64 *index);

/* The index of ino's inode ref in dir named name (one such ref); false when none or not one. */
static bool ref_index_of(struct mend *m, u64 ino, u64 dir, const u8 *name, u32 len, u64 *index)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, dir };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	int slot, n = 0;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot))
		n = refs_named(eb, slot, (const char *)name, len, index);
	btrfs_release_path(&path);
	return n == 1;
}

/* Where the file extent at slot of the leaf ends in the file (its key offset given as off); 0: not told. */
static u64 extent_end_at(const struct mend *m, int slot, u64 off)
{
	const struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(m->eb, slot);
	u32 size = btrfs_leaf_item_size(m->eb, slot);

	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return 0;
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
		return off + round_up(btrfs_file_extent_ram_bytes(fi), (u64)m->fs->geo.sectorsize);
	return size == sizeof(*fi) ? off + btrfs_file_extent_num_bytes(fi) : 0;
}

/*
 * The key offset slot's item tells by itself and its neighbours: an inode
 * item's in a file tree is 0, a device item's its devid (of a known
 * device with its uuid), a dir item's or xattr's its name's hash, a chunk
 * item's mend_chunk_key_offset_told(), a root ref's its partner's; a dir
 * index's is the index of its inode's ref by that name; a file extent's
 * is where the inode's previous extent ends (0 for its first), taken only
 * when the extent then ends where the next one starts (or, the last, at
 * the size rounded up).  false when not told.
 */
static bool key_offset_told(struct mend *m, int slot, const struct btrfs_key *key, u64 *off)
{
	u32 nr = btrfs_eb_nritems(m->eb), size = btrfs_leaf_item_size(m->eb, slot);
	struct btrfs_key prev = { 0 }, next = { 0 };
	u64 start = 0, end, want;

	if (key->type == BTRFS_DIR_INDEX_KEY) {
		const struct btrfs_dir_item *di = btrfs_leaf_item_ptr(m->eb, slot);
		struct btrfs_key loc;

		if (size < sizeof(*di) || btrfs_dir_name_len(di) > size - sizeof(*di))
			return false;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		return loc.type == BTRFS_INODE_ITEM_KEY &&
		       ref_index_of(m, loc.objectid, key->objectid, (const u8 *)(di + 1), btrfs_dir_name_len(di), off);
	}
	/* an inode item's offset in a file tree is 0 (the root tree's cache inodes name their block group) */
	if (key->type == BTRFS_INODE_ITEM_KEY && check_is_file_tree(m->tree)) {
		*off = 0;
		return true;
	}
	if (key->type == BTRFS_CHUNK_ITEM_KEY && size >= sizeof(struct btrfs_chunk))
		return mend_chunk_key_offset_told(m, slot, key, off);
	if (key->type == BTRFS_ROOT_ITEM_KEY && m->tree == BTRFS_ROOT_TREE_OBJECTID &&
	    check_root_item_at_zero(btrfs_fs_super(m->fs), key->objectid)) {
		*off = 0;
		return true;
	}
	/*
	 * a ROOT_REF's (the child) or ROOT_BACKREF's (the parent): the one
	 * partner item in the leaf with the same bytes that names this one
	 */
	if (key->type == BTRFS_ROOT_REF_KEY || key->type == BTRFS_ROOT_BACKREF_KEY) {
		u8 partner = key->type == BTRFS_ROOT_REF_KEY ? BTRFS_ROOT_BACKREF_KEY : BTRFS_ROOT_REF_KEY;
		int n = 0;

		for (u32 i = 0; i < nr; i++) {
			struct btrfs_key k;

			btrfs_item_key_to_cpu(m->eb, &k, (int)i);
			if (k.type != partner || k.offset != key->objectid || btrfs_leaf_item_size(m->eb, (int)i) != size ||
			    memcmp(btrfs_leaf_item_ptr(m->eb, (int)i), btrfs_leaf_item_ptr(m->eb, slot), size))
				continue;
			*off = k.objectid;
			n++;
		}
		return n == 1;
	}
	/* a dir item's or xattr's is the hash of its (first) name */
	if (key->type == BTRFS_DIR_ITEM_KEY || key->type == BTRFS_XATTR_ITEM_KEY) {
		const struct btrfs_dir_item *di = btrfs_leaf_item_ptr(m->eb, slot);

		if (size < sizeof(*di) || btrfs_dir_name_len(di) > size - sizeof(*di) || !btrfs_dir_name_len(di))
			return false;
		*off = btrfs_name_hash((const char *)(di + 1), btrfs_dir_name_len(di));
		return true;
	}
	/* a device item's is its devid, when a device has that devid and the item's uuid */
	if (key->type == BTRFS_DEV_ITEM_KEY && size == sizeof(struct btrfs_dev_item)) {
		const struct btrfs_dev_item *di = btrfs_leaf_item_ptr(m->eb, slot);

		*off = btrfs_device_id(di);
		return btrfs_find_device(&m->fs->devices, *off, di->uuid) != NULL;
	}
	if (key->type != BTRFS_EXTENT_DATA_KEY || slot == 0 || (u32)slot + 1 >= nr)
		return false;
	btrfs_item_key_to_cpu(m->eb, &prev, slot - 1);
	btrfs_item_key_to_cpu(m->eb, &next, slot + 1);
	if (prev.objectid == key->objectid && prev.type == BTRFS_EXTENT_DATA_KEY &&
	    !(start = extent_end_at(m, slot - 1, prev.offset)))
		return false;
	end = extent_end_at(m, slot, start);
	if (!end)
		return false;
	if (next.objectid == key->objectid && next.type == BTRFS_EXTENT_DATA_KEY) {
		want = next.offset;
	} else {
		struct btrfs_key ik = { key->objectid, BTRFS_INODE_ITEM_KEY, 0 };
		const struct extent_buffer *eb;
		struct btrfs_path path;
		int islot;

		want = 0;
		if (mend_find_item(m, &ik, BTRFS_SEARCH_EXACT, &path, &eb, &islot) &&
		    btrfs_leaf_item_size(eb, islot) == sizeof(struct btrfs_inode_item))
			want = round_up(btrfs_inode_size((const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, islot)),
					(u64)m->fs->geo.sectorsize);
		btrfs_release_path(&path);
	}
	if (end != want)
		return false;
	*off = start;
	return true;
}

/*
 * A damaged key offset (the key order broken, or an offset the tree-checker
 * rejects): the one key_offset_told() gives, kept when the key then lies
 * between its neighbours.  true when mended.
 */
static bool mend_key_offset(struct mend *m, int slot)
{
	struct btrfs_key key, k;
	u64 off;

	if (!key_mendable_at(m, slot))
		return false;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	if (!key_offset_told(m, slot, &key, &off) || off == key.offset)
		return false;
	k = (struct btrfs_key){ key.objectid, key.type, off };
	if (!key_fits_at(m, slot, &k))
		return false;
	btrfs_cpu_key_to_disk(&btrfs_leaf_item(m->eb, slot)->key, &k);
	mend_say(m, slot, "key offset %llu was %llu: what %s", (unsigned long long)off, (unsigned long long)key.offset,
	    key.type == BTRFS_DIR_INDEX_KEY ? "its inode's ref by that name says (its index)" :
	    key.type == BTRFS_INODE_ITEM_KEY ? "every inode item's is" :
	    key.type == BTRFS_DIR_ITEM_KEY || key.type == BTRFS_XATTR_ITEM_KEY ? "its name's hash says" :
	    key.type == BTRFS_CHUNK_ITEM_KEY ? "its stripes' system chunk or the chunks beside it say" :
	    key.type == BTRFS_ROOT_REF_KEY || key.type == BTRFS_ROOT_BACKREF_KEY ? "its partner ref says" :
	    key.type == BTRFS_DEV_ITEM_KEY ? "its devid says" :
	    key.type == BTRFS_ROOT_ITEM_KEY ? "the kernel looks a tree that is no subvolume up at" :
	    "the inode's neighbouring extents say");
	return true;
}

static int mend_layout(struct mend *m)
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
				ret = drop_slot(m, (int)i);
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
					ret = drop_slot(m, drop);
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
static int close_gaps(struct mend *m)
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

/* Does some item end short of its predecessor's start (close_gaps()'s case)? */
static bool layout_has_gap(const struct extent_buffer *eb)
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

/* ---- step 2: the items ----------------------------------------------------- */

static int mend_header(struct mend *m)
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

/*
 * An inode's mode whose type is no S_IF* type, or with bits beyond type and
 * permissions: the type its names' directory entries give (both the
 * DIR_INDEX and the DIR_ITEM, agreeing; a subvolume's top directory is a
 * directory, the data relocation tree's too), the permission bits kept.  Left as is (the leaf not mended)
 * when nothing says.
 */
static u8 named_type(struct mend *m, u64 ino);
/*
 * The type an inode's own items give, for an inode without names: file
 * extents make a regular file, directory entries a directory; 0 if the leaf
 * holds neither after its inode item.
 */
static u32 items_type(const struct mend *m, int slot, u64 ino)
{
	u32 nr = btrfs_eb_nritems(m->eb);

	for (u32 i = (u32)slot + 1; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(m->eb, &key, (int)i);
		if (key.objectid != ino)
			break;
		if (key.type == BTRFS_EXTENT_DATA_KEY)
			return 0100000;
		if (key.type == BTRFS_DIR_ITEM_KEY || key.type == BTRFS_DIR_INDEX_KEY)
			return 0040000;
	}
	return 0;
}

/* Has ino an inode ref (a name, whatever its entries say)? */
static bool has_inode_ref(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool found = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		found = k.objectid == ino && k.type == BTRFS_INODE_REF_KEY;
	}
	btrfs_release_path(&path);
	return found;
}

static void mend_inode_mode(struct mend *m, int slot, u64 ino, struct btrfs_inode_item *ii)
{
	u32 mode = btrfs_inode_mode(ii), type = mode & 0170000, nmode;
	const char *why = "bits beyond type and permissions cleared";

	if (btrfs_ftype_of_mode(mode) != BTRFS_FT_UNKNOWN && !(mode & ~(0170000 | 07777)))
		return;
	/* the root tree's only inodes numbered like files are space cache v1 files */
	if (m->tree == BTRFS_ROOT_TREE_OBJECTID && ino >= BTRFS_FIRST_FREE_OBJECTID &&
	    ino <= BTRFS_LAST_FREE_OBJECTID) {
		mend_say(m, slot, "inode mode 0%o, set to 0100600 (a space cache file's, as the kernel makes them)", mode);
		btrfs_set_inode_mode(ii, 0100600);
		return;
	}
	/* the root tree's directory (holding "default") is one, as mkfs makes it */
	if (m->tree == BTRFS_ROOT_TREE_OBJECTID && ino == BTRFS_ROOT_TREE_DIR_OBJECTID) {
		mend_say(m, slot, "inode mode 0%o, set to 040755 (the root tree's directory, as mkfs makes it)", mode);
		btrfs_set_inode_mode(ii, 040755);
		return;
	}
	if (!check_is_file_tree(m->tree))
		return;
	/* bits beyond type and permissions set: the type bits are suspect too */
	if (ino == BTRFS_FIRST_FREE_OBJECTID) {
		type = 0040000;
		why = "a tree's top directory";
	} else if (btrfs_ftype_of_mode(type) == BTRFS_FT_UNKNOWN || (mode & ~(0170000 | 07777))) {
		u32 named = btrfs_mode_of_ftype(named_type(m, ino));
		u32 own = named || has_inode_ref(m, ino) ? 0 : items_type(m, slot, ino);

		if (named) {
			type = named;
			why = "the file type its directory entries give";
		} else if (own) {
			type = own;
			why = "the file type its own items give";
		} else if (btrfs_ftype_of_mode(type) == BTRFS_FT_UNKNOWN) {
			type = 0;
		}
	}
	if (!type)
		return;
	nmode = type | (mode & 07777);
	mend_say(m, slot, "inode mode 0%o, set to 0%o (%s)", mode, nmode, why);
	btrfs_set_inode_mode(ii, nmode);
}

/*
 * Generation: when the inode was made, so never after its transid (last
 * change).  A directory has one name: nlink 1 (pass 5 then checks it).
 */
/* Does the csum tree hold a checksum for the data sector at bytenr? */
static bool has_csum(struct mend *m, u64 bytenr)
{
	struct btrfs_key want = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, bytenr }, k;
	struct btrfs_tree_ref csum_tree;
	struct btrfs_path path;
	bool found = false;

	if (!m->fs->geo.csum_size || btrfs_find_tree_root(m->fs, BTRFS_CSUM_TREE_OBJECTID, &csum_tree) < 0)
		return false;
	btrfs_init_path(&path);
	if (btrfs_search_key(m->fs, &csum_tree, &want, BTRFS_SEARCH_PREV, &path, &k) == 0 &&
	    k.objectid == BTRFS_EXTENT_CSUM_OBJECTID && k.type == BTRFS_EXTENT_CSUM_KEY && k.offset <= bytenr)
		found = bytenr - k.offset < (u64)(btrfs_leaf_item_size(path.nodes[0], path.slots[0]) /
						  m->fs->geo.csum_size) * m->fs->geo.sectorsize;
	btrfs_release_path(&path);
	return found;
}

/*
 * The inode flags its other items tell, for a flags word with unknown bits
 * (garbage): NODATASUM and NODATACOW when its first regular data extent has
 * no checksum, the verity bit when it has a verity descriptor; nothing else
 * can be known.
 */
static u64 inode_flags_told(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_EXTENT_DATA_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u64 flags = 0;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == ino && k.type == BTRFS_EXTENT_DATA_KEY &&
		    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_file_extent_item)) {
			const struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(eb, slot);

			if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_REG &&
			    btrfs_file_extent_disk_bytenr(fi) &&
			    !has_csum(m, btrfs_file_extent_disk_bytenr(fi)))
				flags |= BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW;
		}
	}
	btrfs_release_path(&path);
	want = (struct btrfs_key){ ino, BTRFS_VERITY_DESC_ITEM_KEY, 0 };
	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == ino && k.type == BTRFS_VERITY_DESC_ITEM_KEY)
			flags |= (u64)BTRFS_INODE_RO_VERITY << 32;
	}
	btrfs_release_path(&path);
	return flags;
}

static void mend_inode(struct mend *m, int slot, u64 ino, struct btrfs_inode_item *ii)
{
	u64 gen = btrfs_inode_generation(ii), tid = btrfs_inode_transid(ii);
	u64 leaf_gen = btrfs_header_generation(btrfs_header(m->eb));

	mend_inode_mode(m, slot, ino, ii);
	if (((u32)btrfs_inode_flags(ii) & ~BTRFS_INODE_FLAG_MASK) ||
	    ((u32)(btrfs_inode_flags(ii) >> 32) & ~BTRFS_INODE_RO_FLAG_MASK)) {
		u64 want = inode_flags_told(m, ino);

		mend_say(m, slot, "inode flags 0x%llx have unknown bits (a damaged word): set to 0x%llx, what its data extents' checksums and items tell",
		    (unsigned long long)btrfs_inode_flags(ii), (unsigned long long)want);
		btrfs_set_inode_flags(ii, want);
	}
	if (S_ISDIR(btrfs_inode_mode(ii)) && btrfs_inode_nlink(ii) > 1) {
		mend_say(m, slot, "directory nlink %u, set to 1", btrfs_inode_nlink(ii));
		btrfs_set_inode_nlink(ii, 1);
	}

	if (tid > m->limit) {
		mend_say(m, slot, "inode transid %llu beyond the superblock's, set to the leaf's generation %llu",
		    (unsigned long long)tid, (unsigned long long)leaf_gen);
		btrfs_set_inode_transid(ii, leaf_gen);
		tid = leaf_gen;
	}
	if (gen > m->limit) {
		mend_say(m, slot, "inode generation %llu beyond the superblock's, set to its transid %llu",
		    (unsigned long long)gen, (unsigned long long)tid);
		btrfs_set_inode_generation(ii, tid);
	}
}

/*
 * The data extent the extent tree has at bytenr: its length in *len, and in
 * offs[] the offsets of its data references of (root, ino) (file offset
 * minus extent offset; inline and keyed), at most max of them, *nr of them
 * in all.  false when the extent tree has no data extent there.
 */
static bool data_extent_refs(struct mend *m, u64 bytenr, u64 ino, u64 *len, u64 *offs, u32 max,
			     u32 *nr)
{
	struct btrfs_key want = { bytenr, BTRFS_EXTENT_ITEM_KEY, 0 }, k;
	struct btrfs_tree_ref extent_tree;
	struct btrfs_path path;
	bool found = false;
	int ret;

	*nr = 0;
	if (btrfs_find_tree_root(m->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_tree) < 0)
		return false;
	btrfs_init_path(&path);
	ret = btrfs_search_key(m->fs, &extent_tree, &want, BTRFS_SEARCH_NEXT, &path, &k);
	if (ret == 0 && k.objectid == bytenr && k.type == BTRFS_EXTENT_ITEM_KEY &&
	    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_extent_item)) {
		const u8 *p = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);
		u32 size = btrfs_leaf_item_size(path.nodes[0], path.slots[0]);
		u32 cur = sizeof(struct btrfs_extent_item);

		found = btrfs_extent_flags((const void *)p) & BTRFS_EXTENT_FLAG_DATA;
		*len = k.offset;
		/* inline refs: data refs name (root, ino, offset); shared ones do not */
		while (found && cur < size) {
			const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
			u8 type = btrfs_extent_inline_ref_type(iref);
			u32 rsize = btrfs_extent_inline_ref_size(type);

			if (!rsize || cur + rsize > size)
				break;
			if (type == BTRFS_EXTENT_DATA_REF_KEY) {
				const struct btrfs_extent_data_ref *dr = (const void *)&iref->offset;

				if (btrfs_extent_data_ref_root(dr) == m->tree &&
				    btrfs_extent_data_ref_objectid(dr) == ino && (*nr)++ < max)
					offs[*nr - 1] = btrfs_extent_data_ref_offset(dr);
			}
			cur += rsize;
		}
		/* keyed data refs follow the extent item */
		while (found && btrfs_next_item(&path) == 0) {
			btrfs_path_item_key(&path, &k);
			if (k.objectid != bytenr || k.type > BTRFS_SHARED_DATA_REF_KEY)
				break;
			if (k.type == BTRFS_EXTENT_DATA_REF_KEY &&
			    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >=
			    sizeof(struct btrfs_extent_data_ref)) {
				const struct btrfs_extent_data_ref *dr =
					btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);

				if (btrfs_extent_data_ref_root(dr) == m->tree &&
				    btrfs_extent_data_ref_objectid(dr) == ino && (*nr)++ < max)
					offs[*nr - 1] = btrfs_extent_data_ref_offset(dr);
			}
		}
	}
	btrfs_release_path(&path);
	return found;
}

/*
 * An item of a regular extent's size whose fields after the type, read as
 * a regular extent's, name a data extent the extent tree has, exactly (its
 * start and length): the item is a regular extent whose type was damaged.
 */
static bool names_data_extent(struct mend *m, const struct btrfs_file_extent_item *fi)
{
	u64 bytenr = btrfs_file_extent_disk_bytenr(fi), len;
	u32 nr;

	return bytenr && data_extent_refs(m, bytenr, 0, &len, NULL, 0, &nr) &&
	       len == btrfs_file_extent_disk_num_bytes(fi);
}

/*
 * A regular or preallocated extent's fields the tree-checker wants aligned,
 * each set from the extent tree's data extent at disk_bytenr: disk_num_bytes
 * its length; an uncompressed extent's ram_bytes its length too (a
 * compressed one's what its data decompresses to); the offset
 * from the one data reference of this inode (file offset minus offset) that
 * keeps the extent within ram_bytes.
 */
static void mend_extent_fields(struct mend *m, int slot, struct btrfs_file_extent_item *fi)
{
	u32 ss = m->fs->geo.sectorsize, nr;
	u64 len, offs[4], off = 0, num = btrfs_file_extent_num_bytes(fi);
	struct btrfs_key key;
	int fits = 0;

	if (IS_ALIGNED(btrfs_file_extent_disk_num_bytes(fi), ss) && IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss) &&
	    IS_ALIGNED(btrfs_file_extent_offset(fi), ss))
		return;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	if (!data_extent_refs(m, btrfs_file_extent_disk_bytenr(fi), key.objectid, &len, offs,
			      ARRAY_SIZE(offs), &nr))
		return;
	if (!IS_ALIGNED(btrfs_file_extent_disk_num_bytes(fi), ss)) {
		mend_say(m, slot, "file extent disk_num_bytes %llu, set to its data extent's length %llu",
		    (unsigned long long)btrfs_file_extent_disk_num_bytes(fi), (unsigned long long)len);
		btrfs_set_file_extent_disk_num_bytes(fi, len);
	}
	if (!IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss) && !btrfs_file_extent_compression(fi)) {
		mend_say(m, slot, "uncompressed file extent ram_bytes %llu, set to its data extent's length %llu",
		    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)len);
		btrfs_set_file_extent_ram_bytes(fi, len);
	} else if (!IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss)) {
		u64 ram = btrfs_file_extent_disk_num_bytes(fi) == len ? file_extent_ram_told(m->fs, fi) : 0;

		if (ram && btrfs_file_extent_offset(fi) + num <= ram) {
			mend_say(m, slot, "compressed file extent ram_bytes %llu, set to %llu (what its data decompresses to)",
			    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)ram);
			btrfs_set_file_extent_ram_bytes(fi, ram);
		}
	}
	if (IS_ALIGNED(btrfs_file_extent_offset(fi), ss) || nr > ARRAY_SIZE(offs))
		return;
	for (u32 i = 0; i < nr; i++) {
		u64 o = key.offset - offs[i];

		if (offs[i] <= key.offset && IS_ALIGNED(o, ss) &&
		    o + num <= btrfs_file_extent_ram_bytes(fi) && o + num >= o && !fits++)
			off = o;
	}
	if (fits != 1)
		return;
	mend_say(m, slot, "file extent offset %llu, set to %llu (its file offset less its data reference's)",
	    (unsigned long long)btrfs_file_extent_offset(fi), (unsigned long long)off);
	btrfs_set_file_extent_offset(fi, off);
}

/* Does inode ino of this tree checksum its data (no NODATASUM)?  false when not known. */
static bool inode_has_datasum(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_ITEM_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool sums = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		sums = k.objectid == ino && k.type == BTRFS_INODE_ITEM_KEY &&
		       btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item) &&
		       !(btrfs_inode_flags((const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)) &
			 BTRFS_INODE_NODATASUM);
	}
	btrfs_release_path(&path);
	return sums;
}

/*
 * The type a file extent's item tells, for a type the tree-checker rejects
 * (unknown, or regular/preallocated in an item of another size): only those
 * two fill the whole struct, so another size is inline.  At that size, an
 * item naming a data extent the extent tree has is regular when the data has
 * checksums, preallocated when not in a file that checksums its data; one
 * naming no data, with nothing after disk_bytenr but num_bytes, is a hole (regular);
 * an uncompressed inline extent of that size holds 32 bytes.  -1: not told.
 */
static int file_extent_type_told(struct mend *m, int slot, const struct btrfs_file_extent_item *fi,
				 u32 size)
{
	struct btrfs_key key;

	if (size != sizeof(*fi))
		return BTRFS_FILE_EXTENT_INLINE;
	if (names_data_extent(m, fi)) {
		btrfs_item_key_to_cpu(m->eb, &key, slot);
		if (has_csum(m, btrfs_file_extent_disk_bytenr(fi)))
			return BTRFS_FILE_EXTENT_REG;
		return inode_has_datasum(m, key.objectid) ? BTRFS_FILE_EXTENT_PREALLOC : -1;
	}
	if (!btrfs_file_extent_disk_bytenr(fi) && !btrfs_file_extent_disk_num_bytes(fi) &&
	    !btrfs_file_extent_offset(fi) && btrfs_file_extent_num_bytes(fi) &&
	    IS_ALIGNED(btrfs_file_extent_num_bytes(fi), m->fs->geo.sectorsize))
		return BTRFS_FILE_EXTENT_REG;
	if (!btrfs_file_extent_compression(fi) &&
	    btrfs_file_extent_ram_bytes(fi) == btrfs_file_extent_inline_item_len(size))
		return BTRFS_FILE_EXTENT_INLINE;
	return -1;
}

/*
 * A file extent's codes: encryption and other_encoding, which no kernel
 * writes, are 0; a type or compression the tree-checker rejects is the one
 * the item and its data tell (file_extent_type_told(),
 * file_extent_compression_told()), else left for the tree-checker to refuse.
 */
static void mend_file_extent_codes(struct mend *m, int slot, struct btrfs_file_extent_item *fi,
				   u32 size)
{
	u8 type = btrfs_file_extent_type(fi);

	if (btrfs_file_extent_encryption(fi)) {
		mend_say(m, slot, "file extent encryption %u, no kernel writes one: set to 0",
		    btrfs_file_extent_encryption(fi));
		btrfs_set_file_extent_encryption(fi, 0);
	}
	if (btrfs_file_extent_other_encoding(fi)) {
		mend_say(m, slot, "file extent other_encoding %u, no kernel writes one: set to 0",
		    btrfs_file_extent_other_encoding(fi));
		btrfs_set_file_extent_other_encoding(fi, 0);
	}
	if (type >= BTRFS_NR_FILE_EXTENT_TYPES || (type != BTRFS_FILE_EXTENT_INLINE && size != sizeof(*fi))) {
		int told = file_extent_type_told(m, slot, fi, size);

		if (told < 0)
			return;
		mend_say(m, slot, "file extent type %u, the item%s tells %s: set to %d", type,
		    told == BTRFS_FILE_EXTENT_INLINE ? "'s size" : " and its data",
		    told == BTRFS_FILE_EXTENT_INLINE ? "inline" :
		    told == BTRFS_FILE_EXTENT_REG ? "regular" : "preallocated", told);
		btrfs_set_file_extent_type(fi, (u8)told);
		type = (u8)told;
	}
	if (btrfs_file_extent_compression(fi) >= BTRFS_NR_COMPRESS_TYPES &&
	    (type == BTRFS_FILE_EXTENT_INLINE || names_data_extent(m, fi))) {
		int told = file_extent_compression_told(m->fs, fi, size);

		if (told < 0)
			return;
		mend_say(m, slot, "file extent compression %u, its data is %s: set to %d",
		    btrfs_file_extent_compression(fi), told ? btrfs_compress_name(told) : "uncompressed", told);
		btrfs_set_file_extent_compression(fi, (u8)told);
	}
}

/*
 * Where the file extent at key ends, by the file's layout: the next file
 * extent's offset, else the inode's size rounded up to the sector.  0 when
 * neither can be read.
 */
static u64 file_extent_end_told(struct mend *m, const struct btrfs_key *key)
{
	struct btrfs_key want = { key->objectid, BTRFS_EXTENT_DATA_KEY, key->offset + 1 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u64 end = 0;
	int slot;

	if (key->offset == (u64)-1)
		return 0;
	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == key->objectid && k.type == BTRFS_EXTENT_DATA_KEY)
			end = k.offset;
	}
	btrfs_release_path(&path);
	if (end)
		return end;
	want = (struct btrfs_key){ key->objectid, BTRFS_INODE_ITEM_KEY, 0 };
	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item))
		end = round_up(btrfs_inode_size((const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)),
			       (u64)m->fs->geo.sectorsize);
	btrfs_release_path(&path);
	return end;
}

/*
 * An unaligned num_bytes of a regular or preallocated extent, or one past
 * its data and over the next extent: the extent
 * reaches where the file's layout says the next one starts.  An extent of
 * data cannot reach past its data (ram_bytes less offset): with NO_HOLES it
 * then ends there (a hole follows), without NO_HOLES nothing is told.
 */
static void mend_num_bytes(struct mend *m, int slot, struct btrfs_file_extent_item *fi)
{
	u64 num = btrfs_file_extent_num_bytes(fi), avail, end, want;
	struct btrfs_key key, next;
	bool past, overlap = false;

	btrfs_item_key_to_cpu(m->eb, &key, slot);
	/* past its data, or over the next extent of the file (the tree-checker's rule) */
	past = btrfs_file_extent_disk_bytenr(fi) &&
	       btrfs_file_extent_offset(fi) + num > btrfs_file_extent_ram_bytes(fi);
	if ((u32)slot + 1 < btrfs_eb_nritems(m->eb)) {
		btrfs_item_key_to_cpu(m->eb, &next, slot + 1);
		overlap = next.objectid == key.objectid && next.type == BTRFS_EXTENT_DATA_KEY &&
			  key.offset + num > next.offset;
	}
	if (IS_ALIGNED(num, m->fs->geo.sectorsize) && !(past && overlap))
		return;
	end = file_extent_end_told(m, &key);
	if (end <= key.offset)
		return;
	want = end - key.offset;
	if (btrfs_file_extent_disk_bytenr(fi)) {
		if (btrfs_file_extent_offset(fi) >= btrfs_file_extent_ram_bytes(fi))
			return;
		avail = btrfs_file_extent_ram_bytes(fi) - btrfs_file_extent_offset(fi);
		if (want > avail && !(m->fs->geo.incompat_flags & BTRFS_FEATURE_INCOMPAT_NO_HOLES))
			return;
		want = min_t(u64, want, avail);
	}
	if (!IS_ALIGNED(want, m->fs->geo.sectorsize))
		return;
	mend_say(m, slot, "file extent num_bytes %llu, the file's layout tells %llu (the next extent or the size): set to it",
	    (unsigned long long)num, (unsigned long long)want);
	btrfs_set_file_extent_num_bytes(fi, want);
}

/*
 * A file extent the tree-checker rejects where the right value is known:
 * an uncompressed inline extent's ram_bytes is its data size, unless the
 * item reads as a regular extent the extent tree has (its type damaged:
 * set to regular; a preallocated extent's type is not told from it); a regular or
 * preallocated extent's unaligned lengths and offset come from the extent
 * tree (mend_extent_fields()); one whose disk_bytenr is not sector aligned
 * points nowhere a data extent can be, so the item goes (the file gets a hole, the
 * fs roots and extents passes repair nbytes and the back reference).
 */
/*
 * An unaligned disk_bytenr of the regular extent fi at slot: of the sector
 * boundaries below and above it, the one where the extent tree has a data
 * extent of disk_num_bytes with a reference of this tree's inode at this
 * file offset less the extent's offset; 0 when not exactly one.
 */
static u64 disk_bytenr_told(struct mend *m, int slot, const struct btrfs_file_extent_item *fi)
{
	u32 ss = m->fs->geo.sectorsize;
	u64 bytenr = btrfs_file_extent_disk_bytenr(fi), told = 0;
	u64 at[2] = { round_down(bytenr, (u64)ss), round_down(bytenr, (u64)ss) + ss };
	struct btrfs_key key;
	int fits = 0;

	btrfs_item_key_to_cpu(m->eb, &key, slot);
	for (int i = 0; i < 2; i++) {
		u64 len, offs[4];
		u32 nr;

		if (!at[i] || !data_extent_refs(m, at[i], key.objectid, &len, offs, ARRAY_SIZE(offs), &nr) ||
		    len != btrfs_file_extent_disk_num_bytes(fi))
			continue;
		for (u32 j = 0; j < nr && j < ARRAY_SIZE(offs); j++) {
			if (offs[j] == key.offset - btrfs_file_extent_offset(fi)) {
				told = at[i];
				fits++;
				break;
			}
		}
	}
	return fits == 1 ? told : 0;
}

static void mend_file_extent(struct mend *m, int slot, struct btrfs_file_extent_item *fi, u32 size)
{
	u8 type;
	u64 bytenr;

	mend_file_extent_codes(m, slot, fi, size);
	type = btrfs_file_extent_type(fi);
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 want = btrfs_file_extent_inline_item_len(size);

		/*
		 * (compressed inline data of 32 bytes naming an extent by chance is
		 * not to be feared; uncompressed, ram_bytes would be its size)
		 */
		if (!btrfs_file_extent_encryption(fi) && !btrfs_file_extent_other_encoding(fi) &&
		    (btrfs_file_extent_compression(fi) || btrfs_file_extent_ram_bytes(fi) != want) &&
		    size == sizeof(*fi) && names_data_extent(m, fi)) {
			mend_say(m, slot, "file extent type inline, but it names data extent %llu (%llu bytes) the extent tree has: set to regular",
			    (unsigned long long)btrfs_file_extent_disk_bytenr(fi),
			    (unsigned long long)btrfs_file_extent_disk_num_bytes(fi));
			btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
			return;
		}
		if (!btrfs_file_extent_compression(fi) && !btrfs_file_extent_encryption(fi) &&
		    !btrfs_file_extent_other_encoding(fi) && btrfs_file_extent_ram_bytes(fi) != want) {
			mend_say(m, slot, "inline extent ram_bytes %llu, set to its data size %llu",
			    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)want);
			btrfs_set_file_extent_ram_bytes(fi, want);
		}
		return;
	}
	if ((type != BTRFS_FILE_EXTENT_REG && type != BTRFS_FILE_EXTENT_PREALLOC) ||
	    size != sizeof(*fi))
		return;
	bytenr = btrfs_file_extent_disk_bytenr(fi);
	if (bytenr % m->fs->geo.sectorsize) {
		u64 told = disk_bytenr_told(m, slot, fi);

		if (told) {
			mend_say(m, slot, "file extent disk_bytenr %llu not aligned to the sector size %u: set to %llu, the data extent beside it whose reference names this extent",
			    (unsigned long long)bytenr, m->fs->geo.sectorsize, (unsigned long long)told);
			btrfs_set_file_extent_disk_bytenr(fi, told);
			mend_extent_fields(m, slot, fi);
		} else {
			mend_say(m, slot, "file extent disk_bytenr %llu not aligned to the sector size %u: item removed",
			    (unsigned long long)bytenr, m->fs->geo.sectorsize);
			m->plan[slot].deleted = true;
			m->rebuild = true;
		}
	} else if (bytenr) {
		mend_extent_fields(m, slot, fi);
	}
	if (!m->plan[slot].deleted)
		mend_num_bytes(m, slot, fi);
}

/*
 * The refs of the INODE_REF at slot of eb named name (as far as the item
 * parses), the first one's index in *index (may be NULL).
 */
static int refs_named(const struct extent_buffer *eb, int slot, const char *name, u32 len, u64 *index)
{
	const u8 *p = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot), cur = 0;
	int n = 0;

	while (size - cur >= sizeof(struct btrfs_inode_ref)) {
		const struct btrfs_inode_ref *ref = (const void *)(p + cur);
		u32 nl = btrfs_inode_ref_name_len(ref);

		cur += sizeof(*ref);
		if (nl > size - cur)
			break;
		if (nl == len && !memcmp(p + cur, name, len) && !n++ && index)
			*index = btrfs_inode_ref_index(ref);
		cur += nl;
	}
	return n;
}

/* The inode ref naming (dir, name) for ino: in this leaf, else in the tree. */
static bool name_confirmed(struct mend *m, u64 ino, u64 dir, const char *name, u32 len)
{
	struct btrfs_key want = { .objectid = ino, .type = BTRFS_INODE_REF_KEY, .offset = dir };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool found = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot))
		found = refs_named(eb, slot, name, len, NULL) > 0;
	btrfs_release_path(&path);
	return found;
}

/*
 * The entry named name pointing to ino in the DIR_ITEM or DIR_INDEX item at
 * key: its file type, or 0 when there is none such.
 */
static u8 entry_type(struct mend *m, const struct btrfs_key *key, u64 ino, const char *name,
		     u32 len)
{
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u8 type = 0;
	int slot;

	if (mend_find_item(m, key, BTRFS_SEARCH_EXACT, &path, &eb, &slot)) {
		const u8 *p = btrfs_leaf_item_ptr(eb, slot);
		u32 size = btrfs_leaf_item_size(eb, slot), cur = 0;

		while (!type && size - cur >= sizeof(struct btrfs_dir_item)) {
			const struct btrfs_dir_item *d = (const void *)(p + cur);
			u32 n = btrfs_dir_name_len(d), dlen = n + btrfs_dir_data_len(d);
			struct btrfs_key loc;

			cur += sizeof(*d);
			if (dlen > size - cur)
				break;
			btrfs_disk_key_to_cpu(&loc, &d->location);
			if (loc.objectid == ino && loc.type == BTRFS_INODE_ITEM_KEY && n == len &&
			    !memcmp(p + cur, name, len))
				type = btrfs_dir_ftype(d);
			cur += dlen;
		}
	}
	btrfs_release_path(&path);
	return type;
}

/*
 * The file type ino's first name gives it: its inode ref's DIR_INDEX and
 * DIR_ITEM entries must both exist and agree; 0 otherwise.
 */
static u8 named_type(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, 0 }, k;
	const struct extent_buffer *eb;
	char name[BTRFS_NAME_LEN];
	struct btrfs_path path;
	u32 len = 0;
	u64 index = 0;
	int slot;
	u8 a, b;

	if (!mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_release_path(&path);
		return 0;
	}
	btrfs_item_key_to_cpu(eb, &k, slot);
	if (k.objectid == ino && k.type == BTRFS_INODE_REF_KEY &&
	    btrfs_leaf_item_size(eb, slot) >= sizeof(struct btrfs_inode_ref)) {
		const struct btrfs_inode_ref *ref = btrfs_leaf_item_ptr(eb, slot);

		len = btrfs_inode_ref_name_len(ref);
		index = btrfs_inode_ref_index(ref);
		if (len > sizeof(name) || len > btrfs_leaf_item_size(eb, slot) - sizeof(*ref))
			len = 0;
		else
			memcpy(name, btrfs_inode_ref_name_ptr(ref), len);
	}
	btrfs_release_path(&path);
	if (!len)
		return 0;
	want = (struct btrfs_key){ k.offset, BTRFS_DIR_INDEX_KEY, index };
	a = entry_type(m, &want, ino, name, len);
	want = (struct btrfs_key){ k.offset, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, (int)len) };
	b = entry_type(m, &want, ino, name, len);
	return a == b ? a : 0;
}

/*
 * May an item with key be added?  Strictly between the leaf's first and
 * last keys (so no other leaf can hold it and the parent's key stays), and
 * no item has it.
 */
static bool key_fits(const struct mend *m, const struct btrfs_key *key)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	struct btrfs_key first, last;
	size_t i;

	btrfs_item_key_to_cpu(m->eb, &first, 0);
	btrfs_item_key_to_cpu(m->eb, &last, nr - 1);
	if (btrfs_comp_cpu_keys(key, &first) <= 0 || btrfs_comp_cpu_keys(key, &last) >= 0)
		return false;
	for (i = 0; i < m->plan_nr; i++)
		if (!m->plan[i].deleted && !btrfs_comp_cpu_keys(&m->plan[i].key, key))
			return false;
	return true;
}

static bool printable(const char *name, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return false;
	return true;
}

/* A name for messages: as is when printable, else its length. */
static void name_fmt(char *buf, size_t len, const char *name, u32 n)
{
	if (printable(name, n) && n < len - 2)
		snprintf(buf, len, "'%.*s'", (int)n, name);
	else
		snprintf(buf, len, "(%u bytes, not printable)", n);
}

/*
 * Is the name of an entry that does not hash to its key the right one (so
 * the key is what got corrupted)?  A directory entry: when the inode's ref
 * names it; the root tree's "default" entry: always; an xattr, which
 * nothing else names: when it is printable, as xattr names are.
 */
static bool entry_name_trusted(struct mend *m, const struct btrfs_key *key,
			       const struct btrfs_key *loc, const char *name, u32 n, char *why,
			       size_t whylen)
{
	static const char def[] = "default";

	if (key->type == BTRFS_XATTR_ITEM_KEY) {
		snprintf(why, whylen, "an xattr name, printable");
		return printable(name, n);
	}
	if (key->objectid == BTRFS_ROOT_TREE_DIR_OBJECTID && loc->type == BTRFS_ROOT_ITEM_KEY) {
		snprintf(why, whylen, "the default subvolume entry");
		return n == sizeof(def) - 1 && !memcmp(name, def, n);
	}
	snprintf(why, whylen, "inode %llu's ref confirms the name", (unsigned long long)loc->objectid);
	return loc->type == BTRFS_INODE_ITEM_KEY &&
	       name_confirmed(m, loc->objectid, key->objectid, name, n);
}

/*
 * One entry of a DIR_ITEM or XATTR_ITEM whose name does not hash to the
 * key: moved to a new item at its hash when its name is trusted, else
 * dropped.
 */
static int move_entry(struct mend *m, int slot, const struct btrfs_key *key,
		      const struct btrfs_dir_item *d, u32 len, u32 hash)
{
	struct btrfs_key nkey = { key->objectid, key->type, hash }, loc;
	const char *name = btrfs_dir_name_ptr(d);
	u32 n = btrfs_dir_name_len(d);
	struct item_plan *np;
	char shown[300], why[80];

	name_fmt(shown, sizeof(shown), name, n);
	btrfs_disk_key_to_cpu(&loc, &d->location);
	if (key_fits(m, &nkey) && entry_name_trusted(m, key, &loc, name, n, why, sizeof(why))) {
		mend_say(m, slot, "name %s hashes to 0x%08x, not to the key: moved to key (%llu %u %u), %s",
		    shown, hash, (unsigned long long)nkey.objectid, nkey.type, hash, why);
		np = CHECK_PUSH(m, plan);
		if (!np)
			return -ENOMEM;
		np->key = nkey;
		np->own = malloc(len);
		if (!np->own)
			return -ENOMEM;
		memcpy(np->own, d, len);
		np->data = np->own;
		np->size = len;
		return 0;
	}
	mend_say(m, slot, "name %s hashes to 0x%08x, not to the key: entry dropped", shown, hash);
	return 0;
}

/*
 * A DIR_ITEM, DIR_INDEX or XATTR_ITEM whose entry lengths do not fill it
 * (dir-entry-lengths.h): the one entry whose other lengths do is mended, a
 * DIR_INDEX's only when the inode's ref confirms the name.  A directory
 * entry item that cannot be mended so goes: the fs roots repair re-adds an
 * entry that the inode ref and the other entry item prove.  An xattr item
 * is left to the tree-checker's verdict (nothing else holds its value).
 */
static void mend_entry_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p,
			       u32 size)
{
	struct dir_entry_fix fix;
	int ret = dir_entry_lengths_fix(key->type, key->offset, p, size,
					btrfs_fs_geometry(m->fs)->nodesize, &fix);
	struct btrfs_dir_item *d;
	struct btrfs_key loc;
	const char *why = "the name hashes to the key";

	if (ret == 0)
		return;
	d = ret == 1 ? (void *)(p + fix.offset) : NULL;
	if (ret == 1 && key->type == BTRFS_DIR_INDEX_KEY) {
		btrfs_disk_key_to_cpu(&loc, &d->location);
		why = "the inode's ref confirms the name";
		if (loc.type != BTRFS_INODE_ITEM_KEY ||
		    !name_confirmed(m, loc.objectid, key->objectid, btrfs_dir_name_ptr(d), fix.name_len))
			ret = -1;
	}
	if (ret == 1) {
		mend_say(m, slot, "entry at byte %u: name_len %u data_len %u do not fill the item, %u and %u do (%s)",
		    fix.offset, btrfs_dir_name_len(d), btrfs_dir_data_len(d), fix.name_len, fix.data_len, why);
		btrfs_set_dir_name_len(d, fix.name_len);
		btrfs_set_dir_data_len(d, fix.data_len);
		return;
	}
	if (key->type == BTRFS_XATTR_ITEM_KEY)
		return;
	mend_say(m, slot, "entry lengths do not fill the item and no one change makes them: item removed");
	m->plan[slot].deleted = true;
	m->rebuild = true;
}

/* The file type of inode ino's mode (this leaf, else the tree): 0 when unknown. */
static u8 inode_ftype(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u8 ftype = BTRFS_FT_UNKNOWN;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item))
		ftype = btrfs_ftype_of_mode(btrfs_inode_mode(
			(const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)));
	btrfs_release_path(&path);
	return ftype;
}

/*
 * A directory entry whose file type the tree-checker rejects (beyond the
 * known types, or an xattr's): the type of what it points to, a subvolume
 * being a directory.  Types the tree-checker takes are the fs roots pass's
 * to compare with the inode.  An xattr's entry: the xattr type.
 */
static void mend_entry_type(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size)
{
	for (u32 cur = 0; size - cur >= sizeof(struct btrfs_dir_item);) {
		struct btrfs_dir_item *d = (void *)(p + cur);
		u32 len = btrfs_dir_name_len(d) + btrfs_dir_data_len(d);
		u8 type = btrfs_dir_ftype(d), want = BTRFS_FT_UNKNOWN;
		struct btrfs_key loc;

		if (len > size - cur - sizeof(*d))
			return;
		btrfs_disk_key_to_cpu(&loc, &d->location);
		/* an xattr's entry has the one type */
		if (key->type == BTRFS_XATTR_ITEM_KEY && btrfs_dir_type(d) != BTRFS_FT_XATTR) {
			mend_say(m, slot, "xattr entry at byte %u: file type %u, set to %u (every xattr's)",
			    cur, btrfs_dir_type(d), BTRFS_FT_XATTR);
			btrfs_set_dir_type(d, BTRFS_FT_XATTR);
		} else if (key->type != BTRFS_XATTR_ITEM_KEY && (type >= BTRFS_FT_MAX || type == BTRFS_FT_XATTR)) {
			if (loc.type == BTRFS_ROOT_ITEM_KEY)
				want = BTRFS_FT_DIR;
			else if (loc.type == BTRFS_INODE_ITEM_KEY)
				want = inode_ftype(m, loc.objectid);
			if (want != BTRFS_FT_UNKNOWN) {
				mend_say(m, slot, "entry at byte %u: file type %u is not one, %u is its %s's",
				    cur, btrfs_dir_type(d), want,
				    loc.type == BTRFS_ROOT_ITEM_KEY ? "subvolume" : "inode");
				btrfs_set_dir_type(d, want);   /* no ENCRYPTED bit from a garbage byte */
			}
		}
		cur += (u32)sizeof(*d) + len;
	}
}

/* A DIR_ITEM or XATTR_ITEM keeps only the entries whose names hash to its key. */
static int mend_dir_item(struct mend *m, int slot, const struct btrfs_key *key, const u8 *p,
			 u32 size)
{
	u32 cur = 0, kept = 0, bad = 0;
	u8 *good;
	int ret;

	/* structure first: a malformed item is left to the tree-checker's verdict */
	while (cur < size) {
		const struct btrfs_dir_item *d = (const void *)(p + cur);
		u32 n, len;

		if (size - cur < sizeof(*d))
			return 0;
		n = btrfs_dir_name_len(d);
		len = n + btrfs_dir_data_len(d);
		cur += sizeof(*d);
		if (len > size - cur)
			return 0;
		if (btrfs_name_hash((const char *)p + cur, (int)n) != key->offset)
			bad++;
		cur += len;
	}
	if (!bad)
		return 0;
	good = malloc(size);
	if (!good)
		return -ENOMEM;
	for (cur = 0; cur < size;) {
		const struct btrfs_dir_item *d = (const void *)(p + cur);
		u32 n = btrfs_dir_name_len(d);
		u32 len = sizeof(*d) + n + btrfs_dir_data_len(d);
		u32 hash = btrfs_name_hash(btrfs_dir_name_ptr(d), (int)n);

		if (hash == key->offset) {
			memcpy(good + kept, d, len);
			kept += len;
		} else {
			ret = move_entry(m, slot, key, d, len, hash);
			if (ret < 0) {
				free(good);
				return ret;
			}
		}
		cur += len;
	}
	m->rebuild = true;
	if (!kept) {
		free(good);
		m->plan[slot].deleted = true;
		mend_say(m, slot, "no entry left at this key: item removed");
		return 0;
	}
	m->plan[slot].own = good;
	m->plan[slot].data = good;
	m->plan[slot].size = kept;
	return 0;
}

/*
 * Could an item of this tree with objectid and offset have key type type?  A type of
 * its tree (kernel-shared/format/tree-key-types.h) that the filesystem's features
 * allow (verity items, extended refs), under the objectid the type's items
 * all have where they do (fixed_objectid(); the one qgroup status item:
 * offset 0 too); no log items (log trees are not mended).
 */
static bool type_possible(const struct mend *m, u8 type, u64 objectid, u64 offset)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(m->fs);
	u64 id;

	if (!btrfs_tree_holds_key_type(m->tree, type) || (fixed_objectid(type, &id) && objectid != id))
		return false;
	switch (type) {
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
		return btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_VERITY;
	case BTRFS_INODE_EXTREF_KEY:
		return btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF;
	case BTRFS_ORPHAN_ITEM_KEY:
		return objectid == BTRFS_ORPHAN_OBJECTID;
	case 0:
		return objectid == BTRFS_FREE_SPACE_OBJECTID;
	case BTRFS_TEMPORARY_ITEM_KEY:
		return objectid == BTRFS_BALANCE_OBJECTID;
	case BTRFS_PERSISTENT_ITEM_KEY:
		return objectid == BTRFS_DEV_STATS_OBJECTID;
	case BTRFS_DEV_REPLACE_KEY:
		return objectid == BTRFS_DEV_REPLACE_OBJECTID;
	case BTRFS_ROOT_BACKREF_KEY:   /* a subvolume's, naming its parent: the top one has none */
		return objectid >= BTRFS_FIRST_FREE_OBJECTID && objectid <= BTRFS_LAST_FREE_OBJECTID;
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
		return false;
	case BTRFS_QGROUP_STATUS_KEY:  /* the one item of its kind */
		return !offset;
	}
	return true;
}

/* A candidate key for a damaged key type: the slot, the key, whether the item's size is the type's own. */
struct key_candidate {
	int slot;
	struct btrfs_key key;
	bool sized;
};

/* Is size the one size items of key type type always have (0: no fixed size)? */
static bool size_is_types(u8 type, u32 size)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
		return size == sizeof(struct btrfs_inode_item);
	case BTRFS_ROOT_ITEM_KEY:
		return size == sizeof(struct btrfs_root_item) ||
		       size == offsetof(struct btrfs_root_item, generation_v2);
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return size == sizeof(struct btrfs_block_group_item);
	case BTRFS_DEV_EXTENT_KEY:
		return size == sizeof(struct btrfs_dev_extent);
	case BTRFS_DEV_ITEM_KEY:
		return size == sizeof(struct btrfs_dev_item);
	}
	return false;
}

/*
 * Try the key types slot's item may have that keep the leaf's keys in
 * order (where its key may be mended: key_mendable_at()): add (up to max)
 * those under which the whole leaf passes the tree-checker to c[].
 */
static int key_types_at(struct mend *m, int slot, int n, struct key_candidate *c, int max)
{
	struct btrfs_key key;

	if (!key_mendable_at(m, slot))
		return n;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	for (int type = 0; type < 256 && n < max; type++) {
		struct btrfs_key k = { key.objectid, (u8)type, key.offset };

		if (type == key.type || !type_possible(m, (u8)type, key.objectid, key.offset) || !key_fits_at(m, slot, &k) ||
		    !passes_with_key(m, slot, &k))
			continue;
		c[n++] = (struct key_candidate){ slot, k,
						 size_is_types((u8)type, btrfs_leaf_item_size(m->eb, slot)) };
	}
	return n;
}

/*
 * A damaged key type: an item of a type its tree does not have, or two
 * neighbours of one objectid out of key order (either may be the damaged
 * one).  Mended when exactly one type of one of those items (see
 * key_types_at()) makes the leaf pass the tree-checker, or when of several
 * exactly one is a type of fixed size the item has (a root item's 439
 * bytes read as an inline file extent pass too).
 */
static void mend_key_type(struct mend *m, int first, int last)
{
	struct key_candidate c[8];
	const struct key_candidate *pick = NULL;
	struct btrfs_key key;
	int n = 0, sized = 0;

	for (int i = first; i <= last; i++)
		n = key_types_at(m, i, n, c, (int)ARRAY_SIZE(c));
	if (n == 1)
		pick = &c[0];
	for (int i = 0; n > 1 && n < (int)ARRAY_SIZE(c) && i < n; i++)
		if (c[i].sized && !sized++)
			pick = &c[i];
	if (!pick || (n > 1 && sized != 1))
		return;
	btrfs_item_key_to_cpu(m->eb, &key, pick->slot);
	btrfs_cpu_key_to_disk(&btrfs_leaf_item(m->eb, pick->slot)->key, &pick->key);
	mend_say(m, pick->slot, "key type %u was %u: the one type that keeps the keys in order and passes the tree-checker%s",
	    pick->key.type, key.type, n > 1 ? " with the item's size" : "");
}

/* Does tree's DIR_INDEX (dir, index) name inode ino by name? */
static bool dir_index_names_inode(struct mend *m, u64 dir, u64 index, u64 ino, const u8 *name, u32 len)
{
	struct btrfs_key want = { dir, BTRFS_DIR_INDEX_KEY, index }, loc;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool yes = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) >= sizeof(struct btrfs_dir_item) + len) {
		const struct btrfs_dir_item *di = btrfs_leaf_item_ptr(eb, slot);

		btrfs_disk_key_to_cpu(&loc, &di->location);
		yes = loc.objectid == ino && loc.type == BTRFS_INODE_ITEM_KEY && btrfs_dir_name_len(di) == len &&
		      !memcmp(di + 1, name, len);
	}
	btrfs_release_path(&path);
	return yes;
}

/*
 * Does the root tree's DIR_ITEM (dir, name hash) name tree ino by name?  (The
 * root tree's directory names the default subvolume so, with no dir index.)
 */
static bool dir_item_names_root(struct mend *m, u64 dir, u64 ino, const u8 *name, u32 len)
{
	struct btrfs_key want = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash((const char *)name, (int)len) }, loc;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool yes = false;
	int slot;

	if (m->tree != BTRFS_ROOT_TREE_OBJECTID)
		return false;
	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) >= sizeof(struct btrfs_dir_item) + len) {
		const struct btrfs_dir_item *di = btrfs_leaf_item_ptr(eb, slot);

		btrfs_disk_key_to_cpu(&loc, &di->location);
		yes = loc.objectid == ino && loc.type == BTRFS_ROOT_ITEM_KEY && btrfs_dir_name_len(di) == len &&
		      !memcmp(di + 1, name, len);
	}
	btrfs_release_path(&path);
	return yes;
}

/* One entry of an INODE_REF or (ext) INODE_EXTREF item: its head's size and fields. */
static u32 ref_head(bool ext)
{
	return ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);
}

static u16 ref_name_len(const u8 *r, bool ext)
{
	return ext ? btrfs_inode_extref_name_len((const void *)r) : btrfs_inode_ref_name_len((const void *)r);
}

static void ref_set_name_len(u8 *r, bool ext, u16 n)
{
	if (ext)
		btrfs_set_inode_extref_name_len((void *)r, n);
	else
		btrfs_set_inode_ref_name_len((void *)r, n);
}

static u64 ref_index(const u8 *r, bool ext)
{
	return ext ? btrfs_inode_extref_index((const void *)r) : btrfs_inode_ref_index((const void *)r);
}

/* Do the entries of the item fill it exactly, each name 1..255 bytes? */
static bool inode_refs_fit(const u8 *p, u32 size, bool ext)
{
	u32 cur = 0, head = ref_head(ext);

	while (cur < size) {
		u32 n;

		if (size - cur < head)
			return false;
		n = ref_name_len(p + cur, ext);
		cur += head;
		if (!n || n > BTRFS_NAME_LEN || n > size - cur)
			return false;
		cur += n;
	}
	return true;
}

/*
 * A directory's ref to itself, "..", index 0, that no dir index names: a
 * tree's top directory (256), the root tree's directory (6).
 */
static bool is_top_dir_ref(const struct mend *m, const struct btrfs_key *key, const u8 *r, u32 n, bool ext)
{
	u64 top = m->tree == BTRFS_ROOT_TREE_OBJECTID ? BTRFS_ROOT_TREE_DIR_OBJECTID : BTRFS_FIRST_FREE_OBJECTID;

	return !ext && key->objectid == top && key->offset == top && !ref_index(r, ext) && n == 2 &&
	       !memcmp(r + ref_head(ext), "..", 2);
}

/*
 * An INODE_REF or INODE_EXTREF item whose names do not fill it: one
 * entry's name_len set to the one length under which the item parses
 * exactly and the parent's dir index (dir: the key offset, an extref's
 * own parent; the entry's index) names the inode by the name so read (a
 * top directory: its ".."; in the root tree the directory's dir item naming
 * the default subvolume).  Every entry and length is tried; the fix is
 * taken only when exactly one works.
 */
static void mend_inode_ref_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size)
{
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	u32 fit_at = 0, fit_len = 0, fits = 0, cur = 0, head = ref_head(ext);

	if (inode_refs_fit(p, size, ext))
		return;
	/* the entries before the damaged one parse as written: try each as the damaged one */
	while (size - cur >= head) {
		u8 *r = p + cur;
		u16 was = ref_name_len(r, ext);
		u32 room = size - cur - head;
		u64 parent = ext ? btrfs_inode_extref_parent((const void *)r) : key->offset;

		for (u32 n = 1; n <= BTRFS_NAME_LEN && n <= room; n++) {
			ref_set_name_len(r, ext, (u16)n);
			if (inode_refs_fit(p, size, ext) &&
			    (dir_index_names_inode(m, parent, ref_index(r, ext), key->objectid, r + head, n) ||
			     dir_item_names_root(m, parent, key->objectid, r + head, n) ||
			     is_top_dir_ref(m, key, r, n, ext)) && !fits++) {
				fit_at = cur;
				fit_len = n;
			}
		}
		ref_set_name_len(r, ext, was);
		if (!was || was > room)
			break;
		cur += head + was;
	}
	if (fits != 1)
		return;
	mend_say(m, slot, "inode %s name_len %u, the one length that fills the item and that its directory's entry names: set to %u",
	    ext ? "extref" : "ref", ref_name_len(p + fit_at, ext), fit_len);
	ref_set_name_len(p + fit_at, ext, (u16)fit_len);
}

static int mend_items(struct mend *m)
{
	u32 nr = btrfs_eb_nritems(m->eb), i;
	int ret;

	/* (keys out of order were the layout step's) */
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(m->eb, &key, (int)i);
		mend_fixed_objectid(m, (int)i);
		/* an inode's item numbered like no inode (the order kept): a neighbour's objectid */
		if (check_is_file_tree(m->tree) && inode_key_type(key.type) &&
		    (key.objectid < BTRFS_FIRST_FREE_OBJECTID || key.objectid > BTRFS_LAST_FREE_OBJECTID) &&
		    key.objectid != BTRFS_FREE_INO_OBJECTID && key.objectid != BTRFS_ORPHAN_OBJECTID)
			mend_key_objectid(m, (int)i, (int)i);
		btrfs_item_key_to_cpu(m->eb, &key, (int)i);
		if (check_key_type_foreign(m->tree, &key))
			mend_key_type(m, (int)i, (int)i);
		else if ((key.type == BTRFS_EXTENT_DATA_KEY && !IS_ALIGNED(key.offset, m->fs->geo.sectorsize)) ||
			 (key.type == BTRFS_INODE_ITEM_KEY && key.offset) || key.type == BTRFS_DEV_ITEM_KEY ||
			 (key.type == BTRFS_CHUNK_ITEM_KEY && !IS_ALIGNED(key.offset, m->fs->geo.sectorsize)) ||
			 (key.type == BTRFS_ROOT_ITEM_KEY && key.offset && m->tree == BTRFS_ROOT_TREE_OBJECTID &&
			  check_root_item_at_zero(btrfs_fs_super(m->fs), key.objectid)))
			mend_key_offset(m, (int)i);
	}
	for (i = 0; i < nr; i++) {
		struct item_plan *pl = CHECK_PUSH(m, plan);

		if (!pl)
			return -ENOMEM;
		btrfs_item_key_to_cpu(m->eb, &pl->key, i);
		pl->data = btrfs_leaf_item_ptr(m->eb, i);
		pl->size = btrfs_leaf_item_size(m->eb, i);
	}
	for (i = 0; i < nr; i++) {
		struct btrfs_key key = m->plan[i].key;
		u8 *p = btrfs_leaf_item_ptr(m->eb, i);
		u32 size = btrfs_leaf_item_size(m->eb, i);

		switch (key.type) {
		case BTRFS_INODE_ITEM_KEY:
			if (key.objectid != BTRFS_FREE_SPACE_OBJECTID &&
			    size == sizeof(struct btrfs_inode_item))
				mend_inode(m, i, key.objectid, (void *)p);
			break;
		case BTRFS_ROOT_ITEM_KEY:
			if (size >= offsetof(struct btrfs_root_item, generation_v2)) {
				ret = mend_root_item(m, i, key.objectid, (void *)p, size);
				if (ret < 0)
					return ret;
			}
			break;
		case BTRFS_EXTENT_ITEM_KEY:
		case BTRFS_METADATA_ITEM_KEY:
			if (size >= sizeof(struct btrfs_extent_item))
				mend_extent_item(m, i, &key, (void *)p, size);
			break;
		case BTRFS_BLOCK_GROUP_ITEM_KEY:
			if (size == sizeof(struct btrfs_block_group_item) && key.offset)
				mend_block_group(m, i, &key, (void *)p);
			break;
		case BTRFS_EXTENT_DATA_KEY:
			if (size >= BTRFS_FILE_EXTENT_INLINE_DATA_START)
				mend_file_extent(m, i, (void *)p, size);
			break;
		case BTRFS_DEV_EXTENT_KEY:
			if (size == sizeof(struct btrfs_dev_extent))
				mend_dev_extent(m, i, &key, (void *)p);
			break;
		case BTRFS_DEV_ITEM_KEY:
			if (size == sizeof(struct btrfs_dev_item))
				mend_dev_item(m, i, &key, (void *)p);
			break;
		case BTRFS_CHUNK_ITEM_KEY:
			if (size >= sizeof(struct btrfs_chunk))
				mend_chunk(m, i, (void *)p, size);
			break;
		case BTRFS_INODE_REF_KEY:
		case BTRFS_INODE_EXTREF_KEY:
			if (check_is_file_tree(m->tree) || m->tree == BTRFS_ROOT_TREE_OBJECTID)
				mend_inode_ref_lengths(m, i, &key, p, size);
			break;
		case BTRFS_ROOT_REF_KEY:
		case BTRFS_ROOT_BACKREF_KEY:
			if (size > sizeof(struct btrfs_root_ref))
				mend_root_ref_length(m, i, p, size);
			break;
		case BTRFS_DIR_INDEX_KEY:
			mend_entry_lengths(m, i, &key, p, size);
			if (!m->plan[i].deleted)
				mend_entry_type(m, i, &key, p, size);
			break;
		case BTRFS_DIR_ITEM_KEY:
		case BTRFS_XATTR_ITEM_KEY:
			mend_entry_lengths(m, i, &key, p, size);
			if (m->plan[i].deleted)
				break;
			mend_entry_type(m, i, &key, p, size);
			ret = mend_dir_item(m, i, &key, p, size);
			if (ret < 0)
				return ret;
			break;
		}
	}
	if (m->tree == BTRFS_CHUNK_TREE_OBJECTID)
		mend_chunk_length(m);
	return mend_add_global_roots(m);
}

static int plan_cmp(const void *a, const void *b)
{
	return btrfs_comp_cpu_keys(&((const struct item_plan *)a)->key,
				   &((const struct item_plan *)b)->key);
}

/*
 * Lay the items out again, in key order, packed from the end.  Refused
 * when the first key would change (the parent names the leaf by it) or
 * the items no longer fit.
 */
static int rebuild_leaf(struct mend *m)
{
	struct extent_buffer *eb = m->eb, *out;
	u32 data_size = BTRFS_LEAF_DATA_SIZE(eb->len), end = data_size;
	const size_t hdr = sizeof(struct btrfs_header);
	struct btrfs_key first;
	size_t i, n = 0;
	u64 need = 0;

	btrfs_item_key_to_cpu(eb, &first, 0);
	for (i = 0; i < m->plan_nr; i++) {
		if (m->plan[i].deleted) {
			free(m->plan[i].own);
			continue;
		}
		m->plan[n++] = m->plan[i];
		need += sizeof(struct btrfs_item) + m->plan[i].size;
	}
	m->plan_nr = n;
	check_sort(m->plan, n, sizeof(*m->plan), plan_cmp);
	/* a parent points to the leaf by its first key; a tree's root leaf has no parent */
	if (!n || (btrfs_comp_cpu_keys(&m->plan[0].key, &first) && !mend_leaf_is_root(m))) {
		mend_say(m, -1, "its first key would change: not mended");
		return -EUCLEAN;
	}
	if (need > data_size) {
		mend_say(m, -1, "the mended items need %llu bytes, more than the leaf holds: not mended",
		    (unsigned long long)need);
		return -EUCLEAN;
	}
	out = clone_extent_buffer(eb);
	if (!out)
		return -ENOMEM;
	memset(out->data + hdr, 0, eb->len - hdr);
	btrfs_set_header_nritems(btrfs_header(out), (u32)n);
	for (i = 0; i < n; i++) {
		struct btrfs_item *item = btrfs_leaf_item(out, (int)i);

		end -= m->plan[i].size;
		btrfs_cpu_key_to_disk(&item->key, &m->plan[i].key);
		btrfs_set_item_offset(item, end);
		btrfs_set_item_size(item, m->plan[i].size);
		memcpy(out->data + hdr + end, m->plan[i].data, m->plan[i].size);
	}
	memcpy(eb->data, out->data, eb->len);
	free_extent_buffer(out);
	return 0;
}

static void plan_free(struct mend *m)
{
	size_t i;

	for (i = 0; i < m->plan_nr; i++)
		free(m->plan[i].own);
	free(m->plan);
	m->plan = NULL;
	m->plan_nr = m->plan_alloc = 0;
}

/* Mend m->eb in place: 0 when it now passes the tree-checker, -EUCLEAN when not. */
/*
 * The slot of an extent tree item the tree-checker message names, when it
 * is a record the extents pass rebuilds (extent and metadata items, keyed
 * back references); else -1.
 */
/* The slot a tree-checker message names ("slot=N"), -1 when none of the leaf's. */
static int failing_slot(const struct mend *m, const char *msg)
{
	const char *p = strstr(msg, " slot=");
	long slot;

	if (!p)
		return -1;
	slot = strtol(p + 6, NULL, 10);
	return slot >= 0 && slot < (long)btrfs_eb_nritems(m->eb) ? (int)slot : -1;
}

static int failing_extent_record(const struct mend *m, const char *msg)
{
	int slot = failing_slot(m, msg);
	struct btrfs_key key;

	if (m->tree != BTRFS_EXTENT_TREE_OBJECTID || slot < 0)
		return -1;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	return is_rebuilt_record(key.type) ? slot : -1;
}

/* The leaf rebuilt without item slot. */
static int drop_slot(struct mend *m, int slot)
{
	u32 nr = btrfs_eb_nritems(m->eb), i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct item_plan *pl = CHECK_PUSH(m, plan);

		if (!pl) {
			plan_free(m);
			return -ENOMEM;
		}
		btrfs_item_key_to_cpu(m->eb, &pl->key, (int)i);
		pl->data = btrfs_leaf_item_ptr(m->eb, (int)i);
		pl->size = btrfs_leaf_item_size(m->eb, (int)i);
		pl->deleted = (int)i == slot;
	}
	ret = rebuild_leaf(m);
	plan_free(m);
	return ret;
}

static int mend_leaf(struct mend *m)
{
	unsigned int layout_changes;
	char msg[512];
	int ret;

	ret = mend_header(m);
	if (!ret)
		ret = m->close_gaps ? close_gaps(m) : mend_layout(m);
	layout_changes = m->changes;
	if (!ret)
		ret = mend_items(m);
	m->item_changes = m->changes - layout_changes;
	if (!ret && m->rebuild)
		ret = rebuild_leaf(m);
	plan_free(m);
	if (ret < 0)
		return ret;
	/*
	 * Extent tree records the tree-checker still rejects: the item goes,
	 * the extents pass rebuilds the extent's records from the trees that
	 * use it (as for inline refs of neither kind), one item at a time.
	 */
	for (int tries = 0; btrfs_check_tree_block_msg(btrfs_fs_geometry(m->fs), m->eb, msg, sizeof(msg)) < 0;
	     tries++) {
		int slot = failing_extent_record(m, msg), at = failing_slot(m, msg);
		unsigned int before = m->changes;

		/*
		 * An item whose content its key type rejects (an inode ref read
		 * as an extref): the one other type that keeps the order and
		 * under which the leaf passes (a key type damaged to another
		 * type the tree has).
		 */
		/* (not an empty item, nor in a trial that moved data over gaps: the layout's) */
		if (slot < 0 && at >= 0 && tries < 16 && !m->close_gaps && btrfs_leaf_item_size(m->eb, at)) {
			mend_key_type(m, at, at);
			if (m->changes != before)
				continue;
		}
		if (slot < 0 || tries == 16) {
			mend_say(m, -1, "still fails the tree-checker (%s): not mended", msg);
			return -EUCLEAN;
		}
		mend_say(m, slot, "extent record fails the tree-checker (%s): item removed, the extent's records are rebuilt from the trees",
		    msg);
		ret = drop_slot(m, slot);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Of the csum items of eb, how many have a first checksum that is their data's (mirror 1)? */
static int csum_items_verified(struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	u32 ss = fs->geo.sectorsize, cs = fs->csum.size;
	u8 *buf = malloc(ss);
	char msg[256];
	int n = 0;

	for (u32 i = 0; buf && i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_EXTENT_CSUM_KEY || btrfs_leaf_item_size(eb, (int)i) < cs ||
		    (u64)btrfs_leaf_item_offset(eb, (int)i) + cs > BTRFS_LEAF_DATA_SIZE(eb->len))
			continue;
		if (btrfs_read_data_mirror(fs, key.offset, 1, buf, ss, msg, sizeof(msg)) == 0 &&
		    btrfs_csum_verify(&fs->csum, buf, ss, btrfs_leaf_item_ptr(eb, (int)i)) == BTRFS_CSUM_VALID)
			n++;
	}
	free(buf);
	return n;
}

int check_mend_leaf(struct btrfs_fs_info *fs, struct extent_buffer *eb, u64 tree,
		    const struct btrfs_key *bound)
{
	struct mend m = { .fs = fs, .eb = eb, .tree = tree, .bound = bound,
			  .limit = btrfs_super_generation(btrfs_fs_super(fs)) };

	/*
	 * A gap in the item data: moving the data over it is tried first, on a
	 * copy and silently, and kept when the whole leaf then mends and passes
	 * the tree-checker; else the sizes and offsets are mended in place.
	 */
	if (layout_has_gap(eb)) {
		struct mend t = m, u = m;
		int ret, other;

		t.eb = clone_extent_buffer(eb);
		u.eb = clone_extent_buffer(eb);
		if (!t.eb || !u.eb) {
			free_extent_buffer(t.eb);
			free_extent_buffer(u.eb);
			return -ENOMEM;
		}
		t.quiet = t.close_gaps = true;
		u.quiet = true;
		ret = mend_leaf(&t);
		/*
		 * An item's offset alone wrong also leaves a gap: the other reading,
		 * kept when it needs fewer changes to items' contents (a misread
		 * item asks for some), or, in the csum tree, whose contents no rule
		 * holds, when more of its checksums are those of their data.
		 */
		other = ret == 0 ? mend_leaf(&u) : 0;
		bool data_says_other = ret == 0 && other == 0 && t.item_changes == u.item_changes &&
				       tree == BTRFS_CSUM_TREE_OBJECTID &&
				       csum_items_verified(fs, u.eb) > csum_items_verified(fs, t.eb);
		free_extent_buffer(t.eb);
		free_extent_buffer(u.eb);
		if (ret == -ENOMEM || other == -ENOMEM)
			return -ENOMEM;
		if (ret == 0 && !data_says_other && (other != 0 || t.item_changes <= u.item_changes)) {
			m.close_gaps = true;
			return mend_leaf(&m);
		}
	}
	return mend_leaf(&m);
}

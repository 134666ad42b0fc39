// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of item keys: a damaged
 * objectid, type or offset, told by the neighbours' keys, the item's own
 * bytes or the items it names, and taken only when the key then lies
 * between its neighbours (and, for objectid and type, the leaf passes the
 * tree-checker).
 */
#include <string.h>
#include "check/context.h"
#include "check/leaf-mend-internal.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-key-types.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/read/volumes.h"

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
void mend_fixed_objectid(struct mend *m, int slot)
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

/*
 * A damaged key objectid that breaks the key order: of the two items
 * around the break, the one whose objectid, set to a neighbour's, puts its
 * key between its neighbours and makes the leaf pass the tree-checker.
 * Mended when exactly one such (slot, objectid) exists; an objectid
 * between the neighbours' (another inode's) is not told.
 */
void mend_key_objectid(struct mend *m, int first, int last)
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

/* The index of ino's inode ref in dir named name (one such ref); false when none or not one. */
static bool ref_index_of(struct mend *m, u64 ino, u64 dir, const u8 *name, u32 len, u64 *index)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, dir };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	int slot, n = 0;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot))
		n = mend_refs_named(eb, slot, (const char *)name, len, index);
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
bool mend_key_offset(struct mend *m, int slot)
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
void mend_key_type(struct mend *m, int first, int last)
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

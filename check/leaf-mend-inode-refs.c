// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of inode refs and
 * extrefs: a name_len under which the names do not fill the item, set to
 * the one length that fills it and that the directory's entry names.
 */
#include <string.h>
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"

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
void mend_inode_ref_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size)
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

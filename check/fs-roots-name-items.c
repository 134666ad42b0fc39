// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (check/fs-roots.c), the items that hold names, one at a time:
 * DIR_ITEM and DIR_INDEX entries (one entry per index, no name twice in an
 * item, a known location, a subvolume's entry a directory), XATTR_ITEM
 * names, INODE_REF and INODE_EXTREF names (the top directory's own "..").
 * Each name is recorded (check/fs-roots-records.c) for the match of names
 * (check/fs-roots-links.c).
 */
#include <string.h>
#include "check/fs-roots-internal.h"
#include "kernel-shared/format/accessors.h"

/*
 * Does an entry before p in the item starting at start have the name
 * (name, nl)?  Entries of one DIR_ITEM or XATTR_ITEM share a name hash;
 * the same name twice is two files (or two values) under one name, which
 * no lookup can tell apart.  Items hold a handful of entries: a scan.
 */
static const struct btrfs_dir_item *name_repeats(const u8 *start, const u8 *p, const u8 *name, u32 nl)
{
	while (start < p) {
		const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)start;
		u32 len = btrfs_dir_name_len(di);

		if (len == nl && !memcmp(start + sizeof(*di), name, nl))
			return di;
		start += sizeof(*di) + len + btrfs_dir_data_len(di);
	}
	return NULL;
}

/*
 * The second entry named like an earlier one of the same DIR_ITEM: renamed
 * (its inode keeps both names apart), or dropped when it names the same inode.
 */
static void fix_dup_entry(struct fs_root_tree *t, const struct btrfs_key *key, const struct btrfs_dir_item *first,
			  const struct btrfs_key *loc, const struct btrfs_dir_item *di)
{
	struct btrfs_key first_loc;
	struct repair_name n = {
		.root = t->root, .dir = key->objectid, .ino = loc->objectid, .key_type = BTRFS_DIR_ITEM_KEY,
		.ftype = btrfs_dir_type(di), .subvol = loc->type == BTRFS_ROOT_ITEM_KEY,
		.name_len = btrfs_dir_name_len(di),
	};

	btrfs_disk_key_to_cpu(&first_loc, &first->location);
	memcpy(n.name, di + 1, n.name_len);
	if (first_loc.objectid == loc->objectid && first_loc.type == loc->type)
		check_fixable(t->ctx, repair_del_entry, &n, sizeof(n));
	else if (loc->type == BTRFS_INODE_ITEM_KEY)
		check_fixable(t->ctx, repair_rename_dup_entry, &n, sizeof(n));
}

/* An entry naming a subvolume with another file type than a directory's: set to it. */
static void fix_subvol_entry_type(struct fs_root_tree *t, const struct btrfs_key *key,
				  const struct btrfs_key *loc, const struct btrfs_dir_item *di)
{
	struct repair_name n = {
		.root = t->root, .dir = key->objectid, .ino = loc->objectid, .key_type = key->type,
		.index = key->type == BTRFS_DIR_INDEX_KEY ? key->offset : 0, .ftype = BTRFS_FT_DIR,
		.subvol = true, .name_len = btrfs_dir_name_len(di),
	};

	if (n.name_len > sizeof(n.name))
		n.name_len = 0;  /* the tree-checker refuses such a leaf: not reached */
	memcpy(n.name, di + 1, n.name_len);
	INODE_ERR(t, key->objectid, "directory entry '%.*s' of a subvolume has file type %u, expected %u (directory)",
		  (int)n.name_len, n.name, btrfs_dir_type(di), BTRFS_FT_DIR);
	check_fixable(t->ctx, repair_set_entry_type, &n, sizeof(n));
}

/* XATTR_ITEM: one or more attributes; a name given twice cannot be read. */
void fs_root_xattr_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			  const struct btrfs_key *key)
{
	u8 *start = btrfs_leaf_item_ptr(eb, slot), *p = start, *end = p + btrfs_leaf_item_size(eb, slot);

	while (p + sizeof(struct btrfs_dir_item) <= end) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
		u32 nl = btrfs_dir_name_len(di);

		if (p + sizeof(*di) + nl + btrfs_dir_data_len(di) > end)
			break;
		if (name_repeats(start, p, p + sizeof(*di), nl))
			INODE_ERR(t, key->objectid, "xattr '%.*s' is present twice (XATTR_ITEM %llu)",
				  (int)nl, (char *)(p + sizeof(*di)), key->offset);
		p += sizeof(*di) + nl + btrfs_dir_data_len(di);
	}
}

/* DIR_ITEM or DIR_INDEX: one or more entries. */
int fs_root_dir_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key)
{
	u8 *start = btrfs_leaf_item_ptr(eb, slot), *p = start, *end = p + btrfs_leaf_item_size(eb, slot);
	int n = 0;

	while (p + sizeof(struct btrfs_dir_item) <= end) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
		const struct btrfs_dir_item *first;
		u32 nl = btrfs_dir_name_len(di), dl = btrfs_dir_data_len(di);
		struct btrfs_key loc;
		int ret = 0;

		if (p + sizeof(*di) + nl + dl > end)
			break;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		t->cur.dir_size += nl;
		if (key->type == BTRFS_DIR_INDEX_KEY && n++)
			INODE_ERR(t, key->objectid, "dir index %llu holds more than one entry", key->offset);
		if (key->type == BTRFS_DIR_ITEM_KEY && (first = name_repeats(start, p, p + sizeof(*di), nl))) {
			INODE_ERR(t, key->objectid, "name '%.*s' is present twice in the directory (DIR_ITEM %llu): one name for two entries",
				  (int)nl, (char *)(p + sizeof(*di)), key->offset);
			fix_dup_entry(t, key, first, &loc, di);
		}
		/* the flag is reserved for encrypted names, which no kernel writes */
		if (btrfs_dir_type(di) & BTRFS_FT_ENCRYPTED)
			INODE_ERR(t, key->objectid, "directory entry '%.*s' has type 0x%x: the encrypted-name flag on a filesystem without encryption",
				  (int)nl, (char *)(p + sizeof(*di)), btrfs_dir_type(di));
		if (loc.type == BTRFS_INODE_ITEM_KEY)
			ret = fs_root_add_name(t, key->type == BTRFS_DIR_ITEM_KEY ? 'D' : 'X', key->objectid,
				       loc.objectid, key->offset, p + sizeof(*di), nl, btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED);
		else if (loc.type == BTRFS_ROOT_ITEM_KEY &&
			 (btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED) != BTRFS_FT_DIR)
			fix_subvol_entry_type(t, key, &loc, di);
		else if (loc.type != BTRFS_ROOT_ITEM_KEY)
			INODE_ERR(t, key->objectid, "directory entry '%.*s' has location key type %u",
				  (int)nl, (char *)(p + sizeof(*di)), loc.type);
		if (ret)
			return ret;
		p += sizeof(*di) + nl + dl;
	}
	return 0;
}

/*
 * The top directory's own inode ref, keyed in dir with index and name: keyed
 * in itself, index 0, name "..", whatever it had.
 */
static void fix_top_dir_ref(struct fs_root_tree *t, u64 dir, u64 index, const u8 *name, u32 nl)
{
	struct repair_ref_rename f = {
		.from = { .root = t->root, .dir = dir, .ino = BTRFS_FIRST_FREE_OBJECTID,
			  .index = index, .key_type = BTRFS_INODE_REF_KEY, .name_len = (u16)nl },
		.to = { .root = t->root, .dir = BTRFS_FIRST_FREE_OBJECTID, .ino = BTRFS_FIRST_FREE_OBJECTID,
			.index = 0, .key_type = BTRFS_INODE_REF_KEY, .name_len = 2, .name = ".." },
	};

	memcpy(f.from.name, name, nl);
	check_fixable(t->ctx, repair_rename_ref, &f, sizeof(f));
}

int fs_root_inode_refs(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key)
{
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + btrfs_leaf_item_size(eb, slot);
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	size_t hdr = ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);

	while (p + hdr <= end) {
		u64 parent, index;
		u32 nl;
		int ret;

		if (ext) {
			struct btrfs_inode_extref *r = (void *)p;

			parent = btrfs_inode_extref_parent(r);
			index = btrfs_inode_extref_index(r);
			nl = btrfs_inode_extref_name_len(r);
		} else {
			struct btrfs_inode_ref *r = (void *)p;

			parent = key->offset;
			index = btrfs_inode_ref_index(r);
			nl = btrfs_inode_ref_name_len(r);
		}
		if (p + hdr + nl > end)
			break;
		t->cur.names++;
		/* the top directory's ".." (index 0) whose key offset is not itself: moved back */
		if (!ext && key->objectid == BTRFS_FIRST_FREE_OBJECTID && parent != key->objectid &&
		    !index && nl == 2 && !memcmp(p + hdr, "..", 2)) {
			check_error(t->ctx, "root %llu: the top directory's own inode ref '..' (index 0) is keyed in dir %llu, expected itself (leaf %llu)",
				    t->root, parent, eb->start);
			fix_top_dir_ref(t, parent, 0, p + hdr, nl);
		/* a subvolume's top directory names itself "..", index 0 */
		} else if (!(parent == key->objectid && key->objectid == BTRFS_FIRST_FREE_OBJECTID)) {
			ret = fs_root_add_name(t, 'R', parent, key->objectid, index, p + hdr, nl, 0);
			if (!ret)
				ret = fs_root_note_cand(t, &t->refs[t->refs_nr - 1], p + hdr);
			if (ret)
				return ret;
		} else if (ext || index != 0 || nl != 2 || memcmp(p + hdr, "..", 2)) {
			check_error(t->ctx, "root %llu: the top directory's own %s has index %llu name '%.*s', expected index 0 name '..' (leaf %llu)",
				    t->root, ext ? "inode extref" : "inode ref", index,
				    (int)min_t(u32, nl, 255), (char *)(p + hdr), eb->start);
			if (!ext && nl <= BTRFS_NAME_LEN)
				fix_top_dir_ref(t, key->objectid, index, p + hdr, nl);
		}
		p += hdr + nl;
	}
	return 0;
}

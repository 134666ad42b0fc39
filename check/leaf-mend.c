// SPDX-License-Identifier: GPL-2.0
/*
 * Mending one leaf that fails the tree-checker (check --repair), on a
 * private copy: see leaf-mend.h.
 *
 * Two steps: first the item array (offsets and sizes, so that every item
 * lies where the packing says), then the items one by one, which is only
 * safe once the first step made every item pointer point inside the block.
 * Every change is printed with block, tree, slot, key, field, old and new
 * value.  Here the order of it all: the header and the item array
 * (leaf-mend-layout.c), each item's key (leaf-mend-keys.c), then each
 * item by its kind: inode items (leaf-mend-inodes.c), file extents
 * (leaf-mend-file-extents.c), directory entries and xattrs
 * (leaf-mend-dir-items.c), inode refs (leaf-mend-inode-refs.c), the chunk
 * tree's and block group items (leaf-mend-system.c), extent items
 * (leaf-mend-extents.c), root items and root refs (leaf-mend-roots.c);
 * then the leaf laid out again and what the tree-checker still rejects.
 * Calls go one way (leaf-mend-internal.h): this file -> layout -> keys ->
 * the item kinds -> leaf-mend-common.c.
 */
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/leaf-mend.h"
#include "check/leaf-mend-internal.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

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

/*
 * The slot of an extent tree item the tree-checker message names, when it
 * is a record the extents pass rebuilds (extent and metadata items, keyed
 * back references); else -1.
 */
static int failing_extent_record(const struct mend *m, const char *msg)
{
	int slot = failing_slot(m, msg);
	struct btrfs_key key;

	if (m->tree != BTRFS_EXTENT_TREE_OBJECTID || slot < 0)
		return -1;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	return mend_is_rebuilt_record(key.type) ? slot : -1;
}

/* Mend m->eb in place: 0 when it now passes the tree-checker, -EUCLEAN when not. */
static int mend_leaf(struct mend *m)
{
	unsigned int layout_changes;
	char msg[512];
	int ret;

	ret = mend_leaf_header(m);
	if (!ret)
		ret = m->close_gaps ? mend_close_gaps(m) : mend_layout(m);
	layout_changes = m->changes;
	if (!ret)
		ret = mend_items(m);
	m->item_changes = m->changes - layout_changes;
	if (!ret && m->rebuild)
		ret = mend_rebuild_leaf(m);
	mend_plan_free(m);
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
		ret = mend_drop_slot(m, slot);
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
	if (mend_layout_has_gap(eb)) {
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The key types of each tree's items: see tree-key-types.h.
 */
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/tree-key-types.h"

static bool file_tree_type(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
	case BTRFS_ORPHAN_ITEM_KEY:
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
		return true;
	}
	return false;
}

/*
 * The root tree: root items and refs, the top directory (6) with its
 * "default" entry, orphan items of deleted subvolumes, the balance item,
 * and the space cache v1 (its inodes, file extents and headers, type 0).
 */
static bool root_tree_type(u8 type)
{
	switch (type) {
	case 0:
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_ORPHAN_ITEM_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
	case BTRFS_ROOT_ITEM_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_TEMPORARY_ITEM_KEY:
		return true;
	}
	return false;
}

static bool extent_tree_type(u8 type)
{
	switch (type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return true;
	}
	return false;
}

bool btrfs_tree_holds_key_type(u64 tree, u8 type)
{
	if (btrfs_is_subvolume_tree(tree) || tree == BTRFS_DATA_RELOC_TREE_OBJECTID)
		return file_tree_type(type);
	switch (tree) {
	case BTRFS_ROOT_TREE_OBJECTID:
		return root_tree_type(type);
	case BTRFS_EXTENT_TREE_OBJECTID:
		return extent_tree_type(type);
	case BTRFS_CHUNK_TREE_OBJECTID:
		return type == BTRFS_DEV_ITEM_KEY || type == BTRFS_CHUNK_ITEM_KEY;
	case BTRFS_DEV_TREE_OBJECTID:
		return type == BTRFS_DEV_EXTENT_KEY || type == BTRFS_PERSISTENT_ITEM_KEY ||
		       type == BTRFS_DEV_REPLACE_KEY;
	case BTRFS_CSUM_TREE_OBJECTID:
		return type == BTRFS_EXTENT_CSUM_KEY;
	case BTRFS_QUOTA_TREE_OBJECTID:
		return type == BTRFS_QGROUP_STATUS_KEY || type == BTRFS_QGROUP_INFO_KEY ||
		       type == BTRFS_QGROUP_LIMIT_KEY || type == BTRFS_QGROUP_RELATION_KEY;
	case BTRFS_UUID_TREE_OBJECTID:
		return type == BTRFS_UUID_KEY_SUBVOL || type == BTRFS_UUID_KEY_RECEIVED_SUBVOL;
	case BTRFS_FREE_SPACE_TREE_OBJECTID:
		return type == BTRFS_FREE_SPACE_INFO_KEY || type == BTRFS_FREE_SPACE_EXTENT_KEY ||
		       type == BTRFS_FREE_SPACE_BITMAP_KEY;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
		return type == BTRFS_BLOCK_GROUP_ITEM_KEY;
	case BTRFS_RAID_STRIPE_TREE_OBJECTID:
		return type == BTRFS_RAID_STRIPE_KEY;
	}
	return true;
}

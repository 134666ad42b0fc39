// SPDX-License-Identifier: GPL-2.0
/* Flag name tables; the order is the order btrfs-progs prints them in. */
#include "kernel-shared/format/flags-names.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/profiles.h"

#define TABLE(tname, arr) \
	const struct btrfs_flag_table tname = { arr, ARRAY_SIZE(arr) }

static const struct btrfs_flag_name super_flags[] = {
	{ BTRFS_HEADER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_HEADER_FLAG_RELOC, "RELOC" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID, "CHANGING_FSID" },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID_V2, "CHANGING_FSID_V2" },
	{ BTRFS_SUPER_FLAG_SEEDING, "SEEDING" },
	{ BTRFS_SUPER_FLAG_METADUMP, "METADUMP" },
	{ BTRFS_SUPER_FLAG_METADUMP_V2, "METADUMP_V2" },
	{ BTRFS_SUPER_FLAG_CHANGING_BG_TREE, "CHANGING_BG_TREE" },
	{ BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM, "CHANGING_DATA_CSUM" },
	{ BTRFS_SUPER_FLAG_CHANGING_META_CSUM, "CHANGING_META_CSUM" },
};
TABLE(btrfs_super_flags_table, super_flags);

static const struct btrfs_flag_name incompat_flags[] = {
	{ BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF, "MIXED_BACKREF" },
	{ BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL, "DEFAULT_SUBVOL" },
	{ BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, "MIXED_GROUPS" },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO, "COMPRESS_LZO" },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD, "COMPRESS_ZSTD" },
	{ BTRFS_FEATURE_INCOMPAT_BIG_METADATA, "BIG_METADATA" },
	{ BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF, "EXTENDED_IREF" },
	{ BTRFS_FEATURE_INCOMPAT_RAID56, "RAID56" },
	{ BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA, "SKINNY_METADATA" },
	{ BTRFS_FEATURE_INCOMPAT_NO_HOLES, "NO_HOLES" },
	{ BTRFS_FEATURE_INCOMPAT_METADATA_UUID, "METADATA_UUID" },
	{ BTRFS_FEATURE_INCOMPAT_RAID1C34, "RAID1C34" },
	{ BTRFS_FEATURE_INCOMPAT_ZONED, "ZONED" },
	{ BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2, "EXTENT_TREE_V2" },
	{ BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE, "RAID_STRIPE_TREE" },
	{ BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA, "SIMPLE_QUOTA" },
};
TABLE(btrfs_incompat_flags_table, incompat_flags);

/* btrfs-progs names no VERITY bit here: it prints as an unknown flag. */
static const struct btrfs_flag_name compat_ro_flags[] = {
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE, "FREE_SPACE_TREE" },
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID, "FREE_SPACE_TREE_VALID" },
	{ BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, "BLOCK_GROUP_TREE" },
};
TABLE(btrfs_compat_ro_flags_table, compat_ro_flags);

static const struct btrfs_flag_name header_flags[] = {
	{ BTRFS_HEADER_FLAG_WRITTEN, "WRITTEN" },
	{ BTRFS_HEADER_FLAG_RELOC, "RELOC" },
};
TABLE(btrfs_header_flags_table, header_flags);

static const struct btrfs_flag_name bg_types[] = {
	{ BTRFS_BLOCK_GROUP_DATA, "DATA" },
	{ BTRFS_BLOCK_GROUP_SYSTEM, "SYSTEM" },
	{ BTRFS_BLOCK_GROUP_METADATA, "METADATA" },
};
TABLE(btrfs_bg_type_table, bg_types);

#define PROFILE_FLAG_NAME(flag, name, upper, ...) { flag, upper },
static const struct btrfs_flag_name bg_profiles[] = {
	BTRFS_RAID_PROFILES_X(PROFILE_FLAG_NAME)
};
TABLE(btrfs_bg_profile_table, bg_profiles);

static const struct btrfs_flag_name inode_flags[] = {
	{ BTRFS_INODE_NODATASUM, "NODATASUM" },
	{ BTRFS_INODE_NODATACOW, "NODATACOW" },
	{ BTRFS_INODE_READONLY, "READONLY" },
	{ BTRFS_INODE_NOCOMPRESS, "NOCOMPRESS" },
	{ BTRFS_INODE_PREALLOC, "PREALLOC" },
	{ BTRFS_INODE_SYNC, "SYNC" },
	{ BTRFS_INODE_IMMUTABLE, "IMMUTABLE" },
	{ BTRFS_INODE_APPEND, "APPEND" },
	{ BTRFS_INODE_NODUMP, "NODUMP" },
	{ BTRFS_INODE_NOATIME, "NOATIME" },
	{ BTRFS_INODE_DIRSYNC, "DIRSYNC" },
	{ BTRFS_INODE_COMPRESS, "COMPRESS" },
	{ BTRFS_INODE_ROOT_ITEM_INIT, "ROOT_ITEM_INIT" },
	{ (u64)BTRFS_INODE_RO_VERITY << 32, "VERITY" },  /* ro flags live in the upper half */
};
TABLE(btrfs_inode_flags_table, inode_flags);

static const struct btrfs_flag_name root_flags[] = {
	{ BTRFS_ROOT_SUBVOL_RDONLY, "RDONLY" },
	{ BTRFS_ROOT_SUBVOL_DEAD, "DEAD" },
};
TABLE(btrfs_root_flags_table, root_flags);

static const struct btrfs_flag_name extent_flags[] = {
	{ BTRFS_EXTENT_FLAG_DATA, "DATA" },
	{ BTRFS_EXTENT_FLAG_TREE_BLOCK, "TREE_BLOCK" },
	{ BTRFS_BLOCK_FLAG_FULL_BACKREF, "FULL_BACKREF" },
};
TABLE(btrfs_extent_flags_table, extent_flags);

static const struct btrfs_flag_name qgroup_status_flags[] = {
	{ BTRFS_QGROUP_STATUS_FLAG_ON, "ON" },
	{ BTRFS_QGROUP_STATUS_FLAG_RESCAN, "RESCAN" },
	{ BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT, "INCONSISTENT" },
	{ BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE, "SIMPLE_MODE" },
};
TABLE(btrfs_qgroup_status_flags_table, qgroup_status_flags);

u64 btrfs_flag_table_mask(const struct btrfs_flag_table *t)
{
	u64 mask = 0;

	for (size_t i = 0; i < t->nr; i++)
		mask |= t->names[i].bit;
	return mask;
}

const char *btrfs_flag_name(const struct btrfs_flag_table *t, u64 bit)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->names[i].bit == bit)
			return t->names[i].name;
	return NULL;
}

const char *btrfs_key_type_name(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY: return "INODE_ITEM";
	case BTRFS_INODE_REF_KEY: return "INODE_REF";
	case BTRFS_INODE_EXTREF_KEY: return "INODE_EXTREF";
	case BTRFS_XATTR_ITEM_KEY: return "XATTR_ITEM";
	case BTRFS_VERITY_DESC_ITEM_KEY: return "VERITY_DESC_ITEM";
	case BTRFS_VERITY_MERKLE_ITEM_KEY: return "VERITY_MERKLE_ITEM";
	case BTRFS_ORPHAN_ITEM_KEY: return "ORPHAN_ITEM";
	case BTRFS_DIR_LOG_ITEM_KEY: return "DIR_LOG_ITEM";
	case BTRFS_DIR_LOG_INDEX_KEY: return "DIR_LOG_INDEX";
	case BTRFS_DIR_ITEM_KEY: return "DIR_ITEM";
	case BTRFS_DIR_INDEX_KEY: return "DIR_INDEX";
	case BTRFS_EXTENT_DATA_KEY: return "EXTENT_DATA";
	case BTRFS_EXTENT_CSUM_KEY: return "EXTENT_CSUM";
	case BTRFS_ROOT_ITEM_KEY: return "ROOT_ITEM";
	case BTRFS_ROOT_BACKREF_KEY: return "ROOT_BACKREF";
	case BTRFS_ROOT_REF_KEY: return "ROOT_REF";
	case BTRFS_EXTENT_ITEM_KEY: return "EXTENT_ITEM";
	case BTRFS_METADATA_ITEM_KEY: return "METADATA_ITEM";
	case BTRFS_EXTENT_OWNER_REF_KEY: return "EXTENT_OWNER_REF";
	case BTRFS_TREE_BLOCK_REF_KEY: return "TREE_BLOCK_REF";
	case BTRFS_EXTENT_DATA_REF_KEY: return "EXTENT_DATA_REF";
	case BTRFS_EXTENT_REF_V0_KEY: return "EXTENT_REF_V0";
	case BTRFS_SHARED_BLOCK_REF_KEY: return "SHARED_BLOCK_REF";
	case BTRFS_SHARED_DATA_REF_KEY: return "SHARED_DATA_REF";
	case BTRFS_BLOCK_GROUP_ITEM_KEY: return "BLOCK_GROUP_ITEM";
	case BTRFS_FREE_SPACE_INFO_KEY: return "FREE_SPACE_INFO";
	case BTRFS_FREE_SPACE_EXTENT_KEY: return "FREE_SPACE_EXTENT";
	case BTRFS_FREE_SPACE_BITMAP_KEY: return "FREE_SPACE_BITMAP";
	case BTRFS_DEV_EXTENT_KEY: return "DEV_EXTENT";
	case BTRFS_DEV_ITEM_KEY: return "DEV_ITEM";
	case BTRFS_CHUNK_ITEM_KEY: return "CHUNK_ITEM";
	case BTRFS_RAID_STRIPE_KEY: return "RAID_STRIPE";
	case BTRFS_QGROUP_STATUS_KEY: return "QGROUP_STATUS";
	case BTRFS_QGROUP_INFO_KEY: return "QGROUP_INFO";
	case BTRFS_QGROUP_LIMIT_KEY: return "QGROUP_LIMIT";
	case BTRFS_QGROUP_RELATION_KEY: return "QGROUP_RELATION";
	case BTRFS_TEMPORARY_ITEM_KEY: return "TEMPORARY_ITEM";
	case BTRFS_PERSISTENT_ITEM_KEY: return "PERSISTENT_ITEM";
	case BTRFS_DEV_REPLACE_KEY: return "DEV_REPLACE";
	case BTRFS_UUID_KEY_SUBVOL: return "UUID_KEY_SUBVOL";
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL: return "UUID_KEY_RECEIVED_SUBVOL";
	case BTRFS_STRING_ITEM_KEY: return "STRING_ITEM";
	}
	return NULL;
}

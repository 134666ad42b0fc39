/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The btrfs on-disk format: every structure and constant the Linux kernel
 * writes, with the struct and member names of the uapi header
 * linux/btrfs_tree.h.  This is the only file that declares __le* members;
 * nothing outside kernel-shared/format/accessors.h dereferences them.
 *
 * All integers are little-endian.  All structures are packed (no padding,
 * no alignment): they are laid over byte buffers (tree blocks, superblock)
 * and read through the unaligned-safe accessors of accessors.h.  Each
 * field's byte offset is listed in accessors.def and asserted at build time.
 *
 * Layout of a tree block (nodesize bytes, at a logical address):
 *
 *   OFFSET  SIZE  DESCRIPTION
 *   0       101   struct btrfs_header
 *   leaf (level 0):
 *   101     25*n  struct btrfs_item[nritems], keys in ascending order
 *   ...           free space
 *   ...           item data, packed towards the end of the block; item i's
 *                 data is at 101 + item[i].offset, item[i].size bytes, and
 *                 item 0's data ends at the end of the block
 *   node (level 1..7):
 *   101     33*n  struct btrfs_key_ptr[nritems]
 *
 * Keys sort by (objectid, type, offset) as unsigned integers.  The header
 * checksum covers bytes [BTRFS_CSUM_SIZE, nodesize); the superblock checksum
 * covers bytes [BTRFS_CSUM_SIZE, BTRFS_SUPER_INFO_SIZE).  A checksum of
 * fewer than 32 bytes is stored at the start of the csum field, rest zero.
 */
#ifndef BTRFS_KIT_FORMAT_H
#define BTRFS_KIT_FORMAT_H

#include "kernel-shared/format/kerncompat.h"

#define __btrfs_packed __attribute__((__packed__))

/* ---- Sizes and fixed locations ---------------------------------------- */

#define BTRFS_MAGIC 0x4D5F53665248425FULL          /* ASCII "_BHRfS_M", no NUL */
#define BTRFS_MAGIC_TEMPORARY 0x4D5F536652484221ULL /* "!BHRfS_M": mkfs not finished */

#define BTRFS_CSUM_SIZE 32        /* room for any checksum in headers and supers */
#define BTRFS_FSID_SIZE 16
#define BTRFS_UUID_SIZE 16
#define BTRFS_UUID_UNPARSED_SIZE 37
#define BTRFS_LABEL_SIZE 256
#define BTRFS_SYSTEM_CHUNK_ARRAY_SIZE 2048
#define BTRFS_NUM_BACKUP_ROOTS 4
#define BTRFS_MAX_LEVEL 8         /* levels 0 (leaf) .. 7 */
#define BTRFS_NAME_LEN 255        /* longest file name */
#define BTRFS_LINK_MAX 65535U     /* most hard links one inode ref item tracks */
#define BTRFS_MAX_METADATA_BLOCKSIZE 65536
#define BTRFS_STRIPE_LEN SZ_64K   /* the only stripe_len the kernel supports */
/*
 * The largest chunk (and so block group) length the kernel's tree-checker
 * accepts: the number of stripes in a chunk must fit in a u32.  No real chunk
 * comes near it; a longer one is a bit flip or a hostile image.
 */
#define BTRFS_MAX_CHUNK_LENGTH ((u64)UINT32_MAX * BTRFS_STRIPE_LEN)
#define BTRFS_MAX_MIRRORS 4       /* raid1c4 */

/* Superblock copies: the primary at 64 KiB, mirrors at 64 MiB and 256 GiB. */
#define BTRFS_SUPER_INFO_OFFSET SZ_64K
#define BTRFS_SUPER_INFO_SIZE 4096
#define BTRFS_SUPER_MIRROR_MAX 3
#define BTRFS_SUPER_MIRROR_SHIFT 12
/* Byte offset of superblock copy 0..2 on each device: 64K, 16K<<12, 16K<<24. */
static inline u64 btrfs_sb_offset(int mirror)
{
	if (mirror)
		return SZ_16K << (BTRFS_SUPER_MIRROR_SHIFT * mirror);
	return BTRFS_SUPER_INFO_OFFSET;
}

/* The first 1 MiB of every device is never allocated to chunks. */
#define BTRFS_DEVICE_RANGE_RESERVED SZ_1M

/* ---- Checksum types (super_block.csum_type) ---------------------------- */

#define BTRFS_CSUM_TYPE_CRC32 0     /* crc32c (Castagnoli), 4 bytes */
#define BTRFS_CSUM_TYPE_XXHASH 1    /* xxhash64, seed 0, 8 bytes */
#define BTRFS_CSUM_TYPE_SHA256 2    /* sha256, 32 bytes */
#define BTRFS_CSUM_TYPE_BLAKE2 3    /* blake2b-256, 32 bytes */
/*
 * Authenticated checksums (btrfs-kit only; the kernel has none and refuses
 * to mount these: its csum type check knows 0..3).  Upstream numbers its
 * types densely from 0 and the abandoned authentication proposals took the
 * next free ones, so these sit at 0x8000 and up, far from anything upstream
 * would allocate next.  Each covers what the plain checksum covers (a tree
 * block from byte 32, a data sector, the superblock from byte 32).
 *   auth-*:    the keyed hash, 32 bytes (HMAC-SHA256; BLAKE2b keyed mode
 *              with digest length 32, keys up to 64 bytes).
 *   authsum-*: 24 bytes of that keyed hash, then xxhash64 (seed 0,
 *              little-endian) of the same bytes: accidental damage is
 *              detectable without the key, tampering only with it.
 * A keyed filesystem stores a key check value in the superblock
 * (auth_key_check below): the keyed hash of BTRFS_AUTH_KEY_CHECK_MSG
 * followed by the 16-byte fsid, 32 bytes (see kernel-shared/format/csum.h).
 */
#define BTRFS_CSUM_TYPE_AUTH_SHA256 0x8001     /* HMAC-SHA256, 32 bytes */
#define BTRFS_CSUM_TYPE_AUTH_BLAKE2 0x8002     /* keyed BLAKE2b-256, 32 bytes */
#define BTRFS_CSUM_TYPE_AUTHSUM_SHA256 0x8003  /* HMAC-SHA256[0..24) + xxhash64, 32 bytes */
#define BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2 0x8004  /* keyed BLAKE2b-256[0..24) + xxhash64, 32 bytes */
#define BTRFS_AUTH_KEY_CHECK_MSG "btrfs-kit authentication key check v1"

/* ---- Object ids --------------------------------------------------------- */

/* Tree ids (root item objectids in the root tree; header owner). */
#define BTRFS_ROOT_TREE_OBJECTID 1ULL         /* the tree of tree roots */
#define BTRFS_EXTENT_TREE_OBJECTID 2ULL       /* extent allocation and back references */
#define BTRFS_CHUNK_TREE_OBJECTID 3ULL        /* logical -> physical chunk mapping */
#define BTRFS_DEV_TREE_OBJECTID 4ULL          /* physical device extents, dev stats */
#define BTRFS_FS_TREE_OBJECTID 5ULL           /* the top-level subvolume */
#define BTRFS_ROOT_TREE_DIR_OBJECTID 6ULL     /* directory in the root tree holding "default" */
#define BTRFS_CSUM_TREE_OBJECTID 7ULL         /* data checksums */
#define BTRFS_QUOTA_TREE_OBJECTID 8ULL        /* qgroup status, info, limits, relations */
#define BTRFS_UUID_TREE_OBJECTID 9ULL         /* subvolume uuid -> id */
#define BTRFS_FREE_SPACE_TREE_OBJECTID 10ULL  /* free space tree (space cache v2) */
#define BTRFS_BLOCK_GROUP_TREE_OBJECTID 11ULL /* block group items (block-group-tree feature) */
#define BTRFS_RAID_STRIPE_TREE_OBJECTID 12ULL /* raid stripe extents */

#define BTRFS_DEV_STATS_OBJECTID 0ULL          /* dev tree: persistent dev stats items */
#define BTRFS_BALANCE_OBJECTID -4ULL           /* root tree: the running balance */
#define BTRFS_ORPHAN_OBJECTID -5ULL            /* root tree: orphaned (deleted) roots */
#define BTRFS_TREE_LOG_OBJECTID -6ULL          /* log trees of fsync */
#define BTRFS_TREE_LOG_FIXUP_OBJECTID -7ULL
#define BTRFS_TREE_RELOC_OBJECTID -8ULL        /* relocation trees of balance */
#define BTRFS_DATA_RELOC_TREE_OBJECTID -9ULL   /* data relocation tree */
#define BTRFS_EXTENT_CSUM_OBJECTID -10ULL      /* csum tree: objectid of csum items */
#define BTRFS_FREE_SPACE_OBJECTID -11ULL       /* root tree: space cache v1 headers */
#define BTRFS_FREE_INO_OBJECTID -12ULL         /* inode cache (removed feature) */
#define BTRFS_CSUM_CHANGE_OBJECTID -13ULL      /* btrfstune: csum conversion in progress */
#define BTRFS_MULTIPLE_OBJECTIDS -255ULL       /* dummy for ulist/print */

#define BTRFS_FIRST_FREE_OBJECTID 256ULL       /* first inode / subvolume number */
#define BTRFS_LAST_FREE_OBJECTID -256ULL

/* A subvolume's tree (the kernel's is_fstree): the fs tree or an id a subvolume can take. */
static inline bool btrfs_is_subvolume_tree(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}
#define BTRFS_FIRST_CHUNK_TREE_OBJECTID 256ULL /* chunk tree: objectid of chunk items */
#define BTRFS_DEV_ITEMS_OBJECTID 1ULL          /* chunk tree: objectid of device items */
#define BTRFS_BTREE_INODE_OBJECTID 1ULL
#define BTRFS_EMPTY_SUBVOL_DIR_OBJECTID 2ULL   /* placeholder for a subvolume in a snapshot */
#define BTRFS_FIRST_FREE_QGROUP_LEVEL_SHIFT 48 /* qgroupid = level << 48 | id */
#define BTRFS_QGROUP_LEVEL_SHIFT 48

/* ---- Key types ---------------------------------------------------------- */

#define BTRFS_INODE_ITEM_KEY 1            /* (ino, 1, 0): struct btrfs_inode_item */
#define BTRFS_INODE_REF_KEY 12            /* (ino, 12, parent ino): btrfs_inode_ref + name, repeated */
#define BTRFS_INODE_EXTREF_KEY 13         /* (ino, 13, name hash): btrfs_inode_extref + name, repeated */
#define BTRFS_XATTR_ITEM_KEY 24           /* (ino, 24, name hash): btrfs_dir_item + name + value */
#define BTRFS_VERITY_DESC_ITEM_KEY 36     /* (ino, 36, offset): fs-verity descriptor */
#define BTRFS_VERITY_MERKLE_ITEM_KEY 37   /* (ino, 37, offset): fs-verity Merkle tree */
#define BTRFS_ORPHAN_ITEM_KEY 48          /* (ORPHAN, 48, ino or root id): empty */
#define BTRFS_DIR_LOG_ITEM_KEY 60         /* log tree: (dir, 60, start): btrfs_dir_log_item */
#define BTRFS_DIR_LOG_INDEX_KEY 72        /* log tree: (dir, 72, start): btrfs_dir_log_item */
#define BTRFS_DIR_ITEM_KEY 84             /* (dir, 84, name hash): btrfs_dir_item + name, repeated */
#define BTRFS_DIR_INDEX_KEY 96            /* (dir, 96, index): btrfs_dir_item + name */
#define BTRFS_EXTENT_DATA_KEY 108         /* (ino, 108, file offset): btrfs_file_extent_item */
#define BTRFS_EXTENT_CSUM_KEY 128         /* (EXTENT_CSUM, 128, logical): csums of sectors */
#define BTRFS_ROOT_ITEM_KEY 132           /* (tree id, 132, 0 or snapshot transid): btrfs_root_item */
#define BTRFS_ROOT_BACKREF_KEY 144        /* (child, 144, parent): btrfs_root_ref + name */
#define BTRFS_ROOT_REF_KEY 156            /* (parent, 156, child): btrfs_root_ref + name */
#define BTRFS_EXTENT_ITEM_KEY 168         /* (logical, 168, length): btrfs_extent_item + refs */
#define BTRFS_METADATA_ITEM_KEY 169       /* (logical, 169, level): skinny tree block extent */
#define BTRFS_EXTENT_OWNER_REF_KEY 172    /* inline only: btrfs_extent_owner_ref (simple quota) */
#define BTRFS_TREE_BLOCK_REF_KEY 176      /* (logical, 176, root): tree block back ref */
#define BTRFS_EXTENT_DATA_REF_KEY 178     /* (logical, 178, hash): btrfs_extent_data_ref */
#define BTRFS_EXTENT_REF_V0_KEY 180       /* obsolete: btrfs_extent_ref_v0 */
#define BTRFS_SHARED_BLOCK_REF_KEY 182    /* (logical, 182, parent): shared tree block ref */
#define BTRFS_SHARED_DATA_REF_KEY 184     /* (logical, 184, parent): btrfs_shared_data_ref */
#define BTRFS_BLOCK_GROUP_ITEM_KEY 192    /* (logical, 192, length): btrfs_block_group_item */
#define BTRFS_FREE_SPACE_INFO_KEY 198     /* (bg start, 198, bg length): btrfs_free_space_info */
#define BTRFS_FREE_SPACE_EXTENT_KEY 199   /* (start, 199, length): empty */
#define BTRFS_FREE_SPACE_BITMAP_KEY 200   /* (start, 200, length): bitmap, one bit per sector */
#define BTRFS_DEV_EXTENT_KEY 204          /* (devid, 204, physical): btrfs_dev_extent */
#define BTRFS_DEV_ITEM_KEY 216            /* (DEV_ITEMS, 216, devid): btrfs_dev_item */
#define BTRFS_CHUNK_ITEM_KEY 228          /* (FIRST_CHUNK_TREE, 228, logical): btrfs_chunk */
#define BTRFS_RAID_STRIPE_KEY 230         /* (logical, 230, length): btrfs_stripe_extent */
#define BTRFS_QGROUP_STATUS_KEY 240       /* (0, 240, 0): btrfs_qgroup_status_item */
#define BTRFS_QGROUP_INFO_KEY 242         /* (0, 242, qgroupid): btrfs_qgroup_info_item */
#define BTRFS_QGROUP_LIMIT_KEY 244        /* (0, 244, qgroupid): btrfs_qgroup_limit_item */
#define BTRFS_QGROUP_RELATION_KEY 246     /* (child, 246, parent) and (parent, 246, child): empty */
#define BTRFS_TEMPORARY_ITEM_KEY 248      /* (BALANCE, 248, 0): btrfs_balance_item */
#define BTRFS_BALANCE_ITEM_KEY BTRFS_TEMPORARY_ITEM_KEY
#define BTRFS_PERSISTENT_ITEM_KEY 249     /* (DEV_STATS, 249, devid): btrfs_dev_stats_item */
#define BTRFS_DEV_STATS_KEY BTRFS_PERSISTENT_ITEM_KEY
#define BTRFS_DEV_REPLACE_KEY 250         /* (DEV_REPLACE, 250, 0): btrfs_dev_replace_item */
#define BTRFS_UUID_KEY_SUBVOL 251         /* (uuid lo, 251, uuid hi): le64 subvol ids */
#define BTRFS_UUID_KEY_RECEIVED_SUBVOL 252 /* same, for received_uuid */
#define BTRFS_STRING_ITEM_KEY 253         /* debugging: a string */

#define BTRFS_DEV_REPLACE_OBJECTID 0ULL   /* objectid of the dev replace item */

/* ---- Block group / chunk type and profile bits -------------------------- */

#define BTRFS_BLOCK_GROUP_DATA (1ULL << 0)
#define BTRFS_BLOCK_GROUP_SYSTEM (1ULL << 1)
#define BTRFS_BLOCK_GROUP_METADATA (1ULL << 2)
#define BTRFS_BLOCK_GROUP_RAID0 (1ULL << 3)
#define BTRFS_BLOCK_GROUP_RAID1 (1ULL << 4)
#define BTRFS_BLOCK_GROUP_DUP (1ULL << 5)
#define BTRFS_BLOCK_GROUP_RAID10 (1ULL << 6)
#define BTRFS_BLOCK_GROUP_RAID5 (1ULL << 7)
#define BTRFS_BLOCK_GROUP_RAID6 (1ULL << 8)
#define BTRFS_BLOCK_GROUP_RAID1C3 (1ULL << 9)
#define BTRFS_BLOCK_GROUP_RAID1C4 (1ULL << 10)
#define BTRFS_BLOCK_GROUP_TYPE_MASK \
	(BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_METADATA)
#define BTRFS_BLOCK_GROUP_RAID1_MASK \
	(BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_RAID1C3 | BTRFS_BLOCK_GROUP_RAID1C4)
#define BTRFS_BLOCK_GROUP_RAID56_MASK (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6)
#define BTRFS_BLOCK_GROUP_PROFILE_MASK \
	(BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_RAID1_MASK | BTRFS_BLOCK_GROUP_DUP | \
	 BTRFS_BLOCK_GROUP_RAID10 | BTRFS_BLOCK_GROUP_RAID56_MASK)
/* In-memory only (never on disk): "single" as an explicit profile bit. */
#define BTRFS_AVAIL_ALLOC_BIT_SINGLE (1ULL << 48)
#define BTRFS_SPACE_INFO_GLOBAL_RSV (1ULL << 49)
#define BTRFS_EXTENDED_PROFILE_MASK (BTRFS_BLOCK_GROUP_PROFILE_MASK | BTRFS_AVAIL_ALLOC_BIT_SINGLE)

/* ---- Feature bits (super_block compat/compat_ro/incompat_flags) --------- */

#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE (1ULL << 0)
#define BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID (1ULL << 1)
#define BTRFS_FEATURE_COMPAT_RO_VERITY (1ULL << 2)
#define BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE (1ULL << 3)
#define BTRFS_FEATURE_COMPAT_RO_KNOWN ((1ULL << 4) - 1)

#define BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF (1ULL << 0)
#define BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL (1ULL << 1)
#define BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS (1ULL << 2)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO (1ULL << 3)
#define BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD (1ULL << 4)
#define BTRFS_FEATURE_INCOMPAT_BIG_METADATA (1ULL << 5)    /* nodesize > 4K was ever used */
#define BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF (1ULL << 6)
#define BTRFS_FEATURE_INCOMPAT_RAID56 (1ULL << 7)
#define BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA (1ULL << 8)
#define BTRFS_FEATURE_INCOMPAT_NO_HOLES (1ULL << 9)
#define BTRFS_FEATURE_INCOMPAT_METADATA_UUID (1ULL << 10)
#define BTRFS_FEATURE_INCOMPAT_RAID1C34 (1ULL << 11)
#define BTRFS_FEATURE_INCOMPAT_ZONED (1ULL << 12)
#define BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2 (1ULL << 13)
#define BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE (1ULL << 14)
#define BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA (1ULL << 16)
/* The incompat bits this implementation knows; a filesystem with any other cannot be read. */
#define BTRFS_FEATURE_INCOMPAT_KNOWN (((1ULL << 15) - 1) | BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA)

/* ---- Header and superblock flags ---------------------------------------- */

#define BTRFS_HEADER_FLAG_WRITTEN (1ULL << 0)
#define BTRFS_HEADER_FLAG_RELOC (1ULL << 1)
/* Top 8 bits of header flags: back reference revision. */
#define BTRFS_BACKREF_REV_SHIFT 56
#define BTRFS_BACKREF_REV_MASK (0xffULL << BTRFS_BACKREF_REV_SHIFT)
#define BTRFS_OLD_BACKREF_REV 0
#define BTRFS_MIXED_BACKREF_REV 1

#define BTRFS_SUPER_FLAG_WRITTEN BTRFS_HEADER_FLAG_WRITTEN
#define BTRFS_SUPER_FLAG_RELOC BTRFS_HEADER_FLAG_RELOC
#define BTRFS_SUPER_FLAG_ERROR (1ULL << 2)
#define BTRFS_SUPER_FLAG_SEEDING (1ULL << 32)
#define BTRFS_SUPER_FLAG_METADUMP (1ULL << 33)
#define BTRFS_SUPER_FLAG_METADUMP_V2 (1ULL << 34)
#define BTRFS_SUPER_FLAG_CHANGING_FSID (1ULL << 35)
#define BTRFS_SUPER_FLAG_CHANGING_FSID_V2 (1ULL << 36)
#define BTRFS_SUPER_FLAG_CHANGING_BG_TREE (1ULL << 38)
#define BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM (1ULL << 39)
#define BTRFS_SUPER_FLAG_CHANGING_META_CSUM (1ULL << 40)
/* Every super flag a kernel or btrfs-progs ever sets; any other bit is damage. */
#define BTRFS_SUPER_FLAG_KNOWN \
	(BTRFS_SUPER_FLAG_WRITTEN | BTRFS_SUPER_FLAG_RELOC | BTRFS_SUPER_FLAG_ERROR | \
	 BTRFS_SUPER_FLAG_SEEDING | BTRFS_SUPER_FLAG_METADUMP | BTRFS_SUPER_FLAG_METADUMP_V2 | \
	 BTRFS_SUPER_FLAG_CHANGING_FSID | BTRFS_SUPER_FLAG_CHANGING_FSID_V2 | \
	 BTRFS_SUPER_FLAG_CHANGING_BG_TREE | BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM | \
	 BTRFS_SUPER_FLAG_CHANGING_META_CSUM)

/* ---- Inode item flags (btrfs_inode_item.flags) -------------------------- */

#define BTRFS_INODE_NODATASUM (1U << 0)
#define BTRFS_INODE_NODATACOW (1U << 1)
#define BTRFS_INODE_READONLY (1U << 2)
#define BTRFS_INODE_NOCOMPRESS (1U << 3)
#define BTRFS_INODE_PREALLOC (1U << 4)
#define BTRFS_INODE_SYNC (1U << 5)
#define BTRFS_INODE_IMMUTABLE (1U << 6)
#define BTRFS_INODE_APPEND (1U << 7)
#define BTRFS_INODE_NODUMP (1U << 8)
#define BTRFS_INODE_NOATIME (1U << 9)
#define BTRFS_INODE_DIRSYNC (1U << 10)
#define BTRFS_INODE_COMPRESS (1U << 11)
#define BTRFS_INODE_ROOT_ITEM_INIT (1U << 31)
#define BTRFS_INODE_FLAG_MASK                                                      \
	(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW | BTRFS_INODE_READONLY |    \
	 BTRFS_INODE_NOCOMPRESS | BTRFS_INODE_PREALLOC | BTRFS_INODE_SYNC |        \
	 BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND | BTRFS_INODE_NODUMP |         \
	 BTRFS_INODE_NOATIME | BTRFS_INODE_DIRSYNC | BTRFS_INODE_COMPRESS |        \
	 BTRFS_INODE_ROOT_ITEM_INIT)
/* Read-only compat flags, stored in the upper 32 bits of inode flags. */
#define BTRFS_INODE_RO_VERITY (1U << 0)
#define BTRFS_INODE_RO_FLAG_MASK BTRFS_INODE_RO_VERITY

/* ---- Root item flags ---------------------------------------------------- */

#define BTRFS_ROOT_SUBVOL_RDONLY (1ULL << 0)
#define BTRFS_ROOT_SUBVOL_DEAD (1ULL << 48)   /* being deleted, only for subvolumes */

/* ---- Directory entry types (btrfs_dir_item.type) ------------------------ */

#define BTRFS_FT_UNKNOWN 0
#define BTRFS_FT_REG_FILE 1
#define BTRFS_FT_DIR 2
#define BTRFS_FT_CHRDEV 3
#define BTRFS_FT_BLKDEV 4
#define BTRFS_FT_FIFO 5
#define BTRFS_FT_SOCK 6
#define BTRFS_FT_SYMLINK 7
#define BTRFS_FT_XATTR 8
#define BTRFS_FT_MAX 9
#define BTRFS_FT_ENCRYPTED 0x80   /* flag bit: the name is encrypted */

/* The BTRFS_FT_* a directory entry stores for an inode of this mode (S_IF* bits). */
static inline u8 btrfs_ftype_of_mode(u32 mode)
{
	switch (mode & 0170000) {
	case 0100000: return BTRFS_FT_REG_FILE;
	case 0040000: return BTRFS_FT_DIR;
	case 0020000: return BTRFS_FT_CHRDEV;
	case 0060000: return BTRFS_FT_BLKDEV;
	case 0010000: return BTRFS_FT_FIFO;
	case 0140000: return BTRFS_FT_SOCK;
	case 0120000: return BTRFS_FT_SYMLINK;
	}
	return BTRFS_FT_UNKNOWN;
}

/* The S_IF* type bits of an inode a directory entry of type ftype names; 0 for none. */
static inline u32 btrfs_mode_of_ftype(u8 ftype)
{
	switch (ftype) {
	case BTRFS_FT_REG_FILE: return 0100000;
	case BTRFS_FT_DIR: return 0040000;
	case BTRFS_FT_CHRDEV: return 0020000;
	case BTRFS_FT_BLKDEV: return 0060000;
	case BTRFS_FT_FIFO: return 0010000;
	case BTRFS_FT_SOCK: return 0140000;
	case BTRFS_FT_SYMLINK: return 0120000;
	}
	return 0;
}

/* ---- File extents ------------------------------------------------------- */

#define BTRFS_FILE_EXTENT_INLINE 0     /* data follows the item header in the leaf */
#define BTRFS_FILE_EXTENT_REG 1
#define BTRFS_FILE_EXTENT_PREALLOC 2
#define BTRFS_NR_FILE_EXTENT_TYPES 3

#define BTRFS_COMPRESS_NONE 0
#define BTRFS_COMPRESS_ZLIB 1
#define BTRFS_COMPRESS_LZO 2
#define BTRFS_COMPRESS_ZSTD 3
#define BTRFS_NR_COMPRESS_TYPES 4

#define BTRFS_ENCRYPTION_NONE 0

/* ---- Extent items ------------------------------------------------------- */

#define BTRFS_EXTENT_FLAG_DATA (1ULL << 0)
#define BTRFS_EXTENT_FLAG_TREE_BLOCK (1ULL << 1)
#define BTRFS_BLOCK_FLAG_FULL_BACKREF (1ULL << 8)   /* tree block: all refs are shared refs */
#define BTRFS_EXTENT_FLAG_SUPER (1ULL << 48)        /* in-memory only */

/* ---- Free space tree ---------------------------------------------------- */

#define BTRFS_FREE_SPACE_USING_BITMAPS (1U << 0)

/* ---- Qgroups ------------------------------------------------------------ */

#define BTRFS_QGROUP_STATUS_FLAG_ON (1ULL << 0)
#define BTRFS_QGROUP_STATUS_FLAG_RESCAN (1ULL << 1)
#define BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT (1ULL << 2)
#define BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE (1ULL << 3)
#define BTRFS_QGROUP_STATUS_FLAGS_MASK (0xfULL)
#define BTRFS_QGROUP_STATUS_VERSION 1

#define BTRFS_QGROUP_LIMIT_MAX_RFER (1ULL << 0)
#define BTRFS_QGROUP_LIMIT_MAX_EXCL (1ULL << 1)
#define BTRFS_QGROUP_LIMIT_RSV_RFER (1ULL << 2)
#define BTRFS_QGROUP_LIMIT_RSV_EXCL (1ULL << 3)
#define BTRFS_QGROUP_LIMIT_RFER_CMPR (1ULL << 4)
#define BTRFS_QGROUP_LIMIT_EXCL_CMPR (1ULL << 5)

/* ---- Balance ------------------------------------------------------------ */

/* btrfs_balance_item.flags and btrfs_ioctl_balance_args.flags: which
 * types, and how. */
#define BTRFS_BALANCE_DATA (1ULL << 0)
#define BTRFS_BALANCE_SYSTEM (1ULL << 1)
#define BTRFS_BALANCE_METADATA (1ULL << 2)
#define BTRFS_BALANCE_TYPE_MASK (BTRFS_BALANCE_DATA | BTRFS_BALANCE_SYSTEM | BTRFS_BALANCE_METADATA)
#define BTRFS_BALANCE_FORCE (1ULL << 3)     /* allow reducing metadata redundancy */
#define BTRFS_BALANCE_RESUME (1ULL << 4)    /* resume a paused balance */

/* btrfs_disk_balance_args.flags and btrfs_balance_args.flags: the filters
 * that are set. */
#define BTRFS_BALANCE_ARGS_PROFILES (1ULL << 0)
#define BTRFS_BALANCE_ARGS_USAGE (1ULL << 1)
#define BTRFS_BALANCE_ARGS_DEVID (1ULL << 2)
#define BTRFS_BALANCE_ARGS_DRANGE (1ULL << 3)
#define BTRFS_BALANCE_ARGS_VRANGE (1ULL << 4)
#define BTRFS_BALANCE_ARGS_LIMIT (1ULL << 5)
#define BTRFS_BALANCE_ARGS_LIMIT_RANGE (1ULL << 6)
#define BTRFS_BALANCE_ARGS_STRIPES_RANGE (1ULL << 7)
#define BTRFS_BALANCE_ARGS_CONVERT (1ULL << 8)
#define BTRFS_BALANCE_ARGS_SOFT (1ULL << 9)
#define BTRFS_BALANCE_ARGS_USAGE_RANGE (1ULL << 10)

/* ---- Device replace and stats ------------------------------------------- */

#define BTRFS_DEV_REPLACE_ITEM_CONT_READING_FROM_SRCDEV_MODE_ALWAYS 0
#define BTRFS_DEV_REPLACE_ITEM_CONT_READING_FROM_SRCDEV_MODE_AVOID 1
#define BTRFS_IOCTL_DEV_REPLACE_STATE_NEVER_STARTED 0
#define BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED 1
#define BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED 2
#define BTRFS_IOCTL_DEV_REPLACE_STATE_CANCELED 3
#define BTRFS_IOCTL_DEV_REPLACE_STATE_SUSPENDED 4

#define BTRFS_DEV_STAT_WRITE_ERRS 0       /* EIO or EREMOTEIO from lower layers */
#define BTRFS_DEV_STAT_READ_ERRS 1
#define BTRFS_DEV_STAT_FLUSH_ERRS 2
#define BTRFS_DEV_STAT_CORRUPTION_ERRS 3  /* checksum error, bytenr error, ... */
#define BTRFS_DEV_STAT_GENERATION_ERRS 4  /* an old generation was read */
#define BTRFS_DEV_STAT_VALUES_MAX 5

/* ======================================================================== */
/* Structures.  Offsets of each field: accessors.def.                        */
/* ======================================================================== */

/* A key as stored on disk (17 bytes).  struct btrfs_key is the CPU form. */
struct btrfs_disk_key {
	__le64 objectid;           /* inode number, tree id, logical address, ... */
	u8 type;                   /* BTRFS_*_KEY */
	__le64 offset;             /* meaning depends on type */
} __btrfs_packed;

/* The CPU-order key, for comparisons and searches; never on disk. */
struct btrfs_key {
	u64 objectid;
	u8 type;
	u64 offset;
};

/* Physical device stripe of a chunk (32 bytes). */
struct btrfs_stripe {
	__le64 devid;              /* device holding this stripe */
	__le64 offset;             /* physical byte offset on that device */
	u8 dev_uuid[BTRFS_UUID_SIZE];  /* device uuid, to check the right device was found */
} __btrfs_packed;

/*
 * Chunk item (48 bytes + 32 per stripe): maps logical [key.offset,
 * key.offset + length) to num_stripes device stripes.  Unlike the uapi
 * header (which declares one stripe inline), stripe[] is a flexible array:
 * sizeof(struct btrfs_chunk) is the fixed part; use btrfs_chunk_item_size().
 */
struct btrfs_chunk {
	__le64 length;             /* chunk size in bytes (logical) */
	__le64 owner;              /* tree owning it: BTRFS_EXTENT_TREE_OBJECTID */
	__le64 stripe_len;         /* stripe unit, BTRFS_STRIPE_LEN */
	__le64 type;               /* BTRFS_BLOCK_GROUP_* type and profile bits */
	__le32 io_align;           /* optimal io alignment */
	__le32 io_width;           /* optimal io width */
	__le32 sector_size;        /* minimal io size */
	__le16 num_stripes;        /* number of stripes that follow */
	__le16 sub_stripes;        /* raid10: stripes per mirror set (2), else 1 */
	struct btrfs_stripe stripe[];  /* num_stripes entries */
} __btrfs_packed;

static inline unsigned long btrfs_chunk_item_size(int num_stripes)
{
	return sizeof(struct btrfs_chunk) + sizeof(struct btrfs_stripe) * (unsigned long)num_stripes;
}

/* Device item (98 bytes): in the chunk tree and in the superblock. */
struct btrfs_dev_item {
	__le64 devid;              /* internal device id, 1-based */
	__le64 total_bytes;        /* size of the device */
	__le64 bytes_used;         /* bytes allocated to chunks */
	__le32 io_align;           /* optimal io alignment */
	__le32 io_width;           /* optimal io width */
	__le32 sector_size;        /* minimal io size */
	__le64 type;               /* type and info (unused) */
	__le64 generation;         /* generation the device was added */
	__le64 start_offset;       /* start of the usable area (unused) */
	__le32 dev_group;          /* grouping info (unused) */
	u8 seek_speed;             /* seek speed 0-100 (unused) */
	u8 bandwidth;              /* bandwidth 0-100 (unused) */
	u8 uuid[BTRFS_UUID_SIZE];  /* device uuid */
	u8 fsid[BTRFS_UUID_SIZE];  /* fsid of the filesystem owning the device */
} __btrfs_packed;

/* One of the four rotating backup root sets in the superblock (168 bytes). */
struct btrfs_root_backup {
	__le64 tree_root;          /* root tree */
	__le64 tree_root_gen;
	__le64 chunk_root;         /* chunk tree */
	__le64 chunk_root_gen;
	__le64 extent_root;        /* extent tree */
	__le64 extent_root_gen;
	__le64 fs_root;            /* top-level subvolume */
	__le64 fs_root_gen;
	__le64 dev_root;           /* device tree */
	__le64 dev_root_gen;
	__le64 csum_root;          /* checksum tree */
	__le64 csum_root_gen;
	__le64 total_bytes;        /* superblock total_bytes at that time */
	__le64 bytes_used;
	__le64 num_devices;
	__le64 unused_64[4];       /* future */
	u8 tree_root_level;
	u8 chunk_root_level;
	u8 extent_root_level;
	u8 fs_root_level;
	u8 dev_root_level;
	u8 csum_root_level;
	u8 unused_8[10];           /* future and to align */
} __btrfs_packed;

/*
 * The superblock (4096 bytes), at btrfs_sb_offset(0..2) on every device.
 * The first four fields match struct btrfs_header.
 */
struct btrfs_super_block {
	u8 csum[BTRFS_CSUM_SIZE];  /* checksum of bytes [32, 4096) */
	u8 fsid[BTRFS_FSID_SIZE];  /* filesystem uuid, shared by all devices */
	__le64 bytenr;             /* physical address of this copy */
	__le64 flags;              /* BTRFS_SUPER_FLAG_* */
	__le64 magic;              /* BTRFS_MAGIC */
	__le64 generation;         /* transaction id of the last commit */
	__le64 root;               /* logical address of the root tree root */
	__le64 chunk_root;         /* logical address of the chunk tree root */
	__le64 log_root;           /* logical address of the log root tree, 0 if none */
	__le64 __unused_log_root_transid;  /* deprecated, progs prints it as log_root_transid */
	__le64 total_bytes;        /* sum of device sizes */
	__le64 bytes_used;         /* bytes used by data and metadata */
	__le64 root_dir_objectid;  /* BTRFS_ROOT_TREE_DIR_OBJECTID (6) */
	__le64 num_devices;        /* number of devices */
	__le32 sectorsize;         /* data block size */
	__le32 nodesize;           /* tree block size */
	__le32 __unused_leafsize;  /* deprecated, equals nodesize */
	__le32 stripesize;         /* unused, equals sectorsize */
	__le32 sys_chunk_array_size;  /* bytes used in sys_chunk_array */
	__le64 chunk_root_generation;  /* generation of the chunk tree root */
	__le64 compat_flags;       /* none defined */
	__le64 compat_ro_flags;    /* BTRFS_FEATURE_COMPAT_RO_* */
	__le64 incompat_flags;     /* BTRFS_FEATURE_INCOMPAT_* */
	__le16 csum_type;          /* BTRFS_CSUM_TYPE_* */
	u8 root_level;             /* level of the root tree root */
	u8 chunk_root_level;       /* level of the chunk tree root */
	u8 log_root_level;         /* level of the log root tree root */
	struct btrfs_dev_item dev_item;  /* this device */
	char label[BTRFS_LABEL_SIZE];    /* NUL-padded label */
	__le64 cache_generation;   /* space cache v1 generation, -1 to invalidate */
	__le64 uuid_tree_generation;   /* generation of the uuid tree */
	u8 metadata_uuid[BTRFS_FSID_SIZE];  /* fsid in tree block headers (METADATA_UUID) */
	__le64 nr_global_roots;    /* extent-tree-v2 (experimental) */
	__le64 reserved[23];       /* future expansion (upstream grows from the front) */
	/*
	 * Key check value of a keyed csum type, zero otherwise (btrfs-kit; the
	 * last 32 bytes of the kernel's reserved[27], which it neither reads
	 * nor checks): offset 779 (0x30b), 32 bytes.
	 */
	u8 auth_key_check[BTRFS_CSUM_SIZE];
	u8 sys_chunk_array[BTRFS_SYSTEM_CHUNK_ARRAY_SIZE];  /* (disk key, chunk) pairs of SYSTEM chunks */
	struct btrfs_root_backup super_roots[BTRFS_NUM_BACKUP_ROOTS];
	u8 padding[565];           /* pad to 4096 */
} __btrfs_packed;

/* Tree block header (101 bytes), at the start of every node and leaf. */
struct btrfs_header {
	u8 csum[BTRFS_CSUM_SIZE];  /* checksum of bytes [32, nodesize) */
	u8 fsid[BTRFS_FSID_SIZE];  /* fsid (or metadata_uuid) of the filesystem */
	__le64 bytenr;             /* logical address of this block */
	__le64 flags;              /* BTRFS_HEADER_FLAG_*, backref rev in bits 56-63 */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];  /* uuid of the chunk tree */
	__le64 generation;         /* transaction id that wrote it */
	__le64 owner;              /* id of the tree it belongs to */
	__le32 nritems;            /* items (leaf) or key pointers (node) */
	u8 level;                  /* 0 = leaf */
} __btrfs_packed;

/* Leaf item header (25 bytes); data at sizeof(header) + offset. */
struct btrfs_item {
	struct btrfs_disk_key key;
	__le32 offset;             /* data offset from the end of the header */
	__le32 size;               /* data size */
} __btrfs_packed;

/* Node key pointer (33 bytes). */
struct btrfs_key_ptr {
	struct btrfs_disk_key key; /* first key of the child */
	__le64 blockptr;           /* logical address of the child */
	__le64 generation;         /* transid the child was written in */
} __btrfs_packed;

/* Timestamp (12 bytes). */
struct btrfs_timespec {
	__le64 sec;                /* seconds since the epoch (signed) */
	__le32 nsec;               /* nanoseconds */
} __btrfs_packed;

/* Inode item (160 bytes): key (ino, INODE_ITEM, 0); also inside root items. */
struct btrfs_inode_item {
	__le64 generation;         /* transid the inode was created */
	__le64 transid;            /* transid of the last change */
	__le64 size;               /* file size in bytes */
	__le64 nbytes;             /* bytes allocated (file extents, excluding holes) */
	__le64 block_group;        /* allocation hint, unused */
	__le32 nlink;              /* hard links */
	__le32 uid;
	__le32 gid;
	__le32 mode;               /* st_mode */
	__le64 rdev;               /* device number of a device node */
	__le64 flags;              /* BTRFS_INODE_* | BTRFS_INODE_RO_* << 32 */
	__le64 sequence;           /* NFS change count */
	__le64 reserved[4];        /* future */
	struct btrfs_timespec atime;
	struct btrfs_timespec ctime;
	struct btrfs_timespec mtime;
	struct btrfs_timespec otime;   /* creation time */
} __btrfs_packed;

/* Log tree: range of directory items logged (8 bytes). */
struct btrfs_dir_log_item {
	__le64 end;                /* last offset covered by the range */
} __btrfs_packed;

/* Inode back reference (10 bytes + name): key (ino, INODE_REF, parent ino). */
struct btrfs_inode_ref {
	__le64 index;              /* DIR_INDEX offset in the parent */
	__le16 name_len;           /* name bytes that follow */
	/* name follows */
} __btrfs_packed;

/* Extended inode back reference (18 bytes + name): key (ino, INODE_EXTREF, hash). */
struct btrfs_inode_extref {
	__le64 parent_objectid;    /* parent directory inode */
	__le64 index;              /* DIR_INDEX offset in the parent */
	__le16 name_len;           /* name bytes that follow */
	u8 name[];
} __btrfs_packed;

/* Directory entry or xattr (30 bytes + name + data). */
struct btrfs_dir_item {
	struct btrfs_disk_key location;  /* inode item or root item key of the target */
	__le64 transid;            /* transid of creation */
	__le16 data_len;           /* xattr value length (0 for dir entries) */
	__le16 name_len;           /* name length */
	u8 type;                   /* BTRFS_FT_* (| BTRFS_FT_ENCRYPTED) */
	/* name, then data, follow */
} __btrfs_packed;

/* Root item (439 bytes): key (tree id, ROOT_ITEM, 0 or transid). */
struct btrfs_root_item {
	struct btrfs_inode_item inode;   /* placeholder inode of the tree */
	__le64 generation;         /* transid of the last change of this root */
	__le64 root_dirid;         /* root directory inode (256), 0 for non-fs trees */
	__le64 bytenr;             /* logical address of the tree root block */
	__le64 byte_limit;         /* unused */
	__le64 bytes_used;         /* unused (not maintained) */
	__le64 last_snapshot;      /* transid of the last snapshot of this tree */
	__le64 flags;              /* BTRFS_ROOT_SUBVOL_* */
	__le32 refs;               /* 0 for a deleted subvolume */
	struct btrfs_disk_key drop_progress;  /* where a subvolume deletion stopped */
	u8 drop_level;             /* level of drop_progress */
	u8 level;                  /* level of the tree root block */
	/* The fields below exist when generation_v2 == generation (since 3.x). */
	__le64 generation_v2;
	u8 uuid[BTRFS_UUID_SIZE];          /* subvolume uuid */
	u8 parent_uuid[BTRFS_UUID_SIZE];   /* uuid of the snapshot source */
	u8 received_uuid[BTRFS_UUID_SIZE]; /* uuid set by receive */
	__le64 ctransid;           /* transid of the last change of the subvolume */
	__le64 otransid;           /* transid of creation */
	__le64 stransid;           /* send transid (received subvolumes) */
	__le64 rtransid;           /* receive transid */
	struct btrfs_timespec ctime;
	struct btrfs_timespec otime;
	struct btrfs_timespec stime;
	struct btrfs_timespec rtime;
	__le64 reserved[8];        /* future */
} __btrfs_packed;

/* Smallest root item a kernel ever wrote (before generation_v2). */
#define BTRFS_LEGACY_ROOT_ITEM_SIZE offsetof(struct btrfs_root_item, generation_v2)

/* Root ref/backref (18 bytes + name): subvolume placement in a parent. */
struct btrfs_root_ref {
	__le64 dirid;              /* directory inode in the parent subvolume */
	__le64 sequence;           /* DIR_INDEX of the entry */
	__le16 name_len;           /* name bytes that follow */
} __btrfs_packed;

/*
 * File extent item: 53 bytes for REG/PREALLOC; an INLINE extent keeps only
 * the first 21 bytes (up to and including type) followed by the data.
 */
struct btrfs_file_extent_item {
	__le64 generation;         /* transid that wrote the extent */
	__le64 ram_bytes;          /* uncompressed size of the whole extent */
	u8 compression;            /* BTRFS_COMPRESS_* */
	u8 encryption;             /* 0 */
	__le16 other_encoding;     /* 0 */
	u8 type;                   /* BTRFS_FILE_EXTENT_* */
	/* The rest is absent for inline extents. */
	__le64 disk_bytenr;        /* logical address of the extent, 0 = hole */
	__le64 disk_num_bytes;     /* size of the extent on disk */
	__le64 offset;             /* offset into the (decompressed) extent */
	__le64 num_bytes;          /* bytes of the file this item covers */
} __btrfs_packed;

#define BTRFS_FILE_EXTENT_INLINE_DATA_START offsetof(struct btrfs_file_extent_item, disk_bytenr)

/* Data checksums: key (EXTENT_CSUM, EXTENT_CSUM, logical); csum_size bytes per sector. */
struct btrfs_csum_item {
	u8 csum;
} __btrfs_packed;

/* Extent item (24 bytes) followed by inline refs; key (logical, EXTENT_ITEM|METADATA_ITEM, ...). */
struct btrfs_extent_item {
	__le64 refs;               /* total references */
	__le64 generation;         /* transid of allocation */
	__le64 flags;              /* BTRFS_EXTENT_FLAG_*, BTRFS_BLOCK_FLAG_FULL_BACKREF */
} __btrfs_packed;

/* Obsolete pre-2.6.31 extent item (4 bytes). */
struct btrfs_extent_item_v0 {
	__le32 refs;
} __btrfs_packed;

/* Follows a non-skinny tree block EXTENT_ITEM (18 bytes). */
struct btrfs_tree_block_info {
	struct btrfs_disk_key key; /* first key of the block */
	u8 level;                  /* level of the block */
} __btrfs_packed;

/*
 * Inline back reference (9 bytes): type is a ref key type; offset is the root
 * (TREE_BLOCK_REF), parent (SHARED_*_REF) or root id (EXTENT_OWNER_REF).  For
 * EXTENT_DATA_REF a struct btrfs_extent_data_ref starts at &offset instead.
 * For SHARED_DATA_REF a struct btrfs_shared_data_ref follows.
 */
struct btrfs_extent_inline_ref {
	u8 type;
	__le64 offset;
} __btrfs_packed;

/* Data back reference by file (28 bytes). */
struct btrfs_extent_data_ref {
	__le64 root;               /* subvolume id */
	__le64 objectid;           /* inode number */
	__le64 offset;             /* file offset minus extent offset */
	__le32 count;              /* references */
} __btrfs_packed;

/* Shared data back reference count (4 bytes). */
struct btrfs_shared_data_ref {
	__le32 count;
} __btrfs_packed;

/* Simple quota owner (8 bytes), inline only. */
struct btrfs_extent_owner_ref {
	__le64 root_id;
} __btrfs_packed;

/* Obsolete v0 back reference (28 bytes). */
struct btrfs_extent_ref_v0 {
	__le64 root;
	__le64 generation;
	__le64 objectid;
	__le32 count;
} __btrfs_packed;

/* Device extent (48 bytes): key (devid, DEV_EXTENT, physical). */
struct btrfs_dev_extent {
	__le64 chunk_tree;         /* BTRFS_CHUNK_TREE_OBJECTID */
	__le64 chunk_objectid;     /* BTRFS_FIRST_CHUNK_TREE_OBJECTID */
	__le64 chunk_offset;       /* logical start of the chunk */
	__le64 length;             /* bytes on this device */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
} __btrfs_packed;

/* Block group item (24 bytes): key (logical, BLOCK_GROUP_ITEM, length). */
struct btrfs_block_group_item {
	__le64 used;               /* bytes used */
	__le64 chunk_objectid;     /* BTRFS_FIRST_CHUNK_TREE_OBJECTID */
	__le64 flags;              /* BTRFS_BLOCK_GROUP_* */
} __btrfs_packed;

/* Free space tree info (8 bytes): key (bg start, FREE_SPACE_INFO, bg length). */
struct btrfs_free_space_info {
	__le32 extent_count;       /* free extents in the block group */
	__le32 flags;              /* BTRFS_FREE_SPACE_USING_BITMAPS */
} __btrfs_packed;

/* Space cache v1 header (41 bytes): key (FREE_SPACE, 0, bg start). */
struct btrfs_free_space_header {
	struct btrfs_disk_key location;  /* inode of the cache file */
	__le64 generation;
	__le64 num_entries;
	__le64 num_bitmaps;
} __btrfs_packed;

/* Qgroup status (40 bytes; 32 before simple quotas): key (0, QGROUP_STATUS, 0). */
struct btrfs_qgroup_status_item {
	__le64 version;            /* BTRFS_QGROUP_STATUS_VERSION */
	__le64 generation;         /* transid when the numbers were consistent */
	__le64 flags;              /* BTRFS_QGROUP_STATUS_FLAG_* */
	__le64 rescan;             /* rescan progress (logical address) */
	__le64 enable_gen;         /* simple quota: transid it was enabled */
} __btrfs_packed;

/* Qgroup usage (40 bytes): key (0, QGROUP_INFO, qgroupid). */
struct btrfs_qgroup_info_item {
	__le64 generation;
	__le64 rfer;               /* referenced bytes */
	__le64 rfer_cmpr;          /* referenced, compressed */
	__le64 excl;               /* exclusive bytes */
	__le64 excl_cmpr;
} __btrfs_packed;

/* Qgroup limits (40 bytes): key (0, QGROUP_LIMIT, qgroupid). */
struct btrfs_qgroup_limit_item {
	__le64 flags;              /* BTRFS_QGROUP_LIMIT_* */
	__le64 max_rfer;
	__le64 max_excl;
	__le64 rsv_rfer;
	__le64 rsv_excl;
} __btrfs_packed;

/* Balance filter arguments (136 bytes). */
struct btrfs_disk_balance_args {
	__le64 profiles;           /* BTRFS_BLOCK_GROUP_* profiles to act on */
	union {                    /* usage filter: percent, or a min..max range */
		__le64 usage;
		struct {
			__le32 usage_min;
			__le32 usage_max;
		} __btrfs_packed;
	} __btrfs_packed;
	__le64 devid;              /* devid filter */
	__le64 pstart;             /* physical range filter on devid */
	__le64 pend;
	__le64 vstart;             /* logical range filter */
	__le64 vend;
	__le64 target;             /* profile to convert to */
	__le64 flags;              /* BTRFS_BALANCE_ARGS_* */
	union {                    /* limit filter: count, or a min..max range */
		__le64 limit;
		struct {
			__le32 limit_min;
			__le32 limit_max;
		} __btrfs_packed;
	} __btrfs_packed;
	__le32 stripes_min;        /* stripes filter */
	__le32 stripes_max;
	__le64 unused[6];
} __btrfs_packed;

/* Running balance (448 bytes): key (BALANCE, TEMPORARY_ITEM, 0). */
struct btrfs_balance_item {
	__le64 flags;              /* BTRFS_BALANCE_* */
	struct btrfs_disk_balance_args data;
	struct btrfs_disk_balance_args meta;
	struct btrfs_disk_balance_args sys;
	__le64 unused[4];
} __btrfs_packed;

/* Device statistics (40 bytes): key (DEV_STATS, PERSISTENT_ITEM, devid). */
struct btrfs_dev_stats_item {
	__le64 values[BTRFS_DEV_STAT_VALUES_MAX];  /* indexed by BTRFS_DEV_STAT_* */
} __btrfs_packed;

/* Device replace state (72 bytes): key (0, DEV_REPLACE, 0). */
struct btrfs_dev_replace_item {
	__le64 src_devid;          /* device being replaced */
	__le64 cursor_left;        /* progress: physical start */
	__le64 cursor_right;       /* progress: physical end */
	__le64 cont_reading_from_srcdev_mode;  /* BTRFS_DEV_REPLACE_ITEM_CONT_READING_* */
	__le64 replace_state;      /* BTRFS_IOCTL_DEV_REPLACE_STATE_* */
	__le64 time_started;       /* seconds since the epoch */
	__le64 time_stopped;
	__le64 num_write_errors;
	__le64 num_uncorrectable_read_errors;
} __btrfs_packed;

/* fs-verity descriptor header (25 bytes): key (ino, VERITY_DESC_ITEM, 0). */
struct btrfs_verity_descriptor_item {
	__le64 size;               /* size of the descriptor that follows in items at offset 1.. */
	__le64 reserved[2];        /* future */
	u8 encryption;             /* 0 */
} __btrfs_packed;

/* One device stride of a raid stripe extent (16 bytes). */
struct btrfs_raid_stride {
	__le64 devid;              /* device this stride lives on */
	__le64 physical;           /* physical address on that device */
} __btrfs_packed;

/* Raid stripe extent: key (logical, RAID_STRIPE, length); item size / 16 strides. */
struct btrfs_stripe_extent {
	struct btrfs_raid_stride strides[0];   /* GNU zero-length: no fixed part */
} __btrfs_packed;

/* ---- Size assertions (the documented on-disk sizes) --------------------- */

_Static_assert(sizeof(struct btrfs_disk_key) == 17, "disk key");
_Static_assert(sizeof(struct btrfs_stripe) == 32, "stripe");
_Static_assert(sizeof(struct btrfs_chunk) == 48, "chunk without stripes");
_Static_assert(sizeof(struct btrfs_dev_item) == 98, "dev item");
_Static_assert(sizeof(struct btrfs_root_backup) == 168, "root backup");
_Static_assert(sizeof(struct btrfs_super_block) == BTRFS_SUPER_INFO_SIZE, "super block");
_Static_assert(sizeof(struct btrfs_header) == 101, "header");
_Static_assert(sizeof(struct btrfs_item) == 25, "item");
_Static_assert(sizeof(struct btrfs_key_ptr) == 33, "key ptr");
_Static_assert(sizeof(struct btrfs_timespec) == 12, "timespec");
_Static_assert(sizeof(struct btrfs_inode_item) == 160, "inode item");
_Static_assert(sizeof(struct btrfs_dir_log_item) == 8, "dir log item");
_Static_assert(sizeof(struct btrfs_inode_ref) == 10, "inode ref");
_Static_assert(sizeof(struct btrfs_inode_extref) == 18, "inode extref");
_Static_assert(sizeof(struct btrfs_dir_item) == 30, "dir item");
_Static_assert(sizeof(struct btrfs_root_item) == 439, "root item");
_Static_assert(BTRFS_LEGACY_ROOT_ITEM_SIZE == 239, "legacy root item");
_Static_assert(sizeof(struct btrfs_root_ref) == 18, "root ref");
_Static_assert(sizeof(struct btrfs_file_extent_item) == 53, "file extent item");
_Static_assert(BTRFS_FILE_EXTENT_INLINE_DATA_START == 21, "inline data start");
_Static_assert(sizeof(struct btrfs_extent_item) == 24, "extent item");
_Static_assert(sizeof(struct btrfs_extent_item_v0) == 4, "extent item v0");
_Static_assert(sizeof(struct btrfs_tree_block_info) == 18, "tree block info");
_Static_assert(sizeof(struct btrfs_extent_inline_ref) == 9, "extent inline ref");
_Static_assert(sizeof(struct btrfs_extent_data_ref) == 28, "extent data ref");
_Static_assert(sizeof(struct btrfs_shared_data_ref) == 4, "shared data ref");
_Static_assert(sizeof(struct btrfs_extent_owner_ref) == 8, "extent owner ref");
_Static_assert(sizeof(struct btrfs_extent_ref_v0) == 28, "extent ref v0");
_Static_assert(sizeof(struct btrfs_dev_extent) == 48, "dev extent");
_Static_assert(sizeof(struct btrfs_block_group_item) == 24, "block group item");
_Static_assert(sizeof(struct btrfs_free_space_info) == 8, "free space info");
_Static_assert(sizeof(struct btrfs_free_space_header) == 41, "free space header");
_Static_assert(sizeof(struct btrfs_qgroup_status_item) == 40, "qgroup status");
_Static_assert(sizeof(struct btrfs_qgroup_info_item) == 40, "qgroup info");
_Static_assert(sizeof(struct btrfs_qgroup_limit_item) == 40, "qgroup limit");
_Static_assert(sizeof(struct btrfs_disk_balance_args) == 136, "balance args");
_Static_assert(sizeof(struct btrfs_balance_item) == 448, "balance item");
_Static_assert(sizeof(struct btrfs_dev_stats_item) == 40, "dev stats item");
_Static_assert(sizeof(struct btrfs_dev_replace_item) == 72, "dev replace item");
_Static_assert(sizeof(struct btrfs_verity_descriptor_item) == 25, "verity descriptor");
_Static_assert(sizeof(struct btrfs_raid_stride) == 16, "raid stride");
_Static_assert(sizeof(struct btrfs_stripe_extent) == 0, "stripe extent header");

/* Most checksum bytes a csum item can hold in one leaf, per nodesize. */
#define BTRFS_LEAF_DATA_SIZE(nodesize) ((nodesize) - sizeof(struct btrfs_header))
#define BTRFS_MAX_ITEM_SIZE(nodesize) (BTRFS_LEAF_DATA_SIZE(nodesize) - sizeof(struct btrfs_item))
#define BTRFS_NODEPTRS_PER_BLOCK(nodesize) \
	(BTRFS_LEAF_DATA_SIZE(nodesize) / sizeof(struct btrfs_key_ptr))
/* Largest inline file extent data a leaf can hold. */
#define BTRFS_MAX_INLINE_DATA_SIZE(nodesize) \
	(BTRFS_MAX_ITEM_SIZE(nodesize) - BTRFS_FILE_EXTENT_INLINE_DATA_START)
/* Largest xattr name + value that fits one leaf item. */
#define BTRFS_MAX_XATTR_SIZE(nodesize) (BTRFS_MAX_ITEM_SIZE(nodesize) - sizeof(struct btrfs_dir_item))

#endif

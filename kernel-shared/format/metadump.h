/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The btrfs-image metadata dump format (file format of `btrfs image` and
 * btrfs-progs' btrfs-image; documented here once).
 *
 * All fields little-endian.  The file is a sequence of clusters, no end
 * marker.  A cluster is a 1024-byte index block followed by the payloads of
 * its items back to back, zero-padded to the next 1024-byte boundary:
 *
 *   index block  offset size
 *     magic        0     8   METADUMP_MAGIC_V0 or METADUMP_MAGIC_V1
 *     bytenr       8     8   the file offset of this index block
 *     nritems     16     4   items in this cluster, at most METADUMP_ITEMS_PER_CLUSTER
 *     compress    20     1   METADUMP_COMPRESS_NONE or _ZLIB
 *     items       21  12*n   packed {bytenr u64, size u32}: the logical address
 *                            of a range and its payload size in the file
 *   bytes after the last item are stale and ignored (writers put zeros).
 *
 * With zlib each payload is one zlib stream (RFC 1950) of the whole range.
 * Item 0 of the first cluster is the superblock (bytenr 65536, 4096 bytes).
 * The other items are logical ranges of tree blocks (adjacent blocks merged
 * up to the version's limit: v0 256 KiB, v1 256 MiB), log tree blocks and
 * v1 free space cache extents; with v1 also data extents.  Free space in
 * nodes and leaves and inline file data are zeroed by the writer.
 *
 * Restore maps every range through the chunk tree (the superblock's
 * sys_chunk_array and the chunk tree blocks in the dump) onto one device:
 * stripe 0's offset, and for DUP stripe 1 too; it sets the superblock flag
 * METADUMP_V2 (v0 dumps) and num_devices 1.  Onto one device per device of
 * the dump (btrfs image -m), every stripe of every chunk is written to its
 * own device, each of which gets the superblock with its own dev_item.
 */
#ifndef BTRFS_KIT_METADUMP_H
#define BTRFS_KIT_METADUMP_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/accessors.h"

#define METADUMP_MAGIC_V0 0xbd5c25e27295668bULL
#define METADUMP_MAGIC_V1 0x31765f506d55445fULL /* "_DUmP_v1" */
#define METADUMP_BLOCK_SIZE 1024U
#define METADUMP_ITEMS_PER_CLUSTER 83U
#define METADUMP_MAX_PENDING_V0 (256U * 1024)
#define METADUMP_MAX_PENDING_V1 (256U * 1024 * 1024)
#define METADUMP_COMPRESS_NONE 0
#define METADUMP_COMPRESS_ZLIB 1

struct metadump_item {
	__le64 bytenr;
	__le32 size;
} __attribute__((__packed__));

struct metadump_header {
	__le64 magic;
	__le64 bytenr;
	__le32 nritems;
	u8 compress;
} __attribute__((__packed__));

struct metadump_cluster {
	struct metadump_header header;
	struct metadump_item items[(METADUMP_BLOCK_SIZE - sizeof(struct metadump_header)) /
				   sizeof(struct metadump_item)];
} __attribute__((__packed__));

_Static_assert(sizeof(struct metadump_header) == 21, "metadump header layout");
_Static_assert(sizeof(struct metadump_item) == 12, "metadump item layout");
_Static_assert(sizeof(struct metadump_cluster) <= METADUMP_BLOCK_SIZE, "metadump cluster size");
_Static_assert(sizeof(((struct metadump_cluster *)0)->items) / sizeof(struct metadump_item) ==
	       METADUMP_ITEMS_PER_CLUSTER, "83 items per cluster");

static inline u64 metadump_magic(const struct metadump_header *h) { return get_unaligned_le64(&h->magic); }
static inline u64 metadump_bytenr(const struct metadump_header *h) { return get_unaligned_le64(&h->bytenr); }
static inline u32 metadump_nritems(const struct metadump_header *h) { return get_unaligned_le32(&h->nritems); }
static inline u8 metadump_compress(const struct metadump_header *h) { return h->compress; }
static inline void metadump_set_magic(struct metadump_header *h, u64 v) { put_unaligned_le64(v, &h->magic); }
static inline void metadump_set_bytenr(struct metadump_header *h, u64 v) { put_unaligned_le64(v, &h->bytenr); }
static inline void metadump_set_nritems(struct metadump_header *h, u32 v) { put_unaligned_le32(v, &h->nritems); }
static inline u64 metadump_item_bytenr(const struct metadump_item *i) { return get_unaligned_le64(&i->bytenr); }
static inline u32 metadump_item_size(const struct metadump_item *i) { return get_unaligned_le32(&i->size); }
static inline void metadump_set_item_bytenr(struct metadump_item *i, u64 v) { put_unaligned_le64(v, &i->bytenr); }
static inline void metadump_set_item_size(struct metadump_item *i, u32 v) { put_unaligned_le32(v, &i->size); }

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk and block allocation for building a filesystem in memory (mkfs),
 * and the kernel's placement of a new chunk for the write engine
 * (chunk_alloc_new_chunk_kernel(), trans-chunk.c).
 *
 * Profiles.  struct btrfs_raid_profile (kernel-shared/format/profiles.h) describes
 * each profile: how many devices at least, how many copies of each byte,
 * parity stripes, sub stripes (raid10) and device stripes (DUP puts two on
 * one device).
 *
 * Chunks.  A struct chunk_alloc holds the devices (size, dev extents) and the
 * chunks made so far.  chunk_alloc_new_chunk() places a chunk as btrfs-progs' mkfs
 * does: the stripe size is the type's default (system 8 MiB, metadata 256 MiB
 * or 1 GiB above 50 GiB, data 1 GiB), cut down so that the chunk's logical
 * size stays within 10% of the filesystem (and the type's maximum), but never
 * below the type's minimum stripe (system 1 MiB, metadata 32 MiB, data 64 MiB),
 * in 64 KiB units.  Devices are taken from a rotating device list: the
 * devices of the last chunk go to the front, so that consecutive chunks
 * spread over all devices; each dev extent goes to the first hole on its
 * device at or after 1 MiB.  Logical addresses grow from 1 MiB.
 *
 * Blocks.  chunk_alloc_bytes() hands out nodesize blocks from the chunks of a
 * type, in address order, never over a superblock copy's location on any
 * device of the chunk (the kernel excludes those ranges from allocation).
 */
#ifndef BTRFS_KIT_CHUNK_ALLOC_H
#define BTRFS_KIT_CHUNK_ALLOC_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/volumes.h"

#define CHUNK_ALLOC_MAX_DEVICES 64

struct chunk_alloc_dev_extent {
	u64 start;
	u64 len;
};

struct chunk_alloc_device {
	u64 devid;
	u64 total_bytes;
	u64 bytes_used;               /* sum of dev extents */
	struct chunk_alloc_dev_extent *ext;        /* dev extents, sorted by start */
	int nr_ext;
	int alloc_ext;
};

struct chunk_alloc_stripe {
	u64 devid;
	u64 physical;
};

struct chunk_placement {
	u64 logical;
	u64 length;
	u64 type;                     /* type and profile bits */
	u64 stripe_size;              /* length of each dev extent */
	int num_stripes;
	int sub_stripes;
	bool removed;                 /* dropped (temporary chunk replaced) */
	u64 used;                     /* bytes handed out by the block allocator */
	u64 cursor;                   /* next free logical address */
	/* btrfs_chunk_super_ranges(): at most one per copy per stripe, and one below the first */
	struct btrfs_range excl[BTRFS_SUPER_MIRROR_MAX * CHUNK_ALLOC_MAX_DEVICES * 2 + 1];
	int nr_excl;
	struct chunk_alloc_stripe stripes[];
};

struct chunk_alloc {
	struct chunk_alloc_device devs[CHUNK_ALLOC_MAX_DEVICES];
	int ndevs;
	int order[CHUNK_ALLOC_MAX_DEVICES];    /* rotating device list: indexes into devs */
	struct chunk_placement **chunks;     /* in creation order */
	int nr_chunks;
	int alloc_chunks;
	u64 next_logical;
	u64 total_bytes;              /* sum of device sizes */
	u32 sectorsize;
};

/* Devices get devids 1..n in the order given. */
int chunk_alloc_init(struct chunk_alloc *ca, int ndevs, const u64 *sizes, u32 sectorsize);
void chunk_alloc_release(struct chunk_alloc *ca);

/*
 * A chunk of type (type | profile bits) across the devices, sized by the
 * rules above.  Returns the chunk, or an ERR_PTR: -ENOSPC after an error
 * naming the type and what was missing.
 */
struct chunk_placement *chunk_alloc_new_chunk(struct chunk_alloc *ca, u64 type);
/*
 * A chunk placed as the kernel places one on a mounted filesystem (the
 * write engine's new chunks): devices whose largest hole (at or after
 * 1 MiB, the first one big enough for a full stripe) is the biggest come
 * first (then the most unallocated bytes, then the lowest devid), as many
 * as the profile takes; the smallest of their holes sets
 * the stripe size, cut to the type's chunk size (system 32 MiB, metadata
 * 256 MiB or 1 GiB above 50 GiB, data 10 GiB) and 10% of the filesystem,
 * rounded up to 16 MiB, at most 1 GiB, in 64 KiB units.  The logical
 * address is ca->next_logical.  ERR_PTR(-ENOSPC) after an error.
 */
struct chunk_placement *chunk_alloc_new_chunk_kernel(struct chunk_alloc *ca, u64 type);
/* Record a dev extent on dev (sorted in; bytes_used follows). */
int chunk_alloc_add_dev_extent(struct chunk_alloc_device *dev, u64 start, u64 len);
/* A single-profile chunk of exactly size bytes on devid (mkfs' first chunks). */
struct chunk_placement *chunk_alloc_new_chunk_on_device(struct chunk_alloc *ca, u64 type, u64 devid, u64 size);
/* Drop a chunk that holds nothing: its dev extents are freed. */
void chunk_alloc_remove_chunk(struct chunk_alloc *ca, struct chunk_placement *chunk);

/* The live chunks sorted by logical address, into out (nr_chunks room). */
int chunk_alloc_sorted_chunks(const struct chunk_alloc *ca, struct chunk_placement **out);
struct chunk_alloc_device *chunk_alloc_find_device(struct chunk_alloc *ca, u64 devid);

/*
 * Allocate len bytes (aligned to align) from the live chunks having all bits
 * of type, lowest address first; 0 with *logical set, -ENOSPC when no chunk
 * has room (not printed).
 */
int chunk_alloc_bytes(struct chunk_alloc *ca, u64 type, u64 len, u64 align, u64 *logical);

/*
 * The CHUNK_ITEM of c into ch (btrfs_chunk_item_size(c->num_stripes)
 * bytes): every field but the stripes' dev_uuid, which the caller knows.
 */
void chunk_alloc_fill_chunk_item(const struct chunk_placement *c, u32 sectorsize, struct btrfs_chunk *ch);

/* Bytes of the chunk's dev extents on each device (DUP counts twice). */
u64 chunk_placement_dev_bytes(const struct chunk_placement *chunk);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Devices and the chunk map: which bytes of which device hold a logical
 * address.
 *
 * A filesystem is a set of devices (struct btrfs_device), each found by its
 * devid and device uuid.  The logical address space is cut into chunks
 * (struct btrfs_chunk_map, one per CHUNK_ITEM); each chunk spreads its bytes
 * over num_stripes device extents according to its profile:
 *
 *   SINGLE             1 stripe, bytes in order
 *   DUP/RAID1/C3/C4    N stripes, each a full copy (mirror m = stripe m-1)
 *   RAID0              stripe_len units dealt round-robin over the stripes
 *   RAID10             units dealt over num_stripes/sub_stripes groups, each
 *                      group sub_stripes copies (mirror m = copy m-1)
 *   RAID5/RAID6        per full stripe, nr_data units then P (then Q); the
 *                      first device of full stripe n is stripe (n % num_stripes),
 *                      i.e. data unit d of full stripe n is on stripe
 *                      (d + n) % num_stripes, P on (nr_data + n) % num_stripes,
 *                      Q on (nr_data + 1 + n) % num_stripes.
 *
 * Mirrors are numbered from 1.  For RAID5/6 mirror 1 reads the data stripe;
 * mirror 2 rebuilds it from the other data units and P (RAID5 and RAID6).
 * RAID6 has nr_data more: mirror 3 rebuilds from Q and the other data units
 * (P taken as lost too), mirror 3 + k (k = 1 .. nr_data - 1) from P and Q
 * with the k-th other data unit of the row taken as lost too (raid6.h), so
 * any two bad or missing units of a row can be got around.
 *
 * Memory is proportional to the number of chunks, not to the size of the
 * filesystem's trees.
 */
#ifndef BTRFS_KIT_VOLUMES_H
#define BTRFS_KIT_VOLUMES_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/profiles.h"

struct btrfs_device {
	u64 devid;
	u8 uuid[BTRFS_UUID_SIZE];       /* device uuid (dev_item.uuid) */
	char *path;                     /* NULL when missing */
	int fd;                         /* -1 when missing */
	u64 size;                       /* bytes readable on the device/image */
	u64 total_bytes;                /* dev_item.total_bytes (0 if unknown) */
	bool missing;                   /* listed by the filesystem, not found */
	/*
	 * The filesystem the device belongs to, as tree blocks and device
	 * items name it (the metadata fsid): its superblock's when opened,
	 * else (missing) its chunk tree item's; another filesystem's for a
	 * seed device of a sprouted filesystem.
	 */
	u8 fsid[BTRFS_FSID_SIZE];
	bool reported;                  /* the missing device was already reported */
};

struct btrfs_device_list {
	struct btrfs_device *devs;
	int nr;
	int alloc;
};

struct btrfs_chunk_stripe {
	u64 devid;
	u64 physical;                   /* byte offset on the device */
	u8 dev_uuid[BTRFS_UUID_SIZE];
};

/* One chunk in memory (from a CHUNK_ITEM), validated when added. */
struct btrfs_chunk_map {
	u64 logical;                    /* key.offset of the chunk item */
	u64 length;
	u64 type;                       /* BTRFS_BLOCK_GROUP_* bits */
	u64 stripe_len;
	u16 num_stripes;
	u16 sub_stripes;
	struct btrfs_chunk_stripe stripes[];
};

/* All chunks of a filesystem, sorted by logical address, never overlapping. */
struct btrfs_chunk_tree_map {
	struct btrfs_chunk_map **chunks;
	size_t nr;
	size_t alloc;
};

/* Where one piece of a logical range lives. */
struct btrfs_io_stripe {
	u64 devid;
	u64 physical;
	u64 len;                        /* contiguous bytes from physical (within the stripe unit) */
	int stripe_index;               /* index into chunk->stripes */
};

/* Device list */
struct btrfs_device *btrfs_find_device(struct btrfs_device_list *list, u64 devid,
				       const u8 *uuid);
struct btrfs_device *btrfs_add_device(struct btrfs_device_list *list, u64 devid, const u8 *uuid);
void btrfs_free_devices(struct btrfs_device_list *list);
/*
 * Forget the missing devices no stripe of map is on (device items of a
 * filesystem restored onto one device, about to be deleted): a writer
 * refuses a filesystem with a missing device.  Returns how many.
 */
int btrfs_forget_unused_missing(struct btrfs_device_list *list, const struct btrfs_chunk_tree_map *map);
/* Bytes readable through fd (regular file or block device), 0 if unknown. */
u64 btrfs_device_fd_size(int fd);

/*
 * Scan block devices with libblkid for members of the filesystem with this
 * fsid; open each one that the list does not hold yet and whose superblock
 * names this fsid.  Returns the number added, or a negative errno.
 */
int btrfs_scan_devices(struct btrfs_device_list *list, const u8 *fsid);

/*
 * A device given by path whose superblock belongs to another filesystem: a
 * seed device of this one (a sprout) when its devid and device uuid are
 * those of a device the list holds as missing; then opened there.  Returns
 * 1 when attached, 0 when it is not such a device, a negative errno.
 */
int btrfs_attach_seed_device(struct btrfs_device_list *list, const char *path);

/* Chunk map */
void btrfs_chunk_tree_map_free(struct btrfs_chunk_tree_map *map);

/*
 * The chunk item rules (the kernel tree-checker's): 0, or -EUCLEAN with the
 * reason in msg (nothing printed).  The mixed DATA|METADATA check applies
 * unless incompat_flags has MIXED_GROUPS.
 */
int btrfs_check_chunk(u64 logical, const struct btrfs_chunk *chunk, u32 item_size, u32 sectorsize,
		      u64 incompat_flags, char *msg, size_t msglen);

/*
 * Validate a chunk item of item_size bytes with key offset logical (the
 * tree-checker's chunk rules plus sectorsize alignment) and add it.  A chunk
 * already present at the same logical/length is accepted silently.  Returns
 * 0, -EUCLEAN after an error naming the chunk, -EEXIST on overlap with a
 * different chunk, or -ENOMEM.
 */
int btrfs_add_chunk(struct btrfs_chunk_tree_map *map, u64 logical, const struct btrfs_chunk *chunk,
		    u32 item_size, u32 sectorsize);

/* Parse the superblock's sys_chunk_array into the map. */
int btrfs_read_sys_chunk_array(struct btrfs_chunk_tree_map *map, const struct btrfs_super_block *sb);

/* The chunk holding logical, or NULL. */
const struct btrfs_chunk_map *btrfs_chunk_lookup(const struct btrfs_chunk_tree_map *map,
						 u64 logical);

/* Number of copies a read of the chunk can try (>= 1). */
int btrfs_chunk_num_mirrors(const struct btrfs_chunk_map *chunk);
/* Number of data stripes (units that are not parity/copies) per stripe row. */
int btrfs_chunk_data_stripes(const struct btrfs_chunk_map *chunk);

/*
 * Map logical (inside chunk) for mirror (1-based) to one device location.
 * For RAID5/6 every mirror maps the data stripe; rebuild is the reader's job
 * (see btrfs_chunk_map_parity()).  Returns 0, or -EINVAL for a mirror beyond
 * btrfs_chunk_num_mirrors() or a logical outside the chunk.
 */
int btrfs_chunk_map_one(const struct btrfs_chunk_map *chunk, u64 logical, int mirror,
			struct btrfs_io_stripe *out);

/*
 * RAID5/6: the locations of the full stripe row holding logical.  data[i]
 * (i < nr_data) is data unit i of the row, then P, then Q (RAID6): each at
 * the same offset within its unit as logical, len bytes to the unit's end.
 * Returns the number of entries filled (nr_data + 1 or + 2), or -EINVAL.
 */
int btrfs_chunk_map_parity(const struct btrfs_chunk_map *chunk, u64 logical,
			   struct btrfs_io_stripe *out, int max);

/* A range of logical addresses [start, start + len). */
struct btrfs_range {
	u64 start;
	u64 len;
};

/*
 * The logical ranges of a chunk that hold a superblock copy, which are never
 * allocated and never free space (the kernel's exclude_super_stripes() over
 * btrfs_rmap_block()): for each copy btrfs_sb_offset(m) and each stripe whose
 * device extent [physical, physical + length / data stripes) holds it, the
 * stripe unit (BTRFS_STRIPE_LEN) that maps there, or for RAID5/6 the whole row
 * of data units (data stripes * BTRFS_STRIPE_LEN) that its parity covers,
 * clipped to the chunk; and [logical, BTRFS_SUPER_INFO_OFFSET) for a chunk
 * that starts below the first copy.  The whole unit goes, not just the 4 KiB
 * copy.  *out gets a malloc'd array (free() it; NULL when empty), sorted and
 * merged.  Returns the number of ranges or -ENOMEM.
 */
int btrfs_chunk_super_ranges(const struct btrfs_chunk_map *chunk, struct btrfs_range **out);

#endif

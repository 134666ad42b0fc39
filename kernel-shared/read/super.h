/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Superblock copies: read, verify, write.
 *
 * Every device carries up to three copies (btrfs_sb_offset(): 64 KiB,
 * 64 MiB, 256 GiB), each BTRFS_SUPER_INFO_SIZE bytes, checksummed over
 * bytes [BTRFS_CSUM_SIZE, 4096) with the filesystem's csum type.  A copy
 * that starts beyond the end of the device simply does not exist.
 *
 * Tree block headers carry the "metadata fsid": metadata_uuid when the
 * METADATA_UUID incompat bit is set, else fsid (btrfs_super_metadata_fsid()).
 */
#ifndef BTRFS_KIT_SUPER_H
#define BTRFS_KIT_SUPER_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"

/*
 * Read the 4096 bytes at bytenr of fd, no checks.  Silent: returns 0;
 * -ERANGE when nothing is there (bytenr at or past the end of the device);
 * -EIO for a short read (*got says how many bytes came back); or the
 * negative errno of a failed pread.  got may be NULL.
 */
int btrfs_super_read_raw(int fd, u64 bytenr, struct btrfs_super_block *sb, size_t *got);

/* Checksum of the copy against its csum field: 0 match, -EUCLEAN mismatch,
 * -EOPNOTSUPP unknown csum type.  No key here: a full keyed type is 0 (the
 * open with the key checks it), an authsum type checks its xxhash64 part.  Silent. */
int btrfs_super_csum_verify(const struct btrfs_super_block *sb);
/*
 * The same for any type with @csum set up for the copy's csum type, with the
 * key or without: an enum btrfs_csum_result (kernel-shared/format/csum.h), -EINVAL
 * when @csum is for another type, or the hash's negative errno.  Silent.
 */
struct btrfs_csum;
int btrfs_super_csum_check(const struct btrfs_super_block *sb, const struct btrfs_csum *csum);
/*
 * Set up @csum for the csum type of @sb with @key (NULL: none): a key for a
 * plain type is -EINVAL after "... is not keyed", a key that does not match
 * the key check value -EKEYREJECTED after "wrong key for this filesystem",
 * or the setup's error.  Without a key a keyed type is set up keyless: the
 * caller decides whether that is enough.  On error @csum needs no release.
 */
int btrfs_super_csum_setup(struct btrfs_csum *csum, const struct btrfs_super_block *sb,
			   const u8 *key, size_t keylen);
/*
 * Compute and store the checksum (csum field zero padded) with @csum (the
 * filesystem's, keyed when the type is), or for a plain type NULL; 0,
 * -EOPNOTSUPP, -ENOKEY (keyed type without the key), -EINVAL (@csum of
 * another type).
 */
int btrfs_super_csum_set(struct btrfs_super_block *sb, const struct btrfs_csum *csum);

/* The fsid tree block headers carry: metadata_uuid or fsid. */
const u8 *btrfs_super_metadata_fsid(const struct btrfs_super_block *sb);
static inline bool btrfs_super_has_metadata_uuid(const struct btrfs_super_block *sb);

/*
 * Sanity checks of a copy read at bytenr (pass (u64)-1 to skip the bytenr
 * check), as the kernel does before mounting: magic, csum type and
 * checksum, sector and node sizes, root alignment and levels, device
 * counts, sys_chunk_array size, dev_item fsid.  Prints one error per
 * problem naming the field ("superblock at %llu: ..."), returns 0 or
 * -EUCLEAN (or -EOPNOTSUPP for an unknown csum type).
 */
int btrfs_super_validate(const struct btrfs_super_block *sb, u64 bytenr);
/* Its rules for the sector size and the node size (a power of two in range). */
bool btrfs_super_sectorsize_valid(u64 sectorsize);
bool btrfs_super_nodesize_valid(u64 nodesize, u64 sectorsize);

/*
 * A superblock field btrfs_super_mend() set: its name, value before and
 * after, and what said so.
 */
struct btrfs_super_mend {
	const char *field;
	u64 was, now;
	const char *why;
};

/*
 * The bytes of the sys_chunk_array that hold whole (key, chunk) pairs of
 * system chunks, from its start; 0 when the first is not one.  The first
 * chunk's sector size in *sector_size (may be NULL).
 */
u32 btrfs_super_sys_array_used(const struct btrfs_super_block *sb, u32 *sector_size);

/*
 * Does sys_array_size count bytes past the array's last chunk that are too
 * few to hold another (key, chunk) pair?  No reader can parse them.
 */
bool btrfs_super_sys_array_tail(const struct btrfs_super_block *sb);
/*
 * Where the chunk of the array that sys_array_size ends inside of ends (the
 * size cuts a whole chunk the array holds), 0 when it ends at a chunk's end.
 */
u32 btrfs_super_sys_array_cut(const struct btrfs_super_block *sb);

/*
 * check: a superblock copy whose checksum is good (written whole) but
 * whose structural fields fail btrfs_super_validate(): each failing field
 * another part of the same copy tells is set from it, in sb: sectorsize from
 * the device item and the first system chunk (both agreeing), nodesize and
 * leafsize from each other, stripesize to the sector size, log_root_level 0
 * without a log tree, sys_chunk_array_size from the chunks the array holds,
 * flags with unknown bits to WRITTEN alone, an unaligned log_root to 0 (no
 * log), and root, chunk_root, their levels, num_devices, total_bytes and
 * bytes_used from the backup root slot of the copy's own commit (its tree
 * and chunk root generations the copy's).  Fields no other part tells are
 * left.  Returns the number of fields set (at most max described in out[]);
 * the caller validates the copy again.
 */
int btrfs_super_mend(struct btrfs_super_block *sb, struct btrfs_super_mend *out, int max);

/* Flags for btrfs_read_super(). */
#define BTRFS_SUPER_READ_QUIET      (1U << 0)  /* no messages for a missing or invalid copy */
#define BTRFS_SUPER_READ_RECOVER    (1U << 1)  /* primary bad: use the newest valid mirror */
/* An unfinished mkfs's copy: BTRFS_MAGIC_TEMPORARY wanted, the real magic refused. */
#define BTRFS_SUPER_READ_TEMPORARY  (1U << 2)

/*
 * The one function that reads a superblock for use: the copy at bytenr
 * (0 = primary) read and btrfs_super_validate()d.  With
 * BTRFS_SUPER_READ_RECOVER and bytenr 0, a bad primary falls back to the
 * valid mirror with the highest generation; *found_at (may be NULL) says
 * which copy was taken.  Returns 0, -ERANGE (no such copy), -EIO, -EUCLEAN.
 */
int btrfs_read_super(int fd, u64 bytenr, unsigned int flags, struct btrfs_super_block *sb,
		     u64 *found_at);

/*
 * The pair of btrfs_read_super(): write a copy of sb as superblock mirror
 * (0..2) of fd.  The copy gets bytenr = btrfs_sb_offset(mirror) and its
 * checksum computed last; sb itself is not modified.  Written through
 * btrfs_dev_write() (log: the writer's write log, may be NULL).  csum: the
 * filesystem's checksum (keyed types need it with the key), NULL for a plain
 * type.  0 or -errno.
 */
struct btrfs_write_log;
int btrfs_write_super(struct btrfs_write_log *log, int fd, const struct btrfs_super_block *sb,
		      const struct btrfs_csum *csum, int mirror);
/* Every mirror that fits a device of device_size bytes; returns 0 or the first error. */
/* How many superblock copies a device of device_size bytes holds (those that fit whole). */
int btrfs_super_copies_in(u64 device_size);

int btrfs_write_super_all(struct btrfs_write_log *log, int fd, const struct btrfs_super_block *sb,
			  const struct btrfs_csum *csum, u64 device_size);

/*
 * Walking sys_chunk_array: (disk key, chunk item) pairs, sys_array_size bytes.
 *
 *   struct btrfs_sys_array_iter it;
 *   ret = btrfs_sys_array_init(&it, sb);
 *   while (ret == 0 && (ret = btrfs_sys_array_next_key(&it, &key)) > 0) {
 *           ...key...
 *           ret = btrfs_sys_array_next_chunk(&it, key, &chunk, &len);
 *           ...chunk (len bytes, num_stripes checked to fit)...
 *   }
 *
 * Each step returns 0/1 or -EUCLEAN after printing (btrfs-progs wording):
 * "sys_array_size %u shouldn't exceed %u bytes", "sys_array too short to
 * read %u bytes at offset %u", "unexpected item type %u in sys_array at
 * offset %u", "invalid number of stripes %u in sys_array at offset %u".
 */
struct btrfs_sys_array_iter {
	const struct btrfs_super_block *sb;
	u32 size;       /* sys_array_size */
	u32 cur;        /* offset of the next key or chunk */
	int nr;         /* items returned so far */
};
int btrfs_sys_array_init(struct btrfs_sys_array_iter *it, const struct btrfs_super_block *sb);
/* 1 and *key for the next item, 0 at the end, -EUCLEAN. */
int btrfs_sys_array_next_key(struct btrfs_sys_array_iter *it, const struct btrfs_disk_key **key);
/* The chunk after key: 0 with *chunk and *len, or -EUCLEAN. */
int btrfs_sys_array_next_chunk(struct btrfs_sys_array_iter *it, const struct btrfs_disk_key *key,
			       const struct btrfs_chunk **chunk, u32 *len);

#include "kernel-shared/format/accessors.h"

static inline bool btrfs_super_has_metadata_uuid(const struct btrfs_super_block *sb)
{
	return btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_METADATA_UUID;
}

#endif

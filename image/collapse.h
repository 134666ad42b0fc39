/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A dump of a multi-device filesystem restored onto one target, as
 * btrfs-progs 6.19's restore does it ("collapse"): every chunk becomes a
 * SINGLE (or DUP) chunk of the one device that holds the chunk's logical
 * range in one piece, at the offset of its stripe 0, or past the end when
 * that range overlaps a chunk placed before (restore_chunk_place()).  This
 * works for every profile, RAID5/6 included: a dump holds logical ranges,
 * no parity.
 *
 * The writes, in order (image/restore.c):
 *   1. tree blocks at their new places, chunk tree leaves rewritten
 *      (collapse_chunk_leaf()); flush;
 *   2. the superblock with its sys_chunk_array rewritten (collapse_super())
 *      and the temporary magic (BTRFS_MAGIC_TEMPORARY: no kernel, blkid or
 *      btrfs tool takes it for a filesystem); flush;
 *   3. collapse_commit(): one engine transaction, as btrfs-image's own
 *      fixup: block group flags as their chunks, every dev extent made anew
 *      from the chunks, the other devices' DEV_ITEMs deleted, the device sized to the end of its last dev extent,
 *      the real magic; a commit (copy on write, flush, superblocks, flush).
 * A kill before the commit's superblock leaves no btrfs superblock on the
 * target; a rerun writes it all again, identically.
 */
#ifndef BTRFS_KIT_IMAGE_COLLAPSE_H
#define BTRFS_KIT_IMAGE_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format/format.h"

/* Where a chunk of the dumped filesystem lands on the restored device. */
struct restore_chunk {
	u64 logical;
	u64 length;
	u64 physical;
	u64 physical_dup;       /* 0 unless DUP */
};

/* The chunk holding logical (ranges of the chunks in the order read), or NULL. */
const struct restore_chunk *restore_chunk_find(const struct restore_chunk *chunks, size_t nr,
					       u64 logical);

/* What the placement found, for the superblock and the commit. */
struct collapse_info {
	u64 alloced;            /* bytes of every chunk on the device (DUP twice) */
	bool clear_space_cache; /* a chunk that held a superblock mirror moved: cache_generation 0 */
	u64 dev_size;           /* the end of the last chunk placed: the one device's size */
	bool is_file;           /* the target is a file: it is sized to dev_size (set by the caller) */
};

/*
 * Place the chunks (in the order the dump's chunk tree leaves hold them,
 * physical and physical_dup their stripe 0 and 1 offsets) as btrfs-image
 * 6.19 does: one that overlaps a chunk kept before moves past the end,
 * the last of them first.  btrfs-image's end is a running figure that can
 * fall short of the true end (it then stops on an internal error); where
 * its places collide, every moved chunk goes past the true end instead.
 * -EOPNOTSUPP (said) when the DUP copies collide even so.
 */
int restore_chunk_place(struct restore_chunk *chunks, size_t nr, struct collapse_info *info);

/*
 * A tree block range of a dump item (len bytes from logical) rewritten for
 * the one device: every chunk tree leaf (up to the first block whose
 * header does not name its own address and the filesystem) gets its chunk
 * items as btrfs-image writes them (profile bits but DUP cleared, one
 * stripe unless DUP, sub_stripes 0, stripe 0 on devid/dev_uuid at the new
 * place, a DUP's stripe 1 at its copy), checksummed again with csum.  0, or -EUCLEAN (said)
 * for a leaf whose items do not fit it.
 */
struct btrfs_csum;
int collapse_chunk_leaves(u8 *buf, size_t len, u64 logical, u32 nodesize, const u8 *fsid,
			  const struct restore_chunk *chunks, size_t nr, u64 devid, const u8 *dev_uuid,
			  const struct btrfs_csum *csum);

/*
 * The superblock for the one device: sys_chunk_array as btrfs-image
 * rewrites it, num_devices 1, cache_generation 0 when info says so.
 * -EUCLEAN (said) for an array it cannot read.
 */
int collapse_super(struct btrfs_super_block *sb, const struct restore_chunk *chunks, size_t nr,
		   const struct collapse_info *info);

/*
 * Step 3 on the target (written and flushed up to step 2): 0 or a negative
 * errno (said).  auth_key for keyed checksums.
 */
int collapse_commit(const char *target, const u8 *auth_key, size_t auth_key_len,
		    const struct collapse_info *info);

#endif

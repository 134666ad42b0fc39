/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline balance: convert the profiles of an unmounted filesystem.
 *
 * Unlike the kernel, nothing is relocated: every chunk keeps its logical
 * address, so extent items, back references, checksums, free space and
 * file extents stay as they are.  Only the chunk's physical layout changes:
 * its CHUNK_ITEM, the block group item's profile bits, the dev extents,
 * the dev items' bytes_used, the superblock's sys_chunk_array (system
 * chunks) and the incompat bits (RAID56, RAID1C34).
 *
 * Plan (offline-plan.c).  Chunks selected by the filters (balance-args.h)
 * whose profile is not already the target are converted one at a time in
 * ascending logical order.  Each device is a list of occupied ranges: the
 * first MiB, every superblock copy, every dev extent.  A converted chunk's
 * new stripes go into holes (first fit, devices with the largest hole
 * first), never over a range still occupied; the old stripes the new
 * layout does not keep are freed once the chunk is done, as the commit
 * after each chunk frees them on disk.  Stripe counts are what the
 * kernel's tree-checker takes, and chunk lengths divide evenly into the
 * data stripes' 64 KiB units.  Mirrored to mirrored profiles keep the old
 * stripes they can (raid1 -> single, dup -> single move no data).  When a
 * chunk cannot be placed the plan says which one and what each device has.
 *
 * Convert (offline-convert.c).  Per chunk: the bytes are read through the
 * old mapping and verified (tree blocks by checksum and header, data
 * sectors against the csum tree; a bad copy is replaced from another
 * mirror, or the convert stops naming the block), written to the new
 * stripes that are not kept, and then one transaction
 * (btrfs_trans_remap_chunk()) switches the mapping; its commit flushes
 * every device (the copy with its tree blocks) before the superblock
 * write, the atomic point.  A crash leaves each chunk in its old or its new
 * layout; running the command again skips converted chunks.
 *
 * Write order, and what a cut between any two writes leaves (a kill keeps
 * every write made; a power cut, per device, what its last flush made
 * durable and any part of the rest):
 *   0. once per run, before anything else: every superblock copy older than
 *      the committed generation G (a previous run cut between two devices'
 *      superblocks) or torn gets G's, then those devices are flushed
 *      (btrfs_settle_supers()).  Cut: some copies at G, the rest as before;
 *      each names whole trees, since nothing has reused G's free space.
 *   1. the copy: the chunk's used bytes to its new stripes that are not
 *      kept, ranges no dev extent of G covers (free space, named by no
 *      copy of any generation on any device after step 0); kept stripes
 *      only where their bytes differ from the verified ones (a bad mirror,
 *      or free space).  Cut: G as it was.
 *   2. the commit's tree blocks (chunk item, dev extents, dev items, block
 *      group flags, the trees they touch), in G's free space, then a flush
 *      of every device: the copy and the blocks durable.  Cut: G.
 *   3. the superblocks of G+1 (sys_chunk_array and incompat bits for a
 *      system chunk or a new profile, backup roots rotated, each device's
 *      dev item), device after device, every copy, then a flush of every
 *      device.  Cut: each device at G or G+1, both whole; step 0 of the
 *      next run completes them.  The old stripes are free from G+1 on.
 *   4. the next chunk: its copy may go to stripes G+1 freed; G+1 is
 *      durable on every device by then (step 3's flush).
 * A kernel mount in between writes its own commits (every device's
 * superblock included): the next run plans again from what is there.
 */
#ifndef BTRFS_KIT_BALANCE_OFFLINE_H
#define BTRFS_KIT_BALANCE_OFFLINE_H

#include <stdio.h>
#include "balance/balance-args.h"

struct btrfs_fs_info;

struct offline_stripe {
	u64 devid;
	u64 physical;
	bool kept;                      /* an old stripe at the same place: no copy */
};

struct offline_chunk {
	u64 logical;
	u64 length;
	u64 old_type;                   /* type and profile bits now */
	u64 new_type;                   /* after the convert */
	u64 old_stripe_size;            /* dev extent length now */
	u64 new_stripe_size;
	u32 old_num_stripes;
	u32 new_num_stripes;
	u16 new_sub_stripes;
	struct offline_stripe *stripes; /* new_num_stripes */
	u64 copy_bytes;                 /* bytes written to new stripes */
};

struct offline_dev {
	u64 devid;
	u64 total_bytes;                /* dev item's total_bytes */
	u64 used_before;                /* dev extent bytes now */
	u64 used_after;                 /* after the plan (or at the failure) */
	u64 largest_hole;               /* at the failure: the largest free range */
};

struct offline_plan {
	struct offline_chunk *chunks;   /* in the order they are converted */
	size_t nr_chunks;
	struct offline_dev *devs;
	size_t nr_devs;
	u64 selected;                   /* chunks the filters select */
	u64 skipped;                    /* of them, already in the target profile */
	u64 copy_bytes;                 /* sum of the chunks' copy_bytes */
	bool fits;
	/* When the plan does not fit: the chunk that could not be placed. */
	u64 fail_logical;
	u64 fail_length;
	u64 fail_type;                  /* its current type */
	u64 fail_target;                /* extended profile it was to get */
	u64 fail_stripe_size;           /* smallest stripe it could have needed */
	u32 fail_devs_needed;
	u32 fail_devs_with_room;
};

/*
 * What offline balance refuses before planning: a log tree to replay, a
 * balance item, relocation trees, a device replace, a seed or zoned
 * filesystem, a missing device, usage filters, a reduction of metadata or
 * system redundancy without force.  0, or -EOPNOTSUPP/-EINVAL after an
 * error() saying why (and what to do instead).
 */
int offline_balance_refuse(struct btrfs_fs_info *fs, const struct btrfs_ioctl_balance_args *req,
			   bool force);

/*
 * Plan req on fs.  0 with plan filled (plan->fits says whether it does),
 * -ENOMEM.  Free with offline_plan_release().
 */
int offline_plan_build(struct btrfs_fs_info *fs, const struct btrfs_ioctl_balance_args *req,
		       struct offline_plan *plan);
void offline_plan_release(struct offline_plan *plan);

/* The plan, one line per chunk, to out (--dry-run). */
void offline_plan_print(FILE *out, const struct offline_plan *plan);
/* Why the plan does not fit: the chunk, needed and free per device; to stderr. */
void offline_plan_print_refusal(const struct offline_plan *plan);

/*
 * Run the plan on fs (opened writable): chunk after chunk, copy, verify,
 * flush, one commit each, a progress line each to out.  0, or a negative
 * errno after an error naming the chunk (chunks done before stay done).
 * stop (NULL: never): when it reads non-zero, the convert stops before the
 * next chunk's commit (a chunk being copied keeps its old layout; the
 * copy went to free space only) and returns -EINTR after saying so.
 */
int offline_convert(struct btrfs_fs_info *fs, const struct offline_plan *plan, FILE *out,
		    const volatile int *stop);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Balance planning: before a convert starts, will the target profile hold
 * what is going to move?
 *
 * Input is a description of the filesystem, however it was obtained (the
 * kernel's ioctls for a mounted filesystem, the chunk and device trees for
 * an unmounted one): every chunk (type, profile, length, used, stripes) and
 * every writable device (size, bytes allocated to chunks).  The plan replays
 * the relocation the way the kernel runs it:
 *
 *   - chunks are taken in descending logical order, selected by the filters
 *     (balance-args.h);
 *   - a relocated chunk's used bytes go to chunks of the target profile
 *     (the convert target, else the chunk's own profile): first the free
 *     space of such chunks that are not moving, then newly allocated ones;
 *   - a new chunk is placed as the kernel's allocator does: devices with at
 *     least 64KiB free per stripe, most free space first, as many as the
 *     profile allows (rounded down to its device increment, at least its
 *     minimum), stripe size the smallest free space among them, capped by
 *     the type's chunk size (data 10GiB, metadata 256MiB or 1GiB above
 *     50GiB, system 32MiB), by 10% of the filesystem and by 1GiB a stripe,
 *     rounded as the kernel rounds (16MiB up when capped, 64KiB down);
 *   - then the old chunk's device extents are free again.
 *
 * Device free space is counted as one amount per device (holes merged), and
 * nothing is assumed to fit in chunks that are themselves still to be
 * moved, so the plan errs on the side of refusing.
 */
#ifndef BTRFS_KIT_BALANCE_PLAN_H
#define BTRFS_KIT_BALANCE_PLAN_H

#include "balance/balance-args.h"

struct btrfs_plan_device {
	u64 devid;
	u64 total_bytes;                /* size of the device in the filesystem */
	u64 allocated;                  /* bytes in device extents (DEV_INFO bytes_used) */
};

struct btrfs_plan_layout {
	const struct btrfs_balance_chunk *chunks;
	size_t nr_chunks;
	const struct btrfs_plan_device *devs;
	size_t nr_devs;
};

enum btrfs_plan_kind { PLAN_DATA = 0, PLAN_METADATA = 1, PLAN_SYSTEM = 2, PLAN_KINDS = 3 };

enum btrfs_plan_verdict {
	PLAN_FITS = 0,
	PLAN_TOO_FEW_DEVICES,           /* the target profile needs more devices than there are */
	PLAN_NO_SPACE,                  /* a chunk could not be allocated along the way */
	PLAN_ERROR,                     /* out of memory or inconsistent input */
};

/* What moves for one kind (data, metadata, system). */
struct btrfs_plan_kind_report {
	bool involved;                  /* some chunk of this kind is selected */
	bool converting;
	u64 target;                     /* extended profile when converting */
	u64 chunks;                     /* selected chunks */
	u64 used;                       /* their used bytes (what must move) */
	u64 raw;                        /* used bytes times the target's copies */
	u64 new_chunks;                 /* chunks the plan allocates */
	u64 new_bytes;                  /* their logical size */
};

struct btrfs_balance_plan {
	enum btrfs_plan_verdict verdict;
	struct btrfs_plan_kind_report kind[PLAN_KINDS];
	u64 selected;                   /* chunks that will be relocated */
	u64 unallocated;                /* free device space now, all devices */
	/* When the verdict is not PLAN_FITS: */
	enum btrfs_plan_kind fail_kind;
	u64 fail_profile;               /* extended profile that could not be placed */
	u64 fail_chunk;                 /* logical address of the chunk being moved */
	u64 fail_done;                  /* chunks relocated before it */
	u64 fail_short;                 /* bytes of the kind still to move at that point */
	u32 devs_needed;                /* devices the profile needs (devs_min) */
	u32 devs_usable;                /* devices that had room for a stripe */
	size_t nr_devs;
	u64 *dev_free;                  /* nr_devs: free bytes per device at the failure */
	const struct btrfs_plan_device *devs;
};

/*
 * Plan the balance req on layout.  Returns 0 with plan->verdict filled
 * (PLAN_FITS or why not), or -ENOMEM.  Free with btrfs_balance_plan_release().
 */
int btrfs_balance_plan(const struct btrfs_plan_layout *layout,
		       const struct btrfs_ioctl_balance_args *req, struct btrfs_balance_plan *plan);
void btrfs_balance_plan_release(struct btrfs_balance_plan *plan);

/* The kind of a chunk type (mixed block groups count as data). */
enum btrfs_plan_kind btrfs_plan_kind_of(u64 type);
const char *btrfs_plan_kind_name(enum btrfs_plan_kind kind);

/*
 * One chunk the kernel's allocator would create for type (DATA, METADATA,
 * SYSTEM, with its profile bits) given free[] bytes per device: fills
 * stripe_size and, per device, the bytes it takes (take[], nr_devs long).
 * Returns the chunk's logical size, 0 when it cannot be placed.
 */
u64 btrfs_plan_alloc_chunk(u64 type, const u64 *free_bytes, size_t nr_devs, u64 total_rw_bytes,
			   u64 *take, u64 *stripe_size);

#endif

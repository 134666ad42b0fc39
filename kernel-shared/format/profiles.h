/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block group profiles: the one table of what each profile is.  Parsing
 * (mkfs -d/-m, balance convert=), chunk allocation, printing and balance
 * planning all read it; nothing else spells these facts out.
 *
 * A chunk of a profile has num_stripes = ndevs * dev_stripes stripes over
 * ndevs devices, ndevs between devs_min and devs_max (0: no upper bound) in
 * steps of devs_increment, as the kernel allows since 5.15 (degenerate raid0
 * on one device and raid10 on two included).  It stores
 * (num_stripes - nparity) / ncopies stripes' worth of data.
 */
#ifndef BTRFS_KIT_PROFILES_H
#define BTRFS_KIT_PROFILES_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"

/* How a profile lays its stripes out, which is all the logical->physical mapping needs. */
enum btrfs_raid_layout {
	BTRFS_RAID_MIRRORED,            /* every stripe a whole copy (single, dup, raid1*) */
	BTRFS_RAID_STRIPED,             /* stripe_len units round robin over groups of
					 * sub_stripes mirrored stripes (raid0, raid10) */
	BTRFS_RAID_PARITY,              /* data units plus nparity parity units per row,
					 * rotating one stripe per row (raid5, raid6) */
};

struct btrfs_raid_profile {
	u64 bg_flag;                    /* BTRFS_BLOCK_GROUP_* profile bit, 0 = single */
	const char *name;               /* lowercase, as on the command line: "raid1c3" */
	const char *upper;              /* as btrfs-progs prints it: "RAID1C3", "DUP", "single" */
	u8 ncopies;                     /* full copies of each byte */
	u8 nparity;                     /* parity stripes (raid5 1, raid6 2) */
	u8 dev_stripes;                 /* stripes per device (dup 2) */
	u8 devs_min;                    /* fewest devices a chunk needs */
	u8 devs_max;                    /* most devices a chunk uses, 0 = all */
	u8 devs_increment;              /* ndevs is a multiple of this */
	u8 sub_stripes;                 /* raid10 2, else 1 */
	u8 tolerated_failures;          /* devices that may be lost */
	u64 incompat;                   /* incompat feature bit the profile needs, or 0 */
	u8 layout;                      /* enum btrfs_raid_layout */
};

/*
 * The profiles with a block group bit, in bit order (the order flag names
 * print in).  One row each:
 * X(flag, name, upper, ncopies, nparity, dev_stripes, devs_min, devs_max,
 *   devs_increment, sub_stripes, tolerated_failures, incompat, layout)
 */
#define BTRFS_RAID_PROFILES_X(X) \
	X(BTRFS_BLOCK_GROUP_RAID0,   "raid0",   "RAID0",   1, 0, 1, 1, 0, 1, 1, 0, 0, BTRFS_RAID_STRIPED) \
	X(BTRFS_BLOCK_GROUP_RAID1,   "raid1",   "RAID1",   2, 0, 1, 2, 2, 2, 1, 1, 0, BTRFS_RAID_MIRRORED) \
	X(BTRFS_BLOCK_GROUP_DUP,     "dup",     "DUP",     2, 0, 2, 1, 1, 1, 1, 0, 0, BTRFS_RAID_MIRRORED) \
	X(BTRFS_BLOCK_GROUP_RAID10,  "raid10",  "RAID10",  2, 0, 1, 2, 0, 2, 2, 1, 0, BTRFS_RAID_STRIPED) \
	X(BTRFS_BLOCK_GROUP_RAID5,   "raid5",   "RAID5",   1, 1, 1, 2, 0, 1, 1, 1, \
	  BTRFS_FEATURE_INCOMPAT_RAID56, BTRFS_RAID_PARITY) \
	X(BTRFS_BLOCK_GROUP_RAID6,   "raid6",   "RAID6",   1, 2, 1, 3, 0, 1, 1, 2, \
	  BTRFS_FEATURE_INCOMPAT_RAID56, BTRFS_RAID_PARITY) \
	X(BTRFS_BLOCK_GROUP_RAID1C3, "raid1c3", "RAID1C3", 3, 0, 1, 3, 3, 3, 1, 2, \
	  BTRFS_FEATURE_INCOMPAT_RAID1C34, BTRFS_RAID_MIRRORED) \
	X(BTRFS_BLOCK_GROUP_RAID1C4, "raid1c4", "RAID1C4", 4, 0, 1, 4, 4, 4, 1, 3, \
	  BTRFS_FEATURE_INCOMPAT_RAID1C34, BTRFS_RAID_MIRRORED)

/* Every profile: single first, then BTRFS_RAID_PROFILES_X; ends with a NULL name. */
extern const struct btrfs_raid_profile btrfs_raid_profiles[];

/* The profile of exactly these profile bits (other bits ignored; none: single), or NULL. */
const struct btrfs_raid_profile *btrfs_raid_profile_find(u64 flags);
/* By name ("raid1c3", "DUP": case-insensitive), or NULL. */
const struct btrfs_raid_profile *btrfs_raid_profile_by_name(const char *name);
/*
 * Profile of a block group type or an extended profile, never NULL: no profile
 * bit is single, several bits (not a valid chunk) the lowest one.
 */
const struct btrfs_raid_profile *btrfs_raid_profile_of(u64 type);
/* Profile bits of a chunk type as an extended profile: single becomes AVAIL_ALLOC_BIT_SINGLE. */
u64 btrfs_extended_profile(u64 type);
/* Stripes' worth of data in a chunk of this profile with num_stripes stripes (>= 1). */
u32 btrfs_raid_data_stripes(const struct btrfs_raid_profile *p, u32 num_stripes);
/* The i-th profile's command line name ("single" first), NULL past the last. */
const char *btrfs_raid_profile_name_at(size_t i);
/* A chunk of this type keeps parity (raid5, raid6: layout BTRFS_RAID_PARITY). */
bool btrfs_raid_has_parity(u64 type);
/* Profile name as btrfs-progs prints it ("RAID1C3", "single"), "unknown" for several bits. */
const char *btrfs_profile_name(u64 type);

#endif

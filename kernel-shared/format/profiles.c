// SPDX-License-Identifier: GPL-2.0
/* The block group profile table (see profiles.h). */
#include <strings.h>
#include "kernel-shared/format/profiles.h"

#define PROFILE_ROW(flag, nm, up, cp, par, dst, min, max, inc, sub, tol, feat, lay) \
	{ flag, nm, up, cp, par, dst, min, max, inc, sub, tol, feat, lay },

const struct btrfs_raid_profile btrfs_raid_profiles[] = {
	PROFILE_ROW(0, "single", "single", 1, 0, 1, 1, 1, 1, 1, 0, 0, BTRFS_RAID_MIRRORED)
	BTRFS_RAID_PROFILES_X(PROFILE_ROW)
	{ 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};

const char *btrfs_raid_profile_name_at(size_t i)
{
	return i < ARRAY_SIZE(btrfs_raid_profiles) ? btrfs_raid_profiles[i].name : NULL;
}

const struct btrfs_raid_profile *btrfs_raid_profile_find(u64 flags)
{
	u64 prof = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	for (const struct btrfs_raid_profile *p = btrfs_raid_profiles; p->name; p++)
		if (p->bg_flag == prof)
			return p;
	return NULL;
}

const struct btrfs_raid_profile *btrfs_raid_profile_by_name(const char *name)
{
	for (const struct btrfs_raid_profile *p = btrfs_raid_profiles; p->name; p++)
		if (!strcasecmp(p->name, name))
			return p;
	return NULL;
}

u64 btrfs_extended_profile(u64 type)
{
	u64 prof = type & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	return prof ? prof : BTRFS_AVAIL_ALLOC_BIT_SINGLE;
}

const struct btrfs_raid_profile *btrfs_raid_profile_of(u64 type)
{
	u64 prof = type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	const struct btrfs_raid_profile *p = btrfs_raid_profile_find(prof);

	if (p)
		return p;
	/* Several profile bits at once: not a valid chunk; treat as its lowest bit. */
	return btrfs_raid_profile_find(prof & -prof);
}

u32 btrfs_raid_data_stripes(const struct btrfs_raid_profile *p, u32 num_stripes)
{
	u32 n;

	if (num_stripes <= p->nparity)
		return 1;
	n = (num_stripes - p->nparity) / p->ncopies;
	return n ? n : 1;
}

bool btrfs_raid_has_parity(u64 type)
{
	return btrfs_raid_profile_of(type)->layout == BTRFS_RAID_PARITY;
}

const char *btrfs_profile_name(u64 type)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_find(type);

	return p ? p->upper : "unknown";
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups in the records pass 3 builds (struct ext_state, check/extents.h):
 * the extent items, block groups, dev extents and lost blocks, sorted, and
 * the names and sizes derived from the chunk map.  Shared by the passes
 * after pass 3 and the repairs; they build nothing and call no pass.
 */
#include <stddef.h>
#include <stdio.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "kernel-shared/format/accessors.h"

const char *check_tree_name(u64 id, char *buf, size_t len)
{
	switch (id) {
	case BTRFS_ROOT_TREE_OBJECTID: return "root tree";
	case BTRFS_EXTENT_TREE_OBJECTID: return "extent tree";
	case BTRFS_CHUNK_TREE_OBJECTID: return "chunk tree";
	case BTRFS_DEV_TREE_OBJECTID: return "device tree";
	case BTRFS_FS_TREE_OBJECTID: return "fs tree";
	case BTRFS_CSUM_TREE_OBJECTID: return "csum tree";
	case BTRFS_QUOTA_TREE_OBJECTID: return "quota tree";
	case BTRFS_UUID_TREE_OBJECTID: return "uuid tree";
	case BTRFS_FREE_SPACE_TREE_OBJECTID: return "free space tree";
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID: return "block group tree";
	case BTRFS_RAID_STRIPE_TREE_OBJECTID: return "raid stripe tree";
	case BTRFS_TREE_LOG_OBJECTID: return "log tree";
	case BTRFS_TREE_RELOC_OBJECTID: return "reloc tree";
	case BTRFS_DATA_RELOC_TREE_OBJECTID: return "data reloc tree";
	default:
		snprintf(buf, len, "tree %lld", (long long)id);
		return buf;
	}
}

/* Bytes one device stripe of a chunk occupies. */
u64 check_chunk_dev_len(const struct btrfs_chunk_map *c)
{
	return c->length / btrfs_raid_data_stripes(btrfs_raid_profile_of(c->type), c->num_stripes);
}

/* The extent item starting at bytenr, NULL if none. */
struct check_extent *check_find_extent(struct ext_state *st, u64 bytenr)
{
	size_t lo = 0, hi = st->ext_nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->ext[mid].start < bytenr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->ext_nr && st->ext[lo].start == bytenr)
		return &st->ext[lo];
	return NULL;
}

/*
 * The lower bound of bytenr among nr ranges sorted by start (each size
 * bytes, its u64 start and len at start_at and len_at): the index of the
 * first whose end (start + len) is past bytenr, nr if none.
 */
static size_t first_ending_after(const void *ranges, size_t nr, size_t size, size_t start_at, size_t len_at,
				 u64 bytenr)
{
	const char *base = ranges;
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *r = base + mid * size;

		if (*(const u64 *)(r + start_at) + *(const u64 *)(r + len_at) <= bytenr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t check_first_extent_ending_after(const struct ext_state *st, u64 bytenr)
{
	return first_ending_after(st->ext, st->ext_nr, sizeof(*st->ext), offsetof(struct check_extent, start),
				  offsetof(struct check_extent, len), bytenr);
}

/* The block group containing bytenr, NULL if none. */
struct check_bg *check_find_bg(struct ext_state *st, u64 bytenr)
{
	size_t lo = first_ending_after(st->bg, st->bg_nr, sizeof(*st->bg), offsetof(struct check_bg, start),
				       offsetof(struct check_bg, len), bytenr);

	if (lo < st->bg_nr && st->bg[lo].start <= bytenr && bytenr < st->bg[lo].start + st->bg[lo].len)
		return &st->bg[lo];
	return NULL;
}

int check_cmp_devext(const void *a, const void *b)
{
	const struct check_devext *x = a, *y = b;

	if (x->devid != y->devid)
		return x->devid < y->devid ? -1 : 1;
	return x->physical < y->physical ? -1 : x->physical > y->physical;
}

const struct btrfs_chunk_map *check_chunk_at_place(const struct btrfs_chunk_tree_map *map, u64 devid,
						   u64 physical)
{
	const struct btrfs_chunk_map *at = NULL;
	int n = 0;

	for (size_t j = 0; j < map->nr; j++)
		for (u16 i = 0; i < map->chunks[j]->num_stripes; i++)
			if (map->chunks[j]->stripes[i].devid == devid &&
			    map->chunks[j]->stripes[i].physical == physical && !n++)
				at = map->chunks[j];
	return n == 1 ? at : NULL;
}

const struct check_devext *check_find_dev_extent(const struct ext_state *st, u64 devid, u64 physical)
{
	struct check_devext key = { .devid = devid, .physical = physical };

	return check_bsearch(&key, st->dext, st->dext_nr, sizeof(key), check_cmp_devext);
}

int check_cmp_lost(const void *a, const void *b)
{
	return check_cmp_u64(&((const struct check_lost *)a)->bytenr, &((const struct check_lost *)b)->bytenr);
}

struct check_lost *check_find_lost(const struct ext_state *st, u64 bytenr)
{
	struct check_lost key = { .bytenr = bytenr };

	return check_bsearch(&key, st->lost, st->lost_nr, sizeof(key), check_cmp_lost);
}

bool check_lost_block_full_backref(const struct ext_state *st, u64 bytenr, bool *full_backref)
{
	const struct check_lost *l = check_find_lost(st, bytenr);

	if (l)
		*full_backref = l->full_backref;
	return l != NULL;
}

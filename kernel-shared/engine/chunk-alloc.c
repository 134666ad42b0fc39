// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk placement and block allocation for a filesystem built in memory.
 * See chunk-alloc.h for the rules.
 */
#include <stdlib.h>
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/growable-array.h"

int chunk_alloc_init(struct chunk_alloc *ca, int ndevs, const u64 *sizes, u32 sectorsize)
{
	memset(ca, 0, sizeof(*ca));
	if (ndevs < 1 || ndevs > CHUNK_ALLOC_MAX_DEVICES) {
		error("cannot build a filesystem of %d devices (at most %d)", ndevs, CHUNK_ALLOC_MAX_DEVICES);
		return -EINVAL;
	}
	ca->ndevs = ndevs;
	ca->sectorsize = sectorsize;
	ca->next_logical = BTRFS_DEVICE_RANGE_RESERVED;
	for (int i = 0; i < ndevs; i++) {
		ca->devs[i].devid = i + 1;
		ca->devs[i].total_bytes = sizes[i];
		ca->total_bytes += sizes[i];
		/* The list starts with the last device: devices join at its head. */
		ca->order[i] = ndevs - 1 - i;
	}
	return 0;
}

void chunk_alloc_release(struct chunk_alloc *ca)
{
	for (int i = 0; i < ca->ndevs; i++)
		free(ca->devs[i].ext);
	for (int i = 0; i < ca->nr_chunks; i++)
		free(ca->chunks[i]);
	free(ca->chunks);
	memset(ca, 0, sizeof(*ca));
}

struct chunk_alloc_device *chunk_alloc_find_device(struct chunk_alloc *ca, u64 devid)
{
	if (devid < 1 || devid > (u64)ca->ndevs)
		return NULL;
	return &ca->devs[devid - 1];
}

/* First hole of len bytes at or after 1 MiB; 0 with *start, or -ENOSPC. */
static int find_hole(const struct chunk_alloc_device *dev, u64 len, u64 *start)
{
	u64 pos = BTRFS_DEVICE_RANGE_RESERVED;

	for (int i = 0; i < dev->nr_ext; i++) {
		if (dev->ext[i].start >= pos + len)
			break;
		if (dev->ext[i].start + dev->ext[i].len > pos)
			pos = dev->ext[i].start + dev->ext[i].len;
	}
	if (pos + len > dev->total_bytes)
		return -ENOSPC;
	*start = pos;
	return 0;
}

int chunk_alloc_add_dev_extent(struct chunk_alloc_device *dev, u64 start, u64 len)
{
	int i;

	if (ARRAY_GROW(dev->ext, dev->nr_ext, dev->alloc_ext))
		return -ENOMEM;
	for (i = dev->nr_ext; i > 0 && dev->ext[i - 1].start > start; i--)
		dev->ext[i] = dev->ext[i - 1];
	dev->ext[i].start = start;
	dev->ext[i].len = len;
	dev->nr_ext++;
	dev->bytes_used += len;
	return 0;
}

static void del_dev_extent(struct chunk_alloc_device *dev, u64 start)
{
	for (int i = 0; i < dev->nr_ext; i++) {
		if (dev->ext[i].start != start)
			continue;
		dev->bytes_used -= dev->ext[i].len;
		memmove(&dev->ext[i], &dev->ext[i + 1], (dev->nr_ext - i - 1) * sizeof(dev->ext[0]));
		dev->nr_ext--;
		return;
	}
}

/* The chunk's superblock ranges (btrfs_chunk_super_ranges()) through a chunk map of it. */
static int compute_excluded(struct chunk_placement *c)
{
	struct btrfs_chunk_map *map = calloc(1, sizeof(*map) + c->num_stripes * sizeof(map->stripes[0]));
	struct btrfs_range *r = NULL;
	int n;

	if (!map)
		return -ENOMEM;
	map->logical = c->logical;
	map->length = c->length;
	map->type = c->type;
	map->stripe_len = BTRFS_STRIPE_LEN;
	map->num_stripes = (u16)c->num_stripes;
	map->sub_stripes = (u16)c->sub_stripes;
	for (int i = 0; i < c->num_stripes; i++) {
		map->stripes[i].devid = c->stripes[i].devid;
		map->stripes[i].physical = c->stripes[i].physical;
	}
	n = btrfs_chunk_super_ranges(map, &r);
	free(map);
	if (n < 0)
		return n;
	if ((size_t)n > ARRAY_SIZE(c->excl)) {
		free(r);
		return -EOVERFLOW;
	}
	if (n)
		memcpy(c->excl, r, (size_t)n * sizeof(*r));
	c->nr_excl = n;
	free(r);
	return 0;
}

static struct chunk_placement *new_chunk(struct chunk_alloc *ca, int num_stripes)
{
	struct chunk_placement *c;

	if (ARRAY_GROW(ca->chunks, ca->nr_chunks, ca->alloc_chunks))
		return NULL;
	c = calloc(1, sizeof(*c) + num_stripes * sizeof(c->stripes[0]));
	if (!c)
		return NULL;
	ca->chunks[ca->nr_chunks++] = c;
	return c;
}

/* Move device index idx to the front of the rotating list. */
static void move_to_front(struct chunk_alloc *ca, int idx)
{
	int pos = 0;

	while (pos < ca->ndevs && ca->order[pos] != idx)
		pos++;
	for (; pos > 0; pos--)
		ca->order[pos] = ca->order[pos - 1];
	ca->order[0] = idx;
}

static const char *type_name(u64 type)
{
	if ((type & BTRFS_BLOCK_GROUP_DATA) && (type & BTRFS_BLOCK_GROUP_METADATA))
		return "data+metadata";
	if (type & BTRFS_BLOCK_GROUP_DATA)
		return "data";
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return "system";
	return "metadata";
}

static int place_chunk(struct chunk_alloc *ca, struct chunk_placement *c, const int *devs)
{
	for (int i = 0; i < c->num_stripes; i++) {
		struct chunk_alloc_device *d = &ca->devs[devs[i]];
		u64 start;
		int ret;

		ret = find_hole(d, c->stripe_size, &start);
		if (ret < 0)
			return ret;
		ret = chunk_alloc_add_dev_extent(d, start, c->stripe_size);
		if (ret < 0)
			return ret;
		c->stripes[i].devid = d->devid;
		c->stripes[i].physical = start;
	}
	c->logical = ca->next_logical;
	c->cursor = c->logical;
	ca->next_logical += c->length;
	return compute_excluded(c);
}

struct chunk_placement *chunk_alloc_new_chunk_on_device(struct chunk_alloc *ca, u64 type, u64 devid, u64 size)
{
	struct chunk_placement *c;
	int idx = (int)devid - 1;
	int ret;

	if (idx < 0 || idx >= ca->ndevs)
		return ERR_PTR(-EINVAL);
	c = new_chunk(ca, 1);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->type = type & ~BTRFS_BLOCK_GROUP_PROFILE_MASK;
	c->length = size;
	c->stripe_size = size;
	c->num_stripes = 1;
	c->sub_stripes = 1;
	ret = place_chunk(ca, c, &idx);
	if (ret < 0) {
		error("device %llu has no room for a %s chunk of %llu bytes",
		      (unsigned long long)devid, type_name(type), (unsigned long long)size);
		ca->nr_chunks--;
		free(c);
		return ERR_PTR(ret);
	}
	return c;
}

struct chunk_placement *chunk_alloc_new_chunk(struct chunk_alloc *ca, u64 type)
{
	const struct btrfs_raid_profile *a = btrfs_raid_profile_find(type);
	u64 base_calc, calc, max_chunk, min_stripe, min_free;
	int num_stripes, ndevs_needed, found, sub;
	int picked[CHUNK_ALLOC_MAX_DEVICES], stripes_dev[CHUNK_ALLOC_MAX_DEVICES * 2];
	struct chunk_placement *c;
	int ret;

	if (!a)
		return ERR_PTR(-EINVAL);
	if (type & BTRFS_BLOCK_GROUP_SYSTEM) {
		calc = SZ_8M;
		max_chunk = 2 * calc;
		min_stripe = SZ_1M;
	} else if (type & BTRFS_BLOCK_GROUP_DATA) {
		calc = SZ_1G;
		max_chunk = 10 * calc;
		min_stripe = SZ_64M;
	} else {
		calc = ca->total_bytes > 50 * SZ_1G ? SZ_1G : SZ_256M;
		max_chunk = calc;
		min_stripe = SZ_32M;
	}
	max_chunk = min_t(u64, max_chunk, ca->total_bytes / 10);
	base_calc = calc;

	if (ca->ndevs < a->devs_min) {
		error("a %s chunk with profile %s needs %d devices, have %d", type_name(type),
		      a->upper, a->devs_min, ca->ndevs);
		return ERR_PTR(-EINVAL);
	}
	num_stripes = a->devs_max ? a->devs_max : ca->ndevs;
	if (a->dev_stripes == 2)
		num_stripes = 2;
	sub = a->sub_stripes;
	if (sub > 1)
		num_stripes &= ~(sub - 1);

again:
	calc = base_calc;
	if (calc * btrfs_raid_data_stripes(a, num_stripes) > max_chunk)
		calc = round_down(max_chunk / num_stripes, BTRFS_STRIPE_LEN);
	calc = max_t(u64, calc, min_stripe);
	calc = round_down(calc, BTRFS_STRIPE_LEN);

	ndevs_needed = num_stripes / a->dev_stripes;
	min_free = calc * a->dev_stripes;
	found = 0;
	for (int i = 0; i < ca->ndevs && found < ndevs_needed; i++) {
		struct chunk_alloc_device *d = &ca->devs[ca->order[i]];
		u64 start;

		if (find_hole(d, min_free, &start) < 0)
			continue;
		/* Later finds go before earlier ones (a list built at its head). */
		memmove(&picked[1], &picked[0], found * sizeof(picked[0]));
		picked[0] = ca->order[i];
		found++;
	}
	if (found < ndevs_needed) {
		/* Striped profiles make do with the devices that have room. */
		if (!a->devs_max && a->dev_stripes == 1 && found >= a->devs_min &&
		    (sub > 1 ? (found & ~(sub - 1)) : found) < num_stripes) {
			num_stripes = sub > 1 ? found & ~(sub - 1) : found;
			goto again;
		}
		error("not enough free space for a %s chunk with profile %s: %d of %d devices have %llu bytes free",
		      type_name(type), a->upper, found, ndevs_needed, (unsigned long long)min_free);
		return ERR_PTR(-ENOSPC);
	}

	c = new_chunk(ca, num_stripes);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->type = type;
	c->num_stripes = num_stripes;
	c->sub_stripes = sub;
	c->stripe_size = calc;
	c->length = calc * btrfs_raid_data_stripes(a, num_stripes);
	for (int i = 0; i < num_stripes; i++)
		stripes_dev[i] = picked[i / a->dev_stripes];
	ret = place_chunk(ca, c, stripes_dev);
	if (ret < 0) {
		error("cannot place a %s chunk of %llu bytes", type_name(type),
		      (unsigned long long)c->length);
		return ERR_PTR(ret);
	}
	for (int i = 0; i < ndevs_needed; i++)
		move_to_front(ca, picked[i]);
	return c;
}

void chunk_alloc_remove_chunk(struct chunk_alloc *ca, struct chunk_placement *chunk)
{
	for (int i = 0; i < chunk->num_stripes; i++) {
		struct chunk_alloc_device *d = chunk_alloc_find_device(ca, chunk->stripes[i].devid);

		if (d)
			del_dev_extent(d, chunk->stripes[i].physical);
	}
	chunk->removed = true;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct chunk_placement *x = *(struct chunk_placement *const *)a, *y = *(struct chunk_placement *const *)b;

	return x->logical < y->logical ? -1 : x->logical > y->logical;
}

int chunk_alloc_sorted_chunks(const struct chunk_alloc *ca, struct chunk_placement **out)
{
	int n = 0;

	for (int i = 0; i < ca->nr_chunks; i++)
		if (!ca->chunks[i]->removed)
			out[n++] = ca->chunks[i];
	qsort(out, n, sizeof(*out), cmp_chunk);
	return n;
}

void chunk_alloc_fill_chunk_item(const struct chunk_placement *c, u32 sectorsize, struct btrfs_chunk *ch)
{
	btrfs_chunk_item_init(ch, c->length, c->type, sectorsize, (u16)c->num_stripes, (u16)c->sub_stripes);
	for (int s = 0; s < c->num_stripes; s++) {
		btrfs_set_stripe_devid(btrfs_chunk_stripe(ch, s), c->stripes[s].devid);
		btrfs_set_stripe_offset(btrfs_chunk_stripe(ch, s), c->stripes[s].physical);
	}
}

u64 chunk_placement_dev_bytes(const struct chunk_placement *chunk)
{
	return chunk->stripe_size * chunk->num_stripes;
}

static bool overlaps_excluded(const struct chunk_placement *c, u64 start, u64 len, u64 *skip_to)
{
	for (int i = 0; i < c->nr_excl; i++) {
		if (start < c->excl[i].start + c->excl[i].len && c->excl[i].start < start + len) {
			*skip_to = c->excl[i].start + c->excl[i].len;
			return true;
		}
	}
	return false;
}

int chunk_alloc_bytes(struct chunk_alloc *ca, u64 type, u64 len, u64 align, u64 *logical)
{
	struct chunk_placement **sorted = malloc((ca->nr_chunks + 1) * sizeof(*sorted));
	int n;

	if (!sorted)
		return -ENOMEM;
	n = chunk_alloc_sorted_chunks(ca, sorted);

	for (int i = 0; i < n; i++) {
		struct chunk_placement *c = sorted[i];
		u64 pos, skip;

		if ((c->type & type) != type)
			continue;
		if (!(type & BTRFS_BLOCK_GROUP_DATA) && (c->type & BTRFS_BLOCK_GROUP_DATA) &&
		    !(c->type & BTRFS_BLOCK_GROUP_METADATA))
			continue;
		pos = round_up(c->cursor, align);
		while (pos + len <= c->logical + c->length) {
			if (!overlaps_excluded(c, pos, len, &skip)) {
				c->cursor = pos + len;
				c->used += len;
				*logical = pos;
				free(sorted);
				return 0;
			}
			pos = round_up(skip, align);
		}
	}
	free(sorted);
	return -ENOSPC;
}

/* ---- the kernel's placement (new chunks on an existing filesystem) ---- */

struct dev_choice {
	int idx;                      /* into ca->devs */
	u64 start;                    /* where the dev extents go */
	u64 max_avail;                /* room there, at most what was wanted */
	u64 total_avail;              /* unallocated bytes on the device */
};

/*
 * The first hole of at least want bytes at or after 1 MiB (0), else the
 * largest one (-ENOSPC); *start and *size describe the hole chosen.
 */
static int first_or_largest_hole(const struct chunk_alloc_device *dev, u64 want, u64 *start, u64 *size)
{
	u64 pos = BTRFS_DEVICE_RANGE_RESERVED, best = 0, best_start = pos;

	for (int i = 0; i <= dev->nr_ext; i++) {
		u64 end = i < dev->nr_ext ? dev->ext[i].start : dev->total_bytes;

		if (end > dev->total_bytes)
			end = dev->total_bytes;
		if (end > pos) {
			if (end - pos >= want) {
				*start = pos;
				*size = want;
				return 0;
			}
			if (end - pos > best) {
				best = end - pos;
				best_start = pos;
			}
		}
		if (i < dev->nr_ext && dev->ext[i].start + dev->ext[i].len > pos)
			pos = dev->ext[i].start + dev->ext[i].len;
	}
	*start = best_start;
	*size = best;
	return -ENOSPC;
}

static int cmp_choice(const void *a, const void *b)
{
	const struct dev_choice *x = a, *y = b;

	if (x->max_avail != y->max_avail)
		return x->max_avail > y->max_avail ? -1 : 1;
	if (x->total_avail != y->total_avail)
		return x->total_avail > y->total_avail ? -1 : 1;
	/* the kernel's heap sort is not stable: on a tie its pick may differ */
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct chunk_placement *chunk_alloc_new_chunk_kernel(struct chunk_alloc *ca, u64 type)
{
	const struct btrfs_raid_profile *a = btrfs_raid_profile_find(type);
	struct dev_choice devs[CHUNK_ALLOC_MAX_DEVICES];
	u64 max_chunk, max_stripe, want, min_extent, stripe;
	int ndevs = 0, devs_max, inc, num_stripes, ndata, ret;
	struct chunk_placement *c;

	if (!a)
		return ERR_PTR(-EINVAL);
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		max_chunk = SZ_32M;
	else if (type & BTRFS_BLOCK_GROUP_DATA)
		max_chunk = 10 * SZ_1G;
	else
		max_chunk = ca->total_bytes > 50 * SZ_1G ? SZ_1G : SZ_256M;
	max_stripe = min_t(u64, max_chunk, SZ_1G);
	max_chunk = min_t(u64, max_chunk, ca->total_bytes / 10);
	min_extent = BTRFS_STRIPE_LEN * (u64)a->dev_stripes;
	want = max_stripe * (u64)a->dev_stripes;

	for (int i = 0; i < ca->ndevs; i++) {
		const struct chunk_alloc_device *d = &ca->devs[i];
		struct dev_choice *dc = &devs[ndevs];

		if (d->total_bytes <= d->bytes_used || d->total_bytes - d->bytes_used < min_extent)
			continue;
		first_or_largest_hole(d, want, &dc->start, &dc->max_avail);
		if (dc->max_avail < min_extent)
			continue;
		dc->idx = i;
		dc->total_avail = d->total_bytes - d->bytes_used;
		ndevs++;
	}
	qsort(devs, (size_t)ndevs, sizeof(devs[0]), cmp_choice);
	devs_max = a->devs_max ? a->devs_max : ca->ndevs;
	inc = a->sub_stripes > 1 ? a->sub_stripes : 1;
	ndevs = min_t(int, ndevs, devs_max);
	ndevs -= ndevs % inc;
	if (ndevs < a->devs_min || ndevs < 1) {
		error("no room for a new %s chunk with profile %s: %d device(s) with %llu bytes free, %d needed",
		      type_name(type), a->upper, ndevs, (unsigned long long)min_extent, a->devs_min);
		return ERR_PTR(-ENOSPC);
	}

	/* The device with the least room sets the stripe size. */
	stripe = devs[ndevs - 1].max_avail / (u64)a->dev_stripes;
	num_stripes = ndevs * a->dev_stripes;
	ndata = (num_stripes - a->nparity) / a->ncopies;
	if (ndata < 1)
		ndata = 1;
	if (stripe * (u64)ndata > max_chunk)
		stripe = min_t(u64, round_up(max_chunk / (u64)ndata, SZ_16M), stripe);
	stripe = min_t(u64, stripe, SZ_1G);
	stripe = round_down(stripe, BTRFS_STRIPE_LEN);

	c = new_chunk(ca, num_stripes);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->type = type;
	c->num_stripes = num_stripes;
	c->sub_stripes = a->sub_stripes;
	c->stripe_size = stripe;
	c->length = stripe * (u64)ndata;
	for (int i = 0; i < ndevs; i++) {
		struct chunk_alloc_device *d = &ca->devs[devs[i].idx];

		for (int j = 0; j < a->dev_stripes; j++) {
			struct chunk_alloc_stripe *s = &c->stripes[i * a->dev_stripes + j];

			s->devid = d->devid;
			s->physical = devs[i].start + (u64)j * stripe;
			ret = chunk_alloc_add_dev_extent(d, s->physical, stripe);
			if (ret < 0)
				return ERR_PTR(ret);
		}
	}
	c->logical = ca->next_logical;
	c->cursor = c->logical;
	ca->next_logical += c->length;
	ret = compute_excluded(c);
	if (ret < 0)
		return ERR_PTR(ret);
	return c;
}

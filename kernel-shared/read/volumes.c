// SPDX-License-Identifier: GPL-2.0
/*
 * Devices and chunk mapping; see volumes.h for the layout of each profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <blkid.h>
#include <uuid.h>
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/growable-array.h"

/* ---- devices ---- */

struct btrfs_device *btrfs_find_device(struct btrfs_device_list *list, u64 devid, const u8 *uuid)
{
	int i;

	for (i = 0; i < list->nr; i++) {
		struct btrfs_device *d = &list->devs[i];

		if (d->devid != devid)
			continue;
		if (uuid && memcmp(d->uuid, uuid, BTRFS_UUID_SIZE))
			continue;
		return d;
	}
	return NULL;
}

struct btrfs_device *btrfs_add_device(struct btrfs_device_list *list, u64 devid, const u8 *uuid)
{
	struct btrfs_device *d;

	if (ARRAY_GROW(list->devs, list->nr, list->alloc))
		return NULL;
	d = &list->devs[list->nr++];
	memset(d, 0, sizeof(*d));
	d->devid = devid;
	if (uuid)
		memcpy(d->uuid, uuid, BTRFS_UUID_SIZE);
	d->fd = -1;
	d->missing = true;
	return d;
}

int btrfs_forget_unused_missing(struct btrfs_device_list *list, const struct btrfs_chunk_tree_map *map)
{
	int kept = 0, nr = list->nr;

	for (int i = 0; i < list->nr; i++) {
		bool used = !list->devs[i].missing;

		for (size_t c = 0; !used && c < map->nr; c++)
			for (int s = 0; s < map->chunks[c]->num_stripes; s++)
				used |= map->chunks[c]->stripes[s].devid == list->devs[i].devid;
		if (used)
			list->devs[kept++] = list->devs[i];
		else
			free(list->devs[i].path);
	}
	list->nr = kept;
	return nr - kept;
}

void btrfs_free_devices(struct btrfs_device_list *list)
{
	int i;

	for (i = 0; i < list->nr; i++) {
		if (list->devs[i].fd >= 0)
			close(list->devs[i].fd);
		free(list->devs[i].path);
	}
	free(list->devs);
	memset(list, 0, sizeof(*list));
}

/* Size of a regular file or block device (lseek works for both). */
u64 btrfs_device_fd_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	return end < 0 ? 0 : (u64)end;
}

/*
 * Read the primary superblock of path and add it to the list: with fsid,
 * when it belongs to fsid and names a device the list does not hold yet (or
 * holds as missing); with fsid NULL, only in place of a missing device of
 * the same devid and uuid (a seed device, whose fsid is its own).
 */
static int open_member(struct btrfs_device_list *list, const u8 *fsid, const char *path)
{
	struct btrfs_super_block *sb;
	struct btrfs_device *dev;
	const struct btrfs_dev_item *di;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	sb = malloc(BTRFS_SUPER_INFO_SIZE);
	if (!sb) {
		close(fd);
		return -ENOMEM;
	}
	if (btrfs_read_super(fd, 0, BTRFS_SUPER_READ_QUIET, sb, NULL) < 0 ||
	    (fsid && memcmp(sb->fsid, fsid, BTRFS_FSID_SIZE)))
		goto out;
	di = &sb->dev_item;
	dev = btrfs_find_device(list, btrfs_device_id(di), NULL);
	if (dev && (!dev->missing || memcmp(dev->uuid, di->uuid, BTRFS_UUID_SIZE)))
		goto out;
	if (!dev && !fsid)
		goto out;
	if (!dev) {
		dev = btrfs_add_device(list, btrfs_device_id(di), di->uuid);
		if (!dev) {
			ret = -ENOMEM;
			goto out;
		}
	}
	dev->path = strdup(path);
	if (!dev->path) {
		ret = -ENOMEM;
		goto out;
	}
	dev->fd = fd;
	fd = -1;
	memcpy(dev->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE);
	dev->size = btrfs_device_fd_size(dev->fd);
	dev->total_bytes = btrfs_device_total_bytes(di);
	dev->missing = false;
	ret = 1;
out:
	if (fd >= 0)
		close(fd);
	free(sb);
	return ret;
}

int btrfs_attach_seed_device(struct btrfs_device_list *list, const char *path)
{
	return open_member(list, NULL, path);
}

int btrfs_scan_devices(struct btrfs_device_list *list, const u8 *fsid)
{
	blkid_cache cache = NULL;
	blkid_dev_iterate iter;
	blkid_dev bdev;
	char uuid_str[37];
	int added = 0, ret;

	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return -ENOMEM;
	if (blkid_probe_all(cache) < 0) {
		blkid_put_cache(cache);
		return 0;
	}
	uuid_unparse(fsid, uuid_str);
	iter = blkid_dev_iterate_begin(cache);
	if (!iter) {
		blkid_put_cache(cache);
		return -ENOMEM;
	}
	blkid_dev_set_search(iter, "UUID", uuid_str);
	while (blkid_dev_next(iter, &bdev) == 0) {
		bdev = blkid_verify(cache, bdev);
		if (!bdev)
			continue;
		if (!blkid_dev_has_tag(bdev, "TYPE", "btrfs"))
			continue;
		ret = open_member(list, fsid, blkid_dev_devname(bdev));
		if (ret < 0) {
			added = ret;
			break;
		}
		added += ret;
	}
	blkid_dev_iterate_end(iter);
	blkid_put_cache(cache);
	return added;
}

/* ---- chunk map ---- */

void btrfs_chunk_tree_map_free(struct btrfs_chunk_tree_map *map)
{
	size_t i;

	for (i = 0; i < map->nr; i++)
		free(map->chunks[i]);
	free(map->chunks);
	memset(map, 0, sizeof(*map));
}

/*
 * The mapping reads the profile table: btrfs_chunk_check() lets a chunk have
 * at most one profile bit and raid10's sub_stripes equal the table's.
 */
int btrfs_chunk_num_mirrors(const struct btrfs_chunk_map *c)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(c->type);

	switch (p->layout) {
	case BTRFS_RAID_MIRRORED:
		return p->ncopies > 1 ? c->num_stripes : 1;
	case BTRFS_RAID_STRIPED:
		return p->sub_stripes;
	default:
		/*
		 * raid5: direct or rebuilt from P; raid6: direct, from P, from
		 * Q, then from P+Q with each other data unit lost.
		 */
		return p->nparity > 1 ? c->num_stripes : 2;
	}
}

int btrfs_chunk_data_stripes(const struct btrfs_chunk_map *c)
{
	return btrfs_raid_data_stripes(btrfs_raid_profile_of(c->type), c->num_stripes);
}

static void set_io(const struct btrfs_chunk_map *c, int index, u64 dev_offset, u64 len,
		   struct btrfs_io_stripe *out)
{
	out->stripe_index = index;
	out->devid = c->stripes[index].devid;
	out->physical = c->stripes[index].physical + dev_offset;
	out->len = len;
}

int btrfs_chunk_map_one(const struct btrfs_chunk_map *c, u64 logical, int mirror,
			struct btrfs_io_stripe *out)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(c->type);
	u64 offset, stripe_nr, stripe_off, rows, unit_left;
	int idx, groups, nr_data;

	if (logical < c->logical || logical - c->logical >= c->length)
		return -EINVAL;
	if (mirror < 1 || mirror > btrfs_chunk_num_mirrors(c))
		return -EINVAL;
	offset = logical - c->logical;
	stripe_nr = offset / c->stripe_len;
	stripe_off = offset % c->stripe_len;
	unit_left = c->stripe_len - stripe_off;

	switch (p->layout) {
	case BTRFS_RAID_MIRRORED:
		set_io(c, mirror - 1, offset, c->length - offset, out);
		return 0;
	case BTRFS_RAID_STRIPED:
		groups = c->num_stripes / p->sub_stripes;
		idx = (stripe_nr % groups) * p->sub_stripes + (mirror - 1);
		rows = stripe_nr / groups;
		break;
	default:
		nr_data = c->num_stripes - p->nparity;
		rows = stripe_nr / nr_data;
		idx = (stripe_nr % nr_data + rows) % c->num_stripes;
		break;
	}
	set_io(c, idx, rows * c->stripe_len + stripe_off, unit_left, out);
	return 0;
}

int btrfs_chunk_map_parity(const struct btrfs_chunk_map *c, u64 logical,
			   struct btrfs_io_stripe *out, int max)
{
	u64 offset, stripe_nr, stripe_off, rows;
	int nparity = btrfs_raid_profile_of(c->type)->nparity;
	int nr_data, i;

	if (!nparity || logical < c->logical || logical - c->logical >= c->length)
		return -EINVAL;
	if (max < c->num_stripes)
		return -EINVAL;
	nr_data = c->num_stripes - nparity;
	offset = logical - c->logical;
	stripe_nr = offset / c->stripe_len;
	stripe_off = offset % c->stripe_len;
	rows = stripe_nr / nr_data;
	for (i = 0; i < c->num_stripes; i++)
		set_io(c, (i + rows) % c->num_stripes, rows * c->stripe_len + stripe_off,
		       c->stripe_len - stripe_off, &out[i]);
	return c->num_stripes;
}

static int cmp_range_start(const void *a, const void *b)
{
	const struct btrfs_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int btrfs_chunk_super_ranges(const struct btrfs_chunk_map *c, struct btrfs_range **out)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(c->type);
	u64 ndata = (u64)btrfs_chunk_data_stripes(c), end = c->logical + c->length;
	u64 dev_len = c->length / ndata;
	u64 unit = p->layout == BTRFS_RAID_PARITY ? ndata * BTRFS_STRIPE_LEN : BTRFS_STRIPE_LEN;
	struct btrfs_range *r;
	int n = 0, kept = 0;

	*out = NULL;
	r = calloc((size_t)BTRFS_SUPER_MIRROR_MAX * c->num_stripes + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (c->logical < BTRFS_SUPER_INFO_OFFSET) {
		r[n].start = c->logical;
		r[n++].len = min_t(u64, BTRFS_SUPER_INFO_OFFSET, end) - c->logical;
	}
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 sb = btrfs_sb_offset(m);

		for (int i = 0; i < c->num_stripes; i++) {
			u64 phys = c->stripes[i].physical, row, logical;

			if (sb < phys || sb - phys >= dev_len)
				continue;
			row = (sb - phys) / BTRFS_STRIPE_LEN;
			/* which unit of the chunk's data row `row` stripe i holds */
			if (p->layout == BTRFS_RAID_STRIPED)
				row = (row * c->num_stripes + i) / p->sub_stripes;
			logical = c->logical + row * unit;
			if (logical >= end)
				continue;
			r[n].start = logical;
			r[n++].len = min_t(u64, unit, end - logical);
		}
	}
	qsort(r, (size_t)n, sizeof(*r), cmp_range_start);
	for (int i = 0; i < n; i++) {
		struct btrfs_range *last = kept ? &r[kept - 1] : NULL;

		if (last && r[i].start <= last->start + last->len) {
			last->len = max_t(u64, last->len, r[i].start + r[i].len - last->start);
			continue;
		}
		r[kept++] = r[i];
	}
	if (!kept) {
		free(r);
		r = NULL;
	}
	*out = r;
	return kept;
}

const struct btrfs_chunk_map *btrfs_chunk_lookup(const struct btrfs_chunk_tree_map *map,
						 u64 logical)
{
	size_t lo = 0, hi = map->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct btrfs_chunk_map *c = map->chunks[mid];

		if (logical < c->logical)
			hi = mid;
		else if (logical - c->logical >= c->length)
			lo = mid + 1;
		else
			return c;
	}
	return NULL;
}

static bool single_bit(u64 v)
{
	return v && !(v & (v - 1));
}

static __printf(3, 4) int chunk_err(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -EUCLEAN;
}

int btrfs_check_chunk(u64 logical, const struct btrfs_chunk *chunk, u32 item_size, u32 sectorsize,
		      u64 incompat_flags, char *msg, size_t msglen)
{
	const struct btrfs_raid_profile *p;
	u64 length, type, stripe_len, prof;
	u16 num_stripes, sub_stripes;

	if (item_size < sizeof(struct btrfs_chunk))
		return chunk_err(msg, msglen, "invalid chunk item size, have %u expect at least %zu",
				 item_size, sizeof(struct btrfs_chunk));
	num_stripes = btrfs_chunk_num_stripes(chunk);
	sub_stripes = btrfs_chunk_sub_stripes(chunk);
	if (num_stripes == 0)
		return chunk_err(msg, msglen, "invalid chunk num_stripes, have 0");
	if (item_size != btrfs_chunk_item_size(num_stripes))
		return chunk_err(msg, msglen, "invalid chunk item size, have %u expect %lu",
				 item_size, btrfs_chunk_item_size(num_stripes));
	length = btrfs_chunk_length(chunk);
	type = btrfs_chunk_type(chunk);
	stripe_len = btrfs_chunk_stripe_len(chunk);
	prof = type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	if (!sectorsize || !IS_ALIGNED(logical, sectorsize))
		return chunk_err(msg, msglen, "invalid chunk logical, have %llu should be aligned to %u",
				 logical, sectorsize);
	if (btrfs_chunk_sector_size(chunk) != sectorsize)
		return chunk_err(msg, msglen, "invalid chunk sectorsize, have %u expect %u",
				 btrfs_chunk_sector_size(chunk), sectorsize);
	if (!length || !IS_ALIGNED(length, sectorsize))
		return chunk_err(msg, msglen, "invalid chunk length, have %llu", length);
	if (length >= BTRFS_MAX_CHUNK_LENGTH)
		return chunk_err(msg, msglen, "chunk length too large: have %llu limit %llu",
				 length, BTRFS_MAX_CHUNK_LENGTH);
	if (logical + length < logical)
		return chunk_err(msg, msglen, "invalid chunk logical start and length, have %llu+%llu",
				 logical, length);
	if (stripe_len != BTRFS_STRIPE_LEN)
		return chunk_err(msg, msglen, "invalid chunk stripe length, have %llu expect %llu",
				 stripe_len, BTRFS_STRIPE_LEN);
	if (type & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK))
		return chunk_err(msg, msglen, "unrecognized chunk type 0x%llx", type);
	if (prof && !single_bit(prof))
		return chunk_err(msg, msglen, "invalid chunk profile flag 0x%llx, expect 0 or 1 bit set",
				 prof);
	if (!(type & BTRFS_BLOCK_GROUP_TYPE_MASK))
		return chunk_err(msg, msglen, "missing chunk type flag, have 0x%llx one bit must be set in 0x%llx",
				 type, BTRFS_BLOCK_GROUP_TYPE_MASK);
	if ((type & BTRFS_BLOCK_GROUP_SYSTEM) &&
	    (type & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DATA)))
		return chunk_err(msg, msglen, "system chunk with data or metadata type 0x%llx", type);
	if (!(incompat_flags & BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS) &&
	    (type & BTRFS_BLOCK_GROUP_METADATA) && (type & BTRFS_BLOCK_GROUP_DATA))
		return chunk_err(msg, msglen, "mixed chunk type in non-mixed mode 0x%llx", type);
	/*
	 * prof has at most one bit here.  raid10: whole sub stripe groups;
	 * single and dup (one device): exactly their stripes; others: at least
	 * their fewest devices.
	 */
	p = btrfs_raid_profile_find(prof);
	if ((p->sub_stripes > 1 && (sub_stripes != p->sub_stripes || num_stripes % p->sub_stripes)) ||
	    (p->sub_stripes == 1 && p->devs_max == 1 && num_stripes != p->dev_stripes) ||
	    (p->sub_stripes == 1 && num_stripes < p->devs_min))
		return chunk_err(msg, msglen, "invalid num_stripes:sub_stripes %u:%u for profile %s",
				 num_stripes, sub_stripes, btrfs_profile_name(type));
	return 0;
}

int btrfs_add_chunk(struct btrfs_chunk_tree_map *map, u64 logical, const struct btrfs_chunk *chunk,
		    u32 item_size, u32 sectorsize)
{
	u64 length, end;
	u16 num_stripes;
	struct btrfs_chunk_map *c;
	const struct btrfs_stripe *s;
	char msg[200];
	size_t lo, hi;
	int i;

	if (btrfs_check_chunk(logical, chunk, item_size, sectorsize,
			      BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, msg, sizeof(msg)) < 0)
		return CORRUPT("chunk at logical %llu: %s", logical, msg);
	num_stripes = btrfs_chunk_num_stripes(chunk);
	length = btrfs_chunk_length(chunk);

	/* Sorted insert; overlaps are corruption unless it is the same chunk. */
	lo = 0;
	hi = map->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->chunks[mid]->logical < logical)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = logical + length;
	if (lo < map->nr && map->chunks[lo]->logical == logical &&
	    map->chunks[lo]->length == length)
		return 0;
	if ((lo < map->nr && map->chunks[lo]->logical < end) ||
	    (lo > 0 && map->chunks[lo - 1]->logical + map->chunks[lo - 1]->length > logical)) {
		error("chunk at logical %llu length %llu overlaps another chunk",
		      logical, length);
		return -EEXIST;
	}
	if (ARRAY_GROW(map->chunks, map->nr, map->alloc))
		return -ENOMEM;
	c = calloc(1, sizeof(*c) + num_stripes * sizeof(c->stripes[0]));
	if (!c)
		return -ENOMEM;
	c->logical = logical;
	c->length = length;
	c->type = btrfs_chunk_type(chunk);
	c->stripe_len = btrfs_chunk_stripe_len(chunk);
	c->num_stripes = num_stripes;
	c->sub_stripes = btrfs_chunk_sub_stripes(chunk);
	for (i = 0; i < num_stripes; i++) {
		s = btrfs_chunk_stripe(chunk, i);
		c->stripes[i].devid = btrfs_stripe_devid(s);
		c->stripes[i].physical = btrfs_stripe_offset(s);
		memcpy(c->stripes[i].dev_uuid, s->dev_uuid, BTRFS_UUID_SIZE);
	}
	memmove(&map->chunks[lo + 1], &map->chunks[lo], (map->nr - lo) * sizeof(map->chunks[0]));
	map->chunks[lo] = c;
	map->nr++;
	return 0;
}

int btrfs_read_sys_chunk_array(struct btrfs_chunk_tree_map *map, const struct btrfs_super_block *sb)
{
	u32 size = btrfs_super_sys_array_size(sb);
	u32 sectorsize = btrfs_super_sectorsize(sb);
	const u8 *array = sb->sys_chunk_array;
	u32 cur = 0;
	int ret;

	if (size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE)
		return CORRUPT("superblock sys_chunk_array_size %u too large, expect at most %u",
			       size, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	if (size == 0)
		return CORRUPT("superblock sys_chunk_array is empty");
	while (cur < size) {
		const struct btrfs_disk_key *dk = (const void *)(array + cur);
		const struct btrfs_chunk *chunk;
		struct btrfs_key key;
		u32 item_size;
		u16 num_stripes;

		if (size - cur < sizeof(*dk))
			return CORRUPT("sys_chunk_array: short key at offset %u", cur);
		btrfs_disk_key_to_cpu(&key, dk);
		cur += sizeof(*dk);
		if (key.type != BTRFS_CHUNK_ITEM_KEY)
			return CORRUPT("sys_chunk_array: unexpected item type %u at offset %u, expect %u",
				       key.type, cur - (u32)sizeof(*dk), BTRFS_CHUNK_ITEM_KEY);
		if (size - cur < sizeof(*chunk))
			return CORRUPT("sys_chunk_array: short chunk item at offset %u", cur);
		chunk = (const void *)(array + cur);
		num_stripes = btrfs_chunk_num_stripes(chunk);
		if (num_stripes == 0)
			return CORRUPT("sys_chunk_array: chunk at logical %llu has num_stripes 0",
				       key.offset);
		item_size = btrfs_chunk_item_size(num_stripes);
		if (size - cur < item_size)
			return CORRUPT("sys_chunk_array: chunk at logical %llu with %u stripes does not fit, have %u bytes expect %u",
				       key.offset, num_stripes, size - cur, item_size);
		if (!(btrfs_chunk_type(chunk) & BTRFS_BLOCK_GROUP_SYSTEM))
			return CORRUPT("sys_chunk_array: chunk at logical %llu is not a SYSTEM chunk, type 0x%llx",
				       key.offset,
				       btrfs_chunk_type(chunk));
		ret = btrfs_add_chunk(map, key.offset, chunk, item_size, sectorsize);
		if (ret < 0)
			return ret;
		cur += item_size;
	}
	return 0;
}

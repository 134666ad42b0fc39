// SPDX-License-Identifier: GPL-2.0
/*
 * New chunks made by a transaction when its block groups are full.
 *
 * In memory at once (trans_new_block_group()): the profile in use for the
 * type (the most redundant one present, as the kernel reduces its
 * allocation bits), the placement by chunk-alloc.c's kernel rules over the
 * devices and their dev extents (read from the dev tree the first time),
 * the chunk added to the filesystem's chunk map (so that blocks in it can
 * be written and read back) and a block group the allocator can use.
 *
 * In the trees at commit (trans_insert_new_chunks(), first step of every
 * round, never from inside another tree operation): the CHUNK_ITEM, the
 * dev items' bytes_used, one DEV_EXTENT per stripe, the BLOCK_GROUP_ITEM
 * (used 0; the usual block group update follows) and, with a free space
 * tree, FREE_SPACE_INFO plus one FREE_SPACE_EXTENT over the whole block
 * group (superblock copies are free space there, as in the kernel; the
 * allocator keeps off them).  Until then the block group is "pending": no
 * free space tree or used bytes update touches it.  System chunks also go
 * into the superblock's sys_chunk_array, and the profile's incompat bit
 * (raid56, raid1c34) into the superblock.  A transaction that does not
 * commit takes its chunks out of the chunk map again.
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

/* Kernel order of preference when several profiles of a type are present. */
static const u64 profile_pref[] = {
	BTRFS_BLOCK_GROUP_RAID1C4, BTRFS_BLOCK_GROUP_RAID1C3, BTRFS_BLOCK_GROUP_RAID6,
	BTRFS_BLOCK_GROUP_RAID5,   BTRFS_BLOCK_GROUP_RAID10,  BTRFS_BLOCK_GROUP_RAID1,
	BTRFS_BLOCK_GROUP_DUP,     BTRFS_BLOCK_GROUP_RAID0,   0,
};

static bool same_type(u64 flags, u64 type)
{
	return (flags & BTRFS_BLOCK_GROUP_TYPE_MASK) == type;
}

/* The profile bits for a new chunk of type (0 single). */
static void pick_profile(struct btrfs_trans *t, u64 type, u64 *profile)
{
	bool present[ARRAY_SIZE(profile_pref)] = { false };
	bool any = false;

	for (int i = 0; i < t->nr_bgs; i++) {
		u64 prof = t->bgs[i].flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;

		if (!same_type(t->bgs[i].flags, type))
			continue;
		for (size_t p = 0; p < ARRAY_SIZE(profile_pref); p++)
			if (profile_pref[p] == prof)
				present[p] = any = true;
	}
	*profile = 0;
	for (size_t p = 0; any && p < ARRAY_SIZE(profile_pref); p++) {
		const struct btrfs_raid_profile *a = btrfs_raid_profile_find(profile_pref[p]);

		if (present[p] && a && a->devs_min <= t->fs->devices.nr) {
			*profile = profile_pref[p];
			break;
		}
	}
}

/* btrfs_for_each_item() step of load_devices(): one dev extent taken from its device's free space. */
static int add_dev_extent(struct btrfs_path *path, const struct btrfs_key *found, void *arg)
{
	struct chunk_alloc *ca = arg;
	struct chunk_alloc_device *d = NULL;

	if (found->type != BTRFS_DEV_EXTENT_KEY)
		return 0;
	for (int i = 0; i < ca->ndevs; i++)
		if (ca->devs[i].devid == found->objectid)
			d = &ca->devs[i];
	if (!d || btrfs_path_item_size(path) < sizeof(struct btrfs_dev_extent)) {
		error("dev extent (%llu DEV_EXTENT %llu): unknown device or short item",
		      found->objectid, found->offset);
		return -EUCLEAN;
	}
	return chunk_alloc_add_dev_extent(d, found->offset,
					  btrfs_dev_extent_length(btrfs_path_item_ptr(path)));
}

/* Devices (dev items' sizes) and every dev extent of the dev tree. */
static int load_devices(struct btrfs_trans *t)
{
	struct btrfs_fs_info *fs = t->fs;
	struct chunk_alloc *ca;
	u64 sizes[CHUNK_ALLOC_MAX_DEVICES];
	struct btrfs_key key = { 0, 0, 0 };
	int ret;

	if (fs->devices.nr > CHUNK_ALLOC_MAX_DEVICES) {
		error("new chunks on more than %d devices are not supported", CHUNK_ALLOC_MAX_DEVICES);
		return -EOPNOTSUPP;
	}
	for (int i = 0; i < fs->devices.nr; i++) {
		const struct btrfs_device *d = &fs->devices.devs[i];

		sizes[i] = d->total_bytes ? d->total_bytes : d->size;
		/* a dev item claiming more than the device holds: only what is there */
		if (d->size && d->size < sizes[i]) {
			warning("devid %llu: dev item says %llu bytes, the device has %llu; new chunks stay within it",
				d->devid, sizes[i], d->size);
			sizes[i] = d->size;
		}
	}
	ca = calloc(1, sizeof(*ca));
	if (!ca)
		return -ENOMEM;
	ret = chunk_alloc_init(ca, fs->devices.nr, sizes, fs->geo.sectorsize);
	if (ret < 0) {
		free(ca);
		return ret;
	}
	for (int i = 0; i < fs->devices.nr; i++)
		ca->devs[i].devid = fs->devices.devs[i].devid;
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];

		ca->next_logical = max_t(u64, ca->next_logical, c->logical + c->length);
	}
	t->ca = ca;
	ret = btrfs_for_each_item(fs, t, &(struct btrfs_tree_ref){ .objectid = BTRFS_DEV_TREE_OBJECTID },
				  &key, BTRFS_SEARCH_NEXT, add_dev_extent, ca);
	if (ret == -ENOENT)
		error("cannot find the dev tree");
	return ret;
}

static const struct btrfs_device *find_dev(struct btrfs_fs_info *fs, u64 devid)
{
	for (int i = 0; i < fs->devices.nr; i++)
		if (fs->devices.devs[i].devid == devid)
			return &fs->devices.devs[i];
	return NULL;
}

/* The CHUNK_ITEM of a placed chunk (malloc'ed). */
static u8 *build_chunk_item(struct btrfs_trans *t, const struct chunk_placement *c, u32 *size)
{
	struct btrfs_chunk *ch;
	u8 *buf;

	*size = btrfs_chunk_item_size(c->num_stripes);
	buf = calloc(1, *size);
	if (!buf)
		return NULL;
	ch = (struct btrfs_chunk *)buf;
	chunk_alloc_fill_chunk_item(c, t->fs->geo.sectorsize, ch);
	for (int s = 0; s < c->num_stripes; s++) {
		const struct btrfs_device *d = find_dev(t->fs, c->stripes[s].devid);

		if (d)
			memcpy(btrfs_chunk_stripe(ch, s)->dev_uuid, d->uuid, BTRFS_UUID_SIZE);
	}
	return buf;
}

/* Room left in the superblock's sys_chunk_array after the new system chunks. */
static u32 sys_array_room(const struct btrfs_trans *t)
{
	u32 used = btrfs_super_sys_array_size(t->fs->super);

	for (int i = 0; i < t->nr_bgs; i++)
		if (t->bgs[i].is_new && (t->bgs[i].flags & BTRFS_BLOCK_GROUP_SYSTEM))
			used += sizeof(struct btrfs_disk_key) + t->bgs[i].chunk_item_size;
	return used < BTRFS_SYSTEM_CHUNK_ARRAY_SIZE ? BTRFS_SYSTEM_CHUNK_ARRAY_SIZE - used : 0;
}

int trans_new_block_group(struct btrfs_trans *t, u64 type, struct wblock_group **out)
{
	struct btrfs_fs_info *fs = t->fs;
	const struct btrfs_chunk_map *map;
	struct wblock_group *bg;
	struct chunk_placement *c;
	u64 profile;
	u8 *item;
	u32 size;
	int ret;

	pick_profile(t, type, &profile);
	if (!t->ca) {
		ret = load_devices(t);
		if (ret < 0)
			return ret;
	}
	c = chunk_alloc_new_chunk_kernel(t->ca, type | profile);
	if (IS_ERR(c))
		return PTR_ERR(c);
	item = build_chunk_item(t, c, &size);
	if (!item)
		return -ENOMEM;
	if ((type & BTRFS_BLOCK_GROUP_SYSTEM) &&
	    sys_array_room(t) < sizeof(struct btrfs_disk_key) + size) {
		error("no room in the superblock's system chunk array for a new system chunk");
		free(item);
		return -ENOSPC;
	}
	ret = btrfs_add_chunk(&fs->chunks, c->logical, (const struct btrfs_chunk *)item, size,
			      fs->geo.sectorsize);
	map = ret == 0 ? btrfs_chunk_lookup(&fs->chunks, c->logical) : NULL;
	if (!map) {
		error("new chunk %llu (%llu bytes) not accepted into the chunk map", c->logical,
		      c->length);
		free(item);
		return ret < 0 ? ret : -EINVAL;
	}
	ret = extent_alloc_add_block_group(t, map, &bg);
	if (ret < 0) {
		free(item);
		return ret;
	}
	bg->chunk = c;
	bg->chunk_item = item;
	bg->chunk_item_size = size;
	*out = bg;
	return 0;
}

int btrfs_trans_dev_item(struct btrfs_trans *t, u64 devid, struct btrfs_path *path)
{
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, devid };
	struct btrfs_wroot *chunk;
	int ret;

	btrfs_init_path(path);
	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk);
	if (ret == 0)
		ret = btrfs_search_slot(t, chunk, &key, path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(path) < sizeof(struct btrfs_dev_item))
		ret = -EUCLEAN;
	if (ret)
		btrfs_release_path(path);
	return ret > 0 ? -ENOENT : ret;
}

int trans_dev_item_add(struct btrfs_trans *t, u64 devid, s64 delta)
{
	struct btrfs_path path;
	struct btrfs_dev_item *di;
	int ret = btrfs_trans_dev_item(t, devid, &path);

	if (ret == -ENOENT || ret == -EUCLEAN) {
		error("no dev item (DEV_ITEMS DEV_ITEM %llu) for a chunk's stripe", devid);
		return -EUCLEAN;
	}
	if (ret < 0)
		return ret;
	di = btrfs_path_item_ptr(&path);
	btrfs_set_device_bytes_used(di, btrfs_device_bytes_used(di) + (u64)delta);
	btrfs_release_path(&path);
	return 0;
}

int trans_insert_dev_extent(struct btrfs_trans *t, struct btrfs_wroot *dev, u64 devid, u64 physical,
			    u64 chunk_offset, u64 len)
{
	struct btrfs_dev_extent de;
	struct btrfs_key key = { devid, BTRFS_DEV_EXTENT_KEY, physical };
	int ret = trans_dev_item_add(t, devid, (s64)len);

	if (ret < 0)
		return ret;
	memset(&de, 0, sizeof(de));
	btrfs_set_dev_extent_chunk_tree(&de, BTRFS_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_objectid(&de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_dev_extent_chunk_offset(&de, chunk_offset);
	btrfs_set_dev_extent_length(&de, len);
	memcpy(de.chunk_tree_uuid, t->fs->geo.chunk_tree_uuid, BTRFS_UUID_SIZE);
	return btrfs_insert_item(t, dev, &key, &de, sizeof(de));
}

int btrfs_insert_dev_extent(struct btrfs_trans *t, u64 devid, u64 physical, u64 chunk_offset, u64 len)
{
	struct btrfs_wroot *dev;
	int ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);

	return ret ? ret : trans_insert_dev_extent(t, dev, devid, physical, chunk_offset, len);
}

static int insert_bg_items(struct btrfs_trans *t, struct wblock_group *bg)
{
	const struct chunk_placement *c = bg->chunk;
	struct btrfs_wroot *chunk, *dev, *bgroot, *fst;
	struct btrfs_key key;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, t->bgt ? BTRFS_BLOCK_GROUP_TREE_OBJECTID :
						       BTRFS_EXTENT_TREE_OBJECTID, &bgroot);
	if (ret < 0)
		return ret;

	key = (struct btrfs_key){ BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, bg->start };
	ret = btrfs_insert_item(t, chunk, &key, bg->chunk_item, bg->chunk_item_size);
	for (int s = 0; s < c->num_stripes && ret == 0; s++)
		ret = trans_insert_dev_extent(t, dev, c->stripes[s].devid, c->stripes[s].physical,
					      bg->start, c->stripe_size);
	if (ret == 0) {
		struct btrfs_block_group_item bgi;

		btrfs_block_group_item_init(&bgi, 0, bg->flags);
		key = (struct btrfs_key){ bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
		ret = btrfs_insert_item(t, bgroot, &key, &bgi, sizeof(bgi));
		/* used is written by the block group update that follows */
		bg->written_delta = 0;
	}
	if (ret == 0 && t->fst) {
		struct btrfs_free_space_info fi;

		ret = btrfs_trans_get_root(t, BTRFS_FREE_SPACE_TREE_OBJECTID, &fst);
		memset(&fi, 0, sizeof(fi));
		btrfs_set_free_space_extent_count(&fi, 1);
		key = (struct btrfs_key){ bg->start, BTRFS_FREE_SPACE_INFO_KEY, bg->length };
		if (ret == 0)
			ret = btrfs_insert_item(t, fst, &key, &fi, sizeof(fi));
		key = (struct btrfs_key){ bg->start, BTRFS_FREE_SPACE_EXTENT_KEY, bg->length };
		if (ret == 0)
			ret = btrfs_insert_item(t, fst, &key, NULL, 0);
	}
	if (ret < 0)
		error("cannot insert the items of new chunk %llu", bg->start);
	return ret;
}

int trans_insert_new_chunks(struct btrfs_trans *t, bool *progress)
{
	/* nr_bgs may grow while items go in: a chunk made meanwhile waits for its turn */
	for (int i = 0; i < t->nr_bgs; i++) {
		struct wblock_group *bg = &t->bgs[i];
		int ret;

		if (!bg->items_pending)
			continue;
		ret = insert_bg_items(t, bg);
		if (ret < 0)
			return ret;
		bg->items_pending = false;
		*progress = true;
	}
	return 0;
}

int trans_chunk_dev_items(struct btrfs_trans *t, struct btrfs_dev_item *items, bool *found)
{
	const struct btrfs_device_list *devs = &t->fs->devices;
	struct btrfs_wroot *chunk;
	int ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk);

	for (int i = 0; ret == 0 && i < devs->nr; i++) {
		struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, devs->devs[i].devid };
		struct btrfs_path path;

		btrfs_init_path(&path);
		ret = btrfs_trans_search_key(t, chunk, &key, BTRFS_SEARCH_EXACT, &path, NULL);
		found[i] = ret == 0 && btrfs_path_item_size(&path) >= sizeof(items[i]);
		if (found[i])
			memcpy(&items[i], btrfs_path_item_ptr(&path), sizeof(items[i]));
		btrfs_release_path(&path);
		if (ret > 0)
			ret = 0;
	}
	return ret;
}

void trans_super_dev_item_sync(struct btrfs_dev_item *super_di, const struct btrfs_dev_item *tree_di)
{
	btrfs_set_device_total_bytes(super_di, btrfs_device_total_bytes(tree_di));
	btrfs_set_device_bytes_used(super_di, btrfs_device_bytes_used(tree_di));
}

int trans_new_chunks_super(struct btrfs_trans *t, struct btrfs_super_block *sb)
{
	u32 at = btrfs_super_sys_array_size(sb);

	for (int i = 0; i < t->nr_bgs; i++) {
		const struct wblock_group *bg = &t->bgs[i];
		struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, bg->start };

		if (!bg->is_new || !(bg->flags & BTRFS_BLOCK_GROUP_SYSTEM))
			continue;
		if (at + sizeof(struct btrfs_disk_key) + bg->chunk_item_size >
		    BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
			error("system chunk array full: new system chunk %llu does not fit", bg->start);
			return -E2BIG;
		}
		btrfs_cpu_key_to_disk((struct btrfs_disk_key *)(sb->sys_chunk_array + at), &key);
		at += sizeof(struct btrfs_disk_key);
		memcpy(sb->sys_chunk_array + at, bg->chunk_item, bg->chunk_item_size);
		at += bg->chunk_item_size;
	}
	btrfs_set_super_sys_array_size(sb, at);
	/* a profile's feature bit (raid56, raid1c34) goes in with its first chunk */
	for (int i = 0; i < t->nr_bgs; i++) {
		const struct btrfs_raid_profile *a = btrfs_raid_profile_find(t->bgs[i].flags);

		if (t->bgs[i].is_new && a && a->incompat)
			btrfs_set_super_incompat_flags(sb, btrfs_super_incompat_flags(sb) |
							   a->incompat);
	}
	return 0;
}

/* Take the chunk at logical out of the map (a transaction that did not commit). */
static void chunk_map_drop(struct btrfs_chunk_tree_map *map, u64 logical)
{
	for (size_t i = 0; i < map->nr; i++) {
		if (map->chunks[i]->logical != logical)
			continue;
		free(map->chunks[i]);
		memmove(&map->chunks[i], &map->chunks[i + 1], (map->nr - i - 1) * sizeof(map->chunks[0]));
		map->nr--;
		return;
	}
}

void trans_release_new_chunks(struct btrfs_trans *t)
{
	for (int i = 0; i < t->nr_bgs && !t->committed; i++)
		if (t->bgs[i].is_new)
			chunk_map_drop(&t->fs->chunks, t->bgs[i].start);
	if (t->ca) {
		chunk_alloc_release(t->ca);
		free(t->ca);
		t->ca = NULL;
	}
	for (int i = 0; i < t->nr_bgs; i++)
		t->bgs[i].chunk = NULL;
}

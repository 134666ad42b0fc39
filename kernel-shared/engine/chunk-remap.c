// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk's new physical layout at the same logical address (offline
 * balance): btrfs_trans_remap_chunk() in transaction.h.
 *
 * In the trees at once: the CHUNK_ITEM replaced, the old stripes'
 * DEV_EXTENTs deleted and the new ones inserted (dev items' bytes_used
 * following), the block group item's flags.  In memory: the chunk map
 * entry, so that reads and the commit's writes go through the new layout
 * (the caller copied the chunk's bytes there and flushed); a transaction
 * that does not commit puts the old entry back.  In the superblock at
 * commit: the sys_chunk_array entry of a system chunk and the incompat
 * bits of profiles (RAID56, RAID1C34), set while a chunk of the profile
 * exists and cleared when none is left.  The entries a repair set with
 * btrfs_trans_set_sys_chunk() are replaced the same way.
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/growable-array.h"

static u64 stripe_size(const struct btrfs_chunk_map *c)
{
	return c->length / btrfs_raid_data_stripes(btrfs_raid_profile_of(c->type), c->num_stripes);
}

static size_t map_index(const struct btrfs_chunk_tree_map *map, u64 logical)
{
	for (size_t i = 0; i < map->nr; i++)
		if (map->chunks[i]->logical == logical)
			return i;
	return map->nr;
}

/* The new item validated as a chunk map entry: *out (malloc'ed). */
static int new_map_entry(struct btrfs_trans *t, u64 logical, const struct btrfs_chunk *item, u32 size,
			 struct btrfs_chunk_map **out)
{
	struct btrfs_chunk_tree_map tmp = { 0 };
	int ret = btrfs_add_chunk(&tmp, logical, item, size, t->fs->geo.sectorsize);

	if (ret < 0) {
		btrfs_chunk_tree_map_free(&tmp);
		return ret;
	}
	*out = tmp.chunks[0];
	tmp.nr = 0;
	btrfs_chunk_tree_map_free(&tmp);
	return 0;
}

static int set_block_group_flags(struct btrfs_trans *t, u64 logical, u64 length, u64 flags)
{
	struct btrfs_key key = { logical, BTRFS_BLOCK_GROUP_ITEM_KEY, length };
	struct wblock_group *bg = extent_alloc_find_block_group(t, logical);
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret;

	ret = btrfs_trans_get_root(t, t->bgt ? BTRFS_BLOCK_GROUP_TREE_OBJECTID : BTRFS_EXTENT_TREE_OBJECTID,
				   &root);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_block_group_item))
		ret = -EUCLEAN;
	if (ret) {
		btrfs_release_path(&path);
		error("no block group item (%llu BLOCK_GROUP_ITEM %llu) for chunk %llu", logical, length,
		      logical);
		return ret < 0 ? ret : -EUCLEAN;
	}
	btrfs_set_block_group_flags(btrfs_path_item_ptr(&path), flags);
	btrfs_release_path(&path);
	if (bg && bg->start == logical)
		bg->flags = flags;
	return 0;
}

int btrfs_trans_remap_chunk(struct btrfs_trans *t, u64 logical, const struct btrfs_chunk *item,
			    u32 item_size)
{
	struct btrfs_fs_info *fs = t->fs;
	size_t idx = map_index(&fs->chunks, logical);
	struct btrfs_chunk_map *old, *new;
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, logical };
	struct btrfs_wroot *chunk, *dev;
	int ret;

	if (t->remap_old) {
		error("chunk %llu: one chunk remap per transaction", logical);
		return -EINVAL;
	}
	if (idx == fs->chunks.nr) {
		error("no chunk at %llu to remap", logical);
		return -ENOENT;
	}
	old = fs->chunks.chunks[idx];
	ret = new_map_entry(t, logical, item, item_size, &new);
	if (ret < 0) {
		error("new layout of chunk %llu refused by the chunk rules", logical);
		return ret;
	}
	if (new->length != old->length ||
	    (new->type & BTRFS_BLOCK_GROUP_TYPE_MASK) != (old->type & BTRFS_BLOCK_GROUP_TYPE_MASK)) {
		error("chunk %llu: a remap keeps length %llu and type (have %llu, 0x%llx)", logical,
		      old->length, new->length, new->type);
		free(new);
		return -EINVAL;
	}
	t->remap_item = malloc(item_size);
	if (!t->remap_item) {
		free(new);
		return -ENOMEM;
	}
	memcpy(t->remap_item, item, item_size);
	t->remap_item_size = item_size;
	/* from now on the transaction reads and writes the chunk through its new layout */
	t->remap_old = old;
	fs->chunks.chunks[idx] = new;

	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret == 0)
		ret = btrfs_delete_item(t, chunk, &key);
	if (ret == 0)
		ret = btrfs_insert_item(t, chunk, &key, item, item_size);
	for (u16 s = 0; s < old->num_stripes && ret == 0; s++) {
		struct btrfs_key dk = { old->stripes[s].devid, BTRFS_DEV_EXTENT_KEY, old->stripes[s].physical };

		ret = btrfs_delete_item(t, dev, &dk);
		if (ret == -ENOENT)
			error("chunk %llu stripe %u: no dev extent (%llu DEV_EXTENT %llu)", logical, s,
			      dk.objectid, dk.offset);
		if (ret == 0)
			ret = trans_dev_item_add(t, old->stripes[s].devid, -(s64)stripe_size(old));
	}
	for (u16 s = 0; s < new->num_stripes && ret == 0; s++)
		ret = trans_insert_dev_extent(t, dev, new->stripes[s].devid, new->stripes[s].physical,
					      logical, stripe_size(new));
	if (ret == 0)
		ret = set_block_group_flags(t, logical, new->length, new->type);
	if (ret < 0)
		error("cannot change the items of chunk %llu to its new layout", logical);
	return ret;
}

/* Replace the entry of the system chunk at logical in sb's sys_chunk_array by item. */
static int sys_array_replace(struct btrfs_super_block *sb, u64 logical, const u8 *item, u32 item_size)
{
	u32 size = btrfs_super_sys_array_size(sb), at = 0, out_at = 0;
	u8 *out = calloc(1, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	bool found = false;

	if (!out)
		return -ENOMEM;
	while (at + sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk) <= size) {
		struct btrfs_key key;
		const struct btrfs_chunk *c;
		u32 len;

		btrfs_disk_key_to_cpu(&key, (const struct btrfs_disk_key *)(sb->sys_chunk_array + at));
		c = (const struct btrfs_chunk *)(sb->sys_chunk_array + at + sizeof(struct btrfs_disk_key));
		len = btrfs_chunk_item_size(btrfs_chunk_num_stripes(c));
		if (at + sizeof(struct btrfs_disk_key) + len > size)
			break;
		memcpy(out + out_at, sb->sys_chunk_array + at, sizeof(struct btrfs_disk_key));
		out_at += sizeof(struct btrfs_disk_key);
		at += sizeof(struct btrfs_disk_key) + len;
		if (key.offset == logical) {
			c = (const struct btrfs_chunk *)item;
			len = item_size;
			found = true;
		}
		if (out_at + len > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
			error("system chunk array full: chunk %llu in its new layout does not fit", key.offset);
			free(out);
			return -E2BIG;
		}
		memcpy(out + out_at, c, len);
		out_at += len;
	}
	if (!found) {
		error("system chunk %llu is not in the superblock's sys_chunk_array", logical);
		free(out);
		return -EUCLEAN;
	}
	memcpy(sb->sys_chunk_array, out, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	btrfs_set_super_sys_array_size(sb, out_at);
	free(out);
	return 0;
}

int btrfs_trans_set_sys_chunk(struct btrfs_trans *t, u64 logical, const struct btrfs_chunk *item, u32 size)
{
	struct trans_sys_chunk *e = NULL;
	u8 *copy;

	if (size < sizeof(*item) || size != btrfs_chunk_item_size(btrfs_chunk_num_stripes(item)) ||
	    !(btrfs_chunk_type(item) & BTRFS_BLOCK_GROUP_SYSTEM)) {
		error("chunk %llu: not a system chunk item of %u bytes for the sys_chunk_array", logical, size);
		return -EINVAL;
	}
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, item, size);
	for (int i = 0; i < t->nr_sys_chunks; i++)
		if (t->sys_chunks[i].logical == logical)
			e = &t->sys_chunks[i];
	if (!e) {
		if (ARRAY_GROW(t->sys_chunks, t->nr_sys_chunks, t->alloc_sys_chunks)) {
			free(copy);
			return -ENOMEM;
		}
		e = &t->sys_chunks[t->nr_sys_chunks++];
	} else {
		free(e->item);
	}
	*e = (struct trans_sys_chunk){ logical, copy, size };
	return 0;
}

int trans_remap_super(struct btrfs_trans *t, struct btrfs_super_block *sb)
{
	u64 present = 0, all = 0, incompat;
	int ret;

	for (int i = 0; i < t->nr_sys_chunks; i++) {
		ret = sys_array_replace(sb, t->sys_chunks[i].logical, t->sys_chunks[i].item,
					t->sys_chunks[i].size);
		if (ret < 0)
			return ret;
	}
	if (!t->remap_old)
		return 0;
	if (t->remap_old->type & BTRFS_BLOCK_GROUP_SYSTEM) {
		ret = sys_array_replace(sb, t->remap_old->logical, t->remap_item, t->remap_item_size);
		if (ret < 0)
			return ret;
	}
	for (const struct btrfs_raid_profile *p = btrfs_raid_profiles; p->name; p++)
		all |= p->incompat;
	for (size_t i = 0; i < t->fs->chunks.nr; i++)
		present |= btrfs_raid_profile_of(t->fs->chunks.chunks[i]->type)->incompat;
	incompat = (btrfs_super_incompat_flags(sb) & ~all) | present;
	btrfs_set_super_incompat_flags(sb, incompat);
	return 0;
}

void trans_remap_release(struct btrfs_trans *t)
{
	struct btrfs_chunk_tree_map *map = &t->fs->chunks;

	if (t->remap_old && !t->committed) {
		size_t idx = map_index(map, t->remap_old->logical);

		if (idx < map->nr) {
			free(map->chunks[idx]);
			map->chunks[idx] = t->remap_old;
		}
	} else {
		free(t->remap_old);
	}
	t->remap_old = NULL;
	free(t->remap_item);
	t->remap_item = NULL;
	for (int i = 0; i < t->nr_sys_chunks; i++)
		free(t->sys_chunks[i].item);
	free(t->sys_chunks);
	t->sys_chunks = NULL;
	t->nr_sys_chunks = t->alloc_sys_chunks = 0;
}

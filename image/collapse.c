// SPDX-License-Identifier: GPL-2.0
/*
 * A multi-device dump restored onto one target as btrfs-progs 6.19 does:
 * see collapse.h for the layout and the order of the writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "image/collapse.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/engine/transaction.h"

const struct restore_chunk *restore_chunk_find(const struct restore_chunk *chunks, size_t nr,
					       u64 logical)
{
	for (size_t i = 0; i < nr; i++)
		if (logical >= chunks[i].logical && logical - chunks[i].logical < chunks[i].length)
			return &chunks[i];
	return NULL;
}

static bool ranges_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static bool holds_super_mirror(u64 physical, u64 len)
{
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++)
		if (btrfs_sb_offset(m) >= physical && btrfs_sb_offset(m) - physical < len)
			return true;
	return false;
}

/* Every stripe 0 and DUP copy of the placed chunks apart from every other. */
static const struct restore_chunk *first_collision(const struct restore_chunk *ch, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < nr; j++) {
			u64 a[2] = { ch[i].physical, ch[i].physical_dup };
			u64 b[2] = { ch[j].physical, ch[j].physical_dup };

			for (int x = 0; x < 2; x++)
				for (int y = 0; y < 2; y++)
					if ((x || a[0]) && (x == 0 || a[1]) && (y == 0 || b[1]) &&
					    (i != j || x != y) &&
					    ranges_overlap(a[x], ch[i].length, b[y], ch[j].length))
						return &ch[i];
		}
	return NULL;
}

/* The moved chunks from end on, the last one read first (btrfs-image's list order). */
static void place_moved(struct restore_chunk *ch, size_t nr, const bool *moved, u64 end)
{
	for (size_t i = nr; i-- > 0;)
		if (moved[i]) {
			ch[i].physical = end;
			end += ch[i].length;
		}
}

int restore_chunk_place(struct restore_chunk *ch, size_t nr, struct collapse_info *info)
{
	bool *moved = calloc(nr ? nr : 1, sizeof(*moved));
	bool is_file = info->is_file;
	u64 running = 0, end = 0;
	const struct restore_chunk *bad;
	u64 *orig = calloc(nr ? nr : 1, sizeof(*orig));

	if (!moved || !orig) {
		free(moved);
		free(orig);
		return -ENOMEM;
	}
	memset(info, 0, sizeof(*info));
	info->is_file = is_file;
	for (size_t i = 0; i < nr; i++) {
		struct restore_chunk *c = &ch[i];

		orig[i] = c->physical;
		for (size_t j = 0; j < i && !moved[i]; j++)
			moved[i] = !moved[j] && ranges_overlap(ch[j].physical, ch[j].length,
							       c->physical, c->length);
		/*
		 * btrfs-image's end: the DUP copy's end when it is past the
		 * running figure (for a chunk without a copy: its length), else
		 * stripe 0's end when past it.
		 */
		if (c->physical_dup + c->length > running)
			running = c->physical_dup + c->length;
		else if (c->physical + c->length > running)
			running = c->physical + c->length;
		end = max_t(u64, end, c->physical + c->length);
		if (c->physical_dup)
			end = max_t(u64, end, c->physical_dup + c->length);
		info->alloced += c->physical_dup ? 2 * c->length : c->length;
		if (moved[i] && holds_super_mirror(c->physical, c->length))
			info->clear_space_cache = true;
	}
	place_moved(ch, nr, moved, running);
	if (first_collision(ch, nr))
		place_moved(ch, nr, moved, end);
	bad = first_collision(ch, nr);
	for (size_t i = 0; i < nr; i++) {
		info->dev_size = max_t(u64, info->dev_size, ch[i].physical + ch[i].length);
		if (ch[i].physical_dup)
			info->dev_size = max_t(u64, info->dev_size, ch[i].physical_dup + ch[i].length);
	}
	if (bad)
		error("restore onto one target: chunk %llu (offset %llu, DUP copy at %llu, %llu bytes) overlaps another chunk on the one device",
		      (unsigned long long)bad->logical, (unsigned long long)orig[bad - ch],
		      (unsigned long long)bad->physical_dup, (unsigned long long)bad->length);
	free(moved);
	free(orig);
	return bad ? -EOPNOTSUPP : 0;
}

/*
 * Shrink item slot of a leaf to new_size bytes from its end, as btrfs-image
 * does: the data below it moves up, the bytes it leaves keep what they held.
 */
static void truncate_leaf_item(u8 *blk, u32 slot, u32 new_size)
{
	struct btrfs_header *h = (struct btrfs_header *)blk;
	struct btrfs_item *items = (struct btrfs_item *)(h + 1);
	u8 *data = (u8 *)(h + 1);
	u32 nr = btrfs_header_nritems(h);
	u32 old_size = btrfs_item_size(&items[slot]), diff = old_size - new_size;
	u32 data_end = btrfs_item_offset(&items[nr - 1]), start = btrfs_item_offset(&items[slot]);

	if (old_size == new_size)
		return;
	for (u32 i = slot; i < nr; i++)
		btrfs_set_item_offset(&items[i], btrfs_item_offset(&items[i]) + diff);
	memmove(data + data_end + diff, data + data_end, start + new_size - data_end);
	btrfs_set_item_size(&items[slot], new_size);
}

/* One chunk item rewritten for the one device. */
static void collapse_chunk_item(u8 *blk, u32 slot, const struct restore_chunk *rc, u64 devid,
				const u8 *dev_uuid)
{
	struct btrfs_header *h = (struct btrfs_header *)blk;
	struct btrfs_item *it = (struct btrfs_item *)(h + 1) + slot;
	struct btrfs_chunk *chunk;

	if (!rc->physical_dup)
		truncate_leaf_item(blk, slot, btrfs_chunk_item_size(1));
	chunk = (struct btrfs_chunk *)((u8 *)(h + 1) + btrfs_item_offset(it));
	btrfs_set_chunk_type(chunk, btrfs_chunk_type(chunk) &
			     (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_SYSTEM |
			      BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DUP));
	if (!rc->physical_dup)
		btrfs_set_chunk_num_stripes(chunk, 1);
	btrfs_set_chunk_sub_stripes(chunk, 0);
	btrfs_set_stripe_devid(&chunk->stripe[0], devid);
	btrfs_set_stripe_offset(&chunk->stripe[0], rc->physical);
	if (rc->physical_dup)
		btrfs_set_stripe_offset(&chunk->stripe[1], rc->physical_dup);
	memcpy(chunk->stripe[0].dev_uuid, dev_uuid, BTRFS_UUID_SIZE);
}

/* The item table of a leaf fits it and its data are packed from the end, in slot order. */
static bool leaf_packed(const u8 *blk, u32 nodesize)
{
	const struct btrfs_header *h = (const struct btrfs_header *)blk;
	const struct btrfs_item *items = (const struct btrfs_item *)(h + 1);
	u32 room = nodesize - sizeof(*h), end = room, nr = btrfs_header_nritems(h);

	if (nr > room / sizeof(*items) || nr * sizeof(*items) > room)
		return false;
	for (u32 i = 0; i < nr; i++) {
		if (btrfs_item_offset(&items[i]) > end ||
		    btrfs_item_size(&items[i]) != end - btrfs_item_offset(&items[i]))
			return false;
		end = btrfs_item_offset(&items[i]);
	}
	return end >= nr * sizeof(*items);
}

static int collapse_leaf(u8 *blk, u64 bytenr, u32 nodesize, const struct restore_chunk *chunks,
			 size_t nr, u64 devid, const u8 *dev_uuid)
{
	struct btrfs_header *h = (struct btrfs_header *)blk;
	struct btrfs_item *items = (struct btrfs_item *)(h + 1);

	if (!leaf_packed(blk, nodesize)) {
		error("chunk tree block %llu: items do not fit the leaf or their data are not packed",
		      (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	for (u32 i = 0; i < btrfs_header_nritems(h); i++) {
		const struct btrfs_disk_key *key = &items[i].key;
		const struct restore_chunk *rc;

		rc = btrfs_disk_key_type(key) == BTRFS_CHUNK_ITEM_KEY ?
		     restore_chunk_find(chunks, nr, btrfs_disk_key_offset(key)) : NULL;
		if (rc && rc->logical == btrfs_disk_key_offset(key)) {
			u32 size = btrfs_item_size(&items[i]);

			if (size < btrfs_chunk_item_size(rc->physical_dup ? 2 : 1)) {
				error("chunk tree block %llu slot %u: chunk item of %u bytes", (unsigned long long)bytenr,
				      i, size);
				return -EUCLEAN;
			}
			collapse_chunk_item(blk, i, rc, devid, dev_uuid);
		}
	}
	return 0;
}

int collapse_chunk_leaves(u8 *buf, size_t len, u64 logical, u32 nodesize, const u8 *fsid,
			  const struct restore_chunk *chunks, size_t nr, u64 devid, const u8 *dev_uuid,
			  const struct btrfs_csum *csum)
{
	for (size_t off = 0; off + nodesize <= len; off += nodesize) {
		u8 *blk = buf + off;
		const struct btrfs_header *h = (const struct btrfs_header *)blk;
		int ret;

		/* btrfs-image stops at the first block that is not one (data, or a free range) */
		if (btrfs_header_bytenr(h) != logical + off || memcmp(h->fsid, fsid, BTRFS_FSID_SIZE))
			break;
		if (btrfs_header_owner(h) != BTRFS_CHUNK_TREE_OBJECTID || btrfs_header_level(h))
			continue;
		ret = collapse_leaf(blk, logical + off, nodesize, chunks, nr, devid, dev_uuid);
		if (!ret)
			ret = btrfs_csum_compute(csum, blk + BTRFS_CSUM_SIZE, nodesize - BTRFS_CSUM_SIZE, blk);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The sys_chunk_array rewritten in place as btrfs-image does: each chunk
 * keeps the bytes of one stripe (DUP: two, its stripe 1 as it was; others:
 * type SYSTEM alone, one stripe), sub_stripes 0, stripe 0 on the device of
 * the superblock's dev_item at the chunk's place (its logical address if
 * the chunk tree had no such chunk).
 */
int collapse_super(struct btrfs_super_block *sb, const struct restore_chunk *chunks, size_t nr,
		   const struct collapse_info *info)
{
	u8 *array = sb->sys_chunk_array;
	u32 size = btrfs_super_sys_array_size(sb), cur = 0, out = 0;

	if (size > sizeof(sb->sys_chunk_array)) {
		error("superblock sys_array_size %u larger than the array", size);
		return -EUCLEAN;
	}
	while (cur < size) {
		struct btrfs_disk_key key;
		struct btrfs_chunk *chunk;
		const struct restore_chunk *rc;
		u16 old_stripes;

		if (size - cur < sizeof(key) + btrfs_chunk_item_size(1)) {
			error("superblock sys_chunk_array: %u bytes left at offset %u, too short for a chunk",
			      size - cur, cur);
			return -EUCLEAN;
		}
		memcpy(&key, array + cur, sizeof(key));
		if (btrfs_disk_key_type(&key) != BTRFS_CHUNK_ITEM_KEY) {
			error("superblock sys_chunk_array offset %u: key type %u, not a chunk item", cur,
			      btrfs_disk_key_type(&key));
			return -EUCLEAN;
		}
		memmove(array + out, array + cur, sizeof(key));
		cur += sizeof(key);
		out += sizeof(key);
		old_stripes = btrfs_chunk_num_stripes((struct btrfs_chunk *)(array + cur));
		if (!old_stripes || size - cur < btrfs_chunk_item_size(old_stripes)) {
			error("superblock sys_chunk_array offset %u: chunk of %u stripes does not fit", cur,
			      old_stripes);
			return -EUCLEAN;
		}
		memmove(array + out, array + cur, btrfs_chunk_item_size(1));
		chunk = (struct btrfs_chunk *)(array + out);
		btrfs_set_chunk_sub_stripes(chunk, 0);
		if (btrfs_chunk_type(chunk) & BTRFS_BLOCK_GROUP_DUP) {
			out += sizeof(struct btrfs_stripe);
		} else {
			btrfs_set_chunk_num_stripes(chunk, 1);
			btrfs_set_chunk_type(chunk, BTRFS_BLOCK_GROUP_SYSTEM);
		}
		btrfs_set_stripe_devid(&chunk->stripe[0], btrfs_device_id(&sb->dev_item));
		rc = restore_chunk_find(chunks, nr, btrfs_disk_key_offset(&key));
		btrfs_set_stripe_offset(&chunk->stripe[0],
					rc ? rc->physical + (btrfs_disk_key_offset(&key) - rc->logical) :
					     btrfs_disk_key_offset(&key));
		memcpy(chunk->stripe[0].dev_uuid, sb->dev_item.uuid, BTRFS_UUID_SIZE);
		out += btrfs_chunk_item_size(1);
		cur += btrfs_chunk_item_size(old_stripes);
	}
	if (info->clear_space_cache)
		btrfs_set_super_cache_generation(sb, 0);
	btrfs_set_super_sys_array_size(sb, out);
	btrfs_set_super_num_devices(sb, 1);
	return 0;
}

enum item_fate { ITEM_STOP, ITEM_DELETE, ITEM_KEEP };

/*
 * Delete items of tree from key from on, as fate says of each (a first
 * pass finds them, read only; then each is deleted by its key).
 */
static int delete_items(struct btrfs_trans *t, u64 tree, struct btrfs_key from,
			enum item_fate (*fate)(const struct btrfs_key *key, u64 arg), u64 arg)
{
	struct btrfs_key key, *keys = NULL;
	size_t nr = 0, alloc = 0;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	enum item_fate f;
	int ret = btrfs_trans_get_root(t, tree, &root);

	btrfs_init_path(&path);
	if (ret == 0)
		ret = btrfs_trans_search_key(t, root, &from, BTRFS_SEARCH_NEXT, &path, &key);
	while (ret == 0 && (f = fate(&key, arg)) != ITEM_STOP) {
		if (f == ITEM_DELETE && ARRAY_GROW(keys, nr, alloc)) {
			ret = -ENOMEM;
			break;
		}
		if (f == ITEM_DELETE)
			keys[nr++] = key;
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_item_key_to_cpu(path.nodes[0], &key, path.slots[0]);
	}
	btrfs_release_path(&path);
	if (ret > 0)
		ret = 0;
	for (size_t i = 0; ret == 0 && i < nr; i++)
		ret = btrfs_delete_item(t, root, &keys[i]);
	free(keys);
	return ret;
}

/* Every DEV_EXTENT of the dev tree (they name the dumped devices). */
static enum item_fate dev_extent_fate(const struct btrfs_key *key, u64 unused)
{
	(void)unused;
	return key->type == BTRFS_DEV_EXTENT_KEY ? ITEM_DELETE : ITEM_STOP;
}

/* The chunk tree's DEV_ITEMs of every device but devid. */
static enum item_fate other_dev_item_fate(const struct btrfs_key *key, u64 devid)
{
	if (key->objectid != BTRFS_DEV_ITEMS_OBJECTID || key->type != BTRFS_DEV_ITEM_KEY)
		return ITEM_STOP;
	return key->offset == devid ? ITEM_KEEP : ITEM_DELETE;
}

int collapse_commit(const char *target, const u8 *auth_key, size_t auth_key_len,
		    const struct collapse_info *info)
{
	char *devices[] = { (char *)target };
	struct btrfs_open_args args = { .devices = devices, .ndevices = 1, .noscan = true,
					.writable = true, .temporary_super = true,
					/* the dumped devices' items go in this commit */
					.forget_unused_devices = true,
					.auth_key = auth_key, .auth_key_len = auth_key_len };
	struct btrfs_fs_info *fs = NULL;
	struct btrfs_trans *t = NULL;
	struct btrfs_path path;
	u64 devid, dev_size = 0;
	int ret;

	ret = btrfs_open_fs(&args, &fs);
	if (ret) {
		error("cannot open the restored %s to fix its devices", target);
		return ret;
	}
	devid = btrfs_device_id(&fs->super->dev_item);
	/* btrfs-progs' order: the new blocks land where btrfs-image's commit puts them */
	ret = btrfs_start_transaction_flags(fs, BTRFS_TRANS_PROGS_ORDER, &t);
	/* block groups as their chunks (items written by the commit); dev extents anew, in chunk order */
	for (size_t i = 0; ret == 0 && i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *cm = fs->chunks.chunks[i];

		ret = btrfs_trans_set_block_group_flags(t, cm->logical, cm->type);
		if (ret == -ENOENT) {
			warning("cannot find block group %llu, filesystem may not be mountable",
				(unsigned long long)cm->logical);
			ret = 0;
		}
	}
	if (ret == 0)
		ret = delete_items(t, BTRFS_DEV_TREE_OBJECTID,
				   (struct btrfs_key){ 1, BTRFS_DEV_EXTENT_KEY, 0 }, dev_extent_fate, 0);
	if (ret == 0)
		ret = delete_items(t, BTRFS_CHUNK_TREE_OBJECTID,
				   (struct btrfs_key){ BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, 0 },
				   other_dev_item_fate, devid);
	for (size_t i = 0; ret == 0 && i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *cm = fs->chunks.chunks[i];

		for (int s = 0; ret == 0 && s < cm->num_stripes; s++) {
			ret = btrfs_insert_dev_extent(t, devid, cm->stripes[s].physical, cm->logical,
						      cm->length);
			dev_size = max_t(u64, dev_size, cm->stripes[s].physical + cm->length);
		}
	}
	/* the device ends with its last dev extent */
	btrfs_init_path(&path);
	if (ret == 0)
		ret = btrfs_trans_dev_item(t, devid, &path);
	if (ret == 0) {
		struct btrfs_dev_item *di = btrfs_path_item_ptr(&path);

		btrfs_set_device_total_bytes(di, dev_size);
		btrfs_set_device_bytes_used(di, info->alloced);
		btrfs_release_path(&path);
		btrfs_set_super_total_bytes(fs->super, dev_size);
		if (info->is_file && ftruncate(fs->devices.devs[0].fd, (off_t)dev_size)) {
			ret = -errno;
			error_errno(ret, "cannot size %s to %llu bytes", target, (unsigned long long)dev_size);
		}
	}
	if (ret == 0) {
		/* this commit makes it a filesystem */
		btrfs_set_super_magic(fs->super, BTRFS_MAGIC);
		ret = btrfs_commit_transaction(t);
		t = NULL;
	}
	if (ret)
		error_errno(ret, "cannot fix the chunks and devices of %s", target);
	if (t)
		btrfs_abort_transaction(t);
	btrfs_close_fs(fs);
	return ret;
}

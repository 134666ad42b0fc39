// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3's chunks and devices: each chunk item of the chunk tree against
 * the chunk map (for a system chunk the superblock's sys_chunk_array copy)
 * and its stripes' device uuids, each device item's uuid and fsid, as the
 * walk reads them; then every dev extent against its chunk and its device,
 * every chunk stripe against its dev extent, every system chunk's item,
 * every device's bytes_used and size (check/super-dev-items.c), and the
 * superblock's device count, total bytes and bytes used.
 */
#include <uuid/uuid.h>
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

/*
 * A chunk item of the chunk tree against the mapping reads go through: for a
 * system chunk that is the superblock's sys_chunk_array copy (the kernel,
 * too, keeps the first copy it reads), so the two must agree; a chunk tree
 * copy that differs is what the kernel would write back at its next commit.
 */
void check_compare_chunk_item(struct check_ctx *ctx, const struct btrfs_key *key,
			      const struct btrfs_chunk *chunk, u32 size)
{
	const struct btrfs_chunk_map *m = btrfs_chunk_lookup(&ctx->fs->chunks, key->offset);
	u16 n;

	if (size < sizeof(*chunk) || !m || m->logical != key->offset)
		return;   /* the tree-checker and the open reported it */
	n = btrfs_chunk_num_stripes(chunk);
	if (btrfs_chunk_length(chunk) != m->length || btrfs_chunk_type(chunk) != m->type ||
	    n != m->num_stripes || btrfs_chunk_sub_stripes(chunk) != m->sub_stripes ||
	    size < btrfs_chunk_item_size(n)) {
		check_error(ctx, "chunk [%llu %llu]: the chunk tree item (length %llu type 0x%llx stripes %u) differs from the superblock's sys_chunk_array copy (length %llu type 0x%llx stripes %u)",
			    m->logical, m->length, btrfs_chunk_length(chunk), btrfs_chunk_type(chunk), n,
			    m->length, m->type, m->num_stripes);
		if (m->type & BTRFS_BLOCK_GROUP_SYSTEM)
			check_queue_chunk_from_copy(ctx, m->logical);
		return;
	}
	for (u16 i = 0; i < n; i++) {
		const struct btrfs_stripe *st = &chunk->stripe[i];

		if (btrfs_stripe_devid(st) != m->stripes[i].devid ||
		    btrfs_stripe_offset(st) != m->stripes[i].physical ||
		    memcmp(st->dev_uuid, m->stripes[i].dev_uuid, BTRFS_UUID_SIZE)) {
			check_error(ctx, "chunk [%llu %llu] stripe %u: the chunk tree item has devid %llu physical %llu (or another device uuid), the superblock's sys_chunk_array copy devid %llu physical %llu",
				    m->logical, m->length, i, btrfs_stripe_devid(st), btrfs_stripe_offset(st),
				    m->stripes[i].devid, m->stripes[i].physical);
			if (m->type & BTRFS_BLOCK_GROUP_SYSTEM)
				check_queue_chunk_from_copy(ctx, m->logical);
		}
	}
}

/*
 * A system chunk (the superblock's sys_chunk_array has it) has its item in
 * the chunk tree too: the kernel maps it from the array but updates, and
 * removes, the item (a removal that finds none aborts the transaction).
 */
static void check_sys_chunk_item(struct check_ctx *ctx, const struct btrfs_chunk_map *ch)
{
	struct btrfs_key key = { .objectid = BTRFS_FIRST_CHUNK_TREE_OBJECTID, .type = BTRFS_CHUNK_ITEM_KEY,
				 .offset = ch->logical };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(ctx->fs, &ctx->fs->chunk_root, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	btrfs_release_path(&path);
	if (ret == 1) {
		check_error(ctx, "chunk tree: no chunk item (256 CHUNK_ITEM %llu) for the system chunk [%llu %llu] of the superblock's sys_chunk_array",
			    ch->logical, ch->logical, ch->length);
		check_queue_chunk_item_from_copy(ctx, ch);
	}
}

/*
 * Each stripe of a chunk item names its device by devid and device uuid:
 * the kernel looks both up, and a pair matching no device item is a device
 * missing (a mount refused, or degraded) though the devid is here.
 */
void check_chunk_stripe_devs(struct check_ctx *ctx, const struct extent_buffer *eb,
			     const struct btrfs_key *key, const struct btrfs_chunk *chunk, u32 size)
{
	u16 n;

	if (size < sizeof(*chunk) || size < btrfs_chunk_item_size(n = btrfs_chunk_num_stripes(chunk)))
		return;   /* the tree-checker reported it */
	for (u16 i = 0; i < n; i++) {
		const struct btrfs_stripe *st = &chunk->stripe[i];
		u64 devid = btrfs_stripe_devid(st);
		const struct btrfs_device *d = btrfs_find_device(&ctx->fs->devices, devid, NULL);
		char have[BTRFS_UUID_UNPARSED_SIZE], want[BTRFS_UUID_UNPARSED_SIZE];

		if (!d || btrfs_find_device(&ctx->fs->devices, devid, st->dev_uuid))
			continue;   /* a devid of no device: compared with the dev extents */
		uuid_unparse(st->dev_uuid, have);
		uuid_unparse(d->uuid, want);
		check_error(ctx, "chunk tree: leaf %llu chunk item (%llu CHUNK_ITEM %llu) stripe %u: devid %llu with device uuid %s, but device %llu has uuid %s",
			    eb->start, key->objectid, key->offset, i, devid, have, devid, want);
	}
}

/*
 * A device item whose uuid names no device we have, while a device with its
 * devid is here: the item (or that device's superblock) is damaged, not a
 * device missing.  (A device really missing was warned about at open.)
 */
void check_dev_item_uuid(struct check_ctx *ctx, const struct btrfs_dev_item *di)
{
	const struct btrfs_device_list *list = &ctx->fs->devices;
	u64 devid = btrfs_device_id(di);
	char have[BTRFS_UUID_UNPARSED_SIZE], want[BTRFS_UUID_UNPARSED_SIZE];
	const struct btrfs_device *same = NULL;

	for (int i = 0; i < list->nr; i++) {
		const struct btrfs_device *d = &list->devs[i];

		if (d->devid != devid)
			continue;
		if (!memcmp(d->uuid, di->uuid, BTRFS_UUID_SIZE) && d->fd >= 0) {
			/* the item names the filesystem the opened device is of (a seed's: the seed's) */
			if (memcmp(di->fsid, d->fsid, BTRFS_FSID_SIZE)) {
				uuid_unparse(di->fsid, have);
				uuid_unparse(d->fsid, want);
				check_error(ctx, "chunk tree: device item devid %llu has fsid %s, but device %s is of filesystem %s",
					    devid, have, d->path, want);
			}
			return;
		}
		if (d->fd >= 0)
			same = d;
	}
	if (!same)
		return;
	uuid_unparse(di->uuid, have);
	uuid_unparse(same->uuid, want);
	check_error(ctx, "device item devid %llu has uuid %s, but device %s with that devid has uuid %s",
		    devid, have, same->path, want);
}

static struct check_dev *find_dev(struct ext_state *st, u64 devid)
{
	size_t i;

	for (i = 0; i < st->dev_nr; i++)
		if (st->dev[i].devid == devid)
			return &st->dev[i];
	return NULL;
}

void check_devices(struct check_ctx *ctx, struct ext_state *st)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	const struct btrfs_chunk_tree_map *map = &ctx->fs->chunks;
	u64 total = 0;
	size_t i;
	int s;
	bool dev_item_queued = false;
	size_t dev_items_added = 0;

	for (i = 0; i < st->dev_nr; i++)
		st->dev[i].sum = st->dev[i].orphan = st->dev[i].missing = st->dev[i].end = 0;
	for (i = 0; i < st->dext_nr; i++) {
		struct check_devext *d = &st->dext[i];
		const struct btrfs_chunk_map *ch = btrfs_chunk_lookup(map, d->chunk_offset);
		struct check_dev *dev = find_dev(st, d->devid);
		bool found = false;

		if (i && d->devid == st->dext[i - 1].devid &&
		    d->physical < st->dext[i - 1].physical + st->dext[i - 1].len)
			check_error(ctx, "dev extent devid %llu physical offset %llu len %llu overlaps the previous one ending at %llu",
				    d->devid, d->physical, d->len, st->dext[i - 1].physical + st->dext[i - 1].len);
		if (!dev) {
			check_error(ctx, "dev extent devid %llu physical offset %llu len %llu: no device item with devid %llu",
				    d->devid, d->physical, d->len, d->devid);
			/* the first of the device's extents (sorted by devid) queues the item, the rest share it */
			if (!i || st->dext[i - 1].devid != d->devid) {
				dev_item_queued = check_dev_item_from_super(ctx, st, d->devid);
				dev_items_added += dev_item_queued;
			} else if (dev_item_queued) {
				check_fixable(ctx, NULL, NULL, 0);
			}
		} else {
			dev->sum += d->len;
			dev->end = max_t(u64, dev->end, d->physical + d->len);
			if (d->physical + d->len > dev->total_bytes)
				check_error(ctx, "dev extent devid %llu physical offset %llu len %llu is beyond device boundary %llu",
					    d->devid, d->physical, d->len, dev->total_bytes);
		}
		if (ch && ch->logical == d->chunk_offset) {
			for (s = 0; s < ch->num_stripes; s++)
				if (ch->stripes[s].devid == d->devid && ch->stripes[s].physical == d->physical)
					found = true;
		}
		if (!found && check_stripe_fixed(st, d->chunk_offset, -1))
			continue;   /* its chunk item is made anew */
		if (!found && check_chunk_stripe_place(ctx, st, d))
			found = true;
		/* a chunk_offset naming another chunk than the one with its stripe here */
		if (!found) {
			const struct btrfs_chunk_map *at = check_chunk_at_place(map, d->devid, d->physical);

			if (at && at->logical != d->chunk_offset) {
				check_error(ctx, "dev extent devid %llu physical %llu names chunk %llu; chunk %llu has its stripe there",
					    d->devid, d->physical, d->chunk_offset, at->logical);
				check_queue_dev_extent_chunk(ctx, d, at->logical);
				ch = at;
				found = true;
			}
		}
		if (!found) {
			check_error(ctx, "Device extent[%llu, %llu, %llu] didn't find the relative chunk (chunk offset %llu)",
				    d->devid, d->physical, d->len, d->chunk_offset);
			check_queue_orphan_dev_extent(ctx, d, dev != NULL);
			if (dev)
				dev->orphan += d->len;
			continue;
		}
		if (d->len != check_chunk_dev_len(ch) && !check_stripe_fixed(st, ch->logical, -1)) {
			check_error(ctx, "dev extent devid %llu physical %llu: length %llu, chunk %llu needs %llu",
				    d->devid, d->physical, d->len, ch->logical, check_chunk_dev_len(ch));
			check_queue_dev_extent_length(ctx, dev, d, check_chunk_dev_len(ch));
		}
	}
	for (i = 0; i < map->nr; i++) {
		const struct btrfs_chunk_map *ch = map->chunks[i];

		if (ch->type & BTRFS_BLOCK_GROUP_SYSTEM)
			check_sys_chunk_item(ctx, ch);
		for (s = 0; s < ch->num_stripes; s++) {
			const struct check_devext *x = check_find_dev_extent(st, ch->stripes[s].devid,
									    ch->stripes[s].physical);

			if (check_stripe_fixed(st, ch->logical, s))
				continue;   /* set to its dev extent's place by a queued fix */
			const struct btrfs_chunk_map *other = x ? btrfs_chunk_lookup(map, x->chunk_offset) : NULL;

			/* another chunk's (one that exists): the two would share the place */
			if (x && x->chunk_offset != ch->logical && other && other->logical == x->chunk_offset) {
				check_error(ctx, "chunk [%llu %llu] stripe %d (devid %llu physical %llu) is at the dev extent of chunk %llu",
					    ch->logical, ch->length, s, ch->stripes[s].devid, ch->stripes[s].physical,
					    x->chunk_offset);
				continue;
			}
			if (x)
				continue;
			check_error(ctx, "chunk [%llu %llu] stripe %d (devid %llu physical %llu) has no dev extent",
				    ch->logical, ch->length, s, ch->stripes[s].devid, ch->stripes[s].physical);
			check_queue_missing_dev_extent(ctx, st, find_dev(st, ch->stripes[s].devid), ch, s);
		}
	}
	for (i = 0; i < st->dev_nr; i++) {
		struct check_dev *d = &st->dev[i];

		check_device_size(ctx, st, d);
		total += d->total_bytes;
		if (d->bytes_used != d->sum) {
			check_error(ctx, "device item devid %llu: bytes_used %llu, dev extents sum to %llu",
				    d->devid, d->bytes_used, d->sum);
			check_queue_dev_used(ctx, d);
		}
		if (!IS_ALIGNED(d->total_bytes, (u64)st->sectorsize))
			warning("unaligned total_bytes detected for devid %llu, have %llu should be aligned to %u",
				d->devid, d->total_bytes, st->sectorsize);
	}
	check_super_dev_items(ctx, st);
	if (btrfs_super_num_devices(sb) != st->dev_nr) {
		check_error(ctx, "super num devices mismatch, have %llu expect %zu",
			    btrfs_super_num_devices(sb), st->dev_nr);
		if (btrfs_super_num_devices(sb) == st->dev_nr + dev_items_added)
			check_fixable(ctx, NULL, NULL, 0);   /* the device items added make it so */
		else
			check_queue_super_num_devices(ctx, st->dev_nr + dev_items_added);
	}
	if (btrfs_super_total_bytes(sb) < total) {
		check_error(ctx, "super total bytes %llu smaller than real device(s) size %llu",
			    btrfs_super_total_bytes(sb), total);
		check_queue_super_total_bytes(ctx, st);
	}
	if (btrfs_super_bytes_used(sb) != st->bytes_used) {
		check_error(ctx, "super bytes used %llu mismatches actual used %llu",
			    btrfs_super_bytes_used(sb), st->bytes_used);
		check_queue_super_bytes_used(ctx, st->bytes_used);
	}
}

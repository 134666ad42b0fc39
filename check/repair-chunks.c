// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk items whose type disagrees with what maps and fills the chunk
 * (check --repair, pass 3):
 * - a system chunk's item in the chunk tree that differs from the
 *   superblock's sys_chunk_array copy takes the copy's fields: the kernel
 *   maps system chunks by the copy (the first it reads) and would write the
 *   item back from it;
 * - a chunk whose type and block group item's flags differ takes the
 *   block group's flags when those name the kind of what the chunk holds
 *   (tree blocks of the chunk tree: system; other tree blocks: metadata;
 *   data extents: data) and its own type does not, the profile alike.
 *
 * - a stripe with no dev extent of its own, where a dev extent of the chunk
 *   that finds no stripe is on the same device at another place, or at the
 *   same place of a device that has an item while the stripe's devid has
 *   none: the stripe takes that dev extent's device and place.
 *
 * - a block group whose flags name another kind than what it holds, while
 *   its chunk's type names that kind: the chunk's type (its profile is the
 *   one the tree-checker held against the chunk's stripes).
 *
 * - a chunk whose length differs from its block group's, while every stripe
 *   has its dev extent, each as long as the block group's length over the
 *   chunk's data stripes: the block group's length (two witnesses).
 *
 * - a block group without a chunk item, of a mirrored profile (single, DUP,
 *   raid1*), whose dev extents name it, as many as the profile has copies,
 *   each as long as the block group: a chunk item made of them (any stripe
 *   order maps a mirrored chunk alike), added to the map before the
 *   transaction starts (its allocator loads a block group for each chunk).
 *
 * The in-memory chunk map, which the fs roots pass reads meanwhile, is set
 * by the fix itself, in the repair's transaction (before its blocks are
 * written and the re-check maps them); the pass keeps the stripes it fixed
 * in the extents state (check_stripe_fixed()).
 */
#include <stdio.h>
#include <string.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/disk-io.h"

struct chunk_fix {
	u64 logical;
	bool from_copy;   /* every field from the map's (sys_chunk_array) copy */
	int stripe;       /* >= 0: that stripe's device and place, set to devid, physical, uuid */
	u64 type;         /* else (not from_copy): the type, */
	u64 length;       /* or, when not 0, the length */
	u64 devid, physical;
	u8 uuid[BTRFS_UUID_SIZE];
};

/* The filesystem's own map entry of the chunk at logical (the repair changes it), or NULL. */
static struct btrfs_chunk_map *map_entry(struct btrfs_fs_info *fs, u64 logical)
{
	for (size_t j = 0; j < fs->chunks.nr; j++)
		if (fs->chunks.chunks[j]->logical == logical)
			return fs->chunks.chunks[j];
	return NULL;
}

void check_chunk_item_from_map(struct btrfs_chunk *c, const struct btrfs_chunk_map *map)
{
	btrfs_set_chunk_length(c, map->length);
	btrfs_set_chunk_type(c, map->type);
	btrfs_set_chunk_num_stripes(c, map->num_stripes);
	btrfs_set_chunk_sub_stripes(c, map->sub_stripes);
	for (u16 i = 0; i < map->num_stripes; i++) {
		btrfs_set_stripe_devid(&c->stripe[i], map->stripes[i].devid);
		btrfs_set_stripe_offset(&c->stripe[i], map->stripes[i].physical);
		memcpy(c->stripe[i].dev_uuid, map->stripes[i].dev_uuid, BTRFS_UUID_SIZE);
	}
}

/*
 * The chunk item at path changed: a system chunk's sys_chunk_array copy
 * follows it at commit (the next opener maps the chunk by the copy, and the
 * re-check reads it so).  The path is released.
 */
static int item_done(struct btrfs_trans *t, const struct btrfs_chunk_map *map, struct btrfs_path *path)
{
	int ret = 0;

	if (map->type & BTRFS_BLOCK_GROUP_SYSTEM)
		ret = btrfs_trans_set_sys_chunk(t, map->logical, btrfs_path_item_ptr(path),
						btrfs_path_item_size(path));
	btrfs_release_path(path);
	return ret;
}

static int fix_chunk(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct chunk_fix *f = arg;
	struct btrfs_chunk_map *map = map_entry(ctx->fs, f->logical);
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, f->logical };
	struct btrfs_wroot *chunk_root;
	struct btrfs_path path;
	struct btrfs_chunk *c;
	int ret;

	if (!map)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk_root);
	if (ret == 0)
		ret = btrfs_search_slot(t, chunk_root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(&path) != btrfs_chunk_item_size(map->num_stripes))
		ret = -EUCLEAN;
	if (ret) {
		btrfs_release_path(&path);
		ret = ret > 0 ? -ENOENT : ret;
		error("repair: chunk item (256 CHUNK_ITEM %llu): %s", f->logical, strerror(-ret));
		return ret;
	}
	c = btrfs_path_item_ptr(&path);
	if (f->stripe >= 0 && f->stripe < map->num_stripes) {
		struct btrfs_chunk_stripe *s = &map->stripes[f->stripe];

		printf("Chunk %llu stripe %d: devid %llu physical %llu reset to devid %llu physical %llu, its dev extent's\n",
		       f->logical, f->stripe, (unsigned long long)btrfs_stripe_devid(&c->stripe[f->stripe]),
		       (unsigned long long)btrfs_stripe_offset(&c->stripe[f->stripe]),
		       (unsigned long long)f->devid, (unsigned long long)f->physical);
		btrfs_set_stripe_devid(&c->stripe[f->stripe], f->devid);
		btrfs_set_stripe_offset(&c->stripe[f->stripe], f->physical);
		memcpy(c->stripe[f->stripe].dev_uuid, f->uuid, BTRFS_UUID_SIZE);
		s->devid = f->devid;
		s->physical = f->physical;
		memcpy(s->dev_uuid, f->uuid, BTRFS_UUID_SIZE);
		return item_done(t, map, &path);
	}
	if (f->length) {
		printf("Chunk %llu: length %llu reset to %llu, its block group's and dev extents'\n", f->logical,
		       (unsigned long long)btrfs_chunk_length(c), (unsigned long long)f->length);
		btrfs_set_chunk_length(c, f->length);
		return item_done(t, map, &path);
	}
	if (!f->from_copy)
		map->type = f->type;
	printf("Chunk %llu: type 0x%llx reset to 0x%llx%s\n", f->logical,
	       (unsigned long long)btrfs_chunk_type(c), (unsigned long long)map->type,
	       f->from_copy ? ", the item set from the superblock's sys_chunk_array copy" :
			      ", its block group's flags");
	if (f->from_copy) {
		check_chunk_item_from_map(c, map);
		btrfs_release_path(&path);
		return 0;
	}
	btrfs_set_chunk_type(c, map->type);
	return item_done(t, map, &path);
}

void check_queue_chunk_from_copy(struct check_ctx *ctx, u64 logical)
{
	struct chunk_fix f = { .logical = logical, .from_copy = true, .stripe = -1 };

	check_fixable(ctx, fix_chunk, &f, sizeof(f));
}

/* The kinds (BTRFS_BLOCK_GROUP_TYPE_MASK bits) of what [start, start + len) holds; 0: nothing. */
static u64 contents_kind(const struct ext_state *st, u64 start, u64 len)
{
	u64 kind = 0;

	/* linear: this runs only for a chunk that disagrees with its block group */
	for (size_t i = 0; i < st->owners_nr; i++)
		if (st->owners[i].bytenr >= start && st->owners[i].bytenr - start < len)
			kind |= st->owners[i].owner == BTRFS_CHUNK_TREE_OBJECTID ? BTRFS_BLOCK_GROUP_SYSTEM :
										   BTRFS_BLOCK_GROUP_METADATA;
	for (size_t i = 0; i < st->ext_nr; i++)
		if ((st->ext[i].flags & BTRFS_EXTENT_FLAG_DATA) && st->ext[i].start >= start &&
		    st->ext[i].start - start < len)
			kind |= BTRFS_BLOCK_GROUP_DATA;
	return kind;
}

void check_chunk_against_bg(struct check_ctx *ctx, const struct ext_state *st, const struct btrfs_chunk_map *ch,
			    const struct check_bg *bg)
{
	u64 kind = contents_kind(st, bg->start, bg->len);

	/* the same profile; the block group names what is inside, the chunk does not */
	if (!kind || ch->length != bg->len ||
	    (ch->type & BTRFS_BLOCK_GROUP_PROFILE_MASK) != (bg->flags & BTRFS_BLOCK_GROUP_PROFILE_MASK) ||
	    (bg->flags & BTRFS_BLOCK_GROUP_TYPE_MASK) != kind ||
	    (ch->type & BTRFS_BLOCK_GROUP_TYPE_MASK) == kind || (bg->flags & ~(BTRFS_BLOCK_GROUP_TYPE_MASK |
									BTRFS_BLOCK_GROUP_PROFILE_MASK)))
		return;
	if (check_repairing(ctx)) {
		struct chunk_fix f = { .logical = ch->logical, .stripe = -1, .type = bg->flags };

		check_fixable(ctx, fix_chunk, &f, sizeof(f));
	}
}

/*
 * A fix of the chunk item at logical as a whole: map_fn sets the map before
 * the transaction (it loads a block group for each chunk of the map, by its
 * length), item_fn the item in it; the chunk is kept as stripe -1, so that
 * its dev extents are not held against the map.
 */
static void queue_whole_chunk_fix(struct check_ctx *ctx, struct ext_state *st, u64 logical, check_fix_fn map_fn,
				  check_fix_fn item_fn, const void *arg, size_t size)
{
	struct check_stripe_fix *x = CHECK_PUSH(st, stripe_fixes);

	if (!x) {
		check_fixable(ctx, NULL, NULL, 0);
		return;
	}
	*x = (struct check_stripe_fix){ logical, -1 };
	check_fixable_before_trans(ctx, map_fn, arg, size);
	check_fixable(ctx, item_fn, arg, size);
}

/* Before the transaction: the map's length. */
static int fix_chunk_map_length(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct chunk_fix *f = arg;
	struct btrfs_chunk_map *map = map_entry(ctx->fs, f->logical);

	(void)t;
	if (!map)
		return -ENOENT;
	map->length = f->length;
	return 0;
}

bool check_chunk_length_from_bg(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_chunk_map *ch,
				const struct check_bg *bg)
{
	u32 data = (u32)btrfs_chunk_data_stripes(ch);
	u64 dev_len = bg->len / data;

	if (ch->length == bg->len || bg->len % data || !IS_ALIGNED(bg->len, ctx->fs->geo.sectorsize) ||
	    ch->logical + bg->len < ch->logical)
		return false;
	/* the next chunk in logical order must start at or after the new end */
	for (size_t i = 0; i < ctx->fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *next = ctx->fs->chunks.chunks[i];

		if (next->logical > ch->logical && next->logical < ch->logical + bg->len)
			return false;
	}
	for (u16 i = 0; i < ch->num_stripes; i++) {
		const struct check_devext *d = check_find_dev_extent(st, ch->stripes[i].devid, ch->stripes[i].physical);

		if (!d || d->chunk_offset != ch->logical || d->len != dev_len)
			return false;
	}
	check_error(ctx, "chunk [%llu %llu]: length %llu, its block group and its %u dev extents say %llu",
		    ch->logical, ch->length, ch->length, ch->num_stripes, bg->len);
	if (check_repairing(ctx)) {
		struct chunk_fix f = { .logical = ch->logical, .stripe = -1, .length = bg->len };

		queue_whole_chunk_fix(ctx, st, ch->logical, fix_chunk_map_length, fix_chunk, &f, sizeof(f));
	}
	return true;
}

/* The most copies a mirrored profile keeps (raid1c4): the stripes a rebuilt chunk item may have. */
#define MIRRORED_STRIPES_MAX 4

/* A chunk item made from its block group and dev extents (check_chunk_from_dev_extents()). */
struct chunk_rebuild {
	u64 logical;
	u32 size;
	u8 item[sizeof(struct btrfs_chunk) + MIRRORED_STRIPES_MAX * sizeof(struct btrfs_stripe)];
};

static int fix_chunk_rebuild_map(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct chunk_rebuild *r = arg;

	(void)t;
	return btrfs_add_chunk(&ctx->fs->chunks, r->logical, (const struct btrfs_chunk *)r->item, r->size,
			       ctx->fs->geo.sectorsize);
}

static int fix_chunk_rebuild(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct chunk_rebuild *r = arg;
	struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, r->logical };
	struct btrfs_wroot *chunk_root;
	int ret;

	(void)ctx;
	ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk_root);
	if (ret == 0)
		ret = btrfs_insert_item(t, chunk_root, &key, r->item, r->size);
	if (ret < 0) {
		error("repair: chunk item (256 CHUNK_ITEM %llu): %s", r->logical, strerror(-ret));
		return ret;
	}
	printf("Chunk %llu: item added, num_stripes %u\n", r->logical,
	       btrfs_chunk_num_stripes((const struct btrfs_chunk *)r->item));
	return 0;
}

void check_queue_chunk_item_from_copy(struct check_ctx *ctx, const struct btrfs_chunk_map *ch)
{
	struct chunk_rebuild r = { .logical = ch->logical };
	struct btrfs_chunk *c = (struct btrfs_chunk *)r.item;

	if (!check_repairing(ctx) || ch->num_stripes > MIRRORED_STRIPES_MAX)
		return;
	r.size = (u32)btrfs_chunk_item_size(ch->num_stripes);
	btrfs_chunk_item_init(c, ch->length, ch->type, ctx->fs->geo.sectorsize, ch->num_stripes, ch->sub_stripes);
	check_chunk_item_from_map(c, ch);
	check_fixable(ctx, fix_chunk_rebuild, &r, sizeof(r));
}

bool check_chunk_from_dev_extents(struct check_ctx *ctx, struct ext_state *st, const struct check_bg *bg)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_find(bg->flags & BTRFS_BLOCK_GROUP_PROFILE_MASK);
	struct chunk_rebuild r = { .logical = bg->start };
	struct btrfs_chunk *c = (struct btrfs_chunk *)r.item;
	u16 n = 0;

	if (!p || p->layout != BTRFS_RAID_MIRRORED || p->ncopies > MIRRORED_STRIPES_MAX ||
	    (bg->flags & BTRFS_BLOCK_GROUP_SYSTEM))
		return false;
	for (size_t i = 0; i < st->dext_nr; i++) {
		const struct check_devext *d = &st->dext[i];
		const struct btrfs_device *dev;

		if (d->chunk_offset != bg->start)
			continue;
		dev = btrfs_find_device(&ctx->fs->devices, d->devid, NULL);
		if (!dev || d->len != bg->len || n == p->ncopies)
			return false;
		btrfs_set_stripe_devid(btrfs_chunk_stripe(c, n), d->devid);
		btrfs_set_stripe_offset(btrfs_chunk_stripe(c, n), d->physical);
		memcpy(btrfs_chunk_stripe(c, n)->dev_uuid, dev->uuid, BTRFS_UUID_SIZE);
		n++;
	}
	if (n != p->ncopies)
		return false;
	r.size = (u32)btrfs_chunk_item_size(n);
	btrfs_chunk_item_init(c, bg->len, bg->flags, ctx->fs->geo.sectorsize, n, p->sub_stripes);
	if (btrfs_check_chunk(r.logical, c, r.size, ctx->fs->geo.sectorsize, ctx->fs->geo.incompat_flags, NULL, 0) < 0)
		return false;
	check_error(ctx, "block group [%llu %llu] has no chunk; its %u dev extents make one", bg->start, bg->len, n);
	if (check_repairing(ctx))
		queue_whole_chunk_fix(ctx, st, bg->start, fix_chunk_rebuild_map, fix_chunk_rebuild, &r, sizeof(r));
	return true;
}

bool check_stripe_fixed(const struct ext_state *st, u64 logical, int stripe)
{
	for (size_t i = 0; i < st->stripe_fixes_nr; i++)
		if (st->stripe_fixes[i].logical == logical && st->stripe_fixes[i].stripe == stripe)
			return true;
	return false;
}

bool check_chunk_stripe_place(struct check_ctx *ctx, struct ext_state *st, const struct check_devext *d)
{
	const struct btrfs_device *dev = btrfs_find_device(&ctx->fs->devices, d->devid, NULL);
	const struct btrfs_chunk_map *ch = btrfs_chunk_lookup(&ctx->fs->chunks, d->chunk_offset);
	const struct btrfs_chunk_stripe *fit = NULL;
	int n = 0, at = -1;

	if (!dev || !ch || ch->logical != d->chunk_offset || d->len != check_chunk_dev_len(ch))
		return false;
	for (u16 i = 0; i < ch->num_stripes; i++) {
		const struct btrfs_chunk_stripe *s = &ch->stripes[i];
		const struct check_devext *own = check_find_dev_extent(st, s->devid, s->physical);
		bool has_item = false;

		if (own && own->chunk_offset == ch->logical)
			continue;   /* this stripe has its dev extent */
		for (size_t j = 0; j < st->dev_nr; j++)
			has_item |= st->dev[j].devid == s->devid;
		if ((s->devid == d->devid && s->physical != d->physical) ||
		    (s->physical == d->physical && !has_item)) {
			fit = s;
			at = i;
			n++;
		}
	}
	if (n != 1)
		return false;
	check_error(ctx, "chunk [%llu %llu] stripe %d is devid %llu physical %llu, where it has no dev extent; its dev extent is devid %llu physical %llu",
		    ch->logical, ch->length, at, (unsigned long long)fit->devid, (unsigned long long)fit->physical,
		    d->devid, d->physical);
	if (check_repairing(ctx)) {
		struct chunk_fix f = { .logical = ch->logical, .stripe = at, .devid = d->devid,
				       .physical = d->physical };
		struct check_stripe_fix *x = CHECK_PUSH(st, stripe_fixes);

		memcpy(f.uuid, dev->uuid, BTRFS_UUID_SIZE);
		if (!x) {
			check_fixable(ctx, NULL, NULL, 0);
			return true;
		}
		*x = (struct check_stripe_fix){ ch->logical, at };
		check_fixable(ctx, fix_chunk, &f, sizeof(f));
	}
	return true;
}

struct bg_flags_fix {
	u64 start;
	u64 flags;
};

static int fix_bg_flags(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct bg_flags_fix *f = arg;
	int ret = btrfs_trans_set_block_group_flags(t, f->start, f->flags);

	(void)ctx;
	if (ret < 0) {
		error("repair: block group %llu: %s", f->start, strerror(-ret));
		return ret;
	}
	printf("Block group %llu: flags set to 0x%llx, its chunk's type\n", f->start, (unsigned long long)f->flags);
	return 0;
}

void check_bg_kinds(struct check_ctx *ctx, struct ext_state *st)
{
	const struct btrfs_chunk_tree_map *map = &ctx->fs->chunks;

	for (size_t i = 0; i < st->bg_nr; i++) {
		struct check_bg *bg = &st->bg[i];
		const struct btrfs_chunk_map *ch = btrfs_chunk_lookup(map, bg->start);
		u64 kind, type;

		if (!ch || ch->logical != bg->start || ch->length != bg->len)
			continue;
		type = ch->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV;
		if (type == bg->flags)
			continue;
		kind = contents_kind(st, bg->start, bg->len);
		if (!kind || (type & BTRFS_BLOCK_GROUP_TYPE_MASK) != kind ||
		    (bg->flags & BTRFS_BLOCK_GROUP_TYPE_MASK) == kind)
			continue;
		check_error(ctx, "block group [%llu %llu] flags 0x%llx name another kind than it holds; its chunk's type 0x%llx names it",
			    bg->start, bg->len, (unsigned long long)bg->flags, (unsigned long long)type);
		if (check_repairing(ctx)) {
			struct bg_flags_fix f = { bg->start, type };

			check_fixable(ctx, fix_bg_flags, &f, sizeof(f));
			bg->flags = type;
		}
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3, extents: walk every tree once (root tree, chunk tree, the tree of
 * every ROOT_ITEM incl. relocation trees), verifying every block through the
 * verified read path, and collect
 *   - the references the trees make: every pointer to a tree block, every
 *     file extent item pointing to a data extent ("expected" refs),
 *   - what the extent tree says: extent and metadata items, inline and keyed
 *     back references ("found" refs), block group items,
 *   - chunk tree device items, device tree dev extents,
 *   - the summary figures (struct check_stats).
 * Then compare: refs and counts per extent, extents without refs, refs
 * without extents, overlaps, block group used bytes, super bytes_used,
 * device bytes_used, dev extents against chunks and device sizes.
 *
 * A block reached a second time (shared by snapshots) is not entered again:
 * its contents were accounted the first time, and the new parent adds only
 * its own pointer.  Whether a parent's pointers are shared refs (by parent
 * bytenr) or tree refs (by owner) depends on the FULL_BACKREF flag of the
 * parent's extent item, so refs are resolved after the extent tree is read.
 *
 * Memory: flat arrays sorted with qsort and searched by bisection, an
 * open-addressing set of visited block addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <uuid/uuid.h>
#include "check/context.h"
#include "check/extents.h"
#include "check/header-mend.h"
#include "check/repair-fs-roots.h"
#include "check/repair-leaves.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "check/passes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/engine/transaction.h"

#define HEADER_SIZE ((u32)sizeof(struct btrfs_header))
#define ITEM_SIZE ((u32)sizeof(struct btrfs_item))
#define PTR_SIZE ((u32)sizeof(struct btrfs_key_ptr))

/* ---- visited set ------------------------------------------------------------ */

static int seen_insert(struct ext_state *st, u64 bytenr)
{
	size_t mask, i;

	if ((st->seen_nr + 1) * 2 > st->seen_cap) {
		size_t ncap = st->seen_cap ? st->seen_cap * 2 : 4096, j;
		u64 *n = calloc(ncap, sizeof(u64));

		if (!n)
			return -ENOMEM;
		for (j = 0; j < st->seen_cap; j++) {
			u64 b = st->seen[j];

			if (!b)
				continue;
			i = (size_t)((b / 4096) * 0x9E3779B97F4A7C15ULL) & (ncap - 1);
			while (n[i])
				i = (i + 1) & (ncap - 1);
			n[i] = b;
		}
		free(st->seen);
		st->seen = n;
		st->seen_cap = ncap;
	}
	mask = st->seen_cap - 1;
	i = (size_t)((bytenr / 4096) * 0x9E3779B97F4A7C15ULL) & mask;
	while (st->seen[i]) {
		if (st->seen[i] == bytenr)
			return 1;
		i = (i + 1) & mask;
	}
	st->seen[i] = bytenr;
	st->seen_nr++;
	return 0;
}

/* ---- helpers ------------------------------------------------------------------ */

/*
 * A chunk item of the chunk tree against the mapping reads go through: for a
 * system chunk that is the superblock's sys_chunk_array copy (the kernel,
 * too, keeps the first copy it reads), so the two must agree; a chunk tree
 * copy that differs is what the kernel would write back at its next commit.
 */
static void compare_chunk_item(struct check_ctx *ctx, const struct btrfs_key *key,
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
static void check_chunk_stripe_devs(struct check_ctx *ctx, const struct extent_buffer *eb,
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
static void check_dev_item_uuid(struct check_ctx *ctx, const struct btrfs_dev_item *di)
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

/* --repair: the good copy of a tree block goes over its bad copy, once the repair committed. */
struct copy_fix {
	u64 bytenr;
	int good, bad;
};

static int fix_copy(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct copy_fix *f = arg;
	struct tree_check any = { 0, -1, 0, NULL };
	struct extent_buffer *eb, *bad;
	char msg[256];
	bool same;
	int ret;

	ret = btrfs_read_tree_block_mirror(ctx->fs, f->bytenr, f->good, &eb);
	if (ret)
		return ret;
	if (btrfs_verify_tree_block(ctx->fs, eb, &any, NULL, msg, sizeof(msg))) {
		free_extent_buffer(eb);
		error("tree block %llu: copy %d no longer verifies (%s): copy %d left as it is", f->bytenr,
		      f->good, msg, f->bad);
		return -EIO;
	}
	/* the layout the commit settled may put the bad copy elsewhere: where it holds the good bytes, nothing to do */
	ret = btrfs_read_tree_block_mirror(ctx->fs, f->bytenr, f->bad, &bad);
	same = ret == 0 && !memcmp(bad->data, eb->data, eb->len);
	if (ret == 0)
		free_extent_buffer(bad);
	if (same) {
		free_extent_buffer(eb);
		return 0;
	}
	ret = btrfs_write_tree_block_copies(ctx->fs, eb, f->bad);
	if (!ret)
		printf("Rewrote copy %d of tree block %llu from copy %d\n", f->bad, f->bytenr, f->good);
	free_extent_buffer(eb);
	return ret;
}

/*
 * --repair: a block whose header is wrong where the engine writes it anew (a
 * stray RELOC flag, flags without WRITTEN or with unknown bits) is copied on write in its tree (for RELOC the tree its
 * header names); the copy gets a new header.  A block of a subvolume is
 * copied in every subvolume that reaches it (a snapshot shares it).  The
 * re-check before the commit confirms the trees reached it by its first
 * key.  what: the message's fault.  Done once for a block queued for
 * several faults.
 */
struct reloc_fix {
	u64 bytenr, tree;
	const char *what;
};

/*
 * Copy the block at bytenr (level, first key) on write in tree, where the
 * tree reaches it by its first key: 1 copied, 0 not reached (or copied
 * before; a block no tree reaches is left to the re-check, which finds it
 * still there), < 0.
 */
static int cow_block_in_tree(struct btrfs_trans *t, u64 tree, u64 bytenr, int level, const struct btrfs_key *first,
			     const char *what)
{
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = btrfs_trans_get_root(t, tree, &root);

	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, first, &path, 0, 0);
	if (ret < 0 || !path.nodes[level] || path.nodes[level]->start != bytenr) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 0;
	}
	btrfs_release_path(&path);
	ret = btrfs_search_slot(t, root, first, &path, 0, 1);
	if (ret >= 0 && path.nodes[level]) {
		printf("Tree block %llu of tree %llu: %s, copied to %llu\n", bytenr, tree, what,
		       path.nodes[level]->start);
		ret = 1;
	}
	btrfs_release_path(&path);
	return ret;
}

static int fix_reloc_flag(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct reloc_fix *f = arg;
	const struct ext_state *st = ctx->extents_state;
	struct extent_buffer *eb;
	struct btrfs_key first;
	int level, ret;

	ret = btrfs_read_tree_block(ctx->fs, f->bytenr, NULL, &eb);
	if (ret < 0)
		return ret;
	level = btrfs_eb_level(eb);
	if (!btrfs_eb_nritems(eb))
		ret = -EUCLEAN;
	else
		btrfs_block_key_to_cpu(eb, &first, 0);
	free_extent_buffer(eb);
	if (!ret)
		ret = cow_block_in_tree(t, f->tree, f->bytenr, level, &first, f->what);
	for (size_t i = 0; ret >= 0 && st && btrfs_is_subvolume_tree(f->tree) && i < st->root_nr; i++) {
		u64 id = st->root[i].key.objectid;

		/* (not in a dead subvolume: it is dropped as it is) */
		if (id != f->tree && btrfs_is_subvolume_tree(id) && st->root[i].refs)
			ret = cow_block_in_tree(t, id, f->bytenr, level, &first, f->what);
	}
	if (ret < 0)
		error("cannot copy tree block %llu of tree %llu on write: %s", f->bytenr, f->tree, strerror(-ret));
	return ret < 0 ? ret : 0;
}

/* ---- collecting from leaves ---------------------------------------------------- */

static int push_ref(struct check_ref **arr, size_t *nr, size_t *alloc, const struct check_ref *r)
{
	if (ARRAY_GROW(*arr, *nr, *alloc))
		return -ENOMEM;
	(*arr)[(*nr)++] = *r;
	return 0;
}

/* A reference a tree makes (pointer or file extent item). */
static int add_expected(struct ext_state *st, u64 bytenr, u64 len, u64 parent, u64 root,
			u64 objectid, u64 offset, u8 type)
{
	struct check_ref r = { .bytenr = bytenr, .len = len, .parent = parent, .root = root,
			       .objectid = objectid, .offset = offset, .count = 1, .type = type };

	return push_ref(&st->exp, &st->exp_nr, &st->exp_alloc, &r);
}

/* A back reference the extent tree holds. */
static int add_found(struct ext_state *st, u64 bytenr, u8 type, u64 parent, u64 root,
		     u64 objectid, u64 offset, u32 count)
{
	struct check_ref r = { .bytenr = bytenr, .parent = parent, .root = root,
			       .objectid = objectid, .offset = offset, .count = count, .type = type };

	return push_ref(&st->got, &st->got_nr, &st->got_alloc, &r);
}

/* One EXTENT_ITEM or METADATA_ITEM with its inline refs. */
static int collect_extent_item(struct check_ctx *ctx, struct ext_state *st, const struct extent_buffer *eb,
			       int slot, const struct btrfs_key *key)
{
	u32 size = btrfs_leaf_item_size(eb, slot);
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + size;
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)p;
	struct check_extent *x;
	u64 flags;
	int ret;

	if (size < sizeof(*ei)) {
		check_error(ctx, "extent tree: item (%llu %u %llu) in leaf %llu has size %u, expected at least %zu (old format extent items are not supported)",
			    key->objectid, key->type, key->offset, eb->start, size, sizeof(*ei));
		return 0;
	}
	x = CHECK_PUSH(st, ext);
	if (!x)
		return -ENOMEM;
	flags = btrfs_extent_flags(ei);
	x->start = key->objectid;
	x->refs = btrfs_extent_refs(ei);
	x->flags = flags;
	x->generation = btrfs_extent_generation(ei);
	x->leaf = eb->start;
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		x->len = st->nodesize;
		x->level = (u8)key->offset;
		x->metadata_item = 1;
	} else {
		x->len = key->offset;
	}
	p += sizeof(*ei);
	if ((flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && key->type == BTRFS_EXTENT_ITEM_KEY) {
		if (p + sizeof(struct btrfs_tree_block_info) > end) {
			check_error(ctx, "extent tree: extent item (%llu %u %llu) too short for tree block info: size %u",
				    key->objectid, key->type, key->offset, size);
			return 0;
		}
		x->level = btrfs_tree_block_level((struct btrfs_tree_block_info *)p);
		p += sizeof(struct btrfs_tree_block_info);
	}
	while (p < end) {
		struct btrfs_extent_inline_ref *iref = (struct btrfs_extent_inline_ref *)p;
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);
		u64 off;

		if (!rsize || p + rsize > end) {
			check_error(ctx, "extent tree: extent item (%llu %u %llu): bad inline ref type %u at offset %u, item size %u",
				    key->objectid, key->type, key->offset, type,
				    (u32)(p - (u8 *)ei), size);
			return 0;
		}
		off = btrfs_extent_inline_ref_offset(iref);
		ret = 0;
		switch (type) {
		case BTRFS_TREE_BLOCK_REF_KEY:
			ret = add_found(st, x->start, type, 0, off, 0, 0, 1);
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			ret = add_found(st, x->start, type, off, 0, 0, 0, 1);
			break;
		case BTRFS_SHARED_DATA_REF_KEY: {
			struct btrfs_shared_data_ref *sr = (void *)(p + sizeof(*iref));

			ret = add_found(st, x->start, type, off, 0, 0, 0, btrfs_shared_data_ref_count(sr));
			break;
		}
		case BTRFS_EXTENT_DATA_REF_KEY: {
			struct btrfs_extent_data_ref *dr = (void *)(p + offsetof(struct btrfs_extent_inline_ref, offset));

			ret = add_found(st, x->start, type, 0, btrfs_extent_data_ref_root(dr),
					btrfs_extent_data_ref_objectid(dr), btrfs_extent_data_ref_offset(dr),
					btrfs_extent_data_ref_count(dr));
			break;
		}
		case BTRFS_EXTENT_OWNER_REF_KEY:
			break;   /* simple quota owner: not a reference */
		}
		if (ret)
			return ret;
		p += rsize;
	}
	return 0;
}

/* A BLOCK_GROUP_ITEM, from the extent tree or the block group tree (short ones skipped). */
static int add_bg(struct ext_state *st, const struct btrfs_key *key, const void *ptr, u32 size)
{
	struct check_bg *bg;

	if (size < sizeof(struct btrfs_block_group_item))
		return 0;
	bg = CHECK_PUSH(st, bg);
	if (!bg)
		return -ENOMEM;
	bg->start = key->objectid;
	bg->len = key->offset;
	bg->used = btrfs_block_group_used(ptr);
	bg->flags = btrfs_block_group_flags(ptr);
	return 0;
}

static int collect_extent_leaf(struct check_ctx *ctx, struct ext_state *st, const struct extent_buffer *eb)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct btrfs_key key;
		u32 size = btrfs_leaf_item_size(eb, (int)i);
		void *ptr = btrfs_leaf_item_ptr(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		switch (key.type) {
		case BTRFS_EXTENT_ITEM_KEY:
		case BTRFS_METADATA_ITEM_KEY:
			ret = collect_extent_item(ctx, st, eb, (int)i, &key);
			break;
		case BTRFS_TREE_BLOCK_REF_KEY:
			ret = add_found(st, key.objectid, key.type, 0, key.offset, 0, 0, 1);
			break;
		case BTRFS_SHARED_BLOCK_REF_KEY:
			ret = add_found(st, key.objectid, key.type, key.offset, 0, 0, 0, 1);
			break;
		case BTRFS_EXTENT_DATA_REF_KEY:
			if (size < sizeof(struct btrfs_extent_data_ref)) {
				check_error(ctx, "extent tree: data ref (%llu %u %llu) has size %u, expected %zu",
					    key.objectid, key.type, key.offset, size, sizeof(struct btrfs_extent_data_ref));
				break;
			}
			ret = add_found(st, key.objectid, key.type, 0, btrfs_extent_data_ref_root(ptr),
					btrfs_extent_data_ref_objectid(ptr), btrfs_extent_data_ref_offset(ptr),
					btrfs_extent_data_ref_count(ptr));
			break;
		case BTRFS_SHARED_DATA_REF_KEY:
			if (size < sizeof(struct btrfs_shared_data_ref)) {
				check_error(ctx, "extent tree: shared data ref (%llu %u %llu) has size %u, expected %zu",
					    key.objectid, key.type, key.offset, size, sizeof(struct btrfs_shared_data_ref));
				break;
			}
			ret = add_found(st, key.objectid, key.type, key.offset, 0, 0, 0,
					btrfs_shared_data_ref_count(ptr));
			break;
		case BTRFS_BLOCK_GROUP_ITEM_KEY:
			if (!st->bg_tree)
				ret = add_bg(st, &key, ptr, size);
			break;
		}
	}
	return ret;
}

static int collect_leaf(struct check_ctx *ctx, struct ext_state *st, u64 tree_id, const struct extent_buffer *eb)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	bool data_tree = check_is_file_tree(tree_id) || tree_id == BTRFS_ROOT_TREE_OBJECTID ||
			 tree_id == BTRFS_TREE_RELOC_OBJECTID;
	u64 owner = btrfs_header_owner(btrfs_header(eb));

	if (tree_id == BTRFS_EXTENT_TREE_OBJECTID)
		return collect_extent_leaf(ctx, st, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		u32 size = btrfs_leaf_item_size(eb, (int)i);
		void *ptr = btrfs_leaf_item_ptr(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type == BTRFS_EXTENT_DATA_KEY && data_tree) {
			struct btrfs_file_extent_item *fi = ptr;
			u8 type;
			u64 disk, dlen, off;

			if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
				continue;
			type = btrfs_file_extent_type(fi);
			if (type == BTRFS_FILE_EXTENT_INLINE)
				continue;
			if (size < sizeof(*fi))
				continue;
			disk = btrfs_file_extent_disk_bytenr(fi);
			if (!disk)
				continue;
			dlen = btrfs_file_extent_disk_num_bytes(fi);
			off = btrfs_file_extent_offset(fi);
			st->stats_alloc += dlen;
			st->stats_ref += btrfs_file_extent_num_bytes(fi);
			if (add_expected(st, disk, dlen, eb->start, owner, key.objectid,
					 key.offset - off, BTRFS_EXTENT_DATA_REF_KEY))
				return -ENOMEM;
			st->exp[st->exp_nr - 1].written = type == BTRFS_FILE_EXTENT_REG;
		} else if (key.type == BTRFS_EXTENT_CSUM_KEY && tree_id == BTRFS_CSUM_TREE_OBJECTID) {
			ctx->stats.total_csum_bytes += size;
		} else if (key.type == BTRFS_BLOCK_GROUP_ITEM_KEY && tree_id == BTRFS_BLOCK_GROUP_TREE_OBJECTID) {
			if (add_bg(st, &key, ptr, size))
				return -ENOMEM;
		} else if (key.type == BTRFS_DEV_EXTENT_KEY && tree_id == BTRFS_DEV_TREE_OBJECTID) {
			struct check_devext *d;

			if (size < sizeof(struct btrfs_dev_extent))
				continue;
			d = CHECK_PUSH(st, dext);
			if (!d)
				return -ENOMEM;
			d->devid = key.objectid;
			d->physical = key.offset;
			d->len = btrfs_dev_extent_length(ptr);
			d->chunk_offset = btrfs_dev_extent_chunk_offset(ptr);
		} else if (key.type == BTRFS_CHUNK_ITEM_KEY && tree_id == BTRFS_CHUNK_TREE_OBJECTID) {
			compare_chunk_item(ctx, &key, ptr, size);
			check_chunk_stripe_devs(ctx, eb, &key, ptr, size);
		} else if (key.type == BTRFS_DEV_ITEM_KEY && tree_id == BTRFS_CHUNK_TREE_OBJECTID) {
			struct check_dev *d;

			if (size < sizeof(struct btrfs_dev_item))
				continue;
			d = CHECK_PUSH(st, dev);
			if (!d)
				return -ENOMEM;
			d->devid = btrfs_device_id(ptr);
			d->total_bytes = btrfs_device_total_bytes(ptr);
			d->bytes_used = btrfs_device_bytes_used(ptr);
			check_dev_item_uuid(ctx, ptr);
		} else if (key.type == BTRFS_ROOT_ITEM_KEY && tree_id == BTRFS_ROOT_TREE_OBJECTID) {
			struct check_root *r;

			if (size < offsetof(struct btrfs_root_item, generation_v2))
				continue;
			r = CHECK_PUSH(st, root);
			if (!r)
				return -ENOMEM;
			r->key = key;
			btrfs_tree_ref_from_root_item(&r->tree, key.objectid, ptr);
			btrfs_disk_key_to_cpu(&r->drop_key, &((struct btrfs_root_item *)ptr)->drop_progress);
			r->drop_level = btrfs_root_drop_level(ptr);
			r->refs = btrfs_root_refs(ptr);
			r->last_snapshot = btrfs_root_last_snapshot(ptr);
		}
	}
	return 0;
}

/* ---- walking one tree ------------------------------------------------------------ */

/*
 * What the header of a block of tree tree_id may say beyond what the read
 * path verifies (check_header_faults(), check/header-mend.h): its owner, its
 * flags and the back reference revision.  A relocation tree's blocks may be
 * owned by the subvolume it was made from and still carry RELOC.
 */
static void check_block_header(struct check_ctx *ctx, u64 tree_id, const struct extent_buffer *eb)
{
	const struct btrfs_header *h = btrfs_header(eb);
	u64 owner = btrfs_header_owner(h), flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK;
	unsigned int faults = check_header_faults(ctx->fs, tree_id, eb);
	char nbuf[32];
	const char *tname = check_tree_name(tree_id, nbuf, sizeof(nbuf));
	/* a copy on write in the tree walked writes a new header (not in log and relocation trees) */
	struct reloc_fix f = { eb->start, tree_id, "header flags rewritten" };
	bool cow = tree_id != BTRFS_TREE_LOG_OBJECTID && tree_id != BTRFS_TREE_RELOC_OBJECTID;

	if (faults & HEADER_OWNER)
		check_error(ctx, "%s: tree block %llu has owner %llu, expected %s%llu",
			    tname, eb->start, owner, btrfs_is_subvolume_tree(tree_id) ? "a subvolume like " : "",
			    tree_id);
	if (faults & HEADER_UNKNOWN_FLAGS) {
		check_error(ctx, "%s: tree block %llu has unknown header flags 0x%llx",
			    tname, eb->start, flags & ~(BTRFS_HEADER_FLAG_WRITTEN | BTRFS_HEADER_FLAG_RELOC));
		if (cow)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	} else if (faults & HEADER_NOT_WRITTEN) {
		check_error(ctx, "%s: tree block %llu lacks the WRITTEN header flag every written block has",
			    tname, eb->start);
		if (cow)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	}
	/* the engine does not copy a block of revision 0 on write */
	if (faults & HEADER_BACKREF_REV)
		check_error(ctx, "%s: tree block %llu has back reference revision %u, expected %u",
			    tname, eb->start, btrfs_header_backref_rev(h), BTRFS_MIXED_BACKREF_REV);
}

/*
 * The copies of a DUP, RAID1(C3/C4) or RAID10 tree block other than the one the read
 * used: a copy that differs from it and fails verification is damage that
 * reads hide while the good copy lasts.  Report it, naming the copy's
 * device and place, and queue its rewrite from the good copy.
 */
static void check_other_copies(struct check_ctx *ctx, u64 tree_id, const struct extent_buffer *eb,
			       const struct tree_check *tc)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&ctx->fs->chunks, eb->start);
	char nbuf[32], msg[256];
	const char *tname = check_tree_name(tree_id, nbuf, sizeof(nbuf));
	int n;

	if (!c || btrfs_raid_has_parity(c->type))
		return;   /* RAID5/6 "mirrors" are rebuilds from parity */
	if (check_salvaged(ctx->salvage, eb->start))
		return;   /* mended in memory: the repair writes it anew, every copy */
	n = btrfs_chunk_num_mirrors(c);
	for (int m = 1; m <= n; m++) {
		struct extent_buffer *copy = NULL;
		struct btrfs_io_stripe where = { 0 };
		const struct btrfs_device *dev;
		int ret;

		if (m == eb->mirror)
			continue;
		if (btrfs_chunk_map_one(c, eb->start, m, &where))
			continue;
		dev = btrfs_find_device(&ctx->fs->devices, where.devid, c->stripes[where.stripe_index].dev_uuid);
		if (!dev || dev->fd < 0)
			continue;   /* a missing device: the open warned once, a degraded filesystem */
		ret = btrfs_read_tree_block_mirror(ctx->fs, eb->start, m, &copy);
		if (!ret && !memcmp(copy->data, eb->data, eb->len)) {
			free_extent_buffer(copy);
			continue;
		}
		if (ret)
			snprintf(msg, sizeof(msg), "cannot be read");
		else if (!btrfs_verify_tree_block(ctx->fs, copy, tc, NULL, msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "differs from mirror %d though both verify", eb->mirror);
		free_extent_buffer(copy);
		check_error(ctx, "%s: tree block %llu mirror %d (devid %llu physical %llu) is bad: %s; mirror %d is good",
			    tname, eb->start, m, where.devid, where.physical, msg, eb->mirror);
		if (check_repairing(ctx)) {
			struct copy_fix f = { eb->start, eb->mirror, m };

			check_fixable_after_commit(ctx, fix_copy, &f, sizeof(f));
		}
	}
}

static int account_block(struct check_ctx *ctx, struct ext_state *st, u64 tree_id, const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb), i, used = 0;
	u64 owner = btrfs_header_owner(btrfs_header(eb));
	struct check_stats *s = &ctx->stats;

	check_block_header(ctx, tree_id, eb);
	if (tree_id != BTRFS_TREE_LOG_OBJECTID) {
		struct check_owner *o = CHECK_PUSH(st, owners);

		if (!o)
			return -ENOMEM;
		o->bytenr = eb->start;
		o->owner = owner;
		o->gen = btrfs_header_generation(btrfs_header(eb));
		o->reloc = btrfs_header_flags(btrfs_header(eb)) & BTRFS_HEADER_FLAG_RELOC;
	}
	ctx->items += 1 + nr;
	s->total_tree_bytes += eb->len;
	if (check_is_file_tree(tree_id) || check_is_file_tree(owner))
		s->total_fs_tree_bytes += eb->len;
	if (owner == BTRFS_EXTENT_TREE_OBJECTID)
		s->total_extent_tree_bytes += eb->len;
	if (btrfs_eb_level(eb) == 0) {
		for (i = 0; i < nr; i++)
			used += ITEM_SIZE + btrfs_leaf_item_size(eb, (int)i);
		if (HEADER_SIZE + used <= eb->len)
			s->btree_space_waste += eb->len - HEADER_SIZE - used;
	} else {
		u32 maxptr = (eb->len - HEADER_SIZE) / PTR_SIZE;

		if (nr <= maxptr)
			s->btree_space_waste += (u64)(maxptr - nr) * PTR_SIZE;
	}
	return 0;
}

/* Are the pointers of slot (and on) in a node already dropped (half-dropped root)? */
static bool dropped(const struct check_root *r, const struct extent_buffer *eb, u32 slot)
{
	struct btrfs_key next;

	if (!r || !r->drop_key.objectid)
		return false;
	if (btrfs_eb_level(eb) > r->drop_level)
		return false;
	/* the child's range ends where the next pointer starts */
	if (slot + 1 >= btrfs_eb_nritems(eb))
		return false;
	btrfs_node_key_to_cpu(eb, &next, (int)slot + 1);
	return btrfs_comp_cpu_keys(&next, &r->drop_key) <= 0;
}

/* One tree's walk: what the pointer hook saw of the block visited next. */
struct tree_walk {
	struct check_ctx *ctx;
	struct ext_state *st;
	const struct check_root *r;
	u64 tree_id;
	const char *tname;
	struct tree_check tc;       /* what the pointer promised */
	struct btrfs_disk_key dk;
	u64 parent;
	int slot;
	int fatal;                  /* an error of ours, not a block that cannot be read */
};

static int walk_pointer(struct btrfs_fs_info *fs, const struct extent_buffer *node, int slot,
			u64 bytenr, u64 generation, int level, void *arg)
{
	struct tree_walk *w = arg;
	int ret;

	(void)fs;
	if (dropped(w->r, node, (u32)slot))
		return BTRFS_WALK_SKIP;
	if (add_expected(w->st, bytenr, w->st->nodesize, node->start, btrfs_header_owner(btrfs_header(node)),
			 (u8)level, 0, BTRFS_TREE_BLOCK_REF_KEY))
		return w->fatal = -ENOMEM;
	ret = seen_insert(w->st, bytenr);
	if (ret < 0)
		return w->fatal = ret;
	if (ret)
		return BTRFS_WALK_SKIP;
	w->dk = btrfs_node_key_ptr(node, slot)->key;
	w->tc.level = (u8)level;
	w->tc.transid = generation;
	w->tc.first_key = &w->dk;
	w->parent = node->start;
	w->slot = slot;
	return BTRFS_WALK_DESCEND;
}

static int walk_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr, int err,
		      void *arg)
{
	struct tree_walk *w = arg;
	int ret;

	(void)fs;
	if (err) {
		struct btrfs_key k;

		btrfs_disk_key_to_cpu(&k, &w->dk);
		check_error(w->ctx, "%s: block %llu (level %u, key (%llu %u %llu)) pointed to by node %llu slot %u cannot be read",
			    w->tname, bytenr, w->tc.level, k.objectid, k.type, k.offset, w->parent, w->slot);
		check_fst_block_unreadable(w->ctx, w->tree_id);
		return 0;
	}
	check_other_copies(w->ctx, w->tree_id, eb, &w->tc);
	ret = account_block(w->ctx, w->st, w->tree_id, eb);
	if (!ret && btrfs_eb_level(eb) == 0)
		ret = collect_leaf(w->ctx, w->st, w->tree_id, eb);
	if (ret)
		w->fatal = ret;
	return ret;
}

static int walk_one_tree(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_tree_ref *tree,
			 const struct check_root *r)
{
	char nbuf[32];
	struct tree_walk w = { .ctx = ctx, .st = st, .r = r, .tree_id = tree->objectid,
			       .tname = check_tree_name(tree->objectid, nbuf, sizeof(nbuf)),
			       .tc = { .owner = 0, .level = tree->level, .transid = tree->generation } };
	/* objectid 0: the walk checks no owner, check_block_header reports it */
	struct btrfs_tree_ref any_owner = *tree;
	struct extent_buffer *eb;
	int ret;

	/*
	 * A relocation tree's root block is referenced by itself: with
	 * FULL_BACKREF set, the extent tree holds a shared ref whose parent is
	 * the block's own address.
	 */
	if (add_expected(st, tree->bytenr, st->nodesize,
			 tree->objectid == BTRFS_TREE_RELOC_OBJECTID ? tree->bytenr : 0,
			 tree->objectid, tree->level, 0, BTRFS_TREE_BLOCK_REF_KEY))
		return -ENOMEM;
	ret = seen_insert(st, tree->bytenr);
	if (ret < 0)
		return ret;
	if (ret)
		return 0;
	if (tree->level >= BTRFS_MAX_LEVEL) {
		check_error(ctx, "%s: root block %llu has level %u, expected below %d",
			    w.tname, tree->bytenr, tree->level, BTRFS_MAX_LEVEL);
		return 0;
	}
	ret = btrfs_read_tree_block(ctx->fs, tree->bytenr, &w.tc, &eb);
	if (ret) {
		check_error(ctx, "%s: root block %llu (level %u) cannot be read", w.tname, tree->bytenr, tree->level);
		check_fst_block_unreadable(ctx, tree->objectid);
		return 0;
	}
	/* every pointer is followed once, through seen_insert, not the key-order guard */
	any_owner.objectid = 0;
	btrfs_walk_block_ptrs(ctx->fs, &any_owner, eb, BTRFS_WALK_DFS, NULL, BTRFS_WALK_REVISIT,
			      walk_pointer, walk_block, &w);
	free_extent_buffer(eb);
	return w.fatal;
}

/* ---- comparing ------------------------------------------------------------------------ */

static int cmp_ref(const void *a, const void *b)
{
	const struct check_ref *x = a, *y = b;

#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	C(bytenr);
	C(type);
	C(parent);
	C(root);
	C(objectid);
	C(offset);
#undef C
	return 0;
}

static int cmp_ext(const void *a, const void *b)
{
	const struct check_extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int cmp_bg(const void *a, const void *b)
{
	const struct check_bg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Turn a parent-relative expected ref into the kind the extent tree must
 * hold: by the parent's FULL_BACKREF flag, or, for a parent without extent
 * item, by what check/lost-blocks.c infers the lost item's flag was.
 */
static int resolve_expected(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i;
	int ret = check_find_lost_blocks(ctx, st);

	if (ret < 0)
		return ret;
	for (i = 0; i < st->exp_nr; i++) {
		struct check_ref *r = &st->exp[i];
		struct check_extent *p = r->parent ? check_find_extent(st, r->parent) : NULL;
		bool shared = p && (p->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF);
		bool data = r->type == BTRFS_EXTENT_DATA_REF_KEY;

		if (r->parent && !p)
			check_lost_block_full_backref(st, r->parent, &shared);

		r->is_data = data;
		r->level = data ? 0 : (u8)r->objectid;
		if (shared) {
			r->type = data ? BTRFS_SHARED_DATA_REF_KEY : BTRFS_SHARED_BLOCK_REF_KEY;
			r->root = r->objectid = r->offset = 0;
		} else {
			r->parent = 0;
			if (!data)
				r->objectid = 0;
		}
	}
	return 0;
}

/* Sort and merge equal refs, summing their counts. */
static void sort_merge(struct check_ref *arr, size_t *nr)
{
	size_t i, o = 0;

	if (!*nr)
		return;
	check_sort(arr, *nr, sizeof(*arr), cmp_ref);
	for (i = 1; i < *nr; i++) {
		if (!cmp_ref(&arr[o], &arr[i])) {
			arr[o].count += arr[i].count;
			arr[o].written |= arr[i].written;
		} else
			arr[++o] = arr[i];
	}
	*nr = o + 1;
}

static void describe_ref(const struct check_ref *r, char *buf, size_t len)
{
	switch (r->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		snprintf(buf, len, "tree block ref root %lld", (long long)r->root);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		snprintf(buf, len, "shared block ref parent %llu", r->parent);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		snprintf(buf, len, "data ref root %lld inode %llu offset %llu", (long long)r->root,
			 r->objectid, r->offset);
		break;
	default:
		snprintf(buf, len, "shared data ref parent %llu", r->parent);
		break;
	}
}

static void compare_refs(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i = 0, j = 0, e;
	char desc[128];

	/* per extent: sums of found and expected counts */
	for (e = 0; e < st->ext_nr; e++)
		st->ext[e].found_refs = st->ext[e].expected_refs = 0;
	while (i < st->exp_nr || j < st->got_nr) {
		int c;
		const struct check_ref *x = i < st->exp_nr ? &st->exp[i] : NULL;
		const struct check_ref *y = j < st->got_nr ? &st->got[j] : NULL;

		if (x && y)
			c = cmp_ref(x, y);
		else
			c = x ? -1 : 1;
		if (c <= 0) {
			struct check_extent *xe = check_find_extent(st, x->bytenr);

			if (!xe) {
				describe_ref(x, desc, sizeof(desc));
				check_error(ctx, "extent tree: no extent item for %s extent %llu len %llu (%s), expected one",
					    x->is_data ? "data" : "tree block", x->bytenr, x->len, desc);
				check_queue_extent_rebuild(ctx, st, x->bytenr);
			} else {
				xe->expected_refs += x->count;
				xe->referenced = 1;
				xe->data_written |= x->written;
				if (x->is_data && xe->len != x->len) {
					struct repair_file_extent_disk_len f = {
						.root = x->root, .ino = x->objectid, .bytenr = x->bytenr,
						.bad = x->len, .good = xe->len,
					};

					check_error(ctx, "data extent %llu: file extent item (%s) has disk_num_bytes %llu, extent item length %llu",
						    x->bytenr, (describe_ref(x, desc, sizeof(desc)), desc), x->len, xe->len);
					/* shared refs name no inode: only a data ref's items can be found */
					if (x->type == BTRFS_EXTENT_DATA_REF_KEY)
						check_fixable(ctx, repair_set_file_extent_disk_len, &f, sizeof(f));
				}
				if (!x->is_data && (xe->flags & BTRFS_EXTENT_FLAG_DATA))
					check_error(ctx, "extent %llu: referenced as a tree block (level %u) but the extent item has flags 0x%llx (data)",
						    x->bytenr, x->level, xe->flags);
				if (!x->is_data && (xe->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && xe->level != x->level) {
					check_error(ctx, "extent %llu: tree block level %u, extent item says level %u",
						    x->bytenr, x->level, xe->level);
					check_queue_extent_rebuild(ctx, st, x->bytenr);
				}
			}
		}
		if (c >= 0) {
			struct check_extent *ye = check_find_extent(st, y->bytenr);

			if (ye)
				ye->found_refs += y->count;
			else {
				describe_ref(y, desc, sizeof(desc));
				check_error(ctx, "extent tree: back reference for %llu (%s) has no extent item",
					    y->bytenr, desc);
				check_queue_extent_rebuild(ctx, st, y->bytenr);
			}
		}
		if (c == 0 && x->count != y->count) {
			describe_ref(x, desc, sizeof(desc));
			check_error(ctx, "extent %llu: %s: count %u in the extent tree, %u references found",
				    x->bytenr, desc, y->count, x->count);
			check_queue_extent_rebuild(ctx, st, x->bytenr);
		} else if (c < 0 && check_find_extent(st, x->bytenr)) {
			describe_ref(x, desc, sizeof(desc));
			check_error(ctx, "extent %llu: %s (count %u) has no back reference in the extent tree",
				    x->bytenr, desc, x->count);
			check_queue_extent_rebuild(ctx, st, x->bytenr);
		} else if (c > 0 && check_find_extent(st, y->bytenr)) {
			describe_ref(y, desc, sizeof(desc));
			check_error(ctx, "extent %llu: back reference %s (count %u) in the extent tree, no such reference found",
				    y->bytenr, desc, y->count);
			check_queue_extent_rebuild(ctx, st, y->bytenr);
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	for (e = 0; e < st->ext_nr; e++) {
		struct check_extent *x = &st->ext[e];

		if (x->refs != x->found_refs) {
			check_error(ctx, "extent item [%llu %llu]: refs %llu, the back references in the extent tree sum to %llu",
				    x->start, x->len, x->refs, x->found_refs);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
		if (x->refs != x->expected_refs) {
			check_error(ctx, "ref mismatch on [%llu %llu] extent item %llu, found %llu",
				    x->start, x->len, x->refs, x->expected_refs);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
	}
}

static int cmp_owner(const void *a, const void *b)
{
	const struct check_owner *x = a, *y = b;

	return x->bytenr < y->bytenr ? -1 : x->bytenr > y->bytenr;
}

static const struct check_root *find_root(const struct ext_state *st, u64 id);

/*
 * A tree block's header owner against its back references: when they are
 * by root (its extent item is not FULL_BACKREF), one of them names the
 * owner, as the tree that made the block references it.  (btrfs-progs
 * checks the same; a block shared by parent pointers is not checked.)
 */
static void check_block_owners(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i, j = 0;

	check_sort(st->owners, st->owners_nr, sizeof(*st->owners), cmp_owner);
	for (i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		const struct check_extent *x;
		size_t tree_refs = 0;
		bool named = false;
		u64 other = 0;

		if (i && o->bytenr == st->owners[i - 1].bytenr)
			continue;
		while (j < st->got_nr && st->got[j].bytenr < o->bytenr)
			j++;
		for (size_t k = j; k < st->got_nr && st->got[k].bytenr == o->bytenr; k++) {
			if (st->got[k].type != BTRFS_TREE_BLOCK_REF_KEY)
				continue;
			tree_refs++;
			named |= st->got[k].root == o->owner;
			other = st->got[k].root;
		}
		x = check_find_extent(st, o->bytenr);
		/* the kernel sets RELOC only on relocation tree blocks, all FULL_BACKREF */
		if (x && o->reloc && !(x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			struct reloc_fix f = { o->bytenr, o->owner, "RELOC header flag dropped" };

			check_error(ctx, "tree block %llu of tree %llu: header flag RELOC, but its extent item flags 0x%llx lack FULL_BACKREF (only relocation tree blocks carry RELOC)",
				    o->bytenr, o->owner, x->flags);
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
		}
		if (!tree_refs || named || !x || (x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
			continue;
		check_error(ctx, "tree block %llu: header owner %llu, but its %zu tree back reference(s) name root %llu%s",
			    o->bytenr, o->owner, tree_refs, other, tree_refs > 1 ? " and others" : "");
		/*
		 * An owner no tree has, one back reference: the header is what is
		 * wrong, and a copy on write in that tree writes its own; else the
		 * back references rebuilt from the trees that reach the block.
		 */
		if (tree_refs == 1 && !find_root(st, o->owner) && btrfs_is_subvolume_tree(other)) {
			struct reloc_fix f = { o->bytenr, other, "header owner rewritten" };

			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
		} else {
			check_queue_extent_rebuild(ctx, st, o->bytenr);
		}
	}
}

/* The root item of subvolume tree id, NULL when none. */
static const struct check_root *find_root(const struct ext_state *st, u64 id)
{
	for (size_t i = 0; i < st->root_nr; i++)
		if (st->root[i].key.objectid == id)
			return &st->root[i];
	return NULL;
}

/*
 * FULL_BACKREF on a block no snapshot can share: the kernel sets it only
 * when a shared block is copied on write, so only on blocks of subvolume
 * and relocation trees; and a subvolume's root block
 * (a snapshot copies it), or a block newer than the tree's last snapshot,
 * reached by one pointer, was never shared (btrfs-progs: "bad full backref").  Found before
 * the expected refs are resolved: the flag is cleared in memory, so its
 * children's refs are expected by root, and the --repair rebuild of its
 * records (queued by queue_full_backref_fixes()) writes the flag cleared.
 */
static void check_full_backrefs(struct check_ctx *ctx, struct ext_state *st)
{
	check_sort(st->owners, st->owners_nr, sizeof(*st->owners), cmp_owner);
	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		struct check_extent *x = check_find_extent(st, o->bytenr);
		const struct check_root *r;
		size_t paths = 0;

		if (!x || !(x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) || o->reloc ||
		    (i && o->bytenr == st->owners[i - 1].bytenr))
			continue;
		if (!btrfs_is_subvolume_tree(o->owner)) {
			if (o->owner == BTRFS_TREE_RELOC_OBJECTID || o->owner == BTRFS_DATA_RELOC_TREE_OBJECTID)
				continue;
			check_error(ctx, "tree block %llu of tree %llu: extent item flags 0x%llx have FULL_BACKREF, which only blocks of subvolume and relocation trees carry",
				    o->bytenr, o->owner, x->flags);
			x->flags &= ~BTRFS_BLOCK_FLAG_FULL_BACKREF;
			x->bad_full_backref = 1;
			continue;
		}
		r = find_root(st, o->owner);
		if (!r || (r->tree.bytenr != o->bytenr && o->gen <= r->last_snapshot))
			continue;
		for (size_t k = 0; k < st->exp_nr && paths < 2; k++)
			paths += st->exp[k].bytenr == o->bytenr;
		if (paths != 1)
			continue;
		check_error(ctx, "tree block %llu of tree %llu: extent item flags 0x%llx have FULL_BACKREF, but the block (generation %llu, %s, the tree's last snapshot %llu) was never shared",
			    o->bytenr, o->owner, x->flags, o->gen,
			    r->tree.bytenr == o->bytenr ? "its root block" : "newer than", r->last_snapshot);
		x->flags &= ~BTRFS_BLOCK_FLAG_FULL_BACKREF;
		x->bad_full_backref = 1;
	}
}

/*
 * A tree block's extent item was written when the block was (both get the
 * allocating transaction), and a block is never rewritten in place: their
 * generations agree.  The block's is the one its pointer vouched for as it
 * was read; the --repair rebuild of the extent's records takes it.
 */
static void check_tree_block_generations(struct check_ctx *ctx, struct ext_state *st)
{
	u64 limit = btrfs_super_generation(btrfs_fs_super(ctx->fs));

	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		struct check_extent *x;

		if (i && o->bytenr == st->owners[i - 1].bytenr)
			continue;
		x = check_find_extent(st, o->bytenr);
		/* 0 or beyond the superblock: check_extent_items() says so */
		if (!x || x->start != o->bytenr || !(x->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) ||
		    !x->generation || x->generation > limit || x->generation == o->gen)
			continue;
		check_error(ctx, "tree block %llu of tree %llu: extent item generation %llu, the block's %llu",
			    o->bytenr, o->owner, x->generation, o->gen);
		check_queue_extent_rebuild(ctx, st, x->start);
	}
}

/* The rebuilds of check_full_backrefs()'s blocks, once the expected refs are sorted. */
static void queue_full_backref_fixes(struct check_ctx *ctx, struct ext_state *st)
{
	for (size_t i = 0; i < st->ext_nr; i++)
		if (st->ext[i].bad_full_backref)
			check_queue_extent_rebuild(ctx, st, st->ext[i].start);
}

static void check_extent_items(struct check_ctx *ctx, struct ext_state *st)
{
	u64 gen = btrfs_super_generation(btrfs_fs_super(ctx->fs));
	u64 prev_end = 0, prev_start = 0, total = 0;
	size_t i;

	for (i = 0; i < st->ext_nr; i++) {
		struct check_extent *x = &st->ext[i];
		struct check_bg *bg;
		bool tree = x->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK;

		total += x->len;
		if (i && x->start < prev_end)
			check_error(ctx, "extent tree: extent [%llu %llu] overlaps extent [%llu %llu)",
				    x->start, x->len, prev_start, prev_end);
		if (x->start + x->len > prev_end) {
			prev_start = x->start;
			prev_end = x->start + x->len;
		}
		if (!x->generation || x->generation > gen) {
			check_error(ctx, "invalid generation for extent %llu, have %llu expect (0, %llu]",
				    x->start, x->generation, gen);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
		if (!(x->flags & (BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK)) ||
		    ((x->flags & BTRFS_EXTENT_FLAG_DATA) && tree))
			check_error(ctx, "extent tree: extent [%llu %llu] has flags 0x%llx, expected exactly one of DATA and TREE_BLOCK",
				    x->start, x->len, x->flags);
		if (tree && x->len != st->nodesize)
			check_error(ctx, "extent tree: tree block extent [%llu %llu] length differs from nodesize %u",
				    x->start, x->len, st->nodesize);
		bg = check_find_bg(st, x->start);
		if (!bg || x->start + x->len > bg->start + bg->len) {
			check_error(ctx, "extent tree: extent [%llu %llu] is not inside a block group",
				    x->start, x->len);
			continue;
		}
		bg->sum += x->len;
		/* (a tree block's, by the tree that owns it: check_block_kinds()) */
		if (!tree && !(bg->flags & BTRFS_BLOCK_GROUP_DATA))
			check_error(ctx, "bad extent [%llu, %llu), type mismatch with chunk: data extent in block group %llu flags 0x%llx",
				    x->start, x->start + x->len, bg->start, bg->flags);
		if (tree && st->nodesize <= SZ_64K &&
		    x->start / SZ_64K != (x->start + x->len - 1) / SZ_64K)
			check_error(ctx, "bad metadata [%llu, %llu) crossing stripe boundary",
				    x->start, x->start + x->len);
	}
	st->bytes_used = total;
	ctx->stats.bytes_used = total;
}

/*
 * Every tree block lies in a block group of its kind: the chunk tree's in a
 * system one, every other tree's in a metadata one (the kernel allocates
 * them so; Debian: "type mismatch with chunk").  Judged once both the chunk
 * and the block group item say another kind (when they disagree, the chunk
 * and block group repairs settle which one is wrong).  --repair copies the
 * block on write in its owner's tree, which allocates it where it belongs.
 */
static void check_block_kinds(struct check_ctx *ctx, struct ext_state *st)
{
	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&ctx->fs->chunks, o->bytenr);
		const struct check_bg *bg = check_find_bg(st, o->bytenr);
		u64 want = o->owner == BTRFS_CHUNK_TREE_OBJECTID ? BTRFS_BLOCK_GROUP_SYSTEM : BTRFS_BLOCK_GROUP_METADATA;
		struct reloc_fix f = { o->bytenr, o->owner, "moved to a block group of its kind" };
		char nbuf[32];

		if (!c || (c->type & want) || !bg || (bg->flags & want))
			continue;
		check_error(ctx, "bad extent [%llu, %llu), type mismatch with chunk: tree block of the %s in block group %llu flags 0x%llx, not a %s one",
			    o->bytenr, o->bytenr + st->nodesize, check_tree_name(o->owner, nbuf, sizeof(nbuf)),
			    bg->start, (unsigned long long)bg->flags,
			    want == BTRFS_BLOCK_GROUP_SYSTEM ? "system" : "metadata");
		if (o->owner != BTRFS_TREE_LOG_OBJECTID && o->owner != BTRFS_TREE_RELOC_OBJECTID && !o->reloc)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	}
}

/*
 * A chunk whose range no block group item overlaps: its block group's item
 * is missing (deleted).  Taken as a block group of the chunk's range and
 * type, so that the extents in it count there (not as extents outside any
 * block group) and the item can be added with their sum.
 */
static int add_missing_bgs(struct ext_state *st, const struct btrfs_chunk_tree_map *map)
{
	size_t had = st->bg_nr;

	for (size_t c = 0; c < map->nr; c++) {
		const struct btrfs_chunk_map *ch = map->chunks[c];
		const struct check_bg *at = check_find_bg(st, ch->logical);
		struct check_bg *bg;
		size_t i;

		if (at)
			continue;
		/* (no item starting inside the chunk either) */
		for (i = 0; i < had && (st->bg[i].start < ch->logical || st->bg[i].start >= ch->logical + ch->length); i++)
			;
		if (i < had)
			continue;
		bg = CHECK_PUSH(st, bg);
		if (!bg)
			return -ENOMEM;
		*bg = (struct check_bg){ .start = ch->logical, .len = ch->length,
					 .flags = ch->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV, .item_missing = true };
	}
	if (st->bg_nr != had)
		check_sort(st->bg, st->bg_nr, sizeof(*st->bg), cmp_bg);
	return 0;
}

static void check_block_groups(struct check_ctx *ctx, struct ext_state *st)
{
	const struct btrfs_chunk_tree_map *map = &ctx->fs->chunks;
	size_t i, c = 0;

	for (i = 0; i < st->bg_nr; i++) {
		struct check_bg *bg = &st->bg[i];

		if (i && bg->start < st->bg[i - 1].start + st->bg[i - 1].len)
			check_error(ctx, "block group [%llu %llu] overlaps block group [%llu %llu]",
				    bg->start, bg->len, st->bg[i - 1].start, st->bg[i - 1].len);
		if (bg->item_missing) {
			check_error(ctx, "chunk [%llu %llu] type 0x%llx has no block group item",
				    bg->start, bg->len, (unsigned long long)bg->flags);
			check_queue_bg_item(ctx, bg);
			continue;
		}
		if (bg->used != bg->sum) {
			check_error(ctx, "block group [%llu %llu]: used %llu, extents in it sum to %llu",
				    bg->start, bg->len, bg->used, bg->sum);
			check_queue_bg_used(ctx, bg);
		}
		while (c < map->nr && map->chunks[c]->logical < bg->start)
			c++;
		if (c >= map->nr || map->chunks[c]->logical != bg->start) {
			if (!check_chunk_from_dev_extents(ctx, st, bg))
				check_error(ctx, "block group [%llu %llu] has no chunk", bg->start, bg->len);
			continue;
		}
		if ((!check_chunk_length_from_bg(ctx, st, map->chunks[c], bg) && map->chunks[c]->length != bg->len) ||
		    (map->chunks[c]->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV) != bg->flags) {
			check_error(ctx, "block group [%llu %llu] flags 0x%llx: chunk has length %llu flags 0x%llx",
				    bg->start, bg->len, bg->flags, map->chunks[c]->length, map->chunks[c]->type);
			check_chunk_against_bg(ctx, st, map->chunks[c], bg);
		}
	}
	for (c = 0; c < map->nr; c++) {
		const struct btrfs_chunk_map *ch = map->chunks[c];
		struct check_bg *bg = check_find_bg(st, ch->logical);

		if (!bg || bg->start != ch->logical)
			check_error(ctx, "chunk [%llu %llu] type 0x%llx has no block group item",
				    ch->logical, ch->length, ch->type);
	}
}

static struct check_dev *find_dev(struct ext_state *st, u64 devid)
{
	size_t i;

	for (i = 0; i < st->dev_nr; i++)
		if (st->dev[i].devid == devid)
			return &st->dev[i];
	return NULL;
}

static void check_devices(struct check_ctx *ctx, struct ext_state *st)
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

void check_extents_free(struct ext_state *st)
{
	if (!st)
		return;
	free(st->seen);
	free(st->exp);
	free(st->got);
	free(st->ext);
	free(st->bg);
	free(st->dext);
	free(st->stripe_fixes);
	free(st->dev);
	free(st->root);
	free(st->rebuild);
	free(st->lost);
	free(st->owners);
	free(st);
}

int check_extents_roots(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct ext_state *st;
	int ret;

	check_extents_free(ctx->extents_state);
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	ctx->extents_state = st;
	st->nodesize = btrfs_super_nodesize(sb);
	st->sectorsize = btrfs_super_sectorsize(sb);
	st->bg_tree = btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;

	ret = walk_one_tree(ctx, st, &ctx->fs->tree_root, NULL);
	if (ret < 0)
		error("extent check stopped: %s", strerror(-ret));
	return ret;
}

int check_extents_rest(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs = ctx->fs;
	struct ext_state *st = ctx->extents_state;
	size_t i;
	int ret;

	ret = walk_one_tree(ctx, st, &fs->chunk_root, NULL);
	for (i = 0; !ret && i < st->root_nr; i++) {
		struct check_root r = st->root[i];

		/* a tree id with several root items: only relocation trees may */
		ret = walk_one_tree(ctx, st, &r.tree, &r);
	}
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	ctx->stats.data_bytes_allocated = st->stats_alloc;
	ctx->stats.data_bytes_referenced = st->stats_ref;

	check_sort(st->ext, st->ext_nr, sizeof(*st->ext), cmp_ext);
	check_sort(st->bg, st->bg_nr, sizeof(*st->bg), cmp_bg);
	ret = add_missing_bgs(st, &fs->chunks);
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	check_sort(st->dext, st->dext_nr, sizeof(*st->dext), check_cmp_devext);
	check_full_backrefs(ctx, st);
	ret = resolve_expected(ctx, st);
	if (ret < 0) {
		error("extent check stopped: %s", strerror(-ret));
		return ret;
	}
	sort_merge(st->exp, &st->exp_nr);
	sort_merge(st->got, &st->got_nr);
	queue_full_backref_fixes(ctx, st);
	check_tree_block_generations(ctx, st);
	check_bg_kinds(ctx, st);
	check_extent_items(ctx, st);
	compare_refs(ctx, st);
	check_block_owners(ctx, st);
	check_block_groups(ctx, st);
	check_block_kinds(ctx, st);
	check_devices(ctx, st);
	return 0;
}

int check_extents(struct check_ctx *ctx)
{
	int ret = check_extents_roots(ctx);

	return ret ? ret : check_extents_rest(ctx);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Block groups, in-memory free space and extent items of tree blocks
 * (see engine-internal.h).
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/growable-array.h"

/* New chunks one transaction may make (t->bgs is sized for them once). */
#define EXTENT_ALLOC_NEW_CHUNKS_MAX 256

/* ---- range lists ---- */

static int ranges_insert(struct fs_range **arr, int *nr, int *alloc, int at, u64 start, u64 len)
{
	if (ARRAY_GROW(*arr, *nr, *alloc))
		return -ENOMEM;
	memmove(&(*arr)[at + 1], &(*arr)[at], (size_t)(*nr - at) * sizeof(**arr));
	(*arr)[at].start = start;
	(*arr)[at].len = len;
	(*nr)++;
	return 0;
}

/* Give [start, start + len) back to the free list, merging neighbours. */
static int free_add(struct wblock_group *bg, u64 start, u64 len)
{
	int i = 0;

	while (i < bg->nr_free && bg->free[i].start < start)
		i++;
	if (i > 0 && bg->free[i - 1].start + bg->free[i - 1].len > start)
		return -EEXIST;
	if (i < bg->nr_free && start + len > bg->free[i].start)
		return -EEXIST;
	if (i > 0 && bg->free[i - 1].start + bg->free[i - 1].len == start) {
		bg->free[i - 1].len += len;
		if (i < bg->nr_free && bg->free[i].start == start + len) {
			bg->free[i - 1].len += bg->free[i].len;
			memmove(&bg->free[i], &bg->free[i + 1],
				(size_t)(bg->nr_free - i - 1) * sizeof(bg->free[0]));
			bg->nr_free--;
		}
		return 0;
	}
	if (i < bg->nr_free && bg->free[i].start == start + len) {
		bg->free[i].start = start;
		bg->free[i].len += len;
		return 0;
	}
	return ranges_insert(&bg->free, &bg->nr_free, &bg->alloc_free, i, start, len);
}

static int cmp_range(const void *a, const void *b)
{
	const struct fs_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* ---- block groups ---- */

struct wblock_group *extent_alloc_find_block_group(struct btrfs_trans *t, u64 bytenr)
{
	int lo = 0, hi = t->nr_bgs;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		struct wblock_group *bg = &t->bgs[mid];

		if (bytenr < bg->start)
			hi = mid;
		else if (bytenr >= bg->start + bg->length)
			lo = mid + 1;
		else
			return bg;
	}
	return NULL;
}

static int bg_tree(struct btrfs_trans *t, struct btrfs_wroot **root)
{
	return btrfs_trans_get_root(t, t->bgt ? BTRFS_BLOCK_GROUP_TREE_OBJECTID :
					       BTRFS_EXTENT_TREE_OBJECTID, root);
}

int extent_alloc_load_block_groups(struct btrfs_trans *t, bool missing_items)
{
	struct btrfs_fs_info *fs = t->fs;
	struct btrfs_wroot *root;
	int ret;

	ret = bg_tree(t, &root);
	if (ret < 0) {
		error("cannot find the %s tree", t->bgt ? "block group" : "extent");
		return ret;
	}
	t->bgs_cap = (int)fs->chunks.nr + EXTENT_ALLOC_NEW_CHUNKS_MAX;
	t->bgs = calloc((size_t)t->bgs_cap, sizeof(*t->bgs));
	if (!t->bgs)
		return -ENOMEM;
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];
		struct wblock_group *bg;
		struct btrfs_path path;
		struct btrfs_key key;

		key.objectid = c->logical;
		key.type = BTRFS_BLOCK_GROUP_ITEM_KEY;
		key.offset = c->length;
		btrfs_init_path(&path);
		ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
		if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_block_group_item))
			ret = -EUCLEAN;
		if (ret > 0 && missing_items) {
			btrfs_release_path(&path);
			bg = &t->bgs[t->nr_bgs++];
			*bg = (struct wblock_group){ .start = c->logical, .length = c->length,
						     .flags = c->type & ~BTRFS_SPACE_INFO_GLOBAL_RSV,
						     .chunk_type = c->type, .item_missing = true };
			continue;
		}
		if (ret) {
			btrfs_release_path(&path);
			error("no block group item (%llu BLOCK_GROUP_ITEM %llu) for chunk %llu",
			      c->logical, c->length, c->logical);
			return ret < 0 ? ret : -EUCLEAN;
		}
		bg = &t->bgs[t->nr_bgs++];
		bg->start = c->logical;
		bg->length = c->length;
		bg->flags = btrfs_block_group_flags(btrfs_path_item_ptr(&path));
		bg->chunk_type = c->type;
		bg->used = btrfs_block_group_used(btrfs_path_item_ptr(&path));
		btrfs_release_path(&path);
	}
	return 0;
}

void extent_alloc_release(struct btrfs_trans *t)
{
	for (int i = 0; i < t->nr_bgs; i++) {
		free(t->bgs[i].free);
		free(t->bgs[i].chunk_item);
	}
	free(t->bgs);
	t->bgs = NULL;
	t->nr_bgs = 0;
}

struct used_ranges {
	struct fs_range *ranges;
	int nr, alloc;
	u64 end;
	u32 nodesize;
};

/* btrfs_for_each_item() step of extent_alloc_used_ranges(): one extent or metadata item. */
static int add_used_range(struct btrfs_path *path, const struct btrfs_key *found, void *arg)
{
	struct used_ranges *u = arg;
	u64 len = 0;

	(void)path;
	if (found->objectid >= u->end)
		return 1;
	if (found->type == BTRFS_EXTENT_ITEM_KEY)
		len = found->offset;
	else if (found->type == BTRFS_METADATA_ITEM_KEY)
		len = u->nodesize;
	if (!len)
		return 0;
	return ranges_insert(&u->ranges, &u->nr, &u->alloc, u->nr, found->objectid, len);
}

int extent_alloc_used_ranges(struct btrfs_trans *t, u64 start, u64 end, struct fs_range **out, int *nr)
{
	struct used_ranges u = { .end = end, .nodesize = t->nodesize };
	struct btrfs_key key = { start, 0, 0 };
	int ret;

	*out = NULL;
	*nr = 0;
	ret = btrfs_for_each_item(t->fs, t, &(struct btrfs_tree_ref){ .objectid = BTRFS_EXTENT_TREE_OBJECTID },
				  &key, BTRFS_SEARCH_NEXT, add_used_range, &u);
	if (ret < 0) {
		free(u.ranges);
		return ret;
	}
	*out = u.ranges;
	*nr = u.nr;
	return 0;
}

/*
 * RAID5/6: a row that holds anything the committed generation uses (or this
 * transaction did before the free space was learnt) is not free space at
 * all.  A commit writes a row with read-modify-write, data units and parity
 * in one flush interval: torn by a power cut, the parity no longer matches
 * the row's other units, and a block of the old generation there could not
 * be rebuilt with a device missing (the write hole).  Allocating only in
 * rows free of committed blocks keeps every torn row one that no committed
 * tree points into.
 */
static void widen_to_rows(const struct btrfs_chunk_map *c, struct fs_range *used, int nr_used)
{
	u64 rowlen = (u64)btrfs_chunk_data_stripes(c) * c->stripe_len;

	for (int i = 0; i < nr_used; i++) {
		u64 s = c->logical + (used[i].start - c->logical) / rowlen * rowlen;
		u64 e = used[i].start + used[i].len;

		e = c->logical + (e - c->logical + rowlen - 1) / rowlen * rowlen;
		used[i].start = s;
		used[i].len = e - s;
	}
}

/* Learn a block group's free space from the extent tree. */
static int load_free(struct btrfs_trans *t, struct wblock_group *bg)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&t->fs->chunks, bg->start);
	struct fs_range *used = NULL;
	int nr_used = 0, alloc_used, ret;
	struct btrfs_range *sup = NULL;
	u64 end = bg->start + bg->length, cur;
	int nsup;

	ret = extent_alloc_used_ranges(t, bg->start, end, &used, &nr_used);
	if (ret < 0)
		return ret;
	alloc_used = nr_used;
	nsup = c ? btrfs_chunk_super_ranges(c, &sup) : 0;
	if (nsup < 0)
		ret = nsup;
	for (int i = 0; i < nsup && ret == 0; i++)
		ret = ranges_insert(&used, &nr_used, &alloc_used, nr_used, sup[i].start, sup[i].len);
	free(sup);
	for (size_t i = 0; i < t->nr_pinned && ret == 0; i++)
		if (t->pinned[i].bytenr >= bg->start && t->pinned[i].bytenr < end)
			ret = ranges_insert(&used, &nr_used, &alloc_used, nr_used, t->pinned[i].bytenr,
					    t->nodesize);
	for (size_t i = 0; i < t->nr_acct && ret == 0; i++)
		if (t->acct[i].start >= bg->start && t->acct[i].start < end)
			ret = ranges_insert(&used, &nr_used, &alloc_used, nr_used, t->acct[i].start,
					    t->acct[i].len);
	if (ret < 0)
		goto out;
	if (c && btrfs_raid_has_parity(c->type))
		widen_to_rows(c, used, nr_used);
	if (nr_used)
		qsort(used, (size_t)nr_used, sizeof(*used), cmp_range);
	cur = bg->start;
	for (int i = 0; i <= nr_used && ret == 0; i++) {
		u64 s = i < nr_used ? used[i].start : end;

		if (s > end)
			s = end;
		if (s > cur)
			ret = ranges_insert(&bg->free, &bg->nr_free, &bg->alloc_free, bg->nr_free, cur,
					    s - cur);
		if (i < nr_used && used[i].start + used[i].len > cur)
			cur = used[i].start + used[i].len;
	}
	if (ret == 0)
		bg->loaded = true;
out:
	free(used);
	return ret;
}

/* Take [start, start + len) out of a loaded block group's free list. */
static int free_carve(struct wblock_group *bg, u64 start, u64 len)
{
	u64 end = start + len;

	for (int i = 0; i < bg->nr_free; i++) {
		struct fs_range *r = &bg->free[i];
		u64 rend = r->start + r->len;

		if (rend <= start || r->start >= end)
			continue;
		if (r->start >= start && rend <= end) {
			memmove(r, r + 1, (size_t)(bg->nr_free - i - 1) * sizeof(*r));
			bg->nr_free--;
			i--;
		} else if (r->start < start && rend > end) {
			r->len = start - r->start;
			return ranges_insert(&bg->free, &bg->nr_free, &bg->alloc_free, i + 1, end,
					     rend - end);
		} else if (r->start < start) {
			r->len = start - r->start;
		} else {
			r->len = rend - end;
			r->start = end;
		}
	}
	return 0;
}

/* btrfs_account_extent(); with update_fst the free space tree follows at commit. */
static int account_extent(struct btrfs_trans *t, u64 bytenr, u64 len, bool alloc, bool update_fst)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, bytenr);
	struct acct_range *a;
	int ret;

	if (!bg || !len || bytenr + len > bg->start + bg->length) {
		error("extent %llu+%llu is not inside one block group", bytenr, len);
		return -EINVAL;
	}
	if (ARRAY_GROW(t->acct, t->nr_acct, t->alloc_acct))
		return -ENOMEM;
	if (bg->loaded) {
		ret = free_carve(bg, bytenr, len);
		if (ret < 0)
			return ret;
	}
	a = &t->acct[t->nr_acct++];
	a->start = bytenr;
	a->len = len;
	a->alloc = alloc;
	a->fst_done = !t->fst || !update_fst;
	bg->delta += alloc ? (s64)len : -(s64)len;
	t->bytes_used_delta += alloc ? (s64)len : -(s64)len;
	return 0;
}

int btrfs_account_extent(struct btrfs_trans *t, u64 bytenr, u64 len, bool alloc)
{
	return account_extent(t, bytenr, len, alloc, true);
}

int btrfs_account_extent_keep_free_space_tree(struct btrfs_trans *t, u64 bytenr, u64 len,
					      bool alloc)
{
	return account_extent(t, bytenr, len, alloc, false);
}

void btrfs_trans_set_lenient(struct btrfs_trans *t, bool lenient)
{
	t->lenient = lenient;
}

/* First fit of len bytes aligned to align in bg's free list: 0, or -ENOSPC. */
static int bg_take(struct wblock_group *bg, u64 len, u64 align, u64 *bytenr)
{
	for (int j = 0; j < bg->nr_free; j++) {
		struct fs_range *r = &bg->free[j];
		u64 s = round_up(r->start, align);
		u64 rend = r->start + r->len;

		if (s + len > rend)
			continue;
		*bytenr = s;
		if (s == r->start) {
			r->start += len;
			r->len -= len;
			if (!r->len) {
				memmove(r, r + 1, (size_t)(bg->nr_free - j - 1) * sizeof(*r));
				bg->nr_free--;
			}
		} else {
			u64 tail = rend - (s + len);

			r->len = s - r->start;
			if (tail)
				return ranges_insert(&bg->free, &bg->nr_free, &bg->alloc_free, j + 1,
						     s + len, tail);
		}
		return 0;
	}
	return -ENOSPC;
}

int extent_alloc_bytes(struct btrfs_trans *t, u64 want, u64 len, u64 align, u64 *bytenr)
{
	int ret;

	for (int i = 0; i < t->nr_bgs; i++) {
		struct wblock_group *bg = &t->bgs[i];

		/* a block group whose item and chunk disagree, or without one (check repairs it), takes nothing */
		if (!(bg->flags & want) || !(bg->chunk_type & want) || bg->item_missing)
			continue;
		if (!bg->loaded) {
			ret = load_free(t, bg);
			if (ret < 0)
				return ret;
		}
		ret = bg_take(bg, len, align, bytenr);
		if (ret != -ENOSPC)
			return ret;
	}
	return -ENOSPC;
}

u64 extent_alloc_block_group_type(const struct btrfs_trans *t, u64 want)
{
	const u64 mixed = BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA;

	if (want & BTRFS_BLOCK_GROUP_SYSTEM)
		return BTRFS_BLOCK_GROUP_SYSTEM;
	for (int i = 0; i < t->nr_bgs; i++)
		if ((t->bgs[i].flags & mixed) == mixed)
			return mixed;
	return want;
}

int extent_alloc_tree_block(struct btrfs_trans *t, u64 owner, u64 *bytenr)
{
	u64 want = owner == BTRFS_CHUNK_TREE_OBJECTID ? BTRFS_BLOCK_GROUP_SYSTEM :
							BTRFS_BLOCK_GROUP_METADATA;
	struct wblock_group *bg;
	int ret;

	ret = extent_alloc_bytes(t, want, t->nodesize, t->nodesize, bytenr);
	if (ret != -ENOSPC)
		return ret;
	ret = trans_new_block_group(t, extent_alloc_block_group_type(t, want), &bg);
	if (ret == 0)
		ret = bg_take(bg, t->nodesize, t->nodesize, bytenr);
	if (ret < 0)
		error("no free space for a tree block of tree %llu in %s block groups", owner,
		      want == BTRFS_BLOCK_GROUP_SYSTEM ? "SYSTEM" : "METADATA");
	return ret;
}

int extent_alloc_add_block_group(struct btrfs_trans *t, const struct btrfs_chunk_map *map,
		  struct wblock_group **out)
{
	struct btrfs_range *sup = NULL;
	struct wblock_group *bg;
	int nsup, ret;

	if (t->nr_bgs >= t->bgs_cap) {
		error("more than %d new chunks in one transaction", EXTENT_ALLOC_NEW_CHUNKS_MAX);
		return -ENOSPC;
	}
	if (t->nr_bgs && t->bgs[t->nr_bgs - 1].start + t->bgs[t->nr_bgs - 1].length > map->logical) {
		error("new chunk %llu is not after the last block group", map->logical);
		return -EINVAL;
	}
	bg = &t->bgs[t->nr_bgs];
	memset(bg, 0, sizeof(*bg));
	bg->start = map->logical;
	bg->length = map->length;
	bg->flags = bg->chunk_type = map->type;
	bg->is_new = true;
	bg->items_pending = true;
	ret = ranges_insert(&bg->free, &bg->nr_free, &bg->alloc_free, 0, bg->start, bg->length);
	nsup = btrfs_chunk_super_ranges(map, &sup);
	if (nsup < 0 && ret == 0)
		ret = nsup;
	for (int i = 0; i < nsup && ret == 0; i++)
		ret = free_carve(bg, sup[i].start, sup[i].len);
	free(sup);
	if (ret < 0) {
		free(bg->free);
		return ret;
	}
	bg->loaded = true;
	t->nr_bgs++;
	*out = bg;
	return 0;
}

bool extent_alloc_block_group_pending(struct btrfs_trans *t, u64 bytenr)
{
	const struct wblock_group *bg = extent_alloc_find_block_group(t, bytenr);

	return bg && bg->items_pending;
}

int extent_alloc_return_block(struct btrfs_trans *t, u64 bytenr)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, bytenr);
	int ret;

	if (!bg || !bg->loaded)
		return -EINVAL;
	ret = free_add(bg, bytenr, t->nodesize);
	if (ret == -EEXIST)
		error("block %llu freed twice (internal error)", bytenr);
	return ret;
}

/* ---- extent items ---- */

void extent_alloc_item_init(const struct btrfs_trans *t, void *buf, size_t len, u64 flags)
{
	struct btrfs_extent_item *ei = buf;

	memset(buf, 0, len);
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, t->transid);
	btrfs_set_extent_flags(ei, flags);
}

int extent_alloc_insert_tree_block_item(struct btrfs_trans *t, const struct trans_block *tb)
{
	u8 buf[sizeof(struct btrfs_extent_item) + sizeof(struct btrfs_tree_block_info) +
	       sizeof(struct btrfs_extent_inline_ref)];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	struct btrfs_extent_inline_ref *iref;
	struct btrfs_wroot *extent;
	struct btrfs_key key;
	const struct extent_buffer *eb = tb->eb;
	u8 level = btrfs_eb_level(eb);
	u32 size;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	extent_alloc_item_init(t, buf, sizeof(buf), BTRFS_EXTENT_FLAG_TREE_BLOCK);
	key.objectid = eb->start;
	if (t->skinny) {
		key.type = BTRFS_METADATA_ITEM_KEY;
		key.offset = level;
		iref = (struct btrfs_extent_inline_ref *)(ei + 1);
		size = sizeof(*ei) + sizeof(*iref);
	} else {
		struct btrfs_tree_block_info *info = (struct btrfs_tree_block_info *)(ei + 1);

		key.type = BTRFS_EXTENT_ITEM_KEY;
		key.offset = t->nodesize;
		if (btrfs_eb_nritems(eb)) {
			if (level)
				info->key = btrfs_node_key_ptr(eb, 0)->key;
			else
				info->key = btrfs_leaf_item(eb, 0)->key;
		}
		btrfs_set_tree_block_level(info, level);
		iref = (struct btrfs_extent_inline_ref *)(info + 1);
		size = sizeof(*ei) + sizeof(*info) + sizeof(*iref);
	}
	btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
	btrfs_set_extent_inline_ref_offset(iref, tb->owner);
	ret = btrfs_insert_item(t, extent, &key, buf, size);
	if (ret == -EEXIST)
		error("extent item for new tree block %llu (tree %llu) already exists", eb->start,
		      tb->owner);
	else if (ret < 0)
		error("cannot insert the extent item of tree block %llu", eb->start);
	return ret;
}

int extent_alloc_drop_tree_block_item(struct btrfs_trans *t, const struct pinned_block *pb)
{
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	struct btrfs_key key;
	const struct btrfs_extent_item *ei;
	u32 size, iref_at;
	bool keyed = false;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	key.objectid = pb->bytenr;
	key.type = BTRFS_METADATA_ITEM_KEY;
	key.offset = pb->level;
	ret = btrfs_search_slot(t, extent, &key, &path, -1, 1);
	iref_at = sizeof(*ei);
	if (ret == 1) {
		key.type = BTRFS_EXTENT_ITEM_KEY;
		key.offset = t->nodesize;
		ret = btrfs_search_slot(t, extent, &key, &path, -1, 1);
		iref_at += sizeof(struct btrfs_tree_block_info);
	}
	if (ret) {
		btrfs_release_path(&path);
		if (ret > 0) {
			if (t->lenient) {
				warning("freed tree block %llu (tree %llu, level %u) had no extent item",
					pb->bytenr, pb->owner, pb->level);
				return 0;
			}
			error("freed tree block %llu (tree %llu, level %u) has no extent item",
			      pb->bytenr, pb->owner, pb->level);
			return -EUCLEAN;
		}
		return ret;
	}
	ei = btrfs_path_item_ptr(&path);
	size = btrfs_path_item_size(&path);
	/* FULL_BACKREF is fine here: its children's shared refs were moved at CoW time */
	if (size < iref_at || btrfs_extent_refs(ei) != 1 ||
	    !(btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK)) {
		ret = -EOPNOTSUPP;
	} else if (size == iref_at) {
		keyed = true;
	} else if (size == iref_at + sizeof(struct btrfs_extent_inline_ref)) {
		const struct btrfs_extent_inline_ref *r = (const void *)((const u8 *)ei + iref_at);

		if (btrfs_extent_inline_ref_type(r) != BTRFS_TREE_BLOCK_REF_KEY ||
		    btrfs_extent_inline_ref_offset(r) != pb->owner)
			ret = -EOPNOTSUPP;
	} else {
		ret = -EOPNOTSUPP;
	}
	if (ret < 0) {
		btrfs_release_path(&path);
		error("freed tree block %llu (tree %llu): extent item (%llu %u %llu) is not a single reference of that tree (shared blocks are not supported)",
		      pb->bytenr, pb->owner, key.objectid, key.type, key.offset);
		return ret;
	}
	ret = btrfs_del_items(t, extent, &path, path.slots[0], 1);
	if (ret < 0)
		return ret;
	if (keyed) {
		key.objectid = pb->bytenr;
		key.type = BTRFS_TREE_BLOCK_REF_KEY;
		key.offset = pb->owner;
		ret = btrfs_delete_item(t, extent, &key);
		if (ret == -ENOENT) {
			error("freed tree block %llu: no back reference (%llu TREE_BLOCK_REF %llu)",
			      pb->bytenr, pb->bytenr, pb->owner);
			ret = -EUCLEAN;
		}
	}
	return ret;
}

int extent_alloc_update_block_group_item(struct btrfs_trans *t, struct wblock_group *bg)
{
	struct btrfs_wroot *root;
	struct btrfs_path path;
	struct btrfs_key key;
	s64 used;
	int ret;

	ret = bg_tree(t, &root);
	if (ret < 0)
		return ret;
	used = (s64)bg->used + bg->delta;
	if (used < 0 || (u64)used > bg->length) {
		error("block group %llu: used bytes would be %lld of %llu", bg->start, (long long)used,
		      bg->length);
		return -EUCLEAN;
	}
	key.objectid = bg->start;
	key.type = BTRFS_BLOCK_GROUP_ITEM_KEY;
	key.offset = bg->length;
	btrfs_init_path(&path);
	/* delta may move while this search copies blocks: written_delta is what was stored */
	ret = btrfs_search_slot(t, root, &key, &path, 0, 1);
	if (ret == 0) {
		bg->written_delta = bg->delta;
		btrfs_set_block_group_used(btrfs_path_item_ptr(&path), bg->used + (u64)bg->delta);
		btrfs_set_block_group_flags(btrfs_path_item_ptr(&path), bg->flags);
		bg->flags_pending = false;
	} else if (ret > 0) {
		error("block group item (%llu BLOCK_GROUP_ITEM %llu) vanished", bg->start, bg->length);
		ret = -EUCLEAN;
	}
	btrfs_release_path(&path);
	return ret;
}

int btrfs_trans_block_group_used(struct btrfs_trans *t, u64 start, u64 *used)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, start);

	if (!bg || bg->start != start)
		return -ENOENT;
	*used = bg->used;
	return 0;
}

int btrfs_trans_set_block_group_used(struct btrfs_trans *t, u64 start, u64 used)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, start);

	if (!bg || bg->start != start)
		return -ENOENT;
	bg->used = used;
	return extent_alloc_update_block_group_item(t, bg);
}

int btrfs_trans_set_block_group_flags(struct btrfs_trans *t, u64 start, u64 flags)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, start);
	struct btrfs_key key = { start, BTRFS_BLOCK_GROUP_ITEM_KEY, 0 };
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret;

	if (!bg || bg->start != start)
		return -ENOENT;
	if (bg->flags == flags)
		return 0;
	if (t->progs_order) {
		bg->flags = flags;
		bg->flags_pending = true;
		return 0;
	}
	ret = bg_tree(t, &root);
	if (ret < 0)
		return ret;
	key.offset = bg->length;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 1);
	if (ret == 0)
		btrfs_set_block_group_flags(btrfs_path_item_ptr(&path), flags);
	btrfs_release_path(&path);
	if (ret > 0)
		return -ENOENT;
	if (ret == 0)
		bg->flags = flags;
	return ret;
}

int btrfs_trans_add_block_group_item(struct btrfs_trans *t, u64 start, u64 used)
{
	struct wblock_group *bg = extent_alloc_find_block_group(t, start);
	struct btrfs_block_group_item bgi;
	struct btrfs_key key;
	struct btrfs_wroot *root;
	int ret;

	if (!bg || bg->start != start || !bg->item_missing)
		return -ENOENT;
	if (used > bg->length)
		return -EINVAL;
	ret = bg_tree(t, &root);
	if (ret < 0)
		return ret;
	key = (struct btrfs_key){ bg->start, BTRFS_BLOCK_GROUP_ITEM_KEY, bg->length };
	btrfs_block_group_item_init(&bgi, used, bg->flags);
	ret = btrfs_insert_item(t, root, &key, &bgi, sizeof(bgi));
	if (ret < 0)
		return ret;
	/* what this transaction allocated or freed in it follows at the commit */
	bg->used = used;
	bg->written_delta = 0;
	bg->item_missing = false;
	return 0;
}

/* ---- inline back references ---- */

/* The value inline refs of a type are sorted by (descending), as the tree-checker wants. */
static u64 inline_seq(const struct btrfs_extent_inline_ref *r, u8 type)
{
	if (type == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *d = (const void *)&r->offset;

		return btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(d),
						  btrfs_extent_data_ref_objectid(d),
						  btrfs_extent_data_ref_offset(d));
	}
	return btrfs_extent_inline_ref_offset(r);
}

static bool data_ref_match(const struct btrfs_extent_inline_ref *r, const struct btrfs_data_ref *want)
{
	const struct btrfs_extent_data_ref *d = (const void *)&r->offset;

	if (want->type != BTRFS_EXTENT_DATA_REF_KEY)
		return btrfs_extent_inline_ref_offset(r) == want->parent;
	return btrfs_extent_data_ref_root(d) == want->root &&
	       btrfs_extent_data_ref_objectid(d) == want->ino &&
	       btrfs_extent_data_ref_offset(d) == want->offset;
}

/*
 * Offset of the matching inline ref (want->parent is the offset of tree
 * block and shared data refs), or where a new one goes: sorted by type,
 * then descending by seq.
 */
static u32 inline_ref_pos(const u8 *p, u32 iref_at, u32 size, const struct btrfs_data_ref *want,
			  u64 seq, bool *exists)
{
	u32 cur = iref_at;

	*exists = false;
	while (cur < size) {
		const struct btrfs_extent_inline_ref *r = (const void *)(p + cur);
		u8 rt = btrfs_extent_inline_ref_type(r);
		u32 rsize = btrfs_extent_inline_ref_size(rt);

		if (!rsize || cur + rsize > size)
			return size;
		if (rt > want->type)
			return cur;
		if (rt == want->type) {
			if (data_ref_match(r, want)) {
				*exists = true;
				return cur;
			}
			if (inline_seq(r, rt) < seq)
				return cur;
		}
		cur += rsize;
	}
	return size;
}

/* ---- tree block back references (shared blocks) ---- */

/*
 * The extent item of tree block bytenr at level: a cow path at it (ins_len
 * as btrfs_search_slot), *iref_at where its inline refs start.  1 if none.
 */
static int find_tree_extent(struct btrfs_trans *t, struct btrfs_wroot **extentp, u64 bytenr, int level,
			    struct btrfs_path *path, int ins_len, int cow, u32 *iref_at)
{
	struct btrfs_key key = { bytenr, BTRFS_METADATA_ITEM_KEY, (u64)level };
	struct btrfs_wroot *extent;
	int ret;

	btrfs_init_path(path);
	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, extentp);
	if (ret < 0)
		return ret;
	extent = *extentp;
	*iref_at = sizeof(struct btrfs_extent_item);
	ret = btrfs_search_slot(t, extent, &key, path, ins_len, cow);
	if (ret == 1) {
		key.type = BTRFS_EXTENT_ITEM_KEY;
		key.offset = t->nodesize;
		*iref_at += sizeof(struct btrfs_tree_block_info);
		ret = btrfs_search_slot(t, extent, &key, path, ins_len, cow);
	}
	if (ret == 0 && btrfs_path_item_size(path) < *iref_at)
		ret = -EUCLEAN;
	if (ret)
		btrfs_release_path(path);
	if (ret > 0)
		error("tree block %llu (level %d) has no extent item", bytenr, level);
	else if (ret == -EUCLEAN)
		error("extent item of tree block %llu is too small", bytenr);
	return ret > 0 ? -EUCLEAN : ret;
}

int extent_alloc_tree_block_refs(struct btrfs_trans *t, u64 bytenr, int level, u64 *refs, u64 *flags)
{
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	u32 iref_at;
	int ret;

	ret = find_tree_extent(t, &extent, bytenr, level, &path, 0, 0, &iref_at);
	if (ret < 0)
		return ret;
	*refs = btrfs_extent_refs(btrfs_path_item_ptr(&path));
	*flags = btrfs_extent_flags(btrfs_path_item_ptr(&path));
	btrfs_release_path(&path);
	return 0;
}

int extent_alloc_tree_block_set_flags(struct btrfs_trans *t, u64 bytenr, int level, u64 flags)
{
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	struct btrfs_extent_item *ei;
	u32 iref_at;
	int ret;

	ret = find_tree_extent(t, &extent, bytenr, level, &path, 0, 1, &iref_at);
	if (ret < 0)
		return ret;
	ei = btrfs_path_item_ptr(&path);
	btrfs_set_extent_flags(ei, btrfs_extent_flags(ei) | flags);
	btrfs_release_path(&path);
	return 0;
}

int btrfs_tree_block_ref_inc(struct btrfs_trans *t, u64 bytenr, int level, u8 type, u64 offset)
{
	struct btrfs_data_ref want = { .type = type, .parent = offset };
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	struct btrfs_extent_inline_ref *r;
	u32 iref_at, size, pos, rsize = sizeof(*r);
	bool exists;
	u8 *p;
	int ret;

	ret = find_tree_extent(t, &extent, bytenr, level, &path, (int)rsize, 1, &iref_at);
	if (ret < 0)
		return ret;
	p = btrfs_path_item_ptr(&path);
	size = btrfs_path_item_size(&path);
	pos = inline_ref_pos(p, iref_at, size, &want, offset, &exists);
	if (exists) {
		btrfs_release_path(&path);
		error("tree block %llu already has back reference (%u %llu)", bytenr, type, offset);
		return -EUCLEAN;
	}
	ret = btrfs_extend_item(t, &path, rsize);
	if (ret == 0) {
		p = btrfs_path_item_ptr(&path);
		memmove(p + pos + rsize, p + pos, size - pos);
		r = (struct btrfs_extent_inline_ref *)(p + pos);
		btrfs_set_extent_inline_ref_type(r, type);
		btrfs_set_extent_inline_ref_offset(r, offset);
		btrfs_set_extent_refs((struct btrfs_extent_item *)p,
				      btrfs_extent_refs((struct btrfs_extent_item *)p) + 1);
	}
	btrfs_release_path(&path);
	return ret;
}

int extent_alloc_tree_block_ref_dec(struct btrfs_trans *t, u64 bytenr, int level, u8 type, u64 offset)
{
	struct btrfs_data_ref want = { .type = type, .parent = offset };
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	struct btrfs_extent_item *ei;
	u32 iref_at, size, pos, rsize = sizeof(struct btrfs_extent_inline_ref);
	bool exists;
	u8 *p;
	int ret;

	ret = find_tree_extent(t, &extent, bytenr, level, &path, -1, 1, &iref_at);
	if (ret < 0)
		return ret;
	p = btrfs_path_item_ptr(&path);
	ei = (struct btrfs_extent_item *)p;
	size = btrfs_path_item_size(&path);
	if (btrfs_extent_refs(ei) < 2) {
		btrfs_release_path(&path);
		error("tree block %llu: dropping back reference (%u %llu) of its last reference",
		      bytenr, type, offset);
		return -EUCLEAN;
	}
	btrfs_set_extent_refs(ei, btrfs_extent_refs(ei) - 1);
	pos = inline_ref_pos(p, iref_at, size, &want, offset, &exists);
	if (exists) {
		memmove(p + pos, p + pos + rsize, size - pos - rsize);
		ret = btrfs_truncate_item(t, &path, size - rsize, true);
		btrfs_release_path(&path);
		return ret;
	}
	btrfs_release_path(&path);
	{
		struct btrfs_key key = { bytenr, type, offset };

		ret = btrfs_delete_item(t, extent, &key);
	}
	if (ret == -ENOENT) {
		error("tree block %llu has no back reference (%u %llu) to drop", bytenr, type, offset);
		ret = -EUCLEAN;
	}
	return ret;
}

/* ---- data back references (leaves shared with snapshots) ---- */

static u32 *data_ref_count_ptr(u8 *ref, u8 type)
{
	if (type == BTRFS_SHARED_DATA_REF_KEY)
		return (u32 *)(ref + sizeof(struct btrfs_extent_inline_ref));
	return (u32 *)(ref + 1 + offsetof(struct btrfs_extent_data_ref, count));
}

/* Change the refs of the data extent item (bytenr, EXTENT_ITEM, len) by delta. */
static int data_extent_refs_add(struct btrfs_trans *t, struct btrfs_wroot *extent, u64 bytenr,
				u64 len, s64 delta)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, len };
	struct btrfs_path path;
	struct btrfs_extent_item *ei;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, extent, &key, &path, 0, 1);
	if (ret == 0) {
		ei = btrfs_path_item_ptr(&path);
		if ((s64)btrfs_extent_refs(ei) + delta < 1)
			ret = -EUCLEAN;
		else
			btrfs_set_extent_refs(ei, (u64)((s64)btrfs_extent_refs(ei) + delta));
	}
	btrfs_release_path(&path);
	return ret > 0 ? -EUCLEAN : ret;
}

/* A keyed data back reference: count changed by delta (created, deleted). */
static int keyed_data_ref_mod(struct btrfs_trans *t, struct btrfs_wroot *extent, u64 bytenr,
			      const struct btrfs_data_ref *want, u64 seq, int delta)
{
	struct btrfs_key key = { bytenr, want->type, seq };
	u32 size = want->type == BTRFS_SHARED_DATA_REF_KEY ? sizeof(struct btrfs_shared_data_ref) :
							     sizeof(struct btrfs_extent_data_ref);
	struct btrfs_path path;
	u8 *p;
	u32 *count;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, extent, &key, &path, delta > 0 ? (int)(size + 25) : -1, 1);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		p = btrfs_path_item_ptr(&path);
		if (btrfs_path_item_size(&path) < size ||
		    (want->type == BTRFS_EXTENT_DATA_REF_KEY &&
		     (btrfs_extent_data_ref_root((void *)p) != want->root ||
		      btrfs_extent_data_ref_objectid((void *)p) != want->ino ||
		      btrfs_extent_data_ref_offset((void *)p) != want->offset))) {
			btrfs_release_path(&path);
			error("data extent %llu: back reference item (%llu %u %llu) is not the one wanted (hash collision or damage)",
			      bytenr, key.objectid, key.type, key.offset);
			return -EOPNOTSUPP;
		}
		count = (u32 *)(p + (want->type == BTRFS_SHARED_DATA_REF_KEY ? 0 :
				     offsetof(struct btrfs_extent_data_ref, count)));
		if ((s64)get_unaligned_le32(count) + delta <= 0)
			return btrfs_del_items(t, extent, &path, path.slots[0], 1);
		put_unaligned_le32((u32)((s64)get_unaligned_le32(count) + delta), count);
		btrfs_release_path(&path);
		return 0;
	}
	btrfs_release_path(&path);
	if (delta < 0) {
		error("data extent %llu has no back reference (%u %llu) to drop", bytenr, want->type,
		      seq);
		return -EUCLEAN;
	}
	{
		u8 buf[sizeof(struct btrfs_extent_data_ref)];

		memset(buf, 0, sizeof(buf));
		if (want->type == BTRFS_SHARED_DATA_REF_KEY) {
			btrfs_set_shared_data_ref_count((void *)buf, 1);
		} else {
			btrfs_set_extent_data_ref_root((void *)buf, want->root);
			btrfs_set_extent_data_ref_objectid((void *)buf, want->ino);
			btrfs_set_extent_data_ref_offset((void *)buf, want->offset);
			btrfs_set_extent_data_ref_count((void *)buf, 1);
		}
		return btrfs_insert_item(t, extent, &key, buf, size);
	}
}

int btrfs_data_ref_mod(struct btrfs_trans *t, u64 bytenr, u64 len, const struct btrfs_data_ref *want,
		    int delta)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, len };
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	u32 rsize = btrfs_extent_inline_ref_size(want->type), size, pos;
	u64 seq = want->type == BTRFS_SHARED_DATA_REF_KEY ? want->parent :
		  btrfs_extent_data_ref_hash(want->root, want->ino, want->offset);
	bool exists;
	u8 *p;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, extent, &key, &path, delta > 0 ? (int)rsize : -1, 1);
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_extent_item))
		ret = -EUCLEAN;
	if (ret) {
		btrfs_release_path(&path);
		error("data extent (%llu EXTENT_ITEM %llu) referenced by a shared leaf is missing or damaged",
		      bytenr, len);
		return ret > 0 ? -EUCLEAN : ret;
	}
	p = btrfs_path_item_ptr(&path);
	size = btrfs_path_item_size(&path);
	pos = inline_ref_pos(p, sizeof(struct btrfs_extent_item), size, want, seq, &exists);
	if (exists) {
		u32 *count = data_ref_count_ptr(p + pos, want->type);
		s64 n = (s64)get_unaligned_le32(count) + delta;
		struct btrfs_extent_item *ei = (struct btrfs_extent_item *)p;

		if ((s64)btrfs_extent_refs(ei) + delta < 1) {
			btrfs_release_path(&path);
			error("data extent %llu: dropping its last reference", bytenr);
			return -EUCLEAN;
		}
		btrfs_set_extent_refs(ei, (u64)((s64)btrfs_extent_refs(ei) + delta));
		if (n > 0) {
			put_unaligned_le32((u32)n, count);
			btrfs_release_path(&path);
			return 0;
		}
		memmove(p + pos, p + pos + rsize, size - pos - rsize);
		ret = btrfs_truncate_item(t, &path, size - rsize, true);
		btrfs_release_path(&path);
		return ret;
	}
	if (delta > 0 && size + rsize <= t->nodesize / 8) {
		struct btrfs_extent_inline_ref *r;

		ret = btrfs_extend_item(t, &path, rsize);
		if (ret == 0) {
			p = btrfs_path_item_ptr(&path);
			memmove(p + pos + rsize, p + pos, size - pos);
			memset(p + pos, 0, rsize);
			r = (struct btrfs_extent_inline_ref *)(p + pos);
			btrfs_set_extent_inline_ref_type(r, want->type);
			if (want->type == BTRFS_SHARED_DATA_REF_KEY) {
				btrfs_set_extent_inline_ref_offset(r, want->parent);
			} else {
				struct btrfs_extent_data_ref *d = (void *)&r->offset;

				btrfs_set_extent_data_ref_root(d, want->root);
				btrfs_set_extent_data_ref_objectid(d, want->ino);
				btrfs_set_extent_data_ref_offset(d, want->offset);
			}
			put_unaligned_le32(1, data_ref_count_ptr(p + pos, want->type));
			btrfs_set_extent_refs((struct btrfs_extent_item *)p,
					      btrfs_extent_refs((struct btrfs_extent_item *)p) + 1);
		}
		btrfs_release_path(&path);
		return ret;
	}
	btrfs_release_path(&path);
	ret = keyed_data_ref_mod(t, extent, bytenr, want, seq, delta);
	if (ret == 0)
		ret = data_extent_refs_add(t, extent, bytenr, len, delta);
	return ret;
}

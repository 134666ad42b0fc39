// SPDX-License-Identifier: GPL-2.0
/*
 * --repair of extent records, queued by pass 3 (check/extents.c) with
 * check_fixable() and applied by check_repair() in one transaction: every
 * record of one extent (its EXTENT_ITEM or METADATA_ITEM and all its back
 * references) is replaced by records built from the references the trees
 * make; an unreferenced extent loses its records (a data extent also its
 * checksums).  This mends missing extent items, missing, stale or
 * miscounted back references, wrong refs, generation or level alike.
 * Extents in use without an item are accounted before anything is copied
 * on write, so that the engine never hands their space out.  The block
 * group, device and superblock counters: check/repair-counters.c.
 *
 * An extent is queued only when its rebuilding is unambiguous (see
 * rebuild_possible()); otherwise its errors stay unfixable and
 * check_repair() writes nothing.
 */
#include <stdio.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

/*
 * In an array sorted by a u64 at the start of each element (check_ref.bytenr,
 * check_extent.start): [*first, *first + return) holds those equal to key.
 */
static size_t span(const void *base, size_t nr, size_t size, u64 key, size_t *first)
{
	const char *p = base;
	size_t lo = 0, hi = nr, n = 0;

#define KEY_AT(i) (*(const u64 *)(p + (i) * size))
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (KEY_AT(mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < nr && KEY_AT(lo + n) == key)
		n++;
#undef KEY_AT
	*first = lo;
	return n;
}

_Static_assert(offsetof(struct check_ref, bytenr) == 0, "span() reads the key at offset 0");
_Static_assert(offsetof(struct check_extent, start) == 0, "span() reads the key at offset 0");

static size_t exp_span(const struct ext_state *st, u64 bytenr, size_t *first)
{
	return span(st->exp, st->exp_nr, sizeof(*st->exp), bytenr, first);
}

static size_t ext_span(const struct ext_state *st, u64 bytenr, size_t *first)
{
	return span(st->ext, st->ext_nr, sizeof(*st->ext), bytenr, first);
}

/* May a new extent item [bytenr, bytenr + len) go there: in a block group of its kind, over no other? */
static bool range_free(struct ext_state *st, u64 bytenr, u64 len, bool data)
{
	struct check_bg *bg = check_find_bg(st, bytenr);
	size_t i;

	if (!bg || len > bg->len || bytenr - bg->start > bg->len - len ||
	    !IS_ALIGNED(bytenr, (u64)st->sectorsize))
		return false;
	if (data ? !(bg->flags & BTRFS_BLOCK_GROUP_DATA) :
		   !(bg->flags & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM)))
		return false;
	if (!data && st->nodesize <= SZ_64K && bytenr / SZ_64K != (bytenr + len - 1) / SZ_64K)
		return false;
	i = check_first_extent_ending_after(st, bytenr);
	return i >= st->ext_nr || st->ext[i].start >= bytenr + len;
}

/*
 * Can the records of extent bytenr be rebuilt from the references the trees
 * make?  They must agree on what the extent is (all data of one length, or
 * all one tree block of one level, each pointer once), and agree with the
 * one extent item there if any on its kind and length (its level and
 * generation are rewritten); a missing item needs free room for it.  An
 * extent nobody refers to is dropped (a data extent with its checksums).
 */
static bool rebuild_possible(struct ext_state *st, u64 bytenr, u64 *len, bool *reserve)
{
	size_t x0, e0, i;
	size_t nx = exp_span(st, bytenr, &x0);
	size_t ne = ext_span(st, bytenr, &e0);
	const struct check_ref *r;
	const struct check_extent *x;

	*reserve = false;
	if (ne > 1)
		return false;
	if (!nx) {
		u64 kind = ne ? st->ext[e0].flags & (BTRFS_EXTENT_FLAG_TREE_BLOCK | BTRFS_EXTENT_FLAG_DATA) : 0;

		*len = ne ? st->ext[e0].len : 0;
		return !ne || kind == BTRFS_EXTENT_FLAG_TREE_BLOCK || kind == BTRFS_EXTENT_FLAG_DATA;
	}
	r = &st->exp[x0];
	*len = r->len;
	if (!r->len || (!r->is_data && r->len != st->nodesize))
		return false;
	for (i = x0; i < x0 + nx; i++) {
		const struct check_ref *q = &st->exp[i];

		if (q->is_data != r->is_data || q->len != r->len)
			return false;
		if (!q->is_data && (q->level != r->level || q->count != 1))
			return false;
	}
	if (!ne) {
		*reserve = true;
		return range_free(st, bytenr, r->len, r->is_data);
	}
	x = &st->ext[e0];
	if (x->len != r->len)
		return false;
	if ((x->flags & (BTRFS_EXTENT_FLAG_TREE_BLOCK | BTRFS_EXTENT_FLAG_DATA)) !=
	    (r->is_data ? BTRFS_EXTENT_FLAG_DATA : BTRFS_EXTENT_FLAG_TREE_BLOCK))
		return false;
	return true;    /* a wrong level or generation is rewritten too */
}

/* ---- extent records ---------------------------------------------------------- */

/*
 * Account an extent added to or dropped from the extent tree.  The free
 * space tree is rebuilt from the repaired extent tree at commit (prepare
 * asks for it), so the range needs no update of its own there: the old
 * tree may not agree with the old extent tree anyway.
 */
static int account(struct btrfs_trans *t, u64 start, u64 len, bool alloc)
{
	return btrfs_account_extent_keep_free_space_tree(t, start, len, alloc);
}

/* Delete every extent item and back reference item of extent bytenr. */
static int delete_extent_records(struct btrfs_trans *t, struct btrfs_wroot *extent, u64 bytenr)
{
	for (;;) {
		struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, 0 }, found;
		int ret;

		ret = btrfs_trans_find_key(t, extent, &key, BTRFS_SEARCH_NEXT, &found);
		if (ret < 0)
			return ret;
		/* the record types sort together, before a block group item of the same start */
		if (ret > 0 || found.objectid != bytenr || found.type > BTRFS_SHARED_DATA_REF_KEY)
			return 0;
		ret = btrfs_delete_item(t, extent, &found);
		if (ret < 0)
			return ret;
	}
}

/* Insert a csum item for [start, ...) with the checksums at data (size bytes). */
static int insert_csums(struct btrfs_trans *t, struct btrfs_wroot *csum, u64 start, const u8 *data,
			u32 size)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, start };

	return size ? btrfs_insert_item(t, csum, &key, data, size) : 0;
}

int check_delete_csums(struct check_ctx *ctx, struct btrfs_trans *t, u64 start, u64 end)
{
	u32 cs = ctx->fs->geo.csum_size, ss = ctx->fs->geo.sectorsize;
	struct btrfs_wroot *csum;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_CSUM_TREE_OBJECTID, &csum);
	if (ret == -ENOENT || !cs)
		return 0;
	while (ret == 0) {
		struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, end - 1 }, found;
		struct btrfs_path path;
		u64 istart, iend;
		u32 size;
		u8 *data;

		btrfs_init_path(&path);
		ret = btrfs_trans_search_key(t, csum, &key, BTRFS_SEARCH_PREV, &path, &found);
		if (ret) {
			btrfs_release_path(&path);
			return ret < 0 ? ret : 0;
		}
		size = btrfs_path_item_size(&path);
		istart = found.offset;
		iend = istart + (u64)(size / cs) * ss;
		if (found.objectid != BTRFS_EXTENT_CSUM_OBJECTID || found.type != BTRFS_EXTENT_CSUM_KEY ||
		    iend <= start) {
			btrfs_release_path(&path);
			return 0;
		}
		data = malloc(size);
		if (!data) {
			btrfs_release_path(&path);
			return -ENOMEM;
		}
		memcpy(data, btrfs_path_item_ptr(&path), size);
		btrfs_release_path(&path);
		ret = btrfs_delete_item(t, csum, &found);
		if (ret == 0 && istart < start)
			ret = insert_csums(t, csum, istart, data, (u32)((start - istart) / ss * cs));
		if (ret == 0 && iend > end) {
			u32 skip = (u32)((end - istart) / ss * cs);

			ret = insert_csums(t, csum, end, data + skip, size / cs * cs - skip);
		}
		free(data);
	}
	return ret;
}

/* An extent item without back references (refs 0): the references are added one by one. */
static int insert_bare_item(struct check_ctx *ctx, struct btrfs_trans *t, struct btrfs_wroot *extent,
			    const struct check_ref *r, const struct check_extent *old)
{
	const struct ext_state *st = ctx->extents_state;
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	u8 buf[sizeof(struct btrfs_extent_item) + sizeof(struct btrfs_tree_block_info)];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	struct btrfs_tree_block_info *info = (struct btrfs_tree_block_info *)(ei + 1);
	struct btrfs_key key = { r->bytenr, BTRFS_EXTENT_ITEM_KEY, r->len };
	u64 gen = btrfs_trans_transid(t), flags;
	u32 size = sizeof(*ei);
	bool skinny = old ? old->metadata_item :
		      !!(btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA);

	memset(buf, 0, sizeof(buf));
	flags = r->is_data ? BTRFS_EXTENT_FLAG_DATA : BTRFS_EXTENT_FLAG_TREE_BLOCK;
	if (!old && !r->is_data) {
		bool full = false;

		/* the flag the check resolved the block's children's refs by */
		if (check_lost_block_full_backref(st, r->bytenr, &full) && full)
			flags |= BTRFS_BLOCK_FLAG_FULL_BACKREF;
	}
	if (old) {
		flags = old->flags;
		if (old->generation && old->generation <= btrfs_super_generation(sb))
			gen = old->generation;
	}
	if (!r->is_data) {
		struct tree_check tc = { .owner = 0, .level = r->level, .transid = 0, .first_key = NULL };
		struct extent_buffer *eb;

		/*
		 * The block's own generation (the extent item's is the block's
		 * allocation: check_tree_block_generations()) and first key when it
		 * reads back.
		 */
		if (btrfs_read_tree_block(ctx->fs, r->bytenr, &tc, &eb) == 0) {
			u64 hgen = btrfs_header_generation(btrfs_header(eb));

			if (hgen && hgen <= btrfs_trans_transid(t))
				gen = hgen;
			if (btrfs_eb_nritems(eb))
				info->key = r->level ? btrfs_node_key_ptr(eb, 0)->key : btrfs_leaf_item(eb, 0)->key;
			free_extent_buffer(eb);
		}
		if (skinny) {
			key.type = BTRFS_METADATA_ITEM_KEY;
			key.offset = r->level;
		} else {
			btrfs_set_tree_block_level(info, r->level);
			size += sizeof(*info);
		}
	}
	btrfs_set_extent_refs(ei, 0);
	btrfs_set_extent_generation(ei, gen);
	btrfs_set_extent_flags(ei, flags);
	return btrfs_insert_item(t, extent, &key, buf, size);
}

static int add_back_refs(struct btrfs_trans *t, const struct check_ref *refs, size_t nr)
{
	size_t i;
	u32 c;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		const struct check_ref *r = &refs[i];

		if (!r->is_data) {
			ret = btrfs_tree_block_ref_inc(t, r->bytenr, r->level, r->type,
					      r->type == BTRFS_SHARED_BLOCK_REF_KEY ? r->parent : r->root);
			continue;
		}
		for (c = 0; c < r->count && !ret; c++) {
			struct btrfs_data_ref d = { .type = r->type, .parent = r->parent, .root = r->root,
						 .ino = r->objectid, .offset = r->offset };

			ret = btrfs_data_ref_mod(t, r->bytenr, r->len, &d, 1);
		}
	}
	return ret;
}

static int fix_extent_records(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	struct ext_state *st = ctx->extents_state;
	u64 bytenr = *(const u64 *)arg;
	struct btrfs_wroot *extent;
	size_t x0, e0;
	size_t nx = exp_span(st, bytenr, &x0);
	size_t ne = ext_span(st, bytenr, &e0);
	const struct check_extent *old = ne ? &st->ext[e0] : NULL;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret == 0)
		ret = delete_extent_records(t, extent, bytenr);
	if (ret < 0)
		return ret;
	if (!nx) {
		if (old) {
			ret = account(t, old->start, old->len, false);
			if (ret == 0 && (old->flags & BTRFS_EXTENT_FLAG_DATA))
				ret = check_delete_csums(ctx, t, old->start, old->start + old->len);
			if (ret < 0)
				return ret;
		}
		printf("Deleted the extent records of %llu: nothing refers to it\n", bytenr);
		return 0;
	}
	ret = insert_bare_item(ctx, t, extent, &st->exp[x0], old);
	if (ret == 0)
		ret = add_back_refs(t, &st->exp[x0], nx);
	if (ret == 0)
		printf("Repaired extent references for %llu\n", bytenr);
	return ret;
}

static int cmp_rebuild(const void *a, const void *b)
{
	const struct check_rebuild *x = a, *y = b;

	return x->bytenr < y->bytenr ? -1 : x->bytenr > y->bytenr;
}

/* Queue the rebuild of extent bytenr once it is found possible; later calls count as mended by it. */
static bool queue_once(struct check_ctx *ctx, struct ext_state *st, u64 bytenr, bool seen, bool ok)
{
	if (seen) {
		if (ok)
			check_fixable(ctx, NULL, NULL, 0);
		return ok;
	}
	if (ok) {
		st->rebuilds++;
		check_fixable(ctx, fix_extent_records, &bytenr, sizeof(bytenr));
	}
	return ok;
}

bool check_queue_extent_rebuild(struct check_ctx *ctx, struct ext_state *st, u64 bytenr)
{
	struct check_rebuild key = { .bytenr = bytenr }, *r;
	struct check_extent *x;
	bool seen;
	size_t at;

	if (!check_repairing(ctx))
		return false;
	x = check_find_extent(st, bytenr);
	if (x) {
		seen = x->rebuild_seen;
		if (!seen) {
			x->rebuild_seen = 1;
			x->rebuild_ok = rebuild_possible(st, bytenr, &key.len, &key.reserve);
		}
		return queue_once(ctx, st, bytenr, seen, x->rebuild_ok);
	}
	r = check_bsearch(&key, st->rebuild, st->rebuild_nr, sizeof(key), cmp_rebuild);
	if (r)
		return queue_once(ctx, st, bytenr, true, r->ok);
	key.ok = rebuild_possible(st, bytenr, &key.len, &key.reserve);
	if (ARRAY_GROW(st->rebuild, st->rebuild_nr, st->rebuild_alloc))
		return false;
	/* the passes report in ascending order: this is an append */
	for (at = st->rebuild_nr; at && st->rebuild[at - 1].bytenr > bytenr; at--)
		;
	memmove(&st->rebuild[at + 1], &st->rebuild[at], (st->rebuild_nr - at) * sizeof(key));
	st->rebuild[at] = key;
	st->rebuild_nr++;
	return queue_once(ctx, st, bytenr, false, key.ok);
}

int check_repair_extents_prepare(struct check_ctx *ctx, struct btrfs_trans *t)
{
	struct ext_state *st = ctx->extents_state;
	size_t i;
	int ret;

	/*
	 * Extents in use but without an extent item look free to the engine's
	 * allocator: account them before anything is copied on write.
	 */
	/* a free space cache (v1) is invalidated by the commit instead */
	if (st && st->rebuilds && btrfs_trans_has_free_space_tree(t))
		ctx->repair_rebuild_fst = true;
	for (i = 0; st && i < st->rebuild_nr; i++) {
		if (!st->rebuild[i].ok || !st->rebuild[i].reserve)
			continue;
		ret = account(t, st->rebuild[i].bytenr, st->rebuild[i].len, true);
		if (ret < 0)
			return ret;
	}
	return 0;
}

bool check_repair_covers_data(struct check_ctx *ctx, u64 start, u64 end)
{
	struct ext_state *st = ctx->extents_state;
	u64 pos = start;

	if (!check_repairing(ctx) || !st)
		return false;
	while (pos < end) {
		size_t i = check_first_extent_ending_after(st, pos);
		const struct check_rebuild *r = NULL;
		size_t at = 0, n, lo = 0, hi = st->rebuild_nr;

		if (i < st->ext_nr && st->ext[i].start <= pos && (st->ext[i].flags & BTRFS_EXTENT_FLAG_DATA)) {
			pos = st->ext[i].start + st->ext[i].len;
			continue;
		}
		/* a data extent item the repair inserts, over pos: the last rebuild starting at or before it */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (st->rebuild[mid].bytenr <= pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			r = &st->rebuild[lo - 1];
		if (r && pos - r->bytenr >= r->len)
			r = NULL;
		n = r ? exp_span(st, r->bytenr, &at) : 0;
		if (!r || !r->ok || !r->reserve || !n || !st->exp[at].is_data)
			return false;
		pos = r->bytenr + r->len;
	}
	return true;
}

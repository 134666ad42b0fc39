// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3's walk of one tree (check/extents.c calls it for each tree): every
 * block once, read through the verified read path with what its parent's
 * pointer promised; its other copies compared with it (--repair rewrites a
 * bad one from the good one), its header checked
 * (check/extents-tree-blocks.c), its bytes counted for the summary; every
 * pointer an expected tree block ref, every leaf's items gathered
 * (check/extents-leaves.c).  A block reached a second time (the visited
 * set) is not entered again; a half-dropped tree's dropped part is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/repair-leaves.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/engine/tree-write.h"

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

/* ---- walking one tree ------------------------------------------------------------ */

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
	if (check_add_expected_ref(w->st, bytenr, w->st->nodesize, node->start, btrfs_header_owner(btrfs_header(node)),
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
		ret = check_collect_leaf(w->ctx, w->st, w->tree_id, eb);
	if (ret)
		w->fatal = ret;
	return ret;
}

int check_walk_tree(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_tree_ref *tree,
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
	if (check_add_expected_ref(st, tree->bytenr, st->nodesize,
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

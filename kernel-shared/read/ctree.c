// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only tree walking: search by key, next/previous item and leaf, and
 * whole-tree block walks in DFS or BFS order (see ctree.h).
 *
 * Everything moves a struct btrfs_path: at most one block per level is held.
 * Every child is read with what its parent pointer promises (level - 1,
 * generation, first key, owner for trees whose blocks are never shared), and
 * blocks entered at one level must come in strictly increasing key order
 * (each block's first key above the previous block's last key at that
 * level).  So a block is entered at most once per descent order, and
 * cyclic or cross-linked trees cannot loop.  A walk with BTRFS_WALK_REVISIT
 * drops that order check (dump-tree shows what every pointer leads to); it
 * still ends, each child being one level below its parent.
 */
#include <stdio.h>
#include <stdlib.h>
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

void btrfs_init_path(struct btrfs_path *path)
{
	memset(path, 0, sizeof(*path));
}

static void free_nodes_below(struct btrfs_path *path, int level)
{
	int l;

	for (l = 0; l < level && l < BTRFS_MAX_LEVEL; l++) {
		if (!path->borrowed[l])
			free_extent_buffer(path->nodes[l]);
		path->nodes[l] = NULL;
		path->borrowed[l] = false;
		path->slots[l] = 0;
	}
}

void btrfs_release_path(struct btrfs_path *path)
{
	int lowest = path->lowest_level;

	free_nodes_below(path, BTRFS_MAX_LEVEL);
	memset(path, 0, sizeof(*path));
	path->lowest_level = lowest;
}

void btrfs_path_item_key(const struct btrfs_path *path, struct btrfs_key *key)
{
	btrfs_item_key_to_cpu(path->nodes[0], key, path->slots[0]);
}

void *btrfs_path_item_ptr(const struct btrfs_path *path)
{
	return btrfs_leaf_item_ptr(path->nodes[0], path->slots[0]);
}

u32 btrfs_path_item_size(const struct btrfs_path *path)
{
	return btrfs_leaf_item_size(path->nodes[0], path->slots[0]);
}

/* Trees whose blocks are never shared with another tree: owner is checked. */
static u64 block_owner(u64 tree)
{
	switch (tree) {
	case BTRFS_ROOT_TREE_OBJECTID:
	case BTRFS_EXTENT_TREE_OBJECTID:
	case BTRFS_CHUNK_TREE_OBJECTID:
	case BTRFS_DEV_TREE_OBJECTID:
	case BTRFS_CSUM_TREE_OBJECTID:
	case BTRFS_QUOTA_TREE_OBJECTID:
	case BTRFS_UUID_TREE_OBJECTID:
	case BTRFS_FREE_SPACE_TREE_OBJECTID:
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
	case BTRFS_RAID_STRIPE_TREE_OBJECTID:
	case BTRFS_TREE_LOG_OBJECTID:
		return tree;
	default:
		return 0;
	}
}

int btrfs_block_slots(const struct extent_buffer *eb)
{
	u32 max = (eb->len - sizeof(struct btrfs_header)) /
		  (btrfs_eb_level(eb) ? sizeof(struct btrfs_key_ptr) : sizeof(struct btrfs_item));

	return min_t(u32, btrfs_eb_nritems(eb), max);
}

/*
 * Loop guard: a verified block entered at its level must start above the
 * last key seen at that level.  Records its last key.  0 or -EUCLEAN.
 */
static int guard_block(struct btrfs_path *path, const struct extent_buffer *eb, bool quiet)
{
	int level = btrfs_eb_level(eb);
	struct btrfs_key first;

	if (btrfs_block_slots(eb) == 0)
		return 0;
	btrfs_block_key_to_cpu(eb, &first, 0);
	if ((path->have_last & (1U << level)) &&
	    btrfs_comp_cpu_keys(&first, &path->last_key[level]) <= 0) {
		if (!quiet)
			error("tree %llu: block %llu at level %d entered twice or out of key order, first key (%llu %u %llu) not after (%llu %u %llu)",
			      (unsigned long long)path->tree.objectid, (unsigned long long)eb->start,
			      level, (unsigned long long)first.objectid, first.type,
			      (unsigned long long)first.offset,
			      (unsigned long long)path->last_key[level].objectid,
			      path->last_key[level].type,
			      (unsigned long long)path->last_key[level].offset);
		return -EUCLEAN;
	}
	/* a count beyond the block (a relaxed read): its last key is not known */
	if (btrfs_eb_nritems(eb) > (u32)btrfs_block_slots(eb))
		return 0;
	btrfs_block_key_to_cpu(eb, &path->last_key[level], btrfs_block_slots(eb) - 1);
	path->have_last |= 1U << level;
	return 0;
}

/* ---- walking state (NULL for plain iteration) ---- */

struct walker {
	btrfs_walk_fn fn;
	btrfs_walk_ptr_fn ptr_fn;   /* NULL: every pointer is followed */
	void *ctx;
	const struct read_policy *policy;
	int report_level;   /* -1: every level (DFS); else only this level (BFS pass) */
	bool revisit;       /* BTRFS_WALK_REVISIT: no key-order guard */
	int stop;           /* fn's non-zero return */
	int first_err;
};

static bool reports(const struct walker *w, int level)
{
	return w && (w->report_level < 0 || w->report_level == level);
}

static void visit(struct btrfs_fs_info *fs, struct walker *w, const struct extent_buffer *eb,
		  u64 bytenr, int err)
{
	int ret;

	if (err < 0 && !w->first_err)
		w->first_err = err;
	ret = w->fn(fs, eb, bytenr, err, w->ctx);
	if (ret && !w->stop)
		w->stop = ret;
}

/* Read the child at slots[level] of nodes[level]: nodes[level - 1] on success. */
static int read_child(struct btrfs_fs_info *fs, struct btrfs_path *path, int level,
		      struct walker *w)
{
	const struct extent_buffer *parent = path->nodes[level];
	const struct btrfs_key_ptr *ptr = btrfs_node_key_ptr(parent, path->slots[level]);
	struct read_policy pol = { 0 };
	struct tree_check expect;
	struct extent_buffer *eb = NULL;
	u64 bytenr = btrfs_key_blockptr(ptr);
	int ret;

	if (path->read_child)   /* a transaction's path: its blocks, no guard */
		return path->read_child(path, level);
	if (w && w->ptr_fn) {
		ret = w->ptr_fn(fs, parent, path->slots[level], bytenr, btrfs_key_generation(ptr),
				level - 1, w->ctx);
		if (ret < 0) {
			if (!w->stop)
				w->stop = ret;
			return ret;
		}
		if (ret == BTRFS_WALK_SKIP)
			return -ENOENT;   /* as an unreadable child: the walk moves on */
	}
	if (w && w->policy)
		pol = *w->policy;
	/* A BFS pass re-reads upper levels that earlier passes reported on. */
	if (w && !reports(w, level - 1))
		pol.quiet = true;
	expect.owner = block_owner(path->tree.objectid);
	expect.level = level - 1;
	expect.transid = btrfs_key_generation(ptr);
	expect.first_key = &ptr->key;
	ret = btrfs_read_tree_block_policy(fs, bytenr, &expect, &pol, &eb);
	if (ret == 0 && !(w && w->revisit)) {
		ret = guard_block(path, eb, pol.quiet);
		if (ret < 0 && pol.on_failure != READ_KEEP_BAD) {
			free_extent_buffer(eb);
			eb = NULL;
		}
	}
	if (ret < 0) {
		if (reports(w, level - 1))
			visit(fs, w, eb, bytenr, ret);
		free_extent_buffer(eb);
		return ret;
	}
	path->nodes[level - 1] = eb;
	path->slots[level - 1] = 0;
	if (reports(w, level - 1))
		visit(fs, w, eb, bytenr, 0);
	return 0;
}

/*
 * Descend from nodes[from] (its slot already set) to level to, taking slot 0
 * below (or the last slot when last is set).  On a read error nodes below
 * the failed level stay NULL and the error is returned.
 */
static int descend(struct btrfs_fs_info *fs, struct btrfs_path *path, int from, int to,
		   bool last, struct walker *w)
{
	int l, ret;

	for (l = from; l > to; l--) {
		free_nodes_below(path, l);
		ret = read_child(fs, path, l, w);
		if (ret < 0)
			return ret;
		if (w && w->stop)
			return 0;
		if (last) {
			int nr = btrfs_eb_nritems(path->nodes[l - 1]);

			path->slots[l - 1] = nr ? nr - 1 : 0;
		}
	}
	return 0;
}

static int top_level(const struct btrfs_path *path)
{
	int l;

	for (l = BTRFS_MAX_LEVEL - 1; l >= 0; l--)
		if (path->nodes[l])
			return l;
	return -1;
}

/*
 * Move to the next block at level L: 0 (nodes[L] valid), 1 (no more),
 * negative errno (that block could not be read; calling again skips it).
 */
static int advance(struct btrfs_fs_info *fs, struct btrfs_path *path, int L, struct walker *w)
{
	int top = top_level(path), lvl;

	for (lvl = L + 1; lvl <= top; lvl++) {
		if (!path->nodes[lvl])
			continue;
		if (path->slots[lvl] + 1 < btrfs_block_slots(path->nodes[lvl])) {
			path->slots[lvl]++;
			return descend(fs, path, lvl, L, false, w);
		}
	}
	return 1;
}

/* As advance(), backwards: the previous block at level L, entered at its last slot. */
static int retreat(struct btrfs_fs_info *fs, struct btrfs_path *path, int L)
{
	int top = top_level(path), lvl, ret;
	struct btrfs_key before = { 0, 0, 0 };
	bool have = false;

	if (path->nodes[L] && btrfs_eb_nritems(path->nodes[L])) {
		btrfs_block_key_to_cpu(path->nodes[L], &before, 0);
		have = true;
	}
	for (lvl = L + 1; lvl <= top; lvl++) {
		if (!path->nodes[lvl])
			continue;
		if (path->slots[lvl] > 0) {
			path->slots[lvl]--;
			/* the guard runs forwards: clear it for this descent */
			path->have_last = 0;
			ret = descend(fs, path, lvl, L, true, NULL);
			if (ret < 0)
				return ret;
			if (have && btrfs_eb_nritems(path->nodes[L])) {
				struct btrfs_key last;

				btrfs_block_key_to_cpu(path->nodes[L], &last, btrfs_block_slots(path->nodes[L]) - 1);
				if (btrfs_comp_cpu_keys(&last, &before) >= 0) {
					error("tree %llu: block %llu out of key order",
					      (unsigned long long)path->tree.objectid,
					      (unsigned long long)path->nodes[L]->start);
					return -EUCLEAN;
				}
			}
			return 0;
		}
	}
	return 1;
}

/* ---- search ---- */

int btrfs_bin_search(const struct extent_buffer *eb, const struct btrfs_key *key, int *slot)
{
	int lo = 0, hi = btrfs_eb_nritems(eb);
	bool node = btrfs_eb_level(eb) > 0;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		struct btrfs_key k;
		int c;

		if (node)
			btrfs_node_key_to_cpu(eb, &k, mid);
		else
			btrfs_item_key_to_cpu(eb, &k, mid);
		c = btrfs_comp_cpu_keys(&k, key);
		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			*slot = mid;
			return 0;
		}
	}
	*slot = lo;
	return 1;
}

static int read_root(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct read_policy *policy, struct extent_buffer **eb)
{
	struct tree_check expect = {
		.owner = block_owner(tree->objectid),
		.level = tree->level,
		.transid = tree->generation,
	};

	if (tree->level >= BTRFS_MAX_LEVEL) {
		error("tree %llu: root level %u too big", (unsigned long long)tree->objectid,
		      tree->level);
		return -EUCLEAN;
	}
	return btrfs_read_tree_block_policy(fs, tree->bytenr, &expect, policy, eb);
}

int btrfs_search_descend(struct btrfs_path *path, int level, const struct btrfs_key *key,
			 const struct btrfs_search_ops *ops, void *arg)
{
	int found, ret, slot;

	for (;;) {
		if (ops && ops->enter) {
			ret = ops->enter(path, level, arg);
			if (ret < 0)
				return ret;
		}
		found = btrfs_bin_search(path->nodes[level], key, &slot);
		if (level > 0 && found && slot > 0)
			slot--;
		path->slots[level] = slot;
		if (ops && ops->leave) {
			ret = ops->leave(path, level, key, found, arg);
			if (ret < 0)
				return ret;
		}
		if (level == 0 || level == path->lowest_level)
			return found;
		ret = read_child(path->fs, path, level, NULL);
		if (ret < 0)
			return ret;
		level--;
	}
}

int btrfs_search(struct btrfs_fs_info *fs, struct btrfs_trans *trans,
		 const struct btrfs_tree_ref *tree, const struct btrfs_key *key,
		 struct btrfs_path *path, int ins_len, int cow)
{
	struct extent_buffer *eb;
	int level, ret;

	if (trans)
		return fs->trans_search ? fs->trans_search(trans, tree->objectid, key, path, ins_len, cow)
					: -EINVAL;
	if (ins_len || cow)
		return -EINVAL;
	btrfs_release_path(path);
	path->fs = fs;
	path->tree = *tree;
	ret = read_root(fs, tree, NULL, &eb);
	if (ret < 0)
		return ret;
	level = btrfs_eb_level(eb);
	path->nodes[level] = eb;
	guard_block(path, eb, false);
	if (level < path->lowest_level) {
		path->slots[level] = 0;
		return 1;
	}
	return btrfs_search_descend(path, level, key, NULL, NULL);
}

int btrfs_search_slot_ro(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			 const struct btrfs_key *key, struct btrfs_path *path)
{
	return btrfs_search(fs, NULL, tree, key, path, 0, 0);
}

int btrfs_next_leaf(struct btrfs_path *path)
{
	int L = path->lowest_level, ret;

	for (;;) {
		ret = advance(path->fs, path, L, NULL);
		if (ret)
			return ret;
		path->slots[L] = 0;
		if (L > 0 || btrfs_eb_nritems(path->nodes[0]) > 0)
			return 0;
	}
}

int btrfs_next_item(struct btrfs_path *path)
{
	struct extent_buffer *leaf = path->nodes[0];

	if (leaf && path->slots[0] + 1 < (int)btrfs_eb_nritems(leaf)) {
		path->slots[0]++;
		return 0;
	}
	return btrfs_next_leaf(path);
}

int btrfs_prev_item(struct btrfs_path *path)
{
	int ret;

	if (path->nodes[0] && path->slots[0] > 0) {
		path->slots[0]--;
		if (path->slots[0] >= (int)btrfs_eb_nritems(path->nodes[0]))
			path->slots[0] = btrfs_eb_nritems(path->nodes[0]) - 1;
		return 0;
	}
	for (;;) {
		ret = retreat(path->fs, path, 0);
		if (ret)
			return ret;
		if (btrfs_eb_nritems(path->nodes[0]) > 0) {
			path->slots[0] = btrfs_eb_nritems(path->nodes[0]) - 1;
			return 0;
		}
	}
}

int btrfs_search_position(struct btrfs_path *path, int ret, enum btrfs_search_mode mode,
			  struct btrfs_key *found)
{
	if (ret < 0)
		return ret;
	if (ret == 1) {
		switch (mode) {
		case BTRFS_SEARCH_EXACT:
			return 1;
		case BTRFS_SEARCH_NEXT:
			if (path->slots[0] >= (int)btrfs_eb_nritems(path->nodes[0])) {
				ret = btrfs_next_leaf(path);
				if (ret)
					return ret;
			}
			break;
		case BTRFS_SEARCH_PREV:
			ret = btrfs_prev_item(path);
			if (ret)
				return ret;
			break;
		}
	}
	if (found)
		btrfs_path_item_key(path, found);
	return 0;
}

/* btrfs_search_key() through btrfs_search(): committed (trans NULL) or in a transaction. */
static int search_key_in(struct btrfs_fs_info *fs, struct btrfs_trans *trans,
			 const struct btrfs_tree_ref *tree, const struct btrfs_key *key,
			 enum btrfs_search_mode mode, struct btrfs_path *path, struct btrfs_key *found)
{
	path->lowest_level = 0;
	return btrfs_search_position(path, btrfs_search(fs, trans, tree, key, path, 0, 0), mode, found);
}

int btrfs_search_key(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct btrfs_key *key, enum btrfs_search_mode mode,
		     struct btrfs_path *path, struct btrfs_key *found)
{
	return search_key_in(fs, NULL, tree, key, mode, path, found);
}

int btrfs_for_each_item(struct btrfs_fs_info *fs, struct btrfs_trans *trans,
			const struct btrfs_tree_ref *tree, const struct btrfs_key *from,
			enum btrfs_search_mode mode, btrfs_item_fn fn, void *arg)
{
	struct btrfs_path path;
	struct btrfs_key key;
	int ret;

	btrfs_init_path(&path);
	ret = search_key_in(fs, trans, tree, from, mode, &path, &key);
	if (ret > 0 && mode == BTRFS_SEARCH_PREV) {
		btrfs_release_path(&path);
		btrfs_init_path(&path);
		ret = search_key_in(fs, trans, tree, from, BTRFS_SEARCH_NEXT, &path, &key);
	}
	while (ret == 0) {
		ret = fn(&path, &key, arg);
		if (ret)
			break;
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_path_item_key(&path, &key);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

/* ---- whole-tree walks ---- */

/* One pass: every block from the root down to level L, in key order. */
static int walk_pass(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct extent_buffer *root, int L, struct walker *w)
{
	struct btrfs_path path;
	int level = btrfs_eb_level(root), ret;

	btrfs_init_path(&path);
	path.fs = fs;
	path.tree = *tree;
	path.nodes[level] = clone_extent_buffer(root);
	if (!path.nodes[level])
		return -ENOMEM;
	if (!w->revisit)
		guard_block(&path, root, true);
	if (btrfs_block_slots(root) == 0) {
		btrfs_release_path(&path);
		return 0;
	}
	ret = descend(fs, &path, level, L, false, w);
	while (!w->stop) {
		ret = advance(fs, &path, L, w);
		if (ret == 1)
			break;
	}
	btrfs_release_path(&path);
	return 0;
}

/* The walk below a root block already visited. */
static int walk_below(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		      const struct extent_buffer *root, enum btrfs_walk_order order,
		      struct walker *w)
{
	int ret = 0, level = btrfs_eb_level(root), L;

	if (level >= BTRFS_MAX_LEVEL)
		return -EUCLEAN;
	if (order == BTRFS_WALK_DFS) {
		if (level > 0 && !w->stop)
			ret = walk_pass(fs, tree, root, 0, w);
	} else {
		for (L = level - 1; L >= 0 && !w->stop && ret == 0; L--) {
			w->report_level = L;
			ret = walk_pass(fs, tree, root, L, w);
		}
	}
	if (w->stop)
		return w->stop;
	if (ret < 0)
		return ret;
	return w->first_err;
}

int btrfs_walk_tree(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		    enum btrfs_walk_order order, const struct read_policy *policy,
		    btrfs_walk_fn fn, void *ctx)
{
	struct walker w = { .fn = fn, .ctx = ctx, .policy = policy, .report_level = -1 };
	struct extent_buffer *root = NULL;
	int ret;

	ret = read_root(fs, tree, policy, &root);
	if (ret < 0) {
		visit(fs, &w, root, tree->bytenr, ret);
		free_extent_buffer(root);
		return w.stop ? w.stop : ret;
	}
	visit(fs, &w, root, tree->bytenr, 0);
	ret = walk_below(fs, tree, root, order, &w);
	free_extent_buffer(root);
	return ret;
}

int btrfs_walk_block_ptrs(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			  const struct extent_buffer *root, enum btrfs_walk_order order,
			  const struct read_policy *policy, unsigned int flags,
			  btrfs_walk_ptr_fn ptr_fn, btrfs_walk_fn fn, void *ctx)
{
	struct walker w = { .fn = fn, .ptr_fn = ptr_fn, .ctx = ctx, .policy = policy,
			    .report_level = -1, .revisit = flags & BTRFS_WALK_REVISIT };

	/* a BFS pass re-descends upper levels without asking again */
	if (ptr_fn && order != BTRFS_WALK_DFS)
		return -EINVAL;
	visit(fs, &w, root, root->start, 0);
	return walk_below(fs, tree, root, order, &w);
}

int btrfs_walk_block(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct extent_buffer *root, enum btrfs_walk_order order,
		     const struct read_policy *policy, unsigned int flags,
		     btrfs_walk_fn fn, void *ctx)
{
	return btrfs_walk_block_ptrs(fs, tree, root, order, policy, flags, NULL, fn, ctx);
}

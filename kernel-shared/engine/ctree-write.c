// SPDX-License-Identifier: GPL-2.0
/*
 * Copy-on-write b-tree operations inside a transaction (see transaction.h):
 * search with CoW on the way down, item insert/delete/extend/truncate, leaf
 * split and push to neighbours, node split and merge, root growth and shrink.
 *
 * Leaf and node layout: see accessors.h, whose helpers this file uses.
 *
 * Every block a function modifies is dirty (owned by the transaction): the
 * blocks on a cow path are, and a sibling is copied on write before it is
 * touched.
 */
#include <stdlib.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/format/messages.h"

#define HDR ((u32)sizeof(struct btrfs_header))
#define ITEMSZ ((u32)sizeof(struct btrfs_item))
#define PTRSZ ((u32)sizeof(struct btrfs_key_ptr))

/* ---- block layout (helpers in accessors.h) ---- */

/* Bytes (data + item headers) of items [0, mid). */
static u32 used_front(const struct extent_buffer *eb, u32 mid)
{
	return mid ? btrfs_leaf_data_size(eb) - btrfs_leaf_item_offset(eb, mid - 1) + mid * ITEMSZ : 0;
}

/* Bytes of items [mid, nritems). */
static u32 used_back(const struct extent_buffer *eb, u32 mid)
{
	u32 n = btrfs_eb_nritems(eb);

	if (mid >= n)
		return 0;
	return btrfs_leaf_item_offset(eb, mid) + btrfs_leaf_item_size(eb, mid) -
	       btrfs_leaf_data_end(eb) + (n - mid) * ITEMSZ;
}

static void block_key(const struct extent_buffer *eb, int slot, struct btrfs_disk_key *k)
{
	if (btrfs_eb_level(eb))
		*k = btrfs_node_key_ptr(eb, slot)->key;
	else
		*k = btrfs_leaf_item(eb, slot)->key;
}

/* Remove n items at slot. */
static void leaf_remove(struct extent_buffer *eb, int slot, int n)
{
	u32 nr = btrfs_eb_nritems(eb), dend = btrfs_leaf_data_end(eb), dsize, low;
	u8 *ld = btrfs_leaf_data(eb);
	int i;

	if (n <= 0)
		return;
	low = btrfs_leaf_item_offset(eb, slot + n - 1);
	dsize = btrfs_leaf_item_offset(eb, slot) + btrfs_leaf_item_size(eb, slot) - low;
	if ((u32)(slot + n) < nr) {
		memmove(ld + dend + dsize, ld + dend, low - dend);
		for (i = slot + n; i < (int)nr; i++)
			btrfs_set_leaf_item_offset(eb, i, btrfs_leaf_item_offset(eb, i) + dsize);
		memmove(btrfs_leaf_item(eb, slot), btrfs_leaf_item(eb, slot + n),
			(size_t)(nr - slot - n) * ITEMSZ);
	}
	btrfs_set_eb_nritems(eb, nr - n);
}

/* Move src items [from, from + n) to dst at dst_slot (dst has room). */
static int leaf_move_items(struct extent_buffer *dst, int dst_slot, struct extent_buffer *src,
			   int from, int n)
{
	u32 *sizes;
	u32 lo, hi;
	int i;

	if (n <= 0)
		return 0;
	sizes = malloc(sizeof(*sizes) * (size_t)n);
	if (!sizes)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sizes[i] = btrfs_leaf_item_size(src, from + i);
	btrfs_leaf_make_room(dst, dst_slot, sizes, n);
	free(sizes);
	for (i = 0; i < n; i++)
		btrfs_leaf_item(dst, dst_slot + i)->key = btrfs_leaf_item(src, from + i)->key;
	lo = btrfs_leaf_item_offset(src, from + n - 1);
	hi = btrfs_leaf_item_offset(src, from) + btrfs_leaf_item_size(src, from);
	memcpy(btrfs_leaf_data(dst) + btrfs_leaf_item_offset(dst, dst_slot + n - 1), btrfs_leaf_data(src) + lo, hi - lo);
	leaf_remove(src, from, n);
	return 0;
}

static void node_remove_ptr(struct extent_buffer *eb, int slot)
{
	u32 nr = btrfs_eb_nritems(eb);

	if ((u32)slot + 1 < nr)
		memmove(btrfs_node_key_ptr(eb, slot), btrfs_node_key_ptr(eb, slot + 1),
			(size_t)(nr - slot - 1) * PTRSZ);
	btrfs_set_eb_nritems(eb, nr - 1);
}

/* Move src pointers [from, from + n) to dst at dst_slot. */
static void node_move_ptrs(struct extent_buffer *dst, int dst_slot, struct extent_buffer *src,
			   int from, int n)
{
	u32 dnr = btrfs_eb_nritems(dst), snr = btrfs_eb_nritems(src);

	if ((u32)dst_slot < dnr)
		memmove(btrfs_node_key_ptr(dst, dst_slot + n), btrfs_node_key_ptr(dst, dst_slot),
			(size_t)(dnr - dst_slot) * PTRSZ);
	memcpy(btrfs_node_key_ptr(dst, dst_slot), btrfs_node_key_ptr(src, from), (size_t)n * PTRSZ);
	btrfs_set_eb_nritems(dst, dnr + n);
	if ((u32)(from + n) < snr)
		memmove(btrfs_node_key_ptr(src, from), btrfs_node_key_ptr(src, from + n),
			(size_t)(snr - from - n) * PTRSZ);
	btrfs_set_eb_nritems(src, snr - n);
}

/* ---- paths ---- */

/* Set the key of nodes[level] at slots[level], and upwards while that slot is 0. */
static void fixup_low_keys(struct btrfs_path *path, const struct btrfs_disk_key *key, int level)
{
	for (int l = level; l < BTRFS_MAX_LEVEL && path->nodes[l]; l++) {
		btrfs_node_key_ptr(path->nodes[l], path->slots[l])->key = *key;
		if (path->slots[l])
			break;
	}
}

/* ---- copy on write ---- */

/* A dirty copy of eb (a block of root), the old one freed (pinned). */
static int cow_copy(struct btrfs_trans *t, struct btrfs_wroot *root, const struct extent_buffer *eb,
		    struct extent_buffer **out)
{
	struct extent_buffer *neb;
	int level = btrfs_eb_level(eb);
	bool free_old;
	int ret;

	ret = trans_cow_prepare(t, root, eb, &free_old);
	if (ret < 0)
		return ret;
	ret = trans_alloc_block(t, root->objectid, level, &neb);
	if (ret < 0)
		return ret;
	memcpy(neb->data + HDR, eb->data + HDR, eb->len - HDR);
	btrfs_set_eb_nritems(neb, btrfs_eb_nritems(eb));
	if (free_old) {
		ret = trans_free_block(t, eb->start, root->objectid, level);
		if (ret < 0)
			return ret;
	}
	*out = neb;
	return 0;
}

/* Make nodes[level] of the path dirty, moving the parent pointer or the root. */
static int cow_path_block(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			  int level)
{
	struct extent_buffer *eb = path->nodes[level], *neb;
	int ret;

	if (path->borrowed[level])
		return 0;       /* already dirty */
	ret = cow_copy(t, root, eb, &neb);
	if (ret < 0)
		return ret;
	if (level == root->level) {
		root->bytenr = neb->start;
		root->dirty = true;
	} else {
		struct extent_buffer *parent = path->nodes[level + 1];
		struct btrfs_key_ptr *p = btrfs_node_key_ptr(parent, path->slots[level + 1]);

		btrfs_set_key_blockptr(p, neb->start);
		btrfs_set_key_generation(p, t->transid);
	}
	free_extent_buffer(eb);
	path->nodes[level] = neb;
	path->borrowed[level] = true;
	return 0;
}

/* The child at slot of a dirty node, made dirty too (parent pointer moved). */
static int cow_child(struct btrfs_trans *t, struct btrfs_wroot *root, struct extent_buffer *parent,
		     int slot, struct extent_buffer **out)
{
	struct btrfs_key_ptr *p = btrfs_node_key_ptr(parent, slot);
	struct extent_buffer *eb, *neb;
	bool owned;
	int ret;

	ret = btrfs_trans_read_block(t, root->objectid, btrfs_key_blockptr(p), btrfs_eb_level(parent) - 1,
			       btrfs_key_generation(p), &p->key, &eb, &owned);
	if (ret < 0)
		return ret;
	if (!owned) {
		*out = eb;
		return 0;
	}
	ret = cow_copy(t, root, eb, &neb);
	free_extent_buffer(eb);
	if (ret < 0)
		return ret;
	btrfs_set_key_blockptr(p, neb->start);
	btrfs_set_key_generation(p, t->transid);
	*out = neb;
	return 0;
}

/*
 * The child at slots[level] of nodes[level] into nodes[level - 1], read
 * through the path's transaction (btrfs_path.read_child of the engine's
 * paths: the one descent and next/previous item of kernel-shared/read/ctree.c call it).
 */
static int trans_path_read_child(struct btrfs_path *path, int level)
{
	struct extent_buffer *parent = path->nodes[level];
	struct btrfs_key_ptr *p = btrfs_node_key_ptr(parent, path->slots[level]);
	bool owned = false;
	int ret;

	if (!path->borrowed[level - 1])
		free_extent_buffer(path->nodes[level - 1]);
	ret = btrfs_trans_read_block(path->trans, path->root->objectid, btrfs_key_blockptr(p), level - 1,
			       btrfs_key_generation(p), &p->key, &path->nodes[level - 1], &owned);
	if (ret < 0)
		path->nodes[level - 1] = NULL;
	path->borrowed[level - 1] = ret == 0 && !owned;
	path->slots[level - 1] = 0;
	return ret;
}

/* ---- growing ---- */

/* A new root node above the current root (which is dirty, at path). */
static int grow_root(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path)
{
	int level = root->level + 1;
	struct extent_buffer *old = path->nodes[root->level], *n;
	struct btrfs_disk_key key;
	int ret;

	if (level >= BTRFS_MAX_LEVEL) {
		error("tree %llu: cannot grow beyond level %d", root->objectid, BTRFS_MAX_LEVEL - 1);
		return -EOVERFLOW;
	}
	ret = trans_alloc_block(t, root->objectid, level, &n);
	if (ret < 0)
		return ret;
	memset(&key, 0, sizeof(key));
	if (btrfs_eb_nritems(old))
		block_key(old, 0, &key);
	btrfs_node_insert_ptr(n, 0, &key, old->start, t->transid);
	root->bytenr = n->start;
	root->level = level;
	root->dirty = true;
	path->nodes[level] = n;
	path->borrowed[level] = true;
	path->slots[level] = 0;
	return 0;
}

static int insert_ptr(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
		      int level, int slot, const struct btrfs_disk_key *key, u64 bytenr)
{
	struct extent_buffer *n = path->nodes[level];

	if (btrfs_eb_nritems(n) >= btrfs_node_max_ptrs(n)) {
		error("tree %llu: node %llu at level %d is full (internal error)", root->objectid,
		      n->start, level);
		return -EOVERFLOW;
	}
	btrfs_node_insert_ptr(n, slot, key, bytenr, t->transid);
	if (slot == 0)
		fixup_low_keys(path, key, level + 1);
	return 0;
}

static int split_node(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
		      int level)
{
	struct extent_buffer *c, *right;
	struct btrfs_disk_key key;
	u32 nr, mid;
	int ret;

	if (level == root->level) {
		ret = grow_root(t, root, path);
		if (ret < 0)
			return ret;
	}
	c = path->nodes[level];
	nr = btrfs_eb_nritems(c);
	mid = (nr + 1) / 2;
	ret = trans_alloc_block(t, root->objectid, level, &right);
	if (ret < 0)
		return ret;
	node_move_ptrs(right, 0, c, mid, nr - mid);
	block_key(right, 0, &key);
	ret = insert_ptr(t, root, path, level + 1, path->slots[level + 1] + 1, &key, right->start);
	if (ret < 0)
		return ret;
	if ((u32)path->slots[level] >= mid) {
		path->nodes[level] = right;
		path->slots[level] -= mid;
		path->slots[level + 1]++;
	}
	return 0;
}

/*
 * Push trailing items of the path's leaf into its right sibling so that the
 * leaf gets need free bytes; the item at the path stays.  0 done, 1 not
 * possible (nothing moved), < 0 error.
 */
static int push_leaf_right(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			   u32 need, bool existing)
{
	struct extent_buffer *l = path->nodes[0], *parent = path->nodes[1], *right;
	int pslot = path->slots[1], slot = path->slots[0];
	int nr = (int)btrfs_eb_nritems(l), start = nr, minidx = existing ? slot + 1 : slot;
	int lfree = btrfs_leaf_free_space(l), rfree, moved = 0, ret;
	struct btrfs_disk_key key;

	if (!parent || pslot + 1 >= (int)btrfs_eb_nritems(parent))
		return 1;
	ret = cow_child(t, root, parent, pslot + 1, &right);
	if (ret < 0)
		return ret;
	rfree = btrfs_leaf_free_space(right);
	while (lfree < (int)need && start > minidx) {
		int sz = (int)(btrfs_leaf_item_size(l, start - 1) + ITEMSZ);

		if (moved + sz > rfree)
			break;
		moved += sz;
		lfree += sz;
		start--;
	}
	if (lfree < (int)need || start == nr)
		return 1;
	ret = leaf_move_items(right, 0, l, start, nr - start);
	if (ret < 0)
		return ret;
	block_key(right, 0, &key);
	btrfs_node_key_ptr(parent, pslot + 1)->key = key;
	return 0;
}

/* The same to the left sibling with leading items before the path's slot. */
static int push_leaf_left(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			  u32 need)
{
	struct extent_buffer *l = path->nodes[0], *parent = path->nodes[1], *left;
	int pslot = path->slots[1], slot = path->slots[0], nr = (int)btrfs_eb_nritems(l);
	int lfree = btrfs_leaf_free_space(l), dfree, moved = 0, count = 0, ret;
	struct btrfs_disk_key key;

	if (!parent || pslot == 0)
		return 1;
	ret = cow_child(t, root, parent, pslot - 1, &left);
	if (ret < 0)
		return ret;
	dfree = btrfs_leaf_free_space(left);
	while (lfree < (int)need && count < slot && count < nr - 1) {
		int sz = (int)(btrfs_leaf_item_size(l, count) + ITEMSZ);

		if (moved + sz > dfree)
			break;
		moved += sz;
		lfree += sz;
		count++;
	}
	if (lfree < (int)need || count == 0)
		return 1;
	ret = leaf_move_items(left, (int)btrfs_eb_nritems(left), l, 0, count);
	if (ret < 0)
		return ret;
	path->slots[0] -= count;
	block_key(l, 0, &key);
	fixup_low_keys(path, &key, 1);
	return 0;
}

/* Split the leaf at mid: items [mid, nr) go to a new right leaf. */
static int split_leaf_at(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			 u32 mid, const struct btrfs_key *key, bool to_right)
{
	struct extent_buffer *l, *right;
	struct btrfs_disk_key dk;
	u32 nr;
	int ret;

	if (!path->nodes[1]) {
		ret = grow_root(t, root, path);
		if (ret < 0)
			return ret;
	}
	l = path->nodes[0];
	nr = btrfs_eb_nritems(l);
	ret = trans_alloc_block(t, root->objectid, 0, &right);
	if (ret < 0)
		return ret;
	if (mid < nr) {
		ret = leaf_move_items(right, 0, l, (int)mid, (int)(nr - mid));
		if (ret < 0)
			return ret;
	}
	if (btrfs_eb_nritems(right))
		block_key(right, 0, &dk);
	else
		btrfs_cpu_key_to_disk(&dk, key);
	ret = insert_ptr(t, root, path, 1, path->slots[1] + 1, &dk, right->start);
	if (ret < 0)
		return ret;
	if (to_right) {
		path->nodes[0] = right;
		path->slots[0] -= mid;
		path->slots[1]++;
	}
	return 0;
}

/*
 * Make the path's leaf have need free bytes where the item goes (existing:
 * the item at the slot grows; else a new item is inserted at the slot):
 * push to neighbours, else split at the most balanced point where both
 * halves fit, else isolate the slot and try again.
 */
static int split_leaf(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      struct btrfs_path *path, u32 need, bool existing)
{
	int iter, ret;

	if (need > btrfs_leaf_data_size(path->nodes[0])) {
		error("tree %llu: item of %u bytes cannot fit in a leaf", root->objectid, need);
		return -E2BIG;
	}
	if (path->nodes[1]) {
		ret = push_leaf_right(t, root, path, need, existing);
		if (ret <= 0)
			return ret;
		ret = push_leaf_left(t, root, path, need);
		if (ret <= 0)
			return ret;
	}
	for (iter = 0; iter < 4; iter++) {
		struct extent_buffer *l = path->nodes[0];
		u32 nr = btrfs_eb_nritems(l), slot = path->slots[0], cap = btrfs_leaf_data_size(l), mid;
		u64 best_score = ~0ULL;
		int best_mid = -1;
		bool best_right = false;

		if (btrfs_leaf_free_space(l) >= (int)need)
			return 0;
		for (mid = 0; mid <= nr; mid++) {
			u32 L = used_front(l, mid), R = used_back(l, mid);
			bool left_ok, right_ok;

			if (existing) {
				left_ok = slot < mid && mid < nr && L + need <= cap;
				right_ok = slot >= mid && mid > 0 && R + need <= cap;
			} else {
				left_ok = slot <= mid && mid < nr && L + need <= cap;
				right_ok = slot >= mid && mid > 0 && R + need <= cap;
			}
			if (left_ok) {
				u64 s = (L + need > R) ? L + need - R : R - L - need;

				if (s < best_score) {
					best_score = s;
					best_mid = (int)mid;
					best_right = false;
				}
			}
			if (right_ok) {
				u64 s = (R + need > L) ? R + need - L : L - R - need;

				if (s < best_score) {
					best_score = s;
					best_mid = (int)mid;
					best_right = true;
				}
			}
		}
		if (best_mid >= 0)
			return split_leaf_at(t, root, path, (u32)best_mid, key, best_right);
		/* Nothing balanced fits: cut at the slot and look again. */
		if (!existing) {
			if (slot == 0 || slot == nr)
				break;
			ret = split_leaf_at(t, root, path, slot, key, false);
		} else if (slot > 0) {
			ret = split_leaf_at(t, root, path, slot, key, true);
		} else if (nr > 1) {
			ret = split_leaf_at(t, root, path, 1, key, false);
		} else {
			break;
		}
		if (ret < 0)
			return ret;
	}
	error("tree %llu: no room for %u bytes in leaf %llu", root->objectid, need,
	      path->nodes[0]->start);
	return -E2BIG;
}

/* ---- search ---- */

/*
 * The engine's search is the one descent of kernel-shared/read/ctree.c
 * (btrfs_search_descend) on a path that reads through the transaction, with
 * two steps added: copy on write of every block entered (cow) and, for an
 * insertion of ins_len bytes, splitting a full leaf or a nearly full node on
 * the way down.  Without them (cow = 0, ins_len <= 0) it is the read-only
 * search of the tree as this transaction sees it.
 */
struct search_steps {
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	int ins_len;
	bool insert;    /* the caller adds a new item, so a key found needs no room */
};

static int search_cow(struct btrfs_path *path, int level, void *arg)
{
	struct search_steps *s = arg;

	return cow_path_block(s->t, s->root, path, level);
}

static int search_split(struct btrfs_path *path, int level, const struct btrfs_key *key, int found,
			void *arg)
{
	struct search_steps *s = arg;
	struct extent_buffer *eb = path->nodes[level];

	if (s->ins_len <= 0)
		return 0;
	if (level == 0) {
		if (btrfs_leaf_free_space(eb) < s->ins_len && !(s->insert && found == 0))
			return split_leaf(s->t, s->root, key, path, (u32)s->ins_len, found == 0);
		return 0;
	}
	if (btrfs_eb_nritems(eb) + 3 >= btrfs_node_max_ptrs(eb))
		return split_node(s->t, s->root, path, level);
	return 0;
}

static const struct btrfs_search_ops cow_search_ops = {
	.enter = search_cow,
	.leave = search_split,
};

static int search_slot(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		       struct btrfs_path *path, int ins_len, int cow, bool insert)
{
	struct search_steps steps = { .t = t, .root = root, .ins_len = ins_len, .insert = insert };
	int level = root->level, ret;
	bool owned = false;

	if (ins_len > 0 && !cow)
		return -EINVAL;
	btrfs_release_path(path);
	path->trans = t;
	path->root = root;
	path->read_child = trans_path_read_child;
	path->tree.objectid = root->objectid;
	ret = btrfs_trans_read_block(t, root->objectid, root->bytenr, level, 0, NULL, &path->nodes[level],
			       &owned);
	if (ret < 0) {
		path->nodes[level] = NULL;
		return ret;
	}
	path->borrowed[level] = !owned;
	ret = btrfs_search_descend(path, level, key, cow ? &cow_search_ops : NULL, &steps);
	if (ret < 0)
		btrfs_release_path(path);
	return ret;
}

int btrfs_search_slot(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      struct btrfs_path *path, int ins_len, int cow)
{
	return search_slot(t, root, key, path, ins_len, cow, false);
}

/* ---- insert ---- */

int btrfs_insert_empty_items(struct btrfs_trans *t, struct btrfs_wroot *root,
			     struct btrfs_path *path, const struct btrfs_key *keys,
			     const u32 *sizes, int nr)
{
	struct extent_buffer *l;
	struct btrfs_disk_key dk;
	u64 total = 0;
	int i, ret, slot;

	if (nr <= 0)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		total += sizes[i] + ITEMSZ;
		if (i && btrfs_comp_cpu_keys(&keys[i - 1], &keys[i]) >= 0) {
			error("tree %llu: keys to insert are not sorted at %d", root->objectid, i);
			return -EINVAL;
		}
	}
	if (total > t->nodesize - HDR) {
		error("tree %llu: %d items of %llu bytes do not fit in one leaf", root->objectid, nr,
		      total);
		return -E2BIG;
	}
	ret = search_slot(t, root, &keys[0], path, (int)total, 1, true);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		btrfs_release_path(path);
		return -EEXIST;
	}
	l = path->nodes[0];
	slot = path->slots[0];
	if ((u32)slot < btrfs_eb_nritems(l)) {
		block_key(l, slot, &dk);
		if (btrfs_comp_keys(&dk, &keys[nr - 1]) <= 0) {
			btrfs_release_path(path);
			return -EEXIST;
		}
	}
	btrfs_leaf_make_room(l, slot, sizes, nr);
	for (i = 0; i < nr; i++)
		btrfs_cpu_key_to_disk(&btrfs_leaf_item(l, slot + i)->key, &keys[i]);
	if (slot == 0) {
		block_key(l, 0, &dk);
		fixup_low_keys(path, &dk, 1);
	}
	return 0;
}

int btrfs_insert_item(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      const void *data, u32 size)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_insert_empty_items(t, root, &path, key, &size, 1);
	if (ret == 0 && size)
		memcpy(btrfs_path_item_ptr(&path), data, size);
	btrfs_release_path(&path);
	return ret;
}

/* ---- extend / truncate ---- */

int btrfs_extend_item(struct btrfs_trans *t, struct btrfs_path *path, u32 extra)
{
	struct extent_buffer *l = path->nodes[0];
	int slot = path->slots[0];
	u32 off, sz, dend, nr;
	u8 *ld;

	if (!l || !path->borrowed[0] || (u32)slot >= btrfs_eb_nritems(l))
		return -EINVAL;
	if (btrfs_leaf_free_space(l) < (int)extra) {
		error("leaf %llu: no room to extend slot %d by %u bytes (search with ins_len)",
		      l->start, slot, extra);
		return -ENOSPC;
	}
	ld = btrfs_leaf_data(l);
	off = btrfs_leaf_item_offset(l, slot);
	sz = btrfs_leaf_item_size(l, slot);
	dend = btrfs_leaf_data_end(l);
	nr = btrfs_eb_nritems(l);
	memmove(ld + dend - extra, ld + dend, off + sz - dend);
	for (u32 i = slot; i < nr; i++)
		btrfs_set_leaf_item_offset(l, i, btrfs_leaf_item_offset(l, i) - extra);
	btrfs_set_leaf_item_size(l, slot, sz + extra);
	memset(ld + off + sz - extra, 0, extra);
	(void)t;
	return 0;
}

int btrfs_truncate_item(struct btrfs_trans *t, struct btrfs_path *path, u32 new_size,
			bool from_end)
{
	struct extent_buffer *l = path->nodes[0];
	int slot = path->slots[0];
	u32 off, sz, dend, nr, d;
	u8 *ld;

	if (!l || !path->borrowed[0] || (u32)slot >= btrfs_eb_nritems(l))
		return -EINVAL;
	off = btrfs_leaf_item_offset(l, slot);
	sz = btrfs_leaf_item_size(l, slot);
	if (new_size > sz)
		return -EINVAL;
	d = sz - new_size;
	if (!d)
		return 0;
	ld = btrfs_leaf_data(l);
	dend = btrfs_leaf_data_end(l);
	nr = btrfs_eb_nritems(l);
	if (from_end) {
		memmove(ld + dend + d, ld + dend, off + new_size - dend);
		for (u32 i = slot; i < nr; i++)
			btrfs_set_leaf_item_offset(l, i, btrfs_leaf_item_offset(l, i) + d);
	} else {
		memmove(ld + dend + d, ld + dend, off - dend);
		for (u32 i = slot + 1; i < nr; i++)
			btrfs_set_leaf_item_offset(l, i, btrfs_leaf_item_offset(l, i) + d);
		btrfs_set_leaf_item_offset(l, slot, off + d);
	}
	btrfs_set_leaf_item_size(l, slot, new_size);
	(void)t;
	return 0;
}

/* ---- delete ---- */

/*
 * Remove nodes[level] (empty or merged away) from its parent and free it;
 * a parent left empty goes too.
 */
static int remove_block(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			int level)
{
	struct extent_buffer *eb = path->nodes[level], *parent = path->nodes[level + 1];
	int pslot = path->slots[level + 1];
	u64 bytenr = eb->start;
	int ret;

	node_remove_ptr(parent, pslot);
	path->nodes[level] = NULL;
	path->borrowed[level] = false;
	ret = trans_free_block(t, bytenr, root->objectid, level);
	if (ret < 0)
		return ret;
	if (btrfs_eb_nritems(parent) == 0) {
		if (level + 1 < root->level)
			return remove_block(t, root, path, level + 1);
		return 0;       /* an empty root node: shrink_root replaces it */
	}
	if (pslot == 0) {
		struct btrfs_disk_key key;

		block_key(parent, 0, &key);
		fixup_low_keys(path, &key, level + 2);
	}
	if ((u32)pslot >= btrfs_eb_nritems(parent))
		path->slots[level + 1] = (int)btrfs_eb_nritems(parent) - 1;
	return 0;
}

/* A leaf left small: move all its items into a neighbour and drop it. */
static int merge_leaf(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path)
{
	struct extent_buffer *l = path->nodes[0], *parent = path->nodes[1], *sib;
	int pslot = path->slots[1], ret;
	u32 used = used_front(l, btrfs_eb_nritems(l));
	struct btrfs_disk_key key;

	if (pslot > 0) {
		ret = cow_child(t, root, parent, pslot - 1, &sib);
		if (ret < 0)
			return ret;
		if (btrfs_leaf_free_space(sib) >= (int)used) {
			ret = leaf_move_items(sib, (int)btrfs_eb_nritems(sib), l, 0, (int)btrfs_eb_nritems(l));
			if (ret < 0)
				return ret;
			return remove_block(t, root, path, 0);
		}
	}
	if ((u32)pslot + 1 < btrfs_eb_nritems(parent)) {
		ret = cow_child(t, root, parent, pslot + 1, &sib);
		if (ret < 0)
			return ret;
		if (btrfs_leaf_free_space(sib) >= (int)used) {
			ret = leaf_move_items(sib, 0, l, 0, (int)btrfs_eb_nritems(l));
			if (ret < 0)
				return ret;
			block_key(sib, 0, &key);
			btrfs_node_key_ptr(parent, pslot + 1)->key = key;
			return remove_block(t, root, path, 0);
		}
	}
	return 0;
}

/* Nodes on the path left small are merged with a neighbour. */
static int merge_nodes_up(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path)
{
	int level, ret;

	for (level = 1; level < root->level; level++) {
		struct extent_buffer *n = path->nodes[level], *parent = path->nodes[level + 1], *sib;
		int pslot = path->slots[level + 1];
		u32 max = btrfs_node_max_ptrs(n ? n : parent);

		if (!n || !parent || btrfs_eb_nritems(n) >= max / 4)
			continue;
		if (pslot > 0) {
			ret = cow_child(t, root, parent, pslot - 1, &sib);
			if (ret < 0)
				return ret;
			if (btrfs_eb_nritems(sib) + btrfs_eb_nritems(n) + 4 <= max) {
				node_move_ptrs(sib, (int)btrfs_eb_nritems(sib), n, 0, (int)btrfs_eb_nritems(n));
				ret = remove_block(t, root, path, level);
				if (ret < 0)
					return ret;
				continue;
			}
		}
		if ((u32)pslot + 1 < btrfs_eb_nritems(parent)) {
			u64 bytenr;

			ret = cow_child(t, root, parent, pslot + 1, &sib);
			if (ret < 0)
				return ret;
			if (btrfs_eb_nritems(sib) + btrfs_eb_nritems(n) + 4 <= max) {
				bytenr = sib->start;
				node_move_ptrs(n, (int)btrfs_eb_nritems(n), sib, 0, (int)btrfs_eb_nritems(sib));
				node_remove_ptr(parent, pslot + 1);
				ret = trans_free_block(t, bytenr, root->objectid, level);
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

/* A root node with one child: the child becomes the root; an empty one becomes a leaf. */
static int shrink_root(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	while (root->level > 0) {
		struct extent_buffer *r, *child;
		bool owned;
		u64 old;
		int ret, level = root->level;

		ret = btrfs_trans_read_block(t, root->objectid, root->bytenr, level, 0, NULL, &r, &owned);
		if (ret < 0)
			return ret;
		if (owned) {    /* not touched in this transaction: leave it */
			free_extent_buffer(r);
			return 0;
		}
		old = r->start;
		if (btrfs_eb_nritems(r) == 1) {
			ret = cow_child(t, root, r, 0, &child);
			if (ret < 0)
				return ret;
		} else if (btrfs_eb_nritems(r) == 0) {
			ret = trans_alloc_block(t, root->objectid, 0, &child);
			if (ret < 0)
				return ret;
		} else {
			return 0;
		}
		root->bytenr = child->start;
		root->level = btrfs_eb_level(child);
		root->dirty = true;
		ret = trans_free_block(t, old, root->objectid, level);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int btrfs_del_items(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
		    int slot, int nr)
{
	struct extent_buffer *l = path->nodes[0];
	int ret = 0;

	if (!l || !path->borrowed[0] || slot < 0 || nr <= 0 || (u32)(slot + nr) > btrfs_eb_nritems(l)) {
		btrfs_release_path(path);
		return -EINVAL;
	}
	leaf_remove(l, slot, nr);
	if (root->level > 0) {
		if (btrfs_eb_nritems(l) == 0) {
			ret = remove_block(t, root, path, 0);
		} else {
			if (slot == 0) {
				struct btrfs_disk_key key;

				block_key(l, 0, &key);
				fixup_low_keys(path, &key, 1);
			}
			if (used_front(l, btrfs_eb_nritems(l)) < btrfs_leaf_data_size(l) / 4)
				ret = merge_leaf(t, root, path);
		}
		if (ret == 0)
			ret = merge_nodes_up(t, root, path);
	}
	btrfs_release_path(path);
	if (ret == 0)
		ret = shrink_root(t, root);
	return ret;
}

int btrfs_delete_item(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, key, &path, -1, 1);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		btrfs_release_path(&path);
		return -ENOENT;
	}
	return btrfs_del_items(t, root, &path, path.slots[0], 1);
}

int btrfs_trans_search_key(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
			   enum btrfs_search_mode mode, struct btrfs_path *path, struct btrfs_key *found)
{
	return btrfs_search_position(path, btrfs_search_slot(t, root, key, path, 0, 0), mode, found);
}

int btrfs_trans_find_key(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
			 enum btrfs_search_mode mode, struct btrfs_key *found)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, key, mode, &path, found);
	btrfs_release_path(&path);
	return ret;
}

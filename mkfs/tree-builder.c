// SPDX-License-Identifier: GPL-2.0
/*
 * Bottom-up b-tree layout from sorted items; see tree-builder.h.
 */
#include <stdlib.h>
#include "mkfs/tree-builder.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/growable-array.h"

void tree_builder_init(struct tree_builder *tb, u64 owner)
{
	memset(tb, 0, sizeof(*tb));
	tb->owner = owner;
}

void tree_builder_release(struct tree_builder *tb)
{
	free(tb->items);
	free(tb->arena);
	free(tb->leaf_first);
	tree_builder_init(tb, tb->owner);
}

void tree_builder_reset(struct tree_builder *tb)
{
	tb->nr = 0;
	tb->arena_len = 0;
	free(tb->leaf_first);
	tb->leaf_first = NULL;
	tb->levels = 0;
	tb->nr_blocks = 0;
}

void *tree_builder_add(struct tree_builder *tb, const struct btrfs_key *key, u32 size)
{
	struct tree_builder_item *it;

	if (ARRAY_GROW(tb->items, tb->nr, tb->alloc))
		return NULL;
	if (ARRAY_RESERVE(tb->arena, tb->arena_alloc, tb->arena_len + size + 1))
		return NULL;
	it = &tb->items[tb->nr++];
	it->key = *key;
	it->size = size;
	it->data_off = tb->arena_len;
	memset(tb->arena + tb->arena_len, 0, size);
	tb->arena_len += size;
	return tb->arena + it->data_off;
}

void *tree_builder_add_key(struct tree_builder *tb, u64 objectid, u8 type, u64 offset, u32 size)
{
	struct btrfs_key key = { .objectid = objectid, .type = type, .offset = offset };

	return tree_builder_add(tb, &key, size);
}

static int cmp_item(const void *a, const void *b)
{
	const struct tree_builder_item *x = a, *y = b;

	return btrfs_comp_cpu_keys(&x->key, &y->key);
}

int tree_builder_plan(struct tree_builder *tb, u32 nodesize)
{
	const u32 leaf_space = (u32)BTRFS_LEAF_DATA_SIZE(nodesize);
	const u32 ptrs = (u32)BTRFS_NODEPTRS_PER_BLOCK(nodesize);
	size_t nleaves = 0, i;
	u32 used = 0, n;

	if (tb->nr)     /* an empty tree has no item array to sort */
		qsort(tb->items, tb->nr, sizeof(*tb->items), cmp_item);
	for (i = 1; i < tb->nr; i++) {
		if (!btrfs_comp_cpu_keys(&tb->items[i - 1].key, &tb->items[i].key)) {
			error("tree %lld: two items with key (%llu %u %llu)", (long long)tb->owner,
			      (unsigned long long)tb->items[i].key.objectid, tb->items[i].key.type,
			      (unsigned long long)tb->items[i].key.offset);
			return -EEXIST;
		}
	}
	free(tb->leaf_first);
	tb->leaf_first = malloc((tb->nr + 2) * sizeof(*tb->leaf_first));
	if (!tb->leaf_first)
		return -ENOMEM;
	tb->nodesize = nodesize;
	tb->leaf_first[0] = 0;
	for (i = 0; i < tb->nr; i++) {
		u32 need = sizeof(struct btrfs_item) + tb->items[i].size;

		if (need > leaf_space) {
			error("tree %lld: item (%llu %u %llu) of %u bytes does not fit a leaf of %u",
			      (long long)tb->owner, (unsigned long long)tb->items[i].key.objectid,
			      tb->items[i].key.type, (unsigned long long)tb->items[i].key.offset,
			      tb->items[i].size, nodesize);
			return -E2BIG;
		}
		if (used + need > leaf_space) {
			tb->leaf_first[++nleaves] = i;
			used = 0;
		}
		used += need;
	}
	tb->leaf_first[++nleaves] = tb->nr;
	/* An empty tree is one empty leaf. */
	memset(tb->level_count, 0, sizeof(tb->level_count));
	tb->level_count[0] = nleaves;
	tb->levels = 1;
	tb->nr_blocks = nleaves;
	n = nleaves;
	while (n > 1) {
		if (tb->levels >= BTRFS_MAX_LEVEL) {
			error("tree %lld: too many levels", (long long)tb->owner);
			return -E2BIG;
		}
		n = DIV_ROUND_UP(n, ptrs);
		tb->level_count[tb->levels++] = n;
		tb->nr_blocks += n;
	}
	return tb->nr_blocks;
}

/* Index of the first leaf under block `idx` of `level` (relative index). */
static size_t first_leaf_of(const struct tree_builder *tb, int level, u32 idx)
{
	const u32 ptrs = (u32)BTRFS_NODEPTRS_PER_BLOCK(tb->nodesize);
	size_t leaf = idx;

	for (int l = level; l > 0; l--)
		leaf *= ptrs;
	return leaf;
}

static void level_of_index(const struct tree_builder *tb, u32 index, int *level, u32 *rel)
{
	int l = 0;

	while (l < tb->levels - 1 && index >= tb->level_count[l]) {
		index -= tb->level_count[l];
		l++;
	}
	*level = l;
	*rel = index;
}

void tree_builder_block_info(const struct tree_builder *tb, u32 index, int *level, struct btrfs_key *first)
{
	u32 rel;
	size_t leaf, item;

	level_of_index(tb, index, level, &rel);
	leaf = first_leaf_of(tb, *level, rel);
	item = tb->leaf_first[leaf];
	if (item < tb->nr)
		*first = tb->items[item].key;
	else
		memset(first, 0, sizeof(*first));
}

/* An empty block of the tree at level: the common header, marked written as mkfs writes it. */
static void init_block(struct extent_buffer *eb, const struct tree_builder *tb,
		       const struct tree_builder_params *p, int level)
{
	struct btrfs_header *h = btrfs_header(eb);

	memset(eb->data, 0, eb->len);
	btrfs_init_header(eb, p->fsid, p->chunk_tree_uuid, p->generation, tb->owner, level);
	btrfs_set_header_flags(h, btrfs_header_flags(h) | BTRFS_HEADER_FLAG_WRITTEN);
}

int tree_builder_build(struct tree_builder *tb, const struct tree_builder_params *p, const u64 *bytenrs, tree_builder_emit_fn emit,
	     void *ctx)
{
	const u32 ptrs = (u32)BTRFS_NODEPTRS_PER_BLOCK(tb->nodesize);
	struct extent_buffer *eb;
	u32 base = 0;
	int ret = 0;

	eb = alloc_extent_buffer(0, tb->nodesize);
	if (!eb)
		return -ENOMEM;
	for (u32 l = 0; l < tb->level_count[0]; l++) {
		size_t first = tb->leaf_first[l], end = tb->leaf_first[l + 1];

		eb->start = bytenrs[l];
		init_block(eb, tb, p, 0);
		for (size_t i = first; i < end; i++) {
			const struct tree_builder_item *it = &tb->items[i];
			int slot = (int)(i - first);

			btrfs_leaf_make_room(eb, slot, &it->size, 1);
			btrfs_cpu_key_to_disk(&btrfs_leaf_item(eb, slot)->key, &it->key);
			memcpy(btrfs_leaf_item_ptr(eb, slot), tb->arena + it->data_off, it->size);
		}
		ret = emit(eb, ctx);
		if (ret < 0)
			goto out;
	}
	for (int level = 1; level < tb->levels; level++) {
		u32 below = tb->level_count[level - 1];
		u32 child_base = base;

		base += below;
		for (u32 n = 0; n < tb->level_count[level]; n++) {
			u32 first = n * ptrs, last = min_t(u32, first + ptrs, below);

			eb->start = bytenrs[base + n];
			init_block(eb, tb, p, level);
			for (u32 c = first; c < last; c++) {
				struct btrfs_disk_key dk;
				struct btrfs_key key;
				int lv;

				tree_builder_block_info(tb, child_base + c, &lv, &key);
				btrfs_cpu_key_to_disk(&dk, &key);
				btrfs_node_insert_ptr(eb, (int)(c - first), &dk, bytenrs[child_base + c],
						      p->generation);
			}
			ret = emit(eb, ctx);
			if (ret < 0)
				goto out;
		}
	}
out:
	free_extent_buffer(eb);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Debug tool for the read path: open a filesystem and walk every tree,
 * every block verified, reporting counts.
 *
 *   tree-walk [--noscan] [--bfs|--dfs] [--search] [--super N] DEVICE...
 *
 * For each tree (root tree, chunk tree, log root tree and every ROOT_ITEM
 * of the root tree) one line:
 *   tree <id> level <l>: nodes N leaves N items N failures N
 * then "total: trees N blocks N items N failures N".  --search also
 * iterates each tree item by item (search + next_item) and, for every 16th
 * item, searches it back by key (exact, next, prev); mismatches count as
 * failures.  Exit 0 when every block read and verified, 1 when some
 * failed, 2 when the filesystem could not be opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

struct counts {
	unsigned long long nodes, leaves, items, failures;
};

static int count_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
		       int err, void *ctx)
{
	struct counts *c = ctx;

	if (err < 0) {
		c->failures++;
		return 0;
	}
	if (btrfs_eb_level(eb)) {
		c->nodes++;
	} else {
		c->leaves++;
		c->items += btrfs_eb_nritems(eb);
	}
	return 0;
}

/* Iterate items and search some back; returns the number of mismatches. */
static unsigned long long check_search(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
				       unsigned long long expect_items)
{
	struct btrfs_path path, p2;
	struct btrfs_key key = { 0, 0, 0 }, found, k2;
	unsigned long long n = 0, bad = 0;
	int ret;

	btrfs_init_path(&path);
	btrfs_init_path(&p2);
	ret = btrfs_search_key(fs, tree, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (n && btrfs_comp_cpu_keys(&found, &key) <= 0) {
			fprintf(stderr, "tree %llu: item %llu out of order\n", tree->objectid, n);
			bad++;
			break;
		}
		if (n % 16 == 0) {
			if (btrfs_search_key(fs, tree, &found, BTRFS_SEARCH_EXACT, &p2, &k2) != 0 ||
			    btrfs_comp_cpu_keys(&k2, &found)) {
				fprintf(stderr, "tree %llu: exact search of item %llu failed\n",
					tree->objectid, n);
				bad++;
			}
			if (n > 0) {
				/* just after the previous key: next finds this one, prev the previous */
				struct btrfs_key after = key;

				after.offset++;
				if (after.offset == 0) {
					after.type++;
				}
				if (btrfs_search_key(fs, tree, &after, BTRFS_SEARCH_NEXT, &p2, &k2) != 0 ||
				    (btrfs_comp_cpu_keys(&after, &found) <= 0 && btrfs_comp_cpu_keys(&k2, &found))) {
					fprintf(stderr, "tree %llu: next search of item %llu failed\n",
						tree->objectid, n);
					bad++;
				}
				if (btrfs_search_key(fs, tree, &after, BTRFS_SEARCH_PREV, &p2, &k2) != 0 ||
				    (btrfs_comp_cpu_keys(&after, &found) < 0 && btrfs_comp_cpu_keys(&k2, &key))) {
					fprintf(stderr, "tree %llu: prev search of item %llu failed\n",
						tree->objectid, n);
					bad++;
				}
			}
			btrfs_release_path(&p2);
		}
		key = found;
		n++;
		ret = btrfs_next_item(&path);
	}
	if (ret < 0)
		bad++;
	/* walk backwards from the end: the same number of items */
	if (ret == 1 && n) {
		unsigned long long back = 1;
		struct btrfs_key last = { (u64)-1, 255, (u64)-1 };

		ret = btrfs_search_key(fs, tree, &last, BTRFS_SEARCH_PREV, &path, &found);
		while (ret == 0 && (ret = btrfs_prev_item(&path)) == 0)
			back++;
		if (ret < 0 || back != n) {
			fprintf(stderr, "tree %llu: backwards %llu items, forwards %llu\n",
				tree->objectid, back, n);
			bad++;
		}
	}
	if (n != expect_items) {
		fprintf(stderr, "tree %llu: iterated %llu items, walk counted %llu\n", tree->objectid,
			n, expect_items);
		bad++;
	}
	btrfs_release_path(&path);
	btrfs_release_path(&p2);
	return bad;
}

static void walk_one(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     enum btrfs_walk_order order, bool search, struct counts *total,
		     unsigned long long *trees)
{
	struct counts c = { 0 };

	btrfs_walk_tree(fs, tree, order, NULL, count_block, &c);
	if (search)
		c.failures += check_search(fs, tree, c.items);
	printf("tree %lld level %u: nodes %llu leaves %llu items %llu failures %llu\n",
	       (long long)tree->objectid, tree->level, c.nodes, c.leaves, c.items, c.failures);
	total->nodes += c.nodes;
	total->leaves += c.leaves;
	total->items += c.items;
	total->failures += c.failures;
	(*trees)++;
}

int main(int argc, char **argv)
{
	struct btrfs_open_args oa = { 0 };
	enum btrfs_walk_order order = BTRFS_WALK_BFS;
	struct btrfs_fs_info *fs;
	struct btrfs_tree_ref tree;
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 }, found;
	struct counts total = { 0 };
	unsigned long long trees = 0;
	bool search = false;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--noscan"))
			oa.noscan = true;
		else if (!strcmp(argv[i], "--dfs"))
			order = BTRFS_WALK_DFS;
		else if (!strcmp(argv[i], "--bfs"))
			order = BTRFS_WALK_BFS;
		else if (!strcmp(argv[i], "--search"))
			search = true;
		else if (!strcmp(argv[i], "--super") && i + 1 < argc)
			oa.super_bytenr = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: tree-walk [--noscan] [--bfs|--dfs] [--search] [--super BYTENR] DEVICE...\n");
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: tree-walk [--noscan] [--bfs|--dfs] [--search] DEVICE...\n");
		return 2;
	}
	oa.devices = argv + i;
	oa.ndevices = argc - i;
	oa.partial = true;
	ret = btrfs_open_fs(&oa, &fs);
	if (ret < 0) {
		fprintf(stderr, "cannot open filesystem: %s\n", strerror(-ret));
		return 2;
	}
	if (btrfs_find_tree_root(fs, BTRFS_ROOT_TREE_OBJECTID, &tree) == 0)
		walk_one(fs, &tree, order, search, &total, &trees);
	if (btrfs_find_tree_root(fs, BTRFS_CHUNK_TREE_OBJECTID, &tree) == 0)
		walk_one(fs, &tree, order, search, &total, &trees);
	if (btrfs_find_tree_root(fs, BTRFS_TREE_LOG_OBJECTID, &tree) == 0)
		walk_one(fs, &tree, order, search, &total, &trees);

	btrfs_find_tree_root(fs, BTRFS_ROOT_TREE_OBJECTID, &tree);
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &tree, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (found.type == BTRFS_ROOT_ITEM_KEY) {
			struct btrfs_tree_ref sub;

			btrfs_tree_ref_from_root_item(&sub, found.objectid,
						      btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]));
			walk_one(fs, &sub, order, search, &total, &trees);
		}
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		total.failures++;
	printf("total: trees %llu blocks %llu items %llu failures %llu\n", trees,
	       total.nodes + total.leaves, total.items, total.failures);
	btrfs_close_fs(fs);
	return total.failures ? 1 : 0;
}

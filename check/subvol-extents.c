// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs check -E|--subvol-extents ID: btrfs-progs' "extent state" of one
 * subvolume.  Every tree block and data extent the subvolume's tree
 * reaches, in address order, with the subvolumes that reach it:
 *
 *   Offset		Len	Root Refs	Roots
 *   13631488	8388608	3	5 256 257
 *
 * (tab separated; Len is nodesize for a tree block and the on-disk length of
 * a data extent; Root Refs how many subvolumes, Roots their ids ascending,
 * each followed by a space).  Which subvolumes reach an extent is found the
 * way the quota groups pass finds it: every subvolume tree (FS_TREE and
 * 256..) is walked whole, blocks shared with snapshots included; subvolumes
 * being deleted (no references left) are not.  An unknown ID prints the
 * header alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/check-extra.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

struct uses_walk {
	struct check_uses *u;
	u64 root;
	u32 nodesize;
};

static int add_use(struct uses_walk *w, u64 bytenr, u64 len)
{
	struct check_use *x = CHECK_PUSH(w->u, use);

	if (!x)
		return -ENOMEM;
	*x = (struct check_use){ bytenr, len, w->root };
	return 0;
}

static int use_block(struct btrfs_fs_info *fs __unused, const struct extent_buffer *eb, u64 bytenr,
		     int err, void *arg)
{
	struct uses_walk *w = arg;
	u32 i, nr;

	if (err || !eb)
		return 0;   /* the extents pass reports unreadable blocks */
	if (add_use(w, bytenr, w->nodesize))
		return -ENOMEM;
	if (btrfs_eb_level(eb) != 0)
		return 0;
	nr = btrfs_eb_nritems(eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		struct btrfs_file_extent_item *fi;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_EXTENT_DATA_KEY ||
		    btrfs_leaf_item_size(eb, (int)i) != sizeof(*fi))
			continue;
		fi = btrfs_leaf_item_ptr(eb, (int)i);
		if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE ||
		    !btrfs_file_extent_disk_bytenr(fi))
			continue;
		if (add_use(w, btrfs_file_extent_disk_bytenr(fi), btrfs_file_extent_disk_num_bytes(fi)))
			return -ENOMEM;
	}
	return 0;
}

int check_collect_uses(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree, u64 root,
		       struct check_uses *u)
{
	struct uses_walk w = { u, root, btrfs_fs_geometry(fs)->nodesize };

	return btrfs_walk_tree(fs, tree, BTRFS_WALK_DFS, NULL, use_block, &w);
}

static int cmp_use(const void *a, const void *b)
{
	const struct check_use *x = a, *y = b;

	if (x->bytenr != y->bytenr)
		return x->bytenr < y->bytenr ? -1 : 1;
	return x->root < y->root ? -1 : x->root > y->root;
}

void check_sort_uses(struct check_uses *u)
{
	check_sort(u->use, u->use_nr, sizeof(*u->use), cmp_use);
}


struct subvol_walk {
	check_subvol_fn fn;
	void *arg;
};

static int subvol_root(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key, void *arg)
{
	struct subvol_walk *w = arg;
	const struct btrfs_root_item *ri;
	struct btrfs_tree_ref tree;

	if (key->type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_subvolume_tree(key->objectid) ||
	    btrfs_leaf_item_size(eb, slot) < offsetof(struct btrfs_root_item, generation_v2))
		return 0;
	ri = btrfs_leaf_item_ptr(eb, slot);
	if (!btrfs_root_refs(ri))
		return 0;   /* being deleted */
	btrfs_tree_ref_from_root_item(&tree, key->objectid, ri);
	return w->fn(ctx, &tree, w->arg);
}

int check_for_each_subvol(struct check_ctx *ctx, check_subvol_fn fn, void *arg)
{
	struct subvol_walk w = { fn, arg };
	struct btrfs_tree_ref rt;
	int ret;

	ret = btrfs_find_tree_root(ctx->fs, BTRFS_ROOT_TREE_OBJECTID, &rt);
	if (ret == 0)
		ret = check_for_each_item(ctx, &rt, NULL, subvol_root, &w);
	return ret;
}

struct extents_report {
	struct check_uses u;
	bool damaged;
};

static int subvol_uses(struct check_ctx *ctx, const struct btrfs_tree_ref *tree, void *arg)
{
	struct extents_report *r = arg;
	int ret = check_collect_uses(ctx->fs, tree, tree->objectid, &r->u);

	/* an unreadable block was printed; the report goes on without it */
	if (ret < 0 && ret != -ENOMEM) {
		r->damaged = true;
		ret = 0;
	}
	return ret;
}

int check_subvol_extents(struct check_ctx *ctx, u64 subvol)
{
	struct extents_report r = { 0 };
	const struct check_use *use;
	size_t i, j;
	int ret;

	ret = check_for_each_subvol(ctx, subvol_uses, &r);
	if (ret < 0) {
		error("cannot list the subvolumes' extents: %s", strerror(-ret));
		free(r.u.use);
		return 1;
	}
	check_sort_uses(&r.u);
	use = r.u.use;
	printf("Offset\t\tLen\tRoot Refs\tRoots\n");
	for (i = 0; i < r.u.use_nr; i = j) {
		bool ours = false;
		u64 nroots = 0;

		for (j = i; j < r.u.use_nr && use[j].bytenr == use[i].bytenr; j++) {
			ours |= use[j].root == subvol;
			nroots += j == i || use[j].root != use[j - 1].root;
		}
		if (!ours)
			continue;
		printf("%llu\t%llu\t%llu\t", use[i].bytenr, use[i].len, nroots);
		for (size_t k = i; k < j; k++)
			if (k == i || use[k].root != use[k - 1].root)
				printf("%llu ", use[k].root);
		printf("\n");
	}
	free(r.u.use);
	return r.damaged ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs check --clear-space-cache v1|v2, with btrfs-progs' messages.
 *
 * v2: the free space tree goes (blocks freed, ROOT_ITEM deleted, the
 * FREE_SPACE_TREE and FREE_SPACE_TREE_VALID compat_ro bits cleared); the
 * kernel builds a new one at the next read-write mount.  Refused with the
 * block group tree, which the kernel only mounts beside a free space tree.
 *
 * v1: every cache file goes.  A cache is a header (FREE_SPACE, 0, block
 * group start) in the root tree naming an inode of the root tree whose
 * file extents hold the cache (NODATASUM, referenced only by that inode).
 * Headers, inode items and file extents are deleted, the data extents
 * (extent item and keyed back references) dropped and their space given
 * back; the superblock's cache_generation becomes (u64)-1 so that a kernel
 * never trusts a cache again.
 *
 * The inode cache (removed from the kernel in 5.11) is the same structure
 * in a subvolume's tree: a header (FREE_SPACE, 0, 0) naming inode FREE_INO;
 * check --repair deletes it the same way (check_fix_inode_cache()).
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/check-extra.h"
#include "check/extent-records.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

struct v1_extent {
	u64 bytenr, len;
};

struct v1_cache {
	struct btrfs_key *del;          /* root tree items to delete */
	size_t del_nr, del_alloc;
	u64 *ino;                       /* cache inodes */
	size_t ino_nr, ino_alloc;
	struct v1_extent *ext;          /* one per file extent (an extent may repeat) */
	size_t ext_nr, ext_alloc;
	u64 cur_ino;                    /* the inode being collected */
	u64 tree;                       /* the tree holding them: root tree (v1), a subvolume (inode cache) */
};

static int push_key(struct v1_cache *c, const struct btrfs_key *key)
{
	struct btrfs_key *k = CHECK_PUSH(c, del);

	if (!k)
		return -ENOMEM;
	*k = *key;
	return 0;
}

static int header_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key, void *arg)
{
	struct v1_cache *c = arg;
	const struct btrfs_free_space_header *h;
	u64 *ino;

	if (key->objectid != BTRFS_FREE_SPACE_OBJECTID)
		return 1;
	if (push_key(c, key))
		return -ENOMEM;
	if (btrfs_leaf_item_size(eb, slot) < sizeof(*h)) {
		warning("space cache header (FREE_SPACE %u %llu) is too small: deleted alone",
			key->type, key->offset);
		return 0;
	}
	h = btrfs_leaf_item_ptr(eb, slot);
	if (btrfs_disk_key_type(&h->location) != BTRFS_INODE_ITEM_KEY)
		return 0;
	ino = CHECK_PUSH(c, ino);
	if (!ino)
		return -ENOMEM;
	*ino = btrfs_disk_key_objectid(&h->location);
	return 0;
}

static int inode_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key, void *arg)
{
	struct v1_cache *c = arg;
	const struct btrfs_file_extent_item *fi;
	struct v1_extent *x;

	if (key->objectid != c->cur_ino)
		return 1;
	if (push_key(c, key))
		return -ENOMEM;
	if (key->type != BTRFS_EXTENT_DATA_KEY || btrfs_leaf_item_size(eb, slot) < sizeof(*fi))
		return 0;
	fi = btrfs_leaf_item_ptr(eb, slot);
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE || !btrfs_file_extent_disk_bytenr(fi))
		return 0;
	x = CHECK_PUSH(c, ext);
	if (!x)
		return -ENOMEM;
	x->bytenr = btrfs_file_extent_disk_bytenr(fi);
	x->len = btrfs_file_extent_disk_num_bytes(fi);
	return 0;
}

/*
 * Cache inodes: in the root tree (space cache v1) any inode number; in a
 * subvolume only the inode cache's own (FREE_INO), never a file.
 */
static bool cache_inode(const struct v1_cache *c, u64 ino)
{
	if (c->tree != BTRFS_ROOT_TREE_OBJECTID)
		return ino == BTRFS_FREE_INO_OBJECTID;
	return ino >= BTRFS_FIRST_FREE_OBJECTID && ino <= BTRFS_LAST_FREE_OBJECTID;
}

/* Headers of c->tree, the items of their inodes, the extents those reference. */
static int collect_v1(struct check_ctx *ctx, struct v1_cache *c)
{
	struct btrfs_key from = { BTRFS_FREE_SPACE_OBJECTID, 0, 0 };
	struct btrfs_tree_ref rt;
	size_t i;
	int ret;

	ret = btrfs_find_tree_root(ctx->fs, c->tree, &rt);
	if (ret == 0)
		ret = check_for_each_item(ctx, &rt, &from, header_item, c);
	check_sort(c->ino, c->ino_nr, sizeof(*c->ino), check_cmp_u64);
	for (i = 0; i < c->ino_nr && ret == 0; i++) {
		u64 ino = c->ino[i];

		/* each inode once */
		if ((i && c->ino[i - 1] == ino) || !cache_inode(c, ino))
			continue;
		c->cur_ino = ino;
		from = (struct btrfs_key){ ino, 0, 0 };
		ret = check_for_each_item(ctx, &rt, &from, inode_item, c);
	}
	return ret;
}

static int cmp_ext(const void *a, const void *b)
{
	const struct v1_extent *x = a, *y = b;

	if (x->bytenr != y->bytenr)
		return x->bytenr < y->bytenr ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Drop data extent bytenr+len, which refs file extents of cache inodes
 * reference: its extent item (refs must equal that: nothing else uses it)
 * and keyed back references; its space is free after the commit.
 */
static int drop_data_extent(struct btrfs_trans *t, u64 bytenr, u64 len, u64 refs)
{
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, len }, found;
	struct btrfs_wroot *extent;
	struct btrfs_path path;
	u64 on_disk;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, extent, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret == 0 && btrfs_path_item_size(&path) < sizeof(struct btrfs_extent_item))
		ret = 1;
	on_disk = ret ? 0 : btrfs_extent_refs(btrfs_path_item_ptr(&path));
	btrfs_release_path(&path);
	if (ret) {
		error("space cache data extent (%llu EXTENT_ITEM %llu) is missing or damaged",
		      bytenr, len);
		return ret < 0 ? ret : -EUCLEAN;
	}
	if (on_disk != refs) {
		error("space cache data extent %llu has %llu references, the cache files hold %llu: not freed",
		      bytenr, on_disk, refs);
		return -EUCLEAN;
	}
	for (;;) {
		key = (struct btrfs_key){ bytenr, 0, 0 };
		ret = btrfs_trans_find_key(t, extent, &key, BTRFS_SEARCH_NEXT, &found);
		if (ret < 0)
			return ret;
		/* a block group item (on the old extent tree) may share the objectid */
		if (ret > 0 || found.objectid != bytenr || found.type > BTRFS_SHARED_DATA_REF_KEY)
			break;
		if (found.type != BTRFS_EXTENT_ITEM_KEY && found.type != BTRFS_EXTENT_DATA_REF_KEY &&
		    found.type != BTRFS_SHARED_DATA_REF_KEY) {
			error("extent tree: unexpected item (%llu %u %llu) beside space cache data extent",
			      found.objectid, found.type, found.offset);
			return -EUCLEAN;
		}
		ret = btrfs_delete_item(t, extent, &found);
		if (ret < 0)
			return ret;
	}
	return btrfs_account_extent(t, bytenr, len, false);
}

/* Delete the caches of tree (headers, inodes, their data extents) in t. */
static int clear_caches(struct check_ctx *ctx, struct btrfs_trans *t, u64 tree)
{
	struct v1_cache c = { .tree = tree };
	struct btrfs_wroot *rt;
	size_t i, j;
	int ret;

	ret = collect_v1(ctx, &c);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, tree, &rt);
	for (i = 0; i < c.del_nr && ret == 0; i++) {
		ret = btrfs_delete_item(t, rt, &c.del[i]);
		if (ret < 0)
			error("cannot delete tree %llu item (%llu %u %llu): %s", tree, c.del[i].objectid,
			      c.del[i].type, c.del[i].offset, strerror(-ret));
	}
	check_sort(c.ext, c.ext_nr, sizeof(*c.ext), cmp_ext);
	for (i = 0; i < c.ext_nr && ret == 0; i = j) {
		for (j = i; j < c.ext_nr && c.ext[j].bytenr == c.ext[i].bytenr; j++)
			;
		ret = drop_data_extent(t, c.ext[i].bytenr, c.ext[i].len, j - i);
		/* space cache files are NODATASUM; an inode cache's data may have csums */
		if (ret == 0)
			ret = check_delete_csums(ctx, t, c.ext[i].bytenr, c.ext[i].bytenr + c.ext[i].len);
	}
	free(c.del);
	free(c.ino);
	free(c.ext);
	return ret;
}

static int clear_v1(struct check_ctx *ctx, struct btrfs_trans *t)
{
	int ret = clear_caches(ctx, t, BTRFS_ROOT_TREE_OBJECTID);

	if (ret == 0)
		btrfs_trans_invalidate_space_cache_v1(t);
	return ret;
}

int check_fix_inode_cache(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	u64 root = *(const u64 *)arg;
	int ret = clear_caches(ctx, t, root);

	if (ret) {
		error("repair: root %llu: cannot delete the deprecated inode cache: %s", root, strerror(-ret));
		return ret;
	}
	printf("root %llu: deprecated inode cache deleted\n", root);
	return 0;
}

int check_stale_v1_caches(struct check_ctx *ctx, struct btrfs_trans *t)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct btrfs_key from = { BTRFS_FREE_SPACE_OBJECTID, 0, 0 };
	struct v1_cache c = { .tree = BTRFS_ROOT_TREE_OBJECTID };
	struct btrfs_tree_ref ref;
	struct btrfs_wroot *rt;
	int ret;

	if ((btrfs_super_compat_ro_flags(sb) & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) ||
	    !btrfs_super_cache_generation(sb))
		return 0;
	ret = btrfs_find_tree_root(ctx->fs, BTRFS_ROOT_TREE_OBJECTID, &ref);
	if (ret == 0)
		ret = check_for_each_item(ctx, &ref, &from, header_item, &c);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);
	for (size_t i = 0; i < c.del_nr && ret == 0; i++) {
		struct btrfs_path path;

		btrfs_init_path(&path);
		ret = btrfs_search_slot(t, rt, &c.del[i], &path, 0, 1);
		if (ret == 0 && btrfs_path_item_size(&path) >= sizeof(struct btrfs_free_space_header))
			btrfs_set_free_space_generation(btrfs_path_item_ptr(&path), 0);
		btrfs_release_path(&path);
		ret = ret > 0 ? 0 : ret;   /* deleted by a fix */
	}
	free(c.del);
	free(c.ino);
	free(c.ext);
	return ret;
}

int check_clear_space_cache(struct check_ctx *ctx, int version)
{
	u64 ro = btrfs_super_compat_ro_flags(btrfs_fs_super(ctx->fs));
	struct btrfs_trans *t;
	int ret;

	if (version == 2 && !(ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		printf("no free space cache v2 to clear\n");
		return 0;
	}
	if (version == 1 && (ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		warning("free space cache v2 detected, use --clear-space-cache v2, proceeding with clearing v1");
	if (version == 2 && (ro & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)) {
		error("cannot clear free space cache v2: the block group tree needs the free space tree");
		return 1;
	}
	ret = btrfs_start_transaction(ctx->fs, &t);
	if (ret < 0) {
		error("cannot start a transaction: %s", strerror(-ret));
		return 1;
	}
	if (version == 2) {
		printf("Clear free space cache v2\n");
		fflush(stdout);
		ret = btrfs_drop_free_space_tree(t);
	} else {
		ret = clear_v1(ctx, t);
	}
	if (ret < 0) {
		btrfs_abort_transaction(t);
	} else {
		ret = btrfs_commit_transaction(t);
	}
	if (ret < 0) {
		if (version == 2)
			error("failed to clear free space cache v2: %d", ret);
		else
			error("failed to clear free space cache");
		return 1;
	}
	printf(version == 2 ? "free space cache v2 cleared\n" : "Free space cache cleared\n");
	return 0;
}

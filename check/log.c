// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 1, log: when the superblock names a log root tree, every block of it
 * and of the per-subvolume log trees it lists must read and verify.  The
 * log is replayed by the kernel at mount; we check it is intact, and that
 * the data it logs has checksums (in the log or already in the csum tree)
 * unless the inode is NODATASUM.  The data extents it references are noted
 * for the csum pass: their csums may be in the csum tree before their
 * extent items are (the log is replayed at mount).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "check/context.h"
#include "check/csum-tree.h"
#include "check/passes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

struct log_walk {
	struct check_ctx *ctx;
	const char *what;
	bool collect;                      /* the log root tree: note the trees it lists */
	struct btrfs_tree_ref trees[64];   /* log trees listed in the log root tree */
	int ntrees;
};

static int log_block(struct btrfs_fs_info *fs __unused, const struct extent_buffer *eb, u64 bytenr,
		     int err, void *arg)
{
	struct log_walk *w = arg;
	u32 i, nr;

	if (err) {
		check_error(w->ctx, "%s: block %llu cannot be read: %s", w->what, bytenr, strerror(-err));
		return 0;
	}
	if (!w->collect || btrfs_eb_level(eb) != 0)
		return 0;
	nr = btrfs_eb_nritems(eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY ||
		    btrfs_leaf_item_size(eb, (int)i) < offsetof(struct btrfs_root_item, generation_v2))
			continue;
		if (w->ntrees >= (int)ARRAY_SIZE(w->trees)) {
			warning("log root tree lists more than %zu log trees, checking the first ones",
				ARRAY_SIZE(w->trees));
			break;
		}
		btrfs_tree_ref_from_root_item(&w->trees[w->ntrees++], key.offset,
					      btrfs_leaf_item_ptr(eb, (int)i));
	}
	return 0;
}

/* A logged file extent that needs checksums. */
struct logged_extent {
	u64 ino, file_offset;
	u64 start, end;     /* the checksummed bytes on disk */
};

struct log_items {
	struct check_ctx *ctx;
	u64 root;
	u64 nodatasum_ino;            /* the last inode item seen, when it is NODATASUM */
	u64 item_ino;
	struct logged_extent *ext;
	size_t ext_nr, ext_alloc;
	struct check_range *csum;     /* csum items of the log tree, in key order */
	size_t csum_nr, csum_alloc;
	size_t *logx_alloc;           /* allocated size of ctx->log_extents */
};

static int push(void **arr, size_t *nr, size_t *alloc, size_t elem, const void *v)
{
	if (btrfs_array_reserve(arr, alloc, *nr + 1, elem, SIZE_MAX))
		return -ENOMEM;
	memcpy((u8 *)*arr + *nr * elem, v, elem);
	(*nr)++;
	return 0;
}

static int log_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		    const struct btrfs_key *key, void *arg)
{
	struct log_items *li = arg;
	u32 size = btrfs_leaf_item_size(eb, slot);
	void *p = btrfs_leaf_item_ptr(eb, slot);

	if (key->type == BTRFS_INODE_ITEM_KEY && size >= sizeof(struct btrfs_inode_item)) {
		li->item_ino = key->objectid;
		li->nodatasum_ino = (btrfs_inode_flags(p) & BTRFS_INODE_NODATASUM) ? key->objectid : 0;
	} else if (key->type == BTRFS_EXTENT_DATA_KEY && size == sizeof(struct btrfs_file_extent_item) &&
		   btrfs_file_extent_type(p) != BTRFS_FILE_EXTENT_INLINE) {
		u64 disk = btrfs_file_extent_disk_bytenr(p);
		struct logged_extent e = { .ino = key->objectid, .file_offset = key->offset };
		struct check_range r;

		if (!disk)
			return 0;
		r.start = disk;
		r.end = disk + btrfs_file_extent_disk_num_bytes(p);
		if (push((void **)&ctx->log_extents, &ctx->log_extents_nr, li->logx_alloc, sizeof(r), &r))
			return -ENOMEM;
		if (btrfs_file_extent_type(p) == BTRFS_FILE_EXTENT_PREALLOC ||
		    li->nodatasum_ino == key->objectid)
			return 0;
		if (btrfs_file_extent_compression(p)) {
			e.start = r.start;
			e.end = r.end;
		} else {
			e.start = disk + btrfs_file_extent_offset(p);
			e.end = e.start + btrfs_file_extent_num_bytes(p);
		}
		if (push((void **)&li->ext, &li->ext_nr, &li->ext_alloc, sizeof(e), &e))
			return -ENOMEM;
	} else if (key->objectid == BTRFS_EXTENT_CSUM_OBJECTID && key->type == BTRFS_EXTENT_CSUM_KEY &&
		   ctx->fs->geo.csum_size) {
		struct check_range r = { key->offset, key->offset +
			(u64)(size / ctx->fs->geo.csum_size) * ctx->fs->geo.sectorsize };

		if (push((void **)&li->csum, &li->csum_nr, &li->csum_alloc, sizeof(r), &r))
			return -ENOMEM;
	}
	return 0;
}

/* [start, end) inside the union of the sorted, possibly overlapping ranges? */
static bool ranges_cover(const struct check_range *r, size_t nr, u64 start, u64 end)
{
	u64 pos = start;

	for (size_t i = 0; i < nr && pos < end; i++)
		if (r[i].start <= pos && r[i].end > pos)
			pos = r[i].end;
	return pos >= end;
}

static void check_logged_csums(struct check_ctx *ctx, const struct btrfs_tree_ref *tree,
			       size_t *logx_alloc)
{
	struct log_items li = { .ctx = ctx, .root = tree->objectid, .logx_alloc = logx_alloc };
	int ret = check_for_each_item(ctx, tree, NULL, log_item, &li);

	if (ret == 0) {
		for (size_t i = 0; i < li.ext_nr; i++) {
			const struct logged_extent *e = &li.ext[i];

			if (ranges_cover(li.csum, li.csum_nr, e->start, e->end) ||
			    check_csum_tree_covers(ctx, e->start, e->end))
				continue;
			check_error(ctx, "csum missing in log (root %llu inode %llu offset %llu address 0x%llx length %llu)",
				    li.root, e->ino, e->file_offset, e->start, e->end - e->start);
		}
	} else if (ret != -ENOMEM) {
		check_error(ctx, "log tree of root %llu cannot be read to the end", li.root);
	}
	free(li.ext);
	free(li.csum);
}

static int cmp_range(const void *a, const void *b)
{
	const struct check_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int check_log(struct check_ctx *ctx)
{
	size_t logx_alloc = 0;
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct log_walk w = { .ctx = ctx, .what = "log root tree", .collect = true };
	struct btrfs_tree_ref root = {
		.objectid = BTRFS_TREE_LOG_OBJECTID,
		.bytenr = btrfs_super_log_root(sb),
		.level = btrfs_super_log_root_level(sb),
		.generation = 0,   /* written after the super's transaction: not known */
	};
	char name[64];
	int i;

	btrfs_walk_tree(ctx->fs, &root, BTRFS_WALK_DFS, NULL, log_block, &w);
	for (i = 0; i < w.ntrees; i++) {
		struct log_walk sub = { .ctx = ctx, .what = name };

		snprintf(name, sizeof(name), "log tree of root %llu", w.trees[i].objectid);
		btrfs_walk_tree(ctx->fs, &w.trees[i], BTRFS_WALK_DFS, NULL, log_block, &sub);
		check_logged_csums(ctx, &w.trees[i], &logx_alloc);
	}
	check_sort(ctx->log_extents, ctx->log_extents_nr, sizeof(*ctx->log_extents), cmp_range);
	return 0;
}

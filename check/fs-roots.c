// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5, fs roots: every subvolume tree (and the data relocation tree),
 * read once in key order.  All items of one inode are adjacent, so each
 * inode is checked when its last item has been seen:
 *   - an INODE_ITEM exists for every inode with items; nlink equals the
 *     names its INODE_REF / INODE_EXTREF items give; generation and transid
 *     not beyond the superblock; flags known and sensible for the type
 *   - directories: i_size is the sum of the name lengths of its DIR_ITEM and
 *     DIR_INDEX entries
 *   - file extents: aligned, not overlapping, well formed per type; without
 *     NO_HOLES no gap up to i_size; nbytes equals what they account; the
 *     csum tree covers what regular extents reference on disk (compressed
 *     always, else unless NODATASUM; not in the data relocation tree), and
 *     has nothing over NODATASUM data or never written prealloc extents
 * Names are then matched across inodes: every inode ref has its DIR_ITEM and
 * DIR_INDEX in the parent, every directory entry its inode ref, with the
 * same name, index and a file type matching the inode's mode.  Entries
 * naming a subvolume (location ROOT_ITEM) are pass 7's.
 *
 * Memory: per tree, records only of what is still open or odd: a name's
 * three records (40 bytes each) until its inode ref has met both entries
 * (fs_root_settle_names(); in a tree where directories come before their
 * children, as mkfs and most kernel workloads make them, that is one
 * directory's worth), an inode's own record only when something about it is
 * odd, else a 16-byte run of consecutive inodes of one mode.  Freed when the
 * tree is done.
 *
 * With --repair each problem found that can be mended queues its fix
 * (check/repair-fs-roots.c): nlink, isize, nbytes set to what the items
 * account; a lost inode item recreated from its names and extents; hole
 * extents; an entry or inode ref added where the other two of (inode ref,
 * DIR_ITEM, DIR_INDEX) prove the link, an entry nothing proves deleted; an
 * entry's file type; an orphan item for an unlinked inode; an inode with
 * links but no name proven linked into lost+found.
 *
 * This file walks the trees and hands each item to the part that checks it
 * (check/fs-roots-internal.h lists them): fs-roots-inodes.c, -extents.c,
 * -name-items.c, then fs-roots-links.c for the names; fs-roots-records.c
 * keeps what they record.
 */
#include <stdlib.h>
#include <string.h>
#include "check/fs-roots-internal.h"
#include "check/check-extra.h"
#include "kernel-shared/format/accessors.h"
#include "check/fs-roots.h"
#include "check/passes.h"

/* ---- the walk ------------------------------------------------------------------ */

/* Each item of the tree, in key order: an inode's are adjacent, its checks run when the next begins. */
static int fs_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		   const struct btrfs_key *key, void *arg)
{
	struct fs_root_tree *t = arg;
	struct fs_root_cursor *c = &t->cur;

	/* the inode cache (inode FREE_INO, header FREE_SPACE) of kernels before 5.11 */
	if (key->objectid == BTRFS_FREE_INO_OBJECTID || key->objectid == BTRFS_FREE_SPACE_OBJECTID) {
		if (!t->inode_cache) {
			t->inode_cache = true;
			check_error(ctx, "root %llu: deprecated inode cache (FREE_INO inode, FREE_SPACE header) found in leaf %llu",
				    t->root, eb->start);
			check_fixable(ctx, check_fix_inode_cache, &t->root, sizeof(t->root));
		}
		return 0;
	}
	if (key->objectid != c->ino) {
		fs_root_finish_inode(t);
		c->ino = key->objectid;
		c->refs_from = t->refs_nr;
	}
	if (!btrfs_tree_holds_key_type(t->root, key->type)) {
		check_error(ctx, "unknown key (%llu %u %llu) found in leaf %llu of root %llu",
			    key->objectid, key->type, key->offset, eb->start, t->root);
		return 0;
	}
	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY: {
		struct btrfs_inode_item *ii = btrfs_leaf_item_ptr(eb, slot);

		if (btrfs_leaf_item_size(eb, slot) < sizeof(*ii)) {
			INODE_ERR(t, key->objectid, "inode item size %u", btrfs_leaf_item_size(eb, slot));
			break;
		}
		c->have_item = true;
		c->mode = btrfs_inode_mode(ii);
		c->nlink = btrfs_inode_nlink(ii);
		c->size = btrfs_inode_size(ii);
		c->nbytes = btrfs_inode_nbytes(ii);
		c->flags = btrfs_inode_flags(ii);
		c->generation = btrfs_inode_generation(ii);
		c->transid = btrfs_inode_transid(ii);
		break;
	}
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		return fs_root_inode_refs(t, eb, slot, key);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
		return fs_root_dir_entries(t, eb, slot, key);
	case BTRFS_EXTENT_DATA_KEY:
		fs_root_file_extent(t, eb, slot, key);
		break;
	case BTRFS_XATTR_ITEM_KEY:
		fs_root_xattr_entries(t, eb, slot, key);
		break;
	case BTRFS_ORPHAN_ITEM_KEY:
		break;   /* read before the walk: collect_orphans() */
	}
	return 0;
}

static int orphan_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb __unused,
		       int slot __unused, const struct btrfs_key *key, void *arg)
{
	struct fs_root_tree *t = arg;
	u64 *o;

	if (key->objectid != BTRFS_ORPHAN_OBJECTID)
		return 1;
	if (key->type != BTRFS_ORPHAN_ITEM_KEY)
		return 0;
	o = CHECK_PUSH(t, orphans);
	if (!o)
		return -ENOMEM;
	*o = key->offset;
	return 0;
}

/* The orphan items sit at the end of the tree; the inode checks need them first. */
static int collect_orphans(struct fs_root_tree *t, const struct btrfs_tree_ref *tree)
{
	struct btrfs_key from = { .objectid = BTRFS_ORPHAN_OBJECTID, .type = BTRFS_ORPHAN_ITEM_KEY };
	int ret = check_for_each_item(t->ctx, tree, &from, orphan_item, t);

	check_sort(t->orphans, t->orphans_nr, sizeof(u64), check_cmp_u64);
	return ret;
}

static void free_tree(struct fs_root_tree *t)
{
	free(t->refs);
	free(t->items);
	free(t->index);
	fs_root_slots_free(&t->items_at);
	fs_root_slots_free(&t->index_at);
	free(t->inodes);
	free(t->runs);
	free(t->unlinked);
	free(t->orphans);
	free(t->holes);
	free(t->missing);
	free(t->cands);
}

int check_fs_root(struct check_ctx *ctx, const struct check_root *r, struct fs_root_csums *csums,
		  bool *used_csums)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct fs_root_tree t = {
		.ctx = ctx, .tree = &r->tree, .root = r->key.objectid, .sectorsize = btrfs_super_sectorsize(sb),
		.no_holes = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_NO_HOLES,
		.super_gen = btrfs_super_generation(sb), .csums = csums,
	};
	int ret;

	if (used_csums)
		*used_csums = false;
	if (!check_is_file_tree(r->key.objectid))
		return 0;
	/* being deleted: its remaining items need not be consistent */
	if (r->drop_key.objectid || r->drop_level)
		return 0;
	ret = collect_orphans(&t, &r->tree);
	if (!ret)
		ret = check_for_each_item(ctx, &r->tree, NULL, fs_item, &t);
	fs_root_finish_inode(&t);
	fs_root_drop_settled_entries(&t, true);
	fs_root_slots_free(&t.items_at);    /* the walk's: fs_root_check_names() sorts the lists anew */
	fs_root_slots_free(&t.index_at);
	if (used_csums)
		*used_csums = t.csums_state != 0;
	if (ret == -ENOMEM) {
		free_tree(&t);
		return ret;
	}
	if (ret < 0)
		check_error(ctx, "root %llu cannot be read to the end: %s", t.root, strerror(-ret));
	else
		fs_root_check_names(&t);
	free_tree(&t);
	return 0;
}

struct fs_root_csums *check_fs_root_csums_new(bool shared)
{
	struct fs_root_csums *cs = calloc(1, sizeof(*cs));

	if (cs && shared) {
		cs->shared = true;
		pthread_mutex_init(&cs->lock, NULL);
	}
	return cs;
}

const char *check_fs_root_csums_messages(const struct fs_root_csums *cs, size_t *len)
{
	*len = cs->msgs_len;
	return cs->msgs;
}

void check_fs_root_csums_free(struct fs_root_csums *cs)
{
	if (!cs)
		return;
	if (cs->shared)
		pthread_mutex_destroy(&cs->lock);
	free(cs->msgs);
	free(cs->span);
	free(cs);
}

int check_fs_roots_of(struct check_ctx *ctx, const struct check_root *roots, size_t nr)
{
	struct fs_root_csums csums = { 0 };
	int ret = 0;

	for (size_t i = 0; i < nr && !ret; i++)
		ret = check_fs_root(ctx, &roots[i], &csums, NULL);
	free(csums.span);
	return ret;
}

int check_fs_roots(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;

	return st ? check_fs_roots_of(ctx, st->root, st->root_nr) : 0;
}

void check_fs_roots_free(struct check_ctx *ctx __unused)
{
}

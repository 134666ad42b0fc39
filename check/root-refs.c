// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 7, root refs: every ROOT_REF (parent, child) of the root tree has the
 * ROOT_BACKREF (child, parent) with the same directory, sequence and name;
 * the parent subvolume's DIR_INDEX and DIR_ITEM name the child; every live
 * subvolume (refs > 0) other than the top one has a backref, and a root
 * item's refs is 1 for the top subvolume and a linked one; a deleted one
 * (refs 0) has no backref, and has an orphan item in the root tree until the
 * cleaner has dropped it.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-fs-roots.h"
#include "check/passes.h"
#include "check/repair-root-tree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"

struct rref {
	u64 parent, child, dirid, seq;
	u16 name_len;
	char name[256];
	bool back;     /* ROOT_BACKREF */
	bool matched;
};

struct rref_walk {
	struct rref *r;
	size_t nr, alloc;
	u64 *orphan;   /* ORPHAN_ITEM offsets: subvolumes deleted, not yet cleaned */
	size_t orphan_nr, orphan_alloc;
};

static int rref_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct rref_walk *w = arg;
	struct btrfs_root_ref *ref;
	struct rref *r;
	u32 size = btrfs_leaf_item_size(eb, slot);

	if (key->objectid == BTRFS_ORPHAN_OBJECTID && key->type == BTRFS_ORPHAN_ITEM_KEY) {
		if (ARRAY_GROW(w->orphan, w->orphan_nr, w->orphan_alloc))
			return -ENOMEM;
		w->orphan[w->orphan_nr++] = key->offset;
		return 0;
	}
	if (key->type != BTRFS_ROOT_REF_KEY && key->type != BTRFS_ROOT_BACKREF_KEY)
		return 0;
	ref = btrfs_leaf_item_ptr(eb, slot);
	if (size < sizeof(*ref) || size < sizeof(*ref) + btrfs_root_ref_name_len(ref)) {
		check_error(ctx, "root tree: item (%llu %u %llu) in leaf %llu has size %u, too small for its name",
			    key->objectid, key->type, key->offset, eb->start, size);
		return 0;
	}
	if (ARRAY_GROW(w->r, w->nr, w->alloc))
		return -ENOMEM;
	r = &w->r[w->nr++];
	memset(r, 0, sizeof(*r));
	r->back = key->type == BTRFS_ROOT_BACKREF_KEY;
	r->parent = r->back ? key->offset : key->objectid;
	r->child = r->back ? key->objectid : key->offset;
	r->dirid = btrfs_root_ref_dirid(ref);
	r->seq = btrfs_root_ref_sequence(ref);
	r->name_len = btrfs_root_ref_name_len(ref) < 255 ? btrfs_root_ref_name_len(ref) : 255;
	memcpy(r->name, (u8 *)(ref + 1), r->name_len);
	return 0;
}

/*
 * A directory entry the ROOT_REF names (dir, index, name) but the parent
 * lacks: added, naming the subvolume (when the ROOT_BACKREF disagrees, that
 * error has no fix and the repair refuses).
 */
static void fix_missing_entry(struct check_ctx *ctx, const struct rref *r, u8 key_type)
{
	struct repair_name n = { .root = r->parent, .dir = r->dirid, .ino = r->child, .index = r->seq,
				 .key_type = key_type, .ftype = BTRFS_FT_DIR, .subvol = true,
				 .name_len = r->name_len };

	memcpy(n.name, r->name, r->name_len);
	check_fixable(ctx, repair_add_entry, &n, sizeof(n));
}

/* Does the DIR_ITEM of the subvolume's name in dir exist, naming it? 1, 0, or a read error. */
static int has_dir_item(struct check_ctx *ctx, const struct btrfs_tree_ref *tree, const struct rref *r)
{
	struct btrfs_key key = { r->dirid, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(r->name, r->name_len) };
	struct btrfs_path path;
	int ret, found = 0;

	btrfs_init_path(&path);
	ret = btrfs_search_key(ctx->fs, tree, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret < 0)
		found = ret;
	for (u32 cur = 0, size = ret ? 0 : btrfs_leaf_item_size(path.nodes[0], path.slots[0]);
	     !found && size - cur >= sizeof(struct btrfs_dir_item);) {
		const u8 *p = (const u8 *)btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]) + cur;
		const struct btrfs_dir_item *di = (const void *)p;
		u32 len = sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);
		struct btrfs_key loc;

		if (len > size - cur)
			break;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		found = loc.objectid == r->child && loc.type == BTRFS_ROOT_ITEM_KEY &&
			btrfs_dir_name_len(di) == r->name_len && !memcmp(di + 1, r->name, r->name_len);
		cur += len;
	}
	btrfs_release_path(&path);
	return found;
}

/* The parent subvolume's directory entries (DIR_ITEM and DIR_INDEX) for the reference. */
static void check_dir_entry(struct check_ctx *ctx, const struct rref *r)
{
	struct btrfs_tree_ref tree;
	struct btrfs_key key = { r->dirid, BTRFS_DIR_INDEX_KEY, r->seq }, loc;
	struct btrfs_path path;
	struct btrfs_dir_item *di;
	int ret;

	if (btrfs_find_tree_root(ctx->fs, r->parent, &tree))
		return;   /* the parent is being deleted, or pass 2 reported it */
	if (has_dir_item(ctx, &tree, r) == 0) {
		check_error(ctx, "root %llu: ROOT_REF from root %llu names '%s' in dir %llu, but that dir has no dir item for it",
			    r->child, r->parent, r->name, r->dirid);
		fix_missing_entry(ctx, r, BTRFS_DIR_ITEM_KEY);
	}
	btrfs_init_path(&path);
	ret = btrfs_search_key(ctx->fs, &tree, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret) {
		btrfs_release_path(&path);
		check_error(ctx, "root %llu: ROOT_REF from root %llu names '%s' in dir %llu index %llu, but that dir index does not exist",
			    r->child, r->parent, r->name, r->dirid, r->seq);
		if (ret > 0)
			fix_missing_entry(ctx, r, BTRFS_DIR_INDEX_KEY);
		return;
	}
	di = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);
	btrfs_disk_key_to_cpu(&loc, &di->location);
	if (loc.objectid != r->child || loc.type != BTRFS_ROOT_ITEM_KEY ||
	    btrfs_dir_name_len(di) != r->name_len || memcmp(di + 1, r->name, r->name_len))
		check_error(ctx, "root %llu: dir %llu index %llu in root %llu does not name the subvolume '%s' (location (%llu %u %llu))",
			    r->child, r->dirid, r->seq, r->parent, r->name, loc.objectid, loc.type, loc.offset);
	btrfs_release_path(&path);
}

/* Does the parent tree's DIR_INDEX (r's dir, r's index) name r's subvolume by r's name? */
static bool dir_index_names(struct check_ctx *ctx, const struct rref *r)
{
	struct btrfs_key key = { r->dirid, BTRFS_DIR_INDEX_KEY, r->seq }, loc;
	struct btrfs_tree_ref tree;
	struct btrfs_path path;
	bool yes = false;

	if (btrfs_find_tree_root(ctx->fs, r->parent, &tree))
		return false;
	btrfs_init_path(&path);
	if (btrfs_search_key(ctx->fs, &tree, &key, BTRFS_SEARCH_EXACT, &path, NULL) == 0 &&
	    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_dir_item) + r->name_len) {
		const struct btrfs_dir_item *di = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);

		btrfs_disk_key_to_cpu(&loc, &di->location);
		yes = loc.objectid == r->child && loc.type == BTRFS_ROOT_ITEM_KEY &&
		      btrfs_dir_name_len(di) == r->name_len && !memcmp(di + 1, r->name, r->name_len);
	}
	btrfs_release_path(&path);
	return yes;
}

/* The root item of subvolume id (st->root is in root tree order, its key first), or NULL. */
static const struct check_root *find_root(const struct ext_state *st, u64 id)
{
	return st ? check_bsearch(&id, st->root, st->root_nr, sizeof(*st->root), check_cmp_u64) : NULL;
}

/*
 * A live subvolume's root item has refs 1: the top one, or one its
 * ROOT_BACKREF links (a subvolume has one name).  Refs 0 with an orphan
 * item is a deleted subvolume waiting for cleanup; refs 0 without a link
 * is left to the "not referenced" check.
 */
static void check_root_item_refs(struct check_ctx *ctx, const struct check_root *cr, size_t backrefs,
				 bool orphan)
{
	struct check_root_item_fix f = { .key = cr->key, .field = CHECK_ROOT_REFS, .value = 1 };
	u64 id = cr->key.objectid;

	if ((id != BTRFS_FS_TREE_OBJECTID && !backrefs) || cr->refs == 1 || (cr->refs == 0 && orphan))
		return;
	check_error(ctx, "root %llu: root item refs %u, but the subvolume is %s",
		    id, cr->refs, backrefs ? "linked by a ROOT_BACKREF" : "the top one");
	check_fixable(ctx, check_fix_root_item, &f, sizeof(f));
}

/*
 * A deleted subvolume (refs 0, unlinked) whose orphan item is missing: the
 * kernel finds subvolumes to clean up by their orphan items, so without one
 * its tree and extents stay allocated for ever.  Adding the item hands the
 * subvolume back to the kernel's cleanup at the next mount.
 */
static int fix_root_orphan_item(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	u64 id = *(const u64 *)arg;
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, id };
	struct btrfs_wroot *rt;
	int ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);

	if (!ret)
		ret = btrfs_insert_item(t, rt, &key, NULL, 0);
	if (ret) {
		error("repair: root %llu: cannot add its orphan item: %s", id, strerror(-ret));
		return ret;
	}
	printf("root %llu: orphan item added (the deleted subvolume is cleaned up at the next mount)\n", id);
	return 0;
}

/* A ROOT_REF or ROOT_BACKREF added as its partner says (the parent's dir index confirming). */
struct root_ref_add_fix {
	struct btrfs_key key;
	u64 dirid, seq;
	u16 name_len;
	char name[BTRFS_NAME_LEN];
};

static int fix_root_ref_add(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct root_ref_add_fix *f = arg;
	u8 buf[sizeof(struct btrfs_root_ref) + BTRFS_NAME_LEN];
	struct btrfs_root_ref *ref = (struct btrfs_root_ref *)buf;
	struct btrfs_wroot *rt;
	int ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);

	btrfs_set_root_ref_dirid(ref, f->dirid);
	btrfs_set_root_ref_sequence(ref, f->seq);
	btrfs_set_root_ref_name_len(ref, f->name_len);
	memcpy(ref + 1, f->name, f->name_len);
	if (!ret)
		ret = btrfs_insert_item(t, rt, &f->key, buf, (u32)sizeof(*ref) + f->name_len);
	if (ret) {
		error("repair: cannot add (%llu %u %llu): %s", (unsigned long long)f->key.objectid, f->key.type,
		      (unsigned long long)f->key.offset, strerror(-ret));
		return ret;
	}
	printf("(%llu %s %llu) added: dir %llu index %llu name '%.*s', as its partner and the dir index say\n",
	       (unsigned long long)f->key.objectid, f->key.type == BTRFS_ROOT_REF_KEY ? "ROOT_REF" : "ROOT_BACKREF",
	       (unsigned long long)f->key.offset, (unsigned long long)f->dirid, (unsigned long long)f->seq,
	       (int)f->name_len, f->name);
	return 0;
}

static int cmp_rref(const void *a, const void *b)
{
	const struct rref *x = a, *y = b;

	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return (int)x->back - (int)y->back;
}

int check_root_refs(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;
	struct rref_walk w = { 0 };
	size_t i;
	int ret;

	ret = check_for_each_item(ctx, &ctx->fs->tree_root, NULL, rref_item, &w);
	if (ret < 0) {
		free(w.r);
		free(w.orphan);
		return ret == -ENOMEM ? ret : 0;
	}
	check_sort(w.r, w.nr, sizeof(*w.r), cmp_rref);
	check_sort(w.orphan, w.orphan_nr, sizeof(u64), check_cmp_u64);
	for (i = 0; i < w.nr; i++) {
		struct rref *r = &w.r[i], *n = i + 1 < w.nr ? &w.r[i + 1] : NULL;

		if (!r->back && n && n->back && n->child == r->child && n->parent == r->parent) {
			const struct check_root *cr = find_root(st, r->child);

			/* linked, but its root item is gone: its tree would be taken for garbage */
			if (!cr && st)
				check_error(ctx, "root %llu: linked by root %llu as '%s' in dir %llu index %llu (ROOT_REF and ROOT_BACKREF), but it has no root item",
					    r->child, r->parent, r->name, r->dirid, r->seq);
			/* refs 0 without an orphan item: check_root_item_refs() reports and mends it */
			if (cr && !cr->refs &&
			    check_bsearch(&r->child, w.orphan, w.orphan_nr, sizeof(u64), check_cmp_u64))
				check_error(ctx, "root %llu: root item (%llu ROOT_ITEM %llu) has refs 0 (a deleted subvolume), but root %llu still links it as '%s' in dir %llu index %llu",
					    r->child, cr->key.objectid, cr->key.offset, r->parent, r->name,
					    r->dirid, r->seq);
			const struct rref *linked = r;

			if (n->dirid != r->dirid || n->seq != r->seq || n->name_len != r->name_len ||
			    memcmp(n->name, r->name, r->name_len)) {
				bool rok = dir_index_names(ctx, r), nok = dir_index_names(ctx, n);

				check_error(ctx, "root %llu: ROOT_REF and ROOT_BACKREF with root %llu differ (dir %llu/%llu index %llu/%llu name '%s'/'%s')",
					    r->child, r->parent, r->dirid, n->dirid, r->seq, n->seq, r->name, n->name);
				/* the one the parent's dir index confirms is right; same name: dir and index differ */
				if (rok != nok && n->name_len == r->name_len && !memcmp(n->name, r->name, r->name_len)) {
					const struct rref *bad = rok ? n : r;
					struct check_root_ref_link_fix f = {
						.key = bad->back ?
						       (struct btrfs_key){ bad->child, BTRFS_ROOT_BACKREF_KEY, bad->parent } :
						       (struct btrfs_key){ bad->parent, BTRFS_ROOT_REF_KEY, bad->child },
					};

					linked = rok ? r : n;
					f.dirid = linked->dirid;
					f.seq = linked->seq;
					check_fixable(ctx, check_fix_root_ref_link, &f, sizeof(f));
				}
			}
			r->matched = n->matched = true;
			check_dir_entry(ctx, linked);
			i++;
			continue;
		}
		check_error(ctx, "root %llu: %s with root %llu (name '%s') has no %s",
			    r->child, r->back ? "ROOT_BACKREF" : "ROOT_REF", r->parent, r->name,
			    r->back ? "ROOT_REF" : "ROOT_BACKREF");
		/* the parent's dir index confirms it: its partner is added, the same */
		if (check_repairing(ctx) && find_root(st, r->child) && dir_index_names(ctx, r)) {
			struct root_ref_add_fix f = { .key = r->back ?
				(struct btrfs_key){ r->parent, BTRFS_ROOT_REF_KEY, r->child } :
				(struct btrfs_key){ r->child, BTRFS_ROOT_BACKREF_KEY, r->parent },
				.dirid = r->dirid, .seq = r->seq, .name_len = r->name_len };

			memcpy(f.name, r->name, r->name_len);
			check_fixable(ctx, fix_root_ref_add, &f, sizeof(f));
			r->matched = true;
			check_dir_entry(ctx, r);
		}
	}
	/* every live subvolume is linked somewhere */
	for (i = 0; st && i < st->root_nr; i++) {
		const struct check_root *cr = &st->root[i];
		u64 id = cr->key.objectid;
		struct rref k = { .child = id };
		size_t lo = 0, hi = w.nr;

		size_t backrefs = 0;
		bool orphan;

		if (id != BTRFS_FS_TREE_OBJECTID &&
		    (id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID))
			continue;
		if (cr->drop_key.objectid || cr->drop_level)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (w.r[mid].child < k.child)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t b = lo; b < w.nr && w.r[b].child == id; b++)
			backrefs += w.r[b].back;
		orphan = check_bsearch(&id, w.orphan, w.orphan_nr, sizeof(u64), check_cmp_u64);
		check_root_item_refs(ctx, cr, backrefs, orphan);
		if (id == BTRFS_FS_TREE_OBJECTID)
			continue;
		if (lo >= w.nr || w.r[lo].child != id) {
			/* a deleted subvolume waiting for cleanup has refs 0 and an orphan item */
			if (cr->refs)
				check_error(ctx, "root %llu: subvolume with refs %u is not referenced by any ROOT_BACKREF",
					    id, cr->refs);
			else if (!orphan) {
				check_error(ctx, "root %llu: deleted subvolume (refs 0, no ROOT_BACKREF) has no orphan item (%llu ORPHAN_ITEM %llu) in the root tree",
					    id, (u64)BTRFS_ORPHAN_OBJECTID, id);
				check_fixable(ctx, fix_root_orphan_item, &id, sizeof(id));
			}
		}
	}
	free(w.r);
	free(w.orphan);
	return 0;
}

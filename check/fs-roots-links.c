// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (check/fs-roots.c), once a tree is read: the names still open
 * matched across inodes (every inode ref with its DIR_ITEM and DIR_INDEX in
 * the parent, every entry with its inode ref, the same name and index, a
 * file type matching the inode's mode), and the repairs of links: entries
 * or refs added where two witnesses prove a link, entries nothing proves
 * deleted, a ref's damaged name, directory or index, inode items recreated,
 * orphan items, lost+found for an inode whose names are all lost.
 */
#include <sys/stat.h>
#include <string.h>
#include "check/fs-roots-internal.h"

/* ---- matching names ------------------------------------------------------------- */

static int cmp_name(const struct fs_root_name *x, const struct fs_root_name *y, bool by_index)
{
#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	C(dir);
	C(ino);
	if (by_index) {
		C(index);
	} else {
		C(nhash);
	}
#undef C
	return 0;
}
static int cmp_by_hash(const void *a, const void *b) { return cmp_name(a, b, false); }
static int cmp_by_index(const void *a, const void *b) { return cmp_name(a, b, true); }

static int cmp_inode(const void *a, const void *b)
{
	const struct fs_root_inode *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The run holding ino (runs sorted), NULL if none. */
static const struct fs_root_run *find_run(const struct fs_root_tree *t, u64 ino)
{
	size_t lo = 0, hi = t->runs_nr;

	while (lo < hi) {   /* the first run starting after ino */
		size_t mid = lo + (hi - lo) / 2;

		if (t->runs[mid].ino <= ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ino - t->runs[lo - 1].ino >= t->runs[lo - 1].nr)
		return NULL;
	return &t->runs[lo - 1];
}

/* Inode ino as recorded, a copy (.ino 0: no such inode). */
static struct fs_root_inode inode_of(struct fs_root_tree *t, u64 ino)
{
	struct fs_root_inode k = { .ino = ino }, *in;
	const struct fs_root_run *run;

	in = check_bsearch(&k, t->inodes, t->inodes_nr, sizeof(k), cmp_inode);
	if (in)
		return *in;
	run = find_run(t, ino);
	if (!run)
		k.ino = 0;
	else
		k.mode = run->mode;
	return k;
}

/*
 * Inode ino's own record, to change its flags: made from its run when it has
 * none (the others move).  NULL: no such inode, or out of memory.
 */
static struct fs_root_inode *own_inode(struct fs_root_tree *t, u64 ino)
{
	struct fs_root_inode k = inode_of(t, ino), *in;
	size_t at;

	if (!k.ino)
		return NULL;
	in = check_bsearch(&k, t->inodes, t->inodes_nr, sizeof(k), cmp_inode);
	if (in)
		return in;
	if (ARRAY_GROW(t->inodes, t->inodes_nr, t->inodes_alloc))
		return NULL;
	for (at = t->inodes_nr; at > 0 && t->inodes[at - 1].ino > ino; at--)
		;
	memmove(&t->inodes[at + 1], &t->inodes[at], (t->inodes_nr - at) * sizeof(k));
	t->inodes_nr++;
	t->inodes[at] = k;
	return &t->inodes[at];
}

/* ---- repairs of names ----------------------------------------------------------- */

/* A directory we can add entries to or delete them from (its isize follows). */
static bool is_dir(struct fs_root_tree *t, u64 ino)
{
	return S_ISDIR(inode_of(t, ino).mode);
}

/* The fix argument for name f, as an entry of key_type and file type ftype (name not read). */
static void fix_arg(struct fs_root_tree *t, const struct fs_root_name *f, u8 key_type, u8 ftype,
		    struct repair_name *n)
{
	memset(n, 0, sizeof(*n));
	n->root = t->root;
	n->dir = f->dir;
	n->ino = f->ino;
	n->index = f->index;
	n->key_type = key_type;
	n->ftype = ftype;
	n->name_len = f->name_len;
}

/* The fix argument for entry e (of key_type), with its full name read from the tree. */
static bool entry_fix_arg(struct fs_root_tree *t, const struct fs_root_name *e, u8 key_type, struct repair_name *n)
{
	fix_arg(t, e, key_type, e->type, n);
	if (key_type == BTRFS_DIR_ITEM_KEY)
		n->index = 0;   /* e->index is the item's key offset, its name hash */
	return repair_read_entry_name(t->ctx->fs, t->tree, e->index, e->nhash, n) == 0;
}

/*
 * Name f (an entry of key_type, or an inode ref: BTRFS_INODE_REF_KEY) read
 * from the tree, for a message: n->name_len bytes of n->name ("%.*s"), none
 * when it cannot be read again.
 */
static struct repair_name *name_of(struct fs_root_tree *t, const struct fs_root_name *f, u8 key_type,
				   struct repair_name *n)
{
	bool ok;

	if (key_type == BTRFS_INODE_REF_KEY) {
		fix_arg(t, f, key_type, 0, n);
		ok = repair_read_ref_name(t->ctx->fs, t->tree, f->nhash, n) == 0;
	} else {
		ok = entry_fix_arg(t, f, key_type, n);
	}
	if (!ok)
		n->name_len = 0;
	return n;
}

/* The fix argument for the entry of key_type ref r misses, with the name read from the ref. */
static bool ref_fix_arg(struct fs_root_tree *t, const struct fs_root_name *r, u8 key_type, struct repair_name *n)
{
	struct fs_root_inode in = inode_of(t, r->ino);

	if (!in.ino)
		return false;
	fix_arg(t, r, key_type, btrfs_ftype_of_mode(in.mode), n);
	return repair_read_ref_name(t->ctx->fs, t->tree, r->nhash, n) == 0;
}

/* An entry that no inode ref and no twin entry proves: deleted. */
static void fix_stray_entry(struct fs_root_tree *t, const struct fs_root_name *e, u8 key_type)
{
	struct repair_name n;

	if (is_dir(t, e->dir) && entry_fix_arg(t, e, key_type, &n))
		check_fixable(t->ctx, repair_del_entry, &n, sizeof(n));
}

/*
 * A DIR_INDEX and DIR_ITEM of the same name and inode but no inode ref: the
 * ref is added (a directory only when it has no name at all: one link).
 */
static bool ref_addable(struct fs_root_tree *t, const struct fs_root_name *x)
{
	struct fs_root_inode in = inode_of(t, x->ino);

	return in.ino && is_dir(t, x->dir) && (!S_ISDIR(in.mode) || (in.linkless && !in.ref_added));
}

static void fix_missing_ref(struct fs_root_tree *t, const struct fs_root_name *x)
{
	struct fs_root_inode *in = own_inode(t, x->ino);
	struct repair_name n;

	if (!in || !entry_fix_arg(t, x, BTRFS_DIR_INDEX_KEY, &n))
		return;
	if (in->linkless) {
		/* its "link count wrong": nlink from 0, each ref added counts one */
		fs_root_fix_inode_field(t, in->ino, REPAIR_INODE_NLINK, 0);
		in->linkless = false;
	}
	in->ref_added = true;
	if (!check_fixable(t->ctx, repair_add_ref, &n, sizeof(n)))
		check_fixable(t->ctx, NULL, NULL, 0);   /* the DIR_ITEM's report */
}

/*
 * The ref r, neither of whose entries exists, takes the name, directory and
 * index of the DIR_INDEX x, when the DIR_ITEM of x's name confirms it: the
 * fix answers the ref's two reports and the entries' two.
 */
static void ref_takes_entries(struct fs_root_tree *t, struct fs_root_name *r, struct fs_root_name *x)
{
	struct fs_root_name *d = check_bsearch(x, t->items, t->items_nr, sizeof(*x), cmp_by_hash);
	struct repair_ref_rename f;

	if (!d || d->matched || d->name_len != x->name_len ||
	    !entry_fix_arg(t, x, BTRFS_DIR_INDEX_KEY, &f.to) ||
	    !ref_fix_arg(t, r, BTRFS_INODE_REF_KEY, &f.from))
		return;
	x->matched = d->matched = 1;
	r->missing = 0;
	check_fixable(t->ctx, repair_rename_ref, &f, sizeof(f));
	for (int i = 0; i < 3; i++)
		check_fixable(t->ctx, NULL, NULL, 0);
}

/*
 * A ref neither of whose entries exists, while the DIR_INDEX at its
 * directory and index points to its inode under another name, which the
 * DIR_ITEM confirms: two witnesses against one, the ref's name is the one
 * damaged and takes theirs (its two reports and the entries' two).
 */
static void fix_ref_name(struct fs_root_tree *t, struct fs_root_name *r)
{
	struct fs_root_name *x;

	if (r->missing != 3 || !is_dir(t, r->dir))
		return;
	x = check_bsearch(r, t->index, t->index_nr, sizeof(*r), cmp_by_index);
	if (!x || x->matched)
		return;
	ref_takes_entries(t, r, x);
}

/*
 * A ref neither of whose entries exists in its directory, while another
 * directory's DIR_INDEX and DIR_ITEM name its inode by its very name and
 * index and no ref of the inode answers them: the ref's directory (its key
 * offset) is the one damaged, and the ref moves there (its two reports and
 * the entries' two).
 */
static void fix_ref_dir(struct fs_root_tree *t, struct fs_root_name *r)
{
	struct fs_root_name *x = NULL;

	if (r->missing != 3)
		return;
	for (size_t i = 0; i < t->index_nr; i++) {
		struct fs_root_name *e = &t->index[i];

		if (e->matched || e->ino != r->ino || e->dir == r->dir || e->index != r->index ||
		    e->name_len != r->name_len || e->nhash != r->nhash || !is_dir(t, e->dir))
			continue;
		if (x)
			return;   /* two such directories: which one is not told */
		x = e;
	}
	if (!x)
		return;
	ref_takes_entries(t, r, x);
}

/*
 * After matching: a ref's damaged name or directory mended, then unmatched entries paired into proven links or deleted,
 * then the entries refs miss added, then the proven refs.  Deletions come
 * first so that an entry added may take the key of a wrong one.
 */
static void fix_names(struct fs_root_tree *t)
{
	size_t i;

	for (i = 0; i < t->refs_nr; i++) {
		fix_ref_name(t, &t->refs[i]);
		fix_ref_dir(t, &t->refs[i]);
	}
	for (i = 0; i < t->index_nr; i++) {
		struct fs_root_name *x = &t->index[i], *d;

		if (x->matched)
			continue;
		d = check_bsearch(x, t->items, t->items_nr, sizeof(*x), cmp_by_hash);
		if (d && !d->matched && d->name_len == x->name_len && ref_addable(t, x)) {
			x->matched = d->matched = 3;
			struct fs_root_inode *in = own_inode(t, x->ino);

			if (in && S_ISDIR(in->mode))
				in->ref_added = true;
		} else {
			fix_stray_entry(t, x, BTRFS_DIR_INDEX_KEY);
		}
	}
	for (i = 0; i < t->items_nr; i++)
		if (!t->items[i].matched)
			fix_stray_entry(t, &t->items[i], BTRFS_DIR_ITEM_KEY);
	for (i = 0; i < t->refs_nr; i++) {
		const struct fs_root_name *r = &t->refs[i];
		struct repair_name n;

		for (int k = 0; k < 2; k++) {
			u8 type = k ? BTRFS_DIR_INDEX_KEY : BTRFS_DIR_ITEM_KEY;

			if ((r->missing & (1 << k)) && is_dir(t, r->dir) && ref_fix_arg(t, r, type, &n))
				check_fixable(t->ctx, repair_add_entry, &n, sizeof(n));
		}
	}
	for (i = 0; i < t->inodes_nr; i++)
		t->inodes[i].ref_added = false;
	for (i = 0; i < t->index_nr; i++)
		if (t->index[i].matched == 3)
			fix_missing_ref(t, &t->index[i]);
}

/* Inode items recreated: mode from an entry naming the inode, sizes from its items. */
static void fix_missing_inodes(struct fs_root_tree *t)
{
	struct fs_root_name *lists[2] = { t->items, t->index };
	size_t nrs[2] = { t->items_nr, t->index_nr };

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < nrs[l]; i++) {
			struct fs_root_missing k = { .ino = lists[l][i].ino }, *m;

			m = check_bsearch(&k, t->missing, t->missing_nr, sizeof(k), check_cmp_u64);
			if (m && btrfs_mode_of_ftype(lists[l][i].type))
				m->ftype = lists[l][i].type;
		}
	for (size_t i = 0; i < t->missing_nr; i++) {
		const struct fs_root_missing *m = &t->missing[i];
		struct repair_new_inode n = { .root = t->root, .ino = m->ino, .nlink = m->names };

		n.mode = m->ftype ? btrfs_mode_of_ftype(m->ftype) : m->dir_size ? 040000 : 0100000;
		n.mode |= S_ISDIR(n.mode) ? 0755 : S_ISLNK(n.mode) ? 0777 : 0644;
		if (S_ISDIR(n.mode)) {
			if (m->names > 1)
				continue;   /* a directory has one name: which one is not ours to pick */
			n.size = m->dir_size;
		} else {
			n.size = m->inline_extent ? m->inline_size : m->extent_end;
			n.nbytes = m->found_nbytes;
		}
		check_fixable(t->ctx, repair_recreate_inode, &n, sizeof(n));
	}
}

/*
 * An inode whose items contradict its mode, named by an entry of file type
 * ftype: when the items fit ftype (entries under it: a directory; file
 * extents: a regular file or symlink), the mode takes that type, the
 * permissions kept (this entry's report, and the first time the items'
 * report too); else nothing is queued and the repair refuses.
 */
static void fix_odd_mode(struct fs_root_tree *t, struct fs_root_inode *in, u8 ftype)
{
	struct repair_set_inode f;

	if (!in)
		return;
	f = (struct repair_set_inode){ .root = t->root, .ino = in->ino, .field = REPAIR_INODE_MODE,
				       .value = (in->mode & 07777) | btrfs_mode_of_ftype(ftype) };
	if (in->items_ftype ? ftype != in->items_ftype :
	    ftype != BTRFS_FT_REG_FILE && ftype != BTRFS_FT_SYMLINK)
		return;
	if (in->mode_fixed) {
		check_fixable(t->ctx, NULL, NULL, 0);
		return;
	}
	in->mode_fixed = true;
	check_fixable(t->ctx, repair_set_inode_field, &f, sizeof(f));
	check_fixable(t->ctx, NULL, NULL, 0);
}

/*
 * The one dir index no ref matched yet that names ref r's inode in r's
 * directory by r's name, at another index: the ref's index is damaged.
 */
static struct fs_root_name *index_of_name(struct fs_root_name *ents, size_t nr, const struct fs_root_name *r)
{
	struct fs_root_name *found = NULL;

	for (size_t i = 0; i < nr; i++) {
		struct fs_root_name *e = &ents[i];

		if (e->matched || e->dir != r->dir || e->ino != r->ino || e->name_len != r->name_len ||
		    e->nhash != r->nhash || e->index == r->index)
			continue;
		if (found)
			return NULL;
		found = e;
	}
	return found;
}

/* Ref r's index set to that of the dir index e naming its inode by its name. */
static void fix_ref_index(struct fs_root_tree *t, const struct fs_root_name *r, struct fs_root_name *e)
{
	struct repair_ref_rename f;

	name_of(t, r, BTRFS_INODE_REF_KEY, &f.from);
	check_error(t->ctx, "root %llu: inode %llu ref '%.*s' in dir %llu has index %llu; the dir index naming it is %llu",
		    t->root, r->ino, (int)f.from.name_len, f.from.name, r->dir, r->index, e->index);
	f.to = f.from;
	f.to.index = e->index;
	e->matched = 1;
	if (f.from.name_len)
		check_fixable(t->ctx, repair_rename_ref, &f, sizeof(f));
	else
		check_fixable(t->ctx, NULL, NULL, 0);   /* the name could not be read again */
}

/* Each ref against the entries of one kind (sorted by cmp), then the unmatched entries. */
static void match_kind(struct fs_root_tree *t, struct fs_root_name *ents, size_t nr, bool by_index,
		       const char *what)
{
	u8 key_type = by_index ? BTRFS_DIR_INDEX_KEY : BTRFS_DIR_ITEM_KEY;
	size_t i;

	check_sort(ents, nr, sizeof(*ents), by_index ? cmp_by_index : cmp_by_hash);
	check_sort(t->refs, t->refs_nr, sizeof(*t->refs), by_index ? cmp_by_index : cmp_by_hash);
	for (i = 0; i < t->refs_nr; i++) {
		struct fs_root_name *r = &t->refs[i];
		struct fs_root_name *e = check_bsearch(r, ents, nr, sizeof(*ents), by_index ? cmp_by_index : cmp_by_hash);
		struct fs_root_inode in;
		struct repair_name n;

		if (fs_root_is_orphan(t, r->dir) || fs_root_is_orphan(t, r->ino)) {
			if (e)
				e->matched = 1;
			continue;
		}
		if ((!e || e->name_len != r->name_len || e->nhash != r->nhash) && by_index &&
		    (e = index_of_name(ents, nr, r)) != NULL) {
			fix_ref_index(t, r, e);
			continue;
		}
		if (!e || e->name_len != r->name_len || e->nhash != r->nhash) {
			name_of(t, r, BTRFS_INODE_REF_KEY, &n);
			check_error(t->ctx, "root %llu: unresolved ref dir %llu index %llu namelen %u name %.*s: inode %llu has the name but the directory has no %s for it",
				    t->root, r->dir, r->index, r->name_len, (int)n.name_len, n.name, r->ino, what);
			r->missing |= by_index ? 2 : 1;
			continue;
		}
		e->matched = 1;
		if (by_index && e->index != r->index) {
			name_of(t, r, BTRFS_INODE_REF_KEY, &n);
			check_error(t->ctx, "root %llu: dir %llu entry '%.*s' for inode %llu: index %llu, inode ref says %llu",
				    t->root, r->dir, (int)n.name_len, n.name, r->ino, e->index, r->index);
		}
		in = inode_of(t, r->ino);
		if (in.ino && btrfs_ftype_of_mode(in.mode) != e->type) {
			name_of(t, r, BTRFS_INODE_REF_KEY, &n);
			check_error(t->ctx, "root %llu: dir %llu %s '%.*s' for inode %llu has file type %u, the inode's mode 0%o means %u",
				    t->root, r->dir, what, (int)n.name_len, n.name, r->ino, e->type, in.mode,
				    btrfs_ftype_of_mode(in.mode));
			if (in.mode_odd) {
				fix_odd_mode(t, own_inode(t, r->ino), e->type);
			} else if (entry_fix_arg(t, e, key_type, &n)) {
				n.ftype = btrfs_ftype_of_mode(in.mode);
				check_fixable(t->ctx, repair_set_entry_type, &n, sizeof(n));
			}
		}
	}
	for (i = 0; i < nr; i++) {
		struct repair_name n;

		if (ents[i].matched)
			continue;
		if (fs_root_is_orphan(t, ents[i].dir) || fs_root_is_orphan(t, ents[i].ino)) {
			ents[i].matched = 1;
			continue;
		}
		name_of(t, &ents[i], key_type, &n);
		check_error(t->ctx, "root %llu: dir %llu %s '%.*s' (index %llu) points to inode %llu, which has no inode ref for it%s",
			    t->root, ents[i].dir, what, (int)n.name_len, n.name, n.index, ents[i].ino,
			    inode_of(t, ents[i].ino).ino ? "" : " (no such inode)");
	}
}

void fs_root_check_names(struct fs_root_tree *t)
{
	size_t i, o = 0;

	check_sort(t->inodes, t->inodes_nr, sizeof(*t->inodes), cmp_inode);
	check_sort(t->runs, t->runs_nr, sizeof(*t->runs), check_cmp_u64);
	fix_missing_inodes(t);
	match_kind(t, t->items, t->items_nr, false, "dir item");
	match_kind(t, t->index, t->index_nr, true, "dir index");
	fix_names(t);
	for (i = 0; i < t->inodes_nr; i++) {
		/* names nothing proves: lost+found gives it one */
		struct repair_lost_inode lost = { .root = t->root, .ino = t->inodes[i].ino,
					 .ftype = btrfs_ftype_of_mode(t->inodes[i].mode) };

		if (t->inodes[i].linkless)
			check_fixable(t->ctx, repair_link_lost_found, &lost, sizeof(lost));
	}
	for (i = 0; i < t->unlinked_nr; i++) {
		struct repair_orphan orphan = { .root = t->root, .ino = t->unlinked[i] };

		while (o < t->orphans_nr && t->orphans[o] < t->unlinked[i])
			o++;
		if (o < t->orphans_nr && t->orphans[o] == t->unlinked[i])
			continue;
		INODE_ERR(t, t->unlinked[i], "nlink 0 and no names, but no orphan item");
		if (inode_of(t, t->unlinked[i]).ref_added)
			check_fixable(t->ctx, NULL, NULL, 0);   /* it gets a name */
		else
			check_fixable(t->ctx, repair_add_orphan, &orphan, sizeof(orphan));
	}
}

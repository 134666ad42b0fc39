// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (check/fs-roots.c), the records a tree's walk keeps: each name
 * read (inode ref, DIR_ITEM, DIR_INDEX) and the tables that find a DIR_ITEM
 * or DIR_INDEX by key while reading; the names of an inode settled as soon
 * as its last item is seen, so that only the others wait for
 * fs-roots-links.c; the orphan items; the fix of one inode field.
 */
#include <stdlib.h>
#include <string.h>
#include "check/fs-roots-internal.h"
#include "kernel-shared/read/tree-checker.h"

static size_t slot_of(const struct fs_root_slots *s, u64 dir, u64 koff)
{
	return (size_t)(((dir * 0x9E3779B97F4A7C15ULL) ^ koff) * 0xFF51AFD7ED558CCDULL >> 32) & (s->cap - 1);
}

static void slots_put(struct fs_root_slots *s, const struct fs_root_name *ents, size_t i)
{
	size_t at = slot_of(s, ents[i].dir, ents[i].index);

	while (s->pos[at])
		at = (at + 1) & (s->cap - 1);
	s->pos[at] = (u32)(i + 1);
}

/*
 * Index all of ents[0..nr) anew, in a table of at least four slots per
 * entry; when it cannot be had (or nr does not fit), none: bisection.
 */
static void slots_rebuild(struct fs_root_slots *s, const struct fs_root_name *ents, size_t nr)
{
	size_t cap = 1024, i;

	while (cap < 4 * nr)
		cap *= 2;
	if (cap != s->cap) {
		free(s->pos);
		s->pos = nr < UINT32_MAX / 4 ? malloc(cap * sizeof(*s->pos)) : NULL;
		s->cap = s->pos ? cap : 0;
	}
	if (!s->cap)
		return;
	memset(s->pos, 0, s->cap * sizeof(*s->pos));
	for (i = 0; i < nr; i++)
		slots_put(s, ents, i);
}

void fs_root_slots_free(struct fs_root_slots *s)
{
	free(s->pos);
	s->pos = NULL;
	s->cap = 0;
}

/* ents[nr - 1] was just added. */
static void slots_add(struct fs_root_slots *s, const struct fs_root_name *ents, size_t nr)
{
	if (2 * nr > s->cap)
		slots_rebuild(s, ents, nr);
	else
		slots_put(s, ents, nr - 1);
}

int fs_root_add_name(struct fs_root_tree *t, int kind, u64 dir, u64 ino, u64 index,
		    const u8 *name, u32 len, u8 type)
{
	struct fs_root_name *n = kind == 'R' ? CHECK_PUSH(t, refs) : kind == 'D' ? CHECK_PUSH(t, items) :
			    CHECK_PUSH(t, index);

	if (!n)
		return -ENOMEM;
	n->dir = dir;
	n->ino = ino;
	n->index = index;
	n->nhash = check_name_hash64(name, len);
	n->name_len = (u16)len;
	n->type = type;
	n->matched = 0;
	n->missing = 0;
	if (kind == 'D')
		slots_add(&t->items_at, t->items, t->items_nr);
	else if (kind == 'X')
		slots_add(&t->index_at, t->index, t->index_nr);
	return 0;
}

/* Has ino an orphan item (deletion or truncation in progress)? */
bool fs_root_is_orphan(const struct fs_root_tree *t, u64 ino)
{
	return check_bsearch(&ino, t->orphans, t->orphans_nr, sizeof(u64), check_cmp_u64) != NULL;
}

void fs_root_fix_inode_field(struct fs_root_tree *t, u64 ino, enum repair_inode_field field, u64 value)
{
	struct repair_set_inode f = { .root = t->root, .ino = ino, .field = field, .value = value };

	check_fixable(t->ctx, repair_set_inode_field, &f, sizeof(f));
}

/* ---- names matched while reading ------------------------------------------ */

/*
 * Most names are consistent, and a directory's entries (keyed by the
 * directory) usually come before its children's inode refs: each ref is
 * looked up at once among the entries read so far, and when its DIR_ITEM and
 * DIR_INDEX agree with it and with the inode's mode, the three records are
 * dropped.  Only the others are kept for fs_root_check_names(), which treats
 * them as before, so memory follows the names pending, not all names.
 */

/* Entries as read: DIR_ITEMs by (dir, key offset), DIR_INDEXes by (dir, index), the tree's order. */
static int cmp_by_key(const void *a, const void *b)
{
	const struct fs_root_name *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool entry_names(const struct fs_root_name *e, u64 ino, u64 nhash, u16 len)
{
	return e->ino == ino && e->nhash == nhash && e->name_len == len && !e->matched;
}

/*
 * The entry at (dir, koff) in ents (in the tree's order, indexed by s)
 * naming ino with the name of hash nhash: the first in the list's order.
 */
static size_t find_entry(const struct fs_root_slots *s, const struct fs_root_name *ents, size_t nr,
			 u64 dir, u64 koff, u64 ino, u64 nhash, u16 len)
{
	struct fs_root_name k = { .dir = dir, .index = koff };
	const struct fs_root_name *e;
	size_t i;

	if (s->cap) {
		for (i = slot_of(s, dir, koff); s->pos[i]; i = (i + 1) & (s->cap - 1)) {
			e = &ents[s->pos[i] - 1];
			if (e->dir == dir && e->index == koff && entry_names(e, ino, nhash, len))
				return s->pos[i] - 1;
		}
		return NO_ENTRY;
	}
	e = check_bsearch(&k, ents, nr, sizeof(k), cmp_by_key);
	if (!e)
		return NO_ENTRY;
	i = (size_t)(e - ents);
	while (i > 0 && !cmp_by_key(&ents[i - 1], &k))
		i--;
	for (; i < nr && !cmp_by_key(&ents[i], &k); i++)
		if (entry_names(&ents[i], ino, nhash, len))
			return i;
	return NO_ENTRY;
}

/* Ref r (just added, name bytes at name) of the inode being read: its entries read so far. */
int fs_root_note_cand(struct fs_root_tree *t, const struct fs_root_name *r, const u8 *name)
{
	struct fs_root_cand *c = CHECK_PUSH(t, cands);

	if (!c)
		return -ENOMEM;
	c->ref = (size_t)(r - t->refs);
	c->item = find_entry(&t->items_at, t->items, t->items_nr, r->dir,
			     btrfs_name_hash((const char *)name, r->name_len), r->ino, r->nhash, r->name_len);
	c->index = find_entry(&t->index_at, t->index, t->index_nr, r->dir, r->index, r->ino, r->nhash,
			      r->name_len);
	return 0;
}

/* Drop the records marked NAME_SETTLED from ents[from..], keeping the order. */
static size_t drop_settled(struct fs_root_name *ents, size_t from, size_t nr)
{
	size_t i, o = from;

	for (i = from; i < nr; i++)
		if (ents[i].matched != NAME_SETTLED)
			ents[o++] = ents[i];
	return o;
}

/*
 * Drop the settled entries when they are at least half of a large array (or
 * all: at the end of the tree), so that dropping costs O(1) per entry.
 */
void fs_root_drop_settled_entries(struct fs_root_tree *t, bool all)
{
	if (t->items_settled && (all || (t->items_settled >= 4096 && 2 * t->items_settled >= t->items_nr))) {
		t->items_nr = drop_settled(t->items, 0, t->items_nr);
		t->items_settled = 0;
		if (!all)
			slots_rebuild(&t->items_at, t->items, t->items_nr);
	}
	if (t->index_settled && (all || (t->index_settled >= 4096 && 2 * t->index_settled >= t->index_nr))) {
		t->index_nr = drop_settled(t->index, 0, t->index_nr);
		t->index_settled = 0;
		if (!all)
			slots_rebuild(&t->index_at, t->index, t->index_nr);
	}
}

/*
 * The inode being read is done: each of its refs whose DIR_ITEM and
 * DIR_INDEX were found, both of the file type its mode says, settles the
 * three (what fs_root_check_names() would find of them: matched, nothing to
 * say).  Kept as they are: refs of an inode without inode item or with an
 * orphan item on either side, and a name the inode has twice in a directory.
 */
void fs_root_settle_names(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;
	u8 ftype = btrfs_ftype_of_mode(c->mode);
	size_t i, j;

	if (!c->ino || !c->have_item || fs_root_is_orphan(t, c->ino))
		goto out;
	for (i = 0; i < t->cands_nr; i++) {
		const struct fs_root_cand *k = &t->cands[i];
		struct fs_root_name *r = &t->refs[k->ref], *d, *x;

		if (k->item == NO_ENTRY || k->index == NO_ENTRY || fs_root_is_orphan(t, r->dir))
			continue;
		d = &t->items[k->item];
		x = &t->index[k->index];
		if (d->type != ftype || x->type != ftype || d->matched || x->matched)
			continue;
		for (j = 0; j < t->cands_nr; j++)
			if (j != i && t->refs[t->cands[j].ref].dir == r->dir &&
			    t->refs[t->cands[j].ref].nhash == r->nhash)
				break;
		if (j < t->cands_nr)
			continue;
		r->matched = d->matched = x->matched = NAME_SETTLED;
		t->items_settled++;
		t->index_settled++;
	}
	t->refs_nr = drop_settled(t->refs, c->refs_from, t->refs_nr);
	fs_root_drop_settled_entries(t, false);
out:
	t->cands_nr = 0;
}

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
 * (settle_names(); in a tree where directories come before their children,
 * as mkfs and most kernel workloads make them, that is one directory's
 * worth), an inode's own record only when something about it is odd, else a
 * 16-byte run of consecutive inodes of one mode.  Freed when the tree is done.
 *
 * With --repair each problem found that can be mended queues its fix
 * (check/repair-fs-roots.c): nlink, isize, nbytes set to what the items
 * account; a lost inode item recreated from its names and extents; hole
 * extents; an entry or inode ref added where the other two of (inode ref,
 * DIR_ITEM, DIR_INDEX) prove the link, an entry nothing proves deleted; an
 * entry's file type; an orphan item for an unlinked inode; an inode with
 * links but no name proven linked into lost+found.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "check/context.h"
#include "check/check-extra.h"
#include "check/extent-records.h"
#include "check/file-extent-codes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/messages.h"
#include "check/repair-fs-roots.h"
#include "check/csum-tree.h"
#include "check/fs-roots.h"
#include "check/passes.h"

/*
 * A name, from either side: an inode ref (kind R), DIR_ITEM (D) or DIR_INDEX
 * (X).  One per name and side, so kept small (40 bytes): the name itself is
 * read again from the tree for a message or a fix (name_of(), entry_fix_arg()).
 */
struct fs_root_name {
	u64 dir;
	u64 ino;
	u64 index;       /* R and X: the index; D: the key offset (name hash), to find the item again */
	u64 nhash;       /* 64-bit hash of the name bytes, for matching */
	u16 name_len;
	u8 type;         /* D and X: BTRFS_FT_*; R: 0 */
	u8 matched;      /* 1 matched or not ours, 2 matched while reading (NAME_SETTLED), 3 its link proven by a twin */
	u8 missing;      /* R: bit 0 no dir item, bit 1 no dir index for it */
};

/* matched: a ref whose DIR_ITEM and DIR_INDEX were found while reading; all three are dropped */
#define NAME_SETTLED 2

/* An inode ref of the inode being read, and its entries found so far (positions, NO_ENTRY: none). */
#define NO_ENTRY ((size_t)-1)
struct fs_root_cand {
	size_t ref, item, index;
};

struct fs_root_inode {
	u64 ino;
	u32 mode;
	bool linkless;          /* nlink > 0 but no names: its nlink fix is owed */
	bool ref_added;         /* a repair gives it an inode ref */
	u8 items_ftype;         /* its items contradict its mode: BTRFS_FT_DIR (entries), else 0 */
	bool mode_odd;          /* so (a non-directory with entries, a directory with file extents) */
	bool mode_fixed;        /* a mode fix is queued */
};

/*
 * Inodes with nothing odd found (the most) are kept as runs: consecutive
 * inode numbers of the same mode, 16 bytes a run.  The others have their own
 * struct fs_root_inode, as does one of a run a repair marks (own_inode()).
 */
struct fs_root_run {
	u64 ino;
	u32 nr;
	u32 mode;
};

/* An inode with names but no inode item: what its items say, to recreate it. */
struct fs_root_missing {
	u64 ino;
	u32 names;
	u64 dir_size, found_nbytes, extent_end, inline_size;
	bool inline_extent;
	u8 ftype;               /* from a directory entry naming it, 0 none */
};

struct fs_root_cursor {                 /* the inode being read */
	u64 ino;
	bool have_item;
	u32 mode, nlink;
	u64 size, nbytes, flags, generation, transid;
	u32 names;              /* from INODE_REF / INODE_EXTREF */
	size_t refs_from;       /* its refs: refs[refs_from..] */
	u64 dir_size;           /* sum of DIR_ITEM and DIR_INDEX name lengths */
	u64 found_nbytes;
	u64 extent_end;         /* end of the last file extent (file offset) */
	bool have_extent;
	bool inline_extent;
	u64 inline_size;
	u32 hole_reports;
	u32 csum_missing;       /* regular extents with sectors the csum tree lacks */
	u64 miss_offset;        /* the first one: its file offset, disk range, first sector missing */
	u64 miss_disk, miss_disk_end, miss_at;
	u32 odd_csums;          /* extents with checksums they should not have */
	bool odd_prealloc;      /* the first one: prealloc (else in a NODATASUM inode) */
	u64 odd_offset, odd_disk, odd_disk_end, odd_bytes;
	/*
	 * Disk extents whose end is not where the next extent (or the size,
	 * rounded up) starts: with nbytes off by that very gap, the extent's
	 * num_bytes is the damaged field, not nbytes (len_fix()).
	 */
	struct fs_root_gap {
		u64 start, len, max_len; /* the extent; its largest num_bytes (ram_bytes - offset) */
		s64 gap;                 /* to the next start */
		bool reg;
	} gaps[4], last;
	u32 gaps_nr;             /* may exceed the array: then none is taken */
	u32 nosum_extents;       /* NODATASUM inode: its regular disk extents */
	u32 nosum_summed;        /* of them, those with checksums over all their bytes */
	bool have_last;          /* last: the latest disk extent, its gap not known yet */
};

/*
 * Where the entries of a list (items or index) are, by key (dir, key
 * offset): an open-addressing table of positions + 1 (0: empty slot), at
 * most half full.  Linear probing without deletions meets entries of equal
 * keys in the order they were added, the list's order.  Rebuilt when the
 * list is compacted (drop_settled_entries()); cap 0 (not allocated): the
 * list is searched by bisection instead.
 */
struct fs_root_slots {
	u32 *pos;
	size_t cap;
};

/*
 * The csum tree's coverage, read once for all subvolumes when first needed.
 * Pass 5's workers (check/pass-thread.c) share it: the first to need it
 * reads it under the lock, its read path's messages kept in msgs (printed
 * by the caller before the output of the first subvolume that needed it).
 */
struct fs_root_csums {
	int state;              /* 0 not read yet, 1 read, < 0 no csum tree or unreadable */
	struct check_range *span;
	size_t span_nr;
	bool shared;            /* read by several workers: lock, and msgs */
	pthread_mutex_t lock;
	char *msgs;
	size_t msgs_len;
};

struct fs_root_tree {
	struct check_ctx *ctx;
	const struct btrfs_tree_ref *tree;
	u64 root;
	u32 sectorsize;
	bool no_holes;
	bool inode_cache;       /* its deprecated inode cache was reported */
	int csums_state;        /* csums->state as this tree last saw it (0: not yet asked) */
	u64 super_gen;
	struct fs_root_cursor cur;
	struct fs_root_csums *csums;
	CHECK_ARRAY(struct fs_root_name, refs);
	CHECK_ARRAY(struct fs_root_name, items);
	CHECK_ARRAY(struct fs_root_name, index);
	struct fs_root_slots items_at, index_at;     /* while reading: items and index by key */
	CHECK_ARRAY(struct fs_root_inode, inodes);     /* sorted by check_tree_names() */
	CHECK_ARRAY(struct fs_root_run, runs);
	CHECK_ARRAY(u64, unlinked);     /* nlink 0, need an orphan item */
	CHECK_ARRAY(u64, orphans);
	CHECK_ARRAY(struct check_range, holes);      /* of the inode being read */
	CHECK_ARRAY(struct fs_root_missing, missing);
	CHECK_ARRAY(struct fs_root_cand, cands);     /* of the inode being read */
	size_t items_settled, index_settled;         /* records marked NAME_SETTLED, not yet dropped */
};

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

static void slots_free(struct fs_root_slots *s)
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

static int add_name(struct fs_root_tree *t, int kind, u64 dir, u64 ino, u64 index,
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

#define INODE_ERR(t, ino, fmt, ...) \
	check_error((t)->ctx, "root %llu inode %llu: " fmt, (t)->root, (unsigned long long)(ino), ##__VA_ARGS__)

/* ---- one inode, when its items are all seen -------------------------------- */

/*
 * A range of the file no extent covers (without NO_HOLES), the last one up
 * to isize (else isize 0): recorded for the repair, the first four reported.
 */
static void add_hole(struct fs_root_tree *t, u64 start, u64 end, u64 isize)
{
	struct check_range *h = CHECK_PUSH(t, holes);

	if (t->cur.hole_reports++ < 4) {
		if (isize)
			INODE_ERR(t, t->cur.ino, "file extent discount: hole [%llu %llu) up to isize %llu without a hole extent",
				  start, end, isize);
		else
			INODE_ERR(t, t->cur.ino, "file extent discount: hole [%llu %llu) without a hole extent",
				  start, end);
	}
	if (h) {
		h->start = start;
		h->end = end;
	}
}

/* Has ino an orphan item (deletion or truncation in progress)? */
static bool is_orphan(const struct fs_root_tree *t, u64 ino)
{
	return check_bsearch(&ino, t->orphans, t->orphans_nr, sizeof(u64), check_cmp_u64) != NULL;
}

/* The latest disk extent's gap, now that the next extent (or the end) starts at next. */
static void end_gap(struct fs_root_cursor *c, u64 next)
{
	s64 gap;

	if (!c->have_last)
		return;
	c->have_last = false;
	gap = (s64)(next - (c->last.start + c->last.len));
	if (!gap)
		return;
	c->last.gap = gap;
	if (c->gaps_nr < ARRAY_SIZE(c->gaps))
		c->gaps[c->gaps_nr] = c->last;
	c->gaps_nr++;
}

/*
 * nbytes off by diff from what the file extents account: the one disk
 * extent whose num_bytes, moved by diff, ends exactly where the next
 * extent starts (the last: at the size rounded up; only shrinking, and
 * only a regular extent, as a preallocated one may reach past the size),
 * within its ram_bytes and aligned.  NULL when none or more than one.
 */
static const struct fs_root_gap *len_fix(const struct fs_root_cursor *c, s64 diff, u32 sectorsize)
{
	const struct fs_root_gap *fix = NULL;

	if (c->gaps_nr > ARRAY_SIZE(c->gaps))
		return NULL;
	for (u32 i = 0; i < c->gaps_nr; i++) {
		const struct fs_root_gap *g = &c->gaps[i];
		u64 want = g->len + (u64)diff;

		if (g->gap != diff || !want || want > g->max_len || want % sectorsize ||
		    (i + 1 == c->gaps_nr && g->gap < 0 && !g->reg))
			continue;
		if (fix)
			return NULL;
		fix = g;
	}
	return fix;
}

/*
 * The num_bytes of a regular or preallocated extent at start whose own is
 * 0 or reaches past its data: it reaches where the next extent starts, else
 * to the size rounded up;
 * an extent of data not past its data (ram_bytes less offset: with NO_HOLES
 * a hole may follow, without, nothing is told).  0 when not told.
 */
/* Where the file's layout says the extent at start ends: the next extent, else the size rounded up; 0 unknown. */
static u64 layout_end(struct fs_root_tree *t, u64 start)
{
	const struct fs_root_cursor *c = &t->cur;
	struct btrfs_key want = { c->ino, BTRFS_EXTENT_DATA_KEY, start + 1 }, k;
	struct btrfs_path path;
	u64 end = 0;

	btrfs_init_path(&path);
	if (btrfs_search_key(t->ctx->fs, t->tree, &want, BTRFS_SEARCH_NEXT, &path, &k) == 0 &&
	    k.objectid == c->ino && k.type == BTRFS_EXTENT_DATA_KEY)
		end = k.offset;
	btrfs_release_path(&path);
	if (!end && c->have_item)
		end = round_up(c->size, (u64)t->sectorsize);
	return end > start && IS_ALIGNED(end, (u64)t->sectorsize) ? end : 0;
}

static u64 num_bytes_told(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi, u64 start)
{
	u64 end = layout_end(t, start), len, avail;

	if (!end)
		return 0;
	len = end - start;
	if (btrfs_file_extent_disk_bytenr(fi)) {
		if (btrfs_file_extent_offset(fi) >= btrfs_file_extent_ram_bytes(fi))
			return 0;
		avail = btrfs_file_extent_ram_bytes(fi) - btrfs_file_extent_offset(fi);
		if (len > avail && !t->no_holes)
			return 0;
		len = min_t(u64, len, avail);
	}
	return IS_ALIGNED(len, (u64)t->sectorsize) ? len : 0;
}

static void fix_inode_field(struct fs_root_tree *t, u64 ino, enum repair_inode_field field, u64 value)
{
	struct repair_set_inode f = { .root = t->root, .ino = ino, .field = field, .value = value };

	check_fixable(t->ctx, repair_set_inode_field, &f, sizeof(f));
}

/* One fix inserts every hole of the inode; the other hole reports it answers too. */
static void fix_holes(struct fs_root_tree *t, u64 ino)
{
	size_t size = sizeof(struct repair_holes) + t->holes_nr * sizeof(struct check_range);
	struct repair_holes *h = malloc(size);
	u32 reported = t->cur.hole_reports < 4 ? t->cur.hole_reports : 4;

	if (!h)
		return;
	h->root = t->root;
	h->ino = ino;
	h->nr = (u32)t->holes_nr;
	memcpy(h->hole, t->holes, t->holes_nr * sizeof(struct check_range));
	if (!check_fixable(t->ctx, repair_insert_holes, h, size))
		while (--reported)
			check_fixable(t->ctx, NULL, NULL, 0);
	free(h);
}

/* No inode item: remember what its items say; the fix is queued once its names are matched. */
static void note_missing(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;
	struct fs_root_missing *m;

	if (!c->names || t->holes_nr)
		return;
	m = CHECK_PUSH(t, missing);
	if (!m)
		return;
	m->ino = c->ino;
	m->names = c->names;
	m->dir_size = c->dir_size;
	m->found_nbytes = c->found_nbytes;
	m->extent_end = c->extent_end;
	m->inline_size = c->inline_size;
	m->inline_extent = c->inline_extent;
}

/* Data with checksums lacks some: --init-csum-tree mends it, plain --repair does not. */
static void report_csum_missing(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;

	INODE_ERR(t, c->ino, "file extent at %llu, disk [%llu %llu): the sector at %llu has no checksum%s (some csum missing)",
		  c->miss_offset, c->miss_disk, c->miss_disk_end, c->miss_at,
		  c->csum_missing > 1 ? ", nor have sectors of other extents" : "");
}

/* Checksums over data that has none (odd csum item): mended by --init-csum-tree only. */
static void report_odd_csums(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;

	INODE_ERR(t, c->ino, "%sfile extent (%llu EXTENT_DATA %llu), disk [%llu %llu): %s, yet the csum tree has checksums for %llu bytes of it%s (odd csum item)",
		  c->odd_prealloc ? "prealloc " : "", c->ino, c->odd_offset, c->odd_disk, c->odd_disk_end,
		  c->odd_prealloc ? "no regular file extent refers to its extent" : "the inode is NODATASUM",
		  c->odd_bytes, c->odd_csums > 1 ? ", and of other extents" : "");
}

/* ---- names matched while reading ------------------------------------------ */

/*
 * Most names are consistent, and a directory's entries (keyed by the
 * directory) usually come before its children's inode refs: each ref is
 * looked up at once among the entries read so far, and when its DIR_ITEM and
 * DIR_INDEX agree with it and with the inode's mode, the three records are
 * dropped.  Only the others are kept for check_tree_names(), which treats
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
static int note_cand(struct fs_root_tree *t, const struct fs_root_name *r, const u8 *name)
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
static void drop_settled_entries(struct fs_root_tree *t, bool all)
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
 * three (what check_tree_names() would find of them: matched, nothing to
 * say).  Kept as they are: refs of an inode without inode item or with an
 * orphan item on either side, and a name the inode has twice in a directory.
 */
static void settle_names(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;
	u8 ftype = btrfs_ftype_of_mode(c->mode);
	size_t i, j;

	if (!c->ino || !c->have_item || is_orphan(t, c->ino))
		goto out;
	for (i = 0; i < t->cands_nr; i++) {
		const struct fs_root_cand *k = &t->cands[i];
		struct fs_root_name *r = &t->refs[k->ref], *d, *x;

		if (k->item == NO_ENTRY || k->index == NO_ENTRY || is_orphan(t, r->dir))
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
	drop_settled_entries(t, false);
out:
	t->cands_nr = 0;
}

static void finish_inode(struct fs_root_tree *t)
{
	struct fs_root_cursor *c = &t->cur;
	u64 ino = c->ino;
	bool linkless = false;
	/* the inode's own items against its mode's type (entries' file types decide, see match_kind) */
	bool odd_entries = !S_ISDIR(c->mode) && c->dir_size, odd_extents = S_ISDIR(c->mode) && c->have_extent;

	if (!ino)
		return;
	settle_names(t);
	if (ino < BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		goto out;   /* orphan items, free-ino cache: not inodes */
	if (!c->have_item) {
		INODE_ERR(t, ino, "no inode item, but %u names and other items (errors: no inode item%s)",
			  c->names, c->names ? ", link count wrong" : "");
		note_missing(t);
		goto out;
	}
	/* an inode being deleted or truncated: its sizes and names are in flux */
	if (is_orphan(t, ino))
		goto keep;
	if (c->nlink == 0 && c->names == 0) {
		u64 *u = CHECK_PUSH(t, unlinked);   /* needs an orphan item (check_tree_names) */

		if (u)
			*u = ino;
	} else if (c->nlink != c->names) {
		INODE_ERR(t, ino, "nlink %u, %u names found (link count wrong)", c->nlink, c->names);
		if (c->names)
			fix_inode_field(t, ino, REPAIR_INODE_NLINK, c->names);
		else
			linkless = true;   /* mended only if a name is proven (check_tree_names) */
	}
	if (c->generation > t->super_gen || c->transid > t->super_gen) {
		/* no commit after the superblock's: the last one is the latest either can be */
		u64 transid = min_t(u64, c->transid, t->super_gen);

		INODE_ERR(t, ino, "generation %llu transid %llu beyond the superblock's %llu",
			  c->generation, c->transid, t->super_gen);
		if (c->transid > t->super_gen)
			fix_inode_field(t, ino, REPAIR_INODE_TRANSID, transid);
		if (c->generation > transid)
			fix_inode_field(t, ino, REPAIR_INODE_GENERATION, transid);
	}
	if (c->flags & ~((u64)BTRFS_INODE_FLAG_MASK | ((u64)BTRFS_INODE_RO_FLAG_MASK << 32)))
		INODE_ERR(t, ino, "unknown flags 0x%llx (odd inode flags)", c->flags);
	if (S_ISLNK(c->mode) && (c->flags & (BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND)))
		INODE_ERR(t, ino, "symlink with flags 0x%llx: IMMUTABLE and APPEND do not apply (odd inode flags)",
			  c->flags);
	if (odd_entries)
		INODE_ERR(t, ino, "mode 0%o, yet it has directory entries (odd dir item)", c->mode);
	if (S_ISDIR(c->mode) && !odd_extents) {
		if (c->dir_size != c->size) {
			INODE_ERR(t, ino, "directory isize %llu, its entries' names sum to %llu (dir isize wrong)",
				  c->size, c->dir_size);
			fix_inode_field(t, ino, REPAIR_INODE_SIZE, c->dir_size);
		}
	}
	if (odd_extents)
		INODE_ERR(t, ino, "directory has file extent items");
	if ((S_ISREG(c->mode) || S_ISLNK(c->mode)) && !odd_entries) {
		u64 end = (c->size + t->sectorsize - 1) / t->sectorsize * t->sectorsize;

		if (!t->no_holes && c->extent_end < end)
			add_hole(t, c->extent_end, end, c->size);
		if (t->holes_nr)
			fix_holes(t, ino);
		const struct fs_root_gap *g;

		end_gap(c, end);
		g = c->nbytes != c->found_nbytes ?
		    len_fix(c, (s64)(c->nbytes - c->found_nbytes), t->sectorsize) : NULL;
		if (g) {
			struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = g->start,
							.field = REPAIR_FILE_EXTENT_NUM_BYTES,
							.value = g->len + (c->nbytes - c->found_nbytes) };

			INODE_ERR(t, ino, "nbytes %llu, its file extents account %llu: the file extent at %llu %s %llu bytes %s where the next extent or the rounded size starts (file extent num_bytes wrong)",
				  c->nbytes, c->found_nbytes, g->start, g->gap > 0 ? "ends" : "reaches",
				  (unsigned long long)(g->gap > 0 ? g->gap : -g->gap),
				  g->gap > 0 ? "before" : "past");
			check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		} else if (c->nbytes != c->found_nbytes) {
			INODE_ERR(t, ino, "nbytes %llu, its file extents account %llu (nbytes wrong)",
				  c->nbytes, c->found_nbytes);
			fix_inode_field(t, ino, REPAIR_INODE_NBYTES, c->found_nbytes);
		}
		if (c->csum_missing)
			report_csum_missing(t);
		/*
		 * NODATASUM with every regular extent checksummed: the kernel sets
		 * the flag only on an empty file, so the flag is what is damaged
		 * (that error stands for the odd checksums).
		 */
		if ((c->flags & BTRFS_INODE_NODATASUM) && c->nosum_extents &&
		    c->nosum_summed == c->nosum_extents && !c->odd_prealloc) {
			INODE_ERR(t, ino, "NODATASUM (flags 0x%llx), yet every one of its %u regular extents has checksums: the flag is wrong",
				  (unsigned long long)c->flags, c->nosum_extents);
			fix_inode_field(t, ino, REPAIR_INODE_FLAGS,
					c->flags & ~(u64)(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW));
		} else if (c->odd_csums) {
			report_odd_csums(t);
		}
	} else if (c->have_extent && !S_ISDIR(c->mode) && !odd_entries) {
		INODE_ERR(t, ino, "mode 0%o has file extent items", c->mode);
	}
keep:
	if (!linkless && !odd_entries && !odd_extents) {
		struct fs_root_run *run = t->runs_nr ? &t->runs[t->runs_nr - 1] : NULL;

		if (run && run->ino + run->nr == ino && run->mode == c->mode && run->nr < UINT32_MAX) {
			run->nr++;
		} else if ((run = CHECK_PUSH(t, runs))) {
			run->ino = ino;
			run->nr = 1;
			run->mode = c->mode;
		}
	} else {
		struct fs_root_inode *in = CHECK_PUSH(t, inodes);

		if (in) {
			in->ino = ino;
			in->mode = c->mode;
			in->linkless = linkless;
			in->mode_odd = odd_entries || odd_extents;
			in->items_ftype = odd_entries ? BTRFS_FT_DIR : 0;
		}
	}
out:
	t->holes_nr = 0;
	memset(c, 0, sizeof(*c));
}

/* ---- items -------------------------------------------------------------------- */

/* Index of the first csum span ending after byte start (span_nr when none); spans are sorted, disjoint. */
static size_t first_span_ending_after(const struct fs_root_csums *cs, u64 start)
{
	size_t lo = 0, hi = cs->span_nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->span[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first byte of [start, end) no csum item covers; end when all are covered. */
static u64 first_unsummed(const struct fs_root_csums *cs, u64 start, u64 end)
{
	size_t i = first_span_ending_after(cs, start);

	if (i == cs->span_nr || cs->span[i].start > start)
		return start;
	return cs->span[i].end >= end ? end : cs->span[i].end;
}

/* Bytes of [start, end) the csum tree's items cover. */
static u64 summed_bytes(const struct fs_root_csums *cs, u64 start, u64 end)
{
	u64 sum = 0;

	for (size_t i = first_span_ending_after(cs, start); i < cs->span_nr && cs->span[i].start < end; i++)
		sum += min_t(u64, cs->span[i].end, end) - max_t(u64, cs->span[i].start, start);
	return sum;
}

static void read_csum_spans(struct check_ctx *ctx, struct fs_root_csums *cs)
{
	cs->state = check_csum_tree_spans(ctx, &cs->span, &cs->span_nr);
	if (!cs->state)
		cs->state = 1;
}

/* The csum tree's coverage, read when first needed: false without it (pass 2 or 6 reports it). */
static bool csums_ready(struct fs_root_tree *t)
{
	struct fs_root_csums *cs = t->csums;

	if (t->csums_state)
		return t->csums_state > 0;
	if (!cs->shared) {
		if (!cs->state)
			read_csum_spans(t->ctx, cs);
	} else {
		pthread_mutex_lock(&cs->lock);
		if (!cs->state) {
			FILE *own = messages_stream();
			FILE *out = open_memstream(&cs->msgs, &cs->msgs_len);

			if (out)
				messages_set_stream(out);
			read_csum_spans(t->ctx, cs);
			if (out) {
				fclose(out);
				messages_set_stream(own);
			}
		}
		pthread_mutex_unlock(&cs->lock);
	}
	t->csums_state = cs->state;
	return cs->state > 0;
}

/*
 * The disk range a file extent's checksums cover: the whole on-disk extent
 * when compressed, else the part it references.  False for nonsense the
 * extents pass reports.
 */
static bool extent_csum_range(const struct btrfs_file_extent_item *fi, u64 num_bytes, u64 *start,
			      u64 *len)
{
	u64 disk = btrfs_file_extent_disk_bytenr(fi);

	if (btrfs_file_extent_compression(fi)) {
		*start = disk;
		*len = btrfs_file_extent_disk_num_bytes(fi);
	} else {
		*start = disk + btrfs_file_extent_offset(fi);
		*len = num_bytes;
	}
	return *start >= disk && *start + *len >= *start && *len;
}

/*
 * A regular extent of an inode with data checksums: every sector of what it
 * references on disk has a checksum.  Compressed extents always have them,
 * over the whole on-disk extent (the kernel never compresses NODATASUM
 * data).  Prealloc extents are never written, so have none; inline ones live
 * in the tree; the data relocation tree copies extents that may have none.
 */
static void check_extent_csums(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi,
			       u64 file_off, u64 num_bytes)
{
	struct fs_root_cursor *c = &t->cur;
	u64 start, len, miss;

	if (!c->have_item || !num_bytes || t->root == BTRFS_DATA_RELOC_TREE_OBJECTID)
		return;
	if (!btrfs_file_extent_compression(fi) && (c->flags & BTRFS_INODE_NODATASUM))
		return;   /* check_odd_csums() */
	if (!extent_csum_range(fi, num_bytes, &start, &len) || !csums_ready(t))
		return;
	miss = first_unsummed(t->csums, start, start + len);
	if (miss == start + len)
		return;
	if (!c->csum_missing++) {
		c->miss_offset = file_off;
		c->miss_disk = start;
		c->miss_disk_end = start + len;
		c->miss_at = miss;
	}
}

/*
 * Checksums where the data has none (btrfs-progs' "odd csum item"): over a
 * regular extent of a NODATASUM inode, or over a prealloc extent that no
 * regular file extent item refers to (one that does, a reflink, wrote it).
 */
static void check_odd_csums(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi, u64 file_off,
			    u64 num_bytes)
{
	struct fs_root_cursor *c = &t->cur;
	bool prealloc = btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_PREALLOC;
	const struct check_extent *x;
	struct ext_state *st;
	u64 start, len, found;

	if (!c->have_item || !num_bytes || t->root == BTRFS_DATA_RELOC_TREE_OBJECTID)
		return;
	if (!prealloc && !(c->flags & BTRFS_INODE_NODATASUM))
		return;
	if (!extent_csum_range(fi, num_bytes, &start, &len) || !csums_ready(t))
		return;
	found = summed_bytes(t->csums, start, start + len);
	if (!prealloc) {
		c->nosum_extents++;
		c->nosum_summed += found == len;
	}
	if (!found)
		return;
	/* on a second thread: once passes 3 and 4 are done with it (rare: prealloc with csums) */
	st = prealloc ? check_extents_final(t->ctx) : NULL;
	x = st ? check_find_extent(st, btrfs_file_extent_disk_bytenr(fi)) : NULL;
	if (x && x->data_written)
		return;
	/*
	 * Every sector summed: the data was written, which makes the kernel's
	 * prealloc extent regular; a prealloc extent is never summed unwritten.
	 */
	if (prealloc && found == len && btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE) {
		struct repair_file_extent f = { .root = t->root, .ino = c->ino, .offset = file_off,
						.field = REPAIR_FILE_EXTENT_TYPE, .value = BTRFS_FILE_EXTENT_REG };

		INODE_ERR(t, c->ino, "prealloc file extent at %llu, disk [%llu %llu): every sector has a checksum and no regular extent refers to it: it was written, a regular extent",
			  file_off, start, start + len);
		check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		return;
	}
	if (!c->odd_csums++) {
		c->odd_prealloc = prealloc;
		c->odd_offset = file_off;
		c->odd_disk = start;
		c->odd_disk_end = start + len;
		c->odd_bytes = found;
	}
}

static void file_extent(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			const struct btrfs_key *key)
{
	struct fs_root_cursor *c = &t->cur;
	struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot);
	u64 ino = key->objectid, len, start = key->offset;
	u8 type, comp;

	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START) {
		INODE_ERR(t, ino, "file extent (%llu EXTENT_DATA %llu) size %u too small", ino, start, size);
		return;
	}
	type = btrfs_file_extent_type(fi);
	comp = btrfs_file_extent_compression(fi);
	c->have_extent = true;
	if (comp > BTRFS_COMPRESS_ZSTD || btrfs_file_extent_encryption(fi) ||
	    btrfs_file_extent_other_encoding(fi)) {
		INODE_ERR(t, ino, "file extent at %llu: compression %u encryption %u other_encoding %u",
			  start, comp, btrfs_file_extent_encryption(fi), btrfs_file_extent_other_encoding(fi));
		/* no kernel writes another encoding: the field is 0 (the others, in the leaf mend) */
		if (comp <= BTRFS_COMPRESS_ZSTD && !btrfs_file_extent_encryption(fi) &&
		    size == sizeof(*fi)) {
			struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
							.field = REPAIR_FILE_EXTENT_OTHER_ENCODING, .value = 0 };

			check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		}
	}
	/* made by a committed transaction (Debian: "invalid generation for extent") */
	if (btrfs_file_extent_generation(fi) > btrfs_super_generation(btrfs_fs_super(t->ctx->fs)) + 1) {
		/* written by no commit after the superblock's: its generation is the latest it can be */
		struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_GENERATION,
						.value = btrfs_super_generation(btrfs_fs_super(t->ctx->fs)) };

		INODE_ERR(t, ino, "file extent at %llu: generation %llu beyond the superblock's %llu + 1",
			  start, (unsigned long long)btrfs_file_extent_generation(fi),
			  (unsigned long long)btrfs_super_generation(btrfs_fs_super(t->ctx->fs)));
		check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
	}
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 ram = btrfs_file_extent_ram_bytes(fi);
		int told = comp ? file_extent_inline_ram_told(t->ctx->fs, fi, size) : -1;

		if (start != 0)
			INODE_ERR(t, ino, "inline file extent at offset %llu, expected 0", start);
		if (told > 0 && (u64)told != ram) {
			INODE_ERR(t, ino, "compressed inline file extent ram_bytes %llu, its data decompresses to %d bytes",
				  ram, told);
			/* the inode's nbytes or size is the second witness */
			if (c->have_item && c->ino == ino && (c->nbytes == (u64)told || c->size == (u64)told)) {
				struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
								.field = REPAIR_FILE_EXTENT_RAM_BYTES, .value = (u64)told };

				check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
				ram = (u64)told;
			}
		}
		if (!comp && ram != size - BTRFS_FILE_EXTENT_INLINE_DATA_START)
			INODE_ERR(t, ino, "inline file extent ram_bytes %llu, inline data is %u bytes",
				  ram, (u32)(size - BTRFS_FILE_EXTENT_INLINE_DATA_START));
		if (!ram)
			INODE_ERR(t, ino, "inline file extent with ram_bytes 0");
		else if (ram > t->sectorsize)
			INODE_ERR(t, ino, "inline file extent ram_bytes %llu beyond the sector size %u (inline file extent too large)",
				  ram, t->sectorsize);
		c->inline_extent = true;
		c->inline_size = ram;
		c->found_nbytes += ram;
		len = (ram + t->sectorsize - 1) / t->sectorsize * t->sectorsize;
	} else if (type == BTRFS_FILE_EXTENT_REG || type == BTRFS_FILE_EXTENT_PREALLOC) {
		u64 disk = btrfs_file_extent_disk_bytenr(fi);

		if (size != sizeof(*fi)) {
			INODE_ERR(t, ino, "file extent at %llu: item size %u, expected %zu", start, size, sizeof(*fi));
			return;
		}
		len = btrfs_file_extent_num_bytes(fi);
		if (!IS_ALIGNED(start, (u64)t->sectorsize) || !IS_ALIGNED(len, (u64)t->sectorsize) || !len) {
			INODE_ERR(t, ino, "file extent at %llu length %llu not aligned to sectorsize %u",
				  start, len, t->sectorsize);
			/* num_bytes 0 (the tree-checker lets it through): from the file's layout */
			if (!len && IS_ALIGNED(start, (u64)t->sectorsize)) {
				u64 want = num_bytes_told(t, fi, start);

				if (want) {
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_NUM_BYTES, .value = want };

					check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
					len = want;
				}
			}
		}
		if (type == BTRFS_FILE_EXTENT_PREALLOC && (comp || !disk))
			INODE_ERR(t, ino, "prealloc file extent at %llu: compression %u, disk_bytenr %llu",
				  start, comp, disk);
		if (comp && (c->flags & BTRFS_INODE_NODATASUM))
			INODE_ERR(t, ino, "compressed file extent at %llu in a NODATASUM inode (bad file extent)",
				  start);
		if (disk) {
			if (btrfs_file_extent_offset(fi) + len > btrfs_file_extent_ram_bytes(fi)) {
				u64 stored = btrfs_file_extent_disk_num_bytes(fi);

				INODE_ERR(t, ino, "file extent at %llu: offset %llu + num_bytes %llu beyond ram_bytes %llu",
					  start, btrfs_file_extent_offset(fi), len,
					  btrfs_file_extent_ram_bytes(fi));
				/* uncompressed data is as long as it is stored */
				if (!comp && btrfs_file_extent_offset(fi) + len <= stored) {
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_RAM_BYTES, .value = stored };

					check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
				} else if (layout_end(t, start) != start + len) {
					/*
					 * else num_bytes, when the file's layout contradicts it too,
					 * is what reaches past the data (one that the layout confirms
					 * says ram_bytes is the damaged field: not told)
					 */
					u64 want = num_bytes_told(t, fi, start);
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_NUM_BYTES, .value = want };

					if (want && want < len) {
						check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
						len = want;
					}
				}
			}
		}
		/* (with the num_bytes the fix above sets) */
		if (disk && type == BTRFS_FILE_EXTENT_REG)
			check_extent_csums(t, fi, start, len);
		if (disk) {
			check_odd_csums(t, fi, start, len);
			c->found_nbytes += len;
		}
	} else {
		INODE_ERR(t, ino, "file extent at %llu has unknown type %u", start, type);
		return;
	}
	end_gap(c, start);
	if (type != BTRFS_FILE_EXTENT_INLINE && btrfs_file_extent_disk_bytenr(fi)) {
		c->have_last = true;
		c->last = (struct fs_root_gap){
			.start = start, .len = len, .reg = type == BTRFS_FILE_EXTENT_REG,
			.max_len = btrfs_file_extent_ram_bytes(fi) - min_t(u64, btrfs_file_extent_offset(fi),
									  btrfs_file_extent_ram_bytes(fi)),
		};
	}
	if (start < c->extent_end)
		INODE_ERR(t, ino, "file extent [%llu %llu) overlaps the previous one ending at %llu",
			  start, start + len, c->extent_end);
	else if (start > c->extent_end && !t->no_holes)
		add_hole(t, c->extent_end, start, 0);
	if (start + len > c->extent_end)
		c->extent_end = start + len;
}

/*
 * Does an entry before p in the item starting at start have the name
 * (name, nl)?  Entries of one DIR_ITEM or XATTR_ITEM share a name hash;
 * the same name twice is two files (or two values) under one name, which
 * no lookup can tell apart.  Items hold a handful of entries: a scan.
 */
static const struct btrfs_dir_item *name_repeats(const u8 *start, const u8 *p, const u8 *name, u32 nl)
{
	while (start < p) {
		const struct btrfs_dir_item *di = (const struct btrfs_dir_item *)start;
		u32 len = btrfs_dir_name_len(di);

		if (len == nl && !memcmp(start + sizeof(*di), name, nl))
			return di;
		start += sizeof(*di) + len + btrfs_dir_data_len(di);
	}
	return NULL;
}

/*
 * The second entry named like an earlier one of the same DIR_ITEM: renamed
 * (its inode keeps both names apart), or dropped when it names the same inode.
 */
static void fix_dup_entry(struct fs_root_tree *t, const struct btrfs_key *key, const struct btrfs_dir_item *first,
			  const struct btrfs_key *loc, const struct btrfs_dir_item *di)
{
	struct btrfs_key first_loc;
	struct repair_name n = {
		.root = t->root, .dir = key->objectid, .ino = loc->objectid, .key_type = BTRFS_DIR_ITEM_KEY,
		.ftype = btrfs_dir_type(di), .subvol = loc->type == BTRFS_ROOT_ITEM_KEY,
		.name_len = btrfs_dir_name_len(di),
	};

	btrfs_disk_key_to_cpu(&first_loc, &first->location);
	memcpy(n.name, di + 1, n.name_len);
	if (first_loc.objectid == loc->objectid && first_loc.type == loc->type)
		check_fixable(t->ctx, repair_del_entry, &n, sizeof(n));
	else if (loc->type == BTRFS_INODE_ITEM_KEY)
		check_fixable(t->ctx, repair_rename_dup_entry, &n, sizeof(n));
}

/* An entry naming a subvolume with another file type than a directory's: set to it. */
static void fix_subvol_entry_type(struct fs_root_tree *t, const struct btrfs_key *key,
				  const struct btrfs_key *loc, const struct btrfs_dir_item *di)
{
	struct repair_name n = {
		.root = t->root, .dir = key->objectid, .ino = loc->objectid, .key_type = key->type,
		.index = key->type == BTRFS_DIR_INDEX_KEY ? key->offset : 0, .ftype = BTRFS_FT_DIR,
		.subvol = true, .name_len = btrfs_dir_name_len(di),
	};

	if (n.name_len > sizeof(n.name))
		n.name_len = 0;  /* the tree-checker refuses such a leaf: not reached */
	memcpy(n.name, di + 1, n.name_len);
	INODE_ERR(t, key->objectid, "directory entry '%.*s' of a subvolume has file type %u, expected %u (directory)",
		  (int)n.name_len, n.name, btrfs_dir_type(di), BTRFS_FT_DIR);
	check_fixable(t->ctx, repair_set_entry_type, &n, sizeof(n));
}

/* XATTR_ITEM: one or more attributes; a name given twice cannot be read. */
static void xattr_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			  const struct btrfs_key *key)
{
	u8 *start = btrfs_leaf_item_ptr(eb, slot), *p = start, *end = p + btrfs_leaf_item_size(eb, slot);

	while (p + sizeof(struct btrfs_dir_item) <= end) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
		u32 nl = btrfs_dir_name_len(di);

		if (p + sizeof(*di) + nl + btrfs_dir_data_len(di) > end)
			break;
		if (name_repeats(start, p, p + sizeof(*di), nl))
			INODE_ERR(t, key->objectid, "xattr '%.*s' is present twice (XATTR_ITEM %llu)",
				  (int)nl, (char *)(p + sizeof(*di)), key->offset);
		p += sizeof(*di) + nl + btrfs_dir_data_len(di);
	}
}

/* DIR_ITEM or DIR_INDEX: one or more entries. */
static int dir_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key)
{
	u8 *start = btrfs_leaf_item_ptr(eb, slot), *p = start, *end = p + btrfs_leaf_item_size(eb, slot);
	int n = 0;

	while (p + sizeof(struct btrfs_dir_item) <= end) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
		const struct btrfs_dir_item *first;
		u32 nl = btrfs_dir_name_len(di), dl = btrfs_dir_data_len(di);
		struct btrfs_key loc;
		int ret = 0;

		if (p + sizeof(*di) + nl + dl > end)
			break;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		t->cur.dir_size += nl;
		if (key->type == BTRFS_DIR_INDEX_KEY && n++)
			INODE_ERR(t, key->objectid, "dir index %llu holds more than one entry", key->offset);
		if (key->type == BTRFS_DIR_ITEM_KEY && (first = name_repeats(start, p, p + sizeof(*di), nl))) {
			INODE_ERR(t, key->objectid, "name '%.*s' is present twice in the directory (DIR_ITEM %llu): one name for two entries",
				  (int)nl, (char *)(p + sizeof(*di)), key->offset);
			fix_dup_entry(t, key, first, &loc, di);
		}
		/* the flag is reserved for encrypted names, which no kernel writes */
		if (btrfs_dir_type(di) & BTRFS_FT_ENCRYPTED)
			INODE_ERR(t, key->objectid, "directory entry '%.*s' has type 0x%x: the encrypted-name flag on a filesystem without encryption",
				  (int)nl, (char *)(p + sizeof(*di)), btrfs_dir_type(di));
		if (loc.type == BTRFS_INODE_ITEM_KEY)
			ret = add_name(t, key->type == BTRFS_DIR_ITEM_KEY ? 'D' : 'X', key->objectid,
				       loc.objectid, key->offset, p + sizeof(*di), nl, btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED);
		else if (loc.type == BTRFS_ROOT_ITEM_KEY &&
			 (btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED) != BTRFS_FT_DIR)
			fix_subvol_entry_type(t, key, &loc, di);
		else if (loc.type != BTRFS_ROOT_ITEM_KEY)
			INODE_ERR(t, key->objectid, "directory entry '%.*s' has location key type %u",
				  (int)nl, (char *)(p + sizeof(*di)), loc.type);
		if (ret)
			return ret;
		p += sizeof(*di) + nl + dl;
	}
	return 0;
}

/*
 * The top directory's own inode ref, keyed in dir with index and name: keyed
 * in itself, index 0, name "..", whatever it had.
 */
static void fix_top_dir_ref(struct fs_root_tree *t, u64 dir, u64 index, const u8 *name, u32 nl)
{
	struct repair_ref_rename f = {
		.from = { .root = t->root, .dir = dir, .ino = BTRFS_FIRST_FREE_OBJECTID,
			  .index = index, .key_type = BTRFS_INODE_REF_KEY, .name_len = (u16)nl },
		.to = { .root = t->root, .dir = BTRFS_FIRST_FREE_OBJECTID, .ino = BTRFS_FIRST_FREE_OBJECTID,
			.index = 0, .key_type = BTRFS_INODE_REF_KEY, .name_len = 2, .name = ".." },
	};

	memcpy(f.from.name, name, nl);
	check_fixable(t->ctx, repair_rename_ref, &f, sizeof(f));
}

static int inode_refs(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key)
{
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + btrfs_leaf_item_size(eb, slot);
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	size_t hdr = ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);

	while (p + hdr <= end) {
		u64 parent, index;
		u32 nl;
		int ret;

		if (ext) {
			struct btrfs_inode_extref *r = (void *)p;

			parent = btrfs_inode_extref_parent(r);
			index = btrfs_inode_extref_index(r);
			nl = btrfs_inode_extref_name_len(r);
		} else {
			struct btrfs_inode_ref *r = (void *)p;

			parent = key->offset;
			index = btrfs_inode_ref_index(r);
			nl = btrfs_inode_ref_name_len(r);
		}
		if (p + hdr + nl > end)
			break;
		t->cur.names++;
		/* the top directory's ".." (index 0) whose key offset is not itself: moved back */
		if (!ext && key->objectid == BTRFS_FIRST_FREE_OBJECTID && parent != key->objectid &&
		    !index && nl == 2 && !memcmp(p + hdr, "..", 2)) {
			check_error(t->ctx, "root %llu: the top directory's own inode ref '..' (index 0) is keyed in dir %llu, expected itself (leaf %llu)",
				    t->root, parent, eb->start);
			fix_top_dir_ref(t, parent, 0, p + hdr, nl);
		/* a subvolume's top directory names itself "..", index 0 */
		} else if (!(parent == key->objectid && key->objectid == BTRFS_FIRST_FREE_OBJECTID)) {
			ret = add_name(t, 'R', parent, key->objectid, index, p + hdr, nl, 0);
			if (!ret)
				ret = note_cand(t, &t->refs[t->refs_nr - 1], p + hdr);
			if (ret)
				return ret;
		} else if (ext || index != 0 || nl != 2 || memcmp(p + hdr, "..", 2)) {
			check_error(t->ctx, "root %llu: the top directory's own %s has index %llu name '%.*s', expected index 0 name '..' (leaf %llu)",
				    t->root, ext ? "inode extref" : "inode ref", index,
				    (int)min_t(u32, nl, 255), (char *)(p + hdr), eb->start);
			if (!ext && nl <= BTRFS_NAME_LEN)
				fix_top_dir_ref(t, key->objectid, index, p + hdr, nl);
		}
		p += hdr + nl;
	}
	return 0;
}

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
		finish_inode(t);
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
		return inode_refs(t, eb, slot, key);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
		return dir_entries(t, eb, slot, key);
	case BTRFS_EXTENT_DATA_KEY:
		file_extent(t, eb, slot, key);
		break;
	case BTRFS_XATTR_ITEM_KEY:
		xattr_entries(t, eb, slot, key);
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
		fix_inode_field(t, in->ino, REPAIR_INODE_NLINK, 0);
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

		if (is_orphan(t, r->dir) || is_orphan(t, r->ino)) {
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
		if (is_orphan(t, ents[i].dir) || is_orphan(t, ents[i].ino)) {
			ents[i].matched = 1;
			continue;
		}
		name_of(t, &ents[i], key_type, &n);
		check_error(t->ctx, "root %llu: dir %llu %s '%.*s' (index %llu) points to inode %llu, which has no inode ref for it%s",
			    t->root, ents[i].dir, what, (int)n.name_len, n.name, n.index, ents[i].ino,
			    inode_of(t, ents[i].ino).ino ? "" : " (no such inode)");
	}
}

static void check_tree_names(struct fs_root_tree *t)
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

static void free_tree(struct fs_root_tree *t)
{
	free(t->refs);
	free(t->items);
	free(t->index);
	slots_free(&t->items_at);
	slots_free(&t->index_at);
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
	finish_inode(&t);
	drop_settled_entries(&t, true);
	slots_free(&t.items_at);    /* the walk's: check_tree_names() sorts the lists anew */
	slots_free(&t.index_at);
	if (used_csums)
		*used_csums = t.csums_state != 0;
	if (ret == -ENOMEM) {
		free_tree(&t);
		return ret;
	}
	if (ret < 0)
		check_error(ctx, "root %llu cannot be read to the end: %s", t.root, strerror(-ret));
	else
		check_tree_names(&t);
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

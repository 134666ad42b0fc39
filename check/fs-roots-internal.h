/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 5's own records and the calls between its parts (check/fs-roots*.c
 * only; the pass's interface to the driver is check/fs-roots.h).  Calls go
 * one way:
 *   fs-roots.c             the pass: each tree walked in key order, each
 *                          item to the part that checks it, then its names
 *   fs-roots-inodes.c      one inode, when its items are all seen
 *   fs-roots-extents.c     file extents, holes, nbytes and the csum tree's
 *                          coverage of data
 *   fs-roots-name-items.c  DIR_ITEM, DIR_INDEX, XATTR_ITEM, INODE_REF and
 *                          INODE_EXTREF items, one by one
 *   fs-roots-links.c       names matched across inodes once the tree is read,
 *                          and the repairs of links
 *   fs-roots-records.c     the names recorded while reading, matched as soon
 *                          as their inode is done; orphans; an inode's fix
 * fs-roots.c calls each part; fs-roots-inodes.c calls fs-roots-extents.c
 * (the extents' reports, once an inode's last one is seen), which calls no
 * other part; fs-roots-records.c is called by the others and calls none.
 */
#ifndef BTRFS_KIT_CHECK_FS_ROOTS_INTERNAL_H
#define BTRFS_KIT_CHECK_FS_ROOTS_INTERNAL_H

#include <pthread.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/repair-fs-roots.h"
#include "kernel-shared/read/ctree.h"

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
	 * num_bytes is the damaged field, not nbytes (fs_root_len_fix()).
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
 * list is compacted (fs_root_drop_settled_entries()); cap 0 (not
 * allocated): the list is searched by bisection instead.
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
	CHECK_ARRAY(struct fs_root_inode, inodes);     /* sorted by fs_root_check_names() */
	CHECK_ARRAY(struct fs_root_run, runs);
	CHECK_ARRAY(u64, unlinked);     /* nlink 0, need an orphan item */
	CHECK_ARRAY(u64, orphans);
	CHECK_ARRAY(struct check_range, holes);      /* of the inode being read */
	CHECK_ARRAY(struct fs_root_missing, missing);
	CHECK_ARRAY(struct fs_root_cand, cands);     /* of the inode being read */
	size_t items_settled, index_settled;         /* records marked NAME_SETTLED, not yet dropped */
};

/* An error about inode ino of the tree being read ("root R inode I: ..."). */
#define INODE_ERR(t, ino, fmt, ...) \
	check_error((t)->ctx, "root %llu inode %llu: " fmt, (t)->root, (unsigned long long)(ino), ##__VA_ARGS__)

/* fs-roots-records.c: the records of names, the orphans, an inode's fix */
void fs_root_slots_free(struct fs_root_slots *s);
int fs_root_add_name(struct fs_root_tree *t, int kind, u64 dir, u64 ino, u64 index,
		     const u8 *name, u32 len, u8 type);
int fs_root_note_cand(struct fs_root_tree *t, const struct fs_root_name *r, const u8 *name);
void fs_root_drop_settled_entries(struct fs_root_tree *t, bool all);
void fs_root_settle_names(struct fs_root_tree *t);
bool fs_root_is_orphan(const struct fs_root_tree *t, u64 ino);
void fs_root_fix_inode_field(struct fs_root_tree *t, u64 ino, enum repair_inode_field field, u64 value);

/* fs-roots-extents.c: file extents, holes and checksums */
void fs_root_add_hole(struct fs_root_tree *t, u64 start, u64 end, u64 isize);
void fs_root_end_gap(struct fs_root_cursor *c, u64 next);
const struct fs_root_gap *fs_root_len_fix(const struct fs_root_cursor *c, s64 diff, u32 sectorsize);
void fs_root_fix_holes(struct fs_root_tree *t, u64 ino);
void fs_root_report_csum_missing(struct fs_root_tree *t);
void fs_root_report_odd_csums(struct fs_root_tree *t);
void fs_root_file_extent(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			 const struct btrfs_key *key);

/* fs-roots-inodes.c: the inode being read is done */
void fs_root_finish_inode(struct fs_root_tree *t);

/* fs-roots-name-items.c: the items that hold names */
void fs_root_xattr_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			   const struct btrfs_key *key);
int fs_root_dir_entries(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			const struct btrfs_key *key);
int fs_root_inode_refs(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key);

/* fs-roots-links.c: the tree is read; its names matched across inodes */
void fs_root_check_names(struct fs_root_tree *t);

#endif

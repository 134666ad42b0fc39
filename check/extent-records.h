/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records pass 3 builds (check/extents.c) and keeps in
 * check_ctx.extents_state for the passes after it and the repairs: the
 * sorted extent items, block groups, dev extents, devices, root items and
 * lost blocks; and the lookups in them (check/extent-records.c).
 */
#ifndef BTRFS_KIT_CHECK_EXTENT_RECORDS_H
#define BTRFS_KIT_CHECK_EXTENT_RECORDS_H

#include "check/context.h"
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/volumes.h"

#include "kernel-shared/read/volumes.h"

/*
 * One back reference: expected (made by a tree pointer or a file extent
 * item) or found (inline or keyed in the extent tree).  The identity is
 * (bytenr, type, parent, root, objectid, offset); count sums equal ones.
 */
struct check_ref {
	u64 bytenr;
	u64 len;        /* expected refs: nodesize or disk_num_bytes */
	u64 parent;     /* shared refs: parent block; expected refs: the referencing block */
	u64 root;       /* tree refs and data refs: the root id */
	u64 objectid;   /* data refs: inode; expected tree refs before resolving: level */
	u64 offset;     /* data refs: file offset minus extent offset */
	u32 count;
	u8 type;        /* BTRFS_*_REF_KEY */
	u8 level;       /* expected tree refs: level of the block */
	u8 is_data;
	u8 written;     /* expected data refs: made by a regular (written) file extent item */
};

/* One EXTENT_ITEM or METADATA_ITEM. */
struct check_extent {
	u64 start;
	u64 len;
	u64 refs;             /* the item's refs field */
	u64 flags;
	u64 generation;
	u64 leaf;             /* extent tree leaf holding the item */
	u64 found_refs;       /* sum of back reference counts in the extent tree */
	u64 expected_refs;    /* sum of references made by the trees */
	u8 level;
	unsigned int metadata_item:1;
	unsigned int referenced:1;
	unsigned int data_written:1;  /* a regular file extent item refers to it (not only prealloc) */
	unsigned int rebuild_seen:1;  /* --repair: rebuilding its records was considered */
	unsigned int rebuild_ok:1;    /* and queued */
	unsigned int bad_full_backref:1;  /* FULL_BACKREF on a block never shared: cleared in flags */
};

struct check_bg {
	u64 start;
	u64 len;
	u64 used;        /* block group item */
	u64 flags;
	u64 sum;         /* extents inside it */
	u8 fst_seen;     /* the free space tree has items for it */
	bool item_missing; /* a chunk's range without an item: flags the chunk's (check_add_missing_bgs()) */
};

/* A chunk stripe whose device and place a queued fix sets (check/repair-chunks.c). */
struct check_stripe_fix {
	u64 logical;
	int stripe;
};

struct check_devext {
	u64 devid;
	u64 physical;
	u64 len;
	u64 chunk_offset;
};

struct check_dev {
	u64 devid;
	u64 total_bytes;
	u64 bytes_used;
	u64 sum;         /* dev extents on it */
	u64 orphan;      /* of those, without their chunk */
	u64 missing;     /* --repair: bytes of dev extents to insert or lengthen (mod 2^64) */
	u64 end;         /* where its last dev extent ends */
};

/*
 * --repair: an extent without extent item whose records were considered for
 * rebuilding (check/repair-extents.c; those with an item: check_extent bits).
 */
struct check_rebuild {
	u64 bytenr;
	u64 len;
	bool ok;         /* rebuildable: its fix is queued */
	bool reserve;    /* in use without an extent item: accounted before anything else */
};

/* A ROOT_ITEM of the root tree. */
struct check_root {
	struct btrfs_key key;
	struct btrfs_tree_ref tree;
	struct btrfs_key drop_key;     /* drop_progress: objectid 0 = not being dropped */
	u8 drop_level;
	u32 refs;                      /* the root item's refs */
	u64 last_snapshot;             /* the root item's: blocks newer were never shared */
};

/* A tree block pointed to without an extent item. */
struct check_lost {
	u64 bytenr;
	u64 owner;             /* header owner, 0 if unreadable */
	u8 level;
	bool in_owner_tree;    /* its owner's tree points to it */
	bool full_backref;     /* inferred flag of its lost item */
};

/* The header owner of a tree block the walk read. */
struct check_owner {
	u64 bytenr;
	u64 owner;
	u64 gen;               /* header generation */
	bool reloc;            /* header flag RELOC */
};

#define CHECK_ARRAY(type, name) type *name; size_t name##_nr, name##_alloc

struct ext_state {
	u32 nodesize;
	u32 sectorsize;
	bool bg_tree;            /* block group items in the block group tree */
	u64 *seen;               /* open-addressing set of visited block addresses */
	size_t seen_nr, seen_cap;
	CHECK_ARRAY(struct check_ref, exp);
	CHECK_ARRAY(struct check_ref, got);
	CHECK_ARRAY(struct check_extent, ext);     /* sorted by start after the walk */
	CHECK_ARRAY(struct check_bg, bg);          /* sorted by start */
	CHECK_ARRAY(struct check_devext, dext);    /* sorted by (devid, physical) */
	CHECK_ARRAY(struct check_stripe_fix, stripe_fixes);
	CHECK_ARRAY(struct check_dev, dev);
	CHECK_ARRAY(struct check_root, root);      /* in root tree order */
	CHECK_ARRAY(struct check_rebuild, rebuild);   /* sorted by bytenr */
	size_t rebuilds;         /* extent record rebuilds queued */
	CHECK_ARRAY(struct check_lost, lost);   /* sorted by bytenr (check/lost-blocks.c) */
	CHECK_ARRAY(struct check_owner, owners);   /* every block read, sorted by bytenr */
	u64 stats_alloc;         /* disk_num_bytes of every file extent item */
	u64 stats_ref;           /* num_bytes of every file extent item */
	u64 bytes_used;          /* sum of extent item lengths */
};

/* The name btrfs-progs prints for tree id ("fs tree", ...; buf for the others). */
const char *check_tree_name(u64 id, char *buf, size_t len);
u64 check_chunk_dev_len(const struct btrfs_chunk_map *c);
struct check_extent *check_find_extent(struct ext_state *st, u64 bytenr);
/* Index of the first extent item (sorted) that ends after bytenr; ext_nr if none. */
size_t check_first_extent_ending_after(const struct ext_state *st, u64 bytenr);
struct check_bg *check_find_bg(struct ext_state *st, u64 bytenr);
bool check_lost_block_full_backref(const struct ext_state *st, u64 bytenr, bool *full_backref);
/* The one chunk with a stripe at (devid, physical); NULL when none or several. */
const struct btrfs_chunk_map *check_chunk_at_place(const struct btrfs_chunk_tree_map *map, u64 devid,
						   u64 physical);
/* The dev extent at (devid, physical), NULL if none. */
const struct check_devext *check_find_dev_extent(const struct ext_state *st, u64 devid, u64 physical);
/* qsort/bsearch order of dev extents (devid, physical) and of lost blocks (bytenr). */
int check_cmp_devext(const void *a, const void *b);
int check_cmp_lost(const void *a, const void *b);
/* The lost block at bytenr, NULL if none. */
struct check_lost *check_find_lost(const struct ext_state *st, u64 bytenr);

#endif

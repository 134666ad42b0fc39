/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass 3's state (check/extents.c), kept in check_ctx.extents_state for the
 * passes after it: the sorted extent items and block groups are what the
 * free space and csum passes compare against.
 */
#ifndef BTRFS_KIT_CHECK_EXTENTS_H
#define BTRFS_KIT_CHECK_EXTENTS_H

#include "check/check.h"
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"
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
	bool item_missing; /* a chunk's range without an item: flags the chunk's (add_missing_bgs()) */
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

/*
 * Pass 3 (check_extents()) in its two steps: the root tree's walk, after
 * which st->root is complete (pass 5 may start on it, check/pass-thread.c),
 * then the other trees and the comparisons.
 */
int check_extents_roots(struct check_ctx *ctx);
int check_extents_rest(struct check_ctx *ctx);
/* Pass 5 over these root items (check_fs_roots(): pass 3's). */
int check_fs_roots_of(struct check_ctx *ctx, const struct check_root *roots, size_t nr);
/*
 * Pass 5 over one root item (nothing unless a file tree not being deleted):
 * 0, or -ENOMEM (the pass cannot go on).  csums: the csum tree's coverage,
 * shared by the subvolumes (check_fs_root_csums_new(true): by several
 * threads, the read path's messages of reading it kept for the caller);
 * *used_csums (may be NULL): this root asked for it.
 */
struct fs_root_csums;
int check_fs_root(struct check_ctx *ctx, const struct check_root *r, struct fs_root_csums *csums,
		  bool *used_csums);
struct fs_root_csums *check_fs_root_csums_new(bool shared);
const char *check_fs_root_csums_messages(const struct fs_root_csums *cs, size_t *len);
void check_fs_root_csums_free(struct fs_root_csums *cs);

const char *check_tree_name(u64 id, char *buf, size_t len);
u64 check_chunk_dev_len(const struct btrfs_chunk_map *c);
struct check_extent *check_find_extent(struct ext_state *st, u64 bytenr);
/* Index of the first extent item (sorted) that ends after bytenr; ext_nr if none. */
size_t check_first_extent_ending_after(const struct ext_state *st, u64 bytenr);
struct check_bg *check_find_bg(struct ext_state *st, u64 bytenr);
void check_extents_free(struct ext_state *st);
/*
 * Tree blocks the trees point to without an extent item (check/lost-blocks.c):
 * find them and infer whether their lost item was FULL_BACKREF (before the
 * expected refs are resolved; 0 or -ENOMEM); is bytenr one, and *full_backref.
 */
int check_find_lost_blocks(struct check_ctx *ctx, struct ext_state *st);
bool check_lost_block_full_backref(const struct ext_state *st, u64 bytenr, bool *full_backref);

/*
 * --repair (check/repair-extents.c, check/repair-counters.c): queue the
 * fix of a problem just reported with check_error().
 * check_queue_extent_rebuild() says whether the records of extent bytenr
 * can be rebuilt (queued once, later errors about the same extent counted
 * as mended by it).
 */
struct btrfs_trans;
/* --repair asked for: the passes queue fixes. */
static inline bool check_repairing(const struct check_ctx *ctx)
{
	return ctx->opts && ctx->opts->repair;
}
bool check_queue_extent_rebuild(struct check_ctx *ctx, struct ext_state *st, u64 bytenr);
void check_queue_bg_used(struct check_ctx *ctx, const struct check_bg *bg);
/*
 * A chunk's missing block group item: added with the chunk's type and the
 * extents' sum, when every stripe has its dev extent.
 */
void check_queue_bg_item(struct check_ctx *ctx, const struct check_bg *bg);
void check_queue_super_bytes_used(struct check_ctx *ctx, u64 bytes_used);
/* --repair: set compat_ro bits a tree that exists needs (the free space tree: rebuilt too). */
void check_queue_super_compat_ro(struct check_ctx *ctx, u64 bits);
/* --repair: clear incompat bits whose structures do not exist (SIMPLE_QUOTA without a quota tree). */
void check_queue_super_incompat_clear(struct check_ctx *ctx, u64 bits);
/* Pass 2: superblock generations the open corrected from their root blocks (see ctree.h). */
void check_super_generations(struct check_ctx *ctx);
void check_queue_super_num_devices(struct check_ctx *ctx, u64 num_devices);
void check_queue_super_total_bytes(struct check_ctx *ctx, const struct ext_state *st);
void check_queue_orphan_dev_extent(struct check_ctx *ctx, const struct check_devext *d, bool has_dev);
void check_queue_dev_used(struct check_ctx *ctx, const struct check_dev *d);
/*
 * The dev extent d's chunk_offset set to that of the one chunk with a stripe
 * at its place (d too, once queued).
 */
void check_queue_dev_extent_chunk(struct check_ctx *ctx, struct check_devext *d, u64 chunk_offset);
/* The one chunk with a stripe at (devid, physical); NULL when none or several. */
const struct btrfs_chunk_map *check_chunk_at_place(const struct btrfs_chunk_tree_map *map, u64 devid,
						   u64 physical);
/* The dev extent d's length set to len, its chunk's share of the device. */
void check_queue_dev_extent_length(struct check_ctx *ctx, struct check_dev *dev, const struct check_devext *d,
				   u64 len);
/* Stripe s of chunk ch has no dev extent: insert it when the room on dev (may be NULL) is free. */
void check_queue_missing_dev_extent(struct check_ctx *ctx, struct ext_state *st, struct check_dev *dev,
				    const struct btrfs_chunk_map *ch, int s);
/*
 * Block groups whose flags name another kind than they hold while their
 * chunk's type names it: reported; --repair sets the flags to the type (the
 * state at once, before the extents are held against them).
 */
void check_bg_kinds(struct check_ctx *ctx, struct ext_state *st);
/* Chunk item c (of map's stripe count) takes every field map has: length, type, stripes. */
void check_chunk_item_from_map(struct btrfs_chunk *c, const struct btrfs_chunk_map *map);
/* --repair: the system chunk item at logical set from the sys_chunk_array copy (check/repair-chunks.c). */
void check_queue_chunk_from_copy(struct check_ctx *ctx, u64 logical);
/* --repair: the missing item of system chunk ch (the sys_chunk_array's) inserted from it. */
void check_queue_chunk_item_from_copy(struct check_ctx *ctx, const struct btrfs_chunk_map *ch);
/*
 * A chunk whose type and block group flags differ (just reported): with
 * --repair the chunk takes the flags when they name what it holds and its
 * type does not (the in-memory map at once); else nothing is queued.
 */
void check_chunk_against_bg(struct check_ctx *ctx, const struct ext_state *st, const struct btrfs_chunk_map *ch,
			    const struct check_bg *bg);
/*
 * A chunk whose length differs from its block group's: when every stripe
 * has its dev extent at its place, each the block group's length over the
 * chunk's data stripes long, and no chunk starts inside that length, that is
 * reported and (--repair) the chunk takes the block group's length (the
 * in-memory map in the fix): true; the chunk is then kept as a stripe fix
 * with stripe -1 (check_stripe_fixed()).  false: not so, nothing said.
 */
bool check_chunk_length_from_bg(struct check_ctx *ctx, struct ext_state *st, const struct btrfs_chunk_map *ch,
				const struct check_bg *bg);
/*
 * A block group without a chunk: when its profile is mirrored (not system)
 * and as many dev extents as it has copies name it, each as long as it, that
 * is reported and (--repair) a chunk item is made of them, added to the map
 * before the transaction: true; the chunk is kept as a stripe fix with
 * stripe -1.  false: not so, nothing said.
 */
bool check_chunk_from_dev_extents(struct check_ctx *ctx, struct ext_state *st, const struct check_bg *bg);
/*
 * The dev extent d finds no stripe of its chunk: when one stripe of the
 * chunk has no dev extent of its own and is d's but for its physical offset
 * (same device) or for a devid without a device item (same place), that is
 * reported and (--repair) the stripe takes d's device and place, the
 * in-memory map at once: true.  false: not so.
 */
bool check_chunk_stripe_place(struct check_ctx *ctx, struct ext_state *st, const struct check_devext *d);
/*
 * Has check_chunk_stripe_place() queued a fix of stripe of the chunk at
 * logical?  Stripe -1: the chunk item as a whole (its length, or made anew):
 * its dev extents are not held against the map.
 */
bool check_stripe_fixed(const struct ext_state *st, u64 logical, int stripe);
/* The dev extent at (devid, physical), NULL if none. */
const struct check_devext *check_find_dev_extent(const struct ext_state *st, u64 devid, u64 physical);
/* Each device's superblock copy of its device item against the chunk tree's (warnings). */
void check_super_dev_items(struct check_ctx *ctx, const struct ext_state *st);
/*
 * Dev extents of devid without a device item in the chunk tree: with
 * --repair, the item is inserted from the device's superblock copy of it
 * (check/super-dev-items.c), bytes_used the sum of its dev extents.  true
 * when queued.
 */
bool check_dev_item_from_super(struct check_ctx *ctx, const struct ext_state *st, u64 devid);
/*
 * A device item's total_bytes beyond the device: an error; --repair sets it
 * (and d->total_bytes, which the superblock's total then counts) to what
 * the device's superblock copy says, else to the device's size.
 */
void check_device_size(struct check_ctx *ctx, const struct ext_state *st, struct check_dev *d);
/* --repair: device devid's item gets total_bytes total. */
void check_queue_dev_total(struct check_ctx *ctx, u64 devid, u64 total);
/* Is [start, end) all data extents once the queued rebuilds are applied? */
bool check_repair_covers_data(struct check_ctx *ctx, u64 start, u64 end);
/*
 * Drop the checksums of [start, end) from the csum tree: every item that
 * overlaps it is deleted and what it holds outside the range put back.
 */
int check_delete_csums(struct check_ctx *ctx, struct btrfs_trans *t, u64 start, u64 end);
/* First thing in the repair transaction: reserve extents in use without an extent item. */
int check_repair_extents_prepare(struct check_ctx *ctx, struct btrfs_trans *t);

#endif

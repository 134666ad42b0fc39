/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write engine's internals: the transaction's state (struct btrfs_trans,
 * its blocks, pinned blocks and block groups), the tree block allocator
 * (extent-alloc.c, data-alloc.c, trans-chunk.c) and the free space tree
 * updates (free-space-tree.c).  Included only by kernel-shared/engine/ sources
 * (tests/tools/layers.sh fails on any other file including it); everything
 * above the engine goes through the public API in transaction.h, where
 * struct btrfs_trans is opaque.
 */
#ifndef BTRFS_KIT_ENGINE_INTERNAL_H
#define BTRFS_KIT_ENGINE_INTERNAL_H

#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/volumes.h"

/* A block owned by the transaction (allocated in it, in memory until commit). */
struct trans_block {
	struct extent_buffer *eb;
	u64 owner;
	bool ref_added;                /* its extent item is in the extent tree */
	bool fst_applied;              /* its range is out of the free space tree */
	struct trans_block *next;      /* hash chain */
};

/* A block freed in the transaction whose space is not reused before the commit. */
struct pinned_block {
	u64 bytenr;
	u64 owner;
	u8 level;
	bool need_ref_drop;            /* extent item to delete */
	bool need_fst;                 /* range to give back to the free space tree */
};

struct fs_range {
	u64 start;
	u64 len;
};

/* A metadata or system block group the transaction may allocate from. */
struct wblock_group {
	u64 start;
	u64 length;
	u64 flags;                     /* its item's */
	u64 chunk_type;                /* its chunk's: blocks are allocated where both name the kind */
	u64 used;                      /* on disk when the transaction started */
	s64 delta;                     /* bytes allocated minus freed since */
	s64 written_delta;             /* delta already in the block group item */
	bool loaded;                   /* free[] known */
	/*
	 * No block group item (BTRFS_TRANS_MISSING_BG_ITEMS): flags and
	 * chunk_type are the chunk's, used 0, nothing is allocated in it, and
	 * the commit refuses until btrfs_trans_add_block_group_item() adds it.
	 */
	bool item_missing;
	bool flags_pending;            /* flags changed, the item not yet (BTRFS_TRANS_PROGS_ORDER) */
	struct fs_range *free;         /* allocatable ranges, sorted */
	int nr_free;
	int alloc_free;
	/* A block group made by this transaction (new chunk, see trans-chunk.c). */
	bool is_new;
	bool items_pending;            /* chunk, dev extent, block group, free space items not in yet */
	struct chunk_placement *chunk;        /* its placement (owned by t->ca) */
	u8 *chunk_item;                /* the CHUNK_ITEM as it goes on disk */
	u32 chunk_item_size;
};

/* An extent accounted by the caller (btrfs_account_extent). */
struct acct_range {
	u64 start;
	u64 len;
	bool alloc;
	bool fst_done;
};

struct btrfs_trans {
	struct btrfs_fs_info *fs;
	struct acct_range *acct;
	size_t nr_acct;
	size_t alloc_acct;
	bool lenient;
	bool progs_order;              /* BTRFS_TRANS_PROGS_ORDER */
	bool rebuild_fst;              /* pending btrfs_trans_rebuild_free_space_tree() */
	bool fst_created;              /* the free space tree was made by this transaction */
	u64 transid;
	u32 nodesize;
	struct btrfs_wroot **roots;
	int nr_roots;
	int alloc_roots;
	struct trans_block **hash;
	u32 hash_size;
	u64 nr_dirty;
	struct pinned_block *pinned;
	size_t nr_pinned;
	size_t alloc_pinned;
	struct wblock_group *bgs;      /* sorted by start; never reallocated (pointers are kept) */
	int nr_bgs;
	int bgs_cap;                   /* room for the chunks a transaction may add */
	struct chunk_alloc *ca;        /* devices and dev extents, once a chunk is made */
	bool committed;                /* the superblock naming the new chunks is written */
	s64 bytes_used_delta;
	bool skinny;                   /* SKINNY_METADATA */
	bool fst;                      /* free space tree in use */
	bool bgt;                      /* block group items in the block group tree */
	bool fail_before_super;
	int (*verdict)(struct btrfs_trans *t, void *arg);   /* btrfs_trans_set_verdict() */
	void *verdict_arg;
	struct btrfs_super_block *new_super;  /* during the verdict: the superblock to be written */
	bool fst_dropped;              /* btrfs_drop_free_space_tree(): clear its compat_ro bits */
	bool space_cache_v1_stale;     /* cache_generation becomes (u64)-1 at commit */
	/* btrfs_trans_remap_chunk(): the chunk's mapping before (restored unless committed) */
	struct btrfs_chunk_map *remap_old;
	u8 *remap_item;                /* the new CHUNK_ITEM */
	u32 remap_item_size;
	/* btrfs_trans_set_sys_chunk(): sys_chunk_array entries replaced at commit */
	struct trans_sys_chunk {
		u64 logical;
		u8 *item;
		u32 size;
	} *sys_chunks;
	int nr_sys_chunks, alloc_sys_chunks;
	struct btrfs_commit_stats stats;
};

struct trans_block *trans_lookup(struct btrfs_trans *t, u64 bytenr);
/* A new dirty block: header filled (bytenr, fsid, uuid, generation, owner, level), no items. */
int trans_alloc_block(struct btrfs_trans *t, u64 owner, int level, struct extent_buffer **out);
/* Free a block of tree owner: forgotten if allocated in t, else pinned. */
int trans_free_block(struct btrfs_trans *t, u64 bytenr, u64 owner, int level);
/*
 * Before eb (a committed block of root) is copied on write: the back
 * references of a shared block and of its children are moved as the copy
 * needs them; *free_old says whether eb is root's alone (to free) or stays
 * for the other trees.  -EOPNOTSUPP (printed) for what is not supported.
 */
int trans_cow_prepare(struct btrfs_trans *t, const struct btrfs_wroot *root,
		      const struct extent_buffer *eb, bool *free_old);

/* ---- extent-alloc.c ---- */
/*
 * Tree block allocation inside a transaction (extent-alloc.c).
 *
 * Block groups: every METADATA (incl. mixed) and SYSTEM chunk, with the
 * used bytes of its block group item (block group tree when the fs has one,
 * else extent tree).  Free space of a block group is learnt the first time
 * a block is allocated from it: the block group's range minus every
 * EXTENT_ITEM / METADATA_ITEM in the extent tree, minus the superblock
 * copies' 64 KiB stripe units on any of its stripes (RAID5/6: their whole
 * stripe rows), minus blocks pinned in
 * the transaction.  Blocks are nodesize-aligned (never crossing a 64 KiB
 * stripe), first fit in address order; the chunk tree's in SYSTEM block
 * groups, all others in METADATA ones (DATA|METADATA on a mixed
 * filesystem).  When none has room a new chunk of that type is made
 * (trans-chunk.c); -ENOSPC only when the devices are full.  Data extents
 * come from DATA block groups the same way (data-alloc.c).
 *
 * Extent items: a new block gets (bytenr, METADATA_ITEM, level) [skinny] or
 * (bytenr, EXTENT_ITEM, nodesize) + tree_block_info, refs 1, generation =
 * transid, flags TREE_BLOCK, one inline TREE_BLOCK_REF to its tree.  A
 * freed block's item must have refs 1 and one TREE_BLOCK_REF (inline, or
 * keyed with no inline refs) to its tree, else -EOPNOTSUPP (shared).
 */
/* One block group per chunk; a chunk without an item is refused unless missing_items. */
int extent_alloc_load_block_groups(struct btrfs_trans *t, bool missing_items);
void extent_alloc_release(struct btrfs_trans *t);
struct wblock_group *extent_alloc_find_block_group(struct btrfs_trans *t, u64 bytenr);
/*
 * A nodesize block for a tree (SYSTEM block groups for the chunk tree);
 * a new chunk when the block groups are full.
 */
int extent_alloc_tree_block(struct btrfs_trans *t, u64 owner, u64 *bytenr);
/* len bytes aligned to align from block groups with any bit of want: 0, -ENOSPC (silent). */
int extent_alloc_bytes(struct btrfs_trans *t, u64 want, u64 len, u64 align, u64 *bytenr);
/* Block group type (type bits, mixed as DATA|METADATA) for allocations of want. */
u64 extent_alloc_block_group_type(const struct btrfs_trans *t, u64 want);
/* Append the in-memory block group of a new chunk (all free but superblock copies). */
int extent_alloc_add_block_group(struct btrfs_trans *t, const struct btrfs_chunk_map *map,
		  struct wblock_group **out);
/* The block group holding bytenr waits for its items (free space tree and used not yet). */
bool extent_alloc_block_group_pending(struct btrfs_trans *t, u64 bytenr);

/* trans-chunk.c: new chunks */
/* A new block group of type (type bits) with the profile in use: registered in memory now. */
int trans_new_block_group(struct btrfs_trans *t, u64 type, struct wblock_group **out);
/* Commit round: the items of new block groups (chunk, dev items, dev extents, bg, free space). */
int trans_insert_new_chunks(struct btrfs_trans *t, bool *progress);
/* Superblock of the commit: system chunks into sys_chunk_array. */
int trans_new_chunks_super(struct btrfs_trans *t, struct btrfs_super_block *sb);
/*
 * The chunk tree's device item of every device of fs->devices, as the
 * transaction leaves it: items[i] with found[i], found[i] false when the
 * tree has none.  0 or the negative errno of a failed read.
 */
int trans_chunk_dev_items(struct btrfs_trans *t, struct btrfs_dev_item *items, bool *found);
/*
 * A device's superblock copy of its item takes the chunk tree's sizes
 * (total_bytes, bytes_used): each superblock carries its device's item.
 */
void trans_super_dev_item_sync(struct btrfs_dev_item *super_di, const struct btrfs_dev_item *tree_di);
/* Add delta to the bytes_used of devid's dev item in the chunk tree: 0, -EUCLEAN (printed), < 0. */
int trans_dev_item_add(struct btrfs_trans *t, u64 devid, s64 delta);
/* A DEV_EXTENT (devid, physical) of len bytes for the chunk at chunk_offset; bytes_used follows. */
int trans_insert_dev_extent(struct btrfs_trans *t, struct btrfs_wroot *dev, u64 devid, u64 physical,
			    u64 chunk_offset, u64 len);
/* chunk-remap.c: the superblock of a commit after btrfs_trans_remap_chunk() */
int trans_remap_super(struct btrfs_trans *t, struct btrfs_super_block *sb);
/* A transaction that did not commit puts the old chunk mapping back. */
void trans_remap_release(struct btrfs_trans *t);
/* Forget new chunks (dropped from the chunk map unless committed); free the placement state. */
void trans_release_new_chunks(struct btrfs_trans *t);
/* Space of a block allocated and freed inside t: reusable again. */
int extent_alloc_return_block(struct btrfs_trans *t, u64 bytenr);
int extent_alloc_insert_tree_block_item(struct btrfs_trans *t, const struct trans_block *tb);
/*
 * The head of a new extent item of t with one reference: buf (len bytes, the
 * item and its inline references) zeroed, refs 1, generation t's, flags.
 */
void extent_alloc_item_init(const struct btrfs_trans *t, void *buf, size_t len, u64 flags);
int extent_alloc_drop_tree_block_item(struct btrfs_trans *t, const struct pinned_block *pb);
int extent_alloc_update_block_group_item(struct btrfs_trans *t, struct wblock_group *bg);

/*
 * Shared tree blocks: refs/flags of a block's extent item, set flags, drop
 * one inline ref (adding one is btrfs_tree_block_ref_inc(), transaction.h).
 */
int extent_alloc_tree_block_refs(struct btrfs_trans *t, u64 bytenr, int level, u64 *refs, u64 *flags);
int extent_alloc_tree_block_set_flags(struct btrfs_trans *t, u64 bytenr, int level, u64 flags);
int extent_alloc_tree_block_ref_dec(struct btrfs_trans *t, u64 bytenr, int level, u8 type, u64 offset);

/* The used ranges [start, end) of the extent tree (EXTENT_ITEM/METADATA_ITEM), sorted. */
int extent_alloc_used_ranges(struct btrfs_trans *t, u64 start, u64 end, struct fs_range **out, int *nr);

/* transaction.c, for free_space_tree_rebuild() */
int trans_settle_refs(struct btrfs_trans *t);
void trans_fst_all_done(struct btrfs_trans *t);
/* Every block of the tree freed, an empty leaf its new root (unreadable leaves freed unread). */
int trans_reset_tree(struct btrfs_trans *t, struct btrfs_wroot *root);
/*
 * tree-drop.c: free the subtree at bytenr of owner's tree.  Leaves are freed
 * without being read (their address, owner and level are all the extent
 * tree needs): a tree with damaged leaves can still be emptied.  An
 * unreadable node is an error (its children are unknown), or in lenient
 * mode a warning, the node and its children left allocated.
 */
int trans_free_subtree(struct btrfs_trans *t, u64 owner, u64 bytenr, int level, u64 gen,
		       const struct btrfs_disk_key *first);
/* One new empty leaf as root's root block (its old blocks already freed). */
int trans_new_empty_root(struct btrfs_trans *t, struct btrfs_wroot *root);

/* ---- free-space-tree.c: ranges inside one block group ---- */
/*
 * Free space tree updates inside a transaction (free-space-tree.c).
 *
 * Per block group: (start, FREE_SPACE_INFO, length) with extent_count (free
 * extents) and flags; the free space itself either as (start,
 * FREE_SPACE_EXTENT, len) items, or with USING_BITMAPS as (start,
 * FREE_SPACE_BITMAP, len) items whose bit i (byte i / 8, bit i % 8) set
 * means sector start + i * sectorsize is free.  A range is taken out with
 * free_space_tree_remove_range() (it must be entirely free) and given back with
 * free_space_tree_add_range() (it must be entirely used); neighbouring free extents are
 * merged and extent_count follows.  After each change the block group
 * switches format at the kernel's thresholds: to bitmaps (one item per
 * 2048 sectors, 256 bytes, the last one shorter) when extent_count exceeds
 * HIGH = bitmap items needed for the block group * (25 + 256) / 25 (the
 * room bitmaps would take, counted in item headers), back to extents when
 * it drops below HIGH - 100 (never when HIGH <= 100).  A rebuilt tree is
 * converted the same way.
 *
 * A range that is not in the state expected is -EUCLEAN naming block group
 * and range.
 */
int free_space_tree_remove_range(struct btrfs_trans *t, u64 start, u64 len);
int free_space_tree_add_range(struct btrfs_trans *t, u64 start, u64 len);
/* Rewrite the free space tree from the extent tree (creating it if needed). */
int free_space_tree_rebuild(struct btrfs_trans *t);

#endif

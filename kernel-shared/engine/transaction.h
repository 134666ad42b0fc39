/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write engine: copy-on-write b-tree transactions.
 *
 *   struct btrfs_trans *t;
 *   ret = btrfs_start_transaction(fs, &t);          fs opened with writable = true
 *   ret = btrfs_trans_get_root(t, BTRFS_FS_TREE_OBJECTID, &root);
 *   ret = btrfs_insert_item(t, root, &key, data, size);
 *   ...
 *   ret = btrfs_commit_transaction(t);              frees t, success or not
 *   (or btrfs_abort_transaction(t): nothing written, t freed)
 *
 * Model.  A transaction has id super generation + 1.  Every tree block
 * modified is first copied (CoW) to a newly allocated block owned by the
 * transaction ("dirty", kept in memory until commit, header generation =
 * transid); the parent pointer (or the root) is moved to the copy and the
 * old block is "pinned": its space is not reused before the commit, so the
 * committed generation stays intact on disk whatever happens before the
 * superblock is written.  A block allocated and freed inside one
 * transaction is simply forgotten and its space reused.
 *
 * New chunks: when no block group has room for a tree block a chunk of
 * the profile in use is made at once in memory; its items (chunk tree,
 * dev tree, block group, free space tree) go in at the start of the next
 * commit round (trans-chunk.c).
 *
 * Commit: (0) the items of new chunks go in; (1) root items of the trees
 * whose root moved are updated in the root tree; (2) the extent tree gets
 * a METADATA_ITEM (skinny) or
 * EXTENT_ITEM + tree_block_info with one inline TREE_BLOCK_REF (owner) for
 * every new block and loses the items of the pinned ones; (3) block group
 * items' used bytes and (4) the free space tree (extent or bitmap form)
 * follow; these steps repeat until they dirty nothing new.  Then every
 * dirty block goes through btrfs_write_tree_block() (tree-checker, checksum,
 * every mirror; RAID5/6 rows by read-modify-write, see tree-write.h), the
 * devices are fsync'ed, and the superblock (generation,
 * roots, bytes_used, backup roots rotated as the kernel does, new system
 * chunks in sys_chunk_array; each device's dev_item with the sizes of its
 * item in the chunk tree) is written to every copy of every device, then fsync'ed again.  Any error before the
 * superblock write leaves the previous generation as the valid one.
 * Every commit copies the root tree's root block first, as the kernel
 * does: the superblock's generation must be its root tree block's, also
 * when nothing but superblock fields changed.
 *
 * Shared blocks (snapshots): a block that may be shared (another owner, or
 * a generation not newer than its subvolume's last_snapshot) is looked up
 * in the extent tree.  With refs > 1 or FULL_BACKREF its back references
 * and its children's (child blocks of a node; data extents referenced by
 * the file extents of a leaf) are moved as the kernel does
 * (trans_cow_prepare()).  Old-style (rev 0) back references are refused.
 *
 * Paths.  The engine moves the one struct btrfs_path of kernel-shared/read/ctree.h:
 * its nodes[] are either dirty blocks owned by the transaction (borrowed)
 * or clean copies owned by the path (read-only searches).  Release it with
 * btrfs_release_path(); btrfs_next_item()/btrfs_prev_item() move it through
 * the transaction it was searched in.
 * After btrfs_del_items() the path is released (search again to go on).
 */
#ifndef BTRFS_KIT_TRANSACTION_H
#define BTRFS_KIT_TRANSACTION_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/ctree.h"

struct btrfs_fs_info;
struct btrfs_trans;
struct btrfs_chunk_map;
struct chunk_placement;
struct chunk_alloc;
struct btrfs_block_writer;
struct block_writer_device;

/* One tree as a transaction sees it. */
struct btrfs_wroot {
	u64 objectid;
	u64 bytenr;            /* current root block */
	u8 level;
	u64 last_snapshot;     /* from the root item: blocks not newer may be shared */
	bool dirty;            /* root moved in this transaction */
	bool is_new;           /* created in this transaction (no ROOT_ITEM yet) */
	bool has_item;         /* item below is the tree's ROOT_ITEM */
	struct btrfs_root_item item;
	u64 item_key_offset;   /* key offset of the ROOT_ITEM */
	u32 item_size;         /* its size on disk */
	u64 item_bytenr;       /* bytenr, level, generation the ROOT_ITEM holds now */
	u8 item_level;
	u64 item_gen;
};

/*
 * Start a transaction.  Refuses (-EOPNOTSUPP, printed) a filesystem with a
 * log tree to replay, or a device missing or not opened read-write.
 */
int btrfs_start_transaction(struct btrfs_fs_info *fs, struct btrfs_trans **out);
/*
 * As btrfs_start_transaction(), with flags: BTRFS_TRANS_MISSING_BG_ITEMS
 * takes a chunk without a block group item (else refused) as a block group
 * whose item the caller adds (btrfs_trans_add_block_group_item(), check
 * --repair) before the commit, which refuses while one is missing.
 */
#define BTRFS_TRANS_MISSING_BG_ITEMS 0x1u
/*
 * BTRFS_TRANS_PROGS_ORDER: the commit copies blocks in btrfs-progs' order
 * (extent tree and free space tree, then the root tree, then the block
 * group items, whose flags btrfs_trans_set_block_group_flags() changes only
 * there), so that the new blocks land where a btrfs-progs commit of the
 * same changes puts them: image restore's fixup of a multi-device dump.
 */
#define BTRFS_TRANS_PROGS_ORDER 0x2u
int btrfs_start_transaction_flags(struct btrfs_fs_info *fs, unsigned int flags, struct btrfs_trans **out);

/* Write everything and the superblocks; t is freed whatever the result. */
int btrfs_commit_transaction(struct btrfs_trans *t);

/* Drop every change: nothing is written, t is freed. */
void btrfs_abort_transaction(struct btrfs_trans *t);

u64 btrfs_trans_transid(const struct btrfs_trans *t);

/*
 * Fault injection for crash-safety tests: the commit writes all tree blocks
 * and flushes, then fails with -EIO before any superblock is written.
 */
void btrfs_trans_fail_before_super(struct btrfs_trans *t, bool fail);

/*
 * The commit calls fn(t, arg) once everything is computed (the commit
 * rounds have settled: every new tree block is in memory, the root items
 * and the extent, block group and free space trees are final) and before
 * the first byte is written.  fn returning non-zero (a negative errno)
 * stops the commit: nothing is written, t is freed and the commit returns
 * that value.  check --repair uses it for --dry-run.
 */
void btrfs_trans_set_verdict(struct btrfs_trans *t, int (*fn)(struct btrfs_trans *t, void *arg),
			     void *arg);

/*
 * Only inside the verdict: fn(fs, arg) reads the filesystem as the commit
 * will leave it, without a byte written: the new superblock (root
 * pointers, generation, counters), the commit's tree blocks from memory
 * (flagged and checksummed as they will be written; each the only copy),
 * every other block from the devices, blocks mended in memory
 * (btrfs_override_tree_block()) not served.  The block cache is dropped
 * before and after; fs is as before when fn returns.  fn's value, or
 * -EINVAL outside a verdict, a negative errno.  check --repair runs its
 * re-check through it.  Limit: chunks the transaction adds are not in the
 * view's chunk map.
 */
int btrfs_trans_view(struct btrfs_trans *t, int (*fn)(struct btrfs_fs_info *fs, void *arg),
		     void *arg);

/*
 * The tree objectid (ROOT_TREE, CHUNK_TREE, or any tree with a ROOT_ITEM
 * (objectid, ROOT_ITEM, 0)): 0 with *root (owned by t), -ENOENT.
 */
int btrfs_trans_get_root(struct btrfs_trans *t, u64 objectid, struct btrfs_wroot **root);

/*
 * devid's DEV_ITEM in the chunk tree, copied for modification: 0 with path
 * at it (release it), -ENOENT without one, -EUCLEAN when it is too short.
 */
int btrfs_trans_dev_item(struct btrfs_trans *t, u64 devid, struct btrfs_path *path);

/*
 * A new empty tree (one empty leaf); its ROOT_ITEM (objectid, ROOT_ITEM, 0)
 * is inserted into the root tree at commit.  -EEXIST if it exists.
 */
int btrfs_create_tree(struct btrfs_trans *t, u64 objectid, struct btrfs_wroot **root);

/*
 * Search key in root, as the kernel's btrfs_search_slot: 0 found (path at
 * the item), 1 not found (path at the slot where it would go, possibly
 * nritems), < 0 error.  cow: every block on the way down is copied so that
 * the leaf may be modified.  ins_len > 0 (needs cow): the leaf ends with at
 * least ins_len free bytes (an insert needs item size + sizeof(struct
 * btrfs_item), an extension the extra bytes) and nodes on the way are split
 * when nearly full.  ins_len < 0 (a delete will follow): accepted, the
 * rebalancing happens in btrfs_del_items().  kernel-shared/read's btrfs_search() with
 * a transaction comes here (the tree by id).
 */
int btrfs_search_slot(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      struct btrfs_path *path, int ins_len, int cow);


/*
 * btrfs_search_key() on the tree as transaction t sees it (no CoW): the
 * item with key (EXACT), the first item >= key (NEXT) or the last item <=
 * key (PREV).  0 with the path at it and *found set (may be NULL), 1 when
 * there is none, < 0.  Move on with btrfs_next_item()/btrfs_prev_item().
 */
int btrfs_trans_search_key(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      enum btrfs_search_mode mode, struct btrfs_path *path, struct btrfs_key *found);
/* The same for the key found alone (*found, not NULL): no path is kept. */
int btrfs_trans_find_key(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
			 enum btrfs_search_mode mode, struct btrfs_key *found);

/*
 * Insert nr items with keys (sorted, none existing, all sorting between the
 * same two neighbours) and sizes into one leaf: the path is left at the
 * first new item, data zeroed for the caller to fill.  -EEXIST if a key
 * exists, -E2BIG if they cannot share one leaf.
 */
int btrfs_insert_empty_items(struct btrfs_trans *t, struct btrfs_wroot *root,
			     struct btrfs_path *path, const struct btrfs_key *keys,
			     const u32 *sizes, int nr);
/* One item with its data; path released. */
int btrfs_insert_item(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      const void *data, u32 size);

/*
 * Delete nr items from slot of the leaf at path (which came from a cow
 * search); leaves and nodes left small are merged into neighbours, empty
 * ones freed, the root shrunk.  The path is released.
 */
int btrfs_del_items(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
		    int slot, int nr);
/* Search key and delete that item: 0, -ENOENT. */
int btrfs_delete_item(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key);

/*
 * Grow the item at the path by extra bytes (zeroed, at its end).  The path
 * must come from btrfs_search_slot(..., ins_len = extra, cow = 1).
 */
int btrfs_extend_item(struct btrfs_trans *t, struct btrfs_path *path, u32 extra);
/*
 * Shrink the item at the path (cow search) to new_size bytes, cutting its
 * end (from_end) or its start.
 */
int btrfs_truncate_item(struct btrfs_trans *t, struct btrfs_path *path, u32 new_size,
			bool from_end);

/* ---- For repair tools ---------------------------------------------------- */

/*
 * Account an extent the caller added to (alloc) or removed from the extent
 * tree itself (data extents; tree blocks are the engine's business):
 * block group used and super bytes_used follow at once, the free space
 * tree at commit.  The range must lie in one block group; while the
 * transaction lasts it is never handed out for tree blocks.  -EINVAL.
 */
int btrfs_account_extent(struct btrfs_trans *t, u64 bytenr, u64 len, bool alloc);

/*
 * Lenient mode (repair of a damaged extent or free space tree): a freed
 * tree block without its extent item, or a free space tree range not in
 * the state expected, is a warning instead of an error.  Shared blocks are
 * still refused.
 */
void btrfs_trans_set_lenient(struct btrfs_trans *t, bool lenient);

/*
 * At commit, replace the whole free space tree by one computed from the
 * extent tree (every block group: FREE_SPACE_INFO and extent items, the
 * gaps between EXTENT_ITEM/METADATA_ITEM keys).  On a filesystem without
 * one the tree is created and the FREE_SPACE_TREE(_VALID) compat_ro bits
 * are set.
 */
void btrfs_trans_rebuild_free_space_tree(struct btrfs_trans *t);

/*
 * Free every block of a tree (blocks that cannot be read are skipped with
 * a warning in lenient mode, else an error) and give it one empty leaf as
 * root: for rebuilding a tree such as the csum tree.  Refused
 * (-EOPNOTSUPP) for a tree that may share blocks (last_snapshot set), the
 * root, chunk, extent and free space trees.
 */
int btrfs_reset_tree(struct btrfs_trans *t, struct btrfs_wroot *root);

/*
 * (tree-drop.c) btrfs_reset_tree() for a tree whose leaves may be damaged
 * (the csum tree before it is rebuilt): only nodes are read, leaves are
 * freed by address.  Refused (-EOPNOTSUPP) for a tree that may share
 * blocks; the caller decides which trees make sense.
 */
int btrfs_empty_tree(struct btrfs_trans *t, struct btrfs_wroot *root);

/*
 * (tree-drop.c) Free every block of tree objectid and delete its ROOT_ITEM:
 * the tree is gone after the commit.  Refused (-EOPNOTSUPP) for the root,
 * chunk, extent, block group and dev trees, subvolumes, and a tree that may
 * share blocks.  The tree must be readable in full (else nothing changes).
 */
int btrfs_drop_tree(struct btrfs_trans *t, u64 objectid);

/*
 * Remove the free space tree (space cache v2): its blocks freed, its
 * ROOT_ITEM deleted, and at commit the FREE_SPACE_TREE and
 * FREE_SPACE_TREE_VALID compat_ro bits cleared.  Must come before any other
 * change in t.  Refused (-EOPNOTSUPP) with the block group tree, which the
 * kernel only accepts beside a free space tree.
 */
int btrfs_drop_free_space_tree(struct btrfs_trans *t);

/* At commit set the superblock's cache_generation to (u64)-1: space cache v1 is invalid. */
void btrfs_trans_invalidate_space_cache_v1(struct btrfs_trans *t);

/*
 * Read tree block bytenr of tree (level, generation gen, first key first
 * when not NULL) as t sees it: *out is t's dirty copy (*owned false, do not
 * free) or a clean read (*owned true, free_extent_buffer() it).  0 or < 0.
 */
int btrfs_trans_read_block(struct btrfs_trans *t, u64 tree, u64 bytenr, int level, u64 gen,
			   const struct btrfs_disk_key *first, struct extent_buffer **out,
			   bool *owned);

/* The filesystem t writes to. */
struct btrfs_fs_info *btrfs_trans_fs(const struct btrfs_trans *t);
/* Tree blocks t holds in memory until the commit writes them. */
u64 btrfs_trans_dirty_blocks(const struct btrfs_trans *t);
/*
 * Run the tree-checker over every dirty block, as the commit will before
 * writing it (for tests of the b-tree): the number of blocks it refuses.
 */
int btrfs_trans_check_dirty_blocks(struct btrfs_trans *t);
/* The free space tree is in use (the commit keeps it up to date). */
bool btrfs_trans_has_free_space_tree(const struct btrfs_trans *t);
/*
 * Block groups t knows: grows when t makes a chunk (a block writer made
 * before does not know the new chunk: make another).
 */
int btrfs_trans_nr_block_groups(const struct btrfs_trans *t);
/*
 * A block writer over the devices and the current chunk map (new chunks
 * included).  When *devs was set, release the writer and free *devs
 * whatever the result.
 */
int btrfs_trans_block_writer_init(struct btrfs_trans *t, struct btrfs_block_writer *w,
				  struct block_writer_device **devs);

/*
 * Used bytes of the block group starting at start (its item as t sees it):
 * 0, -ENOENT when no block group starts there.
 */
int btrfs_trans_block_group_used(struct btrfs_trans *t, u64 start, u64 *used);
/* Set them (repair of a wrong count): the item follows at once.  0, -ENOENT, < 0. */
int btrfs_trans_set_block_group_used(struct btrfs_trans *t, u64 start, u64 used);
/*
 * Set the flags of the block group starting at start (repair of a damaged
 * item): the allocator's view and the item at once (nothing when they are
 * the same already).  0, -ENOENT, < 0.
 */
int btrfs_trans_set_block_group_flags(struct btrfs_trans *t, u64 start, u64 flags);
/*
 * Insert the DEV_EXTENT of a stripe of the chunk at chunk_offset: len bytes
 * of devid at physical; the DEV_ITEM's bytes_used grows by len.  0, < 0.
 */
int btrfs_insert_dev_extent(struct btrfs_trans *t, u64 devid, u64 physical, u64 chunk_offset, u64 len);
/*
 * Add the missing item of the block group starting at start (taken so at
 * the start, BTRFS_TRANS_MISSING_BG_ITEMS) with used bytes and its chunk's
 * type as flags.  0, -ENOENT (no such block group, or it has its item), < 0.
 */
int btrfs_trans_add_block_group_item(struct btrfs_trans *t, u64 start, u64 used);

/*
 * btrfs_account_extent() that leaves the free space tree alone: for a
 * repair that rebuilds it at commit (btrfs_trans_rebuild_free_space_tree()),
 * the old tree need not agree with the old extent tree.
 */
int btrfs_account_extent_keep_free_space_tree(struct btrfs_trans *t, u64 bytenr, u64 len,
					      bool alloc);

/*
 * Add one inline back reference to the extent item of tree block bytenr
 * (level): type TREE_BLOCK_REF (offset = root) or SHARED_BLOCK_REF (offset
 * = parent).
 */
int btrfs_tree_block_ref_inc(struct btrfs_trans *t, u64 bytenr, int level, u8 type, u64 offset);

/* One data back reference: SHARED_DATA_REF (parent) or EXTENT_DATA_REF (root, ino, offset). */
struct btrfs_data_ref {
	u8 type;
	u64 parent;
	u64 root;
	u64 ino;
	u64 offset;
};
/* Add (delta 1) or drop (delta -1) one count of a data back reference of extent bytenr+len. */
int btrfs_data_ref_mod(struct btrfs_trans *t, u64 bytenr, u64 len, const struct btrfs_data_ref *ref,
		       int delta);


/*
 * (super-settle.c) Finish the superblock writes of a commit a kill or power
 * cut interrupted: every copy of every device older than the committed
 * generation (or not valid) gets the committed superblock, and those
 * devices are flushed, so that nothing written next can land on a block or
 * dev extent that an older copy still names.  Once per open: the commit
 * calls it before its first block write, and a command that writes on the
 * devices outside a commit (offline balance's copy) before that write.
 * 0 (nothing written when the copies agree) or a negative errno.
 */
int btrfs_settle_supers(struct btrfs_fs_info *fs);

/*
 * (chunk-remap.c) Offline balance: the chunk at logical gets a new physical
 * layout, item (a CHUNK_ITEM of item_size bytes with the same length and
 * type bits, any profile), keeping its logical address.  In t: the chunk
 * item replaced, the old stripes' dev extents deleted and the new ones
 * inserted, dev items' bytes_used, the block group item's flags, and the
 * filesystem's chunk map (reads and the commit's writes of blocks in the
 * chunk use the new layout; put back if t does not commit).  At commit the
 * superblock's sys_chunk_array entry (system chunk) and the RAID56 and
 * RAID1C34 incompat bits follow (set while a chunk of such a profile
 * exists, cleared when none is left).  The caller has copied the chunk's
 * bytes to the new stripes and flushed them: the superblock write switches
 * from the old layout to the new one.  One remap per transaction.  0,
 * -ENOENT (no chunk there), -EINVAL, -EUCLEAN, < 0, after an error().
 */
int btrfs_trans_remap_chunk(struct btrfs_trans *t, u64 logical, const struct btrfs_chunk *item,
			    u32 item_size);

/*
 * (chunk-remap.c) At commit the superblock's sys_chunk_array entry of the
 * system chunk at logical becomes item (size bytes, copied; a later call
 * for the same chunk replaces it): a repair that corrects a system chunk's
 * item in the chunk tree keeps the copy the kernel maps it by the same.
 * 0, -ENOMEM, -EINVAL (not a system chunk item); a chunk the array does
 * not hold makes the commit fail (-EUCLEAN), nothing written.
 */
int btrfs_trans_set_sys_chunk(struct btrfs_trans *t, u64 logical, const struct btrfs_chunk *item, u32 size);

/* What a commit did (for tests and tools). */
struct btrfs_commit_stats {
	u64 transid;
	u64 blocks_written;     /* dirty tree blocks written */
	u64 blocks_pinned;      /* blocks of the old generation freed */
	u64 rounds;             /* passes of the extent/free space/root item updates */
};
/* btrfs_commit_transaction() that also reports what it did (st may be NULL). */
int btrfs_commit_transaction_stats(struct btrfs_trans *t, struct btrfs_commit_stats *st);

/*
 * Data extents (for repair tools, image restore, offline balance).
 *
 * btrfs_alloc_data_extent(): len bytes (sectorsize multiple, at most
 * 128 MiB) in a DATA block group, first fit in address order, never over a
 * superblock copy; when no data block group has room a new data chunk is
 * made with the data profile in use.  The extent item (bytenr, EXTENT_ITEM,
 * len) gets refs 1, flags DATA and one inline EXTENT_DATA_REF (root, ino,
 * offset, count 1): offset is the file offset minus the file extent's
 * offset, as in the kernel.  Accounted as btrfs_account_extent() does.
 * The caller writes the data (btrfs_trans_write_data()) and the file
 * extent item.
 */
int btrfs_alloc_data_extent(struct btrfs_trans *t, u64 len, u64 root, u64 ino, u64 offset,
			    u64 *bytenr);
/*
 * btrfs_alloc_data_extent() that may give less: *len bytes wanted; when no
 * DATA block group has them, what is left there (halves, down to one
 * sector: chunks fill up), and only then a new data chunk; *len set.
 * -ENOSPC is printed only by the chunk allocator.
 */
int btrfs_alloc_data_extent_upto(struct btrfs_trans *t, u64 *len, u64 root, u64 ino, u64 offset,
				 u64 *bytenr);
/*
 * Drop a data extent whose only reference is one EXTENT_DATA_REF (inline or
 * keyed) of count 1: its items go, its space is free after the commit.
 * -EOPNOTSUPP (printed) for a shared extent, -ENOENT if there is none.
 */
int btrfs_free_data_extent(struct btrfs_trans *t, u64 bytenr, u64 len);
/* Write len bytes at logical (every copy) now: data of an extent allocated in t. */
int btrfs_trans_write_data(struct btrfs_trans *t, u64 logical, const void *buf, u64 len);

#endif

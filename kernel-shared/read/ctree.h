/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory filesystem context and the read path's public API.
 *
 * This header is the contract between the read path (volumes.c, disk-io.c,
 * tree-checker.c), the printers (print-tree.c) and the commands.  On-disk
 * structures and their accessors are in format.h / accessors.h.
 */
#ifndef BTRFS_KIT_CTREE_H
#define BTRFS_KIT_CTREE_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/extent-buffer.h"


/*
 * What a verified read must find in the header; zero/negative fields mean
 * "not known, do not check".
 */
struct tree_check {
	u64 owner;                      /* expected owner tree id, 0 = any */
	int level;                      /* expected level, -1 = any */
	u64 transid;                    /* generation from the parent's pointer, 0 = any */
	const struct btrfs_disk_key *first_key;  /* from the parent's pointer, NULL = any */
};

/* What the tree-checker needs to know of the filesystem, for reads and writes alike. */
struct btrfs_fs_geometry {
	u32 nodesize;
	u32 sectorsize;
	u16 csum_type;
	u16 csum_size;
	u64 incompat_flags;
	u64 compat_ro_flags;
	u64 super_generation;   /* the newest generation a block may carry */
	u8 fsid[BTRFS_FSID_SIZE];          /* the fsid headers carry (metadata_uuid if set) */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
};

struct btrfs_fs_info;   /* defined by disk-io.h; commands use the functions below */

/* How to open: device paths, scanning, which superblock, how strict. */
struct btrfs_open_args {
	char *const *devices;   /* device or image paths named by the user */
	int ndevices;
	bool noscan;            /* do not look for other members with libblkid */
	u64 super_bytenr;       /* 0 = primary (64 KiB) */
	bool writable;          /* open devices read-write */
	/*
	 * A device whose primary superblock does not verify (a power cut tore
	 * its write) is opened by its newest valid copy, with a warning: for a
	 * writer whose first write brings every copy up to date
	 * (btrfs_settle_supers(): offline balance).
	 */
	bool primary_fallback;
	bool partial;           /* keep going when trees are damaged (dump-tree, check) */
	bool use_backup_root;   /* roots from the newest backup root slot (check -b) */
	u64 tree_root_bytenr;   /* root tree root block, 0 = the superblock's (check --tree-root) */
	u64 chunk_root_bytenr;  /* chunk tree root block, 0 = the superblock's (check --chunk-root) */
	bool temporary_super;   /* an unfinished mkfs (BTRFS_MAGIC_TEMPORARY), nothing else */
	/*
	 * A device the chunk tree names but no chunk uses is forgotten, not
	 * missing (image restore onto one device: it deletes their items).
	 */
	bool forget_unused_devices;
	/*
	 * A device the chunk tree names and nobody gave or found: said as
	 * btrfs-progs says it in its text output, "warning, device N is
	 * missing" on stdout (dump-tree, check); else (stdout carries data or
	 * JSON) a warning with the device's uuid on stderr.
	 */
	bool missing_on_stdout;
	/*
	 * check: a chunk or root tree root block whose header generation
	 * differs from the superblock's (generation, chunk_root_generation)
	 * is read with its own generation when a backup root names that block
	 * with it (two witnesses against one field): the superblock copy in
	 * memory takes it, btrfs_fs_generation_fixes() says what changed.
	 */
	bool trust_backup_generations;
	/*
	 * check: called when the chunk tree's root block does not read as the
	 * superblock names it, or the chunk tree holds chunks that overlap (the
	 * system chunks are mapped by then; why says which).  It may put a
	 * mended copy in (btrfs_override_tree_block()) and return 1: the block
	 * and the chunk tree are read again.  NULL: the open fails there (an
	 * overlapping chunk is left out of the map).
	 */
	int (*mend_chunk_root)(struct btrfs_fs_info *fs, const char *why, void *arg);
	void *mend_chunk_root_arg;
	/*
	 * Key of a keyed checksum type (the CLI loads it by name with
	 * common/auth-key.h), NULL for none.  Opening checks it against the
	 * superblock's key check value first: a wrong key is -EKEYREJECTED after
	 * "wrong key for this filesystem", before any block is read.  A full
	 * keyed type without a key is refused (-ENOKEY); an authsum type without
	 * a key opens read-only with a warning (only the xxhash64 part is
	 * verified); a key on a plain type is refused (-EINVAL).  With the key,
	 * a superblock whose checksum fails is -EUCLEAN (damaged) or, authsum
	 * with its xxhash64 part matching, -EBADMSG (altered without the key).
	 * The bytes are
	 * not kept: wipe them after the call.
	 */
	const u8 *auth_key;
	size_t auth_key_len;
};

int btrfs_open_fs(const struct btrfs_open_args *args, struct btrfs_fs_info **out);
/*
 * What trust_backup_generations changed at open: which of the superblock's
 * generation and chunk_root_generation, and their values on disk; the copy
 * in memory holds the blocks' generations.
 */
struct btrfs_generation_fix {
	bool generation_fixed, chunk_root_generation_fixed;
	u64 generation, chunk_root_generation;
	int backup;             /* the backup root slot that agreed (of the last fix) */
};
struct btrfs_generation_fix btrfs_fs_generation_fixes(const struct btrfs_fs_info *fs);
/*
 * trust_backup_generations: the fields of the superblock that failed its
 * validation and were mended in memory at open (btrfs_super_mend(), super.h),
 * the copy in memory holding the mended values: *out, and their number.
 */
struct btrfs_super_mend;
#define BTRFS_SUPER_MENDS_MAX 16
int btrfs_fs_super_mends(const struct btrfs_fs_info *fs, const struct btrfs_super_mend **out);
void btrfs_close_fs(struct btrfs_fs_info *fs);
/*
 * A second reader of an open filesystem, for another thread: it shares
 * everything the read path only reads (devices, chunk map, superblock,
 * checksum context, mended blocks) and has a block cache of its own, so two
 * threads may read at once as long as neither changes fs (no transaction,
 * no btrfs_override_tree_block()).  0 or -ENOMEM.  btrfs_fs_reader_free()
 * adds its counters back to fs and frees it.
 */
int btrfs_fs_reader(struct btrfs_fs_info *fs, struct btrfs_fs_info **out);
void btrfs_fs_reader_free(struct btrfs_fs_info *fs, struct btrfs_fs_info *reader);
const struct btrfs_super_block *btrfs_fs_super(const struct btrfs_fs_info *fs);
const struct btrfs_fs_geometry *btrfs_fs_geometry(const struct btrfs_fs_info *fs);

/*
 * The slots of a block (node pointers, leaf items) that are both counted and
 * fit in it: a block read under a relaxed policy may hold an nritems the
 * tree-checker rejects.
 */
int btrfs_block_slots(const struct extent_buffer *eb);
/*
 * Tree block verifications that found a block ALTERED (authsum type, key
 * given: the keyed part fails, the xxhash64 part matches); 0 when none.
 * A count of verifications, not of distinct blocks.
 */
u64 btrfs_fs_altered_blocks(const struct btrfs_fs_info *fs);

/*
 * The one function that turns disk bytes into a tree block: range and
 * alignment checks before allocating, chunk mapping, then for each mirror:
 * read, checksum, header (bytenr, fsid, level, owner, generation, first key),
 * tree-checker.  On success *out holds a verified block (free_extent_buffer).
 * On failure it returns -EIO/-EUCLEAN after one error naming the logical
 * address, the mirrors tried and the reason.
 */
int btrfs_read_tree_block(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			  struct extent_buffer **out);

/*
 * The tree-checker on one block in memory (no I/O): 0 when valid, -EUCLEAN
 * after printing "corrupt <leaf|node>: root=%llu block=%llu slot=%d, <reason>".
 */
int btrfs_check_tree_block(const struct btrfs_fs_geometry *geo, const struct extent_buffer *eb);

/*
 * The same without printing: on -EUCLEAN the message (same grammar, no
 * "ERROR: " prefix) is written to msg (may be NULL).
 */
int btrfs_check_tree_block_msg(const struct btrfs_fs_geometry *geo, const struct extent_buffer *eb,
			       char *msg, size_t msglen);

/* ---- Reading with relaxations (rescue/printing tools) ------------------- */

/*
 * How btrfs_read_tree_block_policy() reads a block (NULL: as
 * btrfs_read_tree_block()).  A mirror's copy passes when every check not
 * relaxed holds: checksum, header against the tree_check, tree-checker.
 * Mirrors are tried in order and the first copy that passes is returned
 * with 0.  When none passes, on_failure says what comes back.  Each
 * relaxation used is the caller's explicit choice.
 */
enum read_relax {
	READ_NO_CSUM = 1U << 0,          /* the checksum is not verified */
	READ_NO_TREE_CHECKER = 1U << 1,  /* the tree-checker is not run */
	READ_ANY_TRANSID = 1U << 2,      /* the header's generation need not match */
};

enum read_on_failure {
	/* nothing in *out; -EUCLEAN (the last mirror read failed verification) or -EIO */
	READ_FAIL,
	/* the first mirror that could be read in full, with -EUCLEAN (the caller mends it) */
	READ_KEEP_BAD,
	/*
	 * btrfs-progs' read for printing: the first mirror that passes checksum
	 * and header but fails the tree-checker, with 0, after the
	 * tree-checker's message; as READ_FAIL when there is none.
	 */
	READ_CHECKER_SOFT,
};

struct read_policy {
	unsigned int relax;              /* enum read_relax bits */
	enum read_on_failure on_failure;
	bool quiet;                      /* print nothing: the caller reports */
};

int btrfs_read_tree_block_policy(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
				 const struct read_policy *policy, struct extent_buffer **out);

/* Number of mirrors a read of bytenr can try, 0 when it maps to no chunk. */
int btrfs_num_mirrors(struct btrfs_fs_info *fs, u64 bytenr);

/*
 * Raw bytes of one mirror (1-based), no verification at all (range checks
 * only): for dump-tree -b on damaged blocks and for tests.
 */
int btrfs_read_tree_block_mirror(struct btrfs_fs_info *fs, u64 bytenr, int mirror,
				 struct extent_buffer **out);

/*
 * Data bytes [logical, logical + len) from one mirror (1-based; RAID5/6: 1
 * the data stripe, 2 and 3 rebuilt from parity), inside one chunk.  0, or
 * -EIO / -EINVAL with the reason in msg.
 */
int btrfs_read_data_mirror(struct btrfs_fs_info *fs, u64 logical, int mirror, void *buf, u32 len,
			   char *msg, size_t msglen);

/* ---- Trees ---------------------------------------------------------------- */

/* Where a tree starts: its root block and what that block must carry. */
struct btrfs_tree_ref {
	u64 objectid;     /* tree id (owner of the root block) */
	u64 bytenr;       /* logical address of the root block */
	u8 level;         /* level of the root block */
	u64 generation;   /* generation of the root block, 0 = unknown */
};

/*
 * The root of tree objectid: ROOT_TREE, CHUNK_TREE and TREE_LOG (the log root
 * tree) come from the superblock, all others from the first ROOT_ITEM with
 * that objectid in the root tree.  0, -ENOENT when there is no such tree
 * (not printed), or another negative errno after an error.
 */
int btrfs_find_tree_root(struct btrfs_fs_info *fs, u64 objectid, struct btrfs_tree_ref *out);

/* A tree from a ROOT_ITEM (root tree leaf item at slot). */
void btrfs_tree_ref_from_root_item(struct btrfs_tree_ref *ref, u64 objectid,
				   const struct btrfs_root_item *ri);

struct btrfs_trans;    /* kernel-shared/engine: a transaction */
struct btrfs_wroot;    /* kernel-shared/engine: a tree as a transaction sees it */

/*
 * A position in a tree, for readers and the CoW b-tree alike: nodes[0] is
 * the leaf, nodes[level] the blocks above; slots[l] the slot in nodes[l].
 * Holds at most BTRFS_MAX_LEVEL blocks: memory does not grow with the tree.
 * Zero it (or btrfs_init_path) before first use; btrfs_release_path frees
 * the blocks it holds.
 *
 * How the path reads the blocks it moves to is set by the search that
 * positioned it.  btrfs_search_slot_ro()/btrfs_search_key() read committed
 * blocks through the read path (btrfs_read_tree_block_policy on fs, with the
 * loop guard below).  The engine's search (btrfs_search_slot() in
 * kernel-shared/engine, trans != NULL) reads through its transaction, which hands out
 * its own dirty blocks (borrowed: never freed by the path) before clean
 * copies from disk.  Either way the descent by key, next/previous item and
 * leaf are the functions below; the engine only adds copy-on-write and
 * splits on the way down (struct btrfs_search_ops).
 *
 * One search call, btrfs_search(), with an optional transaction: a committed
 * tree is named by a fixed struct btrfs_tree_ref read through fs; a tree
 * inside a transaction by its id, the engine finding its struct btrfs_wroot
 * (whose root block moves as it is copied, read through the transaction's
 * dirty blocks).  kernel-shared/read cannot call kernel-shared/engine, so the engine registers
 * its search in fs->trans_search and installs read_child in the paths it
 * positions; everything after the root (descent, next, previous,
 * positioning by mode) is the same code for both.
 */
struct btrfs_path {
	struct extent_buffer *nodes[BTRFS_MAX_LEVEL];
	int slots[BTRFS_MAX_LEVEL];
	bool borrowed[BTRFS_MAX_LEVEL];   /* a transaction's dirty block: not freed on release */
	int lowest_level;          /* stop descending at this level (0 = leaves) */
	struct btrfs_tree_ref tree;   /* the tree being walked (set by search) */
	/* loop guard: per level, the last key of the last block entered */
	struct btrfs_key last_key[BTRFS_MAX_LEVEL];
	u8 have_last;                 /* bit l: last_key[l] is set */
	/* the read path: set by a read-only search */
	struct btrfs_fs_info *fs;
	/* a transaction's path (trans != NULL): set by the engine's search */
	struct btrfs_trans *trans;
	struct btrfs_wroot *root;
	/* reads the child at slots[level] of nodes[level] into nodes[level - 1] */
	int (*read_child)(struct btrfs_path *path, int level);
};

void btrfs_init_path(struct btrfs_path *path);
void btrfs_release_path(struct btrfs_path *path);

/*
 * The key's place in one leaf or node, for readers and the CoW b-tree alike:
 * 0 and the slot holding key, or 1 and the first slot with a greater key
 * (nritems when none).
 */
int btrfs_bin_search(const struct extent_buffer *eb, const struct btrfs_key *key, int *slot);

/*
 * The one descent by key.  nodes[level] holds the start block (the root);
 * from there each block is searched with btrfs_bin_search(), its slot set
 * (in a node the last pointer whose key is <= key) and the child read, down
 * to the leaf or lowest_level.  ops is NULL for a read-only search; the
 * engine passes its copy-on-write (enter: before nodes[level] is searched)
 * and split (leave: after slots[level] is set; found is this level's
 * btrfs_bin_search() result) steps, which may move the path.  Returns 0
 * when key is found, 1 when not, a negative errno from a read or a step.
 */
struct btrfs_search_ops {
	int (*enter)(struct btrfs_path *path, int level, void *arg);
	int (*leave)(struct btrfs_path *path, int level, const struct btrfs_key *key, int found,
		     void *arg);
};

int btrfs_search_descend(struct btrfs_path *path, int level, const struct btrfs_key *key,
			 const struct btrfs_search_ops *ops, void *arg);

/*
 * Descend from the root to key.  Returns 0 when the item exists (path at its
 * slot), 1 when not (path at the slot where it would be inserted: possibly
 * nritems, past the leaf's last item), negative errno on a read error.
 * With lowest_level > 0 the descent stops there and slots[lowest_level] is
 * the last pointer whose key is <= key (1 is returned unless equal).
 */
int btrfs_search_slot_ro(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			 const struct btrfs_key *key, struct btrfs_path *path);

/*
 * The one search by key, for readers and writers.  trans NULL: the committed
 * tree that tree names, read only (btrfs_search_slot_ro() is this call with
 * ins_len = cow = 0; anything else is -EINVAL).  With a transaction: tree
 * tree->objectid as the transaction sees it (its dirty blocks), cow and
 * ins_len as the engine's btrfs_search_slot().  kernel-shared/read does not know
 * transactions: the engine sets fs->trans_search when it starts one, and
 * a transaction's search goes there.  Results as btrfs_search_slot_ro().
 */
struct btrfs_trans;

typedef int (*btrfs_trans_search_fn)(struct btrfs_trans *trans, u64 tree_id,
				     const struct btrfs_key *key, struct btrfs_path *path,
				     int ins_len, int cow);

int btrfs_search(struct btrfs_fs_info *fs, struct btrfs_trans *trans,
		 const struct btrfs_tree_ref *tree, const struct btrfs_key *key,
		 struct btrfs_path *path, int ins_len, int cow);

enum btrfs_search_mode {
	BTRFS_SEARCH_EXACT,   /* the item with this key */
	BTRFS_SEARCH_NEXT,    /* the first item with key >= this key */
	BTRFS_SEARCH_PREV,    /* the last item with key <= this key */
};

/*
 * Position path on an item by mode.  0 with the path at the item (and *found
 * filled when not NULL), 1 when there is no such item, negative errno.
 */
int btrfs_search_key(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct btrfs_key *key, enum btrfs_search_mode mode,
		     struct btrfs_path *path, struct btrfs_key *found);

/*
 * The positioning step of btrfs_search_key() (and of the engine's search
 * by mode) after a descent that returned ret (0 found, 1 not): the same
 * results as btrfs_search_key().
 */
int btrfs_search_position(struct btrfs_path *path, int ret, enum btrfs_search_mode mode,
			  struct btrfs_key *found);

/*
 * fn on every item of tree in key order from `from` on, with the path at the
 * item (path->fs, nodes[0], slots[0]) and its key.  mode NEXT starts at the
 * first item >= from; PREV at the last item <= from, or the first after it
 * when there is none (an item that may cover `from` from below, as a csum
 * item).  trans NULL walks the committed tree; with a transaction, tree
 * tree->objectid as the transaction sees it (as btrfs_search()).  fn returns
 * 0 to go on, > 0 to stop, or a negative errno.
 * Returns 0 or the first negative errno (of fn or of reading the tree).
 */
typedef int (*btrfs_item_fn)(struct btrfs_path *path, const struct btrfs_key *key, void *arg);
int btrfs_for_each_item(struct btrfs_fs_info *fs, struct btrfs_trans *trans,
			const struct btrfs_tree_ref *tree, const struct btrfs_key *from,
			enum btrfs_search_mode mode, btrfs_item_fn fn, void *arg);

/*
 * Move to the next / previous item (crossing leaves, skipping empty ones),
 * reading blocks as the search that positioned the path does.
 * 0 when the path is at an item, 1 at the end of the tree, negative errno.
 * next_leaf moves to the first item of the next leaf.  Keys must increase
 * from leaf to leaf: a block seen twice or out of order is -EUCLEAN, so a
 * cyclic tree cannot loop.
 */
int btrfs_next_item(struct btrfs_path *path);
int btrfs_next_leaf(struct btrfs_path *path);
int btrfs_prev_item(struct btrfs_path *path);

/* The key, data and data size of the item at the path. */
void btrfs_path_item_key(const struct btrfs_path *path, struct btrfs_key *key);
void *btrfs_path_item_ptr(const struct btrfs_path *path);
u32 btrfs_path_item_size(const struct btrfs_path *path);

/*
 * Visit every block of a tree.  DFS: a node, then each child's subtree in
 * slot order (dump-tree --dfs).  BFS: the root, then all blocks of the next
 * level down in key order, and so on (dump-tree --bfs, the default).
 *
 * fn is called once per block: with the verified block and err = 0, or on a
 * block that cannot be read with eb = the unverified bytes when the policy
 * keeps them (else NULL), bytenr and err < 0 (its subtree is skipped).  fn
 * returns 0 to go on, > 0 to stop the walk (returned as is), < 0 to abort
 * (returned).  The walk returns 0, or the first read error when fn never
 * stopped it (it still visits everything it can).  Memory is a path.
 */
enum btrfs_walk_order {
	BTRFS_WALK_BFS,
	BTRFS_WALK_DFS,
};

typedef int (*btrfs_walk_fn)(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
			     int err, void *ctx);

int btrfs_walk_tree(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		    enum btrfs_walk_order order, const struct read_policy *policy,
		    btrfs_walk_fn fn, void *ctx);

/*
 * As btrfs_walk_tree, from a root block the caller has read (visited first,
 * with err = 0).  tree->objectid 0 checks no owner below.  A root whose level
 * is BTRFS_MAX_LEVEL or more is visited alone and -EUCLEAN returned.
 * Flags: BTRFS_WALK_REVISIT follows every pointer without the key-order
 * guard, so a block reached twice is visited twice (dump-tree, as
 * btrfs-progs); the walk still ends, each child one level below its parent.
 */
#define BTRFS_WALK_REVISIT	(1U << 0)

int btrfs_walk_block(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
		     const struct extent_buffer *root, enum btrfs_walk_order order,
		     const struct read_policy *policy, unsigned int flags,
		     btrfs_walk_fn fn, void *ctx);

/*
 * As btrfs_walk_block, DFS only (-EINVAL for BFS), asking ptr_fn before it
 * follows each child pointer: the node, the slot, the child's address and
 * generation from the pointer, and the level the child must have.  ptr_fn
 * returns BTRFS_WALK_DESCEND (read and visit the child's subtree),
 * BTRFS_WALK_SKIP (leave that subtree out: seen through another pointer,
 * dropped, ...; fn is not called for it) or a negative errno, which stops
 * the walk and is returned.  A child fn is called for right after its
 * ptr_fn, so the caller may keep what ptr_fn saw for fn.
 */
enum btrfs_walk_ptr {
	BTRFS_WALK_DESCEND = 0,
	BTRFS_WALK_SKIP = 1,
};

typedef int (*btrfs_walk_ptr_fn)(struct btrfs_fs_info *fs, const struct extent_buffer *node,
				 int slot, u64 bytenr, u64 generation, int level, void *ctx);

int btrfs_walk_block_ptrs(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			  const struct extent_buffer *root, enum btrfs_walk_order order,
			  const struct read_policy *policy, unsigned int flags,
			  btrfs_walk_ptr_fn ptr_fn, btrfs_walk_fn fn, void *ctx);

#endif

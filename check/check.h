/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offline consistency checker (btrfs check): the contract between its
 * passes.  The checker sits above kernel-shared/: it reads through the
 * verified read path and knows no CLI (cmds/check.c parses options and fills
 * struct check_options).
 *
 * Passes, in the order btrfs-progs announces them ("[N/8] checking ..."):
 *   1 log                 check_log()          check/log.c
 *   2 root items          check_root_items()   check/roots.c
 *   3 extents             check_extents()      check/extents.c (+ block groups, dev extents)
 *   4 free space tree     check_free_space()   check/free-space.c
 *   5 fs roots            check_fs_roots()     check/fs-roots.c
 *   6 csums               check_csums()        check/csums.c
 *   7 root refs           check_root_refs()    check/root-refs.c
 *   8 quota groups        check_qgroups()      check/qgroups.c
 * check_run() (check/check.c) runs them, prints the pass lines and the
 * summary.
 *
 * Every pass returns 0 when it could run (problems found are counted with
 * check_error(), never returned), or a negative errno when it could not go on
 * at all.  Problems are reported with check_error(), which prints one
 * "ERROR: ..." line naming tree, key / inode / extent, expected and found.
 */
#ifndef BTRFS_KIT_CHECK_H
#define BTRFS_KIT_CHECK_H

#include <stdlib.h>
#include <string.h>
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/tree-key-types.h"

struct check_options {
	bool check_data_csum;     /* --check-data-csum: read and verify every data block */
	bool qgroup_report;       /* -Q: print the recomputed qgroup numbers */
	u64 subvol_extents;       /* -E ID: report extents shared with subvolume ID, 0 = off */
	bool progress;            /* -p: progress lines on stderr */
	bool repair;              /* --repair (needs the transaction engine) */
	bool dry_run;             /* --dry-run: the repair runs to its commit, then writes nothing */
	bool serial;              /* one thread (BTRFS_KIT_CHECK_SERIAL=1): pass 5 not beside 3 and 4 */
};

/* The summary figures btrfs-progs prints at the end. */
struct check_stats {
	u64 bytes_used;                 /* "found N bytes used" */
	u64 total_csum_bytes;
	u64 total_tree_bytes;
	u64 total_fs_tree_bytes;
	u64 total_extent_tree_bytes;
	u64 btree_space_waste;
	u64 data_bytes_allocated;       /* "file data blocks allocated" */
	u64 data_bytes_referenced;      /* " referenced" */
};

/* A byte range [start, end). */
struct check_range {
	u64 start;
	u64 end;
};

struct check_ctx {
	struct btrfs_fs_info *fs;
	const struct check_options *opts;
	struct check_stats stats;
	u64 errors;                     /* problems reported by check_error() */
	u64 pass_errors[8];             /* of those, found by pass 1..8 */
	u64 pass_fixable[8];            /* of those, with a repair queued (check_fixable) */
	int pass;                       /* index of the pass running (0..7) */
	struct check_fix *fixes;        /* queued repairs, applied by check_repair() */
	size_t fixes_nr;
	size_t fixes_alloc;
	bool repair_rebuild_fst;        /* a fix asks for the free space tree to be rebuilt */
	bool repair_super_dev_items;    /* a superblock's device item differs from the chunk tree's */
	struct check_salvage *salvage;  /* leaves mended before the passes (check/repair-leaves.h) */
	u64 items;                      /* items and blocks looked at (progress lines) */
	/* per-pass private state, owned by the pass that allocates it */
	void *extents_state;
	void *fs_roots_state;
	/* pass 1: data extents the log trees reference (sorted by start) */
	struct check_range *log_extents;
	size_t log_extents_nr;
	/*
	 * The caller's: pass 5 running on a second thread; that pass's own
	 * context: its thread (check/pass-thread.c).
	 */
	struct check_thread *thread;
};

/* Append one zeroed element to (t)->name, with (t)->name##_nr and _alloc; NULL if out of memory. */
#define CHECK_PUSH(t, name) \
	(ARRAY_GROW((t)->name, (t)->name##_nr, (t)->name##_alloc) ? NULL : \
	 memset(&(t)->name[(t)->name##_nr++], 0, sizeof(*(t)->name)))

/* A tree of files (inodes, names, file extents): a subvolume's or the data relocation tree. */
static inline bool check_is_file_tree(u64 id)
{
	return btrfs_is_subvolume_tree(id) || id == BTRFS_DATA_RELOC_TREE_OBJECTID;
}

/*
 * An item of tree with a key type no item of that tree has (the old inode
 * cache's items in a file tree have their own).
 */
static inline bool check_key_type_foreign(u64 tree, const struct btrfs_key *key)
{
	if (btrfs_tree_holds_key_type(tree, key->type))
		return false;
	return !check_is_file_tree(tree) ||
	       (key->objectid != BTRFS_FREE_INO_OBJECTID && key->objectid != BTRFS_FREE_SPACE_OBJECTID);
}

/* qsort and bsearch that accept an empty (NULL) array: the C library's may not. */
static inline void check_sort(void *base, size_t nr, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (nr)
		qsort(base, nr, size, cmp);
}

/* qsort/bsearch order of u64 values (also of structs that start with their u64 key). */
int check_cmp_u64(const void *a, const void *b);

static inline void *check_bsearch(const void *key, const void *base, size_t nr, size_t size,
				  int (*cmp)(const void *, const void *))
{
	return nr ? bsearch(key, base, nr, size, cmp) : NULL;
}

/* Progress lines (stderr): with -p or when stderr is a terminal. */
struct timespec;
bool check_progress_on(const struct check_ctx *ctx);
/* "      done (H:MM:SS elapsed, COUNT WHAT)" since t0 (CLOCK_MONOTONIC) */
void check_progress_done(const struct timespec *t0, u64 count, const char *what);

/* Report one problem (counted in ctx->errors); message without newline. */
void check_error(struct check_ctx *ctx, const char *fmt, ...) __printf(2, 3);

int check_log(struct check_ctx *ctx);
int check_root_items(struct check_ctx *ctx);
int check_extents(struct check_ctx *ctx);
int check_free_space(struct check_ctx *ctx);
/*
 * A block of tree_id that cannot be read (just reported): when it is the
 * free space tree, which is all derived from the extent tree, --repair
 * rebuilds it (the error answered); else nothing.
 */
void check_fst_block_unreadable(struct check_ctx *ctx, u64 tree_id);
int check_fs_roots(struct check_ctx *ctx);
int check_csums(struct check_ctx *ctx);
int check_root_refs(struct check_ctx *ctx);
/* The fix of a root item field (check/root-refs.c), queued with check_fixable(). */
struct check_root_item_fix {
	struct btrfs_key key;
	enum { CHECK_ROOT_REFS, CHECK_ROOT_DIRID, CHECK_ROOT_DROP_LEVEL } field;
	u64 value;
};
struct btrfs_trans;
int check_fix_root_item(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
int check_qgroups(struct check_ctx *ctx);

/*
 * Call fn for every item of tree from key from (NULL: the first) on; fn
 * returns 0 to go on, > 0 to stop, < 0 to abort.  0 at the end or when
 * stopped, negative errno when a block could not be read or fn aborted.
 */
typedef int (*check_item_fn)(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
			     const struct btrfs_key *key, void *arg);
int check_for_each_item(struct check_ctx *ctx, const struct btrfs_tree_ref *tree,
			const struct btrfs_key *from, check_item_fn fn, void *arg);

/* Do the csum tree's items cover every sector of [start, end)? */
bool check_csum_tree_covers(struct check_ctx *ctx, u64 start, u64 end);

/*
 * The byte ranges the csum tree's items cover, sorted, adjacent and
 * overlapping items merged (*spans to free).  0, -ENOENT without a csum
 * tree, or the negative errno of a read that failed.
 */
int check_csum_tree_spans(struct check_ctx *ctx, struct check_range **spans, size_t *nr);

/*
 * Pass 5 on a second thread (check/pass-thread.c): wanted unless
 * opts->serial or one CPU; started once pass 3 has walked the root tree
 * (0, or a negative errno: nothing started, run it in turn); joined where
 * it would begin: its messages printed, its counters and fixes added to
 * ctx's, *t0 set to when it started; its return value.
 */
bool check_thread_wanted(const struct check_ctx *ctx);
int check_thread_start(struct check_ctx *ctx);
int check_thread_join(struct check_ctx *ctx, struct timespec *t0);
/*
 * Pass 3's state once passes 3 and 4 are done with it: from pass 5 on a
 * second thread, waits for that.
 */
struct ext_state;
struct ext_state *check_extents_final(struct check_ctx *ctx);

/* All passes and the summary; 0 clean, 1 errors found, negative errno. */
int check_run(struct check_ctx *ctx);

/*
 * Repairs.  A pass that reports a problem it knows how to mend queues the
 * mending right after its check_error() with check_fixable(); with --repair,
 * check_repair() applies the queued fixes, in the order queued, in one
 * transaction, but only when every error of every pass has one (else nothing
 * is written).  fn NULL: the problem is mended by another queued fix (one fix
 * may answer several ERROR lines).  fn gets a private copy of arg (size
 * bytes) and returns 0 or a negative errno, which aborts the transaction:
 * the filesystem stays as it was.  Free space tree errors (pass 4) need no
 * fix queued: the tree is rebuilt from the (repaired) extent tree.
 */
struct btrfs_trans;
typedef int (*check_fix_fn)(struct check_ctx *ctx, struct btrfs_trans *t, void *arg);
/* When check_repair() runs a fix. */
enum check_fix_phase {
	CHECK_FIX_IN_TRANS,      /* in the repair's transaction, before the commit */
	CHECK_FIX_BEFORE_TRANS,  /* sets only what the transaction starts from in memory: t NULL, first */
	CHECK_FIX_AFTER_COMMIT,  /* writes to the devices itself: t NULL, once the commit succeeded */
};
struct check_fix {
	check_fix_fn fn;
	void *arg;
	int pass;
	enum check_fix_phase phase;
};
int check_fixable(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size);
/* As check_fixable(), for a fix that writes itself: run only after a successful commit. */
int check_fixable_after_commit(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size);
/*
 * As check_fixable(), for a fix of the in-memory filesystem context that the
 * transaction is started from (the chunk map its allocator loads block
 * groups by): run, t NULL, once every pass is done, before it starts.  The
 * companion of a fix queued with check_fixable() that answers the error: it
 * does not count as one more.
 */
int check_fixable_before_trans(struct check_ctx *ctx, check_fix_fn fn, const void *arg, size_t size);

/*
 * After check_run found errors: repair what the passes recorded, through the
 * transaction engine (check/repair.c).  CHECK_REPAIRED when something was
 * written (the caller reopens the filesystem and checks again), 0 when
 * nothing needed it, 1 when errors remain that cannot be repaired.
 */
#define CHECK_REPAIRED 2
int check_repair(struct check_ctx *ctx);

/* Free the passes' state (check_fs_roots_free: check/fs-roots.c's part). */
void check_fs_roots_free(struct check_ctx *ctx);
void check_ctx_free(struct check_ctx *ctx);

#endif

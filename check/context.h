/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker's context (check/context.c): what every pass, mend and repair
 * shares.  The check_ctx, the errors (check_error(): one "ERROR: ..." line
 * naming tree, key / inode / extent, expected and found), the queued
 * repairs (check_fixable()), item iteration (check/iter.c), progress lines.
 * It calls no pass; the driver (check/driver.c) runs the passes
 * (check/passes.h), whose records the later passes read (check/extent-records.h).
 * check/check.h is what cmds/ calls.
 *
 * Every pass returns 0 when it could run (problems found are counted with
 * check_error(), never returned), or a negative errno when it could not go on
 * at all.
 */
#ifndef BTRFS_KIT_CHECK_CONTEXT_H
#define BTRFS_KIT_CHECK_CONTEXT_H

#include <pthread.h>
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
	/* the driver's: pass 5 running on a second thread (check/pass-thread.c) */
	struct check_thread *thread;
	/* a context of pass 5 on another thread: where pass 3's records come from */
	struct check_handoff *handoff;
};

/*
 * Pass 3's records handed to pass 5 running on other threads
 * (check/pass-thread.c makes one; check/context.c): published once passes 3
 * and 4 are done with them.
 */
struct ext_state;
struct check_handoff {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool published;
	struct ext_state *st;
};
void check_handoff_init(struct check_handoff *h);
void check_handoff_publish(struct check_handoff *h);
void check_handoff_destroy(struct check_handoff *h);
/*
 * Pass 3's records once passes 3 and 4 are done with them: ctx's own, or on
 * another thread, waits for them to be published.
 */
struct ext_state *check_extents_final(struct check_ctx *ctx);

/* --repair asked for: the passes queue fixes. */
static inline bool check_repairing(const struct check_ctx *ctx)
{
	return ctx->opts && ctx->opts->repair;
}

/*
 * A block of tree_id that cannot be read (just reported): when it is the
 * free space tree, which is all derived from the extent tree, --repair
 * rebuilds it (the error answered); else nothing.
 */
void check_fst_block_unreadable(struct check_ctx *ctx, u64 tree_id);

/* Append one zeroed element to (t)->name, with (t)->name##_nr and _alloc; NULL if out of memory. */
#define CHECK_PUSH(t, name) \
	(ARRAY_GROW((t)->name, (t)->name##_nr, (t)->name##_alloc) ? NULL : \
	 memset(&(t)->name[(t)->name##_nr++], 0, sizeof(*(t)->name)))

/* Free what member of each element of (t)->name points to, then the array (CHECK_PUSH's): empty again. */
#define CHECK_FREE_ARRAY(t, name, member) do { \
	for (size_t i_ = 0; i_ < (t)->name##_nr; i_++) \
		free((t)->name[i_].member); \
	free((t)->name); \
	(t)->name = NULL; \
	(t)->name##_nr = (t)->name##_alloc = 0; \
} while (0)

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


/*
 * Call fn for every item of tree from key from (NULL: the first) on; fn
 * returns 0 to go on, > 0 to stop, < 0 to abort.  0 at the end or when
 * stopped, negative errno when a block could not be read or fn aborted.
 */
typedef int (*check_item_fn)(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
			     const struct btrfs_key *key, void *arg);
int check_for_each_item(struct check_ctx *ctx, const struct btrfs_tree_ref *tree,
			const struct btrfs_key *from, check_item_fn fn, void *arg);




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



#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tree block headers: what one may say beyond what the read path verifies
 * (the rules the extents pass reports by), and mending a header whose
 * fields contradict the pointer that reached the block (check --repair,
 * called by check/repair-leaves.c before the passes).
 *
 * A block is only mended when its checksum is good, its fsid is the
 * filesystem's and its generation is the one its parent's pointer (or the
 * root item) gives: then a wrong bytenr, level, owner, flags word or leaf
 * item count is a damaged field, not a block written for another place or
 * time.  The generation itself is mended when it cannot be a block's
 * (0, beyond the superblock's), when it is newer than the pointer's while
 * the extent tree agrees with the pointer, or when it is older than the
 * pointer's while the content records a newer one (an earlier block, a
 * lost write, could not; see content_generation()).  The values come from the reaching pointer (bytenr, level), the tree
 * (owner), WRITTEN and the mixed back reference revision (flags), the
 * pointer's key (a leaf's first key that differs in one field while the
 * leaf fails the tree-checker or has a key type its tree does not), and the
 * item packing (nritems, only when the count in the header makes the leaf
 * fail the tree-checker, and only up to the key bound the parent gives, so
 * items split off to a right sibling are not taken back).  The mended block
 * must then pass the full read verification (header against the pointer,
 * tree-checker) or nothing is mended.
 */
#ifndef BTRFS_KIT_CHECK_HEADER_MEND_H
#define BTRFS_KIT_CHECK_HEADER_MEND_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/read/ctree.h"

/* Faults of a header the read path does not verify (bit mask). */
enum header_fault {
	HEADER_OWNER = 1 << 0,       /* not the tree, nor for a subvolume a subvolume */
	HEADER_UNKNOWN_FLAGS = 1 << 1,
	HEADER_NOT_WRITTEN = 1 << 2,
	HEADER_BACKREF_REV = 1 << 3, /* not 1 (0 only without mixed back refs) */
};

/*
 * The faults of eb's header as a block of tree_id of fs (log and relocation
 * trees name other owners: not judged).
 */
unsigned int check_header_faults(struct btrfs_fs_info *fs, u64 tree_id, const struct extent_buffer *eb);

/* What the pointer that reached a block says it is. */
struct header_expect {
	u64 bytenr;
	u64 tree;                   /* the tree whose walk reached it */
	int level;
	u64 transid;                /* the pointer's generation */
	bool have_first;            /* not for a root block */
	struct btrfs_key first;
	bool have_bound;            /* every key below bound (a right neighbour's first key) */
	struct btrfs_key bound;
	u64 parent;                 /* the node holding the pointer (0: a root block), */
	int slot;                   /* at this slot */
	/*
	 * A leaf's item count may be set from the packing: only once the leaf
	 * mend (leaf-mend.h), which keeps every item, could not mend the leaf.
	 */
	bool nritems;
};

/*
 * The faults of eb's header as a block reached as x says: those of
 * check_header_faults(), and a tree's root block (no parent's first key)
 * naming another owner than its tree, even a subvolume's: every read of a
 * root wants its own (a snapshot copies its root block under its own id).
 */
unsigned int check_expect_faults(struct btrfs_fs_info *fs, const struct header_expect *x,
				 const struct extent_buffer *eb);

/*
 * A copy of the block x names, its header mended, in *out: 1 (its checksum
 * is the caller's to recompute).  0: no copy could be mended safely or nothing
 * needed mending (*out NULL).  -ENOMEM.  Prints each change when mended.
 */
int check_mend_header(struct btrfs_fs_info *fs, const struct header_expect *x,
		      struct extent_buffer **out);

/*
 * A key tree cannot hold: a key type it has not; in the root tree a root item
 * of the root or chunk tree (they have none), or of a tree that is no
 * subvolume at another offset than 0.
 */
bool check_key_impossible(const struct btrfs_fs_info *fs, u64 tree, const struct btrfs_key *k);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct btrfs_fs_info: one opened filesystem (read path).  Commands use the
 * functions of ctree.h; code in kernel-shared/ may look inside.
 *
 * Open sequence (btrfs_open_fs):
 *   1. open every device named, read its superblock (magic + checksum);
 *      the one with the newest generation is the filesystem's super copy;
 *   2. unless noscan, find the other members with libblkid;
 *   3. bootstrap the chunk map from sys_chunk_array;
 *   4. read the whole chunk tree: chunk items into the map, dev items into
 *      the device list (devices not found are reported once, by devid and
 *      uuid; reads use the other mirrors);
 *   5. read and verify the root tree's root block.
 * Nothing else is cached except a small fixed block cache.  open.c opens,
 * disk-io.c reads and verifies blocks.
 */
#ifndef BTRFS_KIT_DISK_IO_H
#define BTRFS_KIT_DISK_IO_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/read/super.h"

#define BTRFS_BLOCK_CACHE_SLOTS 64

struct btrfs_block_cache_slot {
	u64 bytenr;                /* 0 = empty */
	struct extent_buffer *eb;  /* a verified block */
	bool checker_failed;       /* passed checksum and header only (READ_CHECKER_SOFT) */
};

struct btrfs_fs_info {
	struct btrfs_device_list devices;
	struct btrfs_chunk_tree_map chunks;
	struct btrfs_super_block *super;   /* the super copy the filesystem is read by */
	struct btrfs_fs_geometry geo;
	struct btrfs_csum csum;            /* the csum type, keyed with the key when one was given */
	struct btrfs_tree_ref tree_root;
	struct btrfs_tree_ref chunk_root;
	bool partial;
	u64 csum_altered;                  /* block reads found ALTERED (authsum with the key) */
	struct btrfs_generation_fix gen_fix;  /* trust_backup_generations */
	struct btrfs_super_mend super_mends[BTRFS_SUPER_MENDS_MAX];  /* trust_backup_generations */
	int super_mends_nr;
	struct btrfs_block_cache_slot cache[BTRFS_BLOCK_CACHE_SLOTS];
	/* blocks that passed the tree-checker, shared with the readers (checked-blocks.h) */
	struct btrfs_checked_blocks *checked;
	struct extent_buffer **overrides;  /* btrfs_override_tree_block() */
	size_t overrides_nr;
	size_t overrides_alloc;
	struct btrfs_write_log *write_log; /* opened read-write: BTRFS_KIT_WRITE_LOG (dev-write.h) */
	/* set by kernel-shared/engine: every superblock copy holds the committed generation (super-settle.c) */
	bool supers_settled;
	btrfs_trans_search_fn trans_search;   /* set by kernel-shared/engine: btrfs_search() in a transaction */
	/*
	 * Set by kernel-shared/engine while a commit's result is re-read in memory
	 * (btrfs_trans_view()): a block view_block() returns is read instead of
	 * every mirror on the devices, and verified as a mirror would be.
	 */
	const struct extent_buffer *(*view_block)(void *arg, u64 bytenr);
	void *view_arg;
};

/*
 * The chunk map an opener of fs->super and fs->chunk_root builds: the
 * superblock's sys_chunk_array, then the chunk tree's items (a chunk the
 * array maps keeps the array's layout, as in the kernel), into *out (free
 * with btrfs_chunk_tree_map_free()).  fs->chunks and the devices are left
 * as they are (the chunk tree is read through the new map).  0, or a
 * negative errno after an error (-EUCLEAN: chunks that overlap).
 */
int btrfs_read_chunk_map(struct btrfs_fs_info *fs, struct btrfs_chunk_tree_map *out);

/* Forget every block of the block cache (the trees it came from changed). */
void btrfs_block_cache_drop(struct btrfs_fs_info *fs);

/* Checksum of a tree block's bytes [BTRFS_CSUM_SIZE, len) into out (32 bytes). */
void btrfs_csum_tree_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u8 *out);

/*
 * Verify one block in memory against expect: checksum, header and
 * tree-checker, less the policy's relaxations (NULL: none; its on_failure
 * and quiet do not apply).  0, or -EUCLEAN with the reason in msg.
 */
int btrfs_verify_tree_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb,
			    const struct tree_check *expect, const struct read_policy *policy,
			    char *msg, size_t msglen);

/*
 * Repair (check --repair): from now on every read of eb->start through
 * btrfs_read_tree_block_policy() (the write engine's included) gets a copy
 * of eb instead of the disk's bytes, when eb meets what the reader expects,
 * so the next transaction copies the mended block on write.  eb must pass
 * checksum, header and tree-checker: the tree-checker is not loosened.
 * fs takes eb on success.  0, -EUCLEAN (eb fails verification), -ENOMEM.
 */
int btrfs_override_tree_block(struct btrfs_fs_info *fs, struct extent_buffer *eb);

/* Inside kernel-shared/read (disk-io.c, for open.c): */
/* The fsid tree block headers carry (the metadata_uuid where there is one). */
const u8 *btrfs_header_fsid(const struct btrfs_fs_info *fs);
/*
 * An attached seed device of the filesystem (its fsid is its own, not the
 * filesystem's) whose fsid is fsid (NULL: any), or NULL.  A sprout's blocks
 * still on its seed carry the seed's fsid.
 */
const struct btrfs_device *btrfs_seed_device(const struct btrfs_fs_info *fs, const u8 *fsid);
/* Free the blocks btrfs_override_tree_block() took (btrfs_close_fs()). */
void btrfs_overrides_free(struct btrfs_fs_info *fs);

#endif

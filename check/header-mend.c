// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block header rules and header mending: see header-mend.h.
 */
#include <stdio.h>
#include <string.h>
#include "check/context.h"
#include "check/header-mend.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"

static bool owner_judged(u64 tree_id)
{
	return tree_id != BTRFS_TREE_LOG_OBJECTID && tree_id != BTRFS_TREE_RELOC_OBJECTID;
}

/* The kernel's rule: a tree's blocks name it, a subvolume's may name any subvolume. */
static bool owner_fits(u64 tree_id, u64 owner)
{
	return btrfs_is_subvolume_tree(tree_id) ? btrfs_is_subvolume_tree(owner) : owner == tree_id;
}

unsigned int check_expect_faults(struct btrfs_fs_info *fs, const struct header_expect *x,
				 const struct extent_buffer *eb)
{
	unsigned int f = check_header_faults(fs, x->tree, eb);

	if (!x->have_first && owner_judged(x->tree) && btrfs_header_owner(btrfs_header(eb)) != x->tree)
		f |= HEADER_OWNER;
	return f;
}

unsigned int check_header_faults(struct btrfs_fs_info *fs, u64 tree_id, const struct extent_buffer *eb)
{
	bool mixed = btrfs_super_incompat_flags(btrfs_fs_super(fs)) & BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF;
	const struct btrfs_header *h = btrfs_header(eb);
	u64 flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK;
	u8 rev = btrfs_header_backref_rev(h);
	unsigned int f = 0;

	if (owner_judged(tree_id) && !owner_fits(tree_id, btrfs_header_owner(h)))
		f |= HEADER_OWNER;
	if (flags & ~(BTRFS_HEADER_FLAG_WRITTEN | BTRFS_HEADER_FLAG_RELOC))
		f |= HEADER_UNKNOWN_FLAGS;
	else if (!(flags & BTRFS_HEADER_FLAG_WRITTEN))
		f |= HEADER_NOT_WRITTEN;
	if (rev > BTRFS_MIXED_BACKREF_REV || (rev == BTRFS_OLD_BACKREF_REV && mixed))
		f |= HEADER_BACKREF_REV;
	return f;
}

/*
 * Leading items of a leaf that are packed as the kernel packs them (each
 * item's data right below the previous one's, none over the item array),
 * in key order and below the bound: the count its header should hold.
 */
static u32 packed_items(const struct extent_buffer *eb, const struct header_expect *x)
{
	u32 end = btrfs_leaf_data_size(eb), max = end / sizeof(struct btrfs_item), n;
	struct btrfs_key prev = { 0 }, k;

	for (n = 0; n < max; n++) {
		u64 off = btrfs_leaf_item_offset(eb, (int)n), size = btrfs_leaf_item_size(eb, (int)n);

		if (off + size != end || off < (u64)(n + 1) * sizeof(struct btrfs_item))
			break;
		btrfs_item_key_to_cpu(eb, &k, (int)n);
		if (n && btrfs_comp_cpu_keys(&prev, &k) >= 0)
			break;
		if (x->have_bound && btrfs_comp_cpu_keys(&k, &x->bound) >= 0)
			break;
		prev = k;
		end = (u32)off;
	}
	return n;
}

/* The generation the extent tree's item of the tree block at bytenr records: 0 when none. */
static u64 extent_generation(struct btrfs_fs_info *fs, u64 bytenr, int level)
{
	struct btrfs_key keys[2] = {
		{ bytenr, BTRFS_METADATA_ITEM_KEY, (u64)level },
		{ bytenr, BTRFS_EXTENT_ITEM_KEY, fs->geo.nodesize },
	};
	struct btrfs_tree_ref extent_tree;
	u64 gen = 0;

	if (btrfs_find_tree_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_tree))
		return 0;
	for (int i = 0; i < 2 && !gen; i++) {
		struct btrfs_path path;

		btrfs_init_path(&path);
		if (btrfs_search_key(fs, &extent_tree, &keys[i], BTRFS_SEARCH_EXACT, &path, NULL) == 0 &&
		    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_extent_item))
			gen = btrfs_extent_generation(btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]));
		btrfs_release_path(&path);
	}
	return gen;
}

/*
 * The newest generation a block's content records, 0 if none: a node's
 * child pointers; in a leaf the generation and transid of inode items, and
 * the generation of file extent, extent, metadata and root items and the
 * transid of dir entries (the first of an item).  A block written in
 * transaction G records nothing newer than G.
 */
static u64 content_generation(const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb), data = btrfs_leaf_data_size(eb);
	u64 max = 0;

	if (btrfs_eb_level(eb) > 0) {
		for (u32 i = 0; i < nr && i < btrfs_node_max_ptrs(eb); i++)
			max = max_t(u64, max, btrfs_node_ptr_generation(eb, (int)i));
		return max;
	}
	if ((u64)nr * sizeof(struct btrfs_item) > data)
		return 0;
	for (u32 i = 0; i < nr; i++) {
		u32 off = btrfs_leaf_item_offset(eb, (int)i), size = btrfs_leaf_item_size(eb, (int)i);
		const void *p = btrfs_leaf_item_ptr(eb, (int)i);
		struct btrfs_key k;
		u64 g = 0;

		if ((u64)off + size > data)
			continue;
		btrfs_item_key_to_cpu(eb, &k, (int)i);
		switch (k.type) {
		case BTRFS_INODE_ITEM_KEY:
			if (size >= sizeof(struct btrfs_inode_item))
				g = max_t(u64, btrfs_inode_generation(p), btrfs_inode_transid(p));
			break;
		case BTRFS_EXTENT_DATA_KEY:
			if (size >= offsetof(struct btrfs_file_extent_item, disk_bytenr))
				g = btrfs_file_extent_generation(p);
			break;
		case BTRFS_EXTENT_ITEM_KEY:
		case BTRFS_METADATA_ITEM_KEY:
			if (size >= sizeof(struct btrfs_extent_item))
				g = btrfs_extent_generation(p);
			break;
		case BTRFS_ROOT_ITEM_KEY:
			if (size >= offsetof(struct btrfs_root_item, generation_v2))
				g = btrfs_root_generation(p);
			break;
		case BTRFS_DIR_ITEM_KEY:
		case BTRFS_DIR_INDEX_KEY:
		case BTRFS_XATTR_ITEM_KEY:
			if (size >= sizeof(struct btrfs_dir_item))
				g = btrfs_dir_transid(p);
			break;
		}
		max = max_t(u64, max, g);
	}
	return max;
}

/* Does the chunk tree leaf eb hold the system chunk at key exactly as chunk (len bytes)? */
static bool leaf_has_chunk(const struct extent_buffer *eb, const struct btrfs_disk_key *key,
			   const struct btrfs_chunk *chunk, u32 len)
{
	u32 nr = btrfs_eb_nritems(eb), data = btrfs_leaf_data_size(eb);
	struct btrfs_key want, k;

	btrfs_disk_key_to_cpu(&want, key);
	for (u32 i = 0; i < nr && (u64)(i + 1) * sizeof(struct btrfs_item) <= data; i++) {
		btrfs_item_key_to_cpu(eb, &k, (int)i);
		if (!btrfs_comp_cpu_keys(&k, &want))
			return btrfs_leaf_item_size(eb, (int)i) == len &&
			       (u64)btrfs_leaf_item_offset(eb, (int)i) + len <= data &&
			       !memcmp(btrfs_leaf_item_ptr(eb, (int)i), chunk, len);
	}
	return false;
}

/*
 * A chunk root leaf whose content is the commit's, whatever its header's
 * generation says: on a filesystem of one device, it holds the superblock's
 * device item (devid, sizes and uuid, which every commit writes to the
 * superblock and which change with each chunk allocated or freed) and every
 * system chunk of the sys_chunk_array byte for byte.  (A chunk freed and
 * another of its size allocated since leave the sizes alone: the passes
 * then find a chunk without a block group or dev extents, and the repair
 * adds no block group for it.)  A second witness for the chunk root,
 * whose items record no generation and whose extent item no tree holds.
 */
static bool chunk_leaf_is_current(const struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	const struct btrfs_dev_item *own = &sb->dev_item;
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, btrfs_device_id(own) };
	u32 nr = btrfs_eb_nritems(eb), data = btrfs_leaf_data_size(eb);
	const struct btrfs_disk_key *ck;
	struct btrfs_sys_array_iter it;
	bool dev_ok = false;
	int ret;

	/*
	 * (one device: the chunks of others, or a device added or removed, would
	 * leave this device's sizes as they were)
	 */
	if (btrfs_eb_level(eb) || (u64)nr * sizeof(struct btrfs_item) > data || btrfs_super_num_devices(sb) != 1)
		return false;
	for (u32 i = 0; i < nr && !dev_ok; i++) {
		const struct btrfs_dev_item *di = btrfs_leaf_item_ptr(eb, (int)i);
		struct btrfs_key k;

		btrfs_item_key_to_cpu(eb, &k, (int)i);
		dev_ok = !btrfs_comp_cpu_keys(&k, &key) && btrfs_leaf_item_size(eb, (int)i) == sizeof(*di) &&
			 (u64)btrfs_leaf_item_offset(eb, (int)i) + sizeof(*di) <= data &&
			 btrfs_device_total_bytes(di) == btrfs_device_total_bytes(own) &&
			 btrfs_device_bytes_used(di) == btrfs_device_bytes_used(own) &&
			 !memcmp(di->uuid, own->uuid, BTRFS_UUID_SIZE);
	}
	if (!dev_ok)
		return false;
	ret = btrfs_sys_array_init(&it, sb);
	while (ret == 0 && (ret = btrfs_sys_array_next_key(&it, &ck)) > 0) {
		const struct btrfs_chunk *chunk;
		u32 len;

		ret = btrfs_sys_array_next_chunk(&it, ck, &chunk, &len);
		if (ret == 0 && !leaf_has_chunk(eb, ck, chunk, len))
			return false;
	}
	return ret == 0 && it.nr > 0;
}

/*
 * Real items go on after the first n (slots n + 1 .. limit - 1 hold a pair
 * packed one below the other, after the last good key and below the bound:
 * items a split moved to the right neighbour leave such copies beyond it):
 * the leaf's items are damaged, not its count, and cutting it to n would
 * drop them.
 */
static bool items_continue(const struct extent_buffer *eb, const struct header_expect *x, u32 n, u32 limit)
{
	u32 data = btrfs_leaf_data_size(eb), low;
	struct btrfs_key last, k;

	if (!n)
		return false;
	btrfs_item_key_to_cpu(eb, &last, (int)n - 1);
	/* only slots in the free space: further ones lie over the n items' data */
	low = btrfs_leaf_item_offset(eb, (int)n - 1);
	for (u32 j = n + 1; j < limit && (u64)(j + 1) * sizeof(struct btrfs_item) <= low; j++) {
		u64 off = btrfs_leaf_item_offset(eb, (int)j), size = btrfs_leaf_item_size(eb, (int)j);
		u64 above = btrfs_leaf_item_offset(eb, (int)j - 1);

		btrfs_item_key_to_cpu(eb, &k, (int)j);
		if (above <= data && off + size == above && btrfs_comp_cpu_keys(&k, &last) > 0 &&
		    (!x->have_bound || btrfs_comp_cpu_keys(&k, &x->bound) < 0))
			return true;
	}
	return false;
}

static void say(const struct header_expect *x, const char *field, u64 have, u64 want)
{
	printf("Tree block %llu of tree %llu: header %s %llu, set to %llu\n",
	       (unsigned long long)x->bytenr, (unsigned long long)x->tree, field,
	       (unsigned long long)have, (unsigned long long)want);
}

/*
 * Does the backup root of the superblock's own commit name the root block
 * x reaches with x's generation (a second witness beside the pointer, where
 * the extent tree cannot be read, as at the chunk root)?
 */
static bool backup_confirms(struct btrfs_fs_info *fs, const struct header_expect *x)
{
	struct btrfs_tree_ref ref;

	/* (a root block: no parent's first key) */
	return !x->have_first && check_commit_backup_root(btrfs_fs_super(fs), x->tree, &ref) &&
	       ref.bytenr == x->bytenr && ref.generation == x->transid;
}

bool check_key_impossible(const struct btrfs_fs_info *fs, u64 tree, const struct btrfs_key *k)
{
	if (check_key_type_foreign(tree, k))
		return true;
	return tree == BTRFS_ROOT_TREE_OBJECTID && k->type == BTRFS_ROOT_ITEM_KEY &&
	       (k->objectid == BTRFS_ROOT_TREE_OBJECTID || k->objectid == BTRFS_CHUNK_TREE_OBJECTID ||
		(k->offset && check_root_item_at_zero(btrfs_fs_super(fs), k->objectid)));
}

/*
 * Mend the header of eb (a private copy with a good checksum) in place: the
 * number of fields changed, 0 when it is not a block we may mend.  quiet:
 * a trial, nothing printed.
 */
static int mend(struct btrfs_fs_info *fs, struct extent_buffer *eb, const struct header_expect *x,
		bool quiet)
{
	struct btrfs_header *h = btrfs_header(eb);
	unsigned int faults = check_expect_faults(fs, x, eb);
	int changed = 0;

	if (btrfs_header_generation(h) != x->transid) {
		u64 gen = btrfs_header_generation(h);
		/*
		 * 0 (never written) or beyond the superblock (a block the committed
		 * superblock reaches is not overwritten before a newer one is
		 * committed): the field is damaged.  So it is when newer than its
		 * pointer while the extent tree's item of the block agrees with the
		 * pointer.  Older may be a lost write (the bytes of an earlier
		 * block), unless the content records a generation newer than the
		 * header's (and none newer than the pointer's): an earlier block
		 * could not; or the chunk root's content is the commit's
		 * (chunk_leaf_is_current()).
		 */
		bool impossible = !gen || gen > btrfs_super_generation(btrfs_fs_super(fs));
		u64 content = gen < x->transid ? content_generation(eb) : 0;

		if (!impossible && gen < x->transid && !(content > gen && content <= x->transid) &&
		    !(x->tree == BTRFS_CHUNK_TREE_OBJECTID && !x->have_first && chunk_leaf_is_current(fs, eb)))
			return 0;
		if (!impossible && gen > x->transid &&
		    extent_generation(fs, x->bytenr, x->level) != x->transid &&
		    !backup_confirms(fs, x))
			return 0;
		if (!quiet)
			say(x, "generation", btrfs_header_generation(h), x->transid);
		btrfs_set_header_generation(h, x->transid);
		changed++;
	}
	if (btrfs_header_bytenr(h) != x->bytenr) {
		if (!quiet)
			say(x, "bytenr", btrfs_header_bytenr(h), x->bytenr);
		btrfs_set_header_bytenr(h, x->bytenr);
		changed++;
	}
	if (btrfs_header_level(h) != x->level) {
		if (!quiet)
			say(x, "level", btrfs_header_level(h), (u64)x->level);
		btrfs_set_header_level(h, (u8)x->level);
		changed++;
	}
	if (faults & HEADER_OWNER) {
		if (!quiet)
			say(x, "owner", btrfs_header_owner(h), x->tree);
		btrfs_set_header_owner(h, x->tree);
		changed++;
	}
	if (faults & (HEADER_UNKNOWN_FLAGS | HEADER_NOT_WRITTEN | HEADER_BACKREF_REV)) {
		u64 flags = btrfs_header_flags(h), want = BTRFS_HEADER_FLAG_WRITTEN |
			((u64)BTRFS_MIXED_BACKREF_REV << BTRFS_BACKREF_REV_SHIFT);

		/* RELOC kept unless the word is garbage (unknown bits): then only a relocation tree's */
		if (!(faults & HEADER_UNKNOWN_FLAGS) ? (flags & BTRFS_HEADER_FLAG_RELOC) :
		    x->tree == BTRFS_TREE_RELOC_OBJECTID)
			want |= BTRFS_HEADER_FLAG_RELOC;
		if (!quiet)
			printf("Tree block %llu of tree %llu: header flags 0x%llx, set to 0x%llx\n",
			       (unsigned long long)x->bytenr, (unsigned long long)x->tree,
			       (unsigned long long)flags, (unsigned long long)want);
		btrfs_set_header_flags(h, want);
		changed++;
	}
	if (x->level == 0 && x->nritems && (btrfs_check_tree_block_msg(&fs->geo, eb, NULL, 0) < 0 ||
			      (btrfs_header_nritems(h) == 0 && x->have_first))) {
		/*
		 * A count that breaks the leaf: the packed items, never more than the
		 * bound allows.  A root leaf has no bound: only when it has none
		 * while its tree may never be empty.
		 */
		u32 n = x->have_first || btrfs_header_nritems(h) == 0 ? packed_items(eb, x) : 0;
		u32 max = btrfs_leaf_data_size(eb) / sizeof(struct btrfs_item);

		if (n && n != btrfs_header_nritems(h) &&
		    !items_continue(eb, x, n, min_t(u32, btrfs_header_nritems(h), max))) {
			if (!quiet)
				say(x, "nritems", btrfs_header_nritems(h), n);
			btrfs_set_header_nritems(h, n);
			changed++;
		}
	}
	if (x->level == 0 && x->have_first && btrfs_header_nritems(h) > 0 &&
	    btrfs_header_nritems(h) <= btrfs_leaf_data_size(eb) / sizeof(struct btrfs_item)) {
		struct btrfs_key k;
		int fields;

		/*
		 * A leaf's first key other than its pointer's in one field, while
		 * the leaf as written fails the tree-checker or has a key type its
		 * tree does not: the key is damaged, not the pointer.  The
		 * pointer's (verified() wants the leaf to pass then).
		 */
		btrfs_item_key_to_cpu(eb, &k, 0);
		fields = (k.objectid != x->first.objectid) + (k.type != x->first.type) +
			 (k.offset != x->first.offset);
		if (fields == 1 && (check_key_impossible(fs, x->tree, &k) ||
				    btrfs_check_tree_block_msg(&fs->geo, eb, NULL, 0) < 0)) {
			if (!quiet)
				printf("Tree block %llu of tree %llu: first key (%llu %u %llu), set to its pointer's (%llu %u %llu)\n",
				       (unsigned long long)x->bytenr, (unsigned long long)x->tree,
				       (unsigned long long)k.objectid, k.type, (unsigned long long)k.offset,
				       (unsigned long long)x->first.objectid, x->first.type,
				       (unsigned long long)x->first.offset);
			btrfs_cpu_key_to_disk(&btrfs_leaf_item(eb, 0)->key, &x->first);
			changed++;
		}
	}
	return changed;
}

/* The mended copy passes what a read through the pointer verifies, and stays below the bound. */
static bool verified(struct btrfs_fs_info *fs, const struct extent_buffer *eb, const struct header_expect *x)
{
	static const struct read_policy all = { .relax = READ_NO_CSUM };
	struct btrfs_disk_key first;
	struct tree_check expect = { .level = x->level, .transid = x->transid };
	struct btrfs_key k;

	if (x->have_first) {
		btrfs_cpu_key_to_disk(&first, &x->first);
		expect.first_key = &first;
	}
	if (btrfs_verify_tree_block(fs, eb, &expect, &all, NULL, 0) < 0 ||
	    check_expect_faults(fs, x, eb))
		return false;
	if (!btrfs_eb_nritems(eb))
		return !x->have_first;
	btrfs_block_key_to_cpu(eb, &k, (int)btrfs_eb_nritems(eb) - 1);
	return !x->have_bound || btrfs_comp_cpu_keys(&k, &x->bound) < 0;
}

int check_mend_header(struct btrfs_fs_info *fs, const struct header_expect *x,
		      struct extent_buffer **out)
{
	int mirror, nr = btrfs_num_mirrors(fs, x->bytenr);
	u8 csum[BTRFS_CSUM_SIZE];

	*out = NULL;
	if (x->level < 0 || x->level >= BTRFS_MAX_LEVEL || !x->transid)
		return 0;
	for (mirror = 1; mirror <= nr; mirror++) {
		struct extent_buffer *eb;
		const struct btrfs_header *h;

		if (btrfs_read_tree_block_mirror(fs, x->bytenr, mirror, &eb) < 0)
			continue;
		if (!eb)
			return -ENOMEM;
		h = btrfs_header(eb);
		btrfs_csum_tree_block(fs, eb, csum);
		/*
		 * Only a block written whole (its checksum good) with fields wrong;
		 * verified() also wants the filesystem's fsid.
		 */
		if (memcmp(csum, h->csum, fs->geo.csum_size) || !mend(fs, eb, x, true) ||
		    !verified(fs, eb, x)) {
			free_extent_buffer(eb);
			continue;
		}
		free_extent_buffer(eb);
		/* the trial passed: again from the disk's bytes, saying what changes */
		if (btrfs_read_tree_block_mirror(fs, x->bytenr, mirror, &eb) < 0)
			continue;
		mend(fs, eb, x, false);
		*out = eb;
		return 1;
	}
	return 0;
}

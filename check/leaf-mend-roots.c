// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of the root tree's root
 * items and root refs: fields, the root block (by the extent tree or the
 * commit's backup root), a missing global root item.
 */
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/leaf-mend-internal.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

/* The extent tree's root item when it is in this leaf (the root tree's search may not pass it). */
static const struct btrfs_tree_ref *leaf_extent_root(const struct mend *m, struct btrfs_tree_ref *ref)
{
	u32 nr = btrfs_eb_nritems(m->eb), i;

	for (i = 0; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(m->eb, &key, (int)i);
		if (key.objectid == BTRFS_EXTENT_TREE_OBJECTID && key.type == BTRFS_ROOT_ITEM_KEY &&
		    btrfs_leaf_item_size(m->eb, (int)i) >= offsetof(struct btrfs_root_item, generation_v2)) {
			btrfs_tree_ref_from_root_item(ref, key.objectid, btrfs_leaf_item_ptr(m->eb, (int)i));
			return ref;
		}
	}
	return NULL;
}

/*
 * Does the block at bytenr belong to tree owner rather than to tree key
 * (whose root item points to it)?  Its header owner could be the damaged
 * field instead, so the block must also say so in another way: a node's
 * first child is owner's too; a leaf's items all have key types owner's
 * tree has, some a type key's tree does not (kernel-shared/format/tree-key-types.h).
 */
static bool block_is_owners(struct mend *m, u64 bytenr, u64 owner, u64 key)
{
	struct extent_buffer *eb = mend_good_block(m->fs, bytenr);
	struct btrfs_header child;
	bool yes = false, foreign = false;
	u32 nr;

	if (!eb)
		return false;
	nr = (u32)btrfs_block_slots(eb);
	if (btrfs_eb_level(eb) > 0) {
		yes = nr > 0 && mend_block_header(m->fs, btrfs_node_blockptr(eb, 0), &child) &&
		      btrfs_header_owner(&child) == owner;
	} else {
		yes = true;
		for (u32 i = 0; i < nr; i++) {
			struct btrfs_key k;

			btrfs_item_key_to_cpu(eb, &k, (int)i);
			yes &= btrfs_tree_holds_key_type(owner, k.type);
			foreign |= !btrfs_tree_holds_key_type(key, k.type);
		}
		yes &= foreign;
	}
	free_extent_buffer(eb);
	return yes;
}

/* Do the extent tree's back references make the block at bytenr tree owner's root block? */
static bool extent_tree_names(struct mend *m, u64 bytenr, u64 owner)
{
	struct btrfs_tree_ref extent_root;
	struct check_found_root found;
	char why[256];

	return check_find_root_block(m->fs, leaf_extent_root(m, &extent_root), owner, &found, why,
				     sizeof(why)) == 0 && found.bytenr == bytenr;
}

/*
 * A root item whose root block is another tree's (its owner: the extent
 * tree's back references say so, or block_is_owners()), which reads as that tree's root and which has no
 * root item: the key's objectid was that tree's.  Also when the key is a
 * relocation tree's with offset 0 (a relocation tree's offset is the
 * subvolume it relocates).  The item moves to it (the leaf is rebuilt in
 * key order).  True when moved.
 */
static bool mend_root_key(struct mend *m, int slot, u64 objectid, const struct btrfs_root_item *ri)
{
	struct btrfs_key want, found;
	const struct extent_buffer *eb;
	struct btrfs_header hdr;
	struct btrfs_path path;
	bool has_item;
	u64 owner;
	int s;

	if (m->tree != BTRFS_ROOT_TREE_OBJECTID || !mend_block_header(m->fs, btrfs_root_bytenr(ri), &hdr))
		return false;
	owner = btrfs_header_owner(&hdr);
	if (owner == objectid || !owner || !check_root_block_reads(m->fs, owner, ri) ||
	    !((objectid == BTRFS_TREE_RELOC_OBJECTID && !m->plan[slot].key.offset) ||
	      extent_tree_names(m, btrfs_root_bytenr(ri), owner) ||
	      block_is_owners(m, btrfs_root_bytenr(ri), owner, objectid)))
		return false;
	want = (struct btrfs_key){ owner, BTRFS_ROOT_ITEM_KEY, 0 };
	has_item = mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &s);
	if (has_item) {
		btrfs_item_key_to_cpu(eb, &found, s);
		has_item = found.objectid == owner && found.type == BTRFS_ROOT_ITEM_KEY;
	}
	btrfs_release_path(&path);
	if (has_item)
		return false;
	mend_say(m, slot, "root block %llu is tree %llu's (its owner, and it reads as that tree's root), which has no root item: key objectid set to %llu",
	    (unsigned long long)btrfs_root_bytenr(ri), (unsigned long long)owner,
	    (unsigned long long)owner);
	m->plan[slot].key.objectid = owner;
	m->rebuild = true;
	return true;
}

/*
 * A root item whose root block does not read: the root the backup root of
 * the superblock's own commit names for its tree, when that block reads as
 * the tree's root there (owner, level, generation).  true when mended.
 */
static bool mend_root_from_backup(struct mend *m, int slot, u64 objectid, struct btrfs_root_item *ri, u32 size)
{
	struct btrfs_tree_ref ref;
	struct btrfs_root_item want;
	u64 gen = btrfs_root_generation(ri);

	if (!check_commit_backup_root(btrfs_fs_super(m->fs), objectid, &ref) || ref.level >= BTRFS_MAX_LEVEL ||
	    (ref.bytenr == btrfs_root_bytenr(ri) && ref.level == btrfs_root_level(ri) && ref.generation == gen))
		return false;
	want = *ri;
	btrfs_set_root_bytenr(&want, ref.bytenr);
	btrfs_set_root_level(&want, (u8)ref.level);
	btrfs_set_root_generation(&want, ref.generation);
	if (!check_root_block_reads(m->fs, objectid, &want))
		return false;
	mend_say(m, slot, "root block %llu level %u generation %llu does not read, set to %llu level %u generation %llu (the backup root of this commit)",
	    (unsigned long long)btrfs_root_bytenr(ri), btrfs_root_level(ri), (unsigned long long)gen,
	    (unsigned long long)ref.bytenr, ref.level, (unsigned long long)ref.generation);
	btrfs_set_root_bytenr(ri, ref.bytenr);
	btrfs_set_root_level(ri, (u8)ref.level);
	btrfs_set_root_generation(ri, ref.generation);
	if (size >= sizeof(*ri) && btrfs_root_generation_v2(ri) == gen)
		btrfs_set_root_generation_v2(ri, ref.generation);
	return true;
}

/*
 * A root item whose root block does not read at its bytenr, level and
 * generation: all three from the root block the extent tree names
 * (repair-root-items.h); left as is, saying why, when none does.
 */
static int mend_root_block(struct mend *m, int slot, u64 objectid, struct btrfs_root_item *ri,
			   u32 size)
{
	struct btrfs_tree_ref extent_root;
	struct check_found_root found;
	u64 gen = btrfs_root_generation(ri);
	char why[256];
	int ret;

	/* a level no tree has: its root block's, when that block is the item's (owner, generation) */
	if (btrfs_root_level(ri) >= BTRFS_MAX_LEVEL) {
		struct btrfs_header hdr;

		if (mend_block_header(m->fs, btrfs_root_bytenr(ri), &hdr) && btrfs_header_owner(&hdr) == objectid &&
		    btrfs_header_generation(&hdr) == gen && btrfs_header_level(&hdr) < BTRFS_MAX_LEVEL) {
			mend_say(m, slot, "root level %u, set to its root block's %u", btrfs_root_level(ri),
			    btrfs_header_level(&hdr));
			btrfs_set_root_level(ri, btrfs_header_level(&hdr));
		}
	}
	/*
	 * A root block newer than its item, of the tree (owner) at the item's
	 * level: a tree written in a later commit has its root item written in
	 * it too, so the item's generation is what is damaged.
	 */
	if (!check_root_block_reads(m->fs, objectid, ri)) {
		struct btrfs_header hdr;

		if (mend_block_header(m->fs, btrfs_root_bytenr(ri), &hdr) && btrfs_header_owner(&hdr) == objectid &&
		    btrfs_header_level(&hdr) == btrfs_root_level(ri) && btrfs_header_generation(&hdr) > gen &&
		    btrfs_header_generation(&hdr) <= m->limit) {
			mend_say(m, slot, "root generation %llu, older than its root block %llu's %llu (of this tree, at this level): set to it",
			    (unsigned long long)gen, (unsigned long long)btrfs_root_bytenr(ri),
			    (unsigned long long)btrfs_header_generation(&hdr));
			btrfs_set_root_generation(ri, btrfs_header_generation(&hdr));
			if (size >= sizeof(*ri) && btrfs_root_generation_v2(ri) == gen)
				btrfs_set_root_generation_v2(ri, btrfs_header_generation(&hdr));
			gen = btrfs_header_generation(&hdr);
		}
	}
	if (!check_root_block_reads(m->fs, objectid, ri) && mend_root_key(m, slot, objectid, ri))
		return 0;
	if (!check_root_block_reads(m->fs, objectid, ri) && mend_root_from_backup(m, slot, objectid, ri, size))
		return 0;
	if (!check_root_block_reads(m->fs, objectid, ri) && objectid == BTRFS_EXTENT_TREE_OBJECTID)
		mend_say(m, slot, "the extent tree's root block does not read, and the extent tree cannot name it: not mended");
	if (!check_root_item_mendable(objectid) || check_root_block_reads(m->fs, objectid, ri))
		return 0;
	ret = check_find_root_block(m->fs, leaf_extent_root(m, &extent_root), objectid, &found, why,
				    sizeof(why));
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		mend_say(m, slot, "root block %llu level %u generation %llu does not read, and %s: not mended",
		    (unsigned long long)btrfs_root_bytenr(ri), btrfs_root_level(ri),
		    (unsigned long long)gen, why);
		return 0;
	}
	/* the item agrees with the extent tree: the block's own header is wrong (header-mend.h) */
	if (found.bytenr == btrfs_root_bytenr(ri) && found.level == btrfs_root_level(ri) &&
	    found.generation == gen)
		return 0;
	mend_say(m, slot, "root block %llu level %u generation %llu does not read, set to %llu level %u generation %llu (the extent tree's top block of tree %llu)",
	    (unsigned long long)btrfs_root_bytenr(ri), btrfs_root_level(ri), (unsigned long long)gen,
	    (unsigned long long)found.bytenr, found.level, (unsigned long long)found.generation,
	    (unsigned long long)objectid);
	btrfs_set_root_bytenr(ri, found.bytenr);
	btrfs_set_root_level(ri, found.level);
	btrfs_set_root_generation(ri, found.generation);
	/* generation_v2 equal to generation says the fields after it are valid: keep it so */
	if (size >= sizeof(*ri) && btrfs_root_generation_v2(ri) == gen)
		btrfs_set_root_generation_v2(ri, found.generation);
	return 0;
}

/* The root item's generation is the one its root block carries. */
int mend_root_item(struct mend *m, int slot, u64 objectid, struct btrfs_root_item *ri,
			  u32 size)
{
	u64 gen = btrfs_root_generation(ri), ngen;
	bool v2 = size >= sizeof(*ri);
	static const struct btrfs_disk_key no_progress;

	/* a drop level means something only while a deletion is under way (drop_progress set) */
	if (size >= offsetof(struct btrfs_root_item, generation_v2) &&
	    btrfs_root_drop_level(ri) >= BTRFS_MAX_LEVEL &&
	    !memcmp(&ri->drop_progress, &no_progress, sizeof(no_progress))) {
		mend_say(m, slot, "root drop_level %u with no deletion under way, set to 0", btrfs_root_drop_level(ri));
		btrfs_set_root_drop_level(ri, 0);
	}
	/*
	 * A last_snapshot beyond the superblock's is unknown; the root's
	 * generation is the safe value (blocks of older generations count as
	 * possibly shared, never the other way).
	 */
	if (btrfs_root_last_snapshot(ri) > m->limit + 1 && gen && gen <= m->limit) {
		mend_say(m, slot, "root last_snapshot %llu beyond the superblock's, set to the root's generation %llu",
		    (unsigned long long)btrfs_root_last_snapshot(ri), (unsigned long long)gen);
		btrfs_set_root_last_snapshot(ri, gen);
	}
	/*
	 * Flags with bits no kernel sets: a tree that is no subvolume has none;
	 * a subvolume is DEAD when no ref holds it (a deletion under way), and
	 * keeps RDONLY as the word has it (nothing else tells; read-only is the
	 * side that loses nothing).
	 */
	if (btrfs_root_flags(ri) & ~(BTRFS_ROOT_SUBVOL_RDONLY | BTRFS_ROOT_SUBVOL_DEAD)) {
		u64 flags = 0;

		if (btrfs_is_subvolume_tree(objectid))
			flags = (btrfs_root_flags(ri) & BTRFS_ROOT_SUBVOL_RDONLY) |
				(btrfs_root_refs(ri) ? 0 : BTRFS_ROOT_SUBVOL_DEAD);
		mend_say(m, slot, "root flags 0x%llx with bits no kernel sets, set to 0x%llx",
		    (unsigned long long)btrfs_root_flags(ri), (unsigned long long)flags);
		btrfs_set_root_flags(ri, flags);
	}
	/* 0 is never written: as damaged as one beyond the superblock's */
	if (gen && gen <= m->limit && (!v2 || btrfs_root_generation_v2(ri) <= m->limit))
		return mend_root_block(m, slot, objectid, ri, size);
	ngen = mend_tree_block_generation(m, btrfs_root_bytenr(ri));
	if (!gen || gen > m->limit) {
		mend_say(m, slot, "root generation %llu %s, set to %llu (root block %llu)",
		    (unsigned long long)gen, gen ? "beyond the superblock's" : "never written",
		    (unsigned long long)ngen, (unsigned long long)btrfs_root_bytenr(ri));
		btrfs_set_root_generation(ri, ngen);
	}
	if (v2 && (btrfs_root_generation_v2(ri) > m->limit || btrfs_root_generation_v2(ri) == gen)) {
		mend_say(m, slot, "root generation_v2 %llu, set to %llu",
		    (unsigned long long)btrfs_root_generation_v2(ri), (unsigned long long)ngen);
		btrfs_set_root_generation_v2(ri, ngen);
	}
	return mend_root_block(m, slot, objectid, ri, size);
}

/* The subvolume uuid tree's UUID_KEY_SUBVOL items search: the one naming id. */
struct uuid_search {
	u64 id;
	int found;
	u8 uuid[BTRFS_UUID_SIZE];
};

static int uuid_search_item(struct btrfs_path *path, const struct btrfs_key *key, void *arg)
{
	struct uuid_search *s = arg;
	const u8 *p = btrfs_leaf_item_ptr(path->nodes[0], path->slots[0]);
	u32 size = btrfs_leaf_item_size(path->nodes[0], path->slots[0]);

	if (key->type != BTRFS_UUID_KEY_SUBVOL)
		return 0;
	for (u32 o = 0; o + sizeof(u64) <= size; o += sizeof(u64)) {
		if (get_unaligned_le64(p + o) != s->id)
			continue;
		/* the key is the uuid: its first and second eight bytes, little-endian */
		put_unaligned_le64(key->objectid, s->uuid);
		put_unaligned_le64(key->offset, s->uuid + 8);
		s->found++;
	}
	return 0;
}

/* The uuid the uuid tree names subvolume id by, when exactly one; else zeros. */
static void subvol_uuid_told(struct btrfs_fs_info *fs, u64 id, u8 *uuid)
{
	struct uuid_search s = { .id = id };
	const struct btrfs_key from = { 0, 0, 0 };
	struct btrfs_tree_ref tree;

	memset(uuid, 0, BTRFS_UUID_SIZE);
	if (btrfs_find_tree_root(fs, BTRFS_UUID_TREE_OBJECTID, &tree) == 0 &&
	    btrfs_for_each_item(fs, NULL, &tree, &from, BTRFS_SEARCH_NEXT, uuid_search_item, &s) == 0 &&
	    s.found == 1)
		memcpy(uuid, s.uuid, BTRFS_UUID_SIZE);
}

/*
 * A tree of files whose root item is made anew (the fs tree, the data
 * relocation tree): its top directory as mkfs makes it; for the fs tree
 * its uuid from the uuid tree, and last_snapshot the superblock's
 * generation, so that every block older is taken as maybe shared (the
 * kernel then asks the extent tree before it frees one; 0 would free
 * blocks a snapshot shares).
 */
static void file_tree_root_item(struct mend *m, u64 objectid, struct btrfs_root_item *ri)
{
	btrfs_root_item_init_top_dir(ri, m->fs->geo.nodesize);
	btrfs_set_root_used(ri, m->fs->geo.nodesize);
	if (objectid != BTRFS_FS_TREE_OBJECTID)
		return;
	btrfs_set_root_last_snapshot(ri, m->limit);
	btrfs_set_root_ctransid(ri, btrfs_root_generation(ri));
	subvol_uuid_told(m->fs, objectid, ri->uuid);
}

/*
 * A root tree leaf without the root item of a global tree (extent, fs, dev,
 * csum or data relocation) that it spans (check_leaf_spans_root_item()),
 * whose root check_global_root_told() tells: the item is added.
 */
int mend_add_global_roots(struct mend *m)
{

	if (m->tree != BTRFS_ROOT_TREE_OBJECTID)
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(check_global_root_ids); k++) {
		struct btrfs_key key = { check_global_root_ids[k], BTRFS_ROOT_ITEM_KEY, 0 };
		struct btrfs_root_item *ri;
		struct btrfs_tree_ref ref;
		struct item_plan *pl;
		bool have = false;

		for (size_t i = 0; i < m->plan_nr && !have; i++)
			have = !m->plan[i].deleted && m->plan[i].key.objectid == check_global_root_ids[k] &&
			       m->plan[i].key.type == BTRFS_ROOT_ITEM_KEY;
		/* (below the bound: the right neighbour's keys are its own) */
		if (have || (m->bound && btrfs_comp_cpu_keys(&key, m->bound) >= 0) ||
		    !check_leaf_spans_root_item(m->fs, m->eb, check_global_root_ids[k]) ||
		    !check_global_root_told(m->fs, check_global_root_ids[k], &ref))
			continue;
		pl = CHECK_PUSH(m, plan);
		if (!pl || !(ri = calloc(1, sizeof(*ri))))
			return -ENOMEM;
		btrfs_set_root_bytenr(ri, ref.bytenr);
		btrfs_set_root_level(ri, (u8)ref.level);
		btrfs_set_root_generation(ri, ref.generation);
		btrfs_set_root_generation_v2(ri, ref.generation);
		btrfs_set_root_refs(ri, 1);
		if (check_is_file_tree(check_global_root_ids[k]))
			file_tree_root_item(m, check_global_root_ids[k], ri);
		*pl = (struct item_plan){ .key = key, .data = (u8 *)ri, .own = (u8 *)ri, .size = sizeof(*ri) };
		m->rebuild = true;
		mend_say(m, -1, "no root item for tree %lld: added, its root block %llu level %d generation %llu (%s)",
		    (long long)check_global_root_ids[k], (unsigned long long)ref.bytenr, ref.level,
		    (unsigned long long)ref.generation,
		    check_global_root_ids[k] == BTRFS_DATA_RELOC_TREE_OBJECTID ?
		    "its one top block by the extent tree" : "the backup root of this commit");
	}
	return 0;
}

/* A ROOT_REF or ROOT_BACKREF holds one name: its length is what the item's size leaves. */
void mend_root_ref_length(struct mend *m, int slot, u8 *p, u32 size)
{
	struct btrfs_root_ref *ref = (void *)p;
	u32 n = size - (u32)sizeof(*ref);

	if (btrfs_root_ref_name_len(ref) == n || !n || n > BTRFS_NAME_LEN)
		return;
	mend_say(m, slot, "root ref name_len %u, the item holds %u name bytes: set to it", btrfs_root_ref_name_len(ref), n);
	btrfs_set_root_ref_name_len(ref, (u16)n);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The root block of a tree of files by the extent tree, for a root item
 * whose own bytenr, level or generation is wrong (check --repair): see
 * repair-root-items.h.
 */
#include <stdio.h>
#include "check/context.h"
#include "check/repair-root-items.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

static const struct read_policy quiet = { .quiet = true };

/* Does the item's root block read under policy as its tree's root (owner, level, generation)? */
static bool root_block_reads(struct btrfs_fs_info *fs, u64 objectid, const struct btrfs_root_item *ri,
			     const struct read_policy *policy)
{
	struct btrfs_tree_ref ref;
	struct tree_check tc;
	struct extent_buffer *eb;

	btrfs_tree_ref_from_root_item(&ref, objectid, ri);
	if (ref.level >= BTRFS_MAX_LEVEL)
		return false;
	/* what pass 2 asks of it (check/roots.c), and the owner the kernel asks of any root */
	tc = (struct tree_check){ .owner = objectid, .level = ref.level, .transid = ref.generation };
	if (btrfs_read_tree_block_policy(fs, ref.bytenr, &tc, policy, &eb) < 0)
		return false;
	free_extent_buffer(eb);
	return true;
}

bool check_root_block_reads(struct btrfs_fs_info *fs, u64 objectid, const struct btrfs_root_item *ri)
{
	return root_block_reads(fs, objectid, ri, &quiet);
}

/* Is the item's root block its tree's but for its content (the tree-checker)? */
static bool root_block_content_only(struct btrfs_fs_info *fs, u64 objectid, const struct btrfs_root_item *ri)
{
	static const struct read_policy header_only = { .relax = READ_NO_TREE_CHECKER, .quiet = true };

	return root_block_reads(fs, objectid, ri, &header_only);
}

const u64 check_global_root_ids[5] = { BTRFS_EXTENT_TREE_OBJECTID, BTRFS_FS_TREE_OBJECTID,
				       BTRFS_DEV_TREE_OBJECTID, BTRFS_CSUM_TREE_OBJECTID,
				       BTRFS_DATA_RELOC_TREE_OBJECTID };

/* Is eb the root tree's last leaf (the one a search for the largest key lands in)? */
static bool is_last_root_leaf(struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	static const struct btrfs_key largest = { (u64)-1, (u8)-1, (u64)-1 };
	struct btrfs_tree_ref root;
	struct btrfs_path path;
	bool last = false;

	btrfs_init_path(&path);
	if (btrfs_find_tree_root(fs, BTRFS_ROOT_TREE_OBJECTID, &root) == 0 &&
	    btrfs_search_key(fs, &root, &largest, BTRFS_SEARCH_PREV, &path, NULL) == 0)
		last = path.nodes[0] && path.nodes[0]->start == eb->start;
	btrfs_release_path(&path);
	return last;
}

bool check_leaf_spans_root_item(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 objectid)
{
	const struct btrfs_key want = { objectid, BTRFS_ROOT_ITEM_KEY, 0 };
	u32 nr = btrfs_eb_nritems(eb);
	struct btrfs_key first, last;

	if (btrfs_eb_level(eb))
		return false;
	if (eb->start == btrfs_super_root(btrfs_fs_super(fs)))
		return true;
	if (!nr || (u64)nr * sizeof(struct btrfs_item) > btrfs_leaf_data_size(eb))
		return false;
	btrfs_item_key_to_cpu(eb, &first, 0);
	btrfs_item_key_to_cpu(eb, &last, (int)nr - 1);
	if (btrfs_comp_cpu_keys(&first, &want) >= 0)
		return false;
	if (btrfs_comp_cpu_keys(&want, &last) < 0)
		return true;
	/* past its last key: only the root tree's last leaf (the data relocation tree's is the last key) */
	return is_last_root_leaf(fs, eb);
}

static bool backup_ref(struct btrfs_tree_ref *out, u64 objectid, u64 bytenr, u64 generation, u8 level)
{
	*out = (struct btrfs_tree_ref){ .objectid = objectid, .bytenr = bytenr, .level = level,
					.generation = generation };
	return true;
}

bool check_commit_backup_root(const struct btrfs_super_block *sb, u64 objectid, struct btrfs_tree_ref *out)
{
	const struct btrfs_root_backup *b = NULL;

	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS && !b; i++)
		if (btrfs_backup_tree_root_gen(&sb->super_roots[i]) == btrfs_super_generation(sb))
			b = &sb->super_roots[i];
	if (!b)
		return false;
	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_tree_root(b), btrfs_backup_tree_root_gen(b),
				  btrfs_backup_tree_root_level(b));
	case BTRFS_CHUNK_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_chunk_root(b), btrfs_backup_chunk_root_gen(b),
				  btrfs_backup_chunk_root_level(b));
	case BTRFS_EXTENT_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_extent_root(b), btrfs_backup_extent_root_gen(b),
				  btrfs_backup_extent_root_level(b));
	case BTRFS_FS_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_fs_root(b), btrfs_backup_fs_root_gen(b),
				  btrfs_backup_fs_root_level(b));
	case BTRFS_DEV_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_dev_root(b), btrfs_backup_dev_root_gen(b),
				  btrfs_backup_dev_root_level(b));
	case BTRFS_CSUM_TREE_OBJECTID:
		return backup_ref(out, objectid, btrfs_backup_csum_root(b), btrfs_backup_csum_root_gen(b),
				  btrfs_backup_csum_root_level(b));
	}
	return false;
}

bool check_root_item_mendable(u64 objectid)
{
	/* the extent tree cannot name its own root; reloc and log trees are not kept */
	return objectid != BTRFS_EXTENT_TREE_OBJECTID && objectid != BTRFS_TREE_RELOC_OBJECTID &&
	       objectid != BTRFS_TREE_LOG_OBJECTID && objectid != BTRFS_TREE_LOG_FIXUP_OBJECTID &&
	       objectid != BTRFS_ROOT_TREE_OBJECTID && objectid != BTRFS_CHUNK_TREE_OBJECTID;
}

static bool leaf_has_stale_root(struct btrfs_fs_info *fs, const struct extent_buffer *eb);

bool check_global_root_told(struct btrfs_fs_info *fs, u64 objectid, struct btrfs_tree_ref *out)
{
	struct btrfs_root_item ri = { 0 };
	size_t k = 0;

	/* (one of check_global_root_ids) */
	while (k < ARRAY_SIZE(check_global_root_ids) && check_global_root_ids[k] != objectid)
		k++;
	if (k == ARRAY_SIZE(check_global_root_ids))
		return false;
	if (objectid == BTRFS_DATA_RELOC_TREE_OBJECTID) {
		struct check_found_root found;
		char why[256];

		/* (a leaf: the tree holds relocation's inodes only while one runs) */
		if (check_find_root_block(fs, NULL, objectid, &found, why, sizeof(why)) < 0 || found.level)
			return false;
		*out = (struct btrfs_tree_ref){ .objectid = objectid, .bytenr = found.bytenr, .level = 0,
						.generation = found.generation };
	} else if (!check_commit_backup_root(btrfs_fs_super(fs), objectid, out) || out->level >= BTRFS_MAX_LEVEL) {
		return false;
	}
	btrfs_set_root_bytenr(&ri, out->bytenr);
	btrfs_set_root_level(&ri, (u8)out->level);
	btrfs_set_root_generation(&ri, out->generation);
	return check_root_block_reads(fs, objectid, &ri);
}

/* Does root tree leaf eb lack the root item of a global tree it spans, which check_global_root_told() tells? */
static bool lacks_global_root(struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	struct btrfs_tree_ref ref;

	if (btrfs_eb_level(eb))
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(check_global_root_ids); k++) {
		bool have = false;

		if (!check_leaf_spans_root_item(fs, eb, check_global_root_ids[k]))
			continue;
		for (u32 i = 0; i < btrfs_eb_nritems(eb) && !have; i++) {
			struct btrfs_key key;

			btrfs_item_key_to_cpu(eb, &key, (int)i);
			have = key.objectid == check_global_root_ids[k] && key.type == BTRFS_ROOT_ITEM_KEY;
		}
		if (!have && check_global_root_told(fs, check_global_root_ids[k], &ref))
			return true;
	}
	return false;
}

bool check_root_item_at_zero(const struct btrfs_super_block *sb, u64 objectid)
{
	return objectid < BTRFS_FIRST_FREE_OBJECTID && objectid != BTRFS_FS_TREE_OBJECTID &&
	       !(btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2);
}

bool check_leaf_has_stale_root(struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	if (lacks_global_root(fs, eb))
		return true;
	/* a root item at another offset than the kernel looks it up at */
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type == BTRFS_ROOT_ITEM_KEY && key.offset &&
		    check_root_item_at_zero(btrfs_fs_super(fs), key.objectid))
			return true;
	}
	return leaf_has_stale_root(fs, eb);
}

static bool leaf_has_stale_root(struct btrfs_fs_info *fs, const struct extent_buffer *eb)
{
	u64 limit = btrfs_super_generation(btrfs_fs_super(fs));
	u32 nr = btrfs_eb_nritems(eb), i;

	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		u64 gen;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY ||
		    btrfs_leaf_item_size(eb, (int)i) < offsetof(struct btrfs_root_item, generation_v2))
			continue;
		/* never written, or beyond the superblock (the tree-checker allows one more) */
		gen = btrfs_root_generation((const struct btrfs_root_item *)btrfs_leaf_item_ptr(eb, (int)i));
		if (!gen || gen > limit)
			return true;
		/*
		 * a reloc tree's root item may be another tree's whose key was
		 * damaged; the extent tree's may have a generation its block tells
		 */
		if (key.type == BTRFS_ROOT_ITEM_KEY &&
		    (check_root_item_mendable(key.objectid) || key.objectid == BTRFS_TREE_RELOC_OBJECTID ||
		     key.objectid == BTRFS_EXTENT_TREE_OBJECTID) &&
		    btrfs_leaf_item_size(eb, (int)i) >= offsetof(struct btrfs_root_item, generation_v2) &&
		    !check_root_block_reads(fs, key.objectid, btrfs_leaf_item_ptr(eb, (int)i)) &&
		    (key.objectid != BTRFS_EXTENT_TREE_OBJECTID ||
		     !root_block_content_only(fs, key.objectid, btrfs_leaf_item_ptr(eb, (int)i))))
			return true;
	}
	return false;
}

/* The walk of the extent tree: the tree blocks with a back reference to one tree. */
struct root_search {
	u64 objectid;
	u64 extent;               /* the tree block extent item last seen, 0 none */
	int extent_level;
	u64 extent_gen;           /* its generation */
	int level;                /* highest level with a reference, -1 none */
	u64 bytenr;               /* the block at that level */
	u64 gen;                  /* its extent item's generation */
	u32 at_level;             /* blocks at that level */
	u64 other;                /* another of them */
};

static void found_ref(struct root_search *s, u64 bytenr, int level)
{
	if (level > s->level) {
		s->level = level;
		s->bytenr = bytenr;
		s->gen = s->extent_gen;
		s->at_level = 1;
	} else if (level == s->level && bytenr != s->bytenr) {
		s->other = bytenr;
		s->at_level++;
	}
}

static int root_search_item(struct btrfs_path *path, const struct btrfs_key *key, void *arg)
{
	struct root_search *s = arg;
	const struct extent_buffer *eb = path->nodes[0];
	int slot = path->slots[0];
	u32 size = btrfs_leaf_item_size(eb, slot), cur;
	const u8 *p = btrfs_leaf_item_ptr(eb, slot);
	const struct btrfs_extent_item *ei = (const void *)p;

	if (key->type == BTRFS_TREE_BLOCK_REF_KEY) {
		/* a keyed reference follows its extent item */
		if (key->objectid == s->extent && key->offset == s->objectid)
			found_ref(s, key->objectid, s->extent_level);
		return 0;
	}
	if (key->type != BTRFS_EXTENT_ITEM_KEY && key->type != BTRFS_METADATA_ITEM_KEY)
		return 0;
	s->extent = 0;
	if (size < sizeof(*ei) || !(btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		return 0;
	cur = sizeof(*ei);
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		s->extent_level = (int)key->offset;
	} else {
		if (size < cur + sizeof(struct btrfs_tree_block_info))
			return 0;
		s->extent_level = btrfs_tree_block_level((const void *)(p + cur));
		cur += sizeof(struct btrfs_tree_block_info);
	}
	if (s->extent_level >= BTRFS_MAX_LEVEL)
		return 0;
	s->extent = key->objectid;
	s->extent_gen = btrfs_extent_generation(ei);
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);

		if (!rsize || rsize > size - cur)
			break;
		if (type == BTRFS_TREE_BLOCK_REF_KEY && btrfs_extent_inline_ref_offset(iref) == s->objectid)
			found_ref(s, key->objectid, s->extent_level);
		cur += rsize;
	}
	return 0;
}

int check_find_root_block(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *extent_root,
			  u64 objectid, struct check_found_root *out, char *why, size_t len)
{
	struct root_search s = { .objectid = objectid, .level = -1 };
	const struct btrfs_key from = { 0, 0, 0 };
	struct btrfs_tree_ref extent_tree;
	struct tree_check tc;
	struct extent_buffer *eb;
	int ret = 0;

	if (extent_root)
		extent_tree = *extent_root;
	else
		ret = btrfs_find_tree_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_tree);
	if (ret == 0)
		ret = btrfs_for_each_item(fs, NULL, &extent_tree, &from, BTRFS_SEARCH_NEXT, root_search_item, &s);
	if (ret < 0) {
		snprintf(why, len, "the extent tree cannot be read: %s", strerror(-ret));
		return ret;
	}
	if (s.level < 0) {
		snprintf(why, len, "no tree block of the extent tree has a back reference to tree %llu",
			 (unsigned long long)objectid);
		return -ENOENT;
	}
	if (s.at_level > 1) {
		snprintf(why, len, "%u tree blocks of tree %llu at its top level %d (%llu, %llu): which one is its root is not known",
			 s.at_level, (unsigned long long)objectid, s.level,
			 (unsigned long long)s.bytenr, (unsigned long long)s.other);
		return -EUCLEAN;
	}
	tc = (struct tree_check){ .owner = objectid, .level = s.level };
	ret = btrfs_read_tree_block_policy(fs, s.bytenr, &tc, &quiet, &eb);
	if (ret < 0) {
		snprintf(why, len, "its top tree block %llu (level %d) by the extent tree does not read as a block of tree %llu",
			 (unsigned long long)s.bytenr, s.level, (unsigned long long)objectid);
		return -ENOENT;
	}
	out->bytenr = s.bytenr;
	out->level = (u8)s.level;
	/*
	 * The block's generation; the extent item's (which the kernel writes with
	 * the block) when the header's is newer or 0: that is the header's damage
	 * (mended by check/header-mend.c), not the root item's.
	 */
	out->generation = btrfs_header_generation(btrfs_header(eb));
	if (s.gen && (out->generation > s.gen || !out->generation))
		out->generation = s.gen;
	free_extent_buffer(eb);
	if (out->generation > btrfs_super_generation(btrfs_fs_super(fs))) {
		snprintf(why, len, "its top tree block %llu has generation %llu, beyond the superblock's",
			 (unsigned long long)s.bytenr, (unsigned long long)out->generation);
		return -ENOENT;
	}
	return 0;
}

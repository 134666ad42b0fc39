// SPDX-License-Identifier: GPL-2.0
/*
 * What every leaf mend uses (leaf-mend-internal.h): saying what is mended,
 * finding an item in the leaf or its tree, the good copy of a block, the
 * lookups two mends share (a data sector's checksum, an inode ref's
 * names, an extent record the extents pass rebuilds), and the leaf laid
 * out again from its plan (mend_rebuild_leaf(), mend_drop_slot()).  The
 * other leaf-mend*.c call these; nothing here calls them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/tree-checker.h"

void mend_key_fmt(char *buf, size_t len, const struct btrfs_key *k)
{
	snprintf(buf, len, "(%llu %u %llu)", (unsigned long long)k->objectid, k->type,
		 (unsigned long long)k->offset);
}

void mend_say(struct mend *m, int slot, const char *fmt, ...)
{
	char key[80], what[256];
	struct btrfs_key k;
	va_list ap;

	m->changes++;
	if (m->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (slot < 0) {
		printf("Mending leaf %llu of tree %llu: %s\n", (unsigned long long)m->eb->start,
		       (unsigned long long)m->tree, what);
		return;
	}
	btrfs_item_key_to_cpu(m->eb, &k, slot);
	mend_key_fmt(key, sizeof(key), &k);
	printf("Mending leaf %llu of tree %llu slot %d key %s: %s\n",
	       (unsigned long long)m->eb->start, (unsigned long long)m->tree, slot, key, what);
}

/* The block at bytenr from the first mirror whose checksum and header are good, or NULL. */
struct extent_buffer *mend_good_block(struct btrfs_fs_info *fs, u64 bytenr)
{
	static const struct read_policy header_only = { .relax = READ_NO_TREE_CHECKER };
	int mirror, nr = btrfs_num_mirrors(fs, bytenr);

	for (mirror = 1; mirror <= nr; mirror++) {
		struct extent_buffer *eb;

		if (btrfs_read_tree_block_mirror(fs, bytenr, mirror, &eb) < 0)
			continue;
		if (btrfs_verify_tree_block(fs, eb, NULL, &header_only, NULL, 0) == 0)
			return eb;
		free_extent_buffer(eb);
	}
	return NULL;
}

/* The header of the block at bytenr (see mend_good_block()): in *hdr, or false. */
bool mend_block_header(struct btrfs_fs_info *fs, u64 bytenr, struct btrfs_header *hdr)
{
	struct extent_buffer *eb = mend_good_block(fs, bytenr);

	if (!eb)
		return false;
	*hdr = *btrfs_header(eb);
	free_extent_buffer(eb);
	return true;
}

/* Header generation of tree block bytenr from a mirror with a good checksum; 0 if none. */
static u64 block_generation(struct btrfs_fs_info *fs, u64 bytenr)
{
	struct btrfs_header hdr;

	return mend_block_header(fs, bytenr, &hdr) ? btrfs_header_generation(&hdr) : 0;
}

/* A generation for tree block bytenr: its header's, or the limit when that is newer too. */
u64 mend_tree_block_generation(struct mend *m, u64 bytenr)
{
	u64 gen = block_generation(m->fs, bytenr);

	return gen && gen <= m->limit ? gen : m->limit;
}

/*
 * The item at want (BTRFS_SEARCH_EXACT) or the first one after it
 * (BTRFS_SEARCH_NEXT): in this leaf, whose item bytes are trusted, else in
 * the tree (a read error, such as this leaf's own disk copy failing the
 * tree-checker, is "not found").  true with *eb and *slot set (release path
 * after use).
 */
bool mend_find_item(struct mend *m, const struct btrfs_key *want, enum btrfs_search_mode mode,
		      struct btrfs_path *path, const struct extent_buffer **eb, int *slot)
{
	u32 nr = btrfs_eb_nritems(m->eb), i;
	struct btrfs_tree_ref tree;

	btrfs_init_path(path);
	for (i = 0; i < nr; i++) {
		struct btrfs_key k;
		int c;

		btrfs_item_key_to_cpu(m->eb, &k, i);
		c = btrfs_comp_cpu_keys(&k, want);
		/* a later key: the next item when an earlier key of this leaf is before want */
		if (c == 0 || (c > 0 && mode == BTRFS_SEARCH_NEXT && i > 0)) {
			*eb = m->eb;
			*slot = (int)i;
			return true;
		}
		if (c > 0)
			break;
	}
	/*
	 * past this leaf's keys but below its bound: a search of the tree would
	 * land in this very leaf, which does not read; the next item is the
	 * right neighbour's first, the bound
	 */
	if (nr && m->bound && btrfs_comp_cpu_keys(want, m->bound) < 0) {
		struct btrfs_key last;

		btrfs_item_key_to_cpu(m->eb, &last, (int)nr - 1);
		if (btrfs_comp_cpu_keys(want, &last) > 0) {
			if (mode != BTRFS_SEARCH_NEXT)
				return false;
			want = m->bound;
		}
	}
	if (btrfs_find_tree_root(m->fs, m->tree, &tree) < 0 ||
	    btrfs_search_key(m->fs, &tree, want, mode, path, NULL) != 0)
		return false;
	*eb = path->nodes[0];
	*slot = path->slots[0];
	return true;
}

/* Is the leaf its tree's root block? */
bool mend_leaf_is_root(const struct mend *m)
{
	struct btrfs_tree_ref ref;

	return btrfs_find_tree_root(m->fs, m->tree, &ref) == 0 && ref.bytenr == m->eb->start;
}

/* An extent tree record the extents pass rebuilds from the trees that use the extent? */
bool mend_is_rebuilt_record(u8 type)
{
	switch (type) {
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		return true;
	}
	return false;
}

/* Does the csum tree hold a checksum for the data sector at bytenr? */
bool mend_has_csum(struct mend *m, u64 bytenr)
{
	struct btrfs_key want = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, bytenr }, k;
	struct btrfs_tree_ref csum_tree;
	struct btrfs_path path;
	bool found = false;

	if (!m->fs->geo.csum_size || btrfs_find_tree_root(m->fs, BTRFS_CSUM_TREE_OBJECTID, &csum_tree) < 0)
		return false;
	btrfs_init_path(&path);
	if (btrfs_search_key(m->fs, &csum_tree, &want, BTRFS_SEARCH_PREV, &path, &k) == 0 &&
	    k.objectid == BTRFS_EXTENT_CSUM_OBJECTID && k.type == BTRFS_EXTENT_CSUM_KEY && k.offset <= bytenr)
		found = bytenr - k.offset < (u64)(btrfs_leaf_item_size(path.nodes[0], path.slots[0]) /
						  m->fs->geo.csum_size) * m->fs->geo.sectorsize;
	btrfs_release_path(&path);
	return found;
}

/*
 * The refs of the INODE_REF at slot of eb named name (as far as the item
 * parses), the first one's index in *index (may be NULL).
 */
int mend_refs_named(const struct extent_buffer *eb, int slot, const char *name, u32 len, u64 *index)
{
	const u8 *p = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot), cur = 0;
	int n = 0;

	while (size - cur >= sizeof(struct btrfs_inode_ref)) {
		const struct btrfs_inode_ref *ref = (const void *)(p + cur);
		u32 nl = btrfs_inode_ref_name_len(ref);

		cur += sizeof(*ref);
		if (nl > size - cur)
			break;
		if (nl == len && !memcmp(p + cur, name, len) && !n++ && index)
			*index = btrfs_inode_ref_index(ref);
		cur += nl;
	}
	return n;
}

static int plan_cmp(const void *a, const void *b)
{
	return btrfs_comp_cpu_keys(&((const struct item_plan *)a)->key,
				   &((const struct item_plan *)b)->key);
}

/*
 * Lay the items out again, in key order, packed from the end.  Refused
 * when the first key would change (the parent names the leaf by it) or
 * the items no longer fit.
 */
int mend_rebuild_leaf(struct mend *m)
{
	struct extent_buffer *eb = m->eb, *out;
	u32 data_size = BTRFS_LEAF_DATA_SIZE(eb->len), end = data_size;
	const size_t hdr = sizeof(struct btrfs_header);
	struct btrfs_key first;
	size_t i, n = 0;
	u64 need = 0;

	btrfs_item_key_to_cpu(eb, &first, 0);
	for (i = 0; i < m->plan_nr; i++) {
		if (m->plan[i].deleted) {
			free(m->plan[i].own);
			continue;
		}
		m->plan[n++] = m->plan[i];
		need += sizeof(struct btrfs_item) + m->plan[i].size;
	}
	m->plan_nr = n;
	check_sort(m->plan, n, sizeof(*m->plan), plan_cmp);
	/* a parent points to the leaf by its first key; a tree's root leaf has no parent */
	if (!n || (btrfs_comp_cpu_keys(&m->plan[0].key, &first) && !mend_leaf_is_root(m))) {
		mend_say(m, -1, "its first key would change: not mended");
		return -EUCLEAN;
	}
	if (need > data_size) {
		mend_say(m, -1, "the mended items need %llu bytes, more than the leaf holds: not mended",
		    (unsigned long long)need);
		return -EUCLEAN;
	}
	out = clone_extent_buffer(eb);
	if (!out)
		return -ENOMEM;
	memset(out->data + hdr, 0, eb->len - hdr);
	btrfs_set_header_nritems(btrfs_header(out), (u32)n);
	for (i = 0; i < n; i++) {
		struct btrfs_item *item = btrfs_leaf_item(out, (int)i);

		end -= m->plan[i].size;
		btrfs_cpu_key_to_disk(&item->key, &m->plan[i].key);
		btrfs_set_item_offset(item, end);
		btrfs_set_item_size(item, m->plan[i].size);
		memcpy(out->data + hdr + end, m->plan[i].data, m->plan[i].size);
	}
	memcpy(eb->data, out->data, eb->len);
	free_extent_buffer(out);
	return 0;
}

void mend_plan_free(struct mend *m)
{
	CHECK_FREE_ARRAY(m, plan, own);
}

/* The leaf rebuilt without item slot. */
int mend_drop_slot(struct mend *m, int slot)
{
	u32 nr = btrfs_eb_nritems(m->eb), i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct item_plan *pl = CHECK_PUSH(m, plan);

		if (!pl) {
			mend_plan_free(m);
			return -ENOMEM;
		}
		btrfs_item_key_to_cpu(m->eb, &pl->key, (int)i);
		pl->data = btrfs_leaf_item_ptr(m->eb, (int)i);
		pl->size = btrfs_leaf_item_size(m->eb, (int)i);
		pl->deleted = (int)i == slot;
	}
	ret = mend_rebuild_leaf(m);
	mend_plan_free(m);
	return ret;
}

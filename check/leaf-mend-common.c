// SPDX-License-Identifier: GPL-2.0
/*
 * What every leaf mend uses (leaf-mend-internal.h): saying what is mended,
 * finding an item in the leaf or its tree, the good copy of a block.  The
 * dispatcher (check/leaf-mend.c) calls the mends of each item kind
 * (leaf-mend-*.c); they and it call these, never each other.
 */
#include <stdarg.h>
#include <stdio.h>
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of directory entries and
 * xattrs (DIR_ITEM, DIR_INDEX, XATTR_ITEM): entry lengths that do not fill
 * the item, file types the tree-checker rejects, entries whose names do
 * not hash to their key (moved to their hash or dropped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/context.h"
#include "check/dir-entry-lengths.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"

/* The inode ref naming (dir, name) for ino: in this leaf, else in the tree. */
static bool name_confirmed(struct mend *m, u64 ino, u64 dir, const char *name, u32 len)
{
	struct btrfs_key want = { .objectid = ino, .type = BTRFS_INODE_REF_KEY, .offset = dir };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool found = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot))
		found = mend_refs_named(eb, slot, name, len, NULL) > 0;
	btrfs_release_path(&path);
	return found;
}

/*
 * May an item with key be added?  Strictly between the leaf's first and
 * last keys (so no other leaf can hold it and the parent's key stays), and
 * no item has it.
 */
static bool key_fits(const struct mend *m, const struct btrfs_key *key)
{
	u32 nr = btrfs_eb_nritems(m->eb);
	struct btrfs_key first, last;
	size_t i;

	btrfs_item_key_to_cpu(m->eb, &first, 0);
	btrfs_item_key_to_cpu(m->eb, &last, nr - 1);
	if (btrfs_comp_cpu_keys(key, &first) <= 0 || btrfs_comp_cpu_keys(key, &last) >= 0)
		return false;
	for (i = 0; i < m->plan_nr; i++)
		if (!m->plan[i].deleted && !btrfs_comp_cpu_keys(&m->plan[i].key, key))
			return false;
	return true;
}

static bool printable(const char *name, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return false;
	return true;
}

/* A name for messages: as is when printable, else its length. */
static void name_fmt(char *buf, size_t len, const char *name, u32 n)
{
	if (printable(name, n) && n < len - 2)
		snprintf(buf, len, "'%.*s'", (int)n, name);
	else
		snprintf(buf, len, "(%u bytes, not printable)", n);
}

/*
 * Is the name of an entry that does not hash to its key the right one (so
 * the key is what got corrupted)?  A directory entry: when the inode's ref
 * names it; the root tree's "default" entry: always; an xattr, which
 * nothing else names: when it is printable, as xattr names are.
 */
static bool entry_name_trusted(struct mend *m, const struct btrfs_key *key,
			       const struct btrfs_key *loc, const char *name, u32 n, char *why,
			       size_t whylen)
{
	static const char def[] = "default";

	if (key->type == BTRFS_XATTR_ITEM_KEY) {
		snprintf(why, whylen, "an xattr name, printable");
		return printable(name, n);
	}
	if (key->objectid == BTRFS_ROOT_TREE_DIR_OBJECTID && loc->type == BTRFS_ROOT_ITEM_KEY) {
		snprintf(why, whylen, "the default subvolume entry");
		return n == sizeof(def) - 1 && !memcmp(name, def, n);
	}
	snprintf(why, whylen, "inode %llu's ref confirms the name", (unsigned long long)loc->objectid);
	return loc->type == BTRFS_INODE_ITEM_KEY &&
	       name_confirmed(m, loc->objectid, key->objectid, name, n);
}

/*
 * One entry of a DIR_ITEM or XATTR_ITEM whose name does not hash to the
 * key: moved to a new item at its hash when its name is trusted, else
 * dropped.
 */
static int move_entry(struct mend *m, int slot, const struct btrfs_key *key,
		      const struct btrfs_dir_item *d, u32 len, u32 hash)
{
	struct btrfs_key nkey = { key->objectid, key->type, hash }, loc;
	const char *name = btrfs_dir_name_ptr(d);
	u32 n = btrfs_dir_name_len(d);
	struct item_plan *np;
	char shown[300], why[80];

	name_fmt(shown, sizeof(shown), name, n);
	btrfs_disk_key_to_cpu(&loc, &d->location);
	if (key_fits(m, &nkey) && entry_name_trusted(m, key, &loc, name, n, why, sizeof(why))) {
		mend_say(m, slot, "name %s hashes to 0x%08x, not to the key: moved to key (%llu %u %u), %s",
		    shown, hash, (unsigned long long)nkey.objectid, nkey.type, hash, why);
		np = CHECK_PUSH(m, plan);
		if (!np)
			return -ENOMEM;
		np->key = nkey;
		np->own = malloc(len);
		if (!np->own)
			return -ENOMEM;
		memcpy(np->own, d, len);
		np->data = np->own;
		np->size = len;
		return 0;
	}
	mend_say(m, slot, "name %s hashes to 0x%08x, not to the key: entry dropped", shown, hash);
	return 0;
}

/*
 * A DIR_ITEM, DIR_INDEX or XATTR_ITEM whose entry lengths do not fill it
 * (dir-entry-lengths.h): the one entry whose other lengths do is mended, a
 * DIR_INDEX's only when the inode's ref confirms the name.  A directory
 * entry item that cannot be mended so goes: the fs roots repair re-adds an
 * entry that the inode ref and the other entry item prove.  An xattr item
 * is left to the tree-checker's verdict (nothing else holds its value).
 */
void mend_entry_lengths(struct mend *m, int slot, const struct btrfs_key *key, u8 *p,
			u32 size)
{
	struct dir_entry_fix fix;
	int ret = dir_entry_lengths_fix(key->type, key->offset, p, size,
					btrfs_fs_geometry(m->fs)->nodesize, &fix);
	struct btrfs_dir_item *d;
	struct btrfs_key loc;
	const char *why = "the name hashes to the key";

	if (ret == 0)
		return;
	d = ret == 1 ? (void *)(p + fix.offset) : NULL;
	if (ret == 1 && key->type == BTRFS_DIR_INDEX_KEY) {
		btrfs_disk_key_to_cpu(&loc, &d->location);
		why = "the inode's ref confirms the name";
		if (loc.type != BTRFS_INODE_ITEM_KEY ||
		    !name_confirmed(m, loc.objectid, key->objectid, btrfs_dir_name_ptr(d), fix.name_len))
			ret = -1;
	}
	if (ret == 1) {
		mend_say(m, slot, "entry at byte %u: name_len %u data_len %u do not fill the item, %u and %u do (%s)",
		    fix.offset, btrfs_dir_name_len(d), btrfs_dir_data_len(d), fix.name_len, fix.data_len, why);
		btrfs_set_dir_name_len(d, fix.name_len);
		btrfs_set_dir_data_len(d, fix.data_len);
		return;
	}
	if (key->type == BTRFS_XATTR_ITEM_KEY)
		return;
	mend_say(m, slot, "entry lengths do not fill the item and no one change makes them: item removed");
	m->plan[slot].deleted = true;
	m->rebuild = true;
}

/* The file type of inode ino's mode (this leaf, else the tree): 0 when unknown. */
static u8 inode_ftype(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u8 ftype = BTRFS_FT_UNKNOWN;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item))
		ftype = btrfs_ftype_of_mode(btrfs_inode_mode(
			(const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)));
	btrfs_release_path(&path);
	return ftype;
}

/*
 * A directory entry whose file type the tree-checker rejects (beyond the
 * known types, or an xattr's): the type of what it points to, a subvolume
 * being a directory.  Types the tree-checker takes are the fs roots pass's
 * to compare with the inode.  An xattr's entry: the xattr type.
 */
void mend_entry_type(struct mend *m, int slot, const struct btrfs_key *key, u8 *p, u32 size)
{
	for (u32 cur = 0; size - cur >= sizeof(struct btrfs_dir_item);) {
		struct btrfs_dir_item *d = (void *)(p + cur);
		u32 len = btrfs_dir_name_len(d) + btrfs_dir_data_len(d);
		u8 type = btrfs_dir_ftype(d), want = BTRFS_FT_UNKNOWN;
		struct btrfs_key loc;

		if (len > size - cur - sizeof(*d))
			return;
		btrfs_disk_key_to_cpu(&loc, &d->location);
		/* an xattr's entry has the one type */
		if (key->type == BTRFS_XATTR_ITEM_KEY && btrfs_dir_type(d) != BTRFS_FT_XATTR) {
			mend_say(m, slot, "xattr entry at byte %u: file type %u, set to %u (every xattr's)",
			    cur, btrfs_dir_type(d), BTRFS_FT_XATTR);
			btrfs_set_dir_type(d, BTRFS_FT_XATTR);
		} else if (key->type != BTRFS_XATTR_ITEM_KEY && (type >= BTRFS_FT_MAX || type == BTRFS_FT_XATTR)) {
			if (loc.type == BTRFS_ROOT_ITEM_KEY)
				want = BTRFS_FT_DIR;
			else if (loc.type == BTRFS_INODE_ITEM_KEY)
				want = inode_ftype(m, loc.objectid);
			if (want != BTRFS_FT_UNKNOWN) {
				mend_say(m, slot, "entry at byte %u: file type %u is not one, %u is its %s's",
				    cur, btrfs_dir_type(d), want,
				    loc.type == BTRFS_ROOT_ITEM_KEY ? "subvolume" : "inode");
				btrfs_set_dir_type(d, want);   /* no ENCRYPTED bit from a garbage byte */
			}
		}
		cur += (u32)sizeof(*d) + len;
	}
}

/* A DIR_ITEM or XATTR_ITEM keeps only the entries whose names hash to its key. */
int mend_dir_item(struct mend *m, int slot, const struct btrfs_key *key, const u8 *p,
		  u32 size)
{
	u32 cur = 0, kept = 0, bad = 0;
	u8 *good;
	int ret;

	/* structure first: a malformed item is left to the tree-checker's verdict */
	while (cur < size) {
		const struct btrfs_dir_item *d = (const void *)(p + cur);
		u32 n, len;

		if (size - cur < sizeof(*d))
			return 0;
		n = btrfs_dir_name_len(d);
		len = n + btrfs_dir_data_len(d);
		cur += sizeof(*d);
		if (len > size - cur)
			return 0;
		if (btrfs_name_hash((const char *)p + cur, (int)n) != key->offset)
			bad++;
		cur += len;
	}
	if (!bad)
		return 0;
	good = malloc(size);
	if (!good)
		return -ENOMEM;
	for (cur = 0; cur < size;) {
		const struct btrfs_dir_item *d = (const void *)(p + cur);
		u32 n = btrfs_dir_name_len(d);
		u32 len = sizeof(*d) + n + btrfs_dir_data_len(d);
		u32 hash = btrfs_name_hash(btrfs_dir_name_ptr(d), (int)n);

		if (hash == key->offset) {
			memcpy(good + kept, d, len);
			kept += len;
		} else {
			ret = move_entry(m, slot, key, d, len, hash);
			if (ret < 0) {
				free(good);
				return ret;
			}
		}
		cur += len;
	}
	m->rebuild = true;
	if (!kept) {
		free(good);
		m->plan[slot].deleted = true;
		mend_say(m, slot, "no entry left at this key: item removed");
		return 0;
	}
	m->plan[slot].own = good;
	m->plan[slot].data = good;
	m->plan[slot].size = kept;
	return 0;
}

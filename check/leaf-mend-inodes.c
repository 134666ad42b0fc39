// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of inode items: the mode
 * (the type its names or its own items give), flags with unknown bits (what
 * its data extents' checksums and items tell), a directory's nlink, transid
 * and generation beyond the superblock's.
 */
#include <string.h>
#include <sys/stat.h>
#include "check/context.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"

/*
 * The type an inode's own items give, for an inode without names: file
 * extents make a regular file, directory entries a directory; 0 if the leaf
 * holds neither after its inode item.
 */
static u32 items_type(const struct mend *m, int slot, u64 ino)
{
	u32 nr = btrfs_eb_nritems(m->eb);

	for (u32 i = (u32)slot + 1; i < nr; i++) {
		struct btrfs_key key;

		btrfs_item_key_to_cpu(m->eb, &key, (int)i);
		if (key.objectid != ino)
			break;
		if (key.type == BTRFS_EXTENT_DATA_KEY)
			return 0100000;
		if (key.type == BTRFS_DIR_ITEM_KEY || key.type == BTRFS_DIR_INDEX_KEY)
			return 0040000;
	}
	return 0;
}

/* Has ino an inode ref (a name, whatever its entries say)? */
static bool has_inode_ref(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool found = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		found = k.objectid == ino && k.type == BTRFS_INODE_REF_KEY;
	}
	btrfs_release_path(&path);
	return found;
}

/*
 * The entry named name pointing to ino in the DIR_ITEM or DIR_INDEX item at
 * key: its file type, or 0 when there is none such.
 */
static u8 entry_type(struct mend *m, const struct btrfs_key *key, u64 ino, const char *name,
		     u32 len)
{
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u8 type = 0;
	int slot;

	if (mend_find_item(m, key, BTRFS_SEARCH_EXACT, &path, &eb, &slot)) {
		const u8 *p = btrfs_leaf_item_ptr(eb, slot);
		u32 size = btrfs_leaf_item_size(eb, slot), cur = 0;

		while (!type && size - cur >= sizeof(struct btrfs_dir_item)) {
			const struct btrfs_dir_item *d = (const void *)(p + cur);
			u32 n = btrfs_dir_name_len(d), dlen = n + btrfs_dir_data_len(d);
			struct btrfs_key loc;

			cur += sizeof(*d);
			if (dlen > size - cur)
				break;
			btrfs_disk_key_to_cpu(&loc, &d->location);
			if (loc.objectid == ino && loc.type == BTRFS_INODE_ITEM_KEY && n == len &&
			    !memcmp(p + cur, name, len))
				type = btrfs_dir_ftype(d);
			cur += dlen;
		}
	}
	btrfs_release_path(&path);
	return type;
}

/*
 * The file type ino's first name gives it: its inode ref's DIR_INDEX and
 * DIR_ITEM entries must both exist and agree; 0 otherwise.
 */
static u8 named_type(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_REF_KEY, 0 }, k;
	const struct extent_buffer *eb;
	char name[BTRFS_NAME_LEN];
	struct btrfs_path path;
	u32 len = 0;
	u64 index = 0;
	int slot;
	u8 a, b;

	if (!mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_release_path(&path);
		return 0;
	}
	btrfs_item_key_to_cpu(eb, &k, slot);
	if (k.objectid == ino && k.type == BTRFS_INODE_REF_KEY &&
	    btrfs_leaf_item_size(eb, slot) >= sizeof(struct btrfs_inode_ref)) {
		const struct btrfs_inode_ref *ref = btrfs_leaf_item_ptr(eb, slot);

		len = btrfs_inode_ref_name_len(ref);
		index = btrfs_inode_ref_index(ref);
		if (len > sizeof(name) || len > btrfs_leaf_item_size(eb, slot) - sizeof(*ref))
			len = 0;
		else
			memcpy(name, btrfs_inode_ref_name_ptr(ref), len);
	}
	btrfs_release_path(&path);
	if (!len)
		return 0;
	want = (struct btrfs_key){ k.offset, BTRFS_DIR_INDEX_KEY, index };
	a = entry_type(m, &want, ino, name, len);
	want = (struct btrfs_key){ k.offset, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, (int)len) };
	b = entry_type(m, &want, ino, name, len);
	return a == b ? a : 0;
}

/*
 * An inode's mode whose type is no S_IF* type, or with bits beyond type and
 * permissions: the type its names' directory entries give (both the
 * DIR_INDEX and the DIR_ITEM, agreeing; a subvolume's top directory is a
 * directory, the data relocation tree's too), the permission bits kept.  Left as is (the leaf not mended)
 * when nothing says.
 */
static void mend_inode_mode(struct mend *m, int slot, u64 ino, struct btrfs_inode_item *ii)
{
	u32 mode = btrfs_inode_mode(ii), type = mode & 0170000, nmode;
	const char *why = "bits beyond type and permissions cleared";

	if (btrfs_ftype_of_mode(mode) != BTRFS_FT_UNKNOWN && !(mode & ~(0170000 | 07777)))
		return;
	/* the root tree's only inodes numbered like files are space cache v1 files */
	if (m->tree == BTRFS_ROOT_TREE_OBJECTID && ino >= BTRFS_FIRST_FREE_OBJECTID &&
	    ino <= BTRFS_LAST_FREE_OBJECTID) {
		mend_say(m, slot, "inode mode 0%o, set to 0100600 (a space cache file's, as the kernel makes them)", mode);
		btrfs_set_inode_mode(ii, 0100600);
		return;
	}
	/* the root tree's directory (holding "default") is one, as mkfs makes it */
	if (m->tree == BTRFS_ROOT_TREE_OBJECTID && ino == BTRFS_ROOT_TREE_DIR_OBJECTID) {
		mend_say(m, slot, "inode mode 0%o, set to 040755 (the root tree's directory, as mkfs makes it)", mode);
		btrfs_set_inode_mode(ii, 040755);
		return;
	}
	if (!check_is_file_tree(m->tree))
		return;
	/* bits beyond type and permissions set: the type bits are suspect too */
	if (ino == BTRFS_FIRST_FREE_OBJECTID) {
		type = 0040000;
		why = "a tree's top directory";
	} else if (btrfs_ftype_of_mode(type) == BTRFS_FT_UNKNOWN || (mode & ~(0170000 | 07777))) {
		u32 named = btrfs_mode_of_ftype(named_type(m, ino));
		u32 own = named || has_inode_ref(m, ino) ? 0 : items_type(m, slot, ino);

		if (named) {
			type = named;
			why = "the file type its directory entries give";
		} else if (own) {
			type = own;
			why = "the file type its own items give";
		} else if (btrfs_ftype_of_mode(type) == BTRFS_FT_UNKNOWN) {
			type = 0;
		}
	}
	if (!type)
		return;
	nmode = type | (mode & 07777);
	mend_say(m, slot, "inode mode 0%o, set to 0%o (%s)", mode, nmode, why);
	btrfs_set_inode_mode(ii, nmode);
}

/*
 * The inode flags its other items tell, for a flags word with unknown bits
 * (garbage): NODATASUM and NODATACOW when its first regular data extent has
 * no checksum, the verity bit when it has a verity descriptor; nothing else
 * can be known.
 */
static u64 inode_flags_told(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_EXTENT_DATA_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u64 flags = 0;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == ino && k.type == BTRFS_EXTENT_DATA_KEY &&
		    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_file_extent_item)) {
			const struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(eb, slot);

			if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_REG &&
			    btrfs_file_extent_disk_bytenr(fi) &&
			    !mend_has_csum(m, btrfs_file_extent_disk_bytenr(fi)))
				flags |= BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW;
		}
	}
	btrfs_release_path(&path);
	want = (struct btrfs_key){ ino, BTRFS_VERITY_DESC_ITEM_KEY, 0 };
	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == ino && k.type == BTRFS_VERITY_DESC_ITEM_KEY)
			flags |= (u64)BTRFS_INODE_RO_VERITY << 32;
	}
	btrfs_release_path(&path);
	return flags;
}

/*
 * Generation: when the inode was made, so never after its transid (last
 * change).  A directory has one name: nlink 1 (pass 5 then checks it).
 */
void mend_inode(struct mend *m, int slot, u64 ino, struct btrfs_inode_item *ii)
{
	u64 gen = btrfs_inode_generation(ii), tid = btrfs_inode_transid(ii);
	u64 leaf_gen = btrfs_header_generation(btrfs_header(m->eb));

	mend_inode_mode(m, slot, ino, ii);
	if (((u32)btrfs_inode_flags(ii) & ~BTRFS_INODE_FLAG_MASK) ||
	    ((u32)(btrfs_inode_flags(ii) >> 32) & ~BTRFS_INODE_RO_FLAG_MASK)) {
		u64 want = inode_flags_told(m, ino);

		mend_say(m, slot, "inode flags 0x%llx have unknown bits (a damaged word): set to 0x%llx, what its data extents' checksums and items tell",
		    (unsigned long long)btrfs_inode_flags(ii), (unsigned long long)want);
		btrfs_set_inode_flags(ii, want);
	}
	if (S_ISDIR(btrfs_inode_mode(ii)) && btrfs_inode_nlink(ii) > 1) {
		mend_say(m, slot, "directory nlink %u, set to 1", btrfs_inode_nlink(ii));
		btrfs_set_inode_nlink(ii, 1);
	}

	if (tid > m->limit) {
		mend_say(m, slot, "inode transid %llu beyond the superblock's, set to the leaf's generation %llu",
		    (unsigned long long)tid, (unsigned long long)leaf_gen);
		btrfs_set_inode_transid(ii, leaf_gen);
		tid = leaf_gen;
	}
	if (gen > m->limit) {
		mend_say(m, slot, "inode generation %llu beyond the superblock's, set to its transid %llu",
		    (unsigned long long)gen, (unsigned long long)tid);
		btrfs_set_inode_generation(ii, tid);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of file extent items:
 * type, compression and encodings; lengths, offset and disk_bytenr from the
 * extent tree's data extent; num_bytes from the file's layout.
 */
#include "check/file-extent-codes.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/read/disk-io.h"

/*
 * The data extent the extent tree has at bytenr: its length in *len, and in
 * offs[] the offsets of its data references of (root, ino) (file offset
 * minus extent offset; inline and keyed), at most max of them, *nr of them
 * in all.  false when the extent tree has no data extent there.
 */
static bool data_extent_refs(struct mend *m, u64 bytenr, u64 ino, u64 *len, u64 *offs, u32 max,
			     u32 *nr)
{
	struct btrfs_key want = { bytenr, BTRFS_EXTENT_ITEM_KEY, 0 }, k;
	struct btrfs_tree_ref extent_tree;
	struct btrfs_path path;
	bool found = false;
	int ret;

	*nr = 0;
	if (btrfs_find_tree_root(m->fs, BTRFS_EXTENT_TREE_OBJECTID, &extent_tree) < 0)
		return false;
	btrfs_init_path(&path);
	ret = btrfs_search_key(m->fs, &extent_tree, &want, BTRFS_SEARCH_NEXT, &path, &k);
	if (ret == 0 && k.objectid == bytenr && k.type == BTRFS_EXTENT_ITEM_KEY &&
	    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_extent_item)) {
		const u8 *p = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);
		u32 size = btrfs_leaf_item_size(path.nodes[0], path.slots[0]);
		u32 cur = sizeof(struct btrfs_extent_item);

		found = btrfs_extent_flags((const void *)p) & BTRFS_EXTENT_FLAG_DATA;
		*len = k.offset;
		/* inline refs: data refs name (root, ino, offset); shared ones do not */
		while (found && cur < size) {
			const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
			u8 type = btrfs_extent_inline_ref_type(iref);
			u32 rsize = btrfs_extent_inline_ref_size(type);

			if (!rsize || cur + rsize > size)
				break;
			if (type == BTRFS_EXTENT_DATA_REF_KEY) {
				const struct btrfs_extent_data_ref *dr = (const void *)&iref->offset;

				if (btrfs_extent_data_ref_root(dr) == m->tree &&
				    btrfs_extent_data_ref_objectid(dr) == ino && (*nr)++ < max)
					offs[*nr - 1] = btrfs_extent_data_ref_offset(dr);
			}
			cur += rsize;
		}
		/* keyed data refs follow the extent item */
		while (found && btrfs_next_item(&path) == 0) {
			btrfs_path_item_key(&path, &k);
			if (k.objectid != bytenr || k.type > BTRFS_SHARED_DATA_REF_KEY)
				break;
			if (k.type == BTRFS_EXTENT_DATA_REF_KEY &&
			    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) >=
			    sizeof(struct btrfs_extent_data_ref)) {
				const struct btrfs_extent_data_ref *dr =
					btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);

				if (btrfs_extent_data_ref_root(dr) == m->tree &&
				    btrfs_extent_data_ref_objectid(dr) == ino && (*nr)++ < max)
					offs[*nr - 1] = btrfs_extent_data_ref_offset(dr);
			}
		}
	}
	btrfs_release_path(&path);
	return found;
}

/*
 * An item of a regular extent's size whose fields after the type, read as
 * a regular extent's, name a data extent the extent tree has, exactly (its
 * start and length): the item is a regular extent whose type was damaged.
 */
static bool names_data_extent(struct mend *m, const struct btrfs_file_extent_item *fi)
{
	u64 bytenr = btrfs_file_extent_disk_bytenr(fi), len;
	u32 nr;

	return bytenr && data_extent_refs(m, bytenr, 0, &len, NULL, 0, &nr) &&
	       len == btrfs_file_extent_disk_num_bytes(fi);
}

/*
 * A regular or preallocated extent's fields the tree-checker wants aligned,
 * each set from the extent tree's data extent at disk_bytenr: disk_num_bytes
 * its length; an uncompressed extent's ram_bytes its length too (a
 * compressed one's what its data decompresses to); the offset
 * from the one data reference of this inode (file offset minus offset) that
 * keeps the extent within ram_bytes.
 */
static void mend_extent_fields(struct mend *m, int slot, struct btrfs_file_extent_item *fi)
{
	u32 ss = m->fs->geo.sectorsize, nr;
	u64 len, offs[4], off = 0, num = btrfs_file_extent_num_bytes(fi);
	struct btrfs_key key;
	int fits = 0;

	if (IS_ALIGNED(btrfs_file_extent_disk_num_bytes(fi), ss) && IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss) &&
	    IS_ALIGNED(btrfs_file_extent_offset(fi), ss))
		return;
	btrfs_item_key_to_cpu(m->eb, &key, slot);
	if (!data_extent_refs(m, btrfs_file_extent_disk_bytenr(fi), key.objectid, &len, offs,
			      ARRAY_SIZE(offs), &nr))
		return;
	if (!IS_ALIGNED(btrfs_file_extent_disk_num_bytes(fi), ss)) {
		mend_say(m, slot, "file extent disk_num_bytes %llu, set to its data extent's length %llu",
		    (unsigned long long)btrfs_file_extent_disk_num_bytes(fi), (unsigned long long)len);
		btrfs_set_file_extent_disk_num_bytes(fi, len);
	}
	if (!IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss) && !btrfs_file_extent_compression(fi)) {
		mend_say(m, slot, "uncompressed file extent ram_bytes %llu, set to its data extent's length %llu",
		    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)len);
		btrfs_set_file_extent_ram_bytes(fi, len);
	} else if (!IS_ALIGNED(btrfs_file_extent_ram_bytes(fi), ss)) {
		u64 ram = btrfs_file_extent_disk_num_bytes(fi) == len ? file_extent_ram_told(m->fs, fi) : 0;

		if (ram && btrfs_file_extent_offset(fi) + num <= ram) {
			mend_say(m, slot, "compressed file extent ram_bytes %llu, set to %llu (what its data decompresses to)",
			    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)ram);
			btrfs_set_file_extent_ram_bytes(fi, ram);
		}
	}
	if (IS_ALIGNED(btrfs_file_extent_offset(fi), ss) || nr > ARRAY_SIZE(offs))
		return;
	for (u32 i = 0; i < nr; i++) {
		u64 o = key.offset - offs[i];

		if (offs[i] <= key.offset && IS_ALIGNED(o, ss) &&
		    o + num <= btrfs_file_extent_ram_bytes(fi) && o + num >= o && !fits++)
			off = o;
	}
	if (fits != 1)
		return;
	mend_say(m, slot, "file extent offset %llu, set to %llu (its file offset less its data reference's)",
	    (unsigned long long)btrfs_file_extent_offset(fi), (unsigned long long)off);
	btrfs_set_file_extent_offset(fi, off);
}

/* Does inode ino of this tree checksum its data (no NODATASUM)?  false when not known. */
static bool inode_has_datasum(struct mend *m, u64 ino)
{
	struct btrfs_key want = { ino, BTRFS_INODE_ITEM_KEY, 0 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	bool sums = false;
	int slot;

	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		sums = k.objectid == ino && k.type == BTRFS_INODE_ITEM_KEY &&
		       btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item) &&
		       !(btrfs_inode_flags((const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)) &
			 BTRFS_INODE_NODATASUM);
	}
	btrfs_release_path(&path);
	return sums;
}

/*
 * The type a file extent's item tells, for a type the tree-checker rejects
 * (unknown, or regular/preallocated in an item of another size): only those
 * two fill the whole struct, so another size is inline.  At that size, an
 * item naming a data extent the extent tree has is regular when the data has
 * checksums, preallocated when not in a file that checksums its data; one
 * naming no data, with nothing after disk_bytenr but num_bytes, is a hole (regular);
 * an uncompressed inline extent of that size holds 32 bytes.  -1: not told.
 */
static int file_extent_type_told(struct mend *m, int slot, const struct btrfs_file_extent_item *fi,
				 u32 size)
{
	struct btrfs_key key;

	if (size != sizeof(*fi))
		return BTRFS_FILE_EXTENT_INLINE;
	if (names_data_extent(m, fi)) {
		btrfs_item_key_to_cpu(m->eb, &key, slot);
		if (mend_has_csum(m, btrfs_file_extent_disk_bytenr(fi)))
			return BTRFS_FILE_EXTENT_REG;
		return inode_has_datasum(m, key.objectid) ? BTRFS_FILE_EXTENT_PREALLOC : -1;
	}
	if (!btrfs_file_extent_disk_bytenr(fi) && !btrfs_file_extent_disk_num_bytes(fi) &&
	    !btrfs_file_extent_offset(fi) && btrfs_file_extent_num_bytes(fi) &&
	    IS_ALIGNED(btrfs_file_extent_num_bytes(fi), m->fs->geo.sectorsize))
		return BTRFS_FILE_EXTENT_REG;
	if (!btrfs_file_extent_compression(fi) &&
	    btrfs_file_extent_ram_bytes(fi) == btrfs_file_extent_inline_item_len(size))
		return BTRFS_FILE_EXTENT_INLINE;
	return -1;
}

/*
 * A file extent's codes: encryption and other_encoding, which no kernel
 * writes, are 0; a type or compression the tree-checker rejects is the one
 * the item and its data tell (file_extent_type_told(),
 * file_extent_compression_told()), else left for the tree-checker to refuse.
 */
static void mend_file_extent_codes(struct mend *m, int slot, struct btrfs_file_extent_item *fi,
				   u32 size)
{
	u8 type = btrfs_file_extent_type(fi);

	if (btrfs_file_extent_encryption(fi)) {
		mend_say(m, slot, "file extent encryption %u, no kernel writes one: set to 0",
		    btrfs_file_extent_encryption(fi));
		btrfs_set_file_extent_encryption(fi, 0);
	}
	if (btrfs_file_extent_other_encoding(fi)) {
		mend_say(m, slot, "file extent other_encoding %u, no kernel writes one: set to 0",
		    btrfs_file_extent_other_encoding(fi));
		btrfs_set_file_extent_other_encoding(fi, 0);
	}
	if (type >= BTRFS_NR_FILE_EXTENT_TYPES || (type != BTRFS_FILE_EXTENT_INLINE && size != sizeof(*fi))) {
		int told = file_extent_type_told(m, slot, fi, size);

		if (told < 0)
			return;
		mend_say(m, slot, "file extent type %u, the item%s tells %s: set to %d", type,
		    told == BTRFS_FILE_EXTENT_INLINE ? "'s size" : " and its data",
		    told == BTRFS_FILE_EXTENT_INLINE ? "inline" :
		    told == BTRFS_FILE_EXTENT_REG ? "regular" : "preallocated", told);
		btrfs_set_file_extent_type(fi, (u8)told);
		type = (u8)told;
	}
	if (btrfs_file_extent_compression(fi) >= BTRFS_NR_COMPRESS_TYPES &&
	    (type == BTRFS_FILE_EXTENT_INLINE || names_data_extent(m, fi))) {
		int told = file_extent_compression_told(m->fs, fi, size);

		if (told < 0)
			return;
		mend_say(m, slot, "file extent compression %u, its data is %s: set to %d",
		    btrfs_file_extent_compression(fi), told ? btrfs_compress_name(told) : "uncompressed", told);
		btrfs_set_file_extent_compression(fi, (u8)told);
	}
}

/*
 * Where the file extent at key ends, by the file's layout: the next file
 * extent's offset, else the inode's size rounded up to the sector.  0 when
 * neither can be read.
 */
static u64 file_extent_end_told(struct mend *m, const struct btrfs_key *key)
{
	struct btrfs_key want = { key->objectid, BTRFS_EXTENT_DATA_KEY, key->offset + 1 }, k;
	const struct extent_buffer *eb;
	struct btrfs_path path;
	u64 end = 0;
	int slot;

	if (key->offset == (u64)-1)
		return 0;
	if (mend_find_item(m, &want, BTRFS_SEARCH_NEXT, &path, &eb, &slot)) {
		btrfs_item_key_to_cpu(eb, &k, slot);
		if (k.objectid == key->objectid && k.type == BTRFS_EXTENT_DATA_KEY)
			end = k.offset;
	}
	btrfs_release_path(&path);
	if (end)
		return end;
	want = (struct btrfs_key){ key->objectid, BTRFS_INODE_ITEM_KEY, 0 };
	if (mend_find_item(m, &want, BTRFS_SEARCH_EXACT, &path, &eb, &slot) &&
	    btrfs_leaf_item_size(eb, slot) == sizeof(struct btrfs_inode_item))
		end = round_up(btrfs_inode_size((const struct btrfs_inode_item *)btrfs_leaf_item_ptr(eb, slot)),
			       (u64)m->fs->geo.sectorsize);
	btrfs_release_path(&path);
	return end;
}

/*
 * An unaligned num_bytes of a regular or preallocated extent, or one past
 * its data and over the next extent: the extent
 * reaches where the file's layout says the next one starts.  An extent of
 * data cannot reach past its data (ram_bytes less offset): with NO_HOLES it
 * then ends there (a hole follows), without NO_HOLES nothing is told.
 */
static void mend_num_bytes(struct mend *m, int slot, struct btrfs_file_extent_item *fi)
{
	u64 num = btrfs_file_extent_num_bytes(fi), avail, end, want;
	struct btrfs_key key, next;
	bool past, overlap = false;

	btrfs_item_key_to_cpu(m->eb, &key, slot);
	/* past its data, or over the next extent of the file (the tree-checker's rule) */
	past = btrfs_file_extent_disk_bytenr(fi) &&
	       btrfs_file_extent_offset(fi) + num > btrfs_file_extent_ram_bytes(fi);
	if ((u32)slot + 1 < btrfs_eb_nritems(m->eb)) {
		btrfs_item_key_to_cpu(m->eb, &next, slot + 1);
		overlap = next.objectid == key.objectid && next.type == BTRFS_EXTENT_DATA_KEY &&
			  key.offset + num > next.offset;
	}
	if (IS_ALIGNED(num, m->fs->geo.sectorsize) && !(past && overlap))
		return;
	end = file_extent_end_told(m, &key);
	if (end <= key.offset)
		return;
	want = end - key.offset;
	if (btrfs_file_extent_disk_bytenr(fi)) {
		if (btrfs_file_extent_offset(fi) >= btrfs_file_extent_ram_bytes(fi))
			return;
		avail = btrfs_file_extent_ram_bytes(fi) - btrfs_file_extent_offset(fi);
		if (want > avail && !(m->fs->geo.incompat_flags & BTRFS_FEATURE_INCOMPAT_NO_HOLES))
			return;
		want = min_t(u64, want, avail);
	}
	if (!IS_ALIGNED(want, m->fs->geo.sectorsize))
		return;
	mend_say(m, slot, "file extent num_bytes %llu, the file's layout tells %llu (the next extent or the size): set to it",
	    (unsigned long long)num, (unsigned long long)want);
	btrfs_set_file_extent_num_bytes(fi, want);
}

/*
 * An unaligned disk_bytenr of the regular extent fi at slot: of the sector
 * boundaries below and above it, the one where the extent tree has a data
 * extent of disk_num_bytes with a reference of this tree's inode at this
 * file offset less the extent's offset; 0 when not exactly one.
 */
static u64 disk_bytenr_told(struct mend *m, int slot, const struct btrfs_file_extent_item *fi)
{
	u32 ss = m->fs->geo.sectorsize;
	u64 bytenr = btrfs_file_extent_disk_bytenr(fi), told = 0;
	u64 at[2] = { round_down(bytenr, (u64)ss), round_down(bytenr, (u64)ss) + ss };
	struct btrfs_key key;
	int fits = 0;

	btrfs_item_key_to_cpu(m->eb, &key, slot);
	for (int i = 0; i < 2; i++) {
		u64 len, offs[4];
		u32 nr;

		if (!at[i] || !data_extent_refs(m, at[i], key.objectid, &len, offs, ARRAY_SIZE(offs), &nr) ||
		    len != btrfs_file_extent_disk_num_bytes(fi))
			continue;
		for (u32 j = 0; j < nr && j < ARRAY_SIZE(offs); j++) {
			if (offs[j] == key.offset - btrfs_file_extent_offset(fi)) {
				told = at[i];
				fits++;
				break;
			}
		}
	}
	return fits == 1 ? told : 0;
}

/*
 * A file extent the tree-checker rejects where the right value is known:
 * an uncompressed inline extent's ram_bytes is its data size, unless the
 * item reads as a regular extent the extent tree has (its type damaged:
 * set to regular; a preallocated extent's type is not told from it); a regular or
 * preallocated extent's unaligned lengths and offset come from the extent
 * tree (mend_extent_fields()); one whose disk_bytenr is not sector aligned
 * points nowhere a data extent can be, so the item goes (the file gets a hole, the
 * fs roots and extents passes repair nbytes and the back reference).
 */
void mend_file_extent(struct mend *m, int slot, struct btrfs_file_extent_item *fi, u32 size)
{
	u8 type;
	u64 bytenr;

	mend_file_extent_codes(m, slot, fi, size);
	type = btrfs_file_extent_type(fi);
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 want = btrfs_file_extent_inline_item_len(size);

		/*
		 * (compressed inline data of 32 bytes naming an extent by chance is
		 * not to be feared; uncompressed, ram_bytes would be its size)
		 */
		if (!btrfs_file_extent_encryption(fi) && !btrfs_file_extent_other_encoding(fi) &&
		    (btrfs_file_extent_compression(fi) || btrfs_file_extent_ram_bytes(fi) != want) &&
		    size == sizeof(*fi) && names_data_extent(m, fi)) {
			mend_say(m, slot, "file extent type inline, but it names data extent %llu (%llu bytes) the extent tree has: set to regular",
			    (unsigned long long)btrfs_file_extent_disk_bytenr(fi),
			    (unsigned long long)btrfs_file_extent_disk_num_bytes(fi));
			btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
			return;
		}
		if (!btrfs_file_extent_compression(fi) && !btrfs_file_extent_encryption(fi) &&
		    !btrfs_file_extent_other_encoding(fi) && btrfs_file_extent_ram_bytes(fi) != want) {
			mend_say(m, slot, "inline extent ram_bytes %llu, set to its data size %llu",
			    (unsigned long long)btrfs_file_extent_ram_bytes(fi), (unsigned long long)want);
			btrfs_set_file_extent_ram_bytes(fi, want);
		}
		return;
	}
	if ((type != BTRFS_FILE_EXTENT_REG && type != BTRFS_FILE_EXTENT_PREALLOC) ||
	    size != sizeof(*fi))
		return;
	bytenr = btrfs_file_extent_disk_bytenr(fi);
	if (bytenr % m->fs->geo.sectorsize) {
		u64 told = disk_bytenr_told(m, slot, fi);

		if (told) {
			mend_say(m, slot, "file extent disk_bytenr %llu not aligned to the sector size %u: set to %llu, the data extent beside it whose reference names this extent",
			    (unsigned long long)bytenr, m->fs->geo.sectorsize, (unsigned long long)told);
			btrfs_set_file_extent_disk_bytenr(fi, told);
			mend_extent_fields(m, slot, fi);
		} else {
			mend_say(m, slot, "file extent disk_bytenr %llu not aligned to the sector size %u: item removed",
			    (unsigned long long)bytenr, m->fs->geo.sectorsize);
			m->plan[slot].deleted = true;
			m->rebuild = true;
		}
	} else if (bytenr) {
		mend_extent_fields(m, slot, fi);
	}
	if (!m->plan[slot].deleted)
		mend_num_bytes(m, slot, fi);
}

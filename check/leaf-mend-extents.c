// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf mend (check --repair, see leaf-mend.h) of extent items: their
 * flags, refs, inline back reference types and generation.
 */
#include "check/context.h"
#include "check/leaf-mend-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"

/*
 * The inline back references of an extent item, from byte cur: do they
 * fill the item exactly, each of a type a data extent (data) or a tree
 * block (!data) may have?  *sum: the references they count.
 */
static bool inline_refs_fit(const struct btrfs_extent_item *ei, u32 cur, u32 size, bool data,
			    u64 *sum)
{
	*sum = 0;
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)((const u8 *)ei + cur);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);
		bool tree_ref = type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY;

		if (!rsize || rsize > size - cur || (type != BTRFS_EXTENT_OWNER_REF_KEY && tree_ref == data))
			return false;
		*sum += btrfs_extent_inline_ref_count(iref, type);
		cur += rsize;
	}
	return cur == size;
}

/* Does an inline ref of type follow at cur (the refs parse up to size)? */
static bool has_inline_ref(const struct btrfs_extent_item *ei, u32 cur, u32 size, u8 want)
{
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)((const u8 *)ei + cur);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);

		if (!rsize || rsize > size - cur)
			return false;
		if (type == want)
			return true;
		cur += rsize;
	}
	return false;
}

/*
 * Where an extent item's inline refs start: after the tree block info of
 * a tree block's EXTENT_ITEM (not of a skinny METADATA_ITEM).
 */
static u32 inline_refs_start(const struct btrfs_key *key, bool tree)
{
	return sizeof(struct btrfs_extent_item) +
	       (tree && key->type == BTRFS_EXTENT_ITEM_KEY ? sizeof(struct btrfs_tree_block_info) : 0);
}

/*
 * Can an inline ref of this tree kind have this offset?  A TREE_BLOCK_REF
 * names a tree (a root item's objectid), a SHARED_BLOCK_REF its parent
 * block (a nodesize multiple inside a metadata or system chunk).
 */
static bool tree_ref_offset_fits(const struct mend *m, u8 type, u64 offset)
{
	const struct btrfs_chunk_map *c;

	if (type == BTRFS_TREE_BLOCK_REF_KEY)
		return btrfs_is_subvolume_tree(offset) || (offset && offset < BTRFS_FIRST_FREE_OBJECTID) ||
		       offset == BTRFS_DATA_RELOC_TREE_OBJECTID || offset == BTRFS_TREE_RELOC_OBJECTID;
	c = btrfs_chunk_lookup(&m->fs->chunks, offset);
	return IS_ALIGNED(offset, m->fs->geo.nodesize) && c && c->logical <= offset &&
	       offset - c->logical < c->length &&
	       (c->type & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM));
}

/*
 * An extent item of one kind (its flags name exactly one) whose inline refs
 * fit it but for one ref of a type that kind has not: the one type of that
 * kind under which every ref fills the item (a tree block's two of one size
 * told apart by what their offset names).  true when mended.
 */
static bool mend_inline_ref_type(struct mend *m, int slot, const struct btrfs_key *key,
				 struct btrfs_extent_item *ei, u32 size)
{
	static const u8 data_types[] = { BTRFS_EXTENT_DATA_REF_KEY, BTRFS_SHARED_DATA_REF_KEY };
	static const u8 tree_types[] = { BTRFS_TREE_BLOCK_REF_KEY, BTRFS_SHARED_BLOCK_REF_KEY };
	u64 flags = btrfs_extent_flags(ei) & (BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK), sum;
	bool data = flags == BTRFS_EXTENT_FLAG_DATA;
	const u8 *types = data ? data_types : tree_types;
	u32 cur = inline_refs_start(key, !data);
	struct btrfs_extent_inline_ref *iref;
	u8 was, told = 0;
	int fits = 0;

	if ((flags != BTRFS_EXTENT_FLAG_DATA && flags != BTRFS_EXTENT_FLAG_TREE_BLOCK) ||
	    (data && key->type != BTRFS_EXTENT_ITEM_KEY))
		return false;
	/* the first ref of a type this kind has not */
	while (cur < size) {
		u8 type;
		u32 rsize;

		iref = (void *)((u8 *)ei + cur);
		type = btrfs_extent_inline_ref_type(iref);
		rsize = btrfs_extent_inline_ref_size(type);
		if (!rsize || rsize > size - cur || type == BTRFS_EXTENT_OWNER_REF_KEY ||
		    (type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY) == data)
			break;
		cur += rsize;
	}
	if (cur >= size || size - cur < sizeof(*iref))
		return false;
	was = btrfs_extent_inline_ref_type(iref);
	for (int i = 0; i < 2; i++) {
		btrfs_set_extent_inline_ref_type(iref, types[i]);
		if (!inline_refs_fit(ei, inline_refs_start(key, !data), size, data, &sum) ||
		    (!data && !tree_ref_offset_fits(m, types[i], btrfs_extent_inline_ref_offset(iref))))
			continue;
		told = types[i];
		fits++;
	}
	btrfs_set_extent_inline_ref_type(iref, was);
	if (fits != 1)
		return false;
	mend_say(m, slot, "inline back reference type %u at offset %u, the one type of a %s's under which its refs fill the item: set to %u",
	    was, cur, data ? "data extent" : "tree block", told);
	btrfs_set_extent_inline_ref_type(iref, told);
	return true;
}

/*
 * An extent item's DATA and TREE_BLOCK flags against what its key and
 * inline refs say: a METADATA_ITEM is a tree block; an EXTENT_ITEM whose
 * refs fit only one kind is of that kind.  FULL_BACKREF stays on a tree
 * block only (the extents pass judges it), and of a word with bits no flag
 * has only when a parent's (shared) inline ref says so; those bits are
 * cleared.
 * Left as is when nothing says.  An item whose refs fit neither kind is
 * dropped: the extents pass rebuilds the extent's records from the
 * references the trees make (or refuses).
 */
static void mend_extent_flags(struct mend *m, int slot, const struct btrfs_key *key,
			      struct btrfs_extent_item *ei, u32 size)
{
	u64 flags = btrfs_extent_flags(ei), sum, nflags;
	bool data_fit = key->type == BTRFS_EXTENT_ITEM_KEY &&
			inline_refs_fit(ei, inline_refs_start(key, false), size, true, &sum);
	bool tree_fit = size >= inline_refs_start(key, true) &&
			inline_refs_fit(ei, inline_refs_start(key, true), size, false, &sum);

	if (!data_fit && !tree_fit && mend_inline_ref_type(m, slot, key, ei, size))
		return;
	if (!data_fit && !tree_fit && m->tree == BTRFS_EXTENT_TREE_OBJECTID) {
		mend_say(m, slot, "extent item whose inline back references are neither a data extent's nor a tree block's: item removed, the extent's records are rebuilt from the trees");
		m->plan[slot].deleted = true;
		m->rebuild = true;
		return;
	}
	if (data_fit == tree_fit)
		return;
	nflags = data_fit ? BTRFS_EXTENT_FLAG_DATA :
		 BTRFS_EXTENT_FLAG_TREE_BLOCK | (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF);
	/*
	 * a word with bits no flag has is garbage: its FULL_BACKREF bit too;
	 * a tree block is referenced by its parent (a shared ref) when it is set
	 */
	if (tree_fit && (flags & ~(BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK |
				   BTRFS_BLOCK_FLAG_FULL_BACKREF)) &&
	    !has_inline_ref(ei, inline_refs_start(key, true), size, BTRFS_SHARED_BLOCK_REF_KEY))
		nflags &= ~BTRFS_BLOCK_FLAG_FULL_BACKREF;
	if (flags == nflags)
		return;
	mend_say(m, slot, "extent flags 0x%llx, but its %s: set to 0x%llx", (unsigned long long)flags,
	    key->type == BTRFS_METADATA_ITEM_KEY ? "key makes it a tree block" :
	    data_fit ? "inline refs are a data extent's" : "inline refs are a tree block's",
	    (unsigned long long)nflags);
	btrfs_set_extent_flags(ei, nflags);
}

/*
 * An extent's refs below what its inline back references count: raised to
 * that (the extents pass then counts the keyed ones too and sets the
 * total).  A malformed ref list is left to the tree-checker's verdict.
 */
static void mend_extent_refs(struct mend *m, int slot, const struct btrfs_key *key,
			     struct btrfs_extent_item *ei, u32 size)
{
	bool data = btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_DATA;
	u64 sum;

	if (!inline_refs_fit(ei, inline_refs_start(key, !data), size, data, &sum) ||
	    btrfs_extent_refs(ei) >= sum)
		return;
	mend_say(m, slot, "extent refs %llu, below its inline back references' %llu: set to %llu",
	    (unsigned long long)btrfs_extent_refs(ei), (unsigned long long)sum,
	    (unsigned long long)sum);
	btrfs_set_extent_refs(ei, sum);
}

/* A tree block's extent was made with the block: its header's generation. */
void mend_extent_item(struct mend *m, int slot, const struct btrfs_key *key,
			     struct btrfs_extent_item *ei, u32 size)
{
	u64 gen = btrfs_extent_generation(ei), ngen;

	mend_extent_flags(m, slot, key, ei, size);
	if (m->plan[slot].deleted)
		return;
	mend_extent_refs(m, slot, key, ei, size);

	if (gen <= m->limit)
		return;
	if (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK)
		ngen = mend_tree_block_generation(m, key->objectid);
	else
		ngen = btrfs_header_generation(btrfs_header(m->eb));
	mend_say(m, slot, "extent generation %llu beyond the superblock's, set to %llu",
	    (unsigned long long)gen, (unsigned long long)ngen);
	btrfs_set_extent_generation(ei, ngen);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5, fs roots: every subvolume tree (and the data relocation tree),
 * read once in key order.  All items of one inode are adjacent, so each
 * inode is checked when its last item has been seen:
 *   - an INODE_ITEM exists for every inode with items; nlink equals the
 *     names its INODE_REF / INODE_EXTREF items give; generation and transid
 *     not beyond the superblock; flags known and sensible for the type
 *   - directories: i_size is the sum of the name lengths of its DIR_ITEM and
 *     DIR_INDEX entries
 *   - file extents: aligned, not overlapping, well formed per type; without
 *     NO_HOLES no gap up to i_size; nbytes equals what they account
 * Names are then matched across inodes: every inode ref has its DIR_ITEM and
 * DIR_INDEX in the parent, every directory entry its inode ref, with the
 * same name, index and a file type matching the inode's mode.  Entries
 * naming a subvolume (location ROOT_ITEM) are pass 7's.
 *
 * Memory: per tree, a few compact records per name and one per inode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "check/check.h"
#include "check/extents.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/messages.h"

/* A name, from either side: an inode ref (kind R), DIR_ITEM (D) or DIR_INDEX (X). */
struct fr_name {
	u64 dir;
	u64 ino;
	u64 index;       /* R and X; D: 0 */
	u64 nhash;       /* 64-bit hash of the name bytes, for matching */
	u16 name_len;
	u8 type;         /* D and X: BTRFS_FT_*; R: 0 */
	u8 matched;
	char name[24];   /* the start of the name, for messages */
};

struct fr_inode {
	u64 ino;
	u32 mode;
};

struct fr_cur {                 /* the inode being read */
	u64 ino;
	bool have_item;
	u32 mode, nlink;
	u64 size, nbytes, flags, generation, transid;
	u32 names;              /* from INODE_REF / INODE_EXTREF */
	u64 dir_size;           /* sum of DIR_ITEM and DIR_INDEX name lengths */
	u64 found_nbytes;
	u64 extent_end;         /* end of the last file extent (file offset) */
	bool have_extent;
	bool inline_extent;
	u32 hole_reports;
};

struct fr_tree {
	struct check_ctx *ctx;
	u64 root;
	u32 sectorsize;
	bool no_holes;
	u64 super_gen;
	struct fr_cur cur;
	CHECK_ARRAY(struct fr_name, refs);
	CHECK_ARRAY(struct fr_name, items);
	CHECK_ARRAY(struct fr_name, index);
	CHECK_ARRAY(struct fr_inode, inodes);
	CHECK_ARRAY(u64, unlinked);     /* nlink 0, need an orphan item */
	CHECK_ARRAY(u64, orphans);
};

static u64 name_hash64(const u8 *p, u32 len)
{
	u64 h = 0xcbf29ce484222325ULL ^ len;

	for (u32 i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int add_name(struct fr_tree *t, int kind, u64 dir, u64 ino, u64 index, const u8 *name,
		    u32 len, u8 type)
{
	struct fr_name *n = kind == 'R' ? CHECK_PUSH(t, refs) : kind == 'D' ? CHECK_PUSH(t, items) :
			    CHECK_PUSH(t, index);
	u32 c = len < sizeof(n->name) - 1 ? len : (u32)sizeof(n->name) - 1;

	if (!n)
		return -ENOMEM;
	n->dir = dir;
	n->ino = ino;
	n->index = index;
	n->nhash = name_hash64(name, len);
	n->name_len = (u16)len;
	n->type = type;
	n->matched = 0;
	memcpy(n->name, name, c);
	n->name[c] = 0;
	return 0;
}

#define INODE_ERR(t, ino, fmt, ...) \
	check_error((t)->ctx, "root %llu inode %llu: " fmt, (t)->root, (unsigned long long)(ino), ##__VA_ARGS__)

/* ---- one inode, when its items are all seen -------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Has ino an orphan item (deletion or truncation in progress)? */
static bool is_orphan(const struct fr_tree *t, u64 ino)
{
	return check_bsearch(&ino, t->orphans, t->orphans_nr, sizeof(u64), cmp_u64) != NULL;
}

static void finish_inode(struct fr_tree *t)
{
	struct fr_cur *c = &t->cur;
	u64 ino = c->ino;

	if (!ino)
		return;
	if (ino < BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		goto out;   /* orphan items, free-ino cache: not inodes */
	if (!c->have_item) {
		INODE_ERR(t, ino, "no inode item, but %u names and other items (errors: no inode item%s)",
			  c->names, c->names ? ", link count wrong" : "");
		goto out;
	}
	/* an inode being deleted or truncated: its sizes and names are in flux */
	if (is_orphan(t, ino))
		goto keep;
	if (c->nlink != c->names) {
		if (c->nlink == 0 && c->names == 0) {
			u64 *u = CHECK_PUSH(t, unlinked);

			if (u)
				*u = ino;
		} else {
			INODE_ERR(t, ino, "nlink %u, %u names found (link count wrong)", c->nlink, c->names);
		}
	}
	if (c->generation > t->super_gen || c->transid > t->super_gen)
		INODE_ERR(t, ino, "generation %llu transid %llu beyond the superblock's %llu",
			  c->generation, c->transid, t->super_gen);
	if (c->flags & ~((u64)BTRFS_INODE_FLAG_MASK | ((u64)BTRFS_INODE_RO_FLAG_MASK << 32)))
		INODE_ERR(t, ino, "unknown flags 0x%llx (odd inode flags)", c->flags);
	if (S_ISLNK(c->mode) && (c->flags & (BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND)))
		INODE_ERR(t, ino, "symlink with flags 0x%llx: IMMUTABLE and APPEND do not apply (odd inode flags)",
			  c->flags);
	if (S_ISDIR(c->mode)) {
		if (c->dir_size != c->size)
			INODE_ERR(t, ino, "directory isize %llu, its entries' names sum to %llu (dir isize wrong)",
				  c->size, c->dir_size);
		if (c->have_extent)
			INODE_ERR(t, ino, "directory has file extent items");
	}
	if (S_ISREG(c->mode) || S_ISLNK(c->mode)) {
		u64 end = (c->size + t->sectorsize - 1) / t->sectorsize * t->sectorsize;

		if (!t->no_holes && !c->inline_extent && c->extent_end < end && c->hole_reports < 4)
			INODE_ERR(t, ino, "file extent discount: hole [%llu %llu) up to isize %llu without a hole extent",
				  c->extent_end, end, c->size);
		if (c->nbytes != c->found_nbytes)
			INODE_ERR(t, ino, "nbytes %llu, its file extents account %llu (nbytes wrong)",
				  c->nbytes, c->found_nbytes);
	} else if (c->have_extent && !S_ISDIR(c->mode)) {
		INODE_ERR(t, ino, "mode 0%o has file extent items", c->mode);
	}
keep:
	{
		struct fr_inode *in = CHECK_PUSH(t, inodes);

		if (in) {
			in->ino = ino;
			in->mode = c->mode;
		}
	}
out:
	memset(c, 0, sizeof(*c));
}

/* ---- items -------------------------------------------------------------------- */

static void file_extent(struct fr_tree *t, const struct extent_buffer *eb, int slot,
			const struct btrfs_key *key)
{
	struct fr_cur *c = &t->cur;
	struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot);
	u64 ino = key->objectid, len, start = key->offset;
	u8 type, comp;

	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START) {
		INODE_ERR(t, ino, "file extent (%llu EXTENT_DATA %llu) size %u too small", ino, start, size);
		return;
	}
	type = btrfs_file_extent_type(fi);
	comp = btrfs_file_extent_compression(fi);
	c->have_extent = true;
	if (comp > BTRFS_COMPRESS_ZSTD || btrfs_file_extent_encryption(fi) ||
	    btrfs_file_extent_other_encoding(fi))
		INODE_ERR(t, ino, "file extent at %llu: compression %u encryption %u other_encoding %u",
			  start, comp, btrfs_file_extent_encryption(fi), btrfs_file_extent_other_encoding(fi));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 ram = btrfs_file_extent_ram_bytes(fi);

		if (start != 0)
			INODE_ERR(t, ino, "inline file extent at offset %llu, expected 0", start);
		if (!comp && ram != size - BTRFS_FILE_EXTENT_INLINE_DATA_START)
			INODE_ERR(t, ino, "inline file extent ram_bytes %llu, inline data is %u bytes",
				  ram, (u32)(size - BTRFS_FILE_EXTENT_INLINE_DATA_START));
		if (!ram)
			INODE_ERR(t, ino, "inline file extent with ram_bytes 0");
		c->inline_extent = true;
		c->found_nbytes += ram;
		len = (ram + t->sectorsize - 1) / t->sectorsize * t->sectorsize;
	} else if (type == BTRFS_FILE_EXTENT_REG || type == BTRFS_FILE_EXTENT_PREALLOC) {
		u64 disk = btrfs_file_extent_disk_bytenr(fi);

		if (size != sizeof(*fi)) {
			INODE_ERR(t, ino, "file extent at %llu: item size %u, expected %zu", start, size, sizeof(*fi));
			return;
		}
		len = btrfs_file_extent_num_bytes(fi);
		if (!IS_ALIGNED(start, (u64)t->sectorsize) || !IS_ALIGNED(len, (u64)t->sectorsize) || !len)
			INODE_ERR(t, ino, "file extent at %llu length %llu not aligned to sectorsize %u",
				  start, len, t->sectorsize);
		if (type == BTRFS_FILE_EXTENT_PREALLOC && (comp || !disk))
			INODE_ERR(t, ino, "prealloc file extent at %llu: compression %u, disk_bytenr %llu",
				  start, comp, disk);
		if (disk) {
			if (!comp && btrfs_file_extent_offset(fi) + len > btrfs_file_extent_ram_bytes(fi))
				INODE_ERR(t, ino, "file extent at %llu: offset %llu + num_bytes %llu beyond ram_bytes %llu",
					  start, btrfs_file_extent_offset(fi), len,
					  btrfs_file_extent_ram_bytes(fi));
			c->found_nbytes += len;
		}
	} else {
		INODE_ERR(t, ino, "file extent at %llu has unknown type %u", start, type);
		return;
	}
	if (start < c->extent_end)
		INODE_ERR(t, ino, "file extent [%llu %llu) overlaps the previous one ending at %llu",
			  start, start + len, c->extent_end);
	else if (start > c->extent_end && !t->no_holes && c->hole_reports++ < 4)
		INODE_ERR(t, ino, "file extent discount: hole [%llu %llu) without a hole extent",
			  c->extent_end, start);
	if (start + len > c->extent_end)
		c->extent_end = start + len;
}

/* DIR_ITEM or DIR_INDEX: one or more entries. */
static int dir_entries(struct fr_tree *t, const struct extent_buffer *eb, int slot,
		       const struct btrfs_key *key)
{
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + btrfs_leaf_item_size(eb, slot);
	int n = 0;

	while (p + sizeof(struct btrfs_dir_item) <= end) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
		u32 nl = btrfs_dir_name_len(di), dl = btrfs_dir_data_len(di);
		struct btrfs_key loc;
		int ret = 0;

		if (p + sizeof(*di) + nl + dl > end)
			break;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		t->cur.dir_size += nl;
		if (key->type == BTRFS_DIR_INDEX_KEY && n++)
			INODE_ERR(t, key->objectid, "dir index %llu holds more than one entry", key->offset);
		if (loc.type == BTRFS_INODE_ITEM_KEY)
			ret = add_name(t, key->type == BTRFS_DIR_ITEM_KEY ? 'D' : 'X', key->objectid,
				       loc.objectid,
				       key->type == BTRFS_DIR_INDEX_KEY ? key->offset : 0,
				       p + sizeof(*di), nl, btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED);
		else if (loc.type != BTRFS_ROOT_ITEM_KEY)
			INODE_ERR(t, key->objectid, "directory entry '%.*s' has location key type %u",
				  (int)nl, (char *)(p + sizeof(*di)), loc.type);
		if (ret)
			return ret;
		p += sizeof(*di) + nl + dl;
	}
	return 0;
}

static int inode_refs(struct fr_tree *t, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key)
{
	u8 *p = btrfs_leaf_item_ptr(eb, slot), *end = p + btrfs_leaf_item_size(eb, slot);
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	size_t hdr = ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);

	while (p + hdr <= end) {
		u64 parent, index;
		u32 nl;
		int ret;

		if (ext) {
			struct btrfs_inode_extref *r = (void *)p;

			parent = btrfs_inode_extref_parent(r);
			index = btrfs_inode_extref_index(r);
			nl = btrfs_inode_extref_name_len(r);
		} else {
			struct btrfs_inode_ref *r = (void *)p;

			parent = key->offset;
			index = btrfs_inode_ref_index(r);
			nl = btrfs_inode_ref_name_len(r);
		}
		if (p + hdr + nl > end)
			break;
		t->cur.names++;
		/* a subvolume's top directory names itself ".." */
		if (!(parent == key->objectid && key->objectid == BTRFS_FIRST_FREE_OBJECTID)) {
			ret = add_name(t, 'R', parent, key->objectid, index, p + hdr, nl, 0);
			if (ret)
				return ret;
		}
		p += hdr + nl;
	}
	return 0;
}

static bool fs_tree_key_type_known(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
	case BTRFS_ORPHAN_ITEM_KEY:
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
		return true;
	}
	return false;
}

static int fs_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		   const struct btrfs_key *key, void *arg)
{
	struct fr_tree *t = arg;
	struct fr_cur *c = &t->cur;

	if (key->objectid != c->ino) {
		finish_inode(t);
		c->ino = key->objectid;
	}
	if (!fs_tree_key_type_known(key->type)) {
		check_error(ctx, "unknown key (%llu %u %llu) found in leaf %llu of root %llu",
			    key->objectid, key->type, key->offset, eb->start, t->root);
		return 0;
	}
	switch (key->type) {
	case BTRFS_INODE_ITEM_KEY: {
		struct btrfs_inode_item *ii = btrfs_leaf_item_ptr(eb, slot);

		if (btrfs_leaf_item_size(eb, slot) < sizeof(*ii)) {
			INODE_ERR(t, key->objectid, "inode item size %u", btrfs_leaf_item_size(eb, slot));
			break;
		}
		c->have_item = true;
		c->mode = btrfs_inode_mode(ii);
		c->nlink = btrfs_inode_nlink(ii);
		c->size = btrfs_inode_size(ii);
		c->nbytes = btrfs_inode_nbytes(ii);
		c->flags = btrfs_inode_flags(ii);
		c->generation = btrfs_inode_generation(ii);
		c->transid = btrfs_inode_transid(ii);
		break;
	}
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		return inode_refs(t, eb, slot, key);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
		return dir_entries(t, eb, slot, key);
	case BTRFS_EXTENT_DATA_KEY:
		file_extent(t, eb, slot, key);
		break;
	case BTRFS_ORPHAN_ITEM_KEY:
		break;   /* read before the walk: collect_orphans() */
	}
	return 0;
}

static int orphan_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb __unused,
		       int slot __unused, const struct btrfs_key *key, void *arg)
{
	struct fr_tree *t = arg;
	u64 *o;

	if (key->objectid != BTRFS_ORPHAN_OBJECTID)
		return 1;
	if (key->type != BTRFS_ORPHAN_ITEM_KEY)
		return 0;
	o = CHECK_PUSH(t, orphans);
	if (!o)
		return -ENOMEM;
	*o = key->offset;
	return 0;
}

/* The orphan items sit at the end of the tree; the inode checks need them first. */
static int collect_orphans(struct fr_tree *t, const struct btrfs_tree_ref *tree)
{
	struct btrfs_key from = { .objectid = BTRFS_ORPHAN_OBJECTID, .type = BTRFS_ORPHAN_ITEM_KEY };
	int ret = check_for_each_item(t->ctx, tree, &from, orphan_item, t);

	check_sort(t->orphans, t->orphans_nr, sizeof(u64), cmp_u64);
	return ret;
}

/* ---- matching names ------------------------------------------------------------- */

static int cmp_name(const struct fr_name *x, const struct fr_name *y, bool by_index)
{
#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	C(dir);
	C(ino);
	if (by_index) {
		C(index);
	} else {
		C(nhash);
	}
#undef C
	return 0;
}
static int cmp_by_hash(const void *a, const void *b) { return cmp_name(a, b, false); }
static int cmp_by_index(const void *a, const void *b) { return cmp_name(a, b, true); }

static int cmp_inode(const void *a, const void *b)
{
	const struct fr_inode *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static const struct fr_inode *find_inode(struct fr_tree *t, u64 ino)
{
	struct fr_inode k = { .ino = ino };

	return check_bsearch(&k, t->inodes, t->inodes_nr, sizeof(k), cmp_inode);
}

/* Each ref against the entries of one kind (sorted by cmp), then the unmatched entries. */
static void match_kind(struct fr_tree *t, struct fr_name *ents, size_t nr, bool by_index,
		       const char *what)
{
	size_t i;

	check_sort(ents, nr, sizeof(*ents), by_index ? cmp_by_index : cmp_by_hash);
	check_sort(t->refs, t->refs_nr, sizeof(*t->refs), by_index ? cmp_by_index : cmp_by_hash);
	for (i = 0; i < t->refs_nr; i++) {
		struct fr_name *r = &t->refs[i];
		struct fr_name *e = check_bsearch(r, ents, nr, sizeof(*ents), by_index ? cmp_by_index : cmp_by_hash);
		const struct fr_inode *in;

		if (is_orphan(t, r->dir) || is_orphan(t, r->ino)) {
			if (e)
				e->matched = 1;
			continue;
		}
		if (!e || e->name_len != r->name_len || e->nhash != r->nhash) {
			check_error(t->ctx, "root %llu: unresolved ref dir %llu index %llu namelen %u name %s: inode %llu has the name but the directory has no %s for it",
				    t->root, r->dir, r->index, r->name_len, r->name, r->ino, what);
			continue;
		}
		e->matched = 1;
		if (by_index && e->index != r->index)
			check_error(t->ctx, "root %llu: dir %llu entry '%s' for inode %llu: index %llu, inode ref says %llu",
				    t->root, r->dir, r->name, r->ino, e->index, r->index);
		in = find_inode(t, r->ino);
		if (in && btrfs_ftype_of_mode(in->mode) != e->type)
			check_error(t->ctx, "root %llu: dir %llu %s '%s' for inode %llu has file type %u, the inode's mode 0%o means %u",
				    t->root, r->dir, what, r->name, r->ino, e->type, in->mode, btrfs_ftype_of_mode(in->mode));
	}
	for (i = 0; i < nr; i++)
		if (!ents[i].matched && !is_orphan(t, ents[i].dir) && !is_orphan(t, ents[i].ino))
			check_error(t->ctx, "root %llu: dir %llu %s '%s' (index %llu) points to inode %llu, which has no inode ref for it%s",
				    t->root, ents[i].dir, what, ents[i].name, ents[i].index, ents[i].ino,
				    find_inode(t, ents[i].ino) ? "" : " (no such inode)");
}

static void check_tree_names(struct fr_tree *t)
{
	size_t i, o = 0;

	check_sort(t->inodes, t->inodes_nr, sizeof(*t->inodes), cmp_inode);
	match_kind(t, t->items, t->items_nr, false, "dir item");
	match_kind(t, t->index, t->index_nr, true, "dir index");
	for (i = 0; i < t->unlinked_nr; i++) {
		while (o < t->orphans_nr && t->orphans[o] < t->unlinked[i])
			o++;
		if (o >= t->orphans_nr || t->orphans[o] != t->unlinked[i])
			INODE_ERR(t, t->unlinked[i], "nlink 0 and no names, but no orphan item");
	}
}

static void free_tree(struct fr_tree *t)
{
	free(t->refs);
	free(t->items);
	free(t->index);
	free(t->inodes);
	free(t->unlinked);
	free(t->orphans);
}

static bool is_subvol_tree(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID || id == BTRFS_DATA_RELOC_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}

int check_fs_roots(struct check_ctx *ctx)
{
	struct ext_state *st = ctx->extents_state;
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	size_t i;
	int ret;

	if (!st)
		return 0;
	for (i = 0; i < st->root_nr; i++) {
		const struct check_root *r = &st->root[i];
		struct fr_tree t = {
			.ctx = ctx, .root = r->key.objectid, .sectorsize = btrfs_super_sectorsize(sb),
			.no_holes = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_NO_HOLES,
			.super_gen = btrfs_super_generation(sb),
		};

		if (!is_subvol_tree(r->key.objectid))
			continue;
		/* being deleted: its remaining items need not be consistent */
		if (r->drop_key.objectid || r->drop_level)
			continue;
		ret = collect_orphans(&t, &r->tree);
		if (!ret)
			ret = check_for_each_item(ctx, &r->tree, NULL, fs_item, &t);
		finish_inode(&t);
		if (ret == -ENOMEM) {
			free_tree(&t);
			return ret;
		}
		if (ret < 0)
			check_error(ctx, "root %llu cannot be read to the end: %s", t.root, strerror(-ret));
		else
			check_tree_names(&t);
		free_tree(&t);
	}
	return 0;
}

void check_fs_roots_free(struct check_ctx *ctx __unused)
{
}

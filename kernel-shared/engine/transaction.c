// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions: dirty block map, roots, the commit (see transaction.h).
 */
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/format/growable-array.h"

#define MAX_COMMIT_ROUNDS 256

/* ---- dirty block map ---- */

static u32 hash_of(const struct btrfs_trans *t, u64 bytenr)
{
	u64 h = bytenr / t->nodesize;

	h ^= h >> 13;
	h *= 0x9e3779b97f4a7c15ULL;
	return (u32)(h >> 32) & (t->hash_size - 1);
}

struct trans_block *trans_lookup(struct btrfs_trans *t, u64 bytenr)
{
	struct trans_block *tb;

	for (tb = t->hash[hash_of(t, bytenr)]; tb; tb = tb->next)
		if (tb->eb->start == bytenr)
			return tb;
	return NULL;
}

static int hash_grow(struct btrfs_trans *t)
{
	u32 old = t->hash_size, i;
	struct trans_block **oh = t->hash, **nh;

	nh = calloc((size_t)old * 2, sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	t->hash = nh;
	t->hash_size = old * 2;
	for (i = 0; i < old; i++) {
		struct trans_block *tb = oh[i], *next;

		for (; tb; tb = next) {
			u32 h = hash_of(t, tb->eb->start);

			next = tb->next;
			tb->next = nh[h];
			nh[h] = tb;
		}
	}
	free(oh);
	return 0;
}

static int hash_insert(struct btrfs_trans *t, struct trans_block *tb)
{
	u32 h;

	if (t->nr_dirty >= (u64)t->hash_size * 2 && hash_grow(t) < 0)
		return -ENOMEM;
	h = hash_of(t, tb->eb->start);
	tb->next = t->hash[h];
	t->hash[h] = tb;
	t->nr_dirty++;
	return 0;
}

static void hash_remove(struct btrfs_trans *t, struct trans_block *tb)
{
	struct trans_block **pp = &t->hash[hash_of(t, tb->eb->start)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == tb) {
			*pp = tb->next;
			t->nr_dirty--;
			return;
		}
	}
}

/* The addresses of all dirty blocks, sorted (a snapshot: the map may change). */
static int dirty_list(struct btrfs_trans *t, u64 **out, size_t *nr)
{
	u64 *list = malloc(sizeof(*list) * (t->nr_dirty ? t->nr_dirty : 1));
	size_t n = 0;

	if (!list)
		return -ENOMEM;
	for (u32 i = 0; i < t->hash_size; i++)
		for (struct trans_block *tb = t->hash[i]; tb; tb = tb->next)
			list[n++] = tb->eb->start;
	*out = list;
	*nr = n;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* ---- blocks ---- */

/* Trees whose blocks are never shared: their owner is checked on read. */
static bool is_subvol_tree(u64 tree)
{
	return btrfs_is_subvolume_tree(tree) || tree == BTRFS_TREE_RELOC_OBJECTID ||
	       tree == BTRFS_DATA_RELOC_TREE_OBJECTID;
}

int btrfs_trans_read_block(struct btrfs_trans *t, u64 tree, u64 bytenr, int level, u64 gen,
		     const struct btrfs_disk_key *first, struct extent_buffer **out, bool *owned)
{
	struct trans_block *tb = trans_lookup(t, bytenr);
	struct tree_check expect;
	int ret;

	if (tb) {
		if (btrfs_eb_level(tb->eb) != level) {
			error("tree %llu: block %llu has level %u, its parent expects %d", tree, bytenr,
			      btrfs_eb_level(tb->eb), level);
			return -EUCLEAN;
		}
		*out = tb->eb;
		*owned = false;
		return 0;
	}
	expect.owner = is_subvol_tree(tree) ? 0 : tree;
	expect.level = level;
	expect.transid = gen;
	expect.first_key = first;
	ret = btrfs_read_tree_block(t->fs, bytenr, &expect, out);
	if (ret < 0)
		return ret;
	*owned = true;
	return 0;
}

int trans_alloc_block(struct btrfs_trans *t, u64 owner, int level, struct extent_buffer **out)
{
	struct btrfs_fs_info *fs = t->fs;
	struct trans_block *tb;
	struct extent_buffer *eb;
	struct wblock_group *bg;
	u64 bytenr;
	int ret;

	ret = extent_alloc_tree_block(t, owner, &bytenr);
	if (ret < 0)
		return ret;
	eb = alloc_extent_buffer(bytenr, t->nodesize);
	tb = calloc(1, sizeof(*tb));
	if (!eb || !tb) {
		free(eb);
		free(tb);
		extent_alloc_return_block(t, bytenr);
		return -ENOMEM;
	}
	btrfs_init_header(eb, fs->geo.fsid, fs->geo.chunk_tree_uuid, t->transid, owner, level);
	tb->eb = eb;
	tb->owner = owner;
	ret = hash_insert(t, tb);
	if (ret < 0) {
		free(eb);
		free(tb);
		extent_alloc_return_block(t, bytenr);
		return ret;
	}
	bg = extent_alloc_find_block_group(t, bytenr);
	if (bg)
		bg->delta += t->nodesize;
	t->bytes_used_delta += t->nodesize;
	*out = eb;
	return 0;
}

static int pin(struct btrfs_trans *t, u64 bytenr, u64 owner, int level, bool ref, bool fst)
{
	struct pinned_block *pb;

	if (ARRAY_GROW(t->pinned, t->nr_pinned, t->alloc_pinned))
		return -ENOMEM;
	pb = &t->pinned[t->nr_pinned++];
	pb->bytenr = bytenr;
	pb->owner = owner;
	pb->level = (u8)level;
	pb->need_ref_drop = ref;
	pb->need_fst = fst;
	return 0;
}

int trans_free_block(struct btrfs_trans *t, u64 bytenr, u64 owner, int level)
{
	struct trans_block *tb = trans_lookup(t, bytenr);
	struct wblock_group *bg = extent_alloc_find_block_group(t, bytenr);
	int ret = 0;

	if (!bg) {
		error("tree %llu: freed block %llu is in no metadata block group", owner, bytenr);
		return -EUCLEAN;
	}
	if (tb) {
		hash_remove(t, tb);
		if (!tb->ref_added && !tb->fst_applied)
			ret = extent_alloc_return_block(t, bytenr);
		else
			ret = pin(t, bytenr, owner, level, tb->ref_added, tb->fst_applied && t->fst);
		free_extent_buffer(tb->eb);
		free(tb);
	} else {
		ret = pin(t, bytenr, owner, level, true, t->fst);
		t->stats.blocks_pinned++;
	}
	bg->delta -= t->nodesize;
	t->bytes_used_delta -= t->nodesize;
	return ret;
}

/* ---- roots ---- */

static struct btrfs_wroot *find_loaded_root(struct btrfs_trans *t, u64 objectid)
{
	for (int i = 0; i < t->nr_roots; i++)
		if (t->roots[i]->objectid == objectid)
			return t->roots[i];
	return NULL;
}

static int add_root(struct btrfs_trans *t, struct btrfs_wroot *r)
{
	if (ARRAY_GROW(t->roots, t->nr_roots, t->alloc_roots))
		return -ENOMEM;
	t->roots[t->nr_roots++] = r;
	return 0;
}

int btrfs_trans_get_root(struct btrfs_trans *t, u64 objectid, struct btrfs_wroot **root)
{
	const struct btrfs_super_block *sb = t->fs->super;
	struct btrfs_wroot *r = find_loaded_root(t, objectid), *rt;
	struct btrfs_path path;
	struct btrfs_key key, found;
	int ret;

	if (r) {
		*root = r;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->objectid = objectid;
	if (objectid == BTRFS_ROOT_TREE_OBJECTID) {
		r->bytenr = btrfs_super_root(sb);
		r->level = btrfs_super_root_level(sb);
	} else if (objectid == BTRFS_CHUNK_TREE_OBJECTID) {
		r->bytenr = btrfs_super_chunk_root(sb);
		r->level = btrfs_super_chunk_root_level(sb);
	} else {
		ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);
		if (ret < 0)
			goto fail;
		key.objectid = objectid;
		key.type = BTRFS_ROOT_ITEM_KEY;
		key.offset = 0;
		btrfs_init_path(&path);
		ret = btrfs_trans_search_key(t, rt, &key, BTRFS_SEARCH_NEXT, &path, &found);
		if (ret == 0 && (found.objectid != objectid || found.type != BTRFS_ROOT_ITEM_KEY))
			ret = 1;
		if (ret == 0) {
			u32 size = btrfs_path_item_size(&path);

			memcpy(&r->item, btrfs_path_item_ptr(&path),
			       min_t(u32, size, sizeof(r->item)));
			r->item_size = size;
			r->item_key_offset = found.offset;
			r->has_item = true;
			r->bytenr = btrfs_root_bytenr(&r->item);
			r->level = btrfs_root_level(&r->item);
			r->last_snapshot = btrfs_root_last_snapshot(&r->item);
			r->item_bytenr = r->bytenr;
			r->item_level = r->level;
			r->item_gen = btrfs_root_generation(&r->item);
		}
		btrfs_release_path(&path);
		if (ret) {
			if (ret > 0)
				ret = -ENOENT;
			goto fail;
		}
	}
	ret = add_root(t, r);
	if (ret < 0)
		goto fail;
	*root = r;
	return 0;
fail:
	free(r);
	return ret;
}

int btrfs_create_tree(struct btrfs_trans *t, u64 objectid, struct btrfs_wroot **root)
{
	struct btrfs_wroot *r;
	struct extent_buffer *eb;
	int ret;

	ret = btrfs_trans_get_root(t, objectid, &r);
	if (ret == 0) {
		error("tree %llu already exists", objectid);
		return -EEXIST;
	}
	if (ret != -ENOENT)
		return ret;
	if (objectid == BTRFS_ROOT_TREE_OBJECTID || objectid == BTRFS_CHUNK_TREE_OBJECTID)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = trans_alloc_block(t, objectid, 0, &eb);
	if (ret < 0) {
		free(r);
		return ret;
	}
	r->objectid = objectid;
	r->bytenr = eb->start;
	r->level = 0;
	r->dirty = true;
	r->is_new = true;
	r->item_size = sizeof(r->item);
	btrfs_set_root_refs(&r->item, 1);
	btrfs_set_root_used(&r->item, t->nodesize);
	ret = add_root(t, r);
	if (ret < 0) {
		free(r);
		return ret;
	}
	*root = r;
	return 0;
}

/* ---- sharing ---- */

/*
 * Add (inc) or drop one data back reference for every file extent of leaf
 * eb that references data: SHARED_DATA_REF from eb, or EXTENT_DATA_REF of
 * root (inode, file offset - extent offset).
 */
static int leaf_data_refs(struct btrfs_trans *t, const struct extent_buffer *eb, bool inc, u8 type,
			  u64 root)
{
	int ret = 0;

	for (u32 i = 0; i < btrfs_eb_nritems(eb) && ret == 0; i++) {
		struct btrfs_key key;
		const struct btrfs_file_extent_item *fi;
		struct btrfs_data_ref ref = { .type = type, .parent = eb->start, .root = root };
		u8 ft;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_EXTENT_DATA_KEY ||
		    btrfs_leaf_item_size(eb, (int)i) < sizeof(*fi))
			continue;
		fi = btrfs_leaf_item_ptr(eb, (int)i);
		ft = btrfs_file_extent_type(fi);
		if ((ft != BTRFS_FILE_EXTENT_REG && ft != BTRFS_FILE_EXTENT_PREALLOC) ||
		    !btrfs_file_extent_disk_bytenr(fi))
			continue;
		ref.ino = key.objectid;
		ref.offset = key.offset - btrfs_file_extent_offset(fi);
		ret = btrfs_data_ref_mod(t, btrfs_file_extent_disk_bytenr(fi),
				      btrfs_file_extent_disk_num_bytes(fi), &ref, inc ? 1 : -1);
	}
	return ret;
}

/* Add (or drop) one back reference of every child of eb (data extents for a leaf). */
static int children_refs(struct btrfs_trans *t, const struct extent_buffer *eb, bool inc, u8 type,
			 u64 offset)
{
	int level = btrfs_eb_level(eb) - 1, ret = 0;

	if (level < 0)
		return leaf_data_refs(t, eb, inc,
				      type == BTRFS_SHARED_BLOCK_REF_KEY ? BTRFS_SHARED_DATA_REF_KEY :
									   BTRFS_EXTENT_DATA_REF_KEY,
				      offset);
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && ret == 0; i++) {
		u64 child = btrfs_node_blockptr(eb, (int)i);

		ret = inc ? btrfs_tree_block_ref_inc(t, child, level, type, offset) :
			    extent_alloc_tree_block_ref_dec(t, child, level, type, offset);
	}
	return ret;
}

/*
 * The kernel's rules for copying a block that may be shared:
 *  - refs > 1, root owns it with normal back references: every child gets
 *    a SHARED_BLOCK_REF from eb (the other trees keep reaching them through
 *    eb), eb becomes FULL_BACKREF; the copy uses the children's existing
 *    TREE_BLOCK_REF of root;
 *  - refs > 1 otherwise: every child gets a TREE_BLOCK_REF of root for the
 *    copy;
 *  - refs == 1 with FULL_BACKREF: the children's shared refs from eb become
 *    TREE_BLOCK_REFs of root;
 * then root's own reference to eb goes (eb freed when it was the last one).
 * For a leaf the "children" are the data extents its file extents
 * reference: SHARED_DATA_REF from the leaf / EXTENT_DATA_REF of the root.
 */
int trans_cow_prepare(struct btrfs_trans *t, const struct btrfs_wroot *root,
		      const struct extent_buffer *eb, bool *free_old)
{
	const struct btrfs_header *h = btrfs_header(eb);
	u64 owner = btrfs_header_owner(h), refs = 1, flags = 0;
	int level = btrfs_header_level(h);
	int ret;

	*free_old = true;
	if (btrfs_header_backref_rev(h) != BTRFS_MIXED_BACKREF_REV) {
		error("tree %llu: block %llu has old-style back references (rev %u), not supported",
		      root->objectid, eb->start, btrfs_header_backref_rev(h));
		return -EOPNOTSUPP;
	}
	if (owner == root->objectid && btrfs_header_generation(h) > root->last_snapshot)
		return 0;
	/* May be shared with a snapshot: its extent item decides. */
	ret = extent_alloc_tree_block_refs(t, eb->start, level, &refs, &flags);
	if (ret < 0)
		return ret;
	if (refs == 1 && !(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
		return 0;
	if (refs > 1) {
		if (owner == root->objectid && !(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			ret = children_refs(t, eb, true, BTRFS_SHARED_BLOCK_REF_KEY, eb->start);
			if (ret == 0)
				ret = extent_alloc_tree_block_set_flags(t, eb->start, level,
							      BTRFS_BLOCK_FLAG_FULL_BACKREF);
		} else {
			ret = children_refs(t, eb, true, BTRFS_TREE_BLOCK_REF_KEY, root->objectid);
		}
		if (ret == 0)
			ret = extent_alloc_tree_block_ref_dec(t, eb->start, level, BTRFS_TREE_BLOCK_REF_KEY,
					      root->objectid);
		*free_old = false;
		return ret;
	}
	ret = children_refs(t, eb, true, BTRFS_TREE_BLOCK_REF_KEY, root->objectid);
	if (ret == 0)
		ret = children_refs(t, eb, false, BTRFS_SHARED_BLOCK_REF_KEY, eb->start);
	return ret;
}

/* ---- start / abort ---- */

u64 btrfs_trans_transid(const struct btrfs_trans *t)
{
	return t->transid;
}

struct btrfs_fs_info *btrfs_trans_fs(const struct btrfs_trans *t)
{
	return t->fs;
}

u64 btrfs_trans_dirty_blocks(const struct btrfs_trans *t)
{
	return t->nr_dirty;
}

int btrfs_trans_check_dirty_blocks(struct btrfs_trans *t)
{
	struct btrfs_fs_geometry geo = t->fs->geo;
	int bad = 0;

	geo.super_generation = t->transid;
	for (u32 i = 0; i < t->hash_size; i++)
		for (struct trans_block *tb = t->hash[i]; tb; tb = tb->next)
			if (btrfs_check_tree_block(&geo, tb->eb) < 0)
				bad++;
	return bad;
}

bool btrfs_trans_has_free_space_tree(const struct btrfs_trans *t)
{
	return t->fst;
}

int btrfs_trans_nr_block_groups(const struct btrfs_trans *t)
{
	return t->nr_bgs;
}

void btrfs_trans_fail_before_super(struct btrfs_trans *t, bool fail)
{
	t->fail_before_super = fail;
}

void btrfs_trans_set_verdict(struct btrfs_trans *t, int (*fn)(struct btrfs_trans *t, void *arg),
			     void *arg)
{
	t->verdict = fn;
	t->verdict_arg = arg;
}

static const struct extent_buffer *view_block(void *arg, u64 bytenr)
{
	struct trans_block *tb = trans_lookup(arg, bytenr);

	return tb ? tb->eb : NULL;
}

int btrfs_trans_view(struct btrfs_trans *t, int (*fn)(struct btrfs_fs_info *fs, void *arg),
		     void *arg)
{
	struct btrfs_fs_info *fs = t->fs;
	struct btrfs_super_block *old_super = fs->super;
	struct btrfs_tree_ref old_tree = fs->tree_root, old_chunk = fs->chunk_root;
	struct btrfs_chunk_tree_map old_chunks, view_chunks;
	u64 old_gen = fs->geo.super_generation;
	size_t old_overrides = fs->overrides_nr;
	u64 *list = NULL;
	size_t nr = 0;
	int ret;

	if (!t->new_super)
		return -EINVAL;
	ret = dirty_list(t, &list, &nr);
	if (ret < 0)
		return ret;
	/* each block as write_blocks() will write it: flag and checksum */
	for (size_t i = 0; i < nr; i++) {
		struct extent_buffer *eb = trans_lookup(t, list[i])->eb;
		struct btrfs_header *h = btrfs_header(eb);

		btrfs_set_header_flags(h, btrfs_header_flags(h) | BTRFS_HEADER_FLAG_WRITTEN);
		btrfs_csum_tree_block(fs, eb, eb->data);
	}
	free(list);
	fs->super = t->new_super;
	fs->geo.super_generation = t->transid;
	fs->tree_root.bytenr = btrfs_super_root(t->new_super);
	fs->tree_root.level = btrfs_super_root_level(t->new_super);
	fs->tree_root.generation = t->transid;
	if (btrfs_super_chunk_root(t->new_super) != btrfs_super_chunk_root(old_super)) {
		fs->chunk_root.bytenr = btrfs_super_chunk_root(t->new_super);
		fs->chunk_root.level = btrfs_super_chunk_root_level(t->new_super);
		fs->chunk_root.generation = t->transid;
	}
	fs->overrides_nr = 0;      /* mended blocks are what the devices will not hold */
	fs->view_block = view_block;
	fs->view_arg = t;
	/*
	 * The chunk map as the next opener will build it, from the new
	 * superblock's sys_chunk_array and the new chunk tree: the map in
	 * memory may hold changes (a repair's) that neither carries.
	 */
	old_chunks = fs->chunks;
	ret = btrfs_read_chunk_map(fs, &view_chunks);
	if (ret == 0) {
		fs->chunks = view_chunks;
		btrfs_block_cache_drop(fs);
		ret = fn(fs, arg);
		btrfs_block_cache_drop(fs);
		fs->chunks = old_chunks;
		btrfs_chunk_tree_map_free(&view_chunks);
	} else {
		error("the chunk map of transaction %llu cannot be read back", t->transid);
	}
	fs->view_block = NULL;
	fs->view_arg = NULL;
	fs->overrides_nr = old_overrides;
	fs->chunk_root = old_chunk;
	fs->tree_root = old_tree;
	fs->geo.super_generation = old_gen;
	fs->super = old_super;
	return ret;
}

static void trans_free(struct btrfs_trans *t)
{
	if (!t)
		return;
	if (t->hash) {
		for (u32 i = 0; i < t->hash_size; i++) {
			struct trans_block *tb = t->hash[i], *next;

			for (; tb; tb = next) {
				next = tb->next;
				free_extent_buffer(tb->eb);
				free(tb);
			}
		}
	}
	free(t->hash);
	for (int i = 0; i < t->nr_roots; i++)
		free(t->roots[i]);
	free(t->roots);
	free(t->pinned);
	free(t->acct);
	trans_release_new_chunks(t);
	trans_remap_release(t);
	extent_alloc_release(t);
	free(t);
}

void btrfs_abort_transaction(struct btrfs_trans *t)
{
	trans_free(t);
}

/* kernel-shared/read's btrfs_search() with a transaction: the tree by id, as t sees it. */
static int trans_search(struct btrfs_trans *t, u64 tree_id, const struct btrfs_key *key,
			struct btrfs_path *path, int ins_len, int cow)
{
	struct btrfs_wroot *root;
	int ret = btrfs_trans_get_root(t, tree_id, &root);

	if (ret < 0)
		return ret;
	return btrfs_search_slot(t, root, key, path, ins_len, cow);
}

int btrfs_start_transaction(struct btrfs_fs_info *fs, struct btrfs_trans **out)
{
	return btrfs_start_transaction_flags(fs, 0, out);
}

int btrfs_start_transaction_flags(struct btrfs_fs_info *fs, unsigned int flags, struct btrfs_trans **out)
{
	const struct btrfs_super_block *sb = fs->super;
	struct btrfs_trans *t;
	u64 ro = btrfs_super_compat_ro_flags(sb);
	int ret;

	*out = NULL;
	if (btrfs_super_log_root(sb)) {
		error("the filesystem has a log tree to replay (mount it once first); not writing");
		return -EOPNOTSUPP;
	}
	for (int i = 0; i < fs->devices.nr; i++) {
		const struct btrfs_device *d = &fs->devices.devs[i];

		if (d->missing || d->fd < 0) {
			error("device devid %llu is missing; not writing", d->devid);
			return -EOPNOTSUPP;
		}
		if ((fcntl(d->fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
			error("%s is open read-only; not writing", d->path);
			return -EBADF;
		}
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fs = fs;
	fs->trans_search = trans_search;
	t->transid = btrfs_super_generation(sb) + 1;
	t->nodesize = fs->geo.nodesize;
	t->hash_size = 1024;
	t->hash = calloc(t->hash_size, sizeof(*t->hash));
	if (!t->hash) {
		free(t);
		return -ENOMEM;
	}
	t->skinny = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA;
	t->fst = (ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) &&
		 (ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID);
	t->bgt = ro & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;
	t->stats.transid = t->transid;
	t->progs_order = flags & BTRFS_TRANS_PROGS_ORDER;
	ret = extent_alloc_load_block_groups(t, flags & BTRFS_TRANS_MISSING_BG_ITEMS);
	if (ret < 0) {
		trans_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* ---- commit ---- */

static int update_root_items(struct btrfs_trans *t, bool *progress)
{
	struct btrfs_wroot *rt;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);
	if (ret < 0)
		return ret;
	for (int i = 0; i < t->nr_roots; i++) {
		struct btrfs_wroot *r = t->roots[i];
		struct btrfs_root_item *ri = &r->item;
		struct btrfs_path path;
		struct btrfs_key key;

		if (r->objectid == BTRFS_ROOT_TREE_OBJECTID || r->objectid == BTRFS_CHUNK_TREE_OBJECTID ||
		    !r->dirty)
			continue;
		if (!r->is_new && r->item_bytenr == r->bytenr && r->item_level == r->level &&
		    r->item_gen == t->transid)
			continue;
		btrfs_set_root_bytenr(ri, r->bytenr);
		btrfs_set_root_level(ri, r->level);
		btrfs_set_root_generation(ri, t->transid);
		if (r->item_size >= offsetof(struct btrfs_root_item, generation_v2) + 8)
			btrfs_set_root_generation_v2(ri, t->transid);
		key.objectid = r->objectid;
		key.type = BTRFS_ROOT_ITEM_KEY;
		key.offset = r->item_key_offset;
		if (r->is_new) {
			ret = btrfs_insert_item(t, rt, &key, ri, sizeof(*ri));
			if (ret < 0) {
				error("cannot insert the root item of tree %llu", r->objectid);
				return ret;
			}
			r->is_new = false;
			r->has_item = true;
		} else {
			btrfs_init_path(&path);
			ret = btrfs_search_slot(t, rt, &key, &path, 0, 1);
			if (ret > 0) {
				error("root item of tree %llu vanished", r->objectid);
				ret = -EUCLEAN;
			}
			if (ret == 0)
				memcpy(btrfs_path_item_ptr(&path), ri,
				       min_t(u32, r->item_size, sizeof(*ri)));
			btrfs_release_path(&path);
			if (ret < 0)
				return ret;
		}
		r->item_bytenr = r->bytenr;
		r->item_level = r->level;
		r->item_gen = t->transid;
		*progress = true;
	}
	return 0;
}

static int add_extent_refs(struct btrfs_trans *t, bool *progress)
{
	u64 *list;
	size_t nr;
	int ret;

	ret = dirty_list(t, &list, &nr);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < nr && ret == 0; i++) {
		struct trans_block *tb = trans_lookup(t, list[i]);

		if (!tb || tb->ref_added)
			continue;
		ret = extent_alloc_insert_tree_block_item(t, tb);
		/* the insert may have freed or moved nothing but tree blocks of the extent tree */
		tb = trans_lookup(t, list[i]);
		if (ret == 0 && tb)
			tb->ref_added = true;
		*progress = true;
	}
	free(list);
	return ret;
}

static int drop_extent_refs(struct btrfs_trans *t, bool *progress)
{
	int ret;

	for (size_t i = 0; i < t->nr_pinned; i++) {
		struct pinned_block pb = t->pinned[i];

		if (!pb.need_ref_drop)
			continue;
		t->pinned[i].need_ref_drop = false;
		ret = extent_alloc_drop_tree_block_item(t, &pb);
		if (ret < 0)
			return ret;
		*progress = true;
	}
	return 0;
}

static int update_block_groups(struct btrfs_trans *t, bool *progress)
{
	int ret;

	for (int i = 0; i < t->nr_bgs; i++) {
		struct wblock_group *bg = &t->bgs[i];

		if (bg->item_missing) {
			error("no block group item (%llu BLOCK_GROUP_ITEM %llu) for chunk %llu: not committing",
			      bg->start, bg->length, bg->start);
			return -EUCLEAN;
		}
		if ((bg->delta == bg->written_delta && !bg->flags_pending) || bg->items_pending)
			continue;
		ret = extent_alloc_update_block_group_item(t, bg);
		if (ret < 0)
			return ret;
		*progress = true;
	}
	return 0;
}

/* Free space tree: ranges of sorted addresses, merged while adjacent in one block group. */
static int free_space_tree_apply(struct btrfs_trans *t, u64 *list, size_t nr, bool add)
{
	size_t i = 0;
	int ret;

	qsort(list, nr, sizeof(*list), cmp_u64);
	while (i < nr) {
		u64 start = list[i], len = t->nodesize;
		struct wblock_group *bg = extent_alloc_find_block_group(t, start);

		i++;
		while (i < nr && list[i] == start + len && extent_alloc_find_block_group(t, list[i]) == bg) {
			len += t->nodesize;
			i++;
		}
		ret = add ? free_space_tree_add_range(t, start, len) : free_space_tree_remove_range(t, start, len);
		if (ret == -EUCLEAN && t->lenient) {
			warning("free space tree: range %llu+%llu left as it was", start, len);
			ret = 0;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int update_free_space(struct btrfs_trans *t, bool *progress)
{
	u64 *list;
	size_t nr = 0, n;
	int ret;

	/* (a pending rebuild makes the tree anew from the extent tree: the old may be missing) */
	if (!t->fst || t->rebuild_fst)
		return 0;
	list = malloc(sizeof(*list) * (t->nr_pinned ? t->nr_pinned : 1));
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_pinned; i++) {
		if (!t->pinned[i].need_fst)
			continue;
		t->pinned[i].need_fst = false;
		list[nr++] = t->pinned[i].bytenr;
	}
	ret = free_space_tree_apply(t, list, nr, true);
	free(list);
	if (ret < 0)
		return ret;
	if (nr)
		*progress = true;
	for (size_t i = 0; i < t->nr_acct; i++) {
		struct acct_range *a = &t->acct[i];

		if (a->fst_done)
			continue;
		if (extent_alloc_block_group_pending(t, a->start))
			continue;
		a->fst_done = true;
		ret = a->alloc ? free_space_tree_remove_range(t, a->start, a->len) :
				 free_space_tree_add_range(t, a->start, a->len);
		if (ret == -EUCLEAN && t->lenient) {
			warning("free space tree: range %llu+%llu left as it was", a->start, a->len);
			ret = 0;
		}
		if (ret < 0)
			return ret;
		*progress = true;
	}

	ret = dirty_list(t, &list, &n);
	if (ret < 0)
		return ret;
	nr = 0;
	for (size_t i = 0; i < n; i++) {
		struct trans_block *tb = trans_lookup(t, list[i]);

		/* a block group not in the free space tree yet: next round */
		if (tb && !tb->fst_applied && !extent_alloc_block_group_pending(t, list[i])) {
			tb->fst_applied = true;
			list[nr++] = list[i];
		}
	}
	ret = free_space_tree_apply(t, list, nr, false);
	free(list);
	if (nr)
		*progress = true;
	return ret;
}

/* Extent items added and dropped until nothing is pending (for free_space_tree_rebuild). */
int trans_settle_refs(struct btrfs_trans *t)
{
	for (int round = 0; round < MAX_COMMIT_ROUNDS; round++) {
		bool progress = false;
		int ret = add_extent_refs(t, &progress);

		if (ret == 0)
			ret = drop_extent_refs(t, &progress);
		if (ret < 0)
			return ret;
		if (!progress)
			return 0;
	}
	return -ELOOP;
}

/* Mark every pending free space change as done (the tree was recomputed). */
void trans_fst_all_done(struct btrfs_trans *t)
{
	/* new block groups get their free space items later, and these changes with them */
	for (u32 i = 0; i < t->hash_size; i++)
		for (struct trans_block *tb = t->hash[i]; tb; tb = tb->next)
			if (!extent_alloc_block_group_pending(t, tb->eb->start))
				tb->fst_applied = true;
	for (size_t i = 0; i < t->nr_pinned; i++)
		t->pinned[i].need_fst = false;
	for (size_t i = 0; i < t->nr_acct; i++)
		if (!extent_alloc_block_group_pending(t, t->acct[i].start))
			t->acct[i].fst_done = true;
}

void btrfs_trans_rebuild_free_space_tree(struct btrfs_trans *t)
{
	t->rebuild_fst = true;
}

int trans_reset_tree(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	int ret;

	ret = trans_free_subtree(t, root->objectid, root->bytenr, root->level, 0, NULL);
	if (ret < 0)
		return ret;
	return trans_new_empty_root(t, root);
}

int trans_new_empty_root(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	struct extent_buffer *eb;
	int ret;

	ret = trans_alloc_block(t, root->objectid, 0, &eb);
	if (ret < 0)
		return ret;
	root->bytenr = eb->start;
	root->level = 0;
	root->dirty = true;
	return 0;
}

int btrfs_reset_tree(struct btrfs_trans *t, struct btrfs_wroot *root)
{
	switch (root->objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:
	case BTRFS_CHUNK_TREE_OBJECTID:
	case BTRFS_EXTENT_TREE_OBJECTID:
	case BTRFS_FREE_SPACE_TREE_OBJECTID:
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
		error("tree %llu cannot be reset", root->objectid);
		return -EOPNOTSUPP;
	}
	if (root->last_snapshot) {
		error("tree %llu may share blocks with a snapshot; not reset", root->objectid);
		return -EOPNOTSUPP;
	}
	return trans_reset_tree(t, root);
}

/* Backup root slot for this commit, as the kernel rotates them. */
static int backup_slot(const struct btrfs_super_block *sb)
{
	u64 gen = btrfs_super_generation(sb), best_gen = 0;
	int best = -1;

	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		u64 g = btrfs_backup_tree_root_gen(&sb->super_roots[i]);

		if (g == gen)
			return (i + 1) % BTRFS_NUM_BACKUP_ROOTS;
		if (btrfs_backup_tree_root(&sb->super_roots[i]) && g > best_gen) {
			best_gen = g;
			best = i;
		}
	}
	return best < 0 ? 0 : (best + 1) % BTRFS_NUM_BACKUP_ROOTS;
}

/* Root block, its generation and level of a tree for the backup slot (0s if absent). */
static void backup_tree(struct btrfs_trans *t, u64 objectid, u64 *bytenr, u64 *gen, u8 *level)
{
	struct btrfs_wroot *r;

	*bytenr = 0;
	*gen = 0;
	*level = 0;
	if (btrfs_trans_get_root(t, objectid, &r) < 0)
		return;
	*bytenr = r->bytenr;
	*level = r->level;
	*gen = r->dirty ? t->transid : btrfs_root_generation(&r->item);
}

static void fill_backup(struct btrfs_trans *t, struct btrfs_super_block *sb)
{
	struct btrfs_root_backup *b = &sb->super_roots[backup_slot(t->fs->super)];
	u64 bytenr, gen;
	u8 level;

	memset(b, 0, sizeof(*b));
	btrfs_set_backup_tree_root(b, btrfs_super_root(sb));
	btrfs_set_backup_tree_root_gen(b, t->transid);
	btrfs_set_backup_tree_root_level(b, btrfs_super_root_level(sb));
	btrfs_set_backup_chunk_root(b, btrfs_super_chunk_root(sb));
	btrfs_set_backup_chunk_root_gen(b, btrfs_super_chunk_root_generation(sb));
	btrfs_set_backup_chunk_root_level(b, btrfs_super_chunk_root_level(sb));
	/* each tree's root, its generation and level in the slot's three fields of its name */
#define BACKUP_TREE(name, objectid) do {				\
		backup_tree(t, objectid, &bytenr, &gen, &level);	\
		btrfs_set_backup_##name##_root(b, bytenr);		\
		btrfs_set_backup_##name##_root_gen(b, gen);		\
		btrfs_set_backup_##name##_root_level(b, level);		\
	} while (0)
	BACKUP_TREE(extent, BTRFS_EXTENT_TREE_OBJECTID);
	BACKUP_TREE(fs, BTRFS_FS_TREE_OBJECTID);
	BACKUP_TREE(dev, BTRFS_DEV_TREE_OBJECTID);
	BACKUP_TREE(csum, BTRFS_CSUM_TREE_OBJECTID);
#undef BACKUP_TREE
	btrfs_set_backup_total_bytes(b, btrfs_super_total_bytes(sb));
	btrfs_set_backup_bytes_used(b, btrfs_super_bytes_used(sb));
	btrfs_set_backup_num_devices(b, btrfs_super_num_devices(sb));
}

int btrfs_trans_block_writer_init(struct btrfs_trans *t, struct btrfs_block_writer *w, struct block_writer_device **devsp)
{
	struct btrfs_fs_info *fs = t->fs;
	struct btrfs_fs_geometry geo = fs->geo;
	struct block_writer_device *devs;
	int ret;

	devs = calloc((size_t)fs->devices.nr, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	for (int i = 0; i < fs->devices.nr; i++) {
		devs[i].devid = fs->devices.devs[i].devid;
		devs[i].fd = fs->devices.devs[i].fd;
		devs[i].path = fs->devices.devs[i].path;
	}
	geo.super_generation = t->transid;
	ret = btrfs_block_writer_init(w, &geo, &fs->csum, devs, fs->devices.nr);
	if (ret < 0) {
		free(devs);
		return ret;
	}
	w->log = fs->write_log;
	*devsp = devs;
	w->map.chunks = calloc(fs->chunks.nr ? fs->chunks.nr : 1, sizeof(*w->map.chunks));
	if (!w->map.chunks)
		return -ENOMEM;
	w->map.alloc = fs->chunks.nr;
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];
		size_t sz = sizeof(*c) + (size_t)c->num_stripes * sizeof(c->stripes[0]);

		w->map.chunks[i] = malloc(sz);
		if (!w->map.chunks[i])
			return -ENOMEM;
		memcpy(w->map.chunks[i], c, sz);
		w->map.nr++;
	}
	return 0;
}

static int write_blocks(struct btrfs_trans *t)
{
	struct btrfs_block_writer w;
	struct block_writer_device *devs = NULL;
	u64 *list = NULL;
	size_t nr = 0;
	int ret;

	ret = btrfs_trans_block_writer_init(t, &w, &devs);
	if (ret < 0 && !devs)
		return ret;
	if (ret < 0)
		goto out;
	ret = dirty_list(t, &list, &nr);
	if (ret < 0)
		goto out;
	qsort(list, nr, sizeof(*list), cmp_u64);
	for (size_t i = 0; i < nr; i++) {
		struct trans_block *tb = trans_lookup(t, list[i]);
		struct btrfs_header *h = btrfs_header(tb->eb);

		btrfs_set_header_flags(h, btrfs_header_flags(h) | BTRFS_HEADER_FLAG_WRITTEN);
		ret = btrfs_write_tree_block(&w, tb->eb);
		if (ret < 0) {
			error("commit of transaction %llu aborted: tree block %llu (tree %llu) not written",
			      t->transid, tb->eb->start, tb->owner);
			goto out;
		}
		t->stats.blocks_written++;
	}
	ret = btrfs_block_writer_flush(&w);
out:
	free(list);
	btrfs_block_writer_release(&w);
	free(devs);
	return ret;
}

/*
 * Every device gets the superblock with its own dev_item (read back from
 * its primary copy, or sb's own), the sizes taken from the chunk tree's
 * item when it has one (tree[i], found[i]).
 */
static int write_supers(struct btrfs_trans *t, struct btrfs_super_block *sb,
			const struct btrfs_dev_item *tree, const bool *found)
{
	struct btrfs_fs_info *fs = t->fs;
	struct btrfs_super_block *dev_sb = malloc(sizeof(*dev_sb));
	int ret = 0;

	if (!dev_sb)
		return -ENOMEM;
	for (int i = 0; i < fs->devices.nr && ret == 0; i++) {
		struct btrfs_device *d = &fs->devices.devs[i];
		struct btrfs_dev_item item = sb->dev_item;

		/* each device keeps its own dev_item; sb's own device's is in memory */
		if (btrfs_device_id(&sb->dev_item) == d->devid) {
			item = sb->dev_item;
		} else if (btrfs_super_read_raw(d->fd, BTRFS_SUPER_INFO_OFFSET, dev_sb, NULL) == 0 &&
			   btrfs_device_id(&dev_sb->dev_item) == d->devid) {
			item = dev_sb->dev_item;
		} else if (btrfs_device_id(&sb->dev_item) != d->devid) {
			error("cannot read the superblock of devid %llu (%s)", d->devid, d->path);
			ret = -EIO;
			break;
		}
		if (found[i])
			trans_super_dev_item_sync(&item, &tree[i]);
		memcpy(dev_sb, sb, sizeof(*sb));
		dev_sb->dev_item = item;
		ret = btrfs_write_super_all(fs->write_log, d->fd, dev_sb, &fs->csum, d->size);
	}
	for (int i = 0; i < fs->devices.nr && ret == 0; i++) {
		ret = btrfs_dev_flush(fs->write_log, fs->devices.devs[i].fd);
		if (ret < 0)
			error_errno(ret, "fsync of %s", fs->devices.devs[i].path);
	}
	free(dev_sb);
	return ret;
}

/*
 * Copy the root tree's root block into the transaction (nothing below it is
 * read): the superblock's generation is the one its root tree block must
 * carry, so every commit writes one, also when only superblock fields
 * changed (the kernel CoWs the root tree in every commit too).
 */
static int cow_root_tree_root(struct btrfs_trans *t, struct btrfs_wroot *rt)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	path.lowest_level = rt->level;
	ret = btrfs_search_slot(t, rt, &key, &path, 0, 1);
	btrfs_release_path(&path);
	if (ret < 0) {
		error("commit of transaction %llu: root tree block %llu not copied: %s", t->transid,
		      rt->bytenr, strerror(-ret));
		return ret;
	}
	return 0;
}

int btrfs_commit_transaction_stats(struct btrfs_trans *t, struct btrfs_commit_stats *st)
{
	struct btrfs_fs_info *fs = t->fs;
	struct btrfs_super_block *sb = NULL;
	struct btrfs_dev_item *dev_items = NULL;
	bool *dev_found = NULL;
	struct btrfs_wroot *rt, *ct;
	int round, ret;

	ret = btrfs_trans_get_root(t, BTRFS_ROOT_TREE_OBJECTID, &rt);
	if (ret == 0)
		ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &ct);
	if (ret == 0 && !t->progs_order)
		ret = cow_root_tree_root(t, rt);
	for (round = 0; ret == 0; round++) {
		bool progress = false;

		if (round >= MAX_COMMIT_ROUNDS) {
			error("commit of transaction %llu does not settle after %d rounds", t->transid,
			      round);
			ret = -ELOOP;
			break;
		}
		ret = trans_insert_new_chunks(t, &progress);
		if (ret == 0 && !t->progs_order)
			ret = update_root_items(t, &progress);
		if (ret == 0)
			ret = add_extent_refs(t, &progress);
		if (ret == 0)
			ret = drop_extent_refs(t, &progress);
		if (ret == 0 && t->progs_order) {
			/* btrfs-progs: delayed refs (extent, free space trees), the root tree, block groups */
			ret = update_free_space(t, &progress);
			if (ret == 0 && round == 0)
				ret = cow_root_tree_root(t, rt);
			if (ret == 0)
				ret = update_root_items(t, &progress);
		}
		if (ret == 0)
			ret = update_block_groups(t, &progress);
		if (ret == 0 && !t->progs_order)
			ret = update_free_space(t, &progress);
		if (ret == 0 && !progress && t->rebuild_fst) {
			t->rebuild_fst = false;
			ret = free_space_tree_rebuild(t);
			progress = true;
		}
		for (int i = 0; i < t->nr_bgs && !progress; i++)
			progress = t->bgs[i].items_pending;
		if (!progress)
			break;
	}
	t->stats.rounds = (u64)round;
	if (ret < 0)
		goto fail;
	/* the device items as committed, for the superblocks' copies */
	dev_items = calloc((size_t)fs->devices.nr + 1, sizeof(*dev_items));
	dev_found = calloc((size_t)fs->devices.nr + 1, sizeof(*dev_found));
	ret = dev_items && dev_found ? trans_chunk_dev_items(t, dev_items, dev_found) : -ENOMEM;
	if (ret < 0)
		goto fail;
	/* the superblock of the new generation, written last */
	sb = malloc(sizeof(*sb));
	if (!sb) {
		ret = -ENOMEM;
		goto fail;
	}
	memcpy(sb, fs->super, sizeof(*sb));
	btrfs_set_super_generation(sb, t->transid);
	btrfs_set_super_root(sb, rt->bytenr);
	btrfs_set_super_root_level(sb, rt->level);
	if (ct->dirty) {
		btrfs_set_super_chunk_root(sb, ct->bytenr);
		btrfs_set_super_chunk_root_level(sb, ct->level);
		btrfs_set_super_chunk_root_generation(sb, t->transid);
	}
	btrfs_set_super_bytes_used(sb, btrfs_super_bytes_used(sb) + (u64)t->bytes_used_delta);
	ret = trans_new_chunks_super(t, sb);
	if (ret == 0)
		ret = trans_remap_super(t, sb);
	if (ret < 0)
		goto fail;
	if (t->fst_created)
		btrfs_set_super_compat_ro_flags(sb, btrfs_super_compat_ro_flags(sb) |
					       BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
					       BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID);
	if (t->fst_dropped)
		btrfs_set_super_compat_ro_flags(sb, btrfs_super_compat_ro_flags(sb) &
					       ~(BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
						 BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID));
	if ((!t->fst && btrfs_super_cache_generation(sb)) || t->space_cache_v1_stale)
		btrfs_set_super_cache_generation(sb, (u64)-1);   /* space cache v1 now stale */
	{
		struct btrfs_wroot *uuid = find_loaded_root(t, BTRFS_UUID_TREE_OBJECTID);

		if (uuid && uuid->dirty)
			btrfs_set_super_uuid_tree_generation(sb, t->transid);
	}
	for (int i = 0; i < fs->devices.nr; i++)
		if (dev_found[i] && fs->devices.devs[i].devid == btrfs_device_id(&sb->dev_item))
			trans_super_dev_item_sync(&sb->dev_item, &dev_items[i]);
	fill_backup(t, sb);
	/* the last word before anything is written */
	if (t->verdict) {
		t->new_super = sb;
		ret = t->verdict(t, t->verdict_arg);
		t->new_super = NULL;
		if (ret)
			goto fail;
	}

	ret = btrfs_settle_supers(fs);
	if (ret == 0)
		ret = write_blocks(t);
	if (ret < 0)
		goto fail;
	if (t->fail_before_super) {
		error("commit of transaction %llu: failing before the superblock write (fault injection)",
		      t->transid);
		ret = -EIO;
		goto fail;
	}
	ret = write_supers(t, sb, dev_items, dev_found);
	if (ret < 0) {
		/* some devices may have the new superblock and others not */
		fs->supers_settled = false;
		error("commit of transaction %llu: superblock write failed", t->transid);
		goto fail;
	}
	/* The new generation is the filesystem's now. */
	memcpy(fs->super, sb, sizeof(*sb));
	fs->geo.super_generation = t->transid;
	fs->tree_root.bytenr = rt->bytenr;
	fs->tree_root.level = rt->level;
	fs->tree_root.generation = t->transid;
	if (ct->dirty) {
		fs->chunk_root.bytenr = ct->bytenr;
		fs->chunk_root.level = ct->level;
		fs->chunk_root.generation = t->transid;
	}
	btrfs_block_cache_drop(fs);
	if (st)
		*st = t->stats;
	free(sb);
	free(dev_items);
	free(dev_found);
	t->committed = true;
	trans_free(t);
	return 0;
fail:
	if (st)
		*st = t->stats;
	free(sb);
	free(dev_items);
	free(dev_found);
	trans_free(t);
	return ret;
}

int btrfs_commit_transaction(struct btrfs_trans *t)
{
	return btrfs_commit_transaction_stats(t, NULL);
}

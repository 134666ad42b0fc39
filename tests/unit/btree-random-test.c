// SPDX-License-Identifier: GPL-2.0
/*
 * The copy-on-write b-tree engine against an in-memory model.
 *
 * On images made by our mkfs (4 KiB nodes for deep trees, 16 KiB default;
 * with and without free-space-tree/block-group-tree): random inserts,
 * batch inserts, deletes, extends and truncates in a new tree, the tree
 * compared with the model every few hundred operations (every dirty block
 * through the tree-checker), several commits, the filesystem reopened and
 * compared again through the read path (every block verified: checksum,
 * tree-checker, parent generation and first key).  After each commit the
 * extent tree must hold one METADATA_ITEM/EXTENT_ITEM per tree block with
 * its owner, block group used bytes and super bytes_used must add up, and
 * the free space tree must be exactly the block group minus the extents.
 * Abort and a commit failing before the superblock leave the old state.
 *
 * Needs $BTRFS (our binary, for mkfs); SEED=n picks the random sequence.
 */
#include <stdlib.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "tests/unit/xorshift.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

#define TREE_ID 400ULL
#define ITYPE BTRFS_STRING_ITEM_KEY

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

static u64 rnd_below(u64 n)
{
	return n ? rnd() % n : 0;
}

/* ---- the model ---- */

struct mitem {
	struct btrfs_key key;
	u32 size;
	u8 *data;
};

struct model {
	struct mitem *items;
	size_t nr, alloc;
};

static size_t model_find(const struct model *m, const struct btrfs_key *key, bool *found)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = btrfs_comp_cpu_keys(&m->items[mid].key, key);

		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			*found = true;
			return mid;
		}
	}
	*found = false;
	return lo;
}

static void model_insert(struct model *m, const struct btrfs_key *key, const u8 *data, u32 size)
{
	bool found;
	size_t at = model_find(m, key, &found);

	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 256;
		m->items = realloc(m->items, m->alloc * sizeof(*m->items));
	}
	memmove(&m->items[at + 1], &m->items[at], (m->nr - at) * sizeof(*m->items));
	m->items[at].key = *key;
	m->items[at].size = size;
	m->items[at].data = malloc(size ? size : 1);
	memcpy(m->items[at].data, data, size);
	m->nr++;
}

static void model_delete(struct model *m, size_t at)
{
	free(m->items[at].data);
	memmove(&m->items[at], &m->items[at + 1], (m->nr - at - 1) * sizeof(*m->items));
	m->nr--;
}

static void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->items[i].data);
	free(m->items);
	memset(m, 0, sizeof(*m));
}

static void fill(u8 *buf, u32 size)
{
	for (u32 i = 0; i < size; i++)
		buf[i] = (u8)rnd();
}

/* ---- setup ---- */

static char img[1024];

static int make_image(const char *opts)
{
	const char *btrfs = getenv("BTRFS");
	const char *tmp = getenv("TMPDIR");
	char cmd[8192];

	if (strlen(btrfs ? btrfs : "") > 2048 || strlen(opts) > 1024)
		return -1;

	if (!btrfs)
		btrfs = "./btrfs";
	snprintf(img, sizeof(img), "%s/btree-random-%d.img", tmp ? tmp : "/tmp", (int)getpid());
	unlink(img);
	snprintf(cmd, sizeof(cmd), "truncate -s 512M %s && %s mkfs -f -q %s %s", img, btrfs, opts, img);
	return system(cmd);
}

static struct btrfs_fs_info *open_fs(bool writable)
{
	char *devs[1] = { img };
	struct btrfs_open_args args = { .devices = devs, .ndevices = 1, .noscan = true,
					.writable = writable };
	struct btrfs_fs_info *fs = NULL;

	if (btrfs_open_fs(&args, &fs) < 0)
		return NULL;
	return fs;
}

/* A new image by our mkfs, opened read-write; *maxitem = the largest item. */
static struct btrfs_fs_info *fresh_fs(const char *mkfs_opts, u32 *maxitem)
{
	struct btrfs_fs_info *fs;

	if (make_image(mkfs_opts)) {
		CHECK(!"mkfs failed");
		return NULL;
	}
	fs = open_fs(true);
	CHECK(fs != NULL);
	if (fs)
		*maxitem = fs->geo.nodesize - sizeof(struct btrfs_header) - sizeof(struct btrfs_item);
	return fs;
}

/* fresh_fs() and an item buffer of maxitem bytes (*buf); NULL (nothing held) when either fails. */
static struct btrfs_fs_info *fresh_fs_buf(const char *mkfs_opts, u32 *maxitem, u8 **buf)
{
	struct btrfs_fs_info *fs = fresh_fs(mkfs_opts, maxitem);

	*buf = fs ? malloc(*maxitem) : NULL;
	if (!*buf) {
		CHECK(!"setup");
		btrfs_close_fs(fs);
		return NULL;
	}
	return fs;
}

/* ---- checks ---- */

/* The tree through the transaction equals the model. */
static int compare_trans(struct btrfs_trans *t, struct btrfs_wroot *root, const struct model *m)
{
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 }, found;
	size_t i = 0;
	int ret, bad = 0;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (i >= m->nr || btrfs_comp_cpu_keys(&found, &m->items[i].key) ||
		    btrfs_path_item_size(&path) != m->items[i].size ||
		    memcmp(btrfs_path_item_ptr(&path), m->items[i].data, m->items[i].size)) {
			if (bad++ < 5)
				fprintf(stderr, "mismatch at item %zu key (%llu %u %llu)\n", i,
					found.objectid, found.type, found.offset);
		}
		i++;
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return -1;
	if (i != m->nr) {
		fprintf(stderr, "tree has %zu items, model %zu\n", i, m->nr);
		bad++;
	}
	return bad;
}

/* The committed tree (read path) equals the model. */
static int compare_disk(struct btrfs_fs_info *fs, const struct model *m)
{
	struct btrfs_tree_ref ref;
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 }, found;
	size_t i = 0;
	int ret, bad = 0;

	if (btrfs_find_tree_root(fs, TREE_ID, &ref) < 0)
		return m->nr ? 1 : 0;
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &ref, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		const struct extent_buffer *l = path.nodes[0];
		int slot = path.slots[0];

		btrfs_item_key_to_cpu(l, &found, slot);
		if (i >= m->nr || btrfs_comp_cpu_keys(&found, &m->items[i].key) ||
		    btrfs_leaf_item_size(l, slot) != m->items[i].size ||
		    memcmp(btrfs_leaf_item_ptr(l, slot), m->items[i].data, m->items[i].size))
			bad++;
		i++;
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	if (ret < 0 || i != m->nr)
		bad++;
	return bad;
}

struct walk_acc {
	u64 blocks;
	int errors;
	u64 *addrs;
	u64 *owners;
	size_t nr, alloc;
	u64 owner;
};

static int walk_fn(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr, int err,
		   void *ctx)
{
	struct walk_acc *a = ctx;

	if (err < 0) {
		a->errors++;
		return 0;
	}
	if (a->nr == a->alloc) {
		a->alloc = a->alloc ? a->alloc * 2 : 1024;
		a->addrs = realloc(a->addrs, a->alloc * sizeof(u64));
		a->owners = realloc(a->owners, a->alloc * sizeof(u64));
	}
	a->addrs[a->nr] = bytenr;
	a->owners[a->nr++] = a->owner;
	a->blocks++;
	(void)eb;
	return 0;
}

static int walk_one(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *ref, struct walk_acc *a)
{
	a->owner = ref->objectid;
	return btrfs_walk_tree(fs, ref, BTRFS_WALK_DFS, NULL, walk_fn, a);
}

/* ---- the walker's per-pointer hook ---- */

struct hook_acc {
	const struct extent_buffer *root;
	int mode;            /* 0 descend, 1 skip the root's pointers, 2 skip root slot 0, 3 fail at 3rd */
	u64 hooks, visits, bad_args, skipped;
	bool saw_skipped;
};

static int hook_ptr(struct btrfs_fs_info *fs, const struct extent_buffer *node, int slot, u64 bytenr,
		    u64 generation, int level, void *ctx)
{
	struct hook_acc *h = ctx;
	bool at_root = node->start == h->root->start;

	(void)fs;
	h->hooks++;
	if (bytenr != btrfs_node_blockptr(node, slot) || generation != btrfs_node_ptr_generation(node, slot) ||
	    level != btrfs_eb_level(node) - 1)
		h->bad_args++;
	if ((h->mode == 1 && at_root) || (h->mode == 2 && at_root && slot == 0)) {
		h->skipped = bytenr;
		return BTRFS_WALK_SKIP;
	}
	if (h->mode == 3 && h->hooks == 3)
		return -E2BIG;
	return BTRFS_WALK_DESCEND;
}

static int hook_visit(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr, int err, void *ctx)
{
	struct hook_acc *h = ctx;

	(void)fs;
	(void)eb;
	h->visits++;
	if (err || (h->mode == 2 && bytenr == h->skipped))
		h->saw_skipped = true;
	return 0;
}

/* Descend, skip and error through the hook on a tree of three levels or more. */
static void check_walk_hook(struct btrfs_fs_info *fs)
{
	struct btrfs_tree_ref ref;
	struct extent_buffer *root = NULL;
	struct walk_acc all = { 0 };
	struct hook_acc h[4];
	int ret[4];

	CHECK(btrfs_find_tree_root(fs, TREE_ID, &ref) == 0);
	CHECK(btrfs_read_tree_block(fs, ref.bytenr, NULL, &root) == 0);
	if (!root)
		return;
	CHECK(btrfs_eb_level(root) >= 2);
	walk_one(fs, &ref, &all);
	for (int m = 0; m < 4; m++) {
		h[m] = (struct hook_acc){ .root = root, .mode = m };
		ret[m] = btrfs_walk_block_ptrs(fs, &ref, root, BTRFS_WALK_DFS, NULL, 0, hook_ptr,
					       hook_visit, &h[m]);
		CHECK(h[m].bad_args == 0);
	}
	/* every pointer asked once, every block visited once */
	CHECK(ret[0] == 0);
	CHECK_EQ_U64(h[0].visits, all.blocks);
	CHECK_EQ_U64(h[0].hooks, all.blocks - 1);
	/* the root's pointers skipped: the root alone */
	CHECK(ret[1] == 0);
	CHECK_EQ_U64(h[1].visits, 1);
	CHECK_EQ_U64(h[1].hooks, btrfs_eb_nritems(root));
	/* the first subtree skipped, never visited, nothing reported unreadable */
	CHECK(ret[2] == 0);
	CHECK(!h[2].saw_skipped);
	CHECK(h[2].visits > 1 && h[2].visits < all.blocks);
	/* an error stops the walk at once: root, two children, then the failing pointer */
	CHECK(ret[3] == -E2BIG);
	CHECK_EQ_U64(h[3].hooks, 3);
	CHECK_EQ_U64(h[3].visits, 3);
	CHECK(btrfs_walk_block_ptrs(fs, &ref, root, BTRFS_WALK_BFS, NULL, 0, hook_ptr, hook_visit,
				    &h[0]) == -EINVAL);
	free(all.addrs);
	free(all.owners);
	free_extent_buffer(root);
}

/*
 * Every tree's blocks verify; the extent tree has one single-ref tree block
 * item per block (owner right), and nothing else in metadata; bytes_used
 * and block group used add up; the free space tree is the complement.
 */
/* One free run of the free space tree: overlaps nothing in use; counted. */
static int check_free_run(struct btrfs_fs_info *fs, const struct walk_acc *a, const u64 *data_start,
			  const u64 *data_len, int nr_data, u64 start, u64 len, u64 *fr, u32 *seen)
{
	*fr += len;
	(*seen)++;
	for (int i = 0; i < nr_data; i++)
		if (data_start[i] + data_len[i] > start && data_start[i] < start + len) {
			fprintf(stderr, "free extent %llu+%llu overlaps data %llu\n", start, len,
				data_start[i]);
			return 1;
		}
	for (size_t i = 0; i < a->nr; i++)
		if (a->addrs[i] + fs->geo.nodesize > start && a->addrs[i] < start + len) {
			fprintf(stderr, "free extent %llu+%llu overlaps block %llu\n", start, len,
				a->addrs[i]);
			return 1;
		}
	return 0;
}

static int check_fs_consistency(struct btrfs_fs_info *fs)
{
	struct walk_acc a = { 0 };
	struct btrfs_tree_ref ref, ext, fst;
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 }, found;
	u64 meta_items = 0, meta_bytes = 0, data_bytes = 0;
	u64 data_start[64], data_len[64];
	int bad = 0, ret, nr_data = 0;
	bool have_fst;

	walk_one(fs, &fs->tree_root, &a);
	walk_one(fs, &fs->chunk_root, &a);
	/* every tree in the root tree */
	btrfs_init_path(&path);
	key.type = BTRFS_ROOT_ITEM_KEY;
	ret = btrfs_search_key(fs, &fs->tree_root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (found.type == BTRFS_ROOT_ITEM_KEY) {
			btrfs_tree_ref_from_root_item(&ref, found.objectid,
						      btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]));
			walk_one(fs, &ref, &a);
		}
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	if (a.errors) {
		fprintf(stderr, "%d blocks failed to verify\n", a.errors);
		bad++;
	}
	/* extent tree: each metadata extent is one of the blocks, with its owner */
	if (btrfs_find_tree_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &ext) < 0)
		return bad + 1;
	memset(&key, 0, sizeof(key));
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &ext, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		btrfs_path_item_key(&path, &found);
		if (found.type == BTRFS_METADATA_ITEM_KEY ||
		    (found.type == BTRFS_EXTENT_ITEM_KEY && found.offset == fs->geo.nodesize &&
		     btrfs_extent_flags(btrfs_leaf_item_ptr(path.nodes[0], path.slots[0])) &
			     BTRFS_EXTENT_FLAG_TREE_BLOCK)) {
			const struct btrfs_extent_item *ei = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);
			u32 size = btrfs_leaf_item_size(path.nodes[0], path.slots[0]);
			const struct btrfs_extent_inline_ref *ir =
				(const void *)((const u8 *)ei + size - sizeof(*ir));
			size_t i;

			for (i = 0; i < a.nr; i++)
				if (a.addrs[i] == found.objectid)
					break;
			if (i == a.nr || btrfs_extent_refs(ei) != 1 ||
			    btrfs_extent_inline_ref_offset(ir) != a.owners[i]) {
				if (bad < 5)
					fprintf(stderr, "extent item (%llu %u %llu) matches no block of its tree\n",
						found.objectid, found.type, found.offset);
				bad++;
			}
			meta_items++;
			meta_bytes += fs->geo.nodesize;
		} else if (found.type == BTRFS_EXTENT_ITEM_KEY) {
			data_bytes += found.offset;
			if (nr_data < 64) {
				data_start[nr_data] = found.objectid;
				data_len[nr_data++] = found.offset;
			}
		}
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	if (meta_items != a.nr) {
		fprintf(stderr, "%llu metadata extent items for %zu tree blocks\n", meta_items, a.nr);
		bad++;
	}
	if (btrfs_super_bytes_used(fs->super) != meta_bytes + data_bytes) {
		fprintf(stderr, "super bytes_used %llu, extents %llu\n",
			btrfs_super_bytes_used(fs->super), meta_bytes + data_bytes);
		bad++;
	}
	/* block groups and free space */
	have_fst = btrfs_find_tree_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &fst) == 0;
	for (size_t c = 0; c < fs->chunks.nr; c++) {
		const struct btrfs_chunk_map *cm = fs->chunks.chunks[c];
		struct btrfs_tree_ref bgt;
		u64 used = 0, fr = 0, bgused;
		bool ok;

		for (size_t i = 0; i < a.nr; i++)
			if (a.addrs[i] >= cm->logical && a.addrs[i] < cm->logical + cm->length)
				used += fs->geo.nodesize;
		for (int i = 0; i < nr_data; i++)
			if (data_start[i] >= cm->logical && data_start[i] < cm->logical + cm->length)
				used += data_len[i];
		ok = btrfs_find_tree_root(fs, BTRFS_BLOCK_GROUP_TREE_OBJECTID, &bgt) == 0;
		if (!ok)
			bgt = ext;
		key.objectid = cm->logical;
		key.type = BTRFS_BLOCK_GROUP_ITEM_KEY;
		key.offset = cm->length;
		btrfs_init_path(&path);
		ret = btrfs_search_key(fs, &bgt, &key, BTRFS_SEARCH_EXACT, &path, &found);
		bgused = ret == 0 ? btrfs_block_group_used(btrfs_leaf_item_ptr(path.nodes[0], path.slots[0])) : ~0ULL;
		btrfs_release_path(&path);
		if (bgused != used) {
			fprintf(stderr, "block group %llu used %llu, blocks %llu\n", cm->logical, bgused,
				used);
			bad++;
		}
		if (!have_fst)
			continue;
		key.objectid = cm->logical;
		key.type = BTRFS_FREE_SPACE_INFO_KEY;
		key.offset = cm->length;
		btrfs_init_path(&path);
		ret = btrfs_search_key(fs, &fst, &key, BTRFS_SEARCH_EXACT, &path, &found);
		{
			u32 count = ret == 0 ? btrfs_free_space_extent_count(
				btrfs_leaf_item_ptr(path.nodes[0], path.slots[0])) : 0, seen = 0;

			u64 run_start = 0, run_end = 0;
			bool in_run = false;

			while (ret == 0) {
				ret = btrfs_next_item(&path);
				if (ret)
					break;
				btrfs_path_item_key(&path, &found);
				if ((found.type != BTRFS_FREE_SPACE_EXTENT_KEY &&
				     found.type != BTRFS_FREE_SPACE_BITMAP_KEY) ||
				    found.objectid >= cm->logical + cm->length)
					break;
				/* free runs: an extent item, or set bits of bitmaps (joined across items) */
				for (u64 off = 0; off < found.offset; off += fs->geo.sectorsize) {
					u64 addr = found.objectid + off, bit = off / fs->geo.sectorsize;
					bool is_free = found.type == BTRFS_FREE_SPACE_EXTENT_KEY;

					if (!is_free) {
						const u8 *bits = btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]);

						is_free = bits[bit / 8] & (1U << (bit % 8));
					}
					if (is_free && in_run && run_end == addr) {
						run_end += fs->geo.sectorsize;
						continue;
					}
					if (in_run)
						bad += check_free_run(fs, &a, data_start, data_len, nr_data,
								      run_start, run_end - run_start, &fr, &seen);
					in_run = is_free;
					run_start = addr;
					run_end = addr + fs->geo.sectorsize;
				}
			}
			if (in_run)
				bad += check_free_run(fs, &a, data_start, data_len, nr_data, run_start,
						      run_end - run_start, &fr, &seen);
			if (seen != count || fr + used != cm->length) {
				fprintf(stderr, "bg %llu: %u free extents (info %u), free %llu + used %llu != %llu\n",
					cm->logical, seen, count, fr, used, cm->length);
				bad++;
			}
		}
		btrfs_release_path(&path);
	}
	free(a.addrs);
	free(a.owners);
	return bad;
}

/* ---- random operations ---- */

struct stats {
	u64 inserts, batches, deletes, extends, truncates;
};

static int random_op(struct btrfs_trans *t, struct btrfs_wroot *root, struct model *m, u32 maxitem,
		     struct stats *st)
{
	u8 buf[65536];
	u64 r = rnd_below(100);
	int ret;

	if (m->nr == 0 || r < 45) {
		struct btrfs_key key = { 1000 + rnd_below(5000), ITYPE, rnd_below(64) };
		u32 size = rnd_below(10) == 0 ? (u32)rnd_below(maxitem) : (u32)rnd_below(120);
		bool found;

		model_find(m, &key, &found);
		fill(buf, size);
		ret = btrfs_insert_item(t, root, &key, buf, size);
		if (found)
			return ret == -EEXIST ? 0 : -1;
		if (ret)
			return -1;
		model_insert(m, &key, buf, size);
		st->inserts++;
	} else if (r < 50) {
		/* a batch into an unused objectid */
		struct btrfs_key keys[16];
		u32 sizes[16];
		struct btrfs_path path;
		u64 obj = 100000 + rnd_below(1000000);
		int n = 1 + (int)rnd_below(16);
		bool found;
		struct btrfs_key probe = { obj, 0, 0 };
		size_t at = model_find(m, &probe, &found);

		if (at < m->nr && m->items[at].key.objectid == obj)
			return 0;
		for (int i = 0; i < n; i++) {
			keys[i] = (struct btrfs_key){ obj, ITYPE, (u64)i };
			sizes[i] = (u32)rnd_below(100);
		}
		btrfs_init_path(&path);
		ret = btrfs_insert_empty_items(t, root, &path, keys, sizes, n);
		if (ret) {
			btrfs_release_path(&path);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			struct extent_buffer *l = path.nodes[0];

			fill(buf, sizes[i]);
			memcpy(btrfs_leaf_item_ptr(l, path.slots[0] + i), buf, sizes[i]);
			model_insert(m, &keys[i], buf, sizes[i]);
		}
		btrfs_release_path(&path);
		st->batches++;
	} else if (r < 80) {
		size_t at = rnd_below(m->nr);

		ret = btrfs_delete_item(t, root, &m->items[at].key);
		if (ret)
			return -1;
		model_delete(m, at);
		st->deletes++;
	} else if (r < 90) {
		size_t at = rnd_below(m->nr);
		struct mitem *it = &m->items[at];
		u32 extra = 1 + (u32)rnd_below(rnd_below(8) ? 60 : maxitem / 2);
		struct btrfs_path path;

		if (it->size + extra > maxitem)
			return 0;
		btrfs_init_path(&path);
		ret = btrfs_search_slot(t, root, &it->key, &path, (int)extra, 1);
		if (ret == 0)
			ret = btrfs_extend_item(t, &path, extra);
		if (ret == 0) {
			u8 *p = btrfs_path_item_ptr(&path);

			it->data = realloc(it->data, it->size + extra);
			memset(it->data + it->size, 0, extra);
			if (btrfs_path_item_size(&path) != it->size + extra ||
			    memcmp(p, it->data, it->size + extra))
				ret = -1;
			/* write something into the new tail */
			fill(buf, extra);
			memcpy(p + it->size, buf, extra);
			memcpy(it->data + it->size, buf, extra);
			it->size += extra;
		}
		btrfs_release_path(&path);
		if (ret)
			return -1;
		st->extends++;
	} else {
		size_t at = rnd_below(m->nr);
		struct mitem *it = &m->items[at];
		u32 nsize = (u32)rnd_below(it->size + 1);
		bool from_end = rnd() & 1;
		struct btrfs_path path;

		btrfs_init_path(&path);
		ret = btrfs_search_slot(t, root, &it->key, &path, 0, 1);
		if (ret == 0)
			ret = btrfs_truncate_item(t, &path, nsize, from_end);
		btrfs_release_path(&path);
		if (ret)
			return -1;
		if (!from_end)
			memmove(it->data, it->data + (it->size - nsize), nsize);
		it->size = nsize;
		st->truncates++;
	}
	return 0;
}

/*
 * btrfs_search(): with the transaction it sees an item only the transaction
 * holds (read only and with CoW); without it, the committed tree, which has
 * no such item, and CoW is refused.
 */
static void check_one_search(struct btrfs_fs_info *fs, struct btrfs_trans *t, struct btrfs_wroot *root)
{
	const struct btrfs_key key = { (u64)-7, 0xfe, 0 };
	struct btrfs_tree_ref ref;
	struct btrfs_path path;

	CHECK(btrfs_find_tree_root(fs, TREE_ID, &ref) == 0);
	CHECK(btrfs_insert_item(t, root, &key, "only-in-trans", 13) == 0);
	btrfs_init_path(&path);
	CHECK(btrfs_search(fs, t, &ref, &key, &path, 0, 0) == 0);
	CHECK(path.nodes[0] && btrfs_path_item_size(&path) == 13);
	CHECK(btrfs_search(fs, t, &ref, &key, &path, 0, 1) == 0);
	CHECK(path.nodes[0] && !memcmp(btrfs_path_item_ptr(&path), "only-in-trans", 13));
	btrfs_release_path(&path);
	CHECK(btrfs_search(fs, NULL, &ref, &key, &path, 0, 0) == 1);
	CHECK(btrfs_search_slot_ro(fs, &ref, &key, &path) == 1);
	CHECK(btrfs_search(fs, NULL, &ref, &key, &path, 0, 1) == -EINVAL);
	btrfs_release_path(&path);
}

static void run_random(const char *mkfs_opts, int commits, int ops_per_commit, u8 min_top_level)
{
	u8 top_level = 0;
	struct model m = { 0 };
	struct stats st = { 0 };
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	int ret, c, i;
	u32 maxitem;

	fs = fresh_fs(mkfs_opts, &maxitem);
	if (!fs)
		return;
	CHECK(check_fs_consistency(fs) == 0);
	for (c = 0; c < commits; c++) {
		struct btrfs_commit_stats cs;
		u8 maxlevel = 0;

		ret = btrfs_start_transaction(fs, &t);
		CHECK(ret == 0);
		if (ret)
			break;
		if (c == 0)
			ret = btrfs_create_tree(t, TREE_ID, &root);
		else
			ret = btrfs_trans_get_root(t, TREE_ID, &root);
		CHECK(ret == 0);
		if (ret) {
			btrfs_abort_transaction(t);
			break;
		}
		for (i = 0; i < ops_per_commit; i++) {
			ret = random_op(t, root, &m, maxitem, &st);
			if (ret) {
				fprintf(stderr, "commit %d op %d failed\n", c, i);
				break;
			}
			if (root->level > maxlevel)
				maxlevel = root->level;
			if (root->level > top_level)
				top_level = root->level;
			if (i % 500 == 499) {
				CHECK(btrfs_trans_check_dirty_blocks(t) == 0);
				CHECK(compare_trans(t, root, &m) == 0);
			}
		}
		CHECK(ret == 0);
		CHECK(compare_trans(t, root, &m) == 0);
		CHECK(btrfs_trans_check_dirty_blocks(t) == 0);
		ret = btrfs_commit_transaction_stats(t, &cs);
		CHECK(ret == 0);
		printf("  commit %d: generation %llu, %zu items, tree level max %u, %llu blocks written, %llu freed, %llu rounds\n",
		       c, cs.transid, m.nr, maxlevel, cs.blocks_written, cs.blocks_pinned, cs.rounds);
		if (ret)
			break;
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
		if (c % 2 == 1) {
			btrfs_close_fs(fs);
			fs = open_fs(true);
			CHECK(fs != NULL);
			if (!fs)
				break;
			CHECK(compare_disk(fs, &m) == 0);
		}
	}
	printf("  %llu inserts, %llu batches, %llu deletes, %llu extends, %llu truncates\n",
	       st.inserts, st.batches, st.deletes, st.extends, st.truncates);
	CHECK(top_level >= min_top_level);
	if (fs)   /* a failed reopen was counted */
		check_walk_hook(fs);

	/* Drain: delete in random order down to a few items, then all; the root shrinks. */
	for (int phase = 0; phase < 2 && fs; phase++) {
		size_t keep = phase ? 0 : 5;

		ret = btrfs_start_transaction(fs, &t);
		CHECK(ret == 0);
		if (ret)
			break;
		ret = btrfs_trans_get_root(t, TREE_ID, &root);
		while (ret == 0 && m.nr > keep) {
			size_t at = rnd_below(m.nr);

			ret = btrfs_delete_item(t, root, &m.items[at].key);
			if (ret == 0)
				model_delete(&m, at);
		}
		CHECK(ret == 0);
		CHECK(compare_trans(t, root, &m) == 0);
		CHECK(btrfs_trans_check_dirty_blocks(t) == 0);
		printf("  drained to %zu items: root level %u\n", m.nr, ret == 0 ? root->level : 99);
		CHECK(ret == 0 && root->level <= (keep ? 1 : 0));
		CHECK(btrfs_commit_transaction(t) == 0);
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
	}
	/* And fill again from empty, one commit. */
	if (fs && btrfs_start_transaction(fs, &t) == 0) {
		ret = btrfs_trans_get_root(t, TREE_ID, &root);
		for (i = 0; i < ops_per_commit && ret == 0; i++)
			ret = random_op(t, root, &m, maxitem, &st);
		CHECK(ret == 0);
		CHECK(btrfs_commit_transaction(t) == 0);
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
	}

	/* Abort: nothing changes. */
	if (fs && btrfs_start_transaction(fs, &t) == 0) {
		u64 gen = btrfs_super_generation(fs->super);
		struct model scratch = { 0 };

		for (i = 0; (size_t)i < m.nr && i < 64; i++)
			model_insert(&scratch, &m.items[i].key, m.items[i].data, m.items[i].size);
		ret = btrfs_trans_get_root(t, TREE_ID, &root);
		CHECK(ret == 0);
		for (i = 0; i < 300 && ret == 0; i++)
			random_op(t, root, &scratch, maxitem, &st);
		check_one_search(fs, t, root);
		btrfs_abort_transaction(t);
		model_free(&scratch);
		btrfs_close_fs(fs);
		fs = open_fs(true);
		CHECK(fs && btrfs_super_generation(fs->super) == gen);
		CHECK(fs && compare_disk(fs, &m) == 0);
	}
	/* A commit failing before the superblock: the old generation stays valid. */
	if (fs && btrfs_start_transaction(fs, &t) == 0) {
		u64 gen = btrfs_super_generation(fs->super);
		struct model scratch = { 0 };

		for (i = 0; (size_t)i < m.nr; i++)
			model_insert(&scratch, &m.items[i].key, m.items[i].data, m.items[i].size);
		ret = btrfs_trans_get_root(t, TREE_ID, &root);
		CHECK(ret == 0);
		for (i = 0; i < 2000 && ret == 0; i++)
			random_op(t, root, &scratch, maxitem, &st);
		btrfs_trans_fail_before_super(t, true);
		CHECK(btrfs_commit_transaction(t) == -EIO);
		model_free(&scratch);
		btrfs_close_fs(fs);
		fs = open_fs(false);
		CHECK(fs && btrfs_super_generation(fs->super) == gen);
		CHECK(fs && compare_disk(fs, &m) == 0);
		CHECK(fs && check_fs_consistency(fs) == 0);
	}
	btrfs_close_fs(fs);
	model_free(&m);
	unlink(img);
}

/* A data extent item added and removed by the caller, accounted through the engine. */
static int data_extent(struct btrfs_trans *t, u64 bytenr, u64 len, bool add)
{
	u8 buf[sizeof(struct btrfs_extent_item) + 1 + sizeof(struct btrfs_extent_data_ref)];
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)buf;
	struct btrfs_extent_data_ref *dr = (struct btrfs_extent_data_ref *)(buf + sizeof(*ei) + 1);
	struct btrfs_key key = { bytenr, BTRFS_EXTENT_ITEM_KEY, len };
	struct btrfs_wroot *extent;
	int ret;

	ret = btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &extent);
	if (ret)
		return ret;
	if (!add) {
		ret = btrfs_delete_item(t, extent, &key);
		return ret ? ret : btrfs_account_extent(t, bytenr, len, false);
	}
	memset(buf, 0, sizeof(buf));
	btrfs_set_extent_refs(ei, 1);
	btrfs_set_extent_generation(ei, btrfs_trans_transid(t));
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	buf[sizeof(*ei)] = BTRFS_EXTENT_DATA_REF_KEY;
	btrfs_set_extent_data_ref_root(dr, BTRFS_FS_TREE_OBJECTID);
	btrfs_set_extent_data_ref_objectid(dr, 257);
	btrfs_set_extent_data_ref_offset(dr, bytenr);
	btrfs_set_extent_data_ref_count(dr, 1);
	ret = btrfs_insert_item(t, extent, &key, buf, sizeof(buf));
	return ret ? ret : btrfs_account_extent(t, bytenr, len, true);
}

static const struct btrfs_chunk_map *data_chunk(struct btrfs_fs_info *fs)
{
	for (size_t c = 0; c < fs->chunks.nr; c++)
		if (fs->chunks.chunks[c]->type & BTRFS_BLOCK_GROUP_DATA)
			return fs->chunks.chunks[c];
	return NULL;
}

/* Data accounting, free space tree rebuild (and creation), tree reset. */
static void run_repair_apis(const char *mkfs_opts)
{
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct model m = { 0 };
	struct stats st = { 0 };
	const struct btrfs_chunk_map *dc;
	u64 ro;
	u32 maxitem;
	int i;

	fs = fresh_fs(mkfs_opts, &maxitem);
	if (!fs)
		return;
	dc = data_chunk(fs);
	CHECK(dc != NULL);
	/* three data extents and some tree work */
	CHECK(btrfs_start_transaction(fs, &t) == 0);
	CHECK(btrfs_create_tree(t, TREE_ID, &root) == 0);
	for (i = 0; i < 3000; i++)
		CHECK(random_op(t, root, &m, maxitem, &st) == 0);
	CHECK(data_extent(t, dc->logical, SZ_1M, true) == 0);
	CHECK(data_extent(t, dc->logical + 2 * SZ_1M, SZ_64K, true) == 0);
	CHECK(data_extent(t, dc->logical + 3 * SZ_1M, SZ_4K, true) == 0);
	CHECK(btrfs_account_extent(t, dc->logical + dc->length - 4096, 8192, true) == -EINVAL);
	CHECK(btrfs_commit_transaction(t) == 0);
	CHECK(check_fs_consistency(fs) == 0);
	/* one removed, the free space tree rebuilt in the same commit */
	CHECK(btrfs_start_transaction(fs, &t) == 0);
	CHECK(data_extent(t, dc->logical + 2 * SZ_1M, SZ_64K, false) == 0);
	CHECK(btrfs_trans_get_root(t, TREE_ID, &root) == 0);
	for (i = 0; i < 2000; i++)
		CHECK(random_op(t, root, &m, maxitem, &st) == 0);
	btrfs_trans_rebuild_free_space_tree(t);
	CHECK(btrfs_commit_transaction(t) == 0);
	ro = btrfs_super_compat_ro_flags(fs->super);
	CHECK((ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) &&
	      (ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID));
	CHECK(compare_disk(fs, &m) == 0);
	CHECK(check_fs_consistency(fs) == 0);
	/* the free space tree now in use by later commits */
	btrfs_close_fs(fs);
	fs = open_fs(true);
	CHECK(fs && btrfs_start_transaction(fs, &t) == 0);
	if (fs) {
		dc = data_chunk(fs);
		CHECK(btrfs_trans_get_root(t, TREE_ID, &root) == 0);
		for (i = 0; i < 2000; i++)
			CHECK(random_op(t, root, &m, maxitem, &st) == 0);
		CHECK(data_extent(t, dc->logical + 2 * SZ_1M, SZ_64K, true) == 0);
		CHECK(btrfs_commit_transaction(t) == 0);
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
	}
	/* reset: every block freed, one empty leaf */
	if (fs && btrfs_start_transaction(fs, &t) == 0) {
		CHECK(btrfs_trans_get_root(t, TREE_ID, &root) == 0);
		CHECK(btrfs_reset_tree(t, root) == 0);
		CHECK(root->level == 0);
		CHECK(btrfs_commit_transaction(t) == 0);
		model_free(&m);
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
		CHECK(btrfs_start_transaction(fs, &t) == 0);
		CHECK(btrfs_trans_get_root(t, BTRFS_EXTENT_TREE_OBJECTID, &root) == 0);
		CHECK(btrfs_reset_tree(t, root) == -EOPNOTSUPP);
		btrfs_abort_transaction(t);
	}
	btrfs_close_fs(fs);
	model_free(&m);
	unlink(img);
}

static void test_repair_apis(void)
{
	run_repair_apis("-n 4096");
}

static void test_repair_apis_create_fst(void)
{
	run_repair_apis("-n 4096 -O ^free-space-tree,^block-group-tree");
}

static int count_chunks(const struct btrfs_fs_info *fs, u64 type)
{
	int n = 0;

	for (size_t c = 0; c < fs->chunks.nr; c++)
		if (fs->chunks.chunks[c]->type & type)
			n++;
	return n;
}

/*
 * Beyond the first chunks (512 MiB image, 4 KiB nodes): items of half a
 * leaf until the metadata block groups are full several times over, data
 * extents until a new data chunk is made, one of them freed again; every
 * invariant after each commit and after reopening.  A transaction that
 * made a chunk and aborts leaves the chunk map as it was.
 */
static void test_new_chunks(void)
{
	struct model m = { 0 };
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	u64 next = 1, data[2] = { 0, 0 };
	int meta0, data0, ret = 0;
	size_t nr_chunks;
	u32 maxitem;
	u8 *buf;

	fs = fresh_fs_buf("-n 4096", &maxitem, &buf);
	if (!fs)
		return;
	meta0 = count_chunks(fs, BTRFS_BLOCK_GROUP_METADATA);
	data0 = count_chunks(fs, BTRFS_BLOCK_GROUP_DATA);
	for (int c = 0; c < 5 && ret == 0; c++) {
		ret = btrfs_start_transaction(fs, &t);
		CHECK(ret == 0);
		if (ret)
			break;
		ret = c ? btrfs_trans_get_root(t, TREE_ID, &root) : btrfs_create_tree(t, TREE_ID, &root);
		for (int i = 0; i < 5000 && ret == 0; i++) {
			struct btrfs_key key = { next++, ITYPE, 0 };
			u32 size = maxitem / 2 + 1;

			fill(buf, size);
			ret = btrfs_insert_item(t, root, &key, buf, size);
			if (ret == 0)
				model_insert(&m, &key, buf, size);
		}
		/* the mkfs data chunk is 8 MiB: the second extent needs a new one */
		if (ret == 0 && c == 3) {
			ret = btrfs_alloc_data_extent(t, 6 * SZ_1M, TREE_ID, 300, 0, &data[0]);
			if (ret == 0)
				ret = btrfs_alloc_data_extent(t, 6 * SZ_1M, TREE_ID, 301, 0, &data[1]);
		}
		if (ret == 0 && c == 4)
			ret = btrfs_free_data_extent(t, data[0], 6 * SZ_1M);
		CHECK(ret == 0);
		if (ret) {
			btrfs_abort_transaction(t);
			break;
		}
		ret = btrfs_commit_transaction(t);
		CHECK(ret == 0);
		CHECK(compare_disk(fs, &m) == 0);
		CHECK(check_fs_consistency(fs) == 0);
	}
	printf("  metadata chunks %d -> %d, data chunks %d -> %d\n", meta0,
	       count_chunks(fs, BTRFS_BLOCK_GROUP_METADATA), data0,
	       count_chunks(fs, BTRFS_BLOCK_GROUP_DATA));
	CHECK(count_chunks(fs, BTRFS_BLOCK_GROUP_METADATA) >= meta0 + 2);
	CHECK(count_chunks(fs, BTRFS_BLOCK_GROUP_DATA) == data0 + 1);
	CHECK(data[1] && !btrfs_chunk_lookup(&fs->chunks, data[0]) ==
			 !btrfs_chunk_lookup(&fs->chunks, data[1]));

	btrfs_close_fs(fs);
	fs = open_fs(true);
	CHECK(fs && compare_disk(fs, &m) == 0);
	CHECK(fs && check_fs_consistency(fs) == 0);
	if (fs) {
		u64 bytenr;

		nr_chunks = fs->chunks.nr;
		ret = btrfs_start_transaction(fs, &t);
		CHECK(ret == 0);
		if (ret == 0) {
			/* more than any data block group has: a new chunk, then dropped */
			CHECK(btrfs_alloc_data_extent(t, 60 * SZ_1M, TREE_ID, 302, 0, &bytenr) == 0);
			CHECK(fs->chunks.nr == nr_chunks + 1);
			btrfs_abort_transaction(t);
			CHECK(fs->chunks.nr == nr_chunks);
		}
		CHECK(check_fs_consistency(fs) == 0);
	}
	btrfs_close_fs(fs);
	free(buf);
	model_free(&m);
	unlink(img);
}

/*
 * The chunk tree outgrows the SYSTEM block group (items of half a leaf
 * added to it, 4 KiB nodes): a new system chunk, in the superblock's
 * sys_chunk_array too (reopening reads the chunk tree through it); the
 * items deleted again; every invariant after each commit and reopen.
 */
static void test_new_system_chunk(void)
{
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *chunk;
	u32 maxitem, array0;
	int sys0, ret = 0;
	u8 *buf;

	fs = fresh_fs_buf("-n 4096", &maxitem, &buf);
	if (!fs)
		return;
	sys0 = count_chunks(fs, BTRFS_BLOCK_GROUP_SYSTEM);
	array0 = btrfs_super_sys_array_size(fs->super);
	for (int phase = 0; phase < 2 && fs; phase++) {
		ret = btrfs_start_transaction(fs, &t);
		CHECK(ret == 0);
		if (ret)
			break;
		ret = btrfs_trans_get_root(t, BTRFS_CHUNK_TREE_OBJECTID, &chunk);
		for (u64 i = 0; i < 2500 && ret == 0; i++) {
			struct btrfs_key key = { 1000 + i, ITYPE, 0 };

			fill(buf, maxitem / 2 + 1);
			ret = phase ? btrfs_delete_item(t, chunk, &key) :
				      btrfs_insert_item(t, chunk, &key, buf, maxitem / 2 + 1);
		}
		CHECK(ret == 0);
		if (ret) {
			btrfs_abort_transaction(t);
			break;
		}
		CHECK(btrfs_commit_transaction(t) == 0);
		CHECK(check_fs_consistency(fs) == 0);
		btrfs_close_fs(fs);
		fs = open_fs(true);
		CHECK(fs && check_fs_consistency(fs) == 0);
	}
	if (fs) {
		printf("  system chunks %d -> %d, sys_chunk_array %u -> %u bytes\n", sys0,
		       count_chunks(fs, BTRFS_BLOCK_GROUP_SYSTEM), array0,
		       btrfs_super_sys_array_size(fs->super));
		CHECK(count_chunks(fs, BTRFS_BLOCK_GROUP_SYSTEM) > sys0);
		CHECK(btrfs_super_sys_array_size(fs->super) > array0);
	}
	btrfs_close_fs(fs);
	free(buf);
	unlink(img);
}

/* Reopened read-only: generation gen, the root tree block of it, every invariant. */
static void check_committed_gen(u64 gen, const char *label)
{
	struct tree_check expect = { BTRFS_ROOT_TREE_OBJECTID, -1, 0, NULL };
	struct btrfs_fs_info *fs = open_fs(false);
	struct extent_buffer *eb = NULL;

	CHECK(fs != NULL);
	if (!fs)
		return;
	CHECK_EQ_U64(btrfs_super_generation(fs->super), gen);
	CHECK(strncmp(fs->super->label, label, BTRFS_LABEL_SIZE) == 0);
	CHECK(btrfs_read_tree_block(fs, fs->tree_root.bytenr, &expect, &eb) == 0);
	if (eb)
		CHECK_EQ_U64(btrfs_header_generation(btrfs_header(eb)), gen);
	free_extent_buffer(eb);
	CHECK(check_fs_consistency(fs) == 0);
	btrfs_close_fs(fs);
}

/*
 * Commits that change nothing but the superblock (its label), or nothing at
 * all, on a root tree of one leaf and on one of two levels (16 KiB nodes,
 * 60 more trees): each writes a root tree block of the new generation, so
 * the filesystem reopens at it with every invariant.
 */
static void test_super_only_commit(void)
{
	struct btrfs_commit_stats st;
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	const char *label = "";
	u64 gen = 0;
	u32 maxitem;

	fs = fresh_fs("", &maxitem);
	for (int pass = 0; pass < 4 && fs; pass++) {
		int ret;

		if (pass == 2 && btrfs_start_transaction(fs, &t) == 0) {
			ret = 0;
			for (u64 id = 0; id < 60 && ret == 0; id++)
				ret = btrfs_create_tree(t, TREE_ID + id, &root);
			CHECK(ret == 0);
			CHECK(btrfs_commit_transaction(t) == 0);
		}
		CHECK(btrfs_start_transaction(fs, &t) == 0);
		gen = btrfs_super_generation(fs->super) + 1;
		if (pass & 1) {
			label = pass == 1 ? "one" : "super-only";
			memset(fs->super->label, 0, BTRFS_LABEL_SIZE);
			memcpy(fs->super->label, label, strlen(label));
		}
		CHECK(btrfs_commit_transaction_stats(t, &st) == 0);
		printf("  pass %d: root tree level %u, generation %llu, %llu blocks written\n", pass,
		       fs->tree_root.level, gen, st.blocks_written);
		CHECK(st.blocks_written > 0);
		btrfs_close_fs(fs);
		check_committed_gen(gen, label);
		fs = open_fs(true);
		CHECK(fs != NULL);
		CHECK(fs && (pass < 2) == (fs->tree_root.level == 0));
	}
	btrfs_close_fs(fs);
	unlink(img);
}

static void test_nodesize_4k(void)
{
	run_random("-n 4096", 6, 5000, 2);
}

static void test_defaults_16k(void)
{
	run_random("", 4, 6000, 2);
}

static void test_no_fst_no_bgt_nonskinny(void)
{
	run_random("-n 4096 -O ^free-space-tree,^block-group-tree,^skinny-metadata", 3, 4000, 2);
}

int main(void)
{
	const char *seed = getenv("SEED");

	if (seed)
		rng_state = strtoull(seed, NULL, 0) | 1;
	printf("seed 0x%llx\n", (unsigned long long)rng_state);
	RUN(test_nodesize_4k);
	RUN(test_defaults_16k);
	RUN(test_no_fst_no_bgt_nonskinny);
	RUN(test_repair_apis);
	RUN(test_repair_apis_create_fst);
	RUN(test_new_chunks);
	RUN(test_new_system_chunk);
	RUN(test_super_only_commit);
	return unit_done();
}

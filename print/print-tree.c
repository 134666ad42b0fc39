// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block printer, core: block headers, node key pointers, the leaf item loop and tree traversal, each
 * written once through an emitter (emit.h) for the text and the JSON.  The
 * item bodies are emitted by print-fs-items.c (inodes, directories, file
 * extents, roots) and print-extent-items.c (extents, block groups, chunks,
 * devices, qgroups and the rest); names of objectids, key types, keys and
 * flags by print-names.c.  The text matches btrfs-progs'
 * dump-tree line for line.
 */
#include <stdio.h>
#include <string.h>
#include "print/print-tree.h"
#include "print/print-tree-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/format/messages.h"

void btrfs_print_opts_init(struct btrfs_print_opts *opts, const struct btrfs_fs_geometry *geo)
{
	opts->nodesize = geo->nodesize;
	opts->sectorsize = geo->sectorsize;
	opts->csum_type = geo->csum_type;
	opts->csum_size = geo->csum_size;
}

/* ---- Blocks: header, key pointers, items --------------------------------- */

static void emit_header(struct emitter *e, const struct btrfs_print_opts *opts,
			const struct extent_buffer *eb, long long free_space)
{
	const struct btrfs_header *h = (const struct btrfs_header *)eb->data;
	bool leaf = btrfs_header_level(h) == 0;
	const char *what = leaf ? "leaf" : "node";
	u64 bytenr = btrfs_header_bytenr(h);
	u64 flags = btrfs_header_flags(h);

	emit_textf(e, "%s", what);
	emit_u64(e, "bytenr", " ", bytenr);
	emit_u64(e, "level", leaf ? NULL : " level ", btrfs_header_level(h));
	emit_u64(e, "nritems", " items ", btrfs_header_nritems(h));
	emit_textf(e, " free space %lld", free_space);
	emit_u64(e, "generation", " generation ", btrfs_header_generation(h));
	emit_objectid(e, "owner", " owner ", btrfs_header_owner(h), 0);
	/* the backref revision is a field of its own, not a flag, in the text and the JSON */
	flags &= ~BTRFS_BACKREF_REV_MASK;
	emit_textf(e, "\n%s %llu flags 0x%llx(", what, (unsigned long long)bytenr,
		   (unsigned long long)flags);
	emit_flags(e, "flags", "", flags, &btrfs_header_flags_table);
	emit_u64(e, "backref_rev", ") backref revision ", btrfs_header_backref_rev(h));
	if (opts->csum_headers)
		emit_hex(e, "csum", " csum ", h->csum, min_t(u32, opts->csum_size, BTRFS_CSUM_SIZE));
	emit_uuid(e, "fsid", "\nfs uuid ", h->fsid);
	emit_uuid(e, "chunk_tree_uuid", "\nchunk uuid ", h->chunk_tree_uuid);
	emit_eol(e);
}

static u32 block_len(const struct btrfs_print_opts *opts, const struct extent_buffer *eb)
{
	u32 len = eb->len;

	if (opts->nodesize && opts->nodesize < len)
		len = opts->nodesize;
	return len;
}

static void emit_node(struct emitter *e, const struct btrfs_print_opts *opts,
		      const struct extent_buffer *eb)
{
	const struct btrfs_header *h = (const struct btrfs_header *)eb->data;
	u32 len = block_len(opts, eb);
	u32 nr = btrfs_header_nritems(h);
	u32 max = (len - sizeof(*h)) / sizeof(struct btrfs_key_ptr);
	u32 i;

	emit_header(e, opts, eb, (long long)max - nr);
	if (nr > max) {
		error("node %llu: nritems %u exceeds the maximum %u, printing %u",
		      (unsigned long long)eb->start, nr, max, max);
		nr = max;
	}
	emit_begin_array(e, "ptrs");
	for (i = 0; i < nr; i++) {
		const struct btrfs_key_ptr *kp = (const struct btrfs_key_ptr *)
			(eb->data + sizeof(*h) + (size_t)i * sizeof(*kp));

		emit_begin_object(e, NULL);
		emit_disk_key(e, "key", "\t", &kp->key);
		emit_u64(e, "blockptr", " block ", btrfs_key_blockptr(kp));
		emit_u64(e, "generation", " gen ", btrfs_key_generation(kp));
		emit_eol(e);
		emit_end_object(e);
	}
	emit_end_array(e);
}

/* An item's body: the text lines after its item line, or its JSON "data" (when decoded). */
static void emit_item_body(struct emitter *e, const struct print_item *it)
{
	emit_begin_lazy_object(e, "data");
	/* items of a type without a decoder (or empty by design) have no body */
	if (!emit_fs_item(e, it))
		emit_extent_family_item(e, it);
	emit_end_lazy_object(e);
}

static void emit_leaf(struct emitter *e, const struct btrfs_print_opts *opts,
		      const struct extent_buffer *eb)
{
	const struct btrfs_header *h = (const struct btrfs_header *)eb->data;
	u32 len = block_len(opts, eb);
	u32 data_size = len - sizeof(*h);
	u32 nr = btrfs_header_nritems(h);
	u32 max = data_size / sizeof(struct btrfs_item);
	long long free_space = data_size;
	u32 i;

	if (nr > 0 && nr <= max) {
		const struct btrfs_item *first = (const struct btrfs_item *)(eb->data + sizeof(*h));
		const struct btrfs_item *last = first + (nr - 1);

		free_space = (long long)data_size - (long long)nr * sizeof(struct btrfs_item) -
			((long long)btrfs_item_offset(first) + btrfs_item_size(first) -
			 (long long)btrfs_item_offset(last));
	} else if (nr > max) {
		free_space = (long long)data_size - (long long)nr * sizeof(struct btrfs_item);
	}
	emit_header(e, opts, eb, free_space);
	if (nr > max) {
		error("leaf %llu: nritems %u exceeds the maximum %u, printing %u",
		      (unsigned long long)eb->start, nr, max, max);
		nr = max;
	}

	emit_begin_array(e, "items");
	for (i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const struct btrfs_item *)
			(eb->data + sizeof(*h) + (size_t)i * sizeof(*item));
		u32 off = btrfs_item_offset(item);
		u32 size = btrfs_item_size(item);
		struct print_item it = {
			.opts = opts,
			.eb = eb,
			.slot = (int)i,
		};

		emit_begin_object(e, NULL);
		emit_textf(e, "\titem %u ", i);
		emit_disk_key(e, "key", "", &item->key);
		emit_u64(e, "offset", " itemoff ", off);
		emit_u64(e, "size", " itemsize ", size);
		emit_eol(e);
		if ((u64)off + size > data_size ||
		    (u64)off < (u64)(i + 1) * sizeof(struct btrfs_item)) {
			error("leaf %llu slot %u: item data [%u, %llu) outside the leaf data area",
			      (unsigned long long)eb->start, i, off, (unsigned long long)off + size);
		} else {
			it.key.objectid = btrfs_disk_key_objectid(&item->key);
			it.key.type = btrfs_disk_key_type(&item->key);
			it.key.offset = btrfs_disk_key_offset(&item->key);
			it.data = eb->data + sizeof(*h) + off;
			it.size = size;
			emit_item_body(e, &it);
		}
		emit_end_object(e);
	}
	emit_end_array(e);
}

void emit_block(struct emitter *e, const struct btrfs_print_opts *opts,
		const struct extent_buffer *eb)
{
	e->hide_names = opts->hide_names;
	emit_begin_object(e, NULL);
	if (btrfs_eb_level(eb) == 0)
		emit_leaf(e, opts, eb);
	else
		emit_node(e, opts, eb);
	emit_end_object(e);
}

/*
 * Reads for printing, as btrfs-progs: checksum, header and tree-checker on
 * every mirror; a block that fails only the tree-checker everywhere is still
 * returned (the checker's message printed), so it prints what it holds.
 */
static const struct read_policy print_policy = { .on_failure = READ_CHECKER_SOFT };

int btrfs_print_read_block(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			   struct extent_buffer **out)
{
	return btrfs_read_tree_block_policy(fs, bytenr, expect, &print_policy, out);
}

/* ---- Traversal: kernel-shared/read's walker with the printing read policy ---------- */

struct print_walk {
	void (*block_fn)(const struct extent_buffer *eb, void *priv);   /* every block (or leaf) */
	btrfs_leaf_fn leaf_fn;      /* every leaf until it returns non-zero */
	void *priv;
	bool leaves_only;
};

static int print_walk_visit(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
			    int err, void *ctx)
{
	const struct print_walk *pw = ctx;

	(void)fs;
	(void)bytenr;
	/* a block that cannot be read: its message is printed, its subtree skipped */
	if (err < 0 || !eb)
		return 0;
	if (pw->leaf_fn)
		return btrfs_eb_level(eb) == 0 ? pw->leaf_fn(eb, pw->priv) : 0;
	if (!pw->leaves_only || btrfs_eb_level(eb) == 0)
		pw->block_fn(eb, pw->priv);
	return 0;
}

/*
 * Every pointer is followed (a block reached twice prints twice, as
 * btrfs-progs); children are read with their parent's promises but no owner.
 * Non-zero when a block could not be read.
 */
static int print_walk(struct btrfs_fs_info *fs, const struct extent_buffer *eb, bool dfs,
		      struct print_walk *pw)
{
	const struct btrfs_tree_ref any_owner = { .objectid = 0, .bytenr = eb->start };

	return btrfs_walk_block(fs, &any_owner, eb, dfs ? BTRFS_WALK_DFS : BTRFS_WALK_BFS,
				&print_policy, BTRFS_WALK_REVISIT, print_walk_visit, pw);
}

struct emit_walk {
	struct emitter *e;
	const struct btrfs_print_opts *opts;
};

static void emit_block_cb(const struct extent_buffer *eb, void *priv)
{
	struct emit_walk *ew = priv;

	emit_block(ew->e, ew->opts, eb);
}

int btrfs_emit_tree(struct btrfs_fs_info *fs, struct emitter *e, const struct btrfs_print_opts *opts,
		    const struct extent_buffer *eb, enum btrfs_emit_tree_what what)
{
	struct emit_walk ew = { .e = e, .opts = opts };
	struct print_walk pw = { .block_fn = emit_block_cb, .priv = &ew,
				 .leaves_only = what == EMIT_TREE_LEAVES };

	if (what == EMIT_TREE_BLOCK) {
		emit_block(e, opts, eb);
		return 0;
	}
	return print_walk(fs, eb, what == EMIT_TREE_LEAVES || opts->dfs, &pw);
}

int btrfs_walk_leaves(struct btrfs_fs_info *fs, const struct extent_buffer *eb,
		      btrfs_leaf_fn fn, void *priv)
{
	struct print_walk pw = { .leaf_fn = fn, .priv = priv };
	int ret = print_walk(fs, eb, true, &pw);

	return ret > 0 ? ret : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dump-tree --format json: the same trees, in the same order, as one JSON
 * document: the JSON-only frame (trees with their name, id and root key,
 * the filesystem's sizes and fsid) around the blocks, which the one
 * emitter per block and item writes (print-tree.c, emit.h).
 */
#include <stdio.h>
#include "print/print-tree-json.h"
#include "print/print-tree-internal.h"
#include "print/emit.h"
#include "lib/format/accessors.h"
#include "lib/format/messages.h"
#include "common/json-writer.h"

struct jctx {
	struct json_writer *w;
	const struct btrfs_print_opts *opts;
};

static void j_block(const struct extent_buffer *eb, void *priv)
{
	struct jctx *jc = priv;
	struct emitter e = emit_json_to(jc->w);

	emit_block(&e, jc->opts, eb);
}

struct jscan {
	struct btrfs_fs_info *fs;
	struct jctx *jc;
	u64 only;      /* 0 = every root item */
	const char *name;   /* of each tree found: "root item", "log tree" */
	int ret;
};

static void j_tree(struct jscan *js, const char *name, u64 id, const struct btrfs_disk_key *key,
		   const struct extent_buffer *eb)
{
	struct json_writer *w = js->jc->w;

	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_u64(w, "tree_id", id);
	if (key) {
		struct emitter e = emit_json_to(w);

		emit_disk_key(&e, "key", NULL, key);
	}
	json_begin_array(w, "blocks");
	if (btrfs_visit_tree(js->fs, eb, js->jc->opts->dfs, j_block, js->jc))
		js->ret = 1;
	json_end_array(w);
	json_end_object(w);
}

static int j_root_items(const struct extent_buffer *leaf, void *priv)
{
	struct jscan *js = priv;
	const struct btrfs_header *h = (const struct btrfs_header *)leaf->data;
	u32 data_size = leaf->len - sizeof(*h);
	u32 i, nr = min_t(u32, btrfs_header_nritems(h), data_size / sizeof(struct btrfs_item));

	for (i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const void *)(leaf->data + sizeof(*h) +
							       (size_t)i * sizeof(*item));
		u64 objectid = btrfs_disk_key_objectid(&item->key);
		u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
		const struct btrfs_root_item *ri;
		struct tree_check check = { .level = -1 };
		struct extent_buffer *eb;

		if (btrfs_disk_key_type(&item->key) != BTRFS_ROOT_ITEM_KEY ||
		    (u64)off + size > data_size || size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
			continue;
		if (js->only && objectid != js->only)
			continue;
		ri = (const void *)(leaf->data + sizeof(*h) + off);
		check.level = btrfs_root_level(ri);
		check.transid = btrfs_root_generation(ri);
		if (btrfs_print_read_block(js->fs, btrfs_root_bytenr(ri), &check, &eb)) {
			js->ret = 1;
			continue;
		}
		j_tree(js, js->name, objectid, &item->key, eb);
		free_extent_buffer(eb);
	}
	return 0;
}

int dump_tree_json(struct btrfs_fs_info *fs, const struct btrfs_print_opts *opts,
		   const u64 *trees, int ntrees, const u64 *blocks, int nblocks, bool follow)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	struct json_writer w;
	struct jctx jc = { .w = &w, .opts = opts };
	struct jscan js = { .fs = fs, .jc = &jc, .name = "root item" };
	struct extent_buffer *root = NULL, *chunk = NULL, *log = NULL;
	struct tree_check rc = { .owner = BTRFS_ROOT_TREE_OBJECTID, .level = btrfs_super_root_level(sb),
				 .transid = btrfs_super_generation(sb) };
	struct tree_check cc = { .owner = BTRFS_CHUNK_TREE_OBJECTID,
				 .level = btrfs_super_chunk_root_level(sb),
				 .transid = btrfs_super_chunk_root_generation(sb) };
	int i;

	json_init(&w, stdout);
	json_begin_object(&w, NULL);
	if (nblocks) {
		json_begin_array(&w, "blocks");
		for (i = 0; i < nblocks; i++) {
			struct tree_check any = { .level = -1 };
			struct extent_buffer *eb;

			if (btrfs_print_read_block(fs, blocks[i], &any, &eb)) {
				js.ret = 1;
				continue;
			}
			if (follow) {
				if (btrfs_visit_tree(fs, eb, opts->dfs, j_block, &jc))
					js.ret = 1;
			} else {
				j_block(eb, &jc);
			}
			free_extent_buffer(eb);
		}
		json_end_array(&w);
		goto out;
	}
	if (btrfs_print_read_block(fs, btrfs_super_root(sb), &rc, &root)) {
		root = NULL;
		js.ret = 1;
	}
	if (btrfs_print_read_block(fs, btrfs_super_chunk_root(sb), &cc, &chunk)) {
		chunk = NULL;
		js.ret = 1;
	}
	if (btrfs_super_log_root(sb)) {
		struct tree_check lc = { .owner = BTRFS_TREE_LOG_OBJECTID,
					 .level = btrfs_super_log_root_level(sb) };

		if (btrfs_print_read_block(fs, btrfs_super_log_root(sb), &lc, &log)) {
			log = NULL;
			js.ret = 1;
		}
	}
	json_begin_array(&w, "trees");
	if (!ntrees) {
		/* The text order: root, chunk, log root tree, every root item, every log tree. */
		if (root)
			j_tree(&js, "root tree", BTRFS_ROOT_TREE_OBJECTID, NULL, root);
		if (chunk)
			j_tree(&js, "chunk tree", BTRFS_CHUNK_TREE_OBJECTID, NULL, chunk);
		if (log)
			j_tree(&js, "log root tree", BTRFS_TREE_LOG_OBJECTID, NULL, log);
		if (root)
			btrfs_walk_leaves(fs, root, j_root_items, &js);
		if (log) {
			js.name = "log tree";
			btrfs_walk_leaves(fs, log, j_root_items, &js);
			js.name = "root item";
		}
	}
	for (i = 0; i < ntrees; i++) {
		if (trees[i] == BTRFS_ROOT_TREE_OBJECTID) {
			if (root)
				j_tree(&js, "root tree", trees[i], NULL, root);
		} else if (trees[i] == BTRFS_CHUNK_TREE_OBJECTID) {
			if (chunk)
				j_tree(&js, "chunk tree", trees[i], NULL, chunk);
		} else if (root) {
			js.only = trees[i];
			btrfs_walk_leaves(fs, root, j_root_items, &js);
		}
	}
	json_end_array(&w);
	json_u64(&w, "total_bytes", btrfs_super_total_bytes(sb));
	json_u64(&w, "bytes_used", btrfs_super_bytes_used(sb));
	json_uuid(&w, "fsid", sb->fsid);
out:
	json_end_object(&w);
	if (json_finish(&w))
		js.ret = 1;
	if (root)
		free_extent_buffer(root);
	if (chunk)
		free_extent_buffer(chunk);
	if (log)
		free_extent_buffer(log);
	return js.ret;
}

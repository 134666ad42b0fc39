// SPDX-License-Identifier: GPL-2.0
/*
 * dump-tree's frame, once for both back ends (see dump-tree.h): the trees
 * in btrfs-progs' order, each a header then its blocks (print-tree.c's block
 * emitter), the backup roots and the totals.  Text-only pieces (the version
 * line, the headers of -e) and JSON-only ones (the document, a tree's id)
 * are the emitters' NULL label or name.
 */
#include <stdio.h>
#include "print/dump-tree.h"
#include "print/print-tree-internal.h"
#include "print/emit.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "common/json-writer.h"

struct dump_ctx {
	struct btrfs_fs_info *fs;
	const struct btrfs_dump_tree_args *args;
	const struct btrfs_print_opts *opts;
	struct emitter *e;
	u64 only_tree;          /* print root items of this tree only, 0 = by mode */
	int ret;
};

/* The word dump-tree prints before " tree key (...)" for a root item. */
static const char *tree_label(u64 objectid)
{
	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID: return "root";
	case BTRFS_EXTENT_TREE_OBJECTID: return "extent";
	case BTRFS_CHUNK_TREE_OBJECTID: return "chunk";
	case BTRFS_DEV_TREE_OBJECTID: return "device";
	case BTRFS_FS_TREE_OBJECTID: return "fs";
	case BTRFS_ROOT_TREE_DIR_OBJECTID: return "directory";
	case BTRFS_CSUM_TREE_OBJECTID: return "checksum";
	case BTRFS_ORPHAN_OBJECTID: return "orphan";
	case BTRFS_TREE_LOG_OBJECTID: return "log";
	case BTRFS_TREE_LOG_FIXUP_OBJECTID: return "log fixup";
	case BTRFS_TREE_RELOC_OBJECTID: return "reloc";
	case BTRFS_DATA_RELOC_TREE_OBJECTID: return "data reloc";
	case BTRFS_EXTENT_CSUM_OBJECTID: return "extent checksum";
	case BTRFS_QUOTA_TREE_OBJECTID: return "quota";
	case BTRFS_UUID_TREE_OBJECTID: return "uuid";
	case BTRFS_FREE_SPACE_TREE_OBJECTID: return "free space";
	case BTRFS_MULTIPLE_OBJECTIDS: return "multiple";
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID: return "block group";
	case BTRFS_RAID_STRIPE_TREE_OBJECTID: return "raid stripe";
	}
	return "file";
}

static int read_root(struct btrfs_fs_info *fs, u64 bytenr, int level, u64 gen, u64 owner,
		     struct extent_buffer **eb)
{
	struct tree_check check = {
		.owner = owner,
		.level = level,
		.transid = gen,
		.first_key = NULL,
	};

	return btrfs_print_read_block(fs, bytenr, &check, eb);
}

/* Whether the root item of tree objectid is printed in this mode. */
static bool want_tree(const struct dump_ctx *dc, u64 objectid)
{
	const struct btrfs_dump_tree_args *a = dc->args;

	if (dc->only_tree)
		return objectid == dc->only_tree;
	if (a->uuid_only)
		return objectid == BTRFS_UUID_TREE_OBJECTID;
	if (a->device_only)
		return objectid == BTRFS_DEV_TREE_OBJECTID;
	if (a->extent_only)
		return objectid == BTRFS_EXTENT_TREE_OBJECTID || objectid == BTRFS_DEV_TREE_OBJECTID;
	return true;
}

/*
 * One tree: "NAME" (a tree of the superblock, or -t block-group) or "NAME
 * key (...) " (a root item) then its blocks, or with -r the line "NAME:
 * BYTENR level L" / "NAME key (...) BYTENR level L"; with -e (root items)
 * "NAME key (...)" without the trailing space, then only the leaves.
 * JSON: {name, tree_id, key, blocks} or {..., bytenr, level}.
 */
static void emit_tree(struct dump_ctx *dc, const char *name, u64 id, const struct btrfs_disk_key *key,
		      const struct extent_buffer *eb)
{
	struct emitter *e = dc->e;
	bool leaves = key && dc->args->extent_only && !dc->only_tree;
	const char *sep = key ? " " : ": ";

	emit_begin_object(e, NULL);
	emit_string(e, "name", "", name);
	emit_u64(e, "tree_id", NULL, id);
	if (key)
		emit_disk_key(e, "key", " ", key);
	if (leaves)
		emit_eol(e);
	if (dc->args->roots_only && !leaves) {
		emit_u64(e, "bytenr", sep, eb->start);
		emit_u64(e, "level", " level ", btrfs_eb_level(eb));
		emit_eol(e);
	} else {
		if (!leaves)
			emit_textf(e, key ? " \n" : "\n");
		emit_begin_array(e, "blocks");
		if (btrfs_emit_tree(dc->fs, e, dc->opts, eb, leaves ? EMIT_TREE_LEAVES : EMIT_TREE_ALL))
			dc->ret = 1;
		emit_end_array(e);
	}
	emit_end_object(e);
}

static int dump_root_items(const struct extent_buffer *leaf, void *priv)
{
	struct dump_ctx *dc = priv;
	const struct btrfs_header *h = (const struct btrfs_header *)leaf->data;
	u32 data_size = leaf->len - sizeof(*h);
	u32 i, nr = btrfs_header_nritems(h);

	if (nr > data_size / sizeof(struct btrfs_item))
		nr = data_size / sizeof(struct btrfs_item);
	for (i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const struct btrfs_item *)
			(leaf->data + sizeof(*h) + (size_t)i * sizeof(*item));
		const struct btrfs_root_item *ri;
		struct extent_buffer *eb;
		u64 objectid = btrfs_disk_key_objectid(&item->key);
		u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
		char name[32];

		if (btrfs_disk_key_type(&item->key) != BTRFS_ROOT_ITEM_KEY)
			continue;
		if ((u64)off + size > data_size || size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
			continue;
		if (!want_tree(dc, objectid))
			continue;
		ri = (const struct btrfs_root_item *)(leaf->data + sizeof(*h) + off);
		if (read_root(dc->fs, btrfs_root_bytenr(ri), btrfs_root_level(ri),
			      btrfs_root_generation(ri), 0, &eb)) {
			dc->ret = 1;
			continue;
		}
		snprintf(name, sizeof(name), "%s tree", tree_label(objectid));
		/* -t block-group: as a tree of its own, by name only (btrfs-progs) */
		emit_tree(dc, name, objectid, dc->only_tree == BTRFS_BLOCK_GROUP_TREE_OBJECTID ? NULL : &item->key,
			  eb);
		free_extent_buffer(eb);
	}
	return 0;
}

static void scan_root_tree(struct dump_ctx *dc, const struct extent_buffer *root)
{
	if (root)
		btrfs_walk_leaves(dc->fs, root, dump_root_items, dc);
}

/* A tree the superblock points to, under its fixed name. */
static void emit_named_root(struct dump_ctx *dc, const char *name, u64 id, const struct extent_buffer *eb)
{
	if (eb)
		emit_tree(dc, name, id, NULL, eb);
}

/* The roots of a backup slot in the text's order: JSON names, text label, accessors. */
static const struct {
	const char *gen_name, *name, *label;
	u64 (*gen)(const struct btrfs_root_backup *b);
	u64 (*bytenr)(const struct btrfs_root_backup *b);
} backup_roots[] = {
	{ "tree_root_gen", "tree_root", "\ttree root gen ",
	  btrfs_backup_tree_root_gen, btrfs_backup_tree_root },
	{ "extent_root_gen", "extent_root", "\t\textent root gen ",
	  btrfs_backup_extent_root_gen, btrfs_backup_extent_root },
	{ "chunk_root_gen", "chunk_root", "\t\tchunk root gen ",
	  btrfs_backup_chunk_root_gen, btrfs_backup_chunk_root },
	{ "dev_root_gen", "dev_root", "\t\tdevice root gen ",
	  btrfs_backup_dev_root_gen, btrfs_backup_dev_root },
	{ "csum_root_gen", "csum_root", "\t\tcsum root gen ",
	  btrfs_backup_csum_root_gen, btrfs_backup_csum_root },
	{ "fs_root_gen", "fs_root", "\t\tfs root gen ",
	  btrfs_backup_fs_root_gen, btrfs_backup_fs_root },
};

/* "btrfs root backup slot N" and its roots (-R); JSON: "backup_roots", one object a slot. */
static void emit_backup_roots(struct emitter *e, const struct btrfs_super_block *sb)
{
	emit_begin_array(e, "backup_roots");
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		emit_begin_object(e, NULL);
		emit_u64(e, "slot", "btrfs root backup slot ", (u64)i);
		emit_eol(e);
		for (size_t r = 0; r < ARRAY_SIZE(backup_roots); r++) {
			emit_u64(e, backup_roots[r].gen_name, backup_roots[r].label, backup_roots[r].gen(b));
			emit_u64(e, backup_roots[r].name, " block ", backup_roots[r].bytenr(b));
			emit_eol(e);
		}
		emit_u64(e, "bytes_used", "\t\t", btrfs_backup_bytes_used(b));
		emit_u64(e, "total_bytes", " used ", btrfs_backup_total_bytes(b));
		emit_u64(e, "num_devices", " total ", btrfs_backup_num_devices(b));
		emit_textf(e, " devices\n");
		emit_end_object(e);
	}
	emit_end_array(e);
}

/* -b: each block (and with --follow every block below it). */
static void dump_blocks(struct dump_ctx *dc)
{
	const struct btrfs_dump_tree_args *a = dc->args;

	emit_begin_array(dc->e, "blocks");
	for (int i = 0; i < a->nblocks; i++) {
		struct tree_check check = { .owner = 0, .level = -1, .transid = 0, .first_key = NULL };
		struct extent_buffer *eb;

		if (btrfs_print_read_block(dc->fs, a->blocks[i], &check, &eb)) {
			error("failed to read tree block %llu", (unsigned long long)a->blocks[i]);
			dc->ret = 1;
			continue;
		}
		if (btrfs_emit_tree(dc->fs, dc->e, dc->opts, eb, a->follow ? EMIT_TREE_ALL : EMIT_TREE_BLOCK))
			dc->ret = 1;
		free_extent_buffer(eb);
	}
	emit_end_array(dc->e);
}

/* The trees of the mode or of -t, then (unless -e/-d/-u or only superblock trees) the totals. */
static void dump_trees(struct dump_ctx *dc)
{
	const struct btrfs_dump_tree_args *a = dc->args;
	const struct btrfs_super_block *sb = btrfs_fs_super(dc->fs);
	struct extent_buffer *root = NULL, *chunk = NULL, *log = NULL;
	struct emitter *e = dc->e;
	bool totals = true;

	if (read_root(dc->fs, btrfs_super_root(sb), btrfs_super_root_level(sb),
		      btrfs_super_generation(sb), BTRFS_ROOT_TREE_OBJECTID, &root)) {
		root = NULL;
		dc->ret = 1;
	}
	if (read_root(dc->fs, btrfs_super_chunk_root(sb), btrfs_super_chunk_root_level(sb),
		      btrfs_super_chunk_root_generation(sb), BTRFS_CHUNK_TREE_OBJECTID, &chunk)) {
		chunk = NULL;
		dc->ret = 1;
	}
	if (btrfs_super_log_root(sb) &&
	    read_root(dc->fs, btrfs_super_log_root(sb), btrfs_super_log_root_level(sb), 0,
		      BTRFS_TREE_LOG_OBJECTID, &log))
		log = NULL;

	emit_begin_array(e, "trees");
	if (a->ntrees) {
		totals = false;
		for (int i = 0; i < a->ntrees; i++) {
			u64 id = a->trees[i];

			if (id == BTRFS_ROOT_TREE_OBJECTID) {
				emit_named_root(dc, "root tree", id, root);
			} else if (id == BTRFS_CHUNK_TREE_OBJECTID) {
				emit_named_root(dc, "chunk tree", id, chunk);
			} else if (id == BTRFS_TREE_LOG_OBJECTID) {
				emit_named_root(dc, "log root tree", id, log);
			} else {
				totals = totals || id != BTRFS_BLOCK_GROUP_TREE_OBJECTID;
				dc->only_tree = id;
				scan_root_tree(dc, root);
				scan_root_tree(dc, log);
			}
		}
		dc->only_tree = 0;
	} else {
		/* -d prints them too (btrfs-progs) */
		if (!a->extent_only && !a->uuid_only) {
			emit_named_root(dc, "root tree", BTRFS_ROOT_TREE_OBJECTID, root);
			emit_named_root(dc, "chunk tree", BTRFS_CHUNK_TREE_OBJECTID, chunk);
			emit_named_root(dc, "log root tree", BTRFS_TREE_LOG_OBJECTID, log);
		}
		scan_root_tree(dc, root);
		scan_root_tree(dc, log);
		if (a->extent_only || a->device_only || a->uuid_only)
			totals = false;
	}
	emit_end_array(e);
	if (totals) {
		if (a->backups)
			emit_backup_roots(e, sb);
		emit_u64(e, "total_bytes", "total bytes ", btrfs_super_total_bytes(sb));
		emit_eol(e);
		emit_u64(e, "bytes_used", "bytes used ", btrfs_super_bytes_used(sb));
		emit_eol(e);
		emit_uuid(e, "fsid", "uuid ", sb->fsid);
		emit_eol(e);
	}
	if (root)
		free_extent_buffer(root);
	if (chunk)
		free_extent_buffer(chunk);
	if (log)
		free_extent_buffer(log);
}

int btrfs_dump_tree(struct btrfs_fs_info *fs, const struct btrfs_dump_tree_args *a,
		    const struct btrfs_print_opts *opts, bool json)
{
	struct json_writer w;
	struct emitter e = emit_text_to(stdout);
	struct dump_ctx dc = { .fs = fs, .args = a, .opts = opts, .e = &e };

	if (json) {
		json_init(&w, stdout);
		e = emit_json_to(&w);
	}
	emit_begin_object(&e, NULL);
	if (a->nblocks)
		dump_blocks(&dc);
	else
		dump_trees(&dc);
	emit_end_object(&e);
	if (json && json_finish(&w))
		dc.ret = 1;
	return dc.ret;
}

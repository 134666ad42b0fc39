// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs inspect-internal dump-tree: print tree blocks in the text form of
 * btrfs-progs, or as one JSON document with --format json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "cmds/commands.h"
#include "lib/read/ctree.h"
#include "lib/format/accessors.h"
#include "print/print-tree.h"
#include "print/print-tree-json.h"
#include "lib/format/messages.h"

static const char *const cmd_inspect_dump_tree_usage[] = {
	"btrfs inspect-internal dump-tree [options] <device> [<device> ..]",
	"Print the trees of a filesystem, block by block",
	"",
	"Prints the tree blocks of an unmounted filesystem (or image file) item by item,",
	"keys and flags by name; --format json gives the same as a JSON document.",
	"The output holds file and directory names: think of that before sharing it.",
	NULL
};

enum {
	OPT_FOLLOW = OPT_LONG_BASE,
	OPT_DFS,
	OPT_BFS,
	OPT_NOSCAN,
	OPT_HIDE_NAMES,
	OPT_CSUM_HEADERS,
	OPT_CSUM_ITEMS,
};

static const struct cli_values tree_values;

static const struct cli_option dump_tree_options[] = {
	OPT_FLAG('e', "extents", "print the extent and device trees only"),
	OPT_FLAG('d', "device", "print the root, chunk and device trees only"),
	OPT_FLAG('r', "roots", "print one line per tree root only"),
	OPT_FLAG('R', "backups", "as --roots, with the superblock's backup roots"),
	OPT_FLAG('u', "uuid", "print only the uuid tree"),
	OPT_ARG('b', "block", "BYTENR", "print info from the specified block only (repeatable)"),
	OPT_ARG_VALUES('t', "tree", "TREE", "print only tree with the given id or name (repeatable, in order)",
		       tree_values),
	OPT_FLAG(OPT_FOLLOW, "follow", "with -b, print all children blocks too"),
	OPT_FLAG(OPT_DFS, "dfs", "walk each tree depth first (children right after their parent)"),
	OPT_FLAG(OPT_BFS, "bfs", "breadth-first traversal of the trees (default)"),
	OPT_FLAG(OPT_NOSCAN, "noscan", "do not scan the devices for the filesystem members"),
	OPT_FLAG(OPT_HIDE_NAMES, "hide-names", "print HIDDEN instead of names and xattr values"),
	OPT_FLAG(OPT_CSUM_HEADERS, "csum-headers", "print the checksum of each tree block header"),
	OPT_FLAG(OPT_CSUM_ITEMS, "csum-items", "print the checksums stored in checksum items"),
	OPT_END(),
};

#define MAX_LIST 64

struct dump_tree_args {
	bool extent_only, device_only, roots_only, backups, uuid_only, follow;
	int nblocks, ntrees;
	u64 blocks[MAX_LIST];
	u64 trees[MAX_LIST];
};

/* Tree names accepted by -t, with or without a _tree suffix, '-' or '_'. */
static const struct {
	const char *name;
	u64 id;
} tree_names[] = {
	{ "root", BTRFS_ROOT_TREE_OBJECTID },
	{ "extent", BTRFS_EXTENT_TREE_OBJECTID },
	{ "chunk", BTRFS_CHUNK_TREE_OBJECTID },
	{ "dev", BTRFS_DEV_TREE_OBJECTID },
	{ "device", BTRFS_DEV_TREE_OBJECTID },
	{ "fs", BTRFS_FS_TREE_OBJECTID },
	{ "csum", BTRFS_CSUM_TREE_OBJECTID },
	{ "checksum", BTRFS_CSUM_TREE_OBJECTID },
	{ "quota", BTRFS_QUOTA_TREE_OBJECTID },
	{ "uuid", BTRFS_UUID_TREE_OBJECTID },
	{ "free_space", BTRFS_FREE_SPACE_TREE_OBJECTID },
	{ "block_group", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
	{ "raid_stripe", BTRFS_RAID_STRIPE_TREE_OBJECTID },
	{ "tree_log", BTRFS_TREE_LOG_OBJECTID },
	{ "log", BTRFS_TREE_LOG_OBJECTID },
	{ "tree_log_fixup", BTRFS_TREE_LOG_FIXUP_OBJECTID },
	{ "log_fixup", BTRFS_TREE_LOG_FIXUP_OBJECTID },
	{ "tree_reloc", BTRFS_TREE_RELOC_OBJECTID },
	{ "reloc", BTRFS_TREE_RELOC_OBJECTID },
	{ "data_reloc", BTRFS_DATA_RELOC_TREE_OBJECTID },
};

static const char *tree_name_at(size_t i, char buf[64])
{
	return i < ARRAY_SIZE(tree_names) ? tree_names[i].name : NULL;
}

static const struct cli_values tree_values = { .at = tree_name_at };

static int parse_tree_id(const char *arg, u64 *id)
{
	char buf[64];
	size_t i, len;
	const char *s = arg;

	if (!parse_u64(arg, id))
		return 0;
	len = strlen(arg);
	if (len >= sizeof(buf))
		return -EINVAL;
	for (i = 0; i <= len; i++)
		buf[i] = s[i] == '-' ? '_' : (char)tolower((unsigned char)s[i]);
	s = buf;
	if (!strncmp(s, "btrfs_", 6))
		s += 6;
	len = strlen(s);
	if (len > 5 && !strcmp(s + len - 5, "_tree"))
		buf[(s - buf) + len - 5] = 0;
	for (i = 0; i < ARRAY_SIZE(tree_names); i++) {
		if (!strcmp(s, tree_names[i].name)) {
			*id = tree_names[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

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

struct dump_ctx {
	struct btrfs_fs_info *fs;
	const struct dump_tree_args *args;
	const struct btrfs_print_opts *opts;
	u64 only_tree;          /* print root items of this tree only, 0 = by mode */
	int ret;
};

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
	const struct dump_tree_args *a = dc->args;

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
		if (dc->args->extent_only && !dc->only_tree) {
			if (btrfs_print_tree_leaves(dc->fs, dc->opts, eb))
				dc->ret = 1;
			free_extent_buffer(eb);
			continue;
		}
		printf("%s tree ", tree_label(objectid));
		btrfs_print_disk_key(stdout, &item->key);
		if (dc->args->roots_only) {
			printf(" %llu level %u\n", (unsigned long long)eb->start,
			       btrfs_header_level((const struct btrfs_header *)eb->data));
		} else {
			printf(" \n");
			if (btrfs_print_tree(dc->fs, dc->opts, eb, true))
				dc->ret = 1;
		}
		free_extent_buffer(eb);
	}
	return 0;
}

static void scan_root_tree(struct dump_ctx *dc, const struct extent_buffer *root)
{
	if (root)
		btrfs_walk_leaves(dc->fs, root, dump_root_items, dc);
}

/* Print "<label>\n" and the whole tree, or the roots-only line. */
static int print_named_root(struct dump_ctx *dc, const char *label, const struct extent_buffer *eb)
{
	if (dc->args->roots_only) {
		printf("%s: %llu level %u\n", label, (unsigned long long)eb->start,
		       btrfs_header_level((const struct btrfs_header *)eb->data));
		return 0;
	}
	printf("%s\n", label);
	return btrfs_print_tree(dc->fs, dc->opts, eb, true) ? 1 : 0;
}

static void print_totals(const struct btrfs_super_block *sb)
{
	char uuid[BTRFS_UUID_UNPARSED_SIZE];

	printf("total bytes %llu\n", (unsigned long long)btrfs_super_total_bytes(sb));
	printf("bytes used %llu\n", (unsigned long long)btrfs_super_bytes_used(sb));
	btrfs_uuid_to_str(sb->fsid, uuid);
	printf("uuid %s\n", uuid);
}

static int dump_blocks(struct btrfs_fs_info *fs, const struct dump_tree_args *a,
		       const struct btrfs_print_opts *opts)
{
	int i, ret = 0;

	for (i = 0; i < a->nblocks; i++) {
		struct tree_check check = { .owner = 0, .level = -1, .transid = 0, .first_key = NULL };
		struct extent_buffer *eb;

		if (btrfs_print_read_block(fs, a->blocks[i], &check, &eb)) {
			error("failed to read tree block %llu", (unsigned long long)a->blocks[i]);
			ret = 1;
			continue;
		}
		if (btrfs_print_tree(fs, opts, eb, a->follow))
			ret = 1;
		free_extent_buffer(eb);
	}
	return ret;
}

static int dump_text(struct btrfs_fs_info *fs, const struct dump_tree_args *a,
		     const struct btrfs_print_opts *opts)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	struct extent_buffer *root = NULL, *chunk = NULL, *log = NULL;
	struct dump_ctx dc = { .fs = fs, .args = a, .opts = opts };
	bool totals = true;
	int i;

	if (a->nblocks)
		return dump_blocks(fs, a, opts);

	if (read_root(fs, btrfs_super_root(sb), btrfs_super_root_level(sb),
		      btrfs_super_generation(sb), BTRFS_ROOT_TREE_OBJECTID, &root)) {
		root = NULL;
		dc.ret = 1;
	}
	if (read_root(fs, btrfs_super_chunk_root(sb), btrfs_super_chunk_root_level(sb),
		      btrfs_super_chunk_root_generation(sb), BTRFS_CHUNK_TREE_OBJECTID, &chunk)) {
		chunk = NULL;
		dc.ret = 1;
	}
	if (btrfs_super_log_root(sb) &&
	    read_root(fs, btrfs_super_log_root(sb), btrfs_super_log_root_level(sb), 0,
		      BTRFS_TREE_LOG_OBJECTID, &log))
		log = NULL;

	if (a->ntrees) {
		totals = false;
		for (i = 0; i < a->ntrees; i++) {
			u64 id = a->trees[i];

			if (id == BTRFS_ROOT_TREE_OBJECTID) {
				if (root)
					dc.ret |= print_named_root(&dc, "root tree", root);
			} else if (id == BTRFS_CHUNK_TREE_OBJECTID) {
				if (chunk)
					dc.ret |= print_named_root(&dc, "chunk tree", chunk);
			} else if (id == BTRFS_TREE_LOG_OBJECTID) {
				if (log)
					dc.ret |= print_named_root(&dc, "log root tree", log);
			} else {
				totals = true;
				dc.only_tree = id;
				scan_root_tree(&dc, root);
				scan_root_tree(&dc, log);
			}
		}
		dc.only_tree = 0;
	} else {
		if (!a->extent_only && !a->device_only && !a->uuid_only) {
			if (root)
				dc.ret |= print_named_root(&dc, "root tree", root);
			if (chunk)
				dc.ret |= print_named_root(&dc, "chunk tree", chunk);
			if (log)
				dc.ret |= print_named_root(&dc, "log root tree", log);
		}
		scan_root_tree(&dc, root);
		scan_root_tree(&dc, log);
		if (a->extent_only || a->device_only || a->uuid_only)
			totals = false;
	}
	if (totals) {
		if (a->backups)
			btrfs_print_backup_roots(sb);
		print_totals(sb);
	}
	if (root)
		free_extent_buffer(root);
	if (chunk)
		free_extent_buffer(chunk);
	if (log)
		free_extent_buffer(log);
	return dc.ret;
}

#define DUMP_TREE_OUTBUF (1U << 20)

/* Back to the default stdout buffer before freeing ours. */
static void restore_stdout(char *outbuf)
{
	fflush(stdout);
	if (outbuf) {
		setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
		free(outbuf);
	}
}

static int cmd_inspect_dump_tree(const struct cmd_struct *cmd, struct cli_ctx *ctx,
				 int argc, char **argv)
{
	char *outbuf;
	struct cli_getopt_state st = { 0 };
	struct dump_tree_args a = { 0 };
	struct btrfs_print_opts opts = { 0 };
	struct btrfs_open_args oa = { 0 };
	struct btrfs_fs_info *fs;
	int c, ret;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 'e': a.extent_only = true; break;
		case 'd': a.device_only = true; break;
		case 'r': a.roots_only = true; break;
		case 'R': a.roots_only = true; a.backups = true; break;
		case 'u': a.uuid_only = true; break;
		case 'b':
			if (a.nblocks >= MAX_LIST)
				return usage_error(cmd, "too many -b options, at most %d", MAX_LIST);
			if (parse_u64(st.optarg, &a.blocks[a.nblocks]))
				return usage_error(cmd, "invalid block number: %s", st.optarg);
			a.nblocks++;
			break;
		case 't':
			if (a.ntrees >= MAX_LIST)
				return usage_error(cmd, "too many -t options, at most %d", MAX_LIST);
			if (parse_tree_id(st.optarg, &a.trees[a.ntrees]))
				return usage_error(cmd, "unrecognized tree id: %s", st.optarg);
			a.ntrees++;
			break;
		case OPT_FOLLOW: a.follow = true; break;
		case OPT_DFS: opts.dfs = true; break;
		case OPT_BFS: opts.dfs = false; break;
		case OPT_NOSCAN: oa.noscan = true; break;
		case OPT_HIDE_NAMES: opts.hide_names = true; break;
		case OPT_CSUM_HEADERS: opts.csum_headers = true; break;
		case OPT_CSUM_ITEMS: opts.csum_items = true; break;
		case CLI_OPT_HELP:
			return usage_print(cmd, stdout, true);
		default:
			return 1;
		}
	}
	if (check_argc_min(cmd, argc - st.optind, 1))
		return 1;
	if (a.follow && !a.nblocks)
		warning("--follow has no effect without -b");

	/* Large buffered writes: dump-tree output is big. */
	outbuf = malloc(DUMP_TREE_OUTBUF);
	if (outbuf)
		setvbuf(stdout, outbuf, _IOFBF, DUMP_TREE_OUTBUF);
	oa.devices = argv + st.optind;
	oa.ndevices = argc - st.optind;
	oa.partial = true;
	ret = btrfs_open_fs(&oa, &fs);
	if (ret) {
		error("unable to open %s", argv[st.optind]);
		restore_stdout(outbuf);
		return 1;
	}
	btrfs_print_opts_init(&opts, btrfs_fs_geometry(fs));
	if (ctx->format == FORMAT_JSON) {
		ret = dump_tree_json(fs, &opts, a.trees, a.ntrees, a.blocks, a.nblocks, a.follow);
	} else {
		printf("%s v%s\n", PACKAGE_NAME, PACKAGE_VERSION);
		ret = dump_text(fs, &a, &opts);
	}
	btrfs_close_fs(fs);
	if (fflush(stdout) || ferror(stdout)) {
		error("write failure on standard output");
		ret = 1;
	}
	restore_stdout(outbuf);
	return ret;
}
DEFINE_COMMAND(inspect_dump_tree, "dump-tree", dump_tree_options, CMD_FORMAT_JSON);

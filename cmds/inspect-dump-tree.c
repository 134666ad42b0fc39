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
#include "common/auth-key.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/accessors.h"
#include "print/print-tree.h"
#include "print/dump-tree.h"
#include "kernel-shared/format/messages.h"

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
	struct btrfs_dump_tree_args a = { 0 };
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
			if (a.nblocks >= BTRFS_DUMP_TREE_MAX_LIST)
				return usage_error(cmd, "too many -b options, at most %d", BTRFS_DUMP_TREE_MAX_LIST);
			if (parse_u64(st.optarg, &a.blocks[a.nblocks]))
				return usage_error(cmd, "invalid block number: %s", st.optarg);
			a.nblocks++;
			break;
		case 't':
			if (a.ntrees >= BTRFS_DUMP_TREE_MAX_LIST)
				return usage_error(cmd, "too many -t options, at most %d", BTRFS_DUMP_TREE_MAX_LIST);
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
	oa.missing_on_stdout = ctx->format != FORMAT_JSON;
	/* before the open, as btrfs-progs: what the open says (missing devices) follows it */
	if (ctx->format != FORMAT_JSON)
		printf("%s v%s\n", PACKAGE_NAME, PACKAGE_VERSION);
	ret = auth_open_fs(ctx->auth_key, &oa, &fs);
	if (ret) {
		error("unable to open %s", argv[st.optind]);
		restore_stdout(outbuf);
		return auth_open_exit_status(ret);
	}
	btrfs_print_opts_init(&opts, btrfs_fs_geometry(fs));
	ret = btrfs_dump_tree(fs, &a, &opts, ctx->format == FORMAT_JSON);
	btrfs_close_fs(fs);
	if (fflush(stdout) || ferror(stdout)) {
		error("write failure on standard output");
		ret = 1;
	}
	restore_stdout(outbuf);
	return ret;
}
DEFINE_COMMAND(inspect_dump_tree, "dump-tree", dump_tree_options, CMD_FORMAT_JSON);

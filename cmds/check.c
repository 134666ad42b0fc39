// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs check: offline consistency check of an unmounted filesystem.  This
 * file parses the options and opens the devices; the passes live in check/.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include "cmds/commands.h"
#include "check/check.h"
#include "check/check-extra.h"
#include "check/repair-leaves.h"
#include "common/auth-key.h"
#include "common/device-utils.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_check_usage[] = {
	"btrfs check [options] <device> [<device>...]",
	"Check structural integrity of a filesystem (unmounted).",
	"",
	"Reads every tree of an unmounted filesystem and verifies that its blocks,",
	"items and references agree with each other. --repair rewrites metadata in",
	"place: read what a plain check reports first, and keep an image of what",
	"matters (btrfs-image) before repairing.",
	"",
	"Devices of a multi-device filesystem not named are found by scanning.",
	"Exit status: 0 no error found, 1 errors found or the check could not run.",
	"Keyed checksum types (btrfs --auth-key NAME check): 3 blocks ALTERED (the",
	"keyed hash fails, the authsum xxhash64 part matches: changed without the",
	"key), 4 wrong key for this filesystem, 5 no usable key.",
	"With --repair: 0 repaired (and the repaired filesystem checks clean),",
	"1 repair refused or failed (then nothing was written). --repair --dry-run",
	"exits as the repair would have and writes nothing.",
	NULL
};

enum {
	OPT_REPAIR = OPT_LONG_BASE,
	OPT_READONLY,
	OPT_FORCE,
	OPT_CHECK_DATA_CSUM,
	OPT_TREE_ROOT,
	OPT_CHUNK_ROOT,
	OPT_CLEAR_SPACE_CACHE,
	OPT_INIT_CSUM_TREE,
	OPT_INIT_EXTENT_TREE,
	OPT_MODE,
	OPT_NOSCAN,
	OPT_DRY_RUN,
};

static const char *const mode_names[] = { "original", "lowmem", NULL };
static const struct cli_values mode_values = { .names = mode_names };
static const char *const space_cache_names[] = { "v1", "v2", NULL };
static const struct cli_values space_cache_values = { .names = space_cache_names };

static const struct cli_option check_options[] = {
	OPT_ARG('s', "super", "SUPERBLOCK", "use this superblock copy (0, 1 or 2)"),
	OPT_FLAG('b', "backup", "use the first valid set of backup roots stored in the superblock"),
	OPT_FLAG(OPT_REPAIR, "repair", "mend the damage the check finds (asks first unless --force)"),
	OPT_FLAG(OPT_DRY_RUN, "dry-run", "with --repair: compute and print the repair, write nothing"),
	OPT_FLAG(OPT_READONLY, "readonly", "write nothing (the default)"),
	OPT_FLAG(OPT_FORCE, "force", "skip the mount check and the repair confirmation"),
	OPT_ARG_VALUES(OPT_MODE, "mode", "MODE", "original or lowmem (accepted; one engine serves both)",
		       mode_values),
	OPT_FLAG(OPT_CHECK_DATA_CSUM, "check-data-csum", "read every data block and compare it with its checksum"),
	OPT_ARG(OPT_TREE_ROOT, "tree-root", "BYTENR", "use the root tree block at BYTENR"),
	OPT_ARG(OPT_CHUNK_ROOT, "chunk-root", "BYTENR", "use the chunk tree block at BYTENR"),
	OPT_ARG_VALUES(OPT_CLEAR_SPACE_CACHE, "clear-space-cache", "v1|v2", "clear space cache for v1 or v2",
		       space_cache_values),
	OPT_FLAG(OPT_INIT_CSUM_TREE, "init-csum-tree", "create a new CRC tree (repair)"),
	OPT_FLAG(OPT_INIT_EXTENT_TREE, "init-extent-tree", "create a new extent tree (repair)"),
	OPT_FLAG('p', "progress", "indicate progress"),
	OPT_FLAG('Q', "qgroup-report", "print the quota groups' numbers as counted against the stored ones"),
	OPT_ARG('E', "subvol-extents", "SUBVOLID", "list the extents of subvolume SUBVOLID and who shares them"),
	OPT_FLAG(OPT_NOSCAN, "noscan", "do not scan for other devices of the filesystem"),
	OPT_END(),
};

struct check_args {
	struct check_options opts;
	struct btrfs_open_args open;
	bool readonly;
	bool force;
	const char *clear_space_cache;
	bool init_csum_tree;
	bool init_extent_tree;
};

static int parse_bytenr(const struct cmd_struct *cmd, const char *what, const char *s, u64 *out)
{
	if (s[0] == '-' || parse_u64(s, out))
		return usage_error(cmd, "invalid %s: %s", what, s);
	return 0;
}

static int parse_check_args(const struct cmd_struct *cmd, int argc, char **argv,
			    struct check_args *a, int *first_dev)
{
	struct cli_getopt_state st = { 0 };
	u64 v;
	int c;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 's':
			if (parse_bytenr(cmd, "superblock copy", st.optarg, &v))
				return 1;
			if (v >= BTRFS_SUPER_MIRROR_MAX)
				return usage_error(cmd, "super mirror should be less than %d",
						   BTRFS_SUPER_MIRROR_MAX);
			a->open.super_bytenr = btrfs_sb_offset((int)v);
			printf("using SB copy %llu, bytenr %llu\n", v, a->open.super_bytenr);
			break;
		case 'b':
			a->open.use_backup_root = true;
			break;
		case OPT_REPAIR:
			a->opts.repair = true;
			break;
		case OPT_DRY_RUN:
			a->opts.dry_run = true;
			break;
		case OPT_READONLY:
			a->readonly = true;
			break;
		case OPT_FORCE:
			a->force = true;
			break;
		case OPT_MODE:
			if (cli_value_index(&mode_values, st.optarg) < 0)
				return usage_error(cmd, "unknown mode: %s", st.optarg);
			break;
		case OPT_CHECK_DATA_CSUM:
			a->opts.check_data_csum = true;
			break;
		case OPT_TREE_ROOT:
			if (parse_bytenr(cmd, "tree root", st.optarg, &a->open.tree_root_bytenr))
				return 1;
			break;
		case OPT_CHUNK_ROOT:
			if (parse_bytenr(cmd, "chunk root", st.optarg, &a->open.chunk_root_bytenr))
				return 1;
			break;
		case OPT_CLEAR_SPACE_CACHE:
			if (cli_value_index(&space_cache_values, st.optarg) < 0)
				return usage_error(cmd, "invalid argument to --clear-space-cache, must be v1 or v2");
			a->clear_space_cache = st.optarg;
			break;
		case OPT_INIT_CSUM_TREE:
			printf("Creating a new CRC tree\n");
			a->init_csum_tree = true;
			break;
		case OPT_INIT_EXTENT_TREE:
			a->init_extent_tree = true;
			break;
		case 'p':
			a->opts.progress = true;
			break;
		case 'Q':
			a->opts.qgroup_report = true;
			break;
		case 'E':
			if (parse_bytenr(cmd, "subvolume id", st.optarg, &a->opts.subvol_extents))
				return 1;
			break;
		case OPT_NOSCAN:
			a->open.noscan = true;
			break;
		case CLI_OPT_HELP:
			usage_print(cmd, stdout, true);
			return -1;
		default:
			return 1;
		}
	}
	if (check_argc_min(cmd, argc - st.optind, 1))
		return 1;
	if (a->readonly && (a->opts.repair || a->init_csum_tree || a->init_extent_tree ||
			    a->clear_space_cache))
		return usage_error(cmd, "repair options are not compatible with --readonly");
	if (a->opts.dry_run && (!a->opts.repair || a->init_csum_tree || a->init_extent_tree ||
				a->clear_space_cache))
		return usage_error(cmd, "--dry-run goes with --repair only (not with --init-csum-tree, --init-extent-tree or --clear-space-cache)");
	*first_dev = st.optind;
	return 0;
}

/* --repair without --force: say what is about to happen and ask. */
static bool confirm_repair(void)
{
	char answer[16] = "";

	printf("WARNING: --repair rewrites the metadata of this filesystem in place.\n"
	       "  btrfs-kit mends only damage its check can name and refuses, writing nothing,\n"
	       "  a repair it cannot carry through; no repair brings back what a failing disk or\n"
	       "  a bug has already destroyed.  Without a copy, run 'btrfs-image' first;\n"
	       "  '--repair --dry-run' shows the fixes without writing them.\n"
	       "Repair now? [y/N]: ");
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

static int cmd_check(const struct cmd_struct *cmd, struct cli_ctx *cli, int argc, char **argv)
{
	struct check_args a = { 0 };
	struct check_ctx ctx = { 0 };
	struct btrfs_fs_info *fs;
	bool writing, unauthenticated;
	u64 altered;
	char uuid[BTRFS_UUID_UNPARSED_SIZE];
	int first = 0, i, ret;

	ret = parse_check_args(cmd, argc, argv, &a, &first);
	if (ret)
		return ret < 0 ? 0 : ret;
	a.opts.serial = getenv("BTRFS_KIT_CHECK_SERIAL") && strcmp(getenv("BTRFS_KIT_CHECK_SERIAL"), "0");
	writing = a.opts.repair || a.init_csum_tree || a.init_extent_tree || a.clear_space_cache;
	for (i = first; i < argc; i++) {
		if (!target_is_mounted(argv[i]))
			continue;
		if (writing) {
			error("%s is currently mounted, repair is not possible", argv[i]);
			return 1;
		}
		if (!a.force) {
			error("%s is currently mounted: a check of a mounted filesystem can report false errors (--force runs it anyway)",
			      argv[i]);
			return 1;
		}
		warning("%s is mounted: the check may report false errors", argv[i]);
	}
	/* a dry run writes nothing: no confirmation */
	if (writing && !a.force && !a.opts.dry_run && !confirm_repair())
		return 1;
	if (a.init_extent_tree) {
		error("--init-extent-tree is not supported: rebuilding the extent tree from scratch is not implemented");
		return 1;
	}

	a.open.devices = argv + first;
	a.open.ndevices = argc - first;
	a.open.partial = true;
	a.open.writable = writing;
	a.open.trust_backup_generations = true;
	a.open.missing_on_stdout = true;
	/* a chunk root whose header alone is wrong: mended in memory, so the rest is checked */
	a.open.mend_chunk_root = check_salvage_chunk_root;
	a.open.mend_chunk_root_arg = &ctx.salvage;
	printf("Opening filesystem to check...\n");
	fflush(stdout);
	ret = auth_open_fs(cli->auth_key, &a.open, &fs);
	if (ret < 0) {
		check_salvage_free(ctx.salvage);
		error("cannot open file system");
		return auth_open_exit_status(ret);
	}
	a.open.mend_chunk_root = NULL;
	unauthenticated = btrfs_csum_type_keyed(btrfs_fs_geometry(fs)->csum_type) && !cli->auth_key;
	uuid_unparse(btrfs_fs_super(fs)->fsid, uuid);
	printf("Checking filesystem on %s\nUUID: %s\n", argv[first], uuid);
	fflush(stdout);

	ctx.fs = fs;
	ctx.opts = &a.opts;
	/* a chunk root mended at open (said then) is an error: the passes see the mended copy */
	if (check_salvage_count(ctx.salvage))
		ctx.errors++;
	if (a.clear_space_cache) {
		/* as btrfs-progs: clearing is all this run does */
		ret = check_clear_space_cache(&ctx, a.clear_space_cache[1] - '0');
	} else if (a.opts.subvol_extents) {
		printf("Print extent state for subvolume %llu on %s\nUUID: %s\n",
		       a.opts.subvol_extents, argv[first], uuid);
		ret = check_subvol_extents(&ctx, a.opts.subvol_extents);
	} else if (a.init_csum_tree) {
		/*
		 * The new tree is committed, then the whole check runs on it; with
		 * --repair the other repairs follow, on the new generation.
		 */
		ret = check_init_csum_tree(&ctx);
		if (ret == 0 && a.opts.repair) {
			ret = check_run(&ctx);
			if (ret == 1)
				ret = check_repair(&ctx);
		} else if (ret == 0) {
			ret = CHECK_REPAIRED;
		}
	} else {
		/* --repair: leaves failing only the tree-checker are mended first, in memory */
		ret = a.opts.repair ? check_salvage_leaves(fs, &ctx.salvage) : 0;
		if (ret < 0)
			error("cannot look for leaves to mend: %s", strerror(-ret));
		else
			ret = check_run(&ctx);
		if (a.opts.repair && (ret == 1 || (ret == 0 && (check_salvage_count(ctx.salvage) ||
								 ctx.repair_super_dev_items))))
			ret = check_repair(&ctx);
	}
	check_salvage_free(ctx.salvage);
	ctx.salvage = NULL;
	check_ctx_free(&ctx);
	altered = btrfs_fs_altered_blocks(fs);
	btrfs_close_fs(fs);
	if (ret == CHECK_REPAIRED) {
		/* what the repair wrote, read back from the new generation */
		if (!a.init_csum_tree || a.opts.repair)
			printf("Checking the repaired filesystem\n");
		fflush(stdout);
		a.open.writable = false;
		if (auth_open_fs(cli->auth_key, &a.open, &fs) < 0) {
			error("cannot open the repaired file system");
			return 1;
		}
		memset(&ctx, 0, sizeof(ctx));
		ctx.fs = fs;
		ctx.opts = &a.opts;
		ret = check_run(&ctx);
		check_ctx_free(&ctx);
		altered = btrfs_fs_altered_blocks(fs);
		btrfs_close_fs(fs);
	}
	if (unauthenticated)
		warning("no key given: checksums were verified by their xxhash64 part only, authenticity NOT verified");
	if (ret == 1 && altered) {
		error("block(s) ALTERED: changed by someone without the key");
		return AUTH_EXIT_ALTERED;
	}
	return ret < 0 ? 1 : ret;
}
DEFINE_COMMAND(check, "check", check_options, 0);

// SPDX-License-Identifier: GPL-2.0
/* btrfs image (and btrfs-image by argv[0]): metadata dump and restore. */
#include <errno.h>
#include <stdlib.h>
#include "cmds/commands.h"
#include "common/interrupt.h"
#include "common/auth-key.h"
#include "image/dump.h"
#include "image/image.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_image_usage[] = {
	"btrfs image [options] SOURCE TARGET",
	"btrfs image [options] DEVICE... TARGET",
	"Create or restore a metadata dump in the btrfs-image format",
	"Restore: -r SOURCE TARGET, or -m SOURCE TARGET... (one TARGET per device of the dump).",
	"SOURCE and TARGET may be '-' for stdin and stdout (restore: SOURCE only).",
	"Create: the devices of a multi-device filesystem may be named, else they are found by scanning.",
	NULL
};

static const struct cli_option cmd_image_options[] = {
	OPT_FLAG('r', "restore", "restore the metadump image SOURCE onto TARGET"),
	OPT_ARG('c', "compress", "LEVEL", "zlib compression level 0..9 of a new dump (0: none, the default)"),
	OPT_ARG('t', "threads", "N", "compress a new dump (restore: inflate its items) in N threads, 1..64"),
	OPT_FLAG('o', "old-restore", "old restore: ranges at logical offsets, no chunk mapping (with -r)"),
	OPT_FLAG('s', "sanitize", "replace names (file, xattr, subvolume names; same length and name hash), xattr values and inline data"),
	OPT_FLAG('w', "walk-trees", "find the tree blocks by walking the trees, not from the extent tree"),
	OPT_FLAG('m', "multi-devices", "restore onto one TARGET per device of the dump (implies -r)"),
	OPT_FLAG('d', "data", "dump data extents and inline data too (a v1 dump)"),
	OPT_END(),
};

/* --auth-key NAME: the key's bytes for the library (wiped by the caller), -ENOKEY when it cannot be loaded. */
static int load_key(const struct cli_ctx *ctx, struct auth_key *key, const u8 **bytes, size_t *len)
{
	if (!ctx->auth_key)
		return 0;
	if (auth_key_load(ctx->auth_key, key) < 0)
		return -ENOKEY;
	*bytes = key->bytes;
	*len = key->len;
	return 0;
}

static int cmd_image(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_getopt_state st = { 0 };
	struct image_restore_opts ropts = { 0 };
	bool restore = false;
	const char *create_only = NULL;
	struct image_dump_opts dump = { 0 };
	struct auth_key key = { 0 };
	int c, ret;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 'r':
			restore = true;
			break;
		case 'c': {
			char *end;
			long level = strtol(st.optarg, &end, 10);

			if (!*st.optarg || *end || level < 0 || level > 9)
				return usage_error(cmd, "-c takes a compression level from 0 to 9");
			dump.compress_level = (int)level;
			create_only = "-c";
			break;
		}
		case 't': {
			char *end;
			long n = strtol(st.optarg, &end, 10);

			if (!*st.optarg || *end || n < 1 || n > IMAGE_DUMP_MAX_THREADS)
				return usage_error(cmd, "-t takes a number of threads from 1 to 64");
			dump.threads = (int)n;
			ropts.threads = (int)n;
			break;
		}
		case 'o':
			ropts.old = true;
			break;
		case 's':
			dump.sanitize++;
			create_only = "-s";
			break;
		case 'w':
			dump.walk_trees = true;
			create_only = "-w";
			break;
		case 'm':
			restore = true;
			ropts.multi = true;
			break;
		case 'd':
			dump.dump_data = true;
			create_only = "-d";
			break;
		case CLI_OPT_HELP:
			return usage_print(cmd, stdout, true);
		default:
			return 1;
		}
	}
	if (argc - st.optind < 2 || (restore && !ropts.multi && argc - st.optind != 2))
		return usage_error(cmd, ropts.multi ? "need SOURCE and TARGET..." : "need SOURCE and TARGET");
	if (!restore) {
		if (ropts.old) {
			error("option -o is for restoring a dump: use it with -r");
			return 1;
		}
		ret = load_key(ctx, &key, &dump.auth_key, &dump.auth_key_len);
		if (!ret)
			ret = image_dump((const char *const *)argv + st.optind, argc - st.optind - 1,
					 argv[argc - 1], &dump);
		auth_key_wipe(&key);
		return ret ? auth_open_exit_status(ret) : 0;
	}
	if (create_only) {
		error("option %s is for creating a dump, not with -r", create_only);
		return 1;
	}
	ret = load_key(ctx, &key, &ropts.auth_key, &ropts.auth_key_len);
	if (!ret) {
		ropts.stop = interrupt_catch();
		ret = image_restore(argv[st.optind], (const char *const *)argv + st.optind + 1,
				    argc - st.optind - 1, &ropts);
		interrupt_release();
	}
	auth_key_wipe(&key);
	return ret ? auth_open_exit_status(ret) : 0;
}
DEFINE_COMMAND(image, "image", cmd_image_options, 0);

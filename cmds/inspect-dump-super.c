// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs inspect-internal dump-super: print superblock copies of devices in
 * the text form of btrfs-progs, or as one JSON document with --format json.
 */
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include "cmds/commands.h"
#include "common/auth-key.h"
#include "common/json-writer.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/csum.h"
#include "print/print-super.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_inspect_dump_super_usage[] = {
	"btrfs inspect-internal dump-super [options] device [device...]",
	"Print the superblock of a device or image file",
	"",
	"Superblock copies: 0 at 64KiB, 1 at 64MiB, 2 at 256GiB; a copy beyond the end of",
	"the device is skipped.  Exit status 1 when a device cannot be read or a copy",
	"has a bad magic (without --force).",
	"",
	"Keyed checksum types (btrfs --auth-key NAME inspect-internal dump-super): with",
	"the key the csum line is verified ([match], [DON'T MATCH]) and the auth_key_check",
	"line says whether it is the filesystem's key; without one a full keyed type shows",
	"[NO KEY], an authsum type its xxhash64 part.  Exit status 5 when the key cannot be",
	"loaded, 1 for a key given for a filesystem whose checksum type is not keyed.",
	NULL
};

enum {
	OPT_BYTENR = OPT_LONG_BASE,
};

static const struct cli_option dump_super_options[] = {
	OPT_FLAG('f', "full", "print every field, the backup roots and the system chunk array too"),
	OPT_FLAG('a', "all", "print each of the superblock copies"),
	OPT_ARG('s', "super", "N", "print copy N (0 primary, 1 or 2) instead of the primary"),
	OPT_FLAG('F', "force", "print a superblock even when its magic is wrong"),
	OPT_ARG(OPT_BYTENR, "bytenr", "OFFSET", "read the superblock at byte OFFSET"),
	OPT_END(),
};

struct dump_super_args {
	bool full;
	bool all;
	bool force;
	u64 bytenr;
	struct json_writer *json;   /* NULL for text */
	struct auth_key key;        /* --auth-key: the loaded key, or empty */
};

/* ---- one copy ------------------------------------------------------------ */

/* 0 when printed or absent (beyond the end of the device), 1 on error. */
static int dump_one(const struct dump_super_args *a, int fd, const char *path, u64 bytenr)
{
	struct btrfs_super_block sb;
	size_t got;
	int ret;

	ret = btrfs_super_read_raw(fd, bytenr, &sb, &got);
	if (ret == -ERANGE)
		return 0;
	if (ret < 0) {
		int err = ret == -EIO ? 0 : -ret;

		error("failed to read the superblock on %s at %llu", path, bytenr);
		error("error = '%s', errno = %d", strerror(err), err);
		return 1;
	}
	if (!a->json) {
		printf("superblock: bytenr=%llu, device=%s\n", bytenr, path);
		printf("---------------------------------------------------------\n");
	}
	if (btrfs_super_magic(&sb) != BTRFS_MAGIC && !a->force) {
		error("bad magic on superblock on %s at %llu (use --force to dump it anyway)", path,
		      bytenr);
		return 1;
	}
	if (a->key.bytes && !btrfs_csum_type_keyed(btrfs_super_csum_type(&sb))) {
		const char *name = btrfs_csum_type_name(btrfs_super_csum_type(&sb));

		error("an authentication key was given but the checksum type %s of %s at %llu is not keyed",
		      name ? name : "INVALID", path, bytenr);
		return 1;
	}
	if (a->json) {
		btrfs_print_superblock_json(a->json, path, bytenr, &sb, a->full);
	} else {
		btrfs_print_superblock_key(stdout, &sb, a->full, a->key.bytes, a->key.len);
		putchar('\n');
	}
	return 0;
}

static int dump_device(const struct dump_super_args *a, const char *path)
{
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		error("cannot open %s: %s", path, strerror(errno));
		return 1;
	}
	if (a->all) {
		for (int i = 0; i < BTRFS_SUPER_MIRROR_MAX && !ret; i++)
			ret = dump_one(a, fd, path, btrfs_sb_offset(i));
	} else {
		ret = dump_one(a, fd, path, a->bytenr);
	}
	close(fd);
	return ret;
}

static int parse_offset(const struct cmd_struct *cmd, const char *s, u64 *out)
{
	if (s[0] == '-')
		return usage_error(cmd, "%s: negative value is invalid", s);
	if (parse_u64(s, out))
		return usage_error(cmd, "%s is not a valid numeric value", s);
	return 0;
}

static int cmd_inspect_dump_super(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc,
				  char **argv)
{
	struct cli_getopt_state st = { 0 };
	struct dump_super_args a = { .bytenr = BTRFS_SUPER_INFO_OFFSET };
	struct json_writer json;
	u64 v;
	int c, ret = 0;

	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 'f':
			a.full = true;
			break;
		case 'a':
			a.all = true;
			break;
		case 'F':
			a.force = true;
			break;
		case 's':
			if (parse_offset(cmd, st.optarg, &v))
				return 1;
			if (v >= BTRFS_SUPER_MIRROR_MAX) {
				warning("deprecated use of -s <bytenr> with %llu, assuming --bytenr", v);
				a.bytenr = v;
			} else {
				a.bytenr = btrfs_sb_offset((int)v);
			}
			a.all = false;
			break;
		case OPT_BYTENR:
			if (parse_offset(cmd, st.optarg, &v))
				return 1;
			a.bytenr = v;
			a.all = false;
			break;
		case CLI_OPT_HELP:
			return usage_print(cmd, stdout, true);
		default:
			return 1;
		}
	}
	if (check_argc_min(cmd, argc - st.optind, 1))
		return 1;

	if (ctx->auth_key && auth_key_load(ctx->auth_key, &a.key) < 0)
		return AUTH_EXIT_NO_KEY;
	if (ctx->format == FORMAT_JSON) {
		a.json = &json;
		json_init(&json, stdout);
		json_begin_object(&json, NULL);
		json_begin_array(&json, "superblocks");
	}
	for (int i = st.optind; i < argc && !ret; i++)
		ret = dump_device(&a, argv[i]);
	if (a.json) {
		json_end_array(&json);
		json_end_object(&json);
		if (json_finish(&json)) {
			error("internal error: unbalanced JSON output");
			ret = 1;
		}
	}
	auth_key_wipe(&a.key);
	return ret;
}
DEFINE_COMMAND(inspect_dump_super, "dump-super", dump_super_options, CMD_FORMAT_JSON);

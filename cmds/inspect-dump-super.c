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
#include "common/json-writer.h"
#include "lib/format/accessors.h"
#include "lib/read/super.h"
#include "lib/format/csum.h"
#include "lib/format/flags-names.h"
#include "print/print-super.h"
#include "lib/format/messages.h"

static const char *const cmd_inspect_dump_super_usage[] = {
	"btrfs inspect-internal dump-super [options] device [device...]",
	"Dump superblock from a device in a textual form",
	"",
	"Superblock copies: 0 at 64KiB, 1 at 64MiB, 2 at 256GiB; a copy beyond the end of",
	"the device is skipped.  Exit status 1 when a device cannot be read or a copy",
	"has a bad magic (without --force).",
	NULL
};

enum {
	OPT_BYTENR = OPT_LONG_BASE,
};

static const struct cli_option dump_super_options[] = {
	OPT_FLAG('f', "full", "print full superblock information, backup roots etc."),
	OPT_FLAG('a', "all", "print information about all superblocks"),
	OPT_ARG('s', "super", "N", "specify which copy to print out (values: 0, 1, 2)"),
	OPT_FLAG('F', "force", "attempt to dump superblocks with bad magic"),
	OPT_ARG(OPT_BYTENR, "bytenr", "OFFSET", "specify alternate superblock offset"),
	OPT_END(),
};

struct dump_super_args {
	bool full;
	bool all;
	bool force;
	u64 bytenr;
	struct json_writer *json;   /* NULL for text */
};

/* ---- JSON ---------------------------------------------------------------- */

static void json_disk_key(struct json_writer *w, const char *name, const struct btrfs_disk_key *k)
{
	json_begin_object(w, name);
	json_u64(w, "objectid", btrfs_disk_key_objectid(k));
	json_u64(w, "type", btrfs_disk_key_type(k));
	json_u64(w, "offset", btrfs_disk_key_offset(k));
	json_end_object(w);
}

static void json_chunk(struct json_writer *w, const struct btrfs_chunk *c, u32 len)
{
	u16 num_stripes = btrfs_chunk_num_stripes(c);

	json_begin_object(w, "chunk");
	json_u64(w, "length", btrfs_chunk_length(c));
	json_u64(w, "owner", btrfs_chunk_owner(c));
	json_u64(w, "stripe_len", btrfs_chunk_stripe_len(c));
	json_begin_array(w, "type");
	for (size_t i = 0; i < btrfs_bg_type_table.nr; i++)
		if (btrfs_chunk_type(c) & btrfs_bg_type_table.names[i].bit)
			json_string(w, NULL, btrfs_bg_type_table.names[i].name);
	for (size_t i = 0; i < btrfs_bg_profile_table.nr; i++)
		if (btrfs_chunk_type(c) & btrfs_bg_profile_table.names[i].bit)
			json_string(w, NULL, btrfs_bg_profile_table.names[i].name);
	json_end_array(w);
	json_u64(w, "io_align", btrfs_chunk_io_align(c));
	json_u64(w, "io_width", btrfs_chunk_io_width(c));
	json_u64(w, "sector_size", btrfs_chunk_sector_size(c));
	json_u64(w, "num_stripes", num_stripes);
	json_u64(w, "sub_stripes", btrfs_chunk_sub_stripes(c));
	json_begin_array(w, "stripe");
	for (int i = 0; i < num_stripes && btrfs_chunk_item_size(i + 1) <= len; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(c, i);

		json_begin_object(w, NULL);
		json_u64(w, "devid", btrfs_stripe_devid(s));
		json_u64(w, "offset", btrfs_stripe_offset(s));
		json_uuid(w, "dev_uuid", s->dev_uuid);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

static void json_sys_chunk_array(struct json_writer *w, const struct btrfs_super_block *sb)
{
	struct btrfs_sys_array_iter it;
	const struct btrfs_disk_key *key;
	const struct btrfs_chunk *chunk;
	u32 len;
	int ret;

	json_begin_array(w, "sys_chunk_array");
	ret = btrfs_sys_array_init(&it, sb);
	while (ret == 0 && (ret = btrfs_sys_array_next_key(&it, &key)) > 0) {
		json_begin_object(w, NULL);
		json_disk_key(w, "key", key);
		ret = btrfs_sys_array_next_chunk(&it, key, &chunk, &len);
		if (ret == 0)
			json_chunk(w, chunk, len);
		json_end_object(w);
	}
	json_end_array(w);
}

static void json_backup_roots(struct json_writer *w, const struct btrfs_super_block *sb)
{
	json_begin_array(w, "super_roots");
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		json_begin_object(w, NULL);
		json_u64(w, "tree_root", btrfs_backup_tree_root(b));
		json_u64(w, "tree_root_gen", btrfs_backup_tree_root_gen(b));
		json_u64(w, "tree_root_level", btrfs_backup_tree_root_level(b));
		json_u64(w, "chunk_root", btrfs_backup_chunk_root(b));
		json_u64(w, "chunk_root_gen", btrfs_backup_chunk_root_gen(b));
		json_u64(w, "chunk_root_level", btrfs_backup_chunk_root_level(b));
		json_u64(w, "extent_root", btrfs_backup_extent_root(b));
		json_u64(w, "extent_root_gen", btrfs_backup_extent_root_gen(b));
		json_u64(w, "extent_root_level", btrfs_backup_extent_root_level(b));
		json_u64(w, "fs_root", btrfs_backup_fs_root(b));
		json_u64(w, "fs_root_gen", btrfs_backup_fs_root_gen(b));
		json_u64(w, "fs_root_level", btrfs_backup_fs_root_level(b));
		json_u64(w, "dev_root", btrfs_backup_dev_root(b));
		json_u64(w, "dev_root_gen", btrfs_backup_dev_root_gen(b));
		json_u64(w, "dev_root_level", btrfs_backup_dev_root_level(b));
		json_u64(w, "csum_root", btrfs_backup_csum_root(b));
		json_u64(w, "csum_root_gen", btrfs_backup_csum_root_gen(b));
		json_u64(w, "csum_root_level", btrfs_backup_csum_root_level(b));
		json_u64(w, "total_bytes", btrfs_backup_total_bytes(b));
		json_u64(w, "bytes_used", btrfs_backup_bytes_used(b));
		json_u64(w, "num_devices", btrfs_backup_num_devices(b));
		json_end_object(w);
	}
	json_end_array(w);
}

/* One copy; member names as in struct btrfs_super_block ("__unused_" dropped). */
static void json_superblock(struct json_writer *w, const char *device, u64 bytenr,
			    const struct btrfs_super_block *sb, bool full)
{
	const struct btrfs_dev_item *dev = &sb->dev_item;
	u16 csum_type = btrfs_super_csum_type(sb);
	const char *csum_name = btrfs_csum_type_name(csum_type);
	u16 csum_size = csum_name ? btrfs_csum_type_size(csum_type) : BTRFS_CSUM_SIZE;

	json_begin_object(w, NULL);
	json_string(w, "device", device);
	json_u64(w, "superblock_bytenr", bytenr);
	json_u64(w, "csum_type", csum_type);
	if (csum_name)
		json_string(w, "csum_type_name", csum_name);
	else
		json_null(w, "csum_type_name");
	json_u64(w, "csum_size", csum_size);
	json_hex(w, "csum", sb->csum, csum_size);
	if (csum_name)
		json_bool(w, "csum_match", btrfs_super_csum_verify(sb) == 0);
	else
		json_null(w, "csum_match");
	json_u64(w, "bytenr", btrfs_super_bytenr(sb));
	json_flags(w, "flags", btrfs_super_flags(sb), &btrfs_super_flags_table);
	json_string_len(w, "magic", &sb->magic, sizeof(sb->magic));
	json_bool(w, "magic_match", btrfs_super_magic(sb) == BTRFS_MAGIC);
	json_uuid(w, "fsid", sb->fsid);
	json_uuid(w, "metadata_uuid", sb->metadata_uuid);
	json_string_len(w, "label", sb->label, strnlen(sb->label, BTRFS_LABEL_SIZE));
	json_u64(w, "generation", btrfs_super_generation(sb));
	json_u64(w, "root", btrfs_super_root(sb));
	json_u64(w, "sys_chunk_array_size", btrfs_super_sys_array_size(sb));
	json_u64(w, "chunk_root_generation", btrfs_super_chunk_root_generation(sb));
	json_u64(w, "root_level", btrfs_super_root_level(sb));
	json_u64(w, "chunk_root", btrfs_super_chunk_root(sb));
	json_u64(w, "chunk_root_level", btrfs_super_chunk_root_level(sb));
	json_u64(w, "log_root", btrfs_super_log_root(sb));
	json_u64(w, "log_root_transid", btrfs_super_log_root_transid(sb));
	json_u64(w, "log_root_level", btrfs_super_log_root_level(sb));
	json_u64(w, "total_bytes", btrfs_super_total_bytes(sb));
	json_u64(w, "bytes_used", btrfs_super_bytes_used(sb));
	json_u64(w, "sectorsize", btrfs_super_sectorsize(sb));
	json_u64(w, "nodesize", btrfs_super_nodesize(sb));
	json_u64(w, "leafsize", btrfs_super_leafsize(sb));
	json_u64(w, "stripesize", btrfs_super_stripesize(sb));
	json_u64(w, "root_dir_objectid", btrfs_super_root_dir(sb));
	json_u64(w, "num_devices", btrfs_super_num_devices(sb));
	json_flags(w, "compat_flags", btrfs_super_compat_flags(sb),
		   &(const struct btrfs_flag_table){ NULL, 0 });
	json_flags(w, "compat_ro_flags", btrfs_super_compat_ro_flags(sb), &btrfs_compat_ro_flags_table);
	json_flags(w, "incompat_flags", btrfs_super_incompat_flags(sb), &btrfs_incompat_flags_table);
	json_u64(w, "cache_generation", btrfs_super_cache_generation(sb));
	json_u64(w, "uuid_tree_generation", btrfs_super_uuid_tree_generation(sb));
	json_u64(w, "nr_global_roots", btrfs_super_nr_global_roots(sb));

	json_begin_object(w, "dev_item");
	json_u64(w, "devid", btrfs_device_id(dev));
	json_u64(w, "total_bytes", btrfs_device_total_bytes(dev));
	json_u64(w, "bytes_used", btrfs_device_bytes_used(dev));
	json_u64(w, "io_align", btrfs_device_io_align(dev));
	json_u64(w, "io_width", btrfs_device_io_width(dev));
	json_u64(w, "sector_size", btrfs_device_sector_size(dev));
	json_u64(w, "type", btrfs_device_type(dev));
	json_u64(w, "generation", btrfs_device_generation(dev));
	json_u64(w, "start_offset", btrfs_device_start_offset(dev));
	json_u64(w, "dev_group", btrfs_device_group(dev));
	json_u64(w, "seek_speed", btrfs_device_seek_speed(dev));
	json_u64(w, "bandwidth", btrfs_device_bandwidth(dev));
	json_uuid(w, "uuid", dev->uuid);
	json_uuid(w, "fsid", dev->fsid);
	json_bool(w, "fsid_match",
		  !memcmp(dev->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE));
	json_end_object(w);

	if (full) {
		json_sys_chunk_array(w, sb);
		json_backup_roots(w, sb);
	}
	json_end_object(w);
}

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
	if (a->json) {
		json_superblock(a->json, path, bytenr, &sb, a->full);
	} else {
		btrfs_print_superblock(stdout, &sb, a->full);
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
	return ret;
}
DEFINE_COMMAND(inspect_dump_super, "dump-super", dump_super_options, CMD_FORMAT_JSON);

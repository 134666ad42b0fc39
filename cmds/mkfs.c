// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.btrfs / btrfs mkfs: options, checks of the targets, the summary.
 * The filesystem itself is made by btrfs_make_fs() (mkfs/mkfs-layout.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>
#include <limits.h>
#include <time.h>
#include <fcntl.h>
#include <uuid.h>
#include <sys/ioctl.h>
#include "cmds/commands.h"
#include "common/auth-key.h"
#include "common/device-utils.h"
#include "mkfs/mkfs-layout.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/ioctl.h"

enum {
	OPT_CSUM = OPT_LONG_BASE, OPT_AUTH_KEY, OPT_DEVICE_UUID, OPT_SHRINK, OPT_COMPRESS, OPT_INODE_FLAGS,
	OPT_HELP_LONG, OPT_REFLINK,
};

static const char *const cmd_mkfs_usage[] = {
	"mkfs.btrfs [options] <dev> [<dev...>]",
	"Make a new btrfs filesystem on one or more devices or image files",
	"",
	"Allocation profiles: raid0, raid1, raid1c3, raid1c4, raid5, raid6, raid10, dup or single.",
	"Default: DUP metadata on one device, RAID1 metadata on more; single data.",
	"Features (-O, comma separated, ^ disables): mixed-bg, quota, extref, raid56,",
	"skinny-metadata, no-holes, free-space-tree, raid1c34, block-group-tree, squota;",
	"'-O list-all' lists them.  Exit status 0 on success, 1 on any error.",
	NULL
};

static const struct cli_values feature_values, runtime_feature_values;

static const struct cli_option mkfs_options[] = {
	OPT_ARG_VALUES('d', "data", "PROFILE", "data profile: raid0, raid1, raid1c3, raid1c4, raid5, raid6, raid10, dup or single",
		       cli_profile_values),
	OPT_ARG_VALUES('m', "metadata", "PROFILE", "metadata profile (the same names as -d)",
		       cli_profile_values),
	OPT_FLAG('M', "mixed", "put data and metadata in the same block groups"),
	OPT_ARG_VALUES(OPT_CSUM, "csum", "TYPE", "checksum algorithm: crc32c (default), xxhash, sha256, blake2",
		       cli_csum_values),
	OPT_ARG(OPT_CSUM, "checksum", "TYPE", NULL),
	OPT_ARG(OPT_AUTH_KEY, "auth-key", "NAME",
		"key (user key in the keyring) of a keyed csum type: auth-sha256, auth-blake2b, authsum-sha256, authsum-blake2b"),
	OPT_ARG('n', "nodesize", "SIZE", "size of btree nodes (4K..64K, default 16K)"),
	OPT_ARG('s', "sectorsize", "SIZE", "data block size (default 4K)"),
	OPT_ARG_VALUES('O', "features", "LIST", "comma separated list of filesystem features ('-O list-all' to list)",
		       feature_values),
	OPT_ARG_VALUES('R', "runtime-features", "LIST", "runtime features: quota, free-space-tree ('-R list-all' to list)",
		       runtime_feature_values),
	OPT_ARG('L', "label", "LABEL", "set the filesystem label"),
	OPT_ARG('U', "uuid", "UUID", "filesystem UUID instead of a random one"),
	OPT_ARG(OPT_DEVICE_UUID, "device-uuid", "UUID", "specify the device UUID of the first device"),
	OPT_ARG('b', "byte-count", "SIZE", "set size of each device to SIZE (image files are created sparse)"),
	OPT_ARG('r', "rootdir", "DIR", "fill the new filesystem with the tree under DIR"),
	OPT_FLAG(OPT_REFLINK, "reflink", "(with --rootdir) clone file data from the source files instead of copying it (source and image on the same btrfs; no compression of cloned data)"),
	OPT_ARG('u', "subvol", "TYPE:SUBDIR", "(with --rootdir) create SUBDIR as a subvolume; TYPE: rw (default), ro, default, default-ro"),
	OPT_ARG_VALUES(OPT_COMPRESS, "compress", "ALGO[:LEVEL]", "(with --rootdir) compress files: no, zlib, lzo, zstd; level 1..9 zlib, 1..15 zstd",
		       cli_compress_values),
	OPT_ARG(OPT_INODE_FLAGS, "inode-flags", "FLAGS:PATH", "(with --rootdir) set nodatacow and/or nodatasum (comma separated) on PATH"),
	OPT_FLAG(OPT_SHRINK, "shrink", "(with --rootdir) end the filesystem where its last chunk ends"),
	OPT_FLAG('K', "nodiscard", "skip discarding (TRIM) a block device first"),
	OPT_FLAG('f', "force", "write over an existing filesystem or signature"),
	OPT_FLAG('q', "quiet", "print errors only"),
	OPT_FLAG('v', "verbose", "increase verbosity level"),
	OPT_FLAG('V', "version", "print the version and build features, then exit"),
	OPT_END(),
};

/* ---- features ------------------------------------------------------------ */

enum { FT_INCOMPAT, FT_COMPAT_RO, FT_MIXED, FT_QUOTA, FT_SQUOTA, FT_ZONED };

struct mkfs_feature {
	const char *name;
	int kind;
	u64 bits;
	const char *desc;
	bool runtime;       /* also a runtime feature (-R), as btrfs-progs 6.19 lists them */
};

static const struct mkfs_feature features[] = {
	{ "mixed-bg", FT_MIXED, BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS,
	  "mixed data and metadata block groups (compat=2.6.37, safe=2.6.37)" },
	{ "quota", FT_QUOTA, 0, "hierarchical quota group support (qgroups) (compat=3.4)", true },
	{ "extref", FT_INCOMPAT, BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF,
	  "increased hardlink limit per file to 65536 (compat=3.7, safe=3.12, default=3.12)" },
	{ "raid56", FT_INCOMPAT, BTRFS_FEATURE_INCOMPAT_RAID56, "raid56 extended format (compat=3.9)" },
	{ "skinny-metadata", FT_INCOMPAT, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA,
	  "reduced-size metadata extent refs (compat=3.10, safe=3.18, default=3.18)" },
	{ "no-holes", FT_INCOMPAT, BTRFS_FEATURE_INCOMPAT_NO_HOLES,
	  "no explicit hole extents for files (compat=3.14, safe=4.0, default=5.15)" },
	{ "fst", FT_COMPAT_RO, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
	  BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID, NULL, true },
	{ "free-space-tree", FT_COMPAT_RO, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
	  BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID,
	  "free space tree, improved space tracking (space_cache=v2) (compat=4.5, safe=4.9, default=5.15)", true },
	{ "raid1c34", FT_INCOMPAT, BTRFS_FEATURE_INCOMPAT_RAID1C34, "RAID1 with 3 or 4 copies (compat=5.5)" },
	{ "zoned", FT_ZONED, BTRFS_FEATURE_INCOMPAT_ZONED, "support zoned (SMR/ZBC/ZNS) devices (compat=5.12)" },
	{ "bgt", FT_COMPAT_RO, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, NULL },
	{ "block-group-tree", FT_COMPAT_RO, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE,
	  "block group tree, more efficient block group tracking to reduce mount time (compat=6.1, default=6.19)" },
	{ "squota", FT_SQUOTA, BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA,
	  "squota support (simple accounting qgroups) (compat=6.7)" },
};

/* -O list-all, or with runtime -R list-all: the runtime features only. */
/* The names -O (or -R: runtime ones) takes, then list-all, for completion. */
static const char *feature_at(size_t i, bool runtime)
{
	size_t k = 0;

	for (size_t f = 0; f < ARRAY_SIZE(features); f++)
		if ((!runtime || features[f].runtime) && k++ == i)
			return features[f].name;
	return k == i ? "list-all" : NULL;
}

static const char *any_feature_at(size_t i, char buf[64])
{
	return feature_at(i, false);
}

static const char *runtime_feature_at(size_t i, char buf[64])
{
	return feature_at(i, true);
}

static const struct cli_values feature_values = { .at = any_feature_at, .list = true };
static const struct cli_values runtime_feature_values = { .at = runtime_feature_at, .list = true };

static void list_features(bool runtime)
{
	fprintf(stderr, "%s features available:\n", runtime ? "Runtime" : "Filesystem");
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		if (runtime && !features[i].runtime)
			continue;
		if (!features[i].desc) {
			fprintf(stderr, "%-20s- %s alias\n", features[i].name,
				features[i].kind == FT_COMPAT_RO &&
				(features[i].bits & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE) ?
				"block-group-tree" : "free-space-tree");
			continue;
		}
		fprintf(stderr, "%-20s- %s\n", features[i].name, features[i].desc);
	}
}

struct mkfs_opts {
	u64 incompat;
	u64 compat_ro;
	bool mixed;
	bool quota;
	bool squota;
	bool list_all;
	bool list_runtime;
	bool bgt_asked;     /* block-group-tree named without ^ */
};

/* Apply one -O list ("a,^b"), or with runtime one -R list; 0 or 1 (error printed). */
static int parse_features(char *list, struct mkfs_opts *o, bool runtime)
{
	char *save = NULL;

	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool off = tok[0] == '^';
		const char *name = off ? tok + 1 : tok;
		const struct mkfs_feature *f = NULL;

		if (!strcasecmp(name, "list-all")) {
			o->list_all = true;
			o->list_runtime = runtime;
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(features); i++)
			if (!strcasecmp(features[i].name, name))
				f = &features[i];
		if (!f) {
			error("unrecognized %s feature '%s'", runtime ? "runtime" : "filesystem", name);
			return 1;
		}
		if (runtime && !f->runtime) {
			error("'%s' is not a runtime feature (-R takes quota and free-space-tree): give it with -O",
			      name);
			return 1;
		}
		if (!off && f->kind == FT_COMPAT_RO && (f->bits & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE))
			o->bgt_asked = true;
		switch (f->kind) {
		case FT_INCOMPAT:
			if (off)
				o->incompat &= ~f->bits;
			else
				o->incompat |= f->bits;
			break;
		case FT_COMPAT_RO:
			if (off)
				o->compat_ro &= ~f->bits;
			else
				o->compat_ro |= f->bits;
			break;
		case FT_MIXED:
			o->mixed = !off;
			break;
		case FT_QUOTA:
			o->quota = !off;
			break;
		case FT_SQUOTA:
			o->squota = !off;
			break;
		case FT_ZONED:
			if (!off) {
				error("zoned mode is not supported by this mkfs");
				return 1;
			}
			break;
		}
	}
	return 0;
}

/* ---- output ---------------------------------------------------------------- */

static void pretty_size(u64 v, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = v;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, len, "%lluB", (unsigned long long)v);
		return;
	}
	while (d >= 1024 && u < (int)ARRAY_SIZE(units) - 1) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f%s", d, units[u]);
}

static void print_profile_line(const char *what, const struct mkfs_summary *s, u64 type_mask, u64 want)
{
	u64 size = 0, profile = 0;
	bool any = false;
	char sz[32];

	for (int i = 0; i < s->nr_chunks; i++) {
		if ((s->chunks[i].type & type_mask) != want)
			continue;
		size += s->chunks[i].size;
		profile = s->chunks[i].type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
		any = true;
	}
	if (!any)
		return;
	pretty_size(size, sz, sizeof(sz));
	printf("  %-18s%-7s%18s\n", what, btrfs_raid_profile_find(profile)->upper, sz);
}

static void print_summary(const char *label, const u8 *fsid, u32 nodesize, u32 sectorsize,
			  const struct mkfs_summary *s, const struct mkfs_config *cfg, bool mixed,
			  struct target_device *t)
{
	char uuid[BTRFS_UUID_UNPARSED_SIZE], sz[32];
	bool first = true;
	const u64 tm = BTRFS_BLOCK_GROUP_TYPE_MASK;

	uuid_unparse(fsid, uuid);
	printf("Label:              %s\n", label && *label ? label : "(null)");
	printf("UUID:               %s\n", uuid);
	printf("Node size:          %u\n", nodesize);
	printf("Sector size:        %u\t(CPU page size: %ld)\n", sectorsize, sysconf(_SC_PAGESIZE));
	pretty_size(s->total_bytes, sz, sizeof(sz));
	printf("Filesystem size:    %s\n", sz);
	printf("Block group profiles:\n");
	if (mixed) {
		print_profile_line("Data+Metadata:", s, tm, BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA);
	} else {
		print_profile_line("Data:", s, tm, BTRFS_BLOCK_GROUP_DATA);
		print_profile_line("Metadata:", s, tm, BTRFS_BLOCK_GROUP_METADATA);
	}
	print_profile_line("System:", s, tm, BTRFS_BLOCK_GROUP_SYSTEM);
	printf("SSD detected:       no\n");
	printf("Zoned device:       no\n");
	printf("Features:           ");
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		const struct mkfs_feature *f = &features[i];
		bool on = false;

		if (!f->desc)
			continue;
		switch (f->kind) {
		case FT_INCOMPAT:
			on = (cfg->incompat & f->bits) == f->bits;
			break;
		case FT_COMPAT_RO:
			on = (cfg->compat_ro & f->bits) == f->bits;
			break;
		case FT_MIXED:
			on = mixed;
			break;
		case FT_QUOTA:
			on = cfg->quota;
			break;
		case FT_SQUOTA:
			on = cfg->squota;
			break;
		}
		if (!on)
			continue;
		printf("%s%s", first ? "" : ", ", f->name);
		first = false;
	}
	printf("\n");
	printf("Checksum:           %s\n", btrfs_csum_type_keyed(cfg->csum_type) ?
	       btrfs_csum_type_name(cfg->csum_type) : cfg->csum_type == BTRFS_CSUM_TYPE_CRC32 ? "crc32c" :
	       cfg->csum_type == BTRFS_CSUM_TYPE_XXHASH ? "xxhash64" :
	       cfg->csum_type == BTRFS_CSUM_TYPE_SHA256 ? "sha256" : "blake2");
	printf("Number of devices:  %d\n", cfg->ndevs);
	printf("Devices:\n");
	printf("   ID        SIZE  PATH\n");
	for (int i = 0; i < cfg->ndevs; i++) {
		pretty_size(cfg->devs[i].size, sz, sizeof(sz));
		printf("%5d%12s  %s\n", i + 1, sz, t[i].path);
	}
	printf("\n");
}

/* ---- --rootdir options ----------------------------------------------------------- */

/*
 * A path given relative to rootdir (or absolute), resolved; it must lie
 * strictly inside rootdir.  Returns a malloc'd path or NULL (printed).
 */
static char *resolve_inside(const char *rootdir, const char *path, const char *opt)
{
	char joined[PATH_MAX], root[PATH_MAX], *res;
	size_t rl;

	if (!realpath(rootdir, root)) {
		error("cannot resolve --rootdir %s: %m", rootdir);
		return NULL;
	}
	if (path[0] == '/')
		snprintf(joined, sizeof(joined), "%s", path);
	else if (snprintf(joined, sizeof(joined), "%s/%s", root, path) >= (int)sizeof(joined)) {
		error("%s path too long: %s", opt, path);
		return NULL;
	}
	res = realpath(joined, NULL);
	if (!res) {
		error("%s: cannot find %s inside %s: %m", opt, path, rootdir);
		return NULL;
	}
	rl = strlen(root);
	if (strncmp(res, root, rl) || res[rl] != '/') {
		error("%s: %s is not inside --rootdir %s", opt, path, rootdir);
		free(res);
		return NULL;
	}
	return res;
}

/* "[TYPE:]DIR"; "./" in front means no TYPE.  0 or 1 (printed). */
static int parse_subvol_arg(const char *arg, struct mkfs_subvol_arg *sv, const char **dir)
{
	static const struct { const char *name; int type; } types[] = {
		{ "rw", MKFS_SUBVOL_RW }, { "ro", MKFS_SUBVOL_RO },
		{ "default", MKFS_SUBVOL_DEFAULT }, { "default-ro", MKFS_SUBVOL_DEFAULT_RO },
	};
	const char *colon = strchr(arg, ':');

	sv->type = MKFS_SUBVOL_RW;
	*dir = arg;
	if (colon && strncmp(arg, "./", 2)) {
		for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
			if (strlen(types[i].name) == (size_t)(colon - arg) &&
			    !strncmp(arg, types[i].name, colon - arg)) {
				sv->type = types[i].type;
				*dir = colon + 1;
				return 0;
			}
		}
	}
	if (!**dir) {
		error("invalid --subvol argument: %s", arg);
		return 1;
	}
	return 0;
}

/* "FLAG[,FLAG...]:PATH".  0 or 1 (printed). */
static int parse_inode_flags_arg(const char *arg, struct mkfs_inode_flags_arg *f, const char **path)
{
	const char *colon = strchr(arg, ':');
	char flags[128];

	if (!colon || colon == arg || !colon[1] || (size_t)(colon - arg) >= sizeof(flags)) {
		error("invalid --inode-flags argument, expected FLAGS:PATH: %s", arg);
		return 1;
	}
	memcpy(flags, arg, colon - arg);
	flags[colon - arg] = 0;
	f->flags = 0;
	for (char *save = NULL, *tok = strtok_r(flags, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "nodatacow")) {
			f->flags |= BTRFS_INODE_NODATACOW | BTRFS_INODE_NODATASUM;
		} else if (!strcmp(tok, "nodatasum")) {
			f->flags |= BTRFS_INODE_NODATASUM;
		} else {
			error("unknown inode flag '%s' (supported: nodatacow, nodatasum)", tok);
			return 1;
		}
	}
	*path = colon + 1;
	return 0;
}

/*
 * The image size --rootdir DIR needs on one device: the smallest layout plus
 * the data and metadata estimates times their copies, plus room for the
 * last chunks to be partly empty.  0 or 1 (printed).
 */
/*
 * --reflink: the btrfs fsid of the filesystem holding fd, or a message naming what and
 * -1 when it is not on a (mounted) btrfs.
 */
static int reflink_fsid(int fd, const char *what, const char *path, u8 *fsid)
{
	struct btrfs_ioctl_fs_info_args fi = { 0 };

	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0) {
		error("--reflink: %s %s is not on a btrfs filesystem: %m (the files of --rootdir and the image must be on the same btrfs)",
		      what, path);
		return -1;
	}
	memcpy(fsid, fi.fsid, BTRFS_FSID_SIZE);
	return 0;
}

/* --reflink: the fsid of the btrfs that holds directory rootdir, or -1 (printed). */
static int reflink_rootdir_fsid(const char *rootdir, u8 *fsid)
{
	int fd = open(rootdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0) {
		error("cannot open %s: %m", rootdir);
		return -1;
	}
	ret = reflink_fsid(fd, "--rootdir", rootdir, fsid);
	close(fd);
	return ret;
}

/* --reflink: target t an image file on the btrfs of fsid, which holds rootdir; or -1 (printed). */
static int reflink_target_ok(const struct target_device *t, const char *rootdir, const u8 *fsid)
{
	u8 have[BTRFS_FSID_SIZE];

	if (t->is_blockdev) {
		error("--reflink: %s is a block device; the image must be a file on the btrfs that holds %s",
		      t->path, rootdir);
		return -1;
	}
	if (reflink_fsid(t->fd, "image", t->path, have) < 0)
		return -1;
	if (memcmp(fsid, have, BTRFS_FSID_SIZE)) {
		error("--reflink: %s and %s are on different btrfs filesystems (clones stay inside one)",
		      t->path, rootdir);
		return -1;
	}
	return 0;
}

static int rootdir_image_size(const char *dir, u64 sectorsize, u64 meta_profile, u64 data_profile,
			      bool mixed, u64 *size)
{
	struct mkfs_config tmp = { .meta_profile = meta_profile, .data_profile = data_profile,
				   .mixed = mixed };
	const struct btrfs_raid_profile *m = btrfs_raid_profile_find(meta_profile);
	const struct btrfs_raid_profile *d = btrfs_raid_profile_find(data_profile);
	u64 data, meta;

	if (mkfs_rootdir_estimate(dir, sectorsize, &data, &meta) < 0)
		return 1;
	data *= d ? d->ncopies : 1;
	meta *= m ? m->ncopies : 1;
	*size = btrfs_mkfs_min_dev_size(&tmp) + data + meta + (data + meta) / 8 + SZ_256M;
	*size = round_up(*size, (u64)SZ_1M);
	return 0;
}

/* ---- the command ------------------------------------------------------------- */

static int parse_profile(const char *arg, const char *what, u64 *out)
{
	const struct btrfs_raid_profile *a = btrfs_raid_profile_by_name(arg);

	if (!a) {
		error("unknown %s profile %s", what, arg);
		return 1;
	}
	*out = a->bg_flag;
	return 0;
}

static int check_profile_devices(u64 profile, const char *what, int ndevs)
{
	const struct btrfs_raid_profile *a = btrfs_raid_profile_find(profile);

	if (ndevs < a->devs_min) {
		error("unable to create FS with %s profile %s (have %d devices but %d devices are required)",
		      what, a->upper, ndevs, a->devs_min);
		return 1;
	}
	return 0;
}

static int cmd_mkfs(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_getopt_state st = { 0 };
	struct mkfs_opts o = {
		.incompat = BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF | BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF |
			    BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA | BTRFS_FEATURE_INCOMPAT_NO_HOLES,
		.compat_ro = BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
			     BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID |
			     BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE,
	};
	char **paths = calloc(argc + 1, sizeof(char *));
	struct target_device *t = NULL;
	struct mkfs_device *devs = NULL;
	struct mkfs_config cfg = { 0 };
	struct mkfs_summary summary;
	u64 data_profile = 0, meta_profile = 0, byte_count = 0, nodesize = 0, sectorsize = SZ_4K;
	bool data_set = false, meta_set = false, force = false, quiet = ctx->quiet, nodiscard = false;
	bool nodesize_set = false, has_uuid = false, has_dev_uuid = false;
	const char *label = NULL, *rootdir = NULL;
	int verbose = ctx->verbose, npaths = 0, c, ret = 1, opened = 0;
	int csum_type = BTRFS_CSUM_TYPE_CRC32;
	const char *auth_key_name = ctx->auth_key;
	struct auth_key key = { 0 };
	struct btrfs_csum csum = { 0 };
	uuid_t fsid, dev_uuid;
	bool shrink = false, reflink = false;
	u8 reflink_fs[BTRFS_FSID_SIZE];
	u64 need_size = 0;
	int compress = 0, compress_level = 0, nr_subvols = 0, nr_iflags = 0;
	const char **subvol_dirs = calloc(argc + 1, sizeof(char *));
	const char **iflag_paths = calloc(argc + 1, sizeof(char *));
	struct mkfs_subvol_arg *subvols = calloc(argc + 1, sizeof(*subvols));
	struct mkfs_inode_flags_arg *iflags = calloc(argc + 1, sizeof(*iflags));
	char **resolved = calloc(2 * argc + 2, sizeof(char *));
	int nr_resolved = 0;

	if (!paths || !subvol_dirs || !iflag_paths || !subvols || !iflags || !resolved)
		goto out;
	while (1) {
		c = cli_getopt(cmd, argc, argv, &st);
		if (c == -1) {
			/* Positional arguments and options may be mixed, as getopt permutes. */
			if (optind >= argc)
				break;
			if (!strcmp(argv[optind - 1], "--")) {
				while (optind < argc)
					paths[npaths++] = argv[optind++];
				break;
			}
			paths[npaths++] = argv[optind++];
			continue;
		}
		switch (c) {
		case 'd':
			if (parse_profile(st.optarg, "data", &data_profile))
				goto out;
			data_set = true;
			break;
		case 'm':
			if (parse_profile(st.optarg, "metadata", &meta_profile))
				goto out;
			meta_set = true;
			break;
		case 'M':
			o.mixed = true;
			break;
		case OPT_CSUM:
			csum_type = btrfs_csum_type_by_name(st.optarg);
			if (csum_type < 0) {
				error("unknown csum type %s", st.optarg);
				goto out;
			}
			break;
		case OPT_AUTH_KEY:
			auth_key_name = st.optarg;
			break;
		case 'n':
			if (parse_size(st.optarg, &nodesize)) {
				error("invalid nodesize: %s", st.optarg);
				goto out;
			}
			nodesize_set = true;
			break;
		case 's':
			if (parse_size(st.optarg, &sectorsize)) {
				error("invalid sectorsize: %s", st.optarg);
				goto out;
			}
			break;
		case 'O':
		case 'R': {
			char *copy = strdup(st.optarg);

			if (!copy)
				goto out;
			ret = parse_features(copy, &o, c == 'R');
			free(copy);
			if (ret)
				goto out;
			ret = 1;
			break;
		}
		case 'L':
			if (strlen(st.optarg) >= BTRFS_LABEL_SIZE) {
				error("label %s is too long (max %d)", st.optarg, BTRFS_LABEL_SIZE - 1);
				goto out;
			}
			label = st.optarg;
			break;
		case 'U':
			if (uuid_parse(st.optarg, fsid)) {
				error("could not parse UUID: %s", st.optarg);
				goto out;
			}
			has_uuid = true;
			break;
		case OPT_DEVICE_UUID:
			if (uuid_parse(st.optarg, dev_uuid)) {
				error("could not parse UUID: %s", st.optarg);
				goto out;
			}
			has_dev_uuid = true;
			break;
		case 'b':
			if (parse_size(st.optarg, &byte_count)) {
				error("invalid byte count: %s", st.optarg);
				goto out;
			}
			break;
		case 'r':
			rootdir = st.optarg;
			break;
		case OPT_REFLINK:
			reflink = true;
			break;
		case OPT_SHRINK:
			shrink = true;
			break;
		case 'u':
			if (parse_subvol_arg(st.optarg, &subvols[nr_subvols], &subvol_dirs[nr_subvols]))
				goto out;
			nr_subvols++;
			break;
		case OPT_INODE_FLAGS:
			if (parse_inode_flags_arg(st.optarg, &iflags[nr_iflags], &iflag_paths[nr_iflags]))
				goto out;
			nr_iflags++;
			break;
		case OPT_COMPRESS: {
			char algo[32];
			const char *colon = strchr(st.optarg, ':');
			size_t alen = colon ? (size_t)(colon - st.optarg) : strlen(st.optarg);
			int min, max;

			if (alen >= sizeof(algo)) {
				error("unrecognized compression algorithm: %s", st.optarg);
				goto out;
			}
			memcpy(algo, st.optarg, alen);
			algo[alen] = 0;
			compress = btrfs_compress_type_by_name(algo);
			if (compress < 0) {
				error("unrecognized compression algorithm: %s", algo);
				goto out;
			}
			if (compress && !btrfs_compress_supported(compress)) {
				error("%s compression is not supported by this build", algo);
				goto out;
			}
			btrfs_compress_level_range(compress, &min, &max);
			compress_level = 0;
			if (colon) {
				char *end;
				long lv = strtol(colon + 1, &end, 10);

				if (!colon[1] || *end || !max || lv < min || lv > max) {
					if (!max)
						error("compression level is not supported for %s", algo);
					else
						error("invalid compression level %s for %s (%d..%d)", colon + 1, algo,
						      min, max);
					goto out;
				}
				compress_level = (int)lv;
			}
			break;
		}
		case 'K':
			nodiscard = true;
			break;
		case 'f':
			force = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'V':
			printf("mkfs.btrfs, part of %s v%s\n%s\n", PACKAGE_NAME, PACKAGE_VERSION,
			       btrfs_build_features());
			ret = 0;
			goto out;
		case CLI_OPT_HELP:
			usage_print(cmd, stdout, true);
			ret = 0;
			goto out;
		default:
			goto out;
		}
	}
	if (o.list_all) {
		list_features(o.list_runtime);
		ret = 0;
		goto out;
	}
	if (npaths < 1) {
		ret = usage_error(cmd, "no device specified");
		goto out;
	}

	/* Keyed checksums: the key before anything is opened or written. */
	if (btrfs_csum_type_keyed(csum_type) && !auth_key_name) {
		error("csum type %s is keyed: give its key with --auth-key NAME",
		      btrfs_csum_type_name(csum_type));
		goto out;
	}
	if (auth_key_name && !btrfs_csum_type_keyed(csum_type)) {
		error("--auth-key needs a keyed csum type (--csum auth-sha256, auth-blake2b, authsum-sha256 or authsum-blake2b), not %s",
		      btrfs_csum_type_name(csum_type));
		goto out;
	}
	if (auth_key_name) {
		if (auth_key_load(auth_key_name, &key) < 0)
			goto out;
		if (btrfs_csum_setup(&csum, csum_type, key.bytes, key.len) < 0) {
			error("key '%s' cannot be used with %s (keyed BLAKE2b takes at most 64 bytes)",
			      auth_key_name, btrfs_csum_type_name(csum_type));
			goto out;
		}
		cfg.csum = &csum;
		cfg.auth_key = key.bytes;
		cfg.auth_key_len = key.len;
		warning("checksum type %s is a btrfs-kit extension: the Linux kernel cannot mount this filesystem",
			btrfs_csum_type_name(csum_type));
	}

	/* Geometry. */
	if (sectorsize < SZ_4K || sectorsize > SZ_64K || (sectorsize & (sectorsize - 1))) {
		error("invalid sectorsize %llu, must be a power of 2 between 4K and 64K",
		      (unsigned long long)sectorsize);
		goto out;
	}
	if (sectorsize != (u64)sysconf(_SC_PAGESIZE) && sectorsize != SZ_4K)
		warning("the filesystem may not be mountable, sectorsize %llu doesn't match page size %ld",
			(unsigned long long)sectorsize, sysconf(_SC_PAGESIZE));
	if (!nodesize_set)
		nodesize = o.mixed ? sectorsize : max_t(u64, SZ_16K, sectorsize);
	if (nodesize < sectorsize || nodesize > SZ_64K || (nodesize & (nodesize - 1))) {
		error("invalid nodesize %llu: must be a power of 2, at least the sectorsize %llu and at most 64K",
		      (unsigned long long)nodesize, (unsigned long long)sectorsize);
		goto out;
	}
	if (o.mixed && nodesize != sectorsize) {
		error("with mixed block groups nodesize (%llu) and sectorsize (%llu) must be equal",
		      (unsigned long long)nodesize, (unsigned long long)sectorsize);
		goto out;
	}

	/* Profiles. */
	if (!meta_set)
		meta_profile = o.mixed ? (data_set ? data_profile : 0) :
			       (npaths > 1 ? BTRFS_BLOCK_GROUP_RAID1 : BTRFS_BLOCK_GROUP_DUP);
	if (!data_set)
		data_profile = o.mixed ? meta_profile : 0;
	if (o.mixed && data_profile != meta_profile) {
		error("with mixed block groups data and metadata profiles must be the same");
		goto out;
	}
	if (check_profile_devices(meta_profile, "metadata", npaths) ||
	    check_profile_devices(data_profile, "data", npaths))
		goto out;
	if (o.mixed)
		o.incompat |= BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS;
	/* raid56, raid1c34 */
	o.incompat |= btrfs_raid_profile_find(data_profile)->incompat |
		      btrfs_raid_profile_find(meta_profile)->incompat;
	if (o.squota)
		o.incompat |= BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA;
	if (o.quota && o.squota) {
		error("quota and squota are exclusive");
		goto out;
	}
	/*
	 * The kernel refuses to mount block-group-tree without these two.  Asked for, it is an
	 * error; on by default, it goes, with 6.19's warning (scripts may look for it).
	 */
	if ((o.compat_ro & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE) &&
	    (!(o.compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE) ||
	     !(o.incompat & BTRFS_FEATURE_INCOMPAT_NO_HOLES))) {
		if (o.bgt_asked) {
			error("block-group-tree feature requires free-space-tree and no-holes (disable it with -O ^block-group-tree)");
			goto out;
		}
		warning("disabling block-group-tree feature due to missing no-holes and free-space-tree features");
		o.compat_ro &= ~BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;
	}

	/* --rootdir and the options that need it. */
	if (!rootdir && (nr_subvols || nr_iflags || shrink || compress)) {
		error("options --subvol, --inode-flags, --compress and --shrink need --rootdir");
		goto out;
	}
	if (reflink && !rootdir) {
		error("option --reflink needs --rootdir");
		goto out;
	}
	if (reflink && btrfs_raid_has_parity(data_profile)) {
		error("--reflink cannot clone into RAID5/6 data: parity is computed from the bytes (use another data profile)");
		goto out;
	}
	if (reflink && reflink_rootdir_fsid(rootdir, reflink_fs) < 0)
		goto out;
	if (shrink && npaths > 1) {
		error("cannot shrink fs with more than 1 device");
		goto out;
	}
	for (int i = 0, defaults = 0; i < nr_subvols; i++) {
		char *r = resolve_inside(rootdir, subvol_dirs[i], "--subvol");

		if (!r)
			goto out;
		resolved[nr_resolved++] = r;
		subvols[i].path = r;
		for (int j = 0; j < i; j++) {
			if (!strcmp(subvols[j].path, r)) {
				error("subvolume %s specified more than once", subvol_dirs[i]);
				goto out;
			}
		}
		if (subvols[i].type == MKFS_SUBVOL_DEFAULT || subvols[i].type == MKFS_SUBVOL_DEFAULT_RO) {
			if (defaults++) {
				error("only one subvolume can be the default");
				goto out;
			}
		}
	}
	for (int i = 0; i < nr_iflags; i++) {
		char *r = resolve_inside(rootdir, iflag_paths[i], "--inode-flags");

		if (!r)
			goto out;
		resolved[nr_resolved++] = r;
		iflags[i].path = r;
	}
	if (compress == BTRFS_COMPRESS_LZO)
		o.incompat |= BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO;
	if (compress == BTRFS_COMPRESS_ZSTD)
		o.incompat |= BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD;

	/* Targets: duplicates, mounted, signatures, sizes. */
	t = calloc(npaths, sizeof(*t));
	devs = calloc(npaths, sizeof(*devs));
	if (!t || !devs)
		goto out;
	for (int i = 0; i < npaths; i++) {
		if (target_is_mounted(paths[i]) == 1) {
			error("%s is mounted", paths[i]);
			goto out;
		}
	}
	for (int i = 0; i < npaths; i++) {
		char type[128];

		if (!force && access(paths[i], F_OK) == 0 &&
		    target_probe_signature(paths[i], type, sizeof(type)) == 1) {
			error("%s appears to contain an existing filesystem (%s)", paths[i], type);
			error("use the -f option to force overwrite of %s", paths[i]);
			goto out;
		}
	}
	if (rootdir && !byte_count && npaths == 1 &&
	    rootdir_image_size(rootdir, sectorsize, meta_profile, data_profile, o.mixed, &need_size))
		goto out;
	for (int i = 0; i < npaths; i++) {
		if (target_open(&t[i], paths[i], byte_count ? byte_count : need_size) < 0)
			goto out;
		opened++;
		if (reflink && reflink_target_ok(&t[i], rootdir, reflink_fs) < 0) {
			if (t[i].created)
				unlink(paths[i]);    /* nothing of it was ours to keep */
			goto out;
		}
		/* --rootdir enlarges an image file too small for the tree (as btrfs-progs). */
		if (need_size && !t[i].is_blockdev && t[i].size < need_size) {
			if (ftruncate(t[i].fd, (off_t)need_size) < 0) {
				error("cannot enlarge %s to %llu bytes: %m", paths[i], (unsigned long long)need_size);
				goto out;
			}
			t[i].size = need_size;
		}
		for (int j = 0; j < i; j++) {
			if (target_same(&t[i], &t[j])) {
				error("%s and %s are the same device", paths[j], paths[i]);
				goto out;
			}
		}
	}
	cfg.devs = devs;
	cfg.ndevs = npaths;
	cfg.nodesize = nodesize;
	cfg.sectorsize = sectorsize;
	cfg.csum_type = csum_type;
	cfg.incompat = o.incompat;
	cfg.compat_ro = o.compat_ro;
	cfg.data_profile = data_profile;
	cfg.meta_profile = meta_profile;
	cfg.mixed = o.mixed;
	cfg.quota = o.quota;
	cfg.squota = o.squota;
	cfg.label = label;
	cfg.rootdir = rootdir;
	cfg.subvols = subvols;
	cfg.nr_subvols = nr_subvols;
	cfg.inode_flags = iflags;
	cfg.nr_inode_flags = nr_iflags;
	cfg.compress = compress;
	cfg.compress_level = compress_level;
	cfg.shrink = shrink;
	cfg.reflink = reflink;
	for (int i = 0; i < npaths; i++) {
		u64 size = t[i].size;
		u64 min = btrfs_mkfs_min_dev_size(&cfg);

		if (byte_count) {
			if (byte_count > size) {
				error("%s is smaller than the requested size %llu (%llu bytes)", paths[i],
				      (unsigned long long)byte_count, (unsigned long long)size);
				goto out;
			}
			size = byte_count;
		}
		size = round_down(size, sectorsize);
		if (size < min) {
			error("%s is too small to make a usable filesystem (%llu bytes)", paths[i],
			      (unsigned long long)size);
			error("minimum size for each btrfs device is %llu", (unsigned long long)min);
			goto out;
		}
		devs[i].path = paths[i];
		devs[i].fd = t[i].fd;
		devs[i].size = size;
		if (i == 0 && has_dev_uuid)
			memcpy(devs[i].uuid, dev_uuid, BTRFS_UUID_SIZE);
		else
			uuid_generate(devs[i].uuid);
	}
	if (!has_uuid)
		uuid_generate(fsid);
	memcpy(cfg.fsid, fsid, BTRFS_FSID_SIZE);
	uuid_generate(cfg.chunk_uuid);
	uuid_generate(cfg.fs_uuid);
	cfg.now = time(NULL);
	cfg.generation = 1;

	if (!quiet) {
		printf("%s v%s\n", PACKAGE_NAME, PACKAGE_VERSION);
		printf("Manual: mkfs.btrfs(8); the btrfs format: https://btrfs.readthedocs.io\n\n");
	}
	if (btrfs_write_log_open(&cfg.write_log) < 0)
		goto out;
	for (int i = 0; i < npaths; i++) {
		t[i].write_log = cfg.write_log;
		if (!nodiscard && t[i].is_blockdev) {
			char sz[32];

			pretty_size(devs[i].size, sz, sizeof(sz));
			if (!quiet)
				printf("Performing full device TRIM %s (%s) ...\n", paths[i], sz);
			target_discard(&t[i], devs[i].size);
		}
		if (target_wipe(&t[i], t[i].size) < 0)
			goto out;
	}
	if (btrfs_make_fs(&cfg, &summary) < 0) {
		error("failed to create the filesystem");
		goto out;
	}
	if (shrink) {
		devs[0].size = summary.dev_size[0];
		if (!t[0].is_blockdev && ftruncate(t[0].fd, (off_t)devs[0].size) < 0) {
			error("cannot truncate %s to %llu bytes: %m", paths[0], (unsigned long long)devs[0].size);
			goto out;
		}
	}
	if (!quiet) {
		print_summary(label, fsid, nodesize, sectorsize, &summary, &cfg, o.mixed, t);
	}
	if (verbose > 1)
		printf("Bytes used: %llu\n", (unsigned long long)summary.bytes_used);
	ret = 0;
out:
	if (cfg.csum)
		btrfs_csum_release(&csum);
	auth_key_wipe(&key);
	for (int i = 0; i < opened; i++)
		target_close(&t[i]);
	btrfs_write_log_close(cfg.write_log);
	free(t);
	free(devs);
	free(paths);
	for (int i = 0; i < nr_resolved; i++)
		free(resolved[i]);
	free(resolved);
	free(subvol_dirs);
	free(iflag_paths);
	free(subvols);
	free(iflags);
	return ret;
}
DEFINE_COMMAND(mkfs, "mkfs", mkfs_options, 0);

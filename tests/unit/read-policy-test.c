// SPDX-License-Identifier: GPL-2.0
/*
 * The tree block read (btrfs_read_tree_block_policy) over its policies, one
 * table row per case: the extent tree's root leaf of an image made by our
 * mkfs (1 mirror: -m single, 2: -m dup, 3: -m raid1c3 on three devices) is
 * written to each mirror either intact or with one fault, the filesystem is
 * opened afresh (empty block cache) and the block read once.  Each row
 * states the return code, which mirror's bytes come back (none, or the
 * mirror number: its bytes are compared with what was written there) and
 * what is printed on stderr.
 *
 * Needs $BTRFS (our binary, for mkfs); images go to $TMPDIR.
 */
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"

enum fault {
	GOOD,
	BAD_CSUM,      /* a byte of the body changed, checksum left */
	BAD_BYTENR,    /* header fields changed, checksum recomputed ... */
	BAD_FSID,
	BAD_LEVEL,
	BAD_OWNER,
	BAD_TRANSID,
	BAD_CHECKER,   /* item 0 one byte longer: only the tree-checker objects */
	UNREADABLE,    /* the mirror's device is missing */
	NR_FAULTS
};

enum msg { MSG_NONE, MSG_ERROR, MSG_CHECKER };

/* one image: its device files and where the target block lives on each mirror */
struct image {
	int nmirrors;
	char paths[3][512];
	int ndevs;
	u64 devid[3];          /* of mirror m + 1 */
	char *mirror_path[3];  /* of mirror m + 1 */
	u64 physical[3];
	u64 bytenr;
	struct tree_check expect;
	u8 *variant[NR_FAULTS];  /* the block's bytes with each fault */
};

static struct image images[4];   /* by number of mirrors */
static u32 nodesize;

static const struct read_policy strict = { 0 };
static const struct read_policy quiet = { .quiet = true };
static const struct read_policy keep_bad = { .on_failure = READ_KEEP_BAD, .quiet = true };
static const struct read_policy keep_bad_loud = { .on_failure = READ_KEEP_BAD };
static const struct read_policy soft = { .on_failure = READ_CHECKER_SOFT };
static const struct read_policy soft_quiet = { .on_failure = READ_CHECKER_SOFT, .quiet = true };
static const struct read_policy soft_any_transid = {
	.relax = READ_ANY_TRANSID, .on_failure = READ_CHECKER_SOFT, .quiet = true,
};
static const struct read_policy no_csum = { .relax = READ_NO_CSUM };
static const struct read_policy no_checker = { .relax = READ_NO_TREE_CHECKER };
static const struct read_policy any_transid = { .relax = READ_ANY_TRANSID };

static const struct read_case {
	int nmirrors;
	enum fault fault[3];
	const struct read_policy *policy;
	int ret;
	int mirror;            /* whose bytes come back, 0: none */
	enum msg msg;
} cases[] = {
	{ 1, { GOOD }, &strict, 0, 1, MSG_NONE },
	{ 1, { BAD_CSUM }, &strict, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_CSUM }, &quiet, -EUCLEAN, 0, MSG_NONE },
	{ 1, { BAD_CSUM }, &no_csum, 0, 1, MSG_NONE },
	{ 1, { BAD_CSUM }, &soft, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_TRANSID }, &strict, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_TRANSID }, &any_transid, 0, 1, MSG_NONE },
	{ 1, { BAD_TRANSID }, &no_csum, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_CHECKER }, &strict, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_CHECKER }, &soft, 0, 1, MSG_CHECKER },
	{ 1, { BAD_CHECKER }, &soft_any_transid, 0, 1, MSG_NONE },
	{ 1, { BAD_CHECKER }, &no_checker, 0, 1, MSG_NONE },
	{ 1, { BAD_CHECKER }, &keep_bad, -EUCLEAN, 1, MSG_NONE },
	{ 1, { BAD_BYTENR }, &keep_bad_loud, -EUCLEAN, 1, MSG_ERROR },
	{ 1, { BAD_BYTENR }, &no_checker, -EUCLEAN, 0, MSG_ERROR },
	{ 1, { BAD_OWNER }, &soft, -EUCLEAN, 0, MSG_ERROR },
	{ 2, { BAD_CSUM, GOOD }, &strict, 0, 2, MSG_NONE },
	{ 2, { GOOD, BAD_CSUM }, &strict, 0, 1, MSG_NONE },
	{ 2, { BAD_CSUM, BAD_CSUM }, &no_csum, 0, 1, MSG_NONE },
	{ 2, { BAD_FSID, BAD_LEVEL }, &strict, -EUCLEAN, 0, MSG_ERROR },
	{ 2, { BAD_FSID, BAD_LEVEL }, &keep_bad, -EUCLEAN, 1, MSG_NONE },
	{ 2, { BAD_CHECKER, BAD_CHECKER }, &soft, 0, 1, MSG_CHECKER },
	{ 2, { BAD_TRANSID, BAD_CHECKER }, &soft, 0, 2, MSG_CHECKER },
	{ 3, { UNREADABLE, BAD_OWNER, GOOD }, &strict, 0, 3, MSG_NONE },
	{ 3, { UNREADABLE, UNREADABLE, UNREADABLE }, &strict, -EIO, 0, MSG_ERROR },
	{ 3, { UNREADABLE, UNREADABLE, UNREADABLE }, &keep_bad, -EIO, 0, MSG_NONE },
	{ 3, { BAD_CSUM, UNREADABLE, BAD_BYTENR }, &strict, -EUCLEAN, 0, MSG_ERROR },
	{ 3, { BAD_CSUM, BAD_BYTENR, UNREADABLE }, &strict, -EIO, 0, MSG_ERROR },
	{ 3, { BAD_CSUM, BAD_BYTENR, UNREADABLE }, &keep_bad, -EIO, 1, MSG_NONE },
	{ 3, { UNREADABLE, BAD_CHECKER, BAD_CHECKER }, &soft, 0, 2, MSG_CHECKER },
	{ 3, { BAD_CHECKER, BAD_TRANSID, GOOD }, &soft, 0, 3, MSG_NONE },
	{ 3, { BAD_TRANSID, BAD_CHECKER, GOOD }, &soft_any_transid, 0, 1, MSG_NONE },
	{ 3, { BAD_CHECKER, BAD_CSUM, BAD_LEVEL }, &keep_bad, -EUCLEAN, 1, MSG_NONE },
	{ 3, { BAD_LEVEL, BAD_OWNER, BAD_FSID }, &no_csum, -EUCLEAN, 0, MSG_ERROR },
	{ 3, { BAD_LEVEL, BAD_CHECKER, UNREADABLE }, &no_checker, 0, 2, MSG_NONE },
	{ 3, { BAD_LEVEL, BAD_CSUM, UNREADABLE }, &no_checker, -EIO, 0, MSG_ERROR },
};

static struct btrfs_fs_info *open_image(const struct image *im)
{
	char *devs[3] = { (char *)im->paths[0], (char *)im->paths[1], (char *)im->paths[2] };
	struct btrfs_open_args args = { .devices = devs, .ndevices = im->ndevs, .noscan = true };
	struct btrfs_fs_info *fs = NULL;

	if (btrfs_open_fs(&args, &fs) < 0)
		return NULL;
	return fs;
}

static struct btrfs_device *device(struct btrfs_fs_info *fs, u64 devid)
{
	for (int i = 0; i < fs->devices.nr; i++)
		if (fs->devices.devs[i].devid == devid)
			return &fs->devices.devs[i];
	return NULL;
}

/* The block's bytes with one fault; the checksum recomputed unless the fault is in it. */
static u8 *make_variant(struct btrfs_fs_info *fs, const struct extent_buffer *orig, enum fault f)
{
	struct extent_buffer *eb = clone_extent_buffer(orig);
	struct btrfs_header *h = btrfs_header(eb);
	u8 csum[BTRFS_CSUM_SIZE];
	u8 *bytes;

	switch (f) {
	case BAD_BYTENR:
		btrfs_set_header_bytenr(h, eb->start + nodesize);
		break;
	case BAD_FSID:
		h->fsid[0] ^= 0xff;
		break;
	case BAD_LEVEL:
		btrfs_set_header_level(h, 1);
		break;
	case BAD_OWNER:
		btrfs_set_header_owner(h, BTRFS_FS_TREE_OBJECTID);
		break;
	case BAD_TRANSID:
		btrfs_set_header_generation(h, btrfs_header_generation(h) + 1);
		break;
	case BAD_CHECKER:
		btrfs_set_item_size(btrfs_leaf_item(eb, 0), btrfs_leaf_item_size(eb, 0) + 1);
		break;
	default:
		break;
	}
	btrfs_csum_tree_block(fs, eb, csum);
	memcpy(h->csum, csum, btrfs_fs_geometry(fs)->csum_size);
	if (f == BAD_CSUM)
		eb->data[eb->len - 1] ^= 0x5a;
	bytes = malloc(eb->len);
	memcpy(bytes, eb->data, eb->len);
	free_extent_buffer(eb);
	return bytes;
}

static int make_image(struct image *im, int nmirrors)
{
	const char *btrfs = getenv("BTRFS");
	const char *tmp = getenv("TMPDIR");
	const char *profile = nmirrors == 1 ? "single" : nmirrors == 2 ? "dup" : "raid1c3";
	struct btrfs_tree_ref ref;
	struct btrfs_fs_info *fs;
	struct extent_buffer *eb;
	const struct btrfs_chunk_map *c;
	char cmd[4096];
	int len, fd;

	im->nmirrors = nmirrors;
	im->ndevs = nmirrors == 3 ? 3 : 1;
	len = snprintf(cmd, sizeof(cmd), "%s mkfs -f -q -m %s -d single",
		       btrfs ? btrfs : "./btrfs", profile);
	for (int i = 0; i < im->ndevs; i++) {
		snprintf(im->paths[i], sizeof(im->paths[i]), "%s/read-policy-%d-%d-%d.img",
			 tmp ? tmp : "/tmp", (int)getpid(), nmirrors, i);
		if (truncate(im->paths[i], 0) && errno != ENOENT)
			return -1;
		fd = open(im->paths[i], O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || ftruncate(fd, 256 << 20) < 0)
			return -1;
		close(fd);
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s", im->paths[i]);
	}
	snprintf(cmd + len, sizeof(cmd) - len, " >/dev/null");
	if (system(cmd))
		return -1;
	fs = open_image(im);
	if (!fs)
		return -1;
	nodesize = btrfs_fs_geometry(fs)->nodesize;
	CHECK(btrfs_find_tree_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &ref) == 0);
	CHECK(ref.level == 0);
	im->bytenr = ref.bytenr;
	im->expect = (struct tree_check){ .owner = BTRFS_EXTENT_TREE_OBJECTID, .level = 0,
					  .transid = ref.generation };
	CHECK(btrfs_read_tree_block(fs, im->bytenr, &im->expect, &eb) == 0);
	c = btrfs_chunk_lookup(&fs->chunks, im->bytenr);
	CHECK_EQ_U64(btrfs_chunk_num_mirrors(c), nmirrors);
	for (int m = 0; m < nmirrors; m++) {
		struct btrfs_io_stripe io;

		CHECK(btrfs_chunk_map_one(c, im->bytenr, m + 1, &io) == 0);
		im->devid[m] = io.devid;
		im->physical[m] = io.physical;
		for (int i = 0; i < im->ndevs; i++)
			if (!strcmp(device(fs, io.devid)->path, im->paths[i]))
				im->mirror_path[m] = im->paths[i];
		CHECK(im->mirror_path[m] != NULL);
	}
	for (int f = 0; f < NR_FAULTS; f++)
		im->variant[f] = make_variant(fs, eb, f);
	free_extent_buffer(eb);
	btrfs_close_fs(fs);
	return 0;
}

static void put_mirror(const struct image *im, int m, const u8 *bytes)
{
	int fd = open(im->mirror_path[m], O_WRONLY);

	CHECK(fd >= 0 && pwrite(fd, bytes, nodesize, im->physical[m]) == (ssize_t)nodesize);
	close(fd);
}

/* What a read printed on stderr: nothing, its error, or one tree-checker line; else -1. */
static int classify(const char *text)
{
	const char *nl = strchr(text, '\n');

	if (!text[0])
		return MSG_NONE;
	if (!strncmp(text, "ERROR: failed to read tree block ", 33) && nl && !nl[1])
		return MSG_ERROR;
	if (!strncmp(text, "corrupt leaf: ", 14) && nl && !nl[1])
		return MSG_CHECKER;
	return -1;
}

static void run_case(int idx, const struct read_case *rc)
{
	struct image *im = &images[rc->nmirrors];
	struct btrfs_fs_info *fs;
	struct extent_buffer *eb = NULL;
	char text[4096] = "";
	FILE *cap;
	int saved, ret, failures = unit_failures;

	for (int m = 0; m < rc->nmirrors; m++)
		put_mirror(im, m, im->variant[rc->fault[m] == UNREADABLE ? GOOD : rc->fault[m]]);
	fs = open_image(im);
	CHECK(fs != NULL);
	if (!fs)
		return;
	for (int m = 0; m < rc->nmirrors; m++)
		if (rc->fault[m] == UNREADABLE)
			device(fs, im->devid[m])->missing = true;

	cap = tmpfile();
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(cap), 2);
	ret = btrfs_read_tree_block_policy(fs, im->bytenr, &im->expect, rc->policy, &eb);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(cap);
	text[fread(text, 1, sizeof(text) - 1, cap)] = 0;
	fclose(cap);

	CHECK(ret == rc->ret);
	if (rc->mirror) {
		CHECK(eb != NULL);
		if (eb) {
			CHECK(eb->mirror == rc->mirror);
			CHECK_MEM(eb->data, im->variant[rc->fault[rc->mirror - 1]], nodesize);
		}
	} else {
		CHECK(eb == NULL);
	}
	CHECK(classify(text) == (int)rc->msg);
	if (unit_failures != failures)
		fprintf(stderr, "case %d: ret %d, mirror %d, printed: %s\n", idx, ret,
			eb ? eb->mirror : 0, text);
	free_extent_buffer(eb);
	for (int m = 0; m < rc->nmirrors; m++)
		device(fs, im->devid[m])->missing = false;
	btrfs_close_fs(fs);
}

static void test_policy_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case((int)i, &cases[i]);
}

/*
 * The block cache: a copy that failed the tree-checker, kept for soft
 * readers, is served to them only; a verified copy is served to everyone
 * without reading the disk again.
 */
static void test_cache(void)
{
	struct image *im = &images[1];
	struct btrfs_fs_info *fs;
	struct extent_buffer *eb;

	put_mirror(im, 0, im->variant[BAD_CHECKER]);
	fs = open_image(im);
	CHECK(fs != NULL);
	if (!fs)
		return;
	CHECK(btrfs_read_tree_block_policy(fs, im->bytenr, &im->expect, &soft_quiet, &eb) == 0);
	free_extent_buffer(eb);
	CHECK(btrfs_read_tree_block_policy(fs, im->bytenr, &im->expect, &quiet, &eb) == -EUCLEAN);
	CHECK(eb == NULL);
	put_mirror(im, 0, im->variant[GOOD]);
	CHECK(btrfs_read_tree_block_policy(fs, im->bytenr, &im->expect, &soft_quiet, &eb) == 0);
	if (eb)
		CHECK_MEM(eb->data, im->variant[BAD_CHECKER], nodesize);
	free_extent_buffer(eb);
	CHECK(btrfs_read_tree_block(fs, im->bytenr, &im->expect, &eb) == 0);
	if (eb)
		CHECK_MEM(eb->data, im->variant[GOOD], nodesize);
	free_extent_buffer(eb);
	put_mirror(im, 0, im->variant[BAD_CSUM]);
	CHECK(btrfs_read_tree_block(fs, im->bytenr, &im->expect, &eb) == 0);
	if (eb)
		CHECK_MEM(eb->data, im->variant[GOOD], nodesize);
	free_extent_buffer(eb);
	btrfs_close_fs(fs);
}

int main(void)
{
	int ok = 1;

	for (int n = 1; n <= 3; n++)
		if (make_image(&images[n], n) < 0) {
			CHECK(!"mkfs failed");
			ok = 0;
		}
	if (ok) {
		RUN(test_policy_table);
		RUN(test_cache);
	}
	for (int n = 1; n <= 3; n++) {
		for (int i = 0; i < images[n].ndevs; i++)
			unlink(images[n].paths[i]);
		for (int f = 0; f < NR_FAULTS; f++)
			free(images[n].variant[f]);
	}
	return unit_done();
}

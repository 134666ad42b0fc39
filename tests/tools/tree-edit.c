// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupt a filesystem on purpose, through the write engine, for repair
 * tests: one item edit per run, committed as one transaction (the engine
 * keeps the trees well-formed, so only the chosen inconsistency is made).
 *
 * DEVICE: one device, or several separated by commas.
 *
 *   tree-edit DEVICE del TREE OBJECTID TYPE OFFSET
 *       delete that item
 *   tree-edit DEVICE set TREE OBJECTID TYPE OFFSET AT BITS VALUE
 *       write VALUE (little-endian, BITS 8/16/32/64) at byte AT of the item's data
 *   tree-edit DEVICE ins TREE OBJECTID TYPE OFFSET HEX
 *       insert an item with the data given in hex
 *
 * TREE is a tree id (1 root, 2 extent, 3 chunk, 4 dev, 5 fs, ...).  No
 * accounting follows (block group used, bytes_used): that is the point.
 * Exit 0, 1 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	*v = strtoull(s, &end, 0);
	return *s && !*end ? 0 : -EINVAL;
}

static int set_value(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		     u64 at, u64 bits, u64 value)
{
	struct btrfs_path path;
	u8 *p;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, key, &path, 0, 1);
	if (ret == 0 && at + bits / 8 > btrfs_path_item_size(&path))
		ret = -ERANGE;
	if (ret == 0) {
		p = (u8 *)btrfs_path_item_ptr(&path) + at;
		for (u64 i = 0; i < bits / 8; i++)
			p[i] = (u8)(value >> (8 * i));
	}
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

static int insert_hex(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      const char *hex)
{
	size_t n = strlen(hex) / 2;
	u8 *buf;
	int ret;

	if (strlen(hex) % 2 || !n)
		return -EINVAL;
	buf = malloc(n);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
			free(buf);
			return -EINVAL;
		}
		buf[i] = (u8)b;
	}
	ret = btrfs_insert_item(t, root, key, buf, (u32)n);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct btrfs_open_args args = { 0 };
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct btrfs_key key;
	u64 tree, type, at = 0, bits = 0, value = 0;
	const char *op;
	char *devs[16];
	int ret, ndevs = 1;

	if (argc < 7 || parse_u64(argv[3], &tree) || parse_u64(argv[4], &key.objectid) ||
	    parse_u64(argv[5], &type) || parse_u64(argv[6], &key.offset) || type > 255) {
		fprintf(stderr, "usage: tree-edit DEVICE del|set|ins TREE OBJECTID TYPE OFFSET [...]\n");
		return 1;
	}
	key.type = (u8)type;
	op = argv[2];
	devs[0] = argv[1];
	for (const char *c = argv[1]; (c = strchr(c, ',')); c++)
		if (++ndevs > 16) {
			fprintf(stderr, "tree-edit: at most 16 devices\n");
			return 1;
		}
	ndevs = 1;
	if (!strcmp(op, "set") && (argc != 10 || parse_u64(argv[7], &at) || parse_u64(argv[8], &bits) ||
				   parse_u64(argv[9], &value) ||
				   (bits != 8 && bits != 16 && bits != 32 && bits != 64))) {
		fprintf(stderr, "tree-edit: set needs AT BITS VALUE\n");
		return 1;
	}
	if ((!strcmp(op, "ins") && argc != 8) || (!strcmp(op, "del") && argc != 7) ||
	    (strcmp(op, "ins") && strcmp(op, "del") && strcmp(op, "set"))) {
		fprintf(stderr, "tree-edit: bad operation or arguments\n");
		return 1;
	}
	/* DEVICE may be a comma-separated list (multi-device filesystems) */
	for (char *c = argv[1]; (c = strchr(c, ',')); c++)
		*c = '\0', devs[ndevs++] = c + 1;
	args.devices = devs;
	args.ndevices = ndevs;
	args.writable = true;
	if (btrfs_open_fs(&args, &fs) < 0)
		return 1;
	ret = btrfs_start_transaction(fs, &t);
	if (ret == 0) {
		ret = btrfs_trans_get_root(t, tree, &root);
		if (ret == 0 && !strcmp(op, "del"))
			ret = btrfs_delete_item(t, root, &key);
		else if (ret == 0 && !strcmp(op, "set"))
			ret = set_value(t, root, &key, at, bits, value);
		else if (ret == 0)
			ret = insert_hex(t, root, &key, argv[7]);
		if (ret == 0)
			ret = btrfs_commit_transaction(t);
		else
			btrfs_abort_transaction(t);
	}
	if (ret < 0)
		error("tree-edit %s (%llu %u %llu) in tree %llu: %s", op, key.objectid, key.type,
		      key.offset, tree, strerror(-ret));
	btrfs_close_fs(fs);
	return ret < 0 ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Delete items from a filesystem through the write engine, nothing else
 * changed: for making corruptions in tests (a lost dir index, inode ref,
 * file extent...).
 *
 *   item-delete DEVICE TREE OBJECTID TYPE OFFSET [OBJECTID TYPE OFFSET]...
 *
 * TREE is a tree id (5 for the top level subvolume), TYPE a key type number.
 * All deletions are one commit.  Exit 0, 1 on error (a key not found too).
 */
#include <stdio.h>
#include <stdlib.h>
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

int main(int argc, char **argv)
{
	struct btrfs_open_args args = { 0 };
	struct btrfs_fs_info *fs;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	int i, ret;

	if (argc < 6 || (argc - 3) % 3) {
		fprintf(stderr, "usage: item-delete DEVICE TREE OBJECTID TYPE OFFSET [OBJECTID TYPE OFFSET]...\n");
		return 1;
	}
	args.devices = argv + 1;
	args.ndevices = 1;
	args.writable = true;
	if (btrfs_open_fs(&args, &fs) < 0)
		return 1;
	ret = btrfs_start_transaction(fs, &t);
	if (ret == 0) {
		ret = btrfs_trans_get_root(t, strtoull(argv[2], NULL, 0), &root);
		for (i = 3; ret == 0 && i < argc; i += 3) {
			struct btrfs_key key = { strtoull(argv[i], NULL, 0), (u8)strtoul(argv[i + 1], NULL, 0),
						 strtoull(argv[i + 2], NULL, 0) };

			ret = btrfs_delete_item(t, root, &key);
			if (ret)
				error("cannot delete (%llu %u %llu): %s", key.objectid, key.type, key.offset,
				      strerror(-ret));
		}
		if (ret == 0)
			ret = btrfs_commit_transaction(t);
		else
			btrfs_abort_transaction(t);
	}
	btrfs_close_fs(fs);
	return ret ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* Insert an item or append a record to it: see ctree-append.h. */
#include <string.h>
#include "kernel-shared/engine/ctree-append.h"

int btrfs_insert_or_append_item(struct btrfs_trans *t, struct btrfs_wroot *root,
				const struct btrfs_key *key, const void *buf, u32 size)
{
	struct btrfs_path path;
	int ret = btrfs_insert_item(t, root, key, buf, size);

	if (ret != -EEXIST)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, key, &path, (int)size, 1);
	if (ret == 0) {
		u32 old = btrfs_path_item_size(&path);

		ret = btrfs_extend_item(t, &path, size);
		if (ret == 0)
			memcpy((u8 *)btrfs_path_item_ptr(&path) + old, buf, size);
	} else if (ret > 0) {
		ret = -ENOENT;
	}
	btrfs_release_path(&path);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The entry lengths of a directory or xattr item: see dir-entry-lengths.h.
 */
#include "check/dir-entry-lengths.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/tree-checker.h"

struct item_view {
	u8 type;
	u64 offset;
	const u8 *p;
	u32 size;
	u32 nodesize;
};

/*
 * May the entry at cur have these lengths (size - cur holds at least its
 * header)?  The tree-checker's rules of lengths.  An alternative (lengths
 * not as written) must also give a name that hashes to the key (in a
 * DIR_ITEM or XATTR_ITEM), within BTRFS_NAME_LEN in an xattr too; as
 * written, a name hashing elsewhere is another fault (the entry's name or
 * the key), not this one's.
 */
static bool lengths_allowed(const struct item_view *v, u32 cur, u32 name_len, u32 data_len,
			    bool alternative)
{
	u32 room = v->size - cur - (u32)sizeof(struct btrfs_dir_item);

	if (!name_len || (u64)name_len + data_len > room)
		return false;
	if (v->type == BTRFS_XATTR_ITEM_KEY) {
		if (name_len + data_len > BTRFS_MAX_XATTR_SIZE(v->nodesize) ||
		    (alternative && name_len > BTRFS_NAME_LEN))
			return false;
	} else if (name_len > BTRFS_NAME_LEN || data_len) {
		return false;
	}
	if (v->type == BTRFS_DIR_INDEX_KEY)
		return cur == 0 && name_len + data_len == room;
	return !alternative || btrfs_name_hash((const char *)v->p + cur + sizeof(struct btrfs_dir_item),
			       (int)name_len) == v->offset;
}

/* Do the entries from cur on fill the item with their lengths as written? */
static bool fills_as_written(const struct item_view *v, u32 cur)
{
	while (cur < v->size) {
		const struct btrfs_dir_item *d = (const void *)(v->p + cur);
		u32 name_len, data_len;

		if (v->size - cur < sizeof(*d))
			return false;
		name_len = btrfs_dir_name_len(d);
		data_len = btrfs_dir_data_len(d);
		if (!lengths_allowed(v, cur, name_len, data_len, false))
			return false;
		cur += (u32)sizeof(*d) + name_len + data_len;
	}
	return true;
}

/* Count (up to 2) the other lengths of the entry at cur that make the item fill; the first in *fix. */
static int alternatives_at(const struct item_view *v, u32 cur, struct dir_entry_fix *fix, int found)
{
	const struct btrfs_dir_item *d = (const void *)(v->p + cur);
	u32 room = v->size - cur - (u32)sizeof(*d);
	u32 written_name = btrfs_dir_name_len(d), written_data = btrfs_dir_data_len(d);

	for (u32 n = 1; n <= room && n <= BTRFS_NAME_LEN && found < 2; n++) {
		/* the data length: none, as written, or the rest of the item */
		const u32 data[3] = { 0, written_data, room - n };

		for (int k = 0; k < 3; k++) {
			if ((k && data[k] == data[0]) || (k == 2 && data[2] == data[1]))
				continue;
			if ((n == written_name && data[k] == written_data) ||
			    !lengths_allowed(v, cur, n, data[k], true) ||
			    !fills_as_written(v, cur + (u32)sizeof(*d) + n + data[k]))
				continue;
			if (!found++)
				*fix = (struct dir_entry_fix){ cur, (u16)n, (u16)data[k] };
		}
	}
	return found;
}

int dir_entry_lengths_fix(u8 type, u64 offset, const u8 *p, u32 size, u32 nodesize,
			  struct dir_entry_fix *fix)
{
	const struct item_view v = { type, offset, p, size, nodesize };
	int found = 0;

	if (fills_as_written(&v, 0))
		return 0;
	/* the entry to change is one the lengths as written reach, up to the first that breaks */
	for (u32 cur = 0; cur < size && size - cur >= sizeof(struct btrfs_dir_item) && found < 2;) {
		const struct btrfs_dir_item *d = (const void *)(p + cur);
		u32 name_len = btrfs_dir_name_len(d), data_len = btrfs_dir_data_len(d);

		found = alternatives_at(&v, cur, fix, found);
		if (!lengths_allowed(&v, cur, name_len, data_len, false))
			break;
		cur += (u32)sizeof(*d) + name_len + data_len;
	}
	return found == 1 ? 1 : -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The entry lengths of directory and xattr items (check/dir-entry-lengths.h):
 * right lengths are left alone; one damaged name_len or data_len is found
 * from the item size and the name hash (DIR_ITEM, XATTR_ITEM) or the item
 * size alone (DIR_INDEX), in the first, a middle or the last entry; no
 * fix when no name hashing to the key fills the item or two fixes would.
 */
#include <string.h>
#include "tests/unit/unit.h"
#include "check/dir-entry-lengths.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/tree-checker.h"

#define NODESIZE 16384

struct item {
	u8 buf[1024];
	u32 size;
	u32 at[4];      /* offset of each entry */
};

static void add(struct item *it, int i, const char *name, const char *data, u8 ftype)
{
	struct btrfs_dir_item *d = (void *)(it->buf + it->size);
	u32 n = (u32)strlen(name), dl = (u32)strlen(data);

	memset(d, 0, sizeof(*d));
	btrfs_set_dir_name_len(d, (u16)n);
	btrfs_set_dir_data_len(d, (u16)dl);
	btrfs_set_dir_type(d, ftype);
	memcpy(d + 1, name, n);
	memcpy((u8 *)(d + 1) + n, data, dl);
	it->at[i] = it->size;
	it->size += (u32)sizeof(*d) + n + dl;
}

static struct btrfs_dir_item *entry(struct item *it, int i)
{
	return (void *)(it->buf + it->at[i]);
}

static u64 hash(const char *name)
{
	return btrfs_name_hash(name, (int)strlen(name));
}

static int fix_of(u8 type, u64 offset, struct item *it, struct dir_entry_fix *fix)
{
	memset(fix, 0xee, sizeof(*fix));
	return dir_entry_lengths_fix(type, offset, it->buf, it->size, NODESIZE, fix);
}

static void test_right_lengths_left_alone(void)
{
	struct item it = { 0 };
	struct dir_entry_fix fix;

	add(&it, 0, "report.txt", "", BTRFS_FT_REG_FILE);
	CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("report.txt"), &it, &fix) == 0);
	/* a name hashing elsewhere is another fault: not this one's */
	CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("other"), &it, &fix) == 0);
	CHECK(fix_of(BTRFS_DIR_INDEX_KEY, 7, &it, &fix) == 0);
}

static void test_dir_item_name_len(void)
{
	static const u16 bad[] = { 0, 3, 11, 200, 65535 };
	struct item it = { 0 };
	struct dir_entry_fix fix;

	add(&it, 0, "report.txt", "", BTRFS_FT_REG_FILE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		btrfs_set_dir_name_len(entry(&it, 0), bad[i]);
		CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("report.txt"), &it, &fix) == 1);
		CHECK_EQ_U64(fix.offset, 0);
		CHECK_EQ_U64(fix.name_len, 10);
		CHECK_EQ_U64(fix.data_len, 0);
		/* the name, of the length the size gives, must hash to the key */
		CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("report.tx"), &it, &fix) == -1);
	}
}

static void test_dir_entry_data_len(void)
{
	struct item it = { 0 };
	struct dir_entry_fix fix;

	add(&it, 0, "f19", "", BTRFS_FT_REG_FILE);
	btrfs_set_dir_data_len(entry(&it, 0), 7);
	CHECK(fix_of(BTRFS_DIR_INDEX_KEY, 102, &it, &fix) == 1);
	CHECK_EQ_U64(fix.name_len, 3);
	CHECK_EQ_U64(fix.data_len, 0);
	btrfs_set_dir_data_len(entry(&it, 0), 0);
	btrfs_set_dir_name_len(entry(&it, 0), 2);   /* a shorter name fits too, but leaves a byte */
	CHECK(fix_of(BTRFS_DIR_INDEX_KEY, 102, &it, &fix) == 1);
	CHECK_EQ_U64(fix.name_len, 3);
}

/* Three entries with one name (as a hash collision keeps them): each one's damage is found. */
static void test_entry_of_several(void)
{
	for (int bad = 0; bad < 3; bad++) {
		struct item it = { 0 };
		struct dir_entry_fix fix;

		for (int i = 0; i < 3; i++)
			add(&it, i, "same-name", "", BTRFS_FT_REG_FILE);
		btrfs_set_dir_name_len(entry(&it, bad), 4);
		CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("same-name"), &it, &fix) == 1);
		CHECK_EQ_U64(fix.offset, it.at[bad]);
		CHECK_EQ_U64(fix.name_len, 9);
		btrfs_set_dir_name_len(entry(&it, bad), 9);
		btrfs_set_dir_data_len(entry(&it, bad), 3);
		CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("same-name"), &it, &fix) == 1);
		CHECK_EQ_U64(fix.offset, it.at[bad]);
		CHECK_EQ_U64(fix.data_len, 0);
	}
}

static void test_xattr(void)
{
	struct item it = { 0 };
	struct dir_entry_fix fix;

	add(&it, 0, "user.comment", "some value", BTRFS_FT_XATTR);
	btrfs_set_dir_data_len(entry(&it, 0), 900);
	CHECK(fix_of(BTRFS_XATTR_ITEM_KEY, hash("user.comment"), &it, &fix) == 1);
	CHECK_EQ_U64(fix.name_len, 12);
	CHECK_EQ_U64(fix.data_len, 10);
	btrfs_set_dir_data_len(entry(&it, 0), 10);
	btrfs_set_dir_name_len(entry(&it, 0), 0);
	CHECK(fix_of(BTRFS_XATTR_ITEM_KEY, hash("user.comment"), &it, &fix) == 1);
	CHECK_EQ_U64(fix.name_len, 12);
	CHECK_EQ_U64(fix.data_len, 10);
	/* both lengths lost: the name's by its hash, the data's from the size */
	btrfs_set_dir_data_len(entry(&it, 0), 1);
	CHECK(fix_of(BTRFS_XATTR_ITEM_KEY, hash("user.comment"), &it, &fix) == 1);
	CHECK_EQ_U64(fix.name_len, 12);
	CHECK_EQ_U64(fix.data_len, 10);
}

static void test_truncated_and_ambiguous(void)
{
	struct item it = { 0 };
	struct dir_entry_fix fix;

	/* not even a header: nothing to try */
	it.size = 12;
	CHECK(fix_of(BTRFS_DIR_ITEM_KEY, 1, &it, &fix) == -1);
	/* no length of a name hashing to the key fills the item */
	memset(&it, 0, sizeof(it));
	add(&it, 0, "xx", "", BTRFS_FT_REG_FILE);
	btrfs_set_dir_name_len(entry(&it, 0), 0);
	CHECK(fix_of(BTRFS_DIR_INDEX_KEY, 3, &it, &fix) == 1);
	CHECK(fix_of(BTRFS_DIR_ITEM_KEY, hash("x"), &it, &fix) == -1);
	/*
	 * Two xattr entries of one name, the first's name_len lost: its data
	 * as written (the second entry follows) or all the rest (one entry)
	 * both fill the item: two fixes, none taken.
	 */
	memset(&it, 0, sizeof(it));
	add(&it, 0, "user.a", "1", BTRFS_FT_XATTR);
	add(&it, 1, "user.a", "2", BTRFS_FT_XATTR);
	btrfs_set_dir_name_len(entry(&it, 0), 0);
	CHECK(fix_of(BTRFS_XATTR_ITEM_KEY, hash("user.a"), &it, &fix) == -1);
}

int main(void)
{
	RUN(test_right_lengths_left_alone);
	RUN(test_dir_item_name_len);
	RUN(test_dir_entry_data_len);
	RUN(test_entry_of_several);
	RUN(test_xattr);
	RUN(test_truncated_and_ambiguous);
	return unit_done();
}

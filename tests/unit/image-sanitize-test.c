// SPDX-License-Identifier: GPL-2.0
/*
 * image/sanitize.c on leaves built in memory: every name of 5 bytes or more
 * replaced by another of the same length and name hash (dir item, dir index
 * and inode ref of one entry agreeing, the inode extref's parent-seeded hash
 * kept), xattr values and inline data zeroed, names of 1 to 4 bytes kept and
 * counted, the leaf still passing the tree-checker; every length from 5 to
 * 255; the same name gets the same new name in one sanitizer; an entry
 * running past its item is zeroed, not read past.
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "tests/unit/tree-block-fixture.h"
#include "crypto/hash.h"
#include "image/sanitize.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/tree-block.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/tree-checker.h"

static void inode(struct extent_buffer *eb, u64 ino, u32 mode)
{
	struct btrfs_inode_item *ii = (void *)add_item(eb, ino, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii));

	btrfs_set_inode_generation(ii, 5);
	btrfs_set_inode_transid(ii, 5);
	btrfs_set_inode_mode(ii, mode);
	btrfs_set_inode_nlink(ii, 1);
}

/* A dir item, dir index or xattr item of one entry; its name. */
static u8 *dir_entry(struct extent_buffer *eb, u64 dir, u8 type, u64 offset, const char *name,
		     const char *value)
{
	u32 nlen = (u32)strlen(name), vlen = value ? (u32)strlen(value) : 0;
	u8 *p = add_item(eb, dir, type, offset, sizeof(struct btrfs_dir_item) + nlen + vlen);
	struct btrfs_dir_item *di = (void *)p;

	btrfs_set_dir_name_len(di, nlen);
	btrfs_set_dir_data_len(di, vlen);
	btrfs_set_dir_transid(di, 5);
	btrfs_set_dir_type(di, value ? BTRFS_FT_XATTR : BTRFS_FT_REG_FILE);
	if (!value)
		btrfs_set_disk_key_objectid(&di->location, 257);
	if (!value)
		btrfs_set_disk_key_type(&di->location, BTRFS_INODE_ITEM_KEY);
	memcpy(p + sizeof(*di), name, nlen);
	if (value)
		memcpy(p + sizeof(*di) + nlen, value, vlen);
	return p + sizeof(*di);
}

static u8 *inode_ref(struct extent_buffer *eb, u64 ino, u64 parent, const char *name)
{
	u32 nlen = (u32)strlen(name);
	u8 *p = add_item(eb, ino, BTRFS_INODE_REF_KEY, parent, sizeof(struct btrfs_inode_ref) + nlen);

	btrfs_set_inode_ref_index((void *)p, 2);
	btrfs_set_inode_ref_name_len((void *)p, nlen);
	memcpy(p + sizeof(struct btrfs_inode_ref), name, nlen);
	return p + sizeof(struct btrfs_inode_ref);
}

static int is_bad_byte(const u8 *p, u32 len)
{
	for (u32 i = 0; i < len; i++)
		if (!p[i] || p[i] == '/')
			return 1;
	return 0;
}

static void test_leaf(void)
{
	static const char a[] = "secret-file-name", b[] = "extref-name-x", x[] = "user.secret-attr";
	struct image_sanitizer *s;
	struct extent_buffer *eb = new_block(0, 5);
	char msg[512] = "";
	u8 *da, *ia, *ra, *ea, *xa, *sa;
	u32 ext_len = sizeof(struct btrfs_inode_extref) + sizeof(b) - 1;
	u8 *ext;

	CHECK(image_sanitizer_new(&s) == 0);
	inode(eb, 256, 040755);
	da = dir_entry(eb, 256, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(a, sizeof(a) - 1), a, NULL);
	ia = dir_entry(eb, 256, BTRFS_DIR_INDEX_KEY, 2, a, NULL);
	inode(eb, 257, 0100644);
	ra = inode_ref(eb, 257, 256, a);
	ext = add_item(eb, 257, BTRFS_INODE_EXTREF_KEY, crc32c_raw(256, b, sizeof(b) - 1), ext_len);
	btrfs_set_inode_extref_parent((void *)ext, 256);
	btrfs_set_inode_extref_name_len((void *)ext, sizeof(b) - 1);
	ea = ext + sizeof(struct btrfs_inode_extref);
	memcpy(ea, b, sizeof(b) - 1);
	xa = dir_entry(eb, 257, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(x, sizeof(x) - 1), x, "value-secret");
	sa = dir_entry(eb, 258, BTRFS_DIR_ITEM_KEY, btrfs_name_hash("ab", 2), "ab", NULL);
	CHECK(btrfs_check_tree_block_msg(&geo, eb, msg, sizeof(msg)) == 0);

	CHECK(image_sanitize_leaf(s, eb) == 0);
	CHECK(memcmp(da, a, sizeof(a) - 1) != 0);
	CHECK_EQ_U64(btrfs_name_hash((const char *)da, sizeof(a) - 1), btrfs_name_hash(a, sizeof(a) - 1));
	CHECK_MEM(da, ia, sizeof(a) - 1);
	CHECK_MEM(da, ra, sizeof(a) - 1);
	CHECK(!is_bad_byte(da, sizeof(a) - 1));
	CHECK(memcmp(ea, b, sizeof(b) - 1) != 0);
	CHECK_EQ_U64(crc32c_raw(256, ea, sizeof(b) - 1), crc32c_raw(256, b, sizeof(b) - 1));
	CHECK(memcmp(xa, x, sizeof(x) - 1) != 0);
	CHECK_MEM(xa + sizeof(x) - 1, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	CHECK_MEM(sa, "ab", 2);
	CHECK_EQ_U64(image_sanitizer_kept(s), 1);
	msg[0] = 0;
	CHECK(btrfs_check_tree_block_msg(&geo, eb, msg, sizeof(msg)) == 0);
	if (msg[0])
		fprintf(stderr, "%s\n", msg);
	free_extent_buffer(eb);
	image_sanitizer_free(s);
}

/* Every length 5..255 through an inode ref: same hash, another name, no NUL or '/', repeatable. */
static void test_lengths(void)
{
	struct image_sanitizer *s;
	int bad = 0;

	CHECK(image_sanitizer_new(&s) == 0);
	for (u32 len = 5; len <= BTRFS_NAME_LEN; len++) {
		char name[BTRFS_NAME_LEN + 1];
		u8 *n1, *n2;
		struct extent_buffer *e1 = new_block(0, 5), *e2 = new_block(0, 5);

		for (u32 i = 0; i < len; i++)
			name[i] = (char)('a' + i % 26);
		name[len] = 0;
		n1 = inode_ref(e1, 257, 256, name);
		n2 = inode_ref(e2, 300, 299, name);
		CHECK(image_sanitize_leaf(s, e1) == 0);
		CHECK(image_sanitize_leaf(s, e2) == 0);
		bad += btrfs_name_hash((const char *)n1, (int)len) != btrfs_name_hash(name, (int)len) ||
		       !memcmp(n1, name, len) || memcmp(n1, n2, len) || is_bad_byte(n1, len);
		free_extent_buffer(e1);
		free_extent_buffer(e2);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(image_sanitizer_kept(s), 0);
	image_sanitizer_free(s);
}

/* A dir item whose name runs past the item: zeroed from that entry on, nothing read past it. */
static void test_truncated(void)
{
	struct image_sanitizer *s;
	struct extent_buffer *eb = new_block(0, 5);
	u8 *name = dir_entry(eb, 256, BTRFS_DIR_ITEM_KEY, btrfs_name_hash("secret-name", 11), "secret-name", NULL);
	struct btrfs_dir_item *di = (void *)(name - sizeof(*di));

	CHECK(image_sanitizer_new(&s) == 0);
	btrfs_set_dir_name_len(di, 200);
	CHECK(image_sanitize_leaf(s, eb) == 0);
	CHECK(memmem(eb->data, NS, "secret", 6) == NULL);
	CHECK_EQ_U64(btrfs_dir_name_len(di), 0);
	free_extent_buffer(eb);
	image_sanitizer_free(s);
}

int main(void)
{
	RUN(test_leaf);
	RUN(test_lengths);
	RUN(test_truncated);
	return unit_done();
}

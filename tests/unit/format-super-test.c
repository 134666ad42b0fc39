// SPDX-License-Identifier: GPL-2.0
/*
 * Superblock layer: checksum set/verify for every csum type, write/read
 * round trip through a file (mirrors, csum computed last), validation
 * rejecting bad fields, the sys_chunk_array iterator on good and bad
 * arrays, and the JSON writer's escaping and misuse detection.
 */
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/flags-names.h"
#include "print/print-super.h"
#include "common/json-writer.h"

/* A plausible single-device superblock with one SYSTEM|DUP chunk in sys_chunk_array. */
static void make_super(struct btrfs_super_block *sb, u16 csum_type)
{
	struct btrfs_disk_key *key;
	struct btrfs_chunk *chunk;

	memset(sb, 0, sizeof(*sb));
	for (int i = 0; i < BTRFS_FSID_SIZE; i++)
		sb->fsid[i] = (u8)(0x10 + i);
	memcpy(sb->dev_item.fsid, sb->fsid, BTRFS_FSID_SIZE);
	btrfs_set_super_magic(sb, BTRFS_MAGIC);
	btrfs_set_super_bytenr(sb, BTRFS_SUPER_INFO_OFFSET);
	btrfs_set_super_generation(sb, 7);
	btrfs_set_super_root(sb, 30 * SZ_1M);
	btrfs_set_super_chunk_root(sb, 22 * SZ_1M);
	btrfs_set_super_total_bytes(sb, SZ_256M);
	btrfs_set_super_bytes_used(sb, SZ_1M);
	btrfs_set_super_num_devices(sb, 1);
	btrfs_set_super_sectorsize(sb, 4096);
	btrfs_set_super_nodesize(sb, 16384);
	btrfs_set_super_leafsize(sb, 16384);
	btrfs_set_super_stripesize(sb, 4096);
	btrfs_set_super_csum_type(sb, csum_type);
	btrfs_set_device_id(&sb->dev_item, 1);

	key = (struct btrfs_disk_key *)sb->sys_chunk_array;
	btrfs_set_disk_key_objectid(key, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_disk_key_type(key, BTRFS_CHUNK_ITEM_KEY);
	btrfs_set_disk_key_offset(key, 22 * SZ_1M);
	chunk = (struct btrfs_chunk *)(sb->sys_chunk_array + sizeof(*key));
	btrfs_set_chunk_length(chunk, SZ_8M);
	btrfs_set_chunk_type(chunk, BTRFS_BLOCK_GROUP_SYSTEM | BTRFS_BLOCK_GROUP_DUP);
	btrfs_set_chunk_num_stripes(chunk, 2);
	btrfs_set_chunk_sub_stripes(chunk, 1);
	btrfs_set_stripe_devid(btrfs_chunk_stripe(chunk, 1), 1);
	btrfs_set_super_sys_array_size(sb, sizeof(*key) + btrfs_chunk_item_size(2));
}

static void test_csum_types(void)
{
	struct btrfs_super_block sb;

	CHECK_STR(btrfs_csum_type_name(BTRFS_CSUM_TYPE_CRC32), "crc32c");
	CHECK_STR(btrfs_csum_type_name(BTRFS_CSUM_TYPE_BLAKE2), "blake2b");
	CHECK(btrfs_csum_type_name(4) == NULL);
	CHECK_EQ_U64(btrfs_csum_type_size(BTRFS_CSUM_TYPE_XXHASH), 8);
	CHECK_EQ_U64(btrfs_csum_type_size(99), 0);
	CHECK_EQ_U64(btrfs_csum_type_by_name("xxhash"), BTRFS_CSUM_TYPE_XXHASH);
	CHECK(btrfs_csum_type_by_name("md5") < 0);
	for (u16 t = 0; t < 4; t++) {
		make_super(&sb, t);
		CHECK(btrfs_super_csum_set(&sb, NULL) == 0);
		CHECK(btrfs_super_csum_verify(&sb) == 0);
		/* Bytes past the digest stay zero. */
		for (int i = btrfs_csum_type_size(t); i < BTRFS_CSUM_SIZE; i++)
			CHECK(sb.csum[i] == 0);
		CHECK(btrfs_super_validate(&sb, BTRFS_SUPER_INFO_OFFSET) == 0);
		sb.label[0] = 'x';
		CHECK(btrfs_super_csum_verify(&sb) == -EUCLEAN);
	}
	make_super(&sb, 9);
	CHECK(btrfs_super_csum_set(&sb, NULL) == -EOPNOTSUPP);
	CHECK(btrfs_super_csum_verify(&sb) == -EOPNOTSUPP);
	/* Known answer: crc32c of 4064 zero bytes after a zeroed csum field. */
	memset(&sb, 0, sizeof(sb));
	CHECK(btrfs_super_csum_set(&sb, NULL) == 0);
	CHECK(btrfs_super_csum_verify(&sb) == 0);
}

/*
 * Keyed types (python3: hmac.new(k, m, "sha256"), hashlib.blake2b(m, key=k,
 * digest_size=32); xxhash64("abc") = 0x44bc2cf5ad770999): the composed
 * checksums, every verification outcome, the key check value.
 */
static void test_keyed_types(void)
{
	static const u8 key[] = { 'k', 0, 'y' }, other[] = { 'k', 0, 'z' };
	static const u8 xxh_abc[8] = { 0x99, 0x09, 0x77, 0xad, 0xf5, 0x2c, 0xbc, 0x44 };
	static const u8 hmac_abc[32] = {
		0x74, 0x36, 0xeb, 0xfc, 0xd6, 0x0e, 0x52, 0x38, 0x0d, 0x6b, 0xf3, 0xfa,
		0x8a, 0x31, 0xc4, 0xd7, 0x01, 0xae, 0x32, 0x46, 0x57, 0xc0, 0x7a, 0x09 };
	static const u8 b2_abc[24] = {
		0xc9, 0x20, 0x2a, 0x41, 0x8d, 0xca, 0x54, 0x5d, 0x2f, 0x3a, 0x46, 0x76,
		0x83, 0x11, 0xdd, 0xcc, 0xf3, 0x8c, 0xfc, 0x8f, 0x36, 0x85, 0x35, 0xce };
	static const u8 kcv_sha[32] = {
		0x62, 0x9c, 0xb5, 0x5b, 0x1d, 0x9e, 0x6b, 0x08, 0xdb, 0xb0, 0x77, 0x57,
		0x02, 0x66, 0xc9, 0xc2, 0xbd, 0xaf, 0x5e, 0x3f, 0x23, 0xdf, 0x03, 0xb4,
		0x81, 0xd5, 0x2e, 0x5e, 0x6e, 0xae, 0xb2, 0x88 };
	u8 fsid[BTRFS_FSID_SIZE], sum[BTRFS_CSUM_SIZE], bad[BTRFS_CSUM_SIZE], big[65] = { 0 };
	struct btrfs_csum c, nokey, wrong;

	for (int i = 0; i < BTRFS_FSID_SIZE; i++)
		fsid[i] = (u8)i;
	CHECK_STR(btrfs_csum_type_name(BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2), "authsum-blake2b");
	CHECK_EQ_U64(btrfs_csum_type_by_name("hmac-sha256"), BTRFS_CSUM_TYPE_AUTH_SHA256);
	CHECK_EQ_U64(btrfs_csum_type_by_name("auth-blake2b"), BTRFS_CSUM_TYPE_AUTH_BLAKE2);
	CHECK(btrfs_csum_type_keyed(BTRFS_CSUM_TYPE_AUTHSUM_SHA256));
	CHECK(!btrfs_csum_type_keyed(BTRFS_CSUM_TYPE_SHA256));
	CHECK(btrfs_csum_type_authsum(BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2));
	CHECK(!btrfs_csum_type_authsum(BTRFS_CSUM_TYPE_AUTH_BLAKE2));
	for (u16 t = BTRFS_CSUM_TYPE_AUTH_SHA256; t <= BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2; t++)
		CHECK_EQ_U64(btrfs_csum_type_size(t), 32);

	/* The one-call form, full and authsum. */
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTH_SHA256, key, 3, "abc", 3, sum) == 0);
	CHECK_MEM(sum, hmac_abc, 24);
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTHSUM_SHA256, key, 3, "abc", 3, sum) == 0);
	CHECK_MEM(sum, hmac_abc, 24);
	CHECK_MEM(sum + 24, xxh_abc, 8);
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2, key, 3, "abc", 3, sum) == 0);
	CHECK_MEM(sum, b2_abc, 24);
	CHECK_MEM(sum + 24, xxh_abc, 8);
	CHECK(btrfs_csum_data(BTRFS_CSUM_TYPE_AUTH_BLAKE2, "abc", 3, sum) == -ENOKEY);
	/* keyed BLAKE2b: 64 bytes is the most, HMAC takes longer keys */
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTH_BLAKE2, big, 64, "abc", 3, sum) == 0);
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTH_BLAKE2, big, 65, "abc", 3, sum) == -EINVAL);
	CHECK(btrfs_csum_data_keyed(BTRFS_CSUM_TYPE_AUTH_SHA256, big, 65, "abc", 3, sum) == 0);
	/* A plain type with a key is refused by setup. */
	CHECK(btrfs_csum_setup(&c, BTRFS_CSUM_TYPE_SHA256, key, 3) == -EINVAL);
	CHECK(btrfs_csum_setup(&c, 0x8005, key, 3) == -EOPNOTSUPP);

	for (u16 t = BTRFS_CSUM_TYPE_AUTH_SHA256; t <= BTRFS_CSUM_TYPE_AUTHSUM_BLAKE2; t++) {
		bool authsum = btrfs_csum_type_authsum(t);

		CHECK(btrfs_csum_setup(&c, t, key, 3) == 0);
		CHECK(btrfs_csum_setup(&nokey, t, NULL, 0) == 0);
		CHECK(btrfs_csum_setup(&wrong, t, other, 3) == 0);
		CHECK(btrfs_csum_compute(&c, "abc", 3, sum) == 0);
		CHECK(btrfs_csum_compute(&nokey, "abc", 3, bad) == -ENOKEY);
		CHECK_EQ_U64(btrfs_csum_verify(&c, "abc", 3, sum), BTRFS_CSUM_VALID);
		/* data changed: damaged (authsum: the secondary fails too) */
		CHECK_EQ_U64(btrfs_csum_verify(&c, "abd", 3, sum), BTRFS_CSUM_DAMAGED);
		/* a wrong key: the keyed part fails, the secondary matches */
		CHECK_EQ_U64(btrfs_csum_verify(&wrong, "abc", 3, sum),
			     authsum ? BTRFS_CSUM_ALTERED : BTRFS_CSUM_DAMAGED);
		/* forgery: data changed and the secondary recomputed, keyed part stale */
		memcpy(bad, sum, sizeof(bad));
		if (authsum) {
			CHECK(btrfs_csum_compute(&wrong, "abd", 3, bad) == 0);
			memcpy(bad, sum, BTRFS_AUTHSUM_KEYED_BYTES);
			CHECK_EQ_U64(btrfs_csum_verify(&c, "abd", 3, bad), BTRFS_CSUM_ALTERED);
			CHECK_EQ_U64(btrfs_csum_verify(&nokey, "abd", 3, bad),
				     BTRFS_CSUM_UNAUTHENTICATED);
		}
		/* without the key */
		CHECK_EQ_U64(btrfs_csum_verify(&nokey, "abc", 3, sum),
			     authsum ? BTRFS_CSUM_UNAUTHENTICATED : BTRFS_CSUM_NO_KEY);
		CHECK_EQ_U64(btrfs_csum_verify(&nokey, "abd", 3, sum),
			     authsum ? BTRFS_CSUM_DAMAGED : BTRFS_CSUM_NO_KEY);
		/* the key check value: differs by key, needs one */
		CHECK(btrfs_csum_key_check(&c, fsid, sum) == 0);
		CHECK(btrfs_csum_key_check(&wrong, fsid, bad) == 0);
		CHECK(memcmp(sum, bad, 32) != 0);
		if (t == BTRFS_CSUM_TYPE_AUTH_SHA256 || t == BTRFS_CSUM_TYPE_AUTHSUM_SHA256)
			CHECK_MEM(sum, kcv_sha, 32);
		CHECK(btrfs_csum_key_check(&nokey, fsid, bad) == -ENOKEY);
		btrfs_csum_release(&c);
		btrfs_csum_release(&nokey);
		btrfs_csum_release(&wrong);
	}
	CHECK(btrfs_csum_setup(&c, BTRFS_CSUM_TYPE_CRC32, NULL, 0) == 0);
	CHECK(btrfs_csum_key_check(&c, fsid, sum) == -EINVAL);
	CHECK(btrfs_csum_compute(&c, "abc", 3, sum) == 0);
	CHECK_EQ_U64(btrfs_csum_verify(&c, "abc", 3, sum), BTRFS_CSUM_VALID);
	CHECK_EQ_U64(btrfs_csum_verify(&c, "abd", 3, sum), BTRFS_CSUM_DAMAGED);
	btrfs_csum_release(&c);
	CHECK_STR(btrfs_csum_result_name(BTRFS_CSUM_ALTERED), "ALTERED");
}

/* A keyed superblock: btrfs_super_csum_check() outcomes and dump-super's csum lines. */
static void test_keyed_super(void)
{
	static const u8 key[] = { 1, 0, 2 };
	struct btrfs_super_block sb;
	struct btrfs_csum c, nokey;
	char *text;
	size_t len;
	FILE *f;

	make_super(&sb, BTRFS_CSUM_TYPE_AUTHSUM_SHA256);
	CHECK(btrfs_csum_setup(&c, BTRFS_CSUM_TYPE_AUTHSUM_SHA256, key, 3) == 0);
	CHECK(btrfs_csum_setup(&nokey, BTRFS_CSUM_TYPE_AUTHSUM_SHA256, NULL, 0) == 0);
	CHECK(btrfs_csum_key_check(&c, sb.fsid, sb.auth_key_check) == 0);
	CHECK(btrfs_csum_compute(&c, (u8 *)&sb + BTRFS_CSUM_SIZE,
				 BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, sb.csum) == 0);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &c), BTRFS_CSUM_VALID);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &nokey), BTRFS_CSUM_UNAUTHENTICATED);
	/* without a key: the xxhash64 part only; a change there is damage */
	CHECK_EQ_U64(btrfs_super_csum_verify(&sb), 0);
	sb.csum[BTRFS_AUTHSUM_KEYED_BYTES] ^= 1;
	CHECK_EQ_U64(btrfs_super_csum_verify(&sb), (u64)-EUCLEAN);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &c), BTRFS_CSUM_DAMAGED);
	sb.csum[BTRFS_AUTHSUM_KEYED_BYTES] ^= 1;
	/* the keyed part changed, the secondary intact: altered */
	sb.csum[0] ^= 1;
	CHECK_EQ_U64(btrfs_super_csum_verify(&sb), 0);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &c), BTRFS_CSUM_ALTERED);
	sb.csum[0] ^= 1;
	/* written with the key: btrfs_super_csum_set() with the fs's csum */
	memset(sb.csum, 0, sizeof(sb.csum));
	CHECK_EQ_U64(btrfs_super_csum_set(&sb, &nokey), (u64)-ENOKEY);
	CHECK_EQ_U64(btrfs_super_csum_set(&sb, NULL), (u64)-ENOKEY);
	CHECK_EQ_U64(btrfs_super_csum_set(&sb, &c), 0);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &c), BTRFS_CSUM_VALID);

	f = open_memstream(&text, &len);
	btrfs_print_superblock(f, &sb, false);
	fclose(f);
	CHECK(strstr(text, "csum_type\t\t32771 (authsum-sha256)\n") != NULL);
	CHECK(strstr(text, " [NO KEY] (xxhash64 part matches, authenticity NOT verified)\n") != NULL);
	CHECK(strstr(text, "\nauth_key_check\t\t0x") != NULL);
	free(text);

	sb.label[0] ^= 1;	/* damaged: both parts fail */
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &c), BTRFS_CSUM_DAMAGED);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &nokey), BTRFS_CSUM_DAMAGED);
	btrfs_csum_release(&c);
	btrfs_csum_release(&nokey);

	make_super(&sb, BTRFS_CSUM_TYPE_AUTH_BLAKE2);
	CHECK(btrfs_csum_setup(&nokey, BTRFS_CSUM_TYPE_AUTH_BLAKE2, NULL, 0) == 0);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &nokey), BTRFS_CSUM_NO_KEY);
	f = open_memstream(&text, &len);
	btrfs_print_superblock(f, &sb, false);
	fclose(f);
	CHECK(strstr(text, " [NO KEY]\nauth_key_check\t\t0x") != NULL);
	free(text);
	/* a context for another type is refused */
	make_super(&sb, BTRFS_CSUM_TYPE_SHA256);
	CHECK_EQ_U64(btrfs_super_csum_check(&sb, &nokey), (u64)-EINVAL);
	btrfs_csum_release(&nokey);
}

static void test_validate(void)
{
	struct btrfs_super_block sb;

	make_super(&sb, 0);
	btrfs_set_super_nodesize(&sb, 12345);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_validate(&sb, BTRFS_SUPER_INFO_OFFSET) == -EUCLEAN);
	make_super(&sb, 0);
	btrfs_set_super_root_level(&sb, 8);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_validate(&sb, BTRFS_SUPER_INFO_OFFSET) == -EUCLEAN);
	make_super(&sb, 0);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_validate(&sb, btrfs_sb_offset(1)) == -EUCLEAN);  /* bytenr */
	make_super(&sb, 0);
	btrfs_set_super_incompat_flags(&sb, BTRFS_FEATURE_INCOMPAT_METADATA_UUID);
	memset(sb.metadata_uuid, 0xab, BTRFS_FSID_SIZE);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_metadata_fsid(&sb) == sb.metadata_uuid);
	CHECK(btrfs_super_validate(&sb, (u64)-1) == -EUCLEAN);  /* dev_item.fsid */
	memcpy(sb.dev_item.fsid, sb.metadata_uuid, BTRFS_FSID_SIZE);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_validate(&sb, (u64)-1) == 0);
	make_super(&sb, 0);
	btrfs_set_super_magic(&sb, 0);
	CHECK(btrfs_super_validate(&sb, (u64)-1) == -EUCLEAN);

	/* each rule alone: a valid superblock with one field made wrong */
	static const struct { const char *what; u64 value; } bad[] = {
		{ "stripesize", 8192 }, { "stripesize", 0 }, { "total_bytes", 0 },
		{ "bytes_used", 4096 }, { "flags", 1ULL << 20 }, { "incompat", 1ULL << 15 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		make_super(&sb, 0);
		btrfs_super_csum_set(&sb, NULL);
		CHECK(btrfs_super_validate(&sb, (u64)-1) == 0);
		if (!strcmp(bad[i].what, "stripesize"))
			btrfs_set_super_stripesize(&sb, (u32)bad[i].value);
		else if (!strcmp(bad[i].what, "total_bytes"))
			btrfs_set_super_total_bytes(&sb, bad[i].value);
		else if (!strcmp(bad[i].what, "bytes_used"))
			btrfs_set_super_bytes_used(&sb, bad[i].value);
		else if (!strcmp(bad[i].what, "flags"))
			btrfs_set_super_flags(&sb, btrfs_super_flags(&sb) | bad[i].value);
		else
			btrfs_set_super_incompat_flags(&sb, btrfs_super_incompat_flags(&sb) | bad[i].value);
		btrfs_super_csum_set(&sb, NULL);
		CHECK(btrfs_super_validate(&sb, (u64)-1) == -EUCLEAN);
	}
	/* what old mkfs wrote and what the kernel sets stay valid */
	make_super(&sb, 0);
	btrfs_set_super_flags(&sb, BTRFS_SUPER_FLAG_SEEDING | BTRFS_SUPER_FLAG_METADUMP_V2);
	btrfs_set_super_incompat_flags(&sb, BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA |
				       BTRFS_FEATURE_INCOMPAT_RAID1C34);
	btrfs_super_csum_set(&sb, NULL);
	CHECK(btrfs_super_validate(&sb, (u64)-1) == 0);
}

static void test_write_read(void)
{
	char path[] = "/tmp/format-super-test.XXXXXX";
	struct btrfs_super_block sb, got;
	u64 at;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	unlink(path);
	CHECK(ftruncate(fd, SZ_256M) == 0);
	make_super(&sb, BTRFS_CSUM_TYPE_SHA256);
	CHECK(btrfs_write_super_all(NULL, fd, &sb, NULL, SZ_256M) == 0);
	CHECK(btrfs_read_super(fd, 0, 0, &got, &at) == 0);
	CHECK_EQ_U64(at, BTRFS_SUPER_INFO_OFFSET);
	CHECK_EQ_U64(btrfs_super_generation(&got), 7);
	CHECK(btrfs_read_super(fd, btrfs_sb_offset(1), 0, &got, NULL) == 0);
	CHECK_EQ_U64(btrfs_super_bytenr(&got), btrfs_sb_offset(1));
	/* The 256GiB copy does not fit a 256MiB device. */
	CHECK(btrfs_read_super(fd, btrfs_sb_offset(2), BTRFS_SUPER_READ_QUIET, &got, NULL) == -ERANGE);
	/* Damage the primary: RECOVER falls back to mirror 1. */
	CHECK(pwrite(fd, "garbage", 7, BTRFS_SUPER_INFO_OFFSET + 300) == 7);
	CHECK(btrfs_read_super(fd, 0, BTRFS_SUPER_READ_QUIET, &got, NULL) == -EUCLEAN);
	CHECK(btrfs_read_super(fd, 0, BTRFS_SUPER_READ_QUIET | BTRFS_SUPER_READ_RECOVER, &got, &at) == 0);
	CHECK_EQ_U64(at, btrfs_sb_offset(1));
	/* A short device: the copy is cut. */
	CHECK(ftruncate(fd, BTRFS_SUPER_INFO_OFFSET + 100) == 0);
	CHECK(btrfs_super_read_raw(fd, BTRFS_SUPER_INFO_OFFSET, &got, NULL) == -EIO);
	close(fd);
}

static int walk(const struct btrfs_super_block *sb, int *items)
{
	struct btrfs_sys_array_iter it;
	const struct btrfs_disk_key *key;
	const struct btrfs_chunk *chunk;
	u32 len;
	int ret;

	*items = 0;
	ret = btrfs_sys_array_init(&it, sb);
	while (ret == 0 && (ret = btrfs_sys_array_next_key(&it, &key)) > 0) {
		ret = btrfs_sys_array_next_chunk(&it, key, &chunk, &len);
		if (!ret)
			(*items)++;
	}
	return ret;
}

static void test_sys_array(void)
{
	struct btrfs_super_block sb;
	int items;

	make_super(&sb, 0);
	CHECK(walk(&sb, &items) == 0);
	CHECK_EQ_U64(items, 1);
	btrfs_set_super_sys_array_size(&sb, 5000);
	CHECK(walk(&sb, &items) == -EUCLEAN);
	btrfs_set_super_sys_array_size(&sb, 10);
	CHECK(walk(&sb, &items) == -EUCLEAN);
	btrfs_set_super_sys_array_size(&sb, 17 + 80 + 10);  /* second stripe cut */
	CHECK(walk(&sb, &items) == -EUCLEAN);
	make_super(&sb, 0);
	btrfs_set_chunk_num_stripes((struct btrfs_chunk *)(sb.sys_chunk_array + 17), 0);
	CHECK(walk(&sb, &items) == -EUCLEAN);
	btrfs_set_chunk_num_stripes((struct btrfs_chunk *)(sb.sys_chunk_array + 17), 65535);
	CHECK(walk(&sb, &items) == -EUCLEAN);
	make_super(&sb, 0);
	btrfs_set_disk_key_type((struct btrfs_disk_key *)sb.sys_chunk_array, BTRFS_DEV_ITEM_KEY);
	CHECK(walk(&sb, &items) == -EUCLEAN);
	btrfs_set_super_sys_array_size(&sb, 0);
	CHECK(walk(&sb, &items) == 0);
	CHECK_EQ_U64(items, 0);
}

static void test_flag_tables(void)
{
	CHECK_EQ_U64(btrfs_flag_table_mask(&btrfs_compat_ro_flags_table), 0xb);
	CHECK_STR(btrfs_flag_name(&btrfs_incompat_flags_table, BTRFS_FEATURE_INCOMPAT_NO_HOLES), "NO_HOLES");
	CHECK(btrfs_flag_name(&btrfs_incompat_flags_table, 1ULL << 40) == NULL);
	CHECK_STR(btrfs_super_flags_table.names[0].name, "WRITTEN");
}

static void test_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;

	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_string_len(&w, "s", "a\"b\\\n\x01\xff\xc3\xa9", 9);
	json_u64(&w, "n", 18446744073709551615ULL);
	json_flags(&w, "f", 0x3 | (1ULL << 40), &btrfs_header_flags_table);
	json_begin_array(&w, "e");
	json_end_array(&w);
	json_end_object(&w);
	CHECK(json_finish(&w) == 0);
	fclose(f);
	CHECK_STR(buf, "{\n  \"s\": \"a\\\"b\\\\\\n\\u0001\\u00ff\xc3\xa9\",\n"
		       "  \"n\": 18446744073709551615,\n"
		       "  \"f\": [\n    \"WRITTEN\",\n    \"RELOC\",\n    \"0x10000000000\"\n  ],\n"
		       "  \"e\": []\n}\n");
	free(buf);

	/* Misuse is reported, not fatal. */
	f = open_memstream(&buf, &len);
	json_init(&w, f);
	json_begin_object(&w, NULL);
	json_u64(&w, NULL, 1);            /* value without key in an object */
	CHECK(json_finish(&w) == -EINVAL);
	fclose(f);
	free(buf);
	f = open_memstream(&buf, &len);
	json_init(&w, f);
	json_begin_array(&w, NULL);
	CHECK(json_finish(&w) == -EINVAL);  /* unbalanced */
	fclose(f);
	free(buf);
}

int main(void)
{
	RUN(test_csum_types);
	RUN(test_keyed_types);
	RUN(test_keyed_super);
	RUN(test_validate);
	RUN(test_write_read);
	RUN(test_sys_array);
	RUN(test_flag_tables);
	RUN(test_json);
	return unit_done();
}

// SPDX-License-Identifier: GPL-2.0
/* Superblock copies: read, verify, write; sys_chunk_array walking. */
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include "kernel-shared/read/super.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/messages.h"

int btrfs_super_read_raw(int fd, u64 bytenr, struct btrfs_super_block *sb, size_t *got)
{
	size_t done = 0;

	if (got)
		*got = 0;
	if (bytenr > (u64)INT64_MAX - BTRFS_SUPER_INFO_SIZE)
		return -ERANGE;
	while (done < BTRFS_SUPER_INFO_SIZE) {
		ssize_t n = pread(fd, (u8 *)sb + done, BTRFS_SUPER_INFO_SIZE - done,
				  (off_t)(bytenr + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	if (got)
		*got = done;
	if (done == 0)
		return -ERANGE;
	if (done < BTRFS_SUPER_INFO_SIZE)
		return -EIO;
	return 0;
}

int btrfs_super_csum_verify(const struct btrfs_super_block *sb)
{
	struct btrfs_csum c;
	int ret;

	/* no key here: a keyed type gets its full check at btrfs_open_fs() with the key */
	ret = btrfs_csum_setup(&c, btrfs_super_csum_type(sb), NULL, 0);
	if (ret < 0)
		return ret;
	ret = btrfs_super_csum_check(sb, &c);
	btrfs_csum_release(&c);
	if (ret < 0)
		return ret;
	return ret == BTRFS_CSUM_DAMAGED || ret == BTRFS_CSUM_ALTERED ? -EUCLEAN : 0;
}

int btrfs_super_csum_check(const struct btrfs_super_block *sb, const struct btrfs_csum *csum)
{
	if (csum->type != btrfs_super_csum_type(sb))
		return -EINVAL;
	return btrfs_csum_verify(csum, (const u8 *)sb + BTRFS_CSUM_SIZE,
				 BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, sb->csum);
}

int btrfs_super_csum_setup(struct btrfs_csum *csum, const struct btrfs_super_block *sb,
			   const u8 *key, size_t keylen)
{
	u16 type = btrfs_super_csum_type(sb);
	const char *name = btrfs_csum_type_name(type);
	u8 check[BTRFS_CSUM_SIZE];
	int ret;

	if (key && !btrfs_csum_type_keyed(type)) {
		error("an authentication key was given but the filesystem's checksum type %s is not keyed",
		      name ? name : "?");
		return -EINVAL;
	}
	ret = btrfs_csum_setup(csum, type, key, keylen);
	if (ret < 0) {
		error("cannot set up checksum type %u: %s", type, strerror(-ret));
		return ret;
	}
	if (!csum->have_key)
		return 0;
	ret = btrfs_csum_key_check(csum, sb->fsid, check);
	if (ret == 0 && memcmp(check, sb->auth_key_check, BTRFS_CSUM_SIZE)) {
		error("wrong key for this filesystem");
		ret = -EKEYREJECTED;
	}
	if (ret < 0)
		btrfs_csum_release(csum);
	return ret;
}

int btrfs_super_csum_set(struct btrfs_super_block *sb, const struct btrfs_csum *c)
{
	u8 csum[BTRFS_CSUM_SIZE];
	const u8 *from = (const u8 *)sb + BTRFS_CSUM_SIZE;
	int ret;

	if (c && c->type != btrfs_super_csum_type(sb))
		return -EINVAL;
	if (c)
		ret = btrfs_csum_compute(c, from, BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, csum);
	else
		ret = btrfs_csum_data(btrfs_super_csum_type(sb), from,
				      BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, csum);
	if (ret < 0)
		return ret;
	memcpy(sb->csum, csum, BTRFS_CSUM_SIZE);
	return 0;
}

const u8 *btrfs_super_metadata_fsid(const struct btrfs_super_block *sb)
{
	return btrfs_super_has_metadata_uuid(sb) ? sb->metadata_uuid : sb->fsid;
}

static bool is_power_of_2(u64 v)
{
	return v && !(v & (v - 1));
}

/* The sys_chunk_array queries (super.h); the validator and the mends use them. */
u32 btrfs_super_sys_array_used(const struct btrfs_super_block *sb, u32 *sector_size)
{
	const u8 *p = sb->sys_chunk_array;
	u32 cur = 0, unused;

	if (!sector_size)
		sector_size = &unused;
	*sector_size = 0;
	while (cur + sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk) <= BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
		const struct btrfs_disk_key *k = (const void *)(p + cur);
		const struct btrfs_chunk *c = (const void *)(p + cur + sizeof(*k));
		u16 stripes = btrfs_chunk_num_stripes(c);
		u32 len = sizeof(*k) + (u32)btrfs_chunk_item_size(stripes);

		if (k->type != BTRFS_CHUNK_ITEM_KEY || !stripes || cur + len > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE ||
		    !(btrfs_chunk_type(c) & BTRFS_BLOCK_GROUP_SYSTEM))
			break;
		if (!*sector_size)
			*sector_size = btrfs_chunk_sector_size(c);
		cur += len;
	}
	return cur;
}

u32 btrfs_super_sys_array_cut(const struct btrfs_super_block *sb)
{
	const u8 *p = sb->sys_chunk_array;
	u32 cur = 0, size = btrfs_super_sys_array_size(sb), used = btrfs_super_sys_array_used(sb, NULL);

	while (cur < used) {
		const struct btrfs_chunk *c = (const void *)(p + cur + sizeof(struct btrfs_disk_key));
		u32 end = cur + (u32)(sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(btrfs_chunk_num_stripes(c)));

		if (size > cur && size < end)
			return end;
		cur = end;
	}
	return 0;
}

bool btrfs_super_sys_array_tail(const struct btrfs_super_block *sb)
{
	u32 used = btrfs_super_sys_array_used(sb, NULL), size = btrfs_super_sys_array_size(sb);

	return used && size > used && size <= BTRFS_SYSTEM_CHUNK_ARRAY_SIZE &&
	       size - used < sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(1);
}

bool btrfs_super_sectorsize_valid(u64 sectorsize)
{
	return is_power_of_2(sectorsize) && sectorsize >= SZ_4K && sectorsize <= SZ_64K;
}

bool btrfs_super_nodesize_valid(u64 nodesize, u64 sectorsize)
{
	return is_power_of_2(nodesize) && nodesize >= sectorsize && nodesize >= SZ_4K &&
	       nodesize <= BTRFS_MAX_METADATA_BLOCKSIZE;
}

#define SB_BAD(...) (error(__VA_ARGS__), ret = -EUCLEAN)

static int super_validate(const struct btrfs_super_block *sb, u64 bytenr, u64 magic)
{
	u64 at = bytenr == (u64)-1 ? btrfs_super_bytenr(sb) : bytenr;
	u32 sectorsize = btrfs_super_sectorsize(sb);
	u32 nodesize = btrfs_super_nodesize(sb);
	u16 type = btrfs_super_csum_type(sb);
	u32 sys_size = btrfs_super_sys_array_size(sb);
	int ret = 0;

	if (btrfs_super_magic(sb) != magic) {
		error("superblock at %llu: bad magic", at);
		return -EUCLEAN;
	}
	if (!btrfs_csum_type_valid(type)) {
		error("superblock at %llu: unsupported checksum type %u", at, type);
		return -EOPNOTSUPP;
	}
	if (btrfs_super_csum_verify(sb)) {
		error("superblock at %llu: checksum mismatch (%s)", at, btrfs_csum_type_name(type));
		return -EUCLEAN;
	}
	if (bytenr != (u64)-1 && btrfs_super_bytenr(sb) != bytenr)
		SB_BAD("superblock at %llu: bytenr mismatch, have %llu expect %llu", at,
		       btrfs_super_bytenr(sb), bytenr);
	if (!btrfs_super_sectorsize_valid(sectorsize))
		SB_BAD("superblock at %llu: invalid sectorsize %u", at, sectorsize);
	if (!btrfs_super_nodesize_valid(nodesize, sectorsize))
		SB_BAD("superblock at %llu: invalid nodesize %u (sectorsize %u)", at, nodesize,
		       sectorsize);
	if (btrfs_super_leafsize(sb) != nodesize)
		SB_BAD("superblock at %llu: leafsize %u differs from nodesize %u", at,
		       btrfs_super_leafsize(sb), nodesize);
	if (is_power_of_2(sectorsize)) {
		if (!IS_ALIGNED(btrfs_super_root(sb), sectorsize))
			SB_BAD("superblock at %llu: root %llu not aligned to sectorsize %u", at,
			       btrfs_super_root(sb), sectorsize);
		if (!IS_ALIGNED(btrfs_super_chunk_root(sb), sectorsize))
			SB_BAD("superblock at %llu: chunk_root %llu not aligned to sectorsize %u", at,
			       btrfs_super_chunk_root(sb), sectorsize);
		if (!IS_ALIGNED(btrfs_super_log_root(sb), sectorsize))
			SB_BAD("superblock at %llu: log_root %llu not aligned to sectorsize %u", at,
			       btrfs_super_log_root(sb), sectorsize);
	}
	if (btrfs_super_root_level(sb) >= BTRFS_MAX_LEVEL)
		SB_BAD("superblock at %llu: root_level %u, have %u expect < %u", at,
		       btrfs_super_root_level(sb), btrfs_super_root_level(sb), BTRFS_MAX_LEVEL);
	if (btrfs_super_chunk_root_level(sb) >= BTRFS_MAX_LEVEL)
		SB_BAD("superblock at %llu: chunk_root_level %u, have %u expect < %u", at,
		       btrfs_super_chunk_root_level(sb), btrfs_super_chunk_root_level(sb),
		       BTRFS_MAX_LEVEL);
	if (btrfs_super_log_root_level(sb) >= BTRFS_MAX_LEVEL)
		SB_BAD("superblock at %llu: log_root_level %u, have %u expect < %u", at,
		       btrfs_super_log_root_level(sb), btrfs_super_log_root_level(sb),
		       BTRFS_MAX_LEVEL);
	if (!btrfs_super_root(sb))
		SB_BAD("superblock at %llu: root is 0", at);
	if (!btrfs_super_chunk_root(sb))
		SB_BAD("superblock at %llu: chunk_root is 0", at);
	if (!btrfs_super_num_devices(sb))
		SB_BAD("superblock at %llu: num_devices is 0", at);
	/* 4096 is what old mkfs wrote whatever the sector size (btrfs-progs' rule) */
	if (btrfs_super_stripesize(sb) != SZ_4K && btrfs_super_stripesize(sb) != sectorsize)
		SB_BAD("superblock at %llu: invalid stripesize %u", at, btrfs_super_stripesize(sb));
	if (!btrfs_super_total_bytes(sb))
		SB_BAD("superblock at %llu: invalid total_bytes 0", at);
	if (btrfs_super_bytes_used(sb) < 6ULL * nodesize)
		SB_BAD("superblock at %llu: invalid bytes_used %llu, expect >= 6 * nodesize", at,
		       btrfs_super_bytes_used(sb));
	if (btrfs_super_flags(sb) & ~BTRFS_SUPER_FLAG_KNOWN)
		SB_BAD("superblock at %llu: unrecognized or unsupported super flag 0x%llx", at,
		       btrfs_super_flags(sb) & ~BTRFS_SUPER_FLAG_KNOWN);
	if (btrfs_super_incompat_flags(sb) & ~BTRFS_FEATURE_INCOMPAT_KNOWN)
		SB_BAD("superblock at %llu: unsupported incompat features 0x%llx", at,
		       btrfs_super_incompat_flags(sb) & ~BTRFS_FEATURE_INCOMPAT_KNOWN);
	if (sys_size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE)
		SB_BAD("superblock at %llu: sys_array_size %u, have %u expect <= %u", at, sys_size,
		       sys_size, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	if (sys_size < sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(1))
		SB_BAD("superblock at %llu: sys_array_size %u too small, expect >= %lu", at,
		       sys_size, (unsigned long)(sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(1)));
	if (btrfs_super_sys_array_tail(sb))
		SB_BAD("superblock at %llu: sys_array_size %u counts %u bytes past its last chunk, too few for another",
		       at, sys_size, sys_size - btrfs_super_sys_array_used(sb, NULL));
	if (btrfs_super_sys_array_cut(sb))
		SB_BAD("superblock at %llu: sys_array_size %u ends inside the system chunk that ends at %u",
		       at, sys_size, btrfs_super_sys_array_cut(sb));
	if (memcmp(sb->dev_item.fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE))
		SB_BAD("superblock at %llu: dev_item fsid does not match the %s", at,
		       btrfs_super_has_metadata_uuid(sb) ? "metadata_uuid" : "fsid");
	if (btrfs_super_has_metadata_uuid(sb) &&
	    !memcmp(sb->metadata_uuid, (u8[BTRFS_FSID_SIZE]){ 0 }, BTRFS_FSID_SIZE))
		SB_BAD("superblock at %llu: METADATA_UUID set but metadata_uuid is zero", at);
	return ret;
}

int btrfs_super_validate(const struct btrfs_super_block *sb, u64 bytenr)
{
	return super_validate(sb, bytenr, BTRFS_MAGIC);
}

static int read_one(int fd, u64 bytenr, bool quiet, u64 magic, struct btrfs_super_block *sb)
{
	size_t got;
	int ret;

	ret = btrfs_super_read_raw(fd, bytenr, sb, &got);
	if (ret == -ERANGE) {
		if (!quiet)
			error("no superblock at %llu: beyond the end of the device", bytenr);
		return ret;
	}
	if (ret == -EIO) {
		if (!quiet)
			error("superblock at %llu: short read, %zu of %u bytes", bytenr, got,
			      BTRFS_SUPER_INFO_SIZE);
		return ret;
	}
	if (ret < 0) {
		if (!quiet)
			error_errno(ret, "cannot read superblock at %llu", bytenr);
		return ret;
	}
	if (quiet) {
		if (btrfs_super_magic(sb) != magic ||
		    !btrfs_csum_type_valid(btrfs_super_csum_type(sb)) || btrfs_super_csum_verify(sb))
			return -EUCLEAN;
		/* Structural problems are worth a message even when quiet. */
	}
	return super_validate(sb, bytenr, magic);
}

int btrfs_read_super(int fd, u64 bytenr, unsigned int flags, struct btrfs_super_block *sb,
		     u64 *found_at)
{
	struct btrfs_super_block tmp;
	bool quiet = flags & BTRFS_SUPER_READ_QUIET;
	u64 magic = flags & BTRFS_SUPER_READ_TEMPORARY ? BTRFS_MAGIC_TEMPORARY : BTRFS_MAGIC;
	u64 best_gen = 0;
	int ret, best = -1;

	if (!bytenr)
		bytenr = BTRFS_SUPER_INFO_OFFSET;
	ret = read_one(fd, bytenr, quiet, magic, sb);
	if (found_at)
		*found_at = bytenr;
	if (!ret || bytenr != BTRFS_SUPER_INFO_OFFSET || !(flags & BTRFS_SUPER_READ_RECOVER))
		return ret;

	for (int i = 1; i < BTRFS_SUPER_MIRROR_MAX; i++) {
		if (read_one(fd, btrfs_sb_offset(i), true, magic, &tmp))
			continue;
		if (best < 0 || btrfs_super_generation(&tmp) > best_gen) {
			best = i;
			best_gen = btrfs_super_generation(&tmp);
			memcpy(sb, &tmp, sizeof(tmp));
		}
	}
	if (best < 0)
		return ret;
	if (!quiet)
		warning("primary superblock is bad, using the copy at %llu (generation %llu)",
			btrfs_sb_offset(best), best_gen);
	if (found_at)
		*found_at = btrfs_sb_offset(best);
	return 0;
}

int btrfs_write_super(struct btrfs_write_log *log, int fd, const struct btrfs_super_block *sb,
		      const struct btrfs_csum *csum, int mirror)
{
	struct btrfs_super_block copy;
	u64 bytenr;
	int ret;

	if (mirror < 0 || mirror >= BTRFS_SUPER_MIRROR_MAX)
		return -EINVAL;
	bytenr = btrfs_sb_offset(mirror);
	memcpy(&copy, sb, sizeof(copy));
	btrfs_set_super_bytenr(&copy, bytenr);
	ret = btrfs_super_csum_set(&copy, csum);
	if (ret < 0) {
		error("cannot checksum superblock (checksum type %u): %s",
		      btrfs_super_csum_type(&copy), ret == -ENOKEY ? "the type needs the key" :
		      strerror(-ret));
		return ret;
	}
	ret = btrfs_dev_write(log, fd, &copy, sizeof(copy), bytenr);
	if (ret < 0)
		error_errno(ret, "cannot write superblock at %llu", bytenr);
	return ret;
}

int btrfs_super_copies_in(u64 device_size)
{
	int m = 0;

	while (m < BTRFS_SUPER_MIRROR_MAX && btrfs_sb_offset(m) + BTRFS_SUPER_INFO_SIZE <= device_size)
		m++;
	return m;
}

int btrfs_write_super_all(struct btrfs_write_log *log, int fd, const struct btrfs_super_block *sb,
			  const struct btrfs_csum *csum, u64 device_size)
{
	int ret;

	for (int i = 0; i < btrfs_super_copies_in(device_size); i++) {
		ret = btrfs_write_super(log, fd, sb, csum, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- sys_chunk_array ---------------------------------------------------- */

int btrfs_sys_array_init(struct btrfs_sys_array_iter *it, const struct btrfs_super_block *sb)
{
	it->sb = sb;
	it->size = btrfs_super_sys_array_size(sb);
	it->cur = 0;
	it->nr = 0;
	if (it->size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
		error("sys_array_size %u shouldn't exceed %u bytes", it->size,
		      BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
		it->size = 0;
		return -EUCLEAN;
	}
	return 0;
}

static int too_short(const struct btrfs_sys_array_iter *it, u32 len)
{
	error("sys_array too short to read %u bytes at offset %u", len, it->cur);
	return -EUCLEAN;
}

int btrfs_sys_array_next_key(struct btrfs_sys_array_iter *it, const struct btrfs_disk_key **key)
{
	if (it->cur >= it->size)
		return 0;
	if (it->size - it->cur < sizeof(struct btrfs_disk_key))
		return too_short(it, sizeof(struct btrfs_disk_key));
	*key = (const struct btrfs_disk_key *)(it->sb->sys_chunk_array + it->cur);
	it->cur += sizeof(struct btrfs_disk_key);
	it->nr++;
	return 1;
}

int btrfs_sys_array_next_chunk(struct btrfs_sys_array_iter *it, const struct btrfs_disk_key *key,
			       const struct btrfs_chunk **chunk, u32 *len)
{
	const struct btrfs_chunk *c;
	u16 num_stripes;
	u32 need;

	if (btrfs_disk_key_type(key) != BTRFS_CHUNK_ITEM_KEY) {
		error("unexpected item type %u in sys_array at offset %u", btrfs_disk_key_type(key),
		      it->cur);
		return -EUCLEAN;
	}
	/* The fixed part and one stripe, before num_stripes may be read. */
	need = btrfs_chunk_item_size(1);
	if (it->size - it->cur < need)
		return too_short(it, need);
	c = (const struct btrfs_chunk *)(it->sb->sys_chunk_array + it->cur);
	num_stripes = btrfs_chunk_num_stripes(c);
	if (!num_stripes) {
		error("invalid number of stripes %u in sys_array at offset %u", num_stripes, it->cur);
		return -EUCLEAN;
	}
	need = btrfs_chunk_item_size(num_stripes);
	if (it->size - it->cur < need)
		return too_short(it, need);
	*chunk = c;
	*len = need;
	it->cur += need;
	return 0;
}

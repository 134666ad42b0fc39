// SPDX-License-Identifier: GPL-2.0
/*
 * The one verified tree block read (ctree.h for the contract): the block
 * cache, mirrors and RAID5/6 rebuild, the checksum, header and tree-checker
 * verdicts.  Opening a filesystem, which searches its trees, is open.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <uuid.h>
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/checked-blocks.h"
#include "kernel-shared/format/raid6.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/growable-array.h"

/* ---- small helpers ---- */

static __printf(3, 4) void msgf(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static void hex_csum(char *out, const u8 *csum, int size)
{
	int i;

	out += sprintf(out, "0x");
	for (i = 0; i < size; i++)
		out += sprintf(out, "%02x", csum[i]);
}

const struct btrfs_super_block *btrfs_fs_super(const struct btrfs_fs_info *fs)
{
	return fs->super;
}

const struct btrfs_fs_geometry *btrfs_fs_geometry(const struct btrfs_fs_info *fs)
{
	return &fs->geo;
}

u64 btrfs_fs_altered_blocks(const struct btrfs_fs_info *fs)
{
	return fs->csum_altered;
}

const u8 *btrfs_header_fsid(const struct btrfs_fs_info *fs)
{
	return fs->geo.fsid;
}

const struct btrfs_device *btrfs_seed_device(const struct btrfs_fs_info *fs, const u8 *fsid)
{
	for (int i = 0; i < fs->devices.nr; i++) {
		const struct btrfs_device *d = &fs->devices.devs[i];

		if (!d->missing && memcmp(d->fsid, btrfs_header_fsid(fs), BTRFS_FSID_SIZE) &&
		    (!fsid || !memcmp(d->fsid, fsid, BTRFS_FSID_SIZE)))
			return d;
	}
	return NULL;
}

/* ---- checksums ---- */

void btrfs_csum_tree_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u8 *out)
{
	/* zero without the key: writes are refused at open then, reads use btrfs_csum_verify() */
	if (btrfs_csum_compute(&fs->csum, eb->data + BTRFS_CSUM_SIZE, eb->len - BTRFS_CSUM_SIZE, out))
		memset(out, 0, BTRFS_CSUM_SIZE);
}

/* ---- block cache (verified blocks only, fixed size) ---- */

static struct btrfs_block_cache_slot *cache_slot(struct btrfs_fs_info *fs, u64 bytenr)
{
	u64 h = bytenr / fs->geo.sectorsize;

	h ^= h >> 17;
	return &fs->cache[h % BTRFS_BLOCK_CACHE_SLOTS];
}

static void cache_put(struct btrfs_fs_info *fs, const struct extent_buffer *eb, bool checker_failed)
{
	struct btrfs_block_cache_slot *slot = cache_slot(fs, eb->start);
	struct extent_buffer *copy = clone_extent_buffer(eb);

	if (!copy)
		return;
	free_extent_buffer(slot->eb);
	slot->eb = copy;
	slot->bytenr = eb->start;
	slot->checker_failed = checker_failed;
}

void btrfs_block_cache_drop(struct btrfs_fs_info *fs)
{
	int i;

	for (i = 0; i < BTRFS_BLOCK_CACHE_SLOTS; i++) {
		free_extent_buffer(fs->cache[i].eb);
		fs->cache[i].eb = NULL;
		fs->cache[i].bytenr = 0;
	}
}

/* ---- mended blocks served instead of the disk's (check --repair) ---- */

int btrfs_override_tree_block(struct btrfs_fs_info *fs, struct extent_buffer *eb)
{
	char msg[512];

	if (btrfs_verify_tree_block(fs, eb, NULL, NULL, msg, sizeof(msg)) < 0) {
		error("mended block %llu not used: %s", eb->start, msg);
		return -EUCLEAN;
	}
	if (ARRAY_GROW(fs->overrides, fs->overrides_nr, fs->overrides_alloc))
		return -ENOMEM;
	fs->overrides[fs->overrides_nr++] = eb;
	return 0;
}

static const struct extent_buffer *find_override(const struct btrfs_fs_info *fs, u64 bytenr)
{
	size_t i;

	for (i = 0; i < fs->overrides_nr; i++)
		if (fs->overrides[i]->start == bytenr)
			return fs->overrides[i];
	return NULL;
}

void btrfs_overrides_free(struct btrfs_fs_info *fs)
{
	size_t i;

	for (i = 0; i < fs->overrides_nr; i++)
		free_extent_buffer(fs->overrides[i]);
	free(fs->overrides);
	fs->overrides = NULL;
	fs->overrides_nr = fs->overrides_alloc = 0;
}

/* ---- reading one mirror ---- */

static struct btrfs_device *find_dev(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c,
				     int index)
{
	return btrfs_find_device(&fs->devices, c->stripes[index].devid, c->stripes[index].dev_uuid);
}

static int pread_dev(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c,
		     const struct btrfs_io_stripe *io, u8 *buf, u64 len, char *msg, size_t msglen)
{
	struct btrfs_device *dev = find_dev(fs, c, io->stripe_index);
	ssize_t got;

	if (!dev || dev->missing || dev->fd < 0) {
		msgf(msg, msglen, "device devid %llu is missing", io->devid);
		return -ENODEV;
	}
	if (io->physical + len < io->physical || io->physical + len > dev->size) {
		msgf(msg, msglen, "physical %llu+%llu beyond the end of devid %llu (%llu bytes)",
		     io->physical, len,
		     io->devid, dev->size);
		return -EIO;
	}
	got = pread(dev->fd, buf, len, io->physical);
	if (got != (ssize_t)len) {
		msgf(msg, msglen, "read error on devid %llu at physical %llu",
		     io->devid, io->physical);
		return -EIO;
	}
	return 0;
}

/*
 * RAID5/6 mirror >= 2: the data unit holding logical, rebuilt from the rest
 * of its row with that unit taken as lost.  Mirror 2 rebuilds from the
 * other data units and P; mirror >= 3 (RAID6) takes one more unit as lost,
 * P for mirror 3, else the (mirror - 3)-th other data unit, and rebuilds
 * with P and Q.  Every unit used must be readable.
 */
static int rebuild_unit(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c, u64 logical,
			int mirror, u8 *buf, u64 len, char *msg, size_t msglen)
{
	struct btrfs_io_stripe row[BTRFS_MAX_MIRRORS * 64];
	struct btrfs_io_stripe target;
	u8 *units[BTRFS_MAX_MIRRORS * 64] = { NULL };
	bool lost[BTRFS_MAX_MIRRORS * 64] = { false };
	int n, nr_data, nparity = mirror == 2 ? 1 : 2, i, t = -1, other = -1, ret = 0;
	u8 *space;

	if (c->num_stripes > ARRAY_SIZE(row)) {
		msgf(msg, msglen, "too many stripes to rebuild");
		return -EIO;
	}
	n = btrfs_chunk_map_parity(c, logical, row, ARRAY_SIZE(row));
	nr_data = btrfs_chunk_data_stripes(c);
	if (n < nr_data + nparity || btrfs_chunk_map_one(c, logical, 1, &target) < 0) {
		msgf(msg, msglen, "cannot map parity");
		return -EIO;
	}
	for (i = 0; i < nr_data; i++)
		if (row[i].stripe_index == target.stripe_index)
			t = i;
	if (t < 0) {
		msgf(msg, msglen, "cannot map parity");
		return -EIO;
	}
	if (mirror == 3) {
		other = nr_data;
	} else if (mirror > 3) {
		int k = mirror - 3;

		for (i = 0; i < nr_data && other < 0; i++)
			if (i != t && --k == 0)
				other = i;
		if (other < 0) {
			msgf(msg, msglen, "no RAID6 mirror %d", mirror);
			return -EIO;
		}
	}
	space = malloc((size_t)(nr_data + nparity) * len);
	if (!space)
		return -ENOMEM;
	for (i = 0; i < nr_data + nparity; i++) {
		units[i] = i == t ? buf : space + (size_t)i * len;
		lost[i] = i == t || i == other;
		if (lost[i])
			continue;
		ret = pread_dev(fs, c, &row[i], units[i], len, msg, msglen);
		if (ret < 0)
			goto out;
	}
	ret = raid56_rebuild_units(nr_data, nparity, len, units, lost);
	if (ret < 0)
		msgf(msg, msglen, "rebuild from parity failed");
out:
	free(space);
	return ret;
}

/* Read len bytes at logical from one mirror, unit by unit. */
static int read_logical_mirror(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c,
			       u64 logical, int mirror, u8 *buf, u32 len, char *msg, size_t msglen)
{
	bool raid56 = btrfs_raid_has_parity(c->type);
	u32 done = 0;
	int ret;

	while (done < len) {
		struct btrfs_io_stripe io;
		u64 n;

		ret = btrfs_chunk_map_one(c, logical + done, raid56 ? 1 : mirror, &io);
		if (ret < 0) {
			msgf(msg, msglen, "cannot map logical %llu mirror %d",
			     (logical + done), mirror);
			return -EIO;
		}
		n = min_t(u64, io.len, len - done);
		if (raid56 && mirror > 1)
			ret = rebuild_unit(fs, c, logical + done, mirror, buf + done, n, msg, msglen);
		else
			ret = pread_dev(fs, c, &io, buf + done, n, msg, msglen);
		if (ret < 0)
			return ret;
		done += n;
	}
	return 0;
}

/* Range and alignment checks, before anything is allocated. */
static const struct btrfs_chunk_map *check_bytenr(struct btrfs_fs_info *fs, u64 bytenr, bool quiet)
{
	const struct btrfs_chunk_map *c;
	u32 nodesize = fs->geo.nodesize;

	if (!bytenr || !IS_ALIGNED(bytenr, fs->geo.sectorsize)) {
		if (!quiet)
			error("tree block bytenr %llu is not aligned to sectorsize %u",
			      bytenr, fs->geo.sectorsize);
		return NULL;
	}
	c = btrfs_chunk_lookup(&fs->chunks, bytenr);
	if (!c) {
		if (!quiet)
			error("tree block %llu is not in any chunk", bytenr);
		return NULL;
	}
	if (bytenr + nodesize < bytenr || bytenr + nodesize > c->logical + c->length) {
		if (!quiet)
			error("tree block %llu crosses the end of chunk %llu",
			      bytenr, c->logical);
		return NULL;
	}
	return c;
}

int btrfs_num_mirrors(struct btrfs_fs_info *fs, u64 bytenr)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&fs->chunks, bytenr);

	return c ? btrfs_chunk_num_mirrors(c) : 0;
}

/*
 * One copy of tree block eb->start into eb: from the devices, or while a
 * commit is re-read (fs->view_block) its block in memory, what every
 * mirror will hold.
 */
static int read_block_copy(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c,
			   struct extent_buffer *eb, int mirror, char *msg, size_t msglen)
{
	const struct extent_buffer *view = fs->view_block ? fs->view_block(fs->view_arg, eb->start)
							  : NULL;

	if (view && view->len == eb->len) {
		memcpy(eb->data, view->data, eb->len);
		return 0;
	}
	return read_logical_mirror(fs, c, eb->start, mirror, eb->data, eb->len, msg, msglen);
}

int btrfs_read_tree_block_mirror(struct btrfs_fs_info *fs, u64 bytenr, int mirror,
				 struct extent_buffer **out)
{
	const struct btrfs_chunk_map *c = check_bytenr(fs, bytenr, false);
	struct extent_buffer *eb;
	char msg[256];
	int ret;

	*out = NULL;
	if (!c)
		return -EIO;
	if (mirror < 1 || mirror > btrfs_chunk_num_mirrors(c)) {
		error("tree block %llu has no mirror %d", bytenr, mirror);
		return -EINVAL;
	}
	eb = alloc_extent_buffer(bytenr, fs->geo.nodesize);
	if (!eb)
		return -ENOMEM;
	ret = read_block_copy(fs, c, eb, mirror, msg, sizeof(msg));
	if (ret < 0) {
		error("failed to read tree block %llu mirror %d: %s", bytenr,
		      mirror, msg);
		free_extent_buffer(eb);
		return -EIO;
	}
	eb->mirror = mirror;
	*out = eb;
	return 0;
}

int btrfs_read_data_mirror(struct btrfs_fs_info *fs, u64 logical, int mirror, void *buf, u32 len,
			   char *msg, size_t msglen)
{
	const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&fs->chunks, logical);

	if (!c || logical + len < logical || logical + len > c->logical + c->length) {
		snprintf(msg, msglen, "range [%llu %llu) is not inside one chunk", logical,
			 logical + len);
		return -EINVAL;
	}
	if (mirror < 1 || mirror > btrfs_chunk_num_mirrors(c)) {
		snprintf(msg, msglen, "chunk %llu has no mirror %d", c->logical, mirror);
		return -EINVAL;
	}
	/* a parity rebuild holds a row of units: at most nodesize bytes each */
	for (u32 done = 0; done < len; done += fs->geo.nodesize) {
		u32 n = min_t(u32, fs->geo.nodesize, len - done);

		if (read_logical_mirror(fs, c, logical + done, mirror, (u8 *)buf + done, n, msg,
					msglen) < 0)
			return -EIO;
	}
	return 0;
}

/* ---- verification ---- */

static void key_str(char *buf, size_t len, const struct btrfs_key *k)
{
	snprintf(buf, len, "(%llu %u %llu)", k->objectid, k->type,
		 k->offset);
}

/* The tree-checker, unless another reader checked these very bytes (their checksum verified). */
static int tree_checker(struct btrfs_fs_info *fs, const struct extent_buffer *eb, unsigned int relax,
			char *msg, size_t msglen)
{
	bool known = !(relax & READ_NO_CSUM);
	int ret;

	if (known && btrfs_checked_blocks_has(fs->checked, eb))
		return 0;
	ret = btrfs_check_tree_block_msg(&fs->geo, eb, msg, msglen);
	if (ret == 0 && known)
		btrfs_checked_blocks_add(fs->checked, eb);
	return ret;
}

int btrfs_verify_tree_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb,
			    const struct tree_check *expect, const struct read_policy *policy,
			    char *msg, size_t msglen)
{
	const struct btrfs_header *h = btrfs_header(eb);
	u16 csum_size = fs->geo.csum_size;
	unsigned int relax = policy ? policy->relax : 0;

	if (!(relax & READ_NO_CSUM)) {
		u8 csum[BTRFS_CSUM_SIZE];
		int res = btrfs_csum_verify(&fs->csum, eb->data + BTRFS_CSUM_SIZE,
					    eb->len - BTRFS_CSUM_SIZE, h->csum);

		/* UNAUTHENTICATED: authsum without the key, warned about at open */
		if (res < 0 || (res != BTRFS_CSUM_VALID && res != BTRFS_CSUM_UNAUTHENTICATED)) {
			char have[2 * BTRFS_CSUM_SIZE + 3], want[2 * BTRFS_CSUM_SIZE + 3];

			btrfs_csum_tree_block(fs, eb, csum);
			hex_csum(have, h->csum, csum_size);
			hex_csum(want, csum, csum_size);
			if (res == BTRFS_CSUM_ALTERED)
				fs->csum_altered++;
			if (res == BTRFS_CSUM_ALTERED)
				msgf(msg, msglen,
				     "checksum mismatch, have %s expect %s: block ALTERED (keyed hash fails, xxhash64 matches: changed without the key)",
				     have, want);
			else
				msgf(msg, msglen, "checksum mismatch, have %s expect %s", have, want);
			return -EUCLEAN;
		}
	}
	if (btrfs_header_bytenr(h) != eb->start) {
		msgf(msg, msglen, "bytenr mismatch, have %llu expect %llu",
		     btrfs_header_bytenr(h), eb->start);
		return -EUCLEAN;
	}
	if (memcmp(h->fsid, btrfs_header_fsid(fs), BTRFS_FSID_SIZE) && !btrfs_seed_device(fs, h->fsid)) {
		char have[BTRFS_UUID_UNPARSED_SIZE], want[BTRFS_UUID_UNPARSED_SIZE];

		uuid_unparse(h->fsid, have);
		uuid_unparse(btrfs_header_fsid(fs), want);
		msgf(msg, msglen, "fsid mismatch, have %s expect %s", have, want);
		return -EUCLEAN;
	}
	if (btrfs_header_level(h) >= BTRFS_MAX_LEVEL) {
		msgf(msg, msglen, "level %u too big, expect < %d", btrfs_header_level(h),
		     BTRFS_MAX_LEVEL);
		return -EUCLEAN;
	}
	if (expect && expect->level >= 0 && btrfs_header_level(h) != expect->level) {
		msgf(msg, msglen, "level mismatch, have %u expect %d", btrfs_header_level(h),
		     expect->level);
		return -EUCLEAN;
	}
	if (expect && expect->owner && btrfs_header_owner(h) != expect->owner) {
		msgf(msg, msglen, "owner mismatch, have %llu expect %llu",
		     btrfs_header_owner(h), expect->owner);
		return -EUCLEAN;
	}
	if (expect && expect->transid && btrfs_header_generation(h) != expect->transid &&
	    !(relax & READ_ANY_TRANSID)) {
		msgf(msg, msglen, "parent transid verify failed, have %llu expect %llu",
		     btrfs_header_generation(h),
		     expect->transid);
		return -EUCLEAN;
	}
	if (expect && expect->first_key && btrfs_header_nritems(h) > 0) {
		struct btrfs_key want, have;
		u32 nr = btrfs_header_nritems(h);
		bool fits = btrfs_header_level(h) ?
			sizeof(*h) + sizeof(struct btrfs_key_ptr) <= eb->len :
			sizeof(*h) + sizeof(struct btrfs_item) <= eb->len;

		btrfs_disk_key_to_cpu(&want, expect->first_key);
		if (fits && nr) {
			btrfs_block_key_to_cpu(eb, &have, 0);
			if (btrfs_comp_cpu_keys(&have, &want)) {
				char a[64], b[64];

				key_str(a, sizeof(a), &have);
				key_str(b, sizeof(b), &want);
				msgf(msg, msglen, "first key mismatch, have %s expect %s", a, b);
				return -EUCLEAN;
			}
		}
	}
	if (!(relax & READ_NO_TREE_CHECKER))
		return tree_checker(fs, eb, relax, msg, msglen);
	return 0;
}

/* ---- the one tree block read: cache, mirrors, verify, pick ---- */

static const struct read_policy verify_all;   /* every check, READ_FAIL, not quiet */

/*
 * Step 1: a mended block (check --repair) or a cached copy, when it meets
 * what this reader expects.  Both were verified in full when stored (a
 * cached block that failed the tree-checker goes to soft readers only), so
 * only the header against expect is checked again.  1 with *out, 0 none.
 */
static int read_from_cache(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			   const struct read_policy *pol, struct extent_buffer **out)
{
	const struct read_policy header = {
		.relax = READ_NO_CSUM | READ_NO_TREE_CHECKER | (pol->relax & READ_ANY_TRANSID),
	};
	const struct btrfs_block_cache_slot *slot = cache_slot(fs, bytenr);
	const struct extent_buffer *have = find_override(fs, bytenr);

	if (!have || btrfs_verify_tree_block(fs, have, expect, &header, NULL, 0) < 0) {
		have = NULL;
		if (slot->eb && slot->bytenr == bytenr &&
		    (!slot->checker_failed || pol->on_failure == READ_CHECKER_SOFT) &&
		    btrfs_verify_tree_block(fs, slot->eb, expect, &header, NULL, 0) == 0)
			have = slot->eb;
	}
	if (!have)
		return 0;
	*out = clone_extent_buffer(have);
	return *out ? 1 : -ENOMEM;
}

/* What one mirror's copy came to (step 3). */
enum mirror_verdict {
	MIRROR_GOOD,
	MIRROR_CHECKER_FAILED,   /* checksum and header pass, the tree-checker does not */
	MIRROR_BAD,              /* read in full, checksum or header fails */
	MIRROR_UNREADABLE,
};

static enum mirror_verdict verify_mirror(struct btrfs_fs_info *fs, const struct extent_buffer *eb,
					 const struct tree_check *expect,
					 const struct read_policy *pol, char *msg, size_t msglen)
{
	const struct read_policy header = { .relax = pol->relax | READ_NO_TREE_CHECKER };

	if (btrfs_verify_tree_block(fs, eb, expect, &header, msg, msglen) < 0)
		return MIRROR_BAD;
	if (!(pol->relax & READ_NO_TREE_CHECKER) && tree_checker(fs, eb, pol->relax, msg, msglen) < 0)
		return MIRROR_CHECKER_FAILED;
	return MIRROR_GOOD;
}

/* What the mirrors tried so far left for step 4. */
struct mirror_results {
	struct extent_buffer *good;   /* the first copy that passed: the loop stops there */
	struct extent_buffer *bad;    /* READ_KEEP_BAD: the first copy read in full */
	struct extent_buffer *soft;   /* READ_CHECKER_SOFT: the first that failed only the checker */
	char soft_msg[512];
	char reasons[1024];           /* "mirror N: why; ..." */
	size_t used;
	int last_ret;                 /* -EUCLEAN when the last mirror was read but failed */
};

/* Steps 2 and 3: read each mirror into eb and verify it, until one passes; the mirrors tried. */
static int read_mirrors(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *c,
			struct extent_buffer *eb, const struct tree_check *expect,
			const struct read_policy *pol, struct mirror_results *res)
{
	int mirror, nmirrors = btrfs_chunk_num_mirrors(c);
	enum mirror_verdict v;
	char msg[512];

	res->last_ret = -EIO;
	for (mirror = 1; mirror <= nmirrors; mirror++) {
		msg[0] = 0;
		v = MIRROR_UNREADABLE;
		if (read_block_copy(fs, c, eb, mirror, msg, sizeof(msg)) == 0) {
			eb->mirror = mirror;
			v = verify_mirror(fs, eb, expect, pol, msg, sizeof(msg));
		}
		if (v == MIRROR_GOOD) {
			res->good = eb;
			return mirror;
		}
		res->last_ret = v == MIRROR_UNREADABLE ? -EIO : -EUCLEAN;
		if (v != MIRROR_UNREADABLE && pol->on_failure == READ_KEEP_BAD && !res->bad) {
			res->bad = clone_extent_buffer(eb);
		} else if (v == MIRROR_CHECKER_FAILED && pol->on_failure == READ_CHECKER_SOFT &&
			   !res->soft) {
			res->soft = clone_extent_buffer(eb);
			snprintf(res->soft_msg, sizeof(res->soft_msg), "%s", msg);
		}
		if (res->used < sizeof(res->reasons))
			res->used += snprintf(res->reasons + res->used, sizeof(res->reasons) - res->used,
					      "%smirror %d: %s", mirror > 1 ? "; " : "", mirror, msg);
	}
	return nmirrors;
}

/*
 * Step 4: the copy that passed; else what on_failure asks for.  Only
 * copies verified without relaxing the checksum or the generation are
 * cached (one that failed the tree-checker marked so).
 */
static int pick_result(struct btrfs_fs_info *fs, u64 bytenr, int nmirrors,
		       const struct read_policy *pol, struct mirror_results *res,
		       struct extent_buffer **out)
{
	if (res->good) {
		if (!pol->relax)
			cache_put(fs, res->good, false);
		*out = res->good;
		return 0;
	}
	if (res->soft) {
		/*
		 * As btrfs-progs: the block is returned, the tree-checker's
		 * verdict reported on stderr in its own grammar, no prefix.
		 */
		if (!pol->quiet)
			fprintf(messages_stream(), "%s\n", res->soft_msg);
		if (!(pol->relax & (READ_NO_CSUM | READ_ANY_TRANSID)))
			cache_put(fs, res->soft, true);
		*out = res->soft;
		return 0;
	}
	if (!pol->quiet)
		error("failed to read tree block %llu (%d mirror%s tried): %s",
		      bytenr, nmirrors, nmirrors > 1 ? "s" : "", res->reasons);
	*out = res->bad;
	return res->last_ret == -EUCLEAN ? -EUCLEAN : -EIO;
}

int btrfs_read_tree_block_policy(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
				 const struct read_policy *policy, struct extent_buffer **out)
{
	const struct read_policy *pol = policy ? policy : &verify_all;
	struct mirror_results res = { 0 };
	const struct btrfs_chunk_map *c;
	struct extent_buffer *eb;
	int ret, nmirrors;

	*out = NULL;
	c = check_bytenr(fs, bytenr, pol->quiet);
	if (!c)
		return -EIO;
	ret = read_from_cache(fs, bytenr, expect, pol, out);
	if (ret)
		return ret < 0 ? ret : 0;
	eb = alloc_extent_buffer(bytenr, fs->geo.nodesize);
	if (!eb)
		return -ENOMEM;
	nmirrors = read_mirrors(fs, c, eb, expect, pol, &res);
	ret = pick_result(fs, bytenr, nmirrors, pol, &res, out);
	/* what was not handed out */
	if (*out != eb)
		free_extent_buffer(eb);
	if (*out != res.bad)
		free_extent_buffer(res.bad);
	if (*out != res.soft)
		free_extent_buffer(res.soft);
	return ret;
}

int btrfs_read_tree_block(struct btrfs_fs_info *fs, u64 bytenr, const struct tree_check *expect,
			  struct extent_buffer **out)
{
	return btrfs_read_tree_block_policy(fs, bytenr, expect, NULL, out);
}

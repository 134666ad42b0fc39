// SPDX-License-Identifier: GPL-2.0
/*
 * Offline balance: run the plan chunk by chunk (see offline.h).
 *
 * One chunk: its bytes are read through the old mapping in pieces (whole
 * rows of the new layout), the tree blocks (extent tree) and checksummed
 * data sectors (csum tree) in each piece are verified, a bad copy replaced
 * by a good mirror's, and the piece is written to the new stripes that are
 * not kept (mirrored targets: straight to each stripe; striped and parity
 * targets: through the engine's block writer on the new layout, which
 * computes P and Q).  Kept stripes are compared with the verified bytes
 * and rewritten where they differ.  Every device is flushed, then one
 * transaction switches the mapping (btrfs_trans_remap_chunk()).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include "balance/offline.h"
#include "balance/balance-online.h"
#include "lib/engine/transaction.h"
#include "lib/engine/chunk-alloc.h"
#include "lib/engine/tree-write.h"
#include "lib/read/disk-io.h"
#include "lib/read/dev-write.h"
#include "lib/read/volumes.h"
#include "lib/format/accessors.h"
#include "lib/format/growable-array.h"
#include "lib/format/messages.h"

#define PIECE_UNITS 64                  /* a piece: 64 rows of 64 KiB units */
#define WRITER_FLUSH (64ULL << 20)      /* flush the block writer's rows this often */
#define RUN_GAP SZ_1M                   /* free space shorter than this is copied along */

/* An extent of the chunk (extent tree): only these bytes are copied. */
struct used {
	u64 start;
	u64 end;
	bool tree;                      /* a tree block (verified by checksum and header) */
};

struct run {
	u64 start;
	u64 end;
};

struct piece {
	const struct btrfs_chunk_map *old;      /* the chunk's mapping before the convert */
	u64 chunk_end;
	u64 logical;                    /* the span read: first to last used byte of the piece */
	u32 len;
	u8 *buf;
	int mirror;                     /* the old mirror it was read from */
	bool repaired;                  /* a block came from another mirror */
	struct used *used;              /* the chunk's extents, sorted */
	size_t nr_used, alloc_used;
	struct run *runs;               /* what the piece writes: used ranges, short gaps merged */
	size_t nr_runs, alloc_runs;
};

static const struct btrfs_device *device_of(struct btrfs_fs_info *fs, u64 devid)
{
	for (int i = 0; i < fs->devices.nr; i++)
		if (fs->devices.devs[i].devid == devid && fs->devices.devs[i].fd >= 0)
			return &fs->devices.devs[i];
	return NULL;
}

/* The CHUNK_ITEM of the new layout (malloc'ed, *size set). */
static struct btrfs_chunk *new_chunk_item(struct btrfs_fs_info *fs, const struct offline_chunk *oc,
					  u32 *size)
{
	struct chunk_placement *pl = calloc(1, sizeof(*pl) + oc->new_num_stripes * sizeof(pl->stripes[0]));
	struct btrfs_chunk *ch;

	*size = (u32)btrfs_chunk_item_size((int)oc->new_num_stripes);
	ch = calloc(1, *size);
	if (!pl || !ch) {
		free(pl);
		free(ch);
		return NULL;
	}
	pl->logical = oc->logical;
	pl->length = oc->length;
	pl->type = oc->new_type;
	pl->stripe_size = oc->new_stripe_size;
	pl->num_stripes = (int)oc->new_num_stripes;
	pl->sub_stripes = oc->new_sub_stripes;
	for (u32 s = 0; s < oc->new_num_stripes; s++)
		pl->stripes[s] = (struct chunk_alloc_stripe){ oc->stripes[s].devid, oc->stripes[s].physical };
	chunk_alloc_fill_chunk_item(pl, fs->geo.sectorsize, ch);
	for (u32 s = 0; s < oc->new_num_stripes; s++)
		memcpy(btrfs_chunk_stripe(ch, (int)s)->dev_uuid, device_of(fs, oc->stripes[s].devid)->uuid,
		       BTRFS_UUID_SIZE);
	free(pl);
	return ch;
}

/* ---- verification ------------------------------------------------------ */

static int verify_tree_block(struct btrfs_fs_info *fs, struct piece *pc, u64 bytenr)
{
	struct tree_check tc = { 0, -1, 0, NULL };
	struct read_policy quiet = { 0, READ_FAIL, true };
	struct extent_buffer *eb;
	u32 ns = fs->geo.nodesize;
	char msg[256];
	int ret;

	if (bytenr < pc->logical || bytenr + ns > pc->logical + pc->len)
		return 0;
	eb = alloc_extent_buffer(bytenr, ns);
	if (!eb)
		return -ENOMEM;
	memcpy(eb->data, pc->buf + (bytenr - pc->logical), ns);
	ret = btrfs_verify_tree_block(fs, eb, &tc, NULL, msg, sizeof(msg));
	free_extent_buffer(eb);
	if (ret == 0)
		return 0;
	/* the read path tries every mirror and returns the first good one */
	ret = btrfs_read_tree_block_policy(fs, bytenr, &tc, &quiet, &eb);
	if (ret < 0) {
		error("tree block %llu: no good copy (first mirror: %s); the convert stops here", bytenr, msg);
		return -EIO;
	}
	memcpy(pc->buf + (bytenr - pc->logical), eb->data, ns);
	free_extent_buffer(eb);
	pc->repaired = true;
	warning("tree block %llu: mirror 1 bad (%s), copied from a good mirror", bytenr, msg);
	return 0;
}

/* btrfs_for_each_item() on the tree with this objectid; a missing tree has no items. */
static int walk_items(struct btrfs_fs_info *fs, u64 tree, const struct btrfs_key *key,
		      enum btrfs_search_mode mode, btrfs_item_fn fn, struct piece *pc)
{
	struct btrfs_tree_ref ref;
	int ret = btrfs_find_tree_root(fs, tree, &ref);

	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	return btrfs_for_each_item(fs, &ref, key, mode, fn, pc);
}

/* An extent tree item of the chunk: recorded in pc->used. */
static int used_item(struct btrfs_path *path, const struct btrfs_key *found, void *arg)
{
	struct piece *pc = arg;
	struct btrfs_fs_info *fs = path->fs;
	struct used u = { found->objectid, 0, found->type == BTRFS_METADATA_ITEM_KEY };

	if (found->objectid >= pc->chunk_end)
		return 1;
	if (found->type == BTRFS_METADATA_ITEM_KEY) {
		u.end = u.start + fs->geo.nodesize;
	} else if (found->type == BTRFS_EXTENT_ITEM_KEY) {
		u.end = u.start + found->offset;
		if (btrfs_path_item_size(path) >= sizeof(struct btrfs_extent_item))
			u.tree = btrfs_extent_flags((struct btrfs_extent_item *)btrfs_path_item_ptr(path)) &
				 BTRFS_EXTENT_FLAG_TREE_BLOCK;
	} else {
		return 0;
	}
	if (u.end > pc->chunk_end || u.end <= u.start) {
		error("extent (%llu %u %llu) is not inside chunk %llu", found->objectid, found->type,
		      found->offset, pc->old->logical);
		return -EUCLEAN;
	}
	if (ARRAY_GROW(pc->used, pc->nr_used, pc->alloc_used))
		return -ENOMEM;
	pc->used[pc->nr_used++] = u;
	return 0;
}

/*
 * The runs of [start, end) to copy: its extents, gaps under RUN_GAP merged;
 * pc->logical/len set to their span (len 0: nothing to copy).
 */
static int piece_runs(struct piece *pc, size_t *first, u64 start, u64 end)
{
	pc->nr_runs = 0;
	while (*first < pc->nr_used && pc->used[*first].end <= start)
		(*first)++;
	for (size_t i = *first; i < pc->nr_used && pc->used[i].start < end; i++) {
		u64 s = max_t(u64, pc->used[i].start, start), e = min_t(u64, pc->used[i].end, end);

		if (pc->nr_runs && s < pc->runs[pc->nr_runs - 1].end + RUN_GAP) {
			pc->runs[pc->nr_runs - 1].end = max_t(u64, pc->runs[pc->nr_runs - 1].end, e);
			continue;
		}
		if (ARRAY_GROW(pc->runs, pc->nr_runs, pc->alloc_runs))
			return -ENOMEM;
		pc->runs[pc->nr_runs++] = (struct run){ s, e };
	}
	pc->logical = pc->nr_runs ? pc->runs[0].start : start;
	pc->len = pc->nr_runs ? (u32)(pc->runs[pc->nr_runs - 1].end - pc->logical) : 0;
	return 0;
}

/* The tree blocks of the span verified. */
static int verify_tree_blocks(struct btrfs_fs_info *fs, struct piece *pc, size_t first)
{
	for (size_t i = first; i < pc->nr_used && pc->used[i].start < pc->logical + pc->len; i++) {
		int ret = pc->used[i].tree ? verify_tree_block(fs, pc, pc->used[i].start) : 0;

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* One data sector against its checksum; another mirror when it does not match. */
static int verify_sector(struct btrfs_fs_info *fs, struct piece *pc, u64 logical, const u8 *want)
{
	const struct btrfs_chunk_map *old = pc->old;
	u32 ss = fs->geo.sectorsize;
	u8 *p = pc->buf + (logical - pc->logical), csum[BTRFS_CSUM_SIZE], *alt;
	char msg[256] = "";
	int mirrors = btrfs_chunk_num_mirrors(old);

	btrfs_csum_compute(&fs->csum, p, ss, csum);
	if (!memcmp(csum, want, fs->geo.csum_size))
		return 0;
	alt = malloc(ss);
	if (!alt)
		return -ENOMEM;
	for (int m = 2; m <= mirrors; m++) {
		if (btrfs_read_data_mirror(fs, logical, m, alt, ss, msg, sizeof(msg)) < 0)
			continue;
		btrfs_csum_compute(&fs->csum, alt, ss, csum);
		if (memcmp(csum, want, fs->geo.csum_size))
			continue;
		memcpy(p, alt, ss);
		free(alt);
		pc->repaired = true;
		warning("data sector %llu: checksum mismatch on mirror 1, copied from mirror %d", logical, m);
		return 0;
	}
	free(alt);
	error("data sector %llu (chunk %llu): checksum mismatch on every mirror (%d tried); the convert stops here",
	      logical, old->logical, mirrors);
	return -EIO;
}

/* A csum item: the piece's sectors it covers verified. */
static int csum_item(struct btrfs_path *path, const struct btrfs_key *found, void *arg)
{
	struct piece *pc = arg;
	struct btrfs_fs_info *fs = path->fs;
	const u8 *sums = btrfs_path_item_ptr(path);
	u32 ss = fs->geo.sectorsize, cs = fs->geo.csum_size, n = btrfs_path_item_size(path) / cs;
	int ret = 0;

	if (found->objectid != BTRFS_EXTENT_CSUM_OBJECTID || found->type != BTRFS_EXTENT_CSUM_KEY)
		return found->objectid > BTRFS_EXTENT_CSUM_OBJECTID ? 1 : 0;
	if (found->offset >= pc->logical + pc->len)
		return 1;
	for (u32 i = 0; i < n && ret == 0; i++) {
		u64 at = found->offset + (u64)i * ss;

		if (at >= pc->logical && at + ss <= pc->logical + pc->len)
			ret = verify_sector(fs, pc, at, sums + (size_t)i * cs);
	}
	return ret;
}

/* ---- writing ----------------------------------------------------------- */

/* Is new stripe st the old stripe the piece was read from? */
static bool read_from(const struct piece *pc, const struct offline_stripe *st)
{
	const struct btrfs_chunk_stripe *src;

	if (btrfs_raid_profile_of(pc->old->type)->layout != BTRFS_RAID_MIRRORED)
		return false;
	src = &pc->old->stripes[pc->mirror - 1];
	return src->devid == st->devid && src->physical == st->physical;
}

/*
 * Mirrored target: every new stripe gets the piece's runs; a kept one only
 * where it differs (not at all when it is the copy read and nothing was
 * repaired).
 */
static int write_mirrored(struct btrfs_fs_info *fs, const struct offline_chunk *oc, struct piece *pc,
			  u8 *scratch, u64 *written)
{
	for (u32 s = 0; s < oc->new_num_stripes; s++) {
		const struct offline_stripe *st = &oc->stripes[s];
		const struct btrfs_device *dev = device_of(fs, st->devid);

		if (st->kept && read_from(pc, st) && !pc->repaired)
			continue;
		for (size_t r = 0; r < pc->nr_runs; r++) {
			const u8 *src = pc->buf + (pc->runs[r].start - pc->logical);
			size_t len = pc->runs[r].end - pc->runs[r].start;
			u64 at = st->physical + (pc->runs[r].start - oc->logical);
			int ret;

			/* free space may differ between mirrors: the verified bytes go over it */
			if (st->kept && pread(dev->fd, scratch, len, (off_t)at) == (ssize_t)len &&
			    !memcmp(scratch, src, len))
				continue;
			ret = btrfs_dev_write(fs->write_log, dev->fd, src, len, at);
			*written += len;
			if (ret < 0) {
				error_errno(-ret, "chunk %llu: write to devid %llu at %llu", oc->logical,
					    st->devid, at);
				return ret;
			}
		}
	}
	return 0;
}

static int flush_devices(struct btrfs_fs_info *fs, const struct offline_chunk *oc)
{
	for (u32 s = 0; s < oc->new_num_stripes; s++) {
		const struct btrfs_device *dev = device_of(fs, oc->stripes[s].devid);
		int ret = btrfs_dev_flush(fs->write_log, dev->fd);

		if (ret < 0) {
			error_errno(-ret, "flush of devid %llu", dev->devid);
			return ret;
		}
	}
	return 0;
}

struct writer {
	struct btrfs_block_writer w;
	struct block_writer_device *devs;
	bool active;
};

static int writer_open(struct btrfs_fs_info *fs, struct writer *wr, const struct btrfs_chunk *item,
		       u32 size, u64 logical)
{
	int ret;

	wr->devs = calloc((size_t)fs->devices.nr, sizeof(*wr->devs));
	if (!wr->devs)
		return -ENOMEM;
	for (int i = 0; i < fs->devices.nr; i++)
		wr->devs[i] = (struct block_writer_device){ fs->devices.devs[i].devid, fs->devices.devs[i].fd,
							    fs->devices.devs[i].path };
	ret = btrfs_block_writer_init(&wr->w, &fs->geo, &fs->csum, wr->devs, fs->devices.nr);
	if (ret < 0) {
		free(wr->devs);
		return ret;
	}
	wr->active = true;
	wr->w.log = fs->write_log;
	wr->w.fresh_space = true;       /* every row of the new stripes is written whole */
	return btrfs_block_writer_add_chunk(&wr->w, logical, item, size);
}

static void writer_close(struct writer *wr)
{
	if (wr->active)
		btrfs_block_writer_release(&wr->w);
	free(wr->devs);
	wr->active = false;
}

/* ---- one chunk --------------------------------------------------------- */

/* One mirror of the span: a mirrored chunk's stripe read at once, others through the chunk map. */
static int read_mirror(struct btrfs_fs_info *fs, struct piece *pc, int m, char *msg, size_t len)
{
	const struct btrfs_chunk_map *old = pc->old;
	const struct btrfs_device *dev;
	u64 at;

	if (btrfs_raid_profile_of(old->type)->layout != BTRFS_RAID_MIRRORED)
		return btrfs_read_data_mirror(fs, pc->logical, m, pc->buf, pc->len, msg, len);
	dev = device_of(fs, old->stripes[m - 1].devid);
	at = old->stripes[m - 1].physical + (pc->logical - old->logical);
	if (!dev) {
		snprintf(msg, len, "devid %llu is missing", old->stripes[m - 1].devid);
		return -EIO;
	}
	if (pread(dev->fd, pc->buf, pc->len, (off_t)at) != (ssize_t)pc->len) {
		snprintf(msg, len, "devid %llu: short read at %llu", dev->devid, at);
		return -EIO;
	}
	return 0;
}

/* Ask the kernel to read ahead [logical, +len) of a mirrored chunk's first stripe. */
static void prefetch(struct btrfs_fs_info *fs, const struct btrfs_chunk_map *old, u64 logical, u64 len)
{
	const struct btrfs_device *dev;

	if (btrfs_raid_profile_of(old->type)->layout != BTRFS_RAID_MIRRORED ||
	    logical >= old->logical + old->length)
		return;
	dev = device_of(fs, old->stripes[0].devid);
	if (dev)
		posix_fadvise(dev->fd, (off_t)(old->stripes[0].physical + (logical - old->logical)),
			      (off_t)min_t(u64, len, old->logical + old->length - logical),
			      POSIX_FADV_WILLNEED);
}

/* The span from the first mirror that reads in full (verification follows). */
static int read_piece(struct btrfs_fs_info *fs, struct piece *pc)
{
	int mirrors = btrfs_chunk_num_mirrors(pc->old);
	char msg[256] = "";

	for (pc->mirror = 1; pc->mirror <= mirrors; pc->mirror++)
		if (read_mirror(fs, pc, pc->mirror, msg, sizeof(msg)) == 0)
			return 0;
	error("chunk %llu: [%llu %llu) cannot be read from any of %d mirrors (%s); the convert stops here",
	      pc->old->logical, pc->logical, pc->logical + pc->len, mirrors, msg);
	return -EIO;
}

/* Copy the chunk to its new stripes; *written grows by the bytes written (parity included). */
static int copy_chunk(struct btrfs_fs_info *fs, const struct offline_chunk *oc,
		      const struct btrfs_chunk *item, u32 item_size, u64 *written)
{
	const struct btrfs_chunk_map *old = btrfs_chunk_lookup(&fs->chunks, oc->logical);
	const struct btrfs_raid_profile *to = btrfs_raid_profile_of(oc->new_type);
	u32 data = btrfs_raid_data_stripes(to, oc->new_num_stripes);
	u32 piece_len = data * PIECE_UNITS * SZ_64K;
	struct writer wr = { 0 };
	struct piece pc = { 0 };
	u8 *scratch = NULL;
	u64 unflushed = 0;
	size_t first = 0;
	bool any_new = false;
	int ret = 0;

	for (u32 s = 0; s < oc->new_num_stripes; s++)
		any_new |= !oc->stripes[s].kept;
	if (!old) {
		error("chunk %llu is not in the chunk map", oc->logical);
		return -EUCLEAN;
	}
	pc.old = old;
	pc.buf = malloc(piece_len);
	scratch = malloc(piece_len);
	if (!pc.buf || !scratch) {
		ret = -ENOMEM;
		goto out;
	}
	if (to->layout != BTRFS_RAID_MIRRORED) {
		ret = writer_open(fs, &wr, item, item_size, oc->logical);
		if (ret < 0)
			goto out;
	}
	pc.chunk_end = oc->logical + oc->length;
	{
		struct btrfs_key key = { oc->logical, 0, 0 };

		ret = walk_items(fs, BTRFS_EXTENT_TREE_OBJECTID, &key, BTRFS_SEARCH_NEXT, used_item, &pc);
	}
	for (u64 off = 0; off < oc->length && ret == 0; off += piece_len) {
		u64 end = oc->logical + off + min_t(u64, piece_len, oc->length - off);

		pc.repaired = false;
		ret = piece_runs(&pc, &first, oc->logical + off, end);
		if (ret < 0 || !pc.nr_runs)
			continue;
		ret = read_piece(fs, &pc);
		/* the next piece is read from the disk while this one is verified and written */
		prefetch(fs, old, end, piece_len);
		if (ret == 0)
			ret = verify_tree_blocks(fs, &pc, first);
		if (ret == 0 && (oc->old_type & BTRFS_BLOCK_GROUP_DATA)) {
			struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, pc.logical };

			ret = walk_items(fs, BTRFS_CSUM_TREE_OBJECTID, &key, BTRFS_SEARCH_PREV, csum_item, &pc);
		}
		if (ret < 0)
			break;
		if (to->layout == BTRFS_RAID_MIRRORED) {
			ret = write_mirrored(fs, oc, &pc, scratch, written);
			continue;
		}
		for (size_t r = 0; r < pc.nr_runs && ret == 0; r++) {
			ret = btrfs_write_logical(&wr.w, pc.runs[r].start, pc.buf + (pc.runs[r].start - pc.logical),
						  pc.runs[r].end - pc.runs[r].start);
			*written += (pc.runs[r].end - pc.runs[r].start) * oc->new_num_stripes / data;
		}
		unflushed += pc.len;
		/* only between pieces: a piece holds whole rows of the new layout */
		if (ret == 0 && unflushed >= WRITER_FLUSH) {
			ret = btrfs_block_writer_flush(&wr.w);
			unflushed = 0;
		}
	}
	if (ret == 0 && wr.active)
		ret = btrfs_block_writer_flush(&wr.w);
	else if (ret == 0 && any_new)
		ret = flush_devices(fs, oc);
out:
	writer_close(&wr);
	free(pc.buf);
	free(pc.used);
	free(pc.runs);
	free(scratch);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int convert_one(struct btrfs_fs_info *fs, const struct offline_chunk *oc, u64 *written)
{
	struct btrfs_trans *t;
	struct btrfs_chunk *item;
	u32 size;
	int ret;

	item = new_chunk_item(fs, oc, &size);
	if (!item)
		return -ENOMEM;
	ret = copy_chunk(fs, oc, item, size, written);
	if (ret == 0)
		ret = btrfs_start_transaction(fs, &t);
	if (ret == 0) {
		ret = btrfs_trans_remap_chunk(t, oc->logical, item, size);
		if (ret == 0)
			ret = btrfs_commit_transaction(t);
		else
			btrfs_abort_transaction(t);
	}
	free(item);
	return ret;
}

int offline_convert(struct btrfs_fs_info *fs, const struct offline_plan *plan, FILE *out)
{
	double start = now_s();
	u64 done_bytes = 0, total_bytes = 0, written = 0;
	char b1[32], b2[32];

	for (size_t i = 0; i < plan->nr_chunks; i++)
		total_bytes += plan->chunks[i].length;
	for (size_t i = 0; i < plan->nr_chunks; i++) {
		const struct offline_chunk *oc = &plan->chunks[i];
		double el;
		int ret = convert_one(fs, oc, &written);

		if (ret < 0) {
			error("converting chunk %llu (%s -> %s) failed: %zu of %zu chunks were converted; run the same command again to continue",
			      oc->logical, btrfs_profile_name(oc->old_type), btrfs_profile_name(oc->new_type), i,
			      plan->nr_chunks);
			return ret;
		}
		done_bytes += oc->length;
		el = now_s() - start;
		fprintf(out, "chunk %zu of %zu: %llu %s -> %s, %s, %s/s, ETA %.0fs\n", i + 1, plan->nr_chunks,
			oc->logical, btrfs_profile_name(oc->old_type), btrfs_profile_name(oc->new_type),
			btrfs_balance_size_str(oc->length, b1, sizeof(b1)),
			btrfs_balance_size_str(el > 0 ? (u64)((double)done_bytes / el) : 0, b2, sizeof(b2)),
			done_bytes ? el * (double)(total_bytes - done_bytes) / (double)done_bytes : 0.0);
		fflush(out);
	}
	fprintf(out, "Done, had to convert %zu out of %zu chunks (%s written in %.1fs)\n", plan->nr_chunks,
		fs->chunks.nr, btrfs_balance_size_str(written, b1, sizeof(b1)), now_s() - start);
	return 0;
}

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
 * and rewritten where they differ.  Then one transaction switches the
 * mapping (btrfs_trans_remap_chunk()); its commit flushes every device
 * before the superblocks, so the copy is on disk before the switch.
 *
 * Only the chunk's extents are copied (free space holds nothing live).  The
 * devices are opened a second time with O_DIRECT (no page cache copy), and
 * for mirrored targets a thread writes one piece while the next is read and
 * verified.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <pthread.h>
#include "balance/offline.h"
#include "balance/balance-online.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/messages.h"

#define PIECE_UNITS 128                 /* a piece: 128 rows of 64 KiB units */
#define RING 3                          /* pieces in flight: one read, the others written */
#define DIRECT_ALIGN 4096               /* O_DIRECT buffer, offset and length alignment */
#define WRITER_FLUSH (64ULL << 20)      /* flush the block writer's rows this often */
#define CSUM_BATCH 64                   /* data sectors hashed in one hash_digest_batch() */
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
	return btrfs_for_each_item(fs, NULL, &ref, key, mode, fn, pc);
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
	u32 ss = fs->geo.sectorsize, cs = fs->geo.csum_size, n = btrfs_path_item_size(path) / cs, i;
	int ret = 0;

	if (found->objectid != BTRFS_EXTENT_CSUM_OBJECTID || found->type != BTRFS_EXTENT_CSUM_KEY)
		return found->objectid > BTRFS_EXTENT_CSUM_OBJECTID ? 1 : 0;
	if (found->offset >= pc->logical + pc->len)
		return 1;
	/* the sectors inside the piece: [i, n) */
	i = found->offset >= pc->logical ? 0 : (u32)min_t(u64, n, (pc->logical - found->offset) / ss);

	n = (u32)min_t(u64, n, (pc->logical + pc->len - found->offset) / ss);
	/* hashed CSUM_BATCH at a time; a sector that does not match goes through verify_sector() */
	while (i < n && ret == 0) {
		const void *blocks[CSUM_BATCH];
		u8 got[CSUM_BATCH * BTRFS_CSUM_SIZE];
		u32 nb = min_t(u32, CSUM_BATCH, n - i);

		for (u32 b = 0; b < nb; b++)
			blocks[b] = pc->buf + (found->offset + (u64)(i + b) * ss - pc->logical);
		ret = btrfs_csum_compute_batch(&fs->csum, blocks, nb, ss, got);
		for (u32 b = 0; b < nb && ret == 0; b++)
			if (memcmp(got + (size_t)b * cs, sums + (size_t)(i + b) * cs, cs))
				ret = verify_sector(fs, pc, found->offset + (u64)(i + b) * ss,
						    sums + (size_t)(i + b) * cs);
		i += nb;
	}
	return ret;
}

/* ---- the copy's devices and writer --------------------------------------- */

/*
 * One chunk's copy.  The devices are opened a second time with O_DIRECT:
 * whole aligned runs go between the device and the pieces without a copy
 * through the page cache (an unaligned run, or a device that cannot,
 * takes the usual descriptor).  Mirrored targets are written by a thread
 * while the next piece is read and verified: a ring of RING pieces,
 * filled by the caller, written in order by the writer.
 */
struct copy_ctx {
	struct btrfs_fs_info *fs;
	const struct offline_chunk *oc;
	int *direct;                    /* per fs->devices.devs index: O_DIRECT fd or -1 */
	u8 *scratch;                    /* the writer's: a kept stripe's bytes compared */
	u64 written;                    /* bytes written to new stripes */
	struct piece ring[RING];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool threaded;
	bool stop;
	u64 filled;                     /* pieces handed to the writer */
	u64 done;                       /* of them, written (or skipped after an error) */
	int err;                        /* the writer's first error */
};

static void direct_open(struct copy_ctx *c)
{
	struct btrfs_fs_info *fs = c->fs;

	c->direct = malloc((size_t)fs->devices.nr * sizeof(*c->direct));
	for (int i = 0; c->direct && i < fs->devices.nr; i++)
		c->direct[i] = fs->devices.devs[i].fd >= 0 && fs->devices.devs[i].path ?
			       open(fs->devices.devs[i].path, O_RDWR | O_DIRECT | O_CLOEXEC) : -1;
}

static void direct_close(struct copy_ctx *c)
{
	for (int i = 0; c->direct && i < c->fs->devices.nr; i++)
		if (c->direct[i] >= 0)
			close(c->direct[i]);
	free(c->direct);
	c->direct = NULL;
}

/* The descriptor for len bytes of buf at at on dev: O_DIRECT when all three are aligned. */
static int fd_for(const struct copy_ctx *c, const struct btrfs_device *dev, const void *buf, u64 at,
		  size_t len)
{
	int fd = c->direct ? c->direct[dev - c->fs->devices.devs] : -1;

	if (fd < 0 || (at | len | (uintptr_t)buf) % DIRECT_ALIGN)
		return dev->fd;
	return fd;
}

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
 * repaired).  Nothing is flushed here: the commit that switches the chunk
 * flushes every device before its superblocks.
 */
static int write_mirrored(struct copy_ctx *c, const struct piece *pc)
{
	const struct offline_chunk *oc = c->oc;

	for (u32 s = 0; s < oc->new_num_stripes; s++) {
		const struct offline_stripe *st = &oc->stripes[s];
		const struct btrfs_device *dev = device_of(c->fs, st->devid);

		if (st->kept && read_from(pc, st) && !pc->repaired)
			continue;
		for (size_t r = 0; r < pc->nr_runs; r++) {
			const u8 *src = pc->buf + (pc->runs[r].start - pc->logical);
			size_t len = pc->runs[r].end - pc->runs[r].start;
			u64 at = st->physical + (pc->runs[r].start - oc->logical);
			int ret;

			/* free space may differ between mirrors: the verified bytes go over it */
			if (st->kept && pread(fd_for(c, dev, c->scratch, at, len), c->scratch, len, (off_t)at) ==
			    (ssize_t)len && !memcmp(c->scratch, src, len))
				continue;
			ret = btrfs_dev_write(c->fs->write_log, fd_for(c, dev, src, at, len), src, len, at);
			c->written += len;
			if (ret < 0) {
				error_errno(-ret, "chunk %llu: write to devid %llu at %llu", oc->logical,
					    st->devid, at);
				return ret;
			}
		}
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct copy_ctx *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct piece *pc;
		int ret = 0;
		bool skip;

		while (c->done == c->filled && !c->stop)
			pthread_cond_wait(&c->cond, &c->lock);
		if (c->done == c->filled)
			break;
		pc = &c->ring[c->done % RING];
		skip = c->err != 0;
		pthread_mutex_unlock(&c->lock);
		if (!skip)
			ret = write_mirrored(c, pc);
		pthread_mutex_lock(&c->lock);
		if (ret < 0 && !c->err)
			c->err = ret;
		c->done++;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The writer thread started; without one, pieces are written as they are pushed. */
static void ring_start(struct copy_ctx *c)
{
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->threaded = pthread_create(&c->thread, NULL, writer_main, c) == 0;
}

/* The piece to fill next: waits while every other one is being written. */
static struct piece *ring_next(struct copy_ctx *c)
{
	struct piece *pc;

	if (!c->threaded)
		return &c->ring[0];
	pthread_mutex_lock(&c->lock);
	while (c->filled - c->done >= RING)
		pthread_cond_wait(&c->cond, &c->lock);
	pc = &c->ring[c->filled % RING];
	pthread_mutex_unlock(&c->lock);
	return pc;
}

/* pc handed to the writer (or written now); the writer's first error so far. */
static int ring_push(struct copy_ctx *c, struct piece *pc)
{
	int ret;

	if (!c->threaded)
		return write_mirrored(c, pc);
	pthread_mutex_lock(&c->lock);
	c->filled++;
	ret = c->err;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* Every piece pushed written, the writer stopped; its first error. */
static int ring_stop(struct copy_ctx *c)
{
	if (!c->threaded)
		return 0;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	c->threaded = false;
	return c->err;
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
static int read_mirror(const struct copy_ctx *c, struct piece *pc, int m, char *msg, size_t len)
{
	const struct btrfs_chunk_map *old = pc->old;
	const struct btrfs_device *dev;
	u64 at;

	if (btrfs_raid_profile_of(old->type)->layout != BTRFS_RAID_MIRRORED)
		return btrfs_read_data_mirror(c->fs, pc->logical, m, pc->buf, pc->len, msg, len);
	dev = device_of(c->fs, old->stripes[m - 1].devid);
	at = old->stripes[m - 1].physical + (pc->logical - old->logical);
	if (!dev) {
		snprintf(msg, len, "devid %llu is missing", old->stripes[m - 1].devid);
		return -EIO;
	}
	if (pread(fd_for(c, dev, pc->buf, at, pc->len), pc->buf, pc->len, (off_t)at) != (ssize_t)pc->len) {
		snprintf(msg, len, "devid %llu: short read at %llu", dev->devid, at);
		return -EIO;
	}
	return 0;
}

/*
 * Ask the kernel to read ahead [logical, +len) of a mirrored chunk's first
 * stripe, when it is read through the page cache.
 */
static void prefetch(const struct copy_ctx *c, const struct btrfs_chunk_map *old, u64 logical, u64 len)
{
	const struct btrfs_device *dev;

	if (btrfs_raid_profile_of(old->type)->layout != BTRFS_RAID_MIRRORED ||
	    logical >= old->logical + old->length)
		return;
	dev = device_of(c->fs, old->stripes[0].devid);
	if (dev && fd_for(c, dev, NULL, 0, 0) == dev->fd)
		posix_fadvise(dev->fd, (off_t)(old->stripes[0].physical + (logical - old->logical)),
			      (off_t)min_t(u64, len, old->logical + old->length - logical),
			      POSIX_FADV_WILLNEED);
}

/* The span from the first mirror that reads in full (verification follows). */
static int read_piece(const struct copy_ctx *c, struct piece *pc)
{
	int mirrors = btrfs_chunk_num_mirrors(pc->old);
	char msg[256] = "";

	for (pc->mirror = 1; pc->mirror <= mirrors; pc->mirror++)
		if (read_mirror(c, pc, pc->mirror, msg, sizeof(msg)) == 0)
			return 0;
	error("chunk %llu: [%llu %llu) cannot be read from any of %d mirrors (%s); the convert stops here",
	      pc->old->logical, pc->logical, pc->logical + pc->len, mirrors, msg);
	return -EIO;
}

/* Read and verify the piece [start, end) of the chunk (nothing to do when pc->nr_runs is 0). */
static int fill_piece(struct copy_ctx *c, struct piece *pc, size_t *first, u64 start, u64 end)
{
	struct btrfs_fs_info *fs = c->fs;
	int ret;

	pc->repaired = false;
	ret = piece_runs(pc, first, start, end);
	if (ret < 0 || !pc->nr_runs)
		return ret;
	ret = read_piece(c, pc);
	/* the next piece is read from the disk while this one is verified and written */
	prefetch(c, pc->old, end, end - start);
	if (ret == 0)
		ret = verify_tree_blocks(fs, pc, *first);
	if (ret == 0 && (c->oc->old_type & BTRFS_BLOCK_GROUP_DATA)) {
		struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, pc->logical };

		ret = walk_items(fs, BTRFS_CSUM_TREE_OBJECTID, &key, BTRFS_SEARCH_PREV, csum_item, pc);
	}
	return ret;
}

/* Striped and parity targets: the piece's runs through the engine's block writer. */
static int write_striped(struct copy_ctx *c, struct writer *wr, const struct piece *pc, u32 data)
{
	int ret = 0;

	for (size_t r = 0; r < pc->nr_runs && ret == 0; r++) {
		ret = btrfs_write_logical(&wr->w, pc->runs[r].start, pc->buf + (pc->runs[r].start - pc->logical),
					  pc->runs[r].end - pc->runs[r].start);
		c->written += (pc->runs[r].end - pc->runs[r].start) * c->oc->new_num_stripes / data;
	}
	return ret;
}

/* Copy the chunk to its new stripes; *written grows by the bytes written (parity included). */
static int copy_chunk(struct btrfs_fs_info *fs, const struct offline_chunk *oc,
		      const struct btrfs_chunk *item, u32 item_size, u64 *written, const volatile int *stop)
{
	const struct btrfs_chunk_map *old = btrfs_chunk_lookup(&fs->chunks, oc->logical);
	const struct btrfs_raid_profile *to = btrfs_raid_profile_of(oc->new_type);
	bool mirrored = to->layout == BTRFS_RAID_MIRRORED;
	u32 data = btrfs_raid_data_stripes(to, oc->new_num_stripes);
	u32 piece_len = data * PIECE_UNITS * SZ_64K;
	struct copy_ctx c = { .fs = fs, .oc = oc };
	struct writer wr = { 0 };
	struct btrfs_key key = { oc->logical, 0, 0 };
	u64 unflushed = 0;
	size_t first = 0;
	int ret = 0, writer_ret;

	if (!old) {
		error("chunk %llu is not in the chunk map", oc->logical);
		return -EUCLEAN;
	}
	for (int i = 0; i < RING; i++) {
		c.ring[i].old = old;
		c.ring[i].chunk_end = oc->logical + oc->length;
		if (posix_memalign((void **)&c.ring[i].buf, DIRECT_ALIGN, piece_len))
			ret = -ENOMEM;
	}
	if (posix_memalign((void **)&c.scratch, DIRECT_ALIGN, piece_len))
		ret = -ENOMEM;
	if (ret < 0)
		goto out;
	direct_open(&c);
	if (!mirrored) {
		ret = writer_open(fs, &wr, item, item_size, oc->logical);
		if (ret < 0)
			goto out;
	}
	ret = walk_items(fs, BTRFS_EXTENT_TREE_OBJECTID, &key, BTRFS_SEARCH_NEXT, used_item, &c.ring[0]);
	for (int i = 1; i < RING; i++) {
		c.ring[i].used = c.ring[0].used;
		c.ring[i].nr_used = c.ring[0].nr_used;
	}
	if (ret == 0 && mirrored)
		ring_start(&c);
	for (u64 off = 0; off < oc->length && ret == 0; off += piece_len) {
		u64 start = oc->logical + off, end = start + min_t(u64, piece_len, oc->length - off);
		struct piece *pc = mirrored ? ring_next(&c) : &c.ring[0];

		/* asked to stop: the chunk keeps its old layout, what was copied lies in free space */
		if (stop && *stop) {
			ret = -EINTR;
			break;
		}
		ret = fill_piece(&c, pc, &first, start, end);
		if (ret < 0 || !pc->nr_runs)
			continue;
		if (mirrored) {
			ret = ring_push(&c, pc);
			continue;
		}
		ret = write_striped(&c, &wr, pc, data);
		unflushed += pc->len;
		/* only between pieces: a piece holds whole rows of the new layout */
		if (ret == 0 && unflushed >= WRITER_FLUSH) {
			ret = btrfs_block_writer_flush(&wr.w);
			unflushed = 0;
		}
	}
	writer_ret = ring_stop(&c);
	if (ret == 0)
		ret = writer_ret;
	if (ret == 0 && wr.active)
		ret = btrfs_block_writer_flush(&wr.w);
out:
	*written += c.written;
	writer_close(&wr);
	direct_close(&c);
	free(c.ring[0].used);
	for (int i = 0; i < RING; i++) {
		free(c.ring[i].buf);
		free(c.ring[i].runs);
	}
	free(c.scratch);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int convert_one(struct btrfs_fs_info *fs, const struct offline_chunk *oc, u64 *written,
		       const volatile int *stop)
{
	struct btrfs_trans *t;
	struct btrfs_chunk *item;
	u32 size;
	int ret;

	item = new_chunk_item(fs, oc, &size);
	if (!item)
		return -ENOMEM;
	ret = copy_chunk(fs, oc, item, size, written, stop);
	if (ret == 0 && stop && *stop)
		ret = -EINTR;
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

int offline_convert(struct btrfs_fs_info *fs, const struct offline_plan *plan, FILE *out,
		    const volatile int *stop)
{
	double start = now_s();
	u64 done_bytes = 0, total_bytes = 0, written = 0;
	char b1[32], b2[32];
	int ret;

	for (size_t i = 0; i < plan->nr_chunks; i++)
		total_bytes += plan->chunks[i].length;
	/*
	 * The copies go to dev extents the last commit freed: no older superblock
	 * may name them.  Also with nothing to convert: a rerun after a cut
	 * during the last commit's superblocks completes them.
	 */
	ret = btrfs_settle_supers(fs);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < plan->nr_chunks; i++) {
		const struct offline_chunk *oc = &plan->chunks[i];
		double el;

		ret = convert_one(fs, oc, &written, stop);
		if (ret == -EINTR) {
			fflush(out);
			error("interrupted: %zu of %zu chunks converted, each committed; chunk %llu keeps its old layout (%s); the filesystem is consistent: run the same command again to continue",
			      i, plan->nr_chunks, oc->logical, btrfs_profile_name(oc->old_type));
			return ret;
		}
		if (ret < 0) {
			error("converting chunk %llu (%s -> %s) failed: %zu of %zu chunks were converted; each chunk is in its old or its new layout and the filesystem consistent, as after a kill: run the same command again to continue",
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Restore of a btrfs-image metadata dump onto one device: the format is in
 * kernel-shared/format/metadump.h.  The dump is read one cluster and one batch of
 * its items at a time (struct restore_batch: memory bounded whatever the
 * dump's size), in three passes: the
 * first validates every cluster and item and builds the chunk map from the
 * chunk tree leaves in the dump, the second checks every item against that
 * map, the third writes; nothing is written before the whole dump is known
 * readable.  Every write goes through restore_write().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "image/image.h"
#include "image/collapse.h"
#include "image/parallel-internal.h"
#include "kernel-shared/format/format.h"
#include "common/device-utils.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/metadump.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/engine/tree-write.h"

/*
 * The dump being restored, read with pread: a regular file, or stdin or a
 * pipe spooled first to an unlinked temporary file in $TMPDIR, so that every
 * dump is validated whole before the target is opened (a restore that reads
 * a pipe as it writes could stop midway on a bad cluster and leave half a
 * filesystem over what the target held).
 */
struct dump_file {
	int fd;
	u64 base;               /* offset of the dump's first byte in fd */
	u64 len;
	bool owned;             /* fd opened here, closed by dump_close() */
};

/*
 * The three passes over the dump, each one cluster and one item at a time:
 * CHECK reads and inflates every item, takes the superblock and builds the
 * chunk map from the chunk tree leaves; RANGES reads the index blocks again
 * and finds every item inside a chunk of the now complete map; WRITE writes.
 */
enum restore_pass { PASS_CHECK, PASS_RANGES, PASS_WRITE };

/*
 * The items of a cluster are loaded in batches: their payloads read with
 * one pread into a raw buffer (at most RESTORE_BATCH_RAW bytes, or one
 * item), then inflated by up to c->threads threads (image_parallel_for()),
 * each into its own slot buffer of max_item bytes (a stored item is used
 * where it was read), then used in order (use_batch()).  The worker
 * threads (inflate_slot()) read the raw buffer and c->max_item and write
 * only their slot's buffer and ret: nothing else of the context.
 *
 * Restore -t N (N > 1) writes behind (c->writer): the WRITE pass hands
 * each inflated batch of a v0 dump to a writer thread, and reads and
 * inflates the next one into the other of two buffer sets meanwhile.  The
 * writer is then the only thread that uses items (c->buf, the targets, the
 * write log) until the pass ends; see write_pass().
 */
#define RESTORE_BATCH_RAW (4U << 20)
#define RESTORE_BATCH_MAX 16U

struct restore_slot {
	u64 logical;
	u32 size;               /* as stored in the dump */
	size_t raw_off;         /* of the stored payload in the batch's raw */
	u8 *buf;                /* the payload, uncompressed */
	int ret;                /* its length, or the inflate error (negative) */
	bool skip;              /* not needed by this pass (see check_all) */
};

struct restore_batch {
	struct restore_ctx *c;
	enum restore_pass pass;
	u64 cluster;
	u32 first;              /* the cluster's item in slots[0] */
	u32 nr;
	const u8 *raw;          /* the payloads as stored (the set's raw) */
	struct restore_slot slots[RESTORE_BATCH_MAX];
};

/* The buffers of one batch; two sets, used in turn when writing behind. */
struct restore_buffers {
	u8 *raw;                /* a batch of items as stored in the dump */
	size_t raw_alloc;
	u8 *slot_buf[RESTORE_BATCH_MAX];  /* max_item bytes each, allocated as zlib items need them */
	struct restore_batch batch;
};

/* A device the dump is restored onto. */
struct restore_target {
	const char *path;
	int fd;
	bool is_file;
	bool created;           /* it did not exist: removed again when the restore fails */
	u64 unsynced;           /* bytes written since writeback was last started */
	bool sparse;            /* a new or empty file: zero pages are left as holes */
	u64 end;                /* the end of the last range written (sparse) */
	u64 reach;              /* bytes the target had before the restore */
	bool have_item;         /* -m: item holds the chunk tree's DEV_ITEM of this device */
	struct btrfs_dev_item item;
};

struct restore_ctx {
	const volatile int *stop;       /* image_restore_opts.stop */
	struct dump_file df;
	u64 magic;
	u32 max_item;           /* largest uncompressed item the version allows */
	struct btrfs_super_block super;
	bool have_super;
	u32 nodesize;
	u16 csum_type;
	struct btrfs_csum csum;  /* of csum_type, keyed with the key: set up with the superblock */
	int csum_err;            /* setup_csum()'s error, said once */
	const u8 *auth_key;
	size_t auth_key_len;
	u8 fsid[BTRFS_FSID_SIZE];
	struct btrfs_chunk_tree_map sys;   /* sys_chunk_array: which ranges hold chunk tree blocks */
	struct restore_chunk *chunks;
	size_t nr_chunks;
	size_t alloc_chunks;
	u8 *buf;                /* the item being used, uncompressed (a slot's payload) */
	struct restore_buffers set[2];
	int cur_set;            /* the set the next batch loads into */
	struct image_handoff writer;  /* writing behind: see struct restore_batch */
	u32 batch_max;          /* slots of a batch: RESTORE_BATCH_MAX, fewer for large max_item */
	int threads;            /* inflating a batch */
	/*
	 * Every item inflated by the CHECK pass, before a byte is written: a
	 * target holds data (a block device, a file that is not empty).
	 * Otherwise the CHECK pass inflates only the superblock and the items
	 * that may hold chunk tree blocks (inside a system chunk), the WRITE
	 * pass checks the others as it inflates them, and a failed restore
	 * leaves the target as it was (removed, or emptied again).
	 */
	bool check_all;
	u8 *stream_in, *stream_out;  /* v1 items, streamed (stream_item()) */
	bool multi;             /* -m: every device of the dump onto its own target */
	bool old;               /* -o: every range at its logical address, no chunk mapping */
	bool collapse;          /* a multi-device dump onto one target (image/collapse.h) */
	struct collapse_info collapsed;
	struct btrfs_chunk_tree_map map;   /* -m: every chunk with all its stripes */
	/*
	 * -m with RAID5/6 chunks: their ranges go through the engine's block
	 * writer (full stripe rows, read-modify-write, parity computed), its
	 * map borrowing c->map; NULL otherwise.
	 */
	struct btrfs_block_writer *rows;
	struct block_writer_device *row_devs;
	struct restore_target *tg;         /* the targets: one, or (-m) one per device by devid */
	int nr_tg;
	struct btrfs_write_log *log;  /* BTRFS_KIT_WRITE_LOG (kernel-shared/read/dev-write.h), or NULL */
};

static int setup_csum(struct restore_ctx *c);

/*
 * Are buf[0..len) all zero bytes?  Looked at 64 bytes at a time, stopping
 * at the first that are not: a page of a tree block that holds anything
 * shows it in its first bytes (a header, item headers or item data).
 */
static bool is_zero(const u8 *buf, size_t len)
{
	size_t i = 0;

	for (; i + 64 <= len; i += 64) {
		u64 w[8];

		memcpy(w, buf + i, sizeof(w));
		if (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7])
			return false;
	}
	for (; i < len; i++)
		if (buf[i])
			return false;
	return true;
}

#define RESTORE_PAGE 4096U
#define RESTORE_WRITEBACK (8U << 20)

/*
 * The one function that writes to a target: through the device write path
 * (and its log).  On a file that was new or empty (t->sparse) whole zero
 * pages (free space in tree blocks) are left as holes: they read as zeros
 * without being written (finish_target() makes the file long enough).  A
 * file that held data is emptied too (clear_target()), but its old bytes
 * could outlive a power cut there: it gets every byte written.
 */
static int restore_write(struct restore_ctx *c, struct restore_target *t, const void *buf, u64 len,
			 u64 physical)
{
	const u8 *p = buf;
	u64 done = 0;
	int ret = 0;

	while (!ret && done < len) {
		u64 at = physical + done, run = len - done, skip = 0;

		if (t->sparse && at % RESTORE_PAGE == 0) {
			while (skip + RESTORE_PAGE <= len - done && is_zero(p + done + skip, RESTORE_PAGE))
				skip += RESTORE_PAGE;
			done += skip;
			if (skip)
				continue;
			/* the non-zero pages up to the next zero one */
			for (run = RESTORE_PAGE; run + RESTORE_PAGE <= len - done &&
			     !is_zero(p + done + run, RESTORE_PAGE); run += RESTORE_PAGE)
				;
			if (run > len - done)
				run = len - done;
		}
		ret = btrfs_dev_write(c->log, t->fd, p + done, run, at);
		done += run;
		t->unsynced += run;
	}
	if (physical + len > t->end)
		t->end = physical + len;
	/* the disk writes while the next items inflate: the final flush waits less */
	if (t->unsynced >= RESTORE_WRITEBACK) {
		btrfs_dev_start_writeback(t->fd);
		t->unsynced = 0;
	}
	if (ret)
		error_errno(ret, "write of %llu bytes at %llu of %s", (unsigned long long)len,
			    (unsigned long long)physical, t->path);
	return ret;
}

/* Copy the rest of in to an unlinked file in $TMPDIR, holes for zero blocks. */
static int spool_dump(int in, const char *source, struct dump_file *df)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	u8 *buf = NULL;
	size_t alloc = 0;
	u64 len = 0;
	int ret = 0, fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd < 0 && snprintf(path, sizeof(path), "%s/btrfs-image.XXXXXX", dir) < (int)sizeof(path)) {
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0) {
		ret = -errno;
		error_errno(ret, "cannot create a temporary file in %s to hold the dump read from %s",
			    dir, source);
		return ret;
	}
	if (ARRAY_RESERVE(buf, alloc, 1 << 20)) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(in, buf, alloc);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			error_errno(ret, "read of %s", source);
			break;
		}
		if (n == 0)
			break;
		if (is_zero(buf, (size_t)n)) {  /* a hole */
			len += (u64)n;
			continue;
		}
		if (lseek(fd, (off_t)len, SEEK_SET) < 0 || write(fd, buf, (size_t)n) != n) {
			ret = errno ? -errno : -EIO;
			error_errno(ret, "write of the temporary copy of %s", source);
			break;
		}
		len += (u64)n;
	}
	free(buf);
	if (!ret && ftruncate(fd, (off_t)len)) {
		ret = -errno;
		error_errno(ret, "cannot size the temporary copy of %s", source);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	df->fd = fd;
	df->base = 0;
	df->len = len;
	df->owned = true;
	return 0;
}

static int dump_open(const char *source, struct dump_file *df)
{
	bool std = !strcmp(source, "-");
	int fd = std ? STDIN_FILENO : open(source, O_RDONLY);
	struct stat st;
	off_t at;
	int ret;

	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		error_errno(ret, "cannot open %s", source);
		if (fd >= 0 && !std)
			close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = spool_dump(fd, source, df);
		if (!std)
			close(fd);
		return ret;
	}
	at = std ? lseek(fd, 0, SEEK_CUR) : 0;
	df->fd = fd;
	df->base = at > 0 && at < st.st_size ? (u64)at : 0;
	df->len = (u64)st.st_size - df->base;
	df->owned = !std;
	return 0;
}

static void dump_close(struct dump_file *df)
{
	if (df->owned && df->fd >= 0)
		close(df->fd);
	df->fd = -1;
}

/* len bytes of the dump at off (the caller checked off + len <= df->len). */
static int dump_read(const struct dump_file *df, void *buf, size_t len, u64 off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(df->fd, (u8 *)buf + got, len - got, (off_t)(df->base + off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int ret = n < 0 ? -errno : -EIO;

			error_errno(ret, "read of %zu bytes of the dump at %llu", len,
				    (unsigned long long)off);
			return ret;
		}
		got += (size_t)n;
	}
	return 0;
}

/* An item's inflate error (btrfs_zlib_inflate_exact()'s), said for the cluster and item. */
static int inflate_error(int ret, u64 cluster, u32 nr)
{
	if (ret == -ENOMEM)
		return ret;
	error("cluster at %llu item %u: corrupt zlib stream (%s)", (unsigned long long)cluster,
	      nr, ret == -E2BIG ? "larger than the format's limit" :
	      ret == -ENODATA ? "truncated" : "bad data or bytes after its end");
	return -EUCLEAN;
}

static int take_super(struct restore_ctx *c, const u8 *buf, size_t len, u64 cluster)
{
	if (len != BTRFS_SUPER_INFO_SIZE) {
		error("cluster at %llu item 0: superblock item of %zu bytes, expected %u",
		      (unsigned long long)cluster, len, BTRFS_SUPER_INFO_SIZE);
		return -EUCLEAN;
	}
	memcpy(&c->super, buf, sizeof(c->super));
	if (btrfs_super_magic(&c->super) != BTRFS_MAGIC) {
		error("cluster at %llu item 0: not a btrfs superblock (no btrfs magic): the dump holds no superblock, it cannot be restored",
		      (unsigned long long)cluster);
		/*
		 * btrfs-image reads the superblock from the first device of its
		 * list without checking the read: with that device missing its
		 * dump carries uninitialised memory there (the tree blocks are fine).
		 */
		error("(btrfs-image writes such dumps of one device of a multi-device filesystem whose other devices it did not find: dump again naming every device)");
		return -EUCLEAN;
	}
	c->nodesize = btrfs_super_nodesize(&c->super);
	c->csum_type = btrfs_super_csum_type(&c->super);
	if (!btrfs_csum_type_valid(c->csum_type) || c->nodesize < 4096 || c->nodesize > 65536 ||
	    (c->nodesize & (c->nodesize - 1))) {
		error("cluster at %llu item 0: superblock csum_type %u nodesize %u unusable",
		      (unsigned long long)cluster, c->csum_type, c->nodesize);
		return -EUCLEAN;
	}
	if (setup_csum(c))
		return c->csum_err;
	if (c->multi && btrfs_super_num_devices(&c->super) != (u64)c->nr_tg) {
		error("-m: the dump is of a filesystem with %llu devices, %d targets given",
		      (unsigned long long)btrfs_super_num_devices(&c->super), c->nr_tg);
		return -EINVAL;
	}
	c->collapse = !c->multi && !c->old && btrfs_super_num_devices(&c->super) != 1;
	memcpy(c->fsid, btrfs_super_metadata_fsid(&c->super), BTRFS_FSID_SIZE);
	c->have_super = true;
	if (c->multi) {
		int ret = btrfs_read_sys_chunk_array(&c->map, &c->super);

		if (ret)
			return ret;
	}
	return btrfs_read_sys_chunk_array(&c->sys, &c->super);
}

/* -m: the DEV_ITEM at slot of a chunk tree leaf to its device's target (by devid order). */
static int take_dev_item(struct restore_ctx *c, const u8 *blk, u64 bytenr, u32 slot)
{
	const struct btrfs_item *it = (const struct btrfs_item *)(blk + sizeof(struct btrfs_header)) + slot;
	u32 room = c->nodesize - sizeof(struct btrfs_header);
	u32 off = btrfs_item_offset(it), size = btrfs_item_size(it);
	const struct btrfs_dev_item *di;
	u64 devid = btrfs_disk_key_offset(&it->key);
	int i;

	if (off > room || size > room - off || size < sizeof(*di)) {
		error("chunk tree block %llu slot %u: dev item offset %u size %u out of the leaf",
		      (unsigned long long)bytenr, slot, off, size);
		return -EUCLEAN;
	}
	di = (const struct btrfs_dev_item *)(blk + sizeof(struct btrfs_header) + off);
	if (btrfs_device_id(di) != devid || !devid) {
		error("chunk tree block %llu slot %u: dev item devid %llu, key offset %llu",
		      (unsigned long long)bytenr, slot, (unsigned long long)btrfs_device_id(di),
		      (unsigned long long)devid);
		return -EUCLEAN;
	}
	/* the targets hold the devices in devid order: insert this one in its place */
	for (i = 0; i < c->nr_tg && c->tg[i].have_item; i++) {
		if (btrfs_device_id(&c->tg[i].item) == devid)
			return 0;       /* a leaf seen twice (an older copy of the chunk tree) */
		if (btrfs_device_id(&c->tg[i].item) > devid)
			break;
	}
	if (c->nr_tg == 0 || c->tg[c->nr_tg - 1].have_item) {
		error("-m: the dump's chunk tree has more than %d devices (devid %llu), %d targets given",
		      c->nr_tg, (unsigned long long)devid, c->nr_tg);
		return -EINVAL;
	}
	for (int j = c->nr_tg - 1; j > i; j--) {
		c->tg[j].item = c->tg[j - 1].item;
		c->tg[j].have_item = c->tg[j - 1].have_item;
	}
	c->tg[i].item = *di;
	c->tg[i].have_item = true;
	return 0;
}

/* The chunk items of a chunk tree leaf into the map. */
static int take_chunk_leaf(struct restore_ctx *c, const u8 *blk, u64 bytenr)
{
	const struct btrfs_header *h = (const struct btrfs_header *)blk;
	u32 nritems = btrfs_header_nritems(h);
	u32 room = c->nodesize - sizeof(*h);

	if (btrfs_header_bytenr(h) != bytenr || memcmp(h->fsid, c->fsid, BTRFS_FSID_SIZE) ||
	    btrfs_header_owner(h) != BTRFS_CHUNK_TREE_OBJECTID) {
		/*
		 * Not a chunk tree leaf: a damaged block (a dump of a damaged
		 * filesystem holds it as it was, or zeros); a chunk it named
		 * that no other leaf names leaves its ranges outside the map,
		 * which the RANGES pass refuses.
		 */
		warning("block %llu in a system chunk: header bytenr %llu owner %llu or fsid do not name a chunk tree block here: skipped",
			(unsigned long long)bytenr, (unsigned long long)btrfs_header_bytenr(h),
			(unsigned long long)btrfs_header_owner(h));
		return 0;
	}
	if (btrfs_header_level(h))
		return 0;
	if (nritems > room / sizeof(struct btrfs_item)) {
		error("chunk tree block %llu: nritems %u too large", (unsigned long long)bytenr, nritems);
		return -EUCLEAN;
	}
	for (u32 i = 0; i < nritems; i++) {
		const struct btrfs_item *it = (const struct btrfs_item *)(blk + sizeof(*h)) + i;
		const struct btrfs_chunk *chunk;
		struct restore_chunk *rc;
		u32 off = btrfs_item_offset(it), size = btrfs_item_size(it);
		u64 logical = btrfs_disk_key_offset(&it->key);
		int ret;

		if (c->multi && btrfs_disk_key_type(&it->key) == BTRFS_DEV_ITEM_KEY) {
			ret = take_dev_item(c, blk, bytenr, i);
			if (ret)
				return ret;
			continue;
		}
		if (btrfs_disk_key_type(&it->key) != BTRFS_CHUNK_ITEM_KEY)
			continue;
		if (off > room || size > room - off || size < btrfs_chunk_item_size(1)) {
			error("chunk tree block %llu slot %u: item offset %u size %u out of the leaf",
			      (unsigned long long)bytenr, i, off, size);
			return -EUCLEAN;
		}
		chunk = (const struct btrfs_chunk *)(blk + sizeof(*h) + off);
		if (btrfs_chunk_num_stripes(chunk) == 0 ||
		    size < btrfs_chunk_item_size(btrfs_chunk_num_stripes(chunk)) ||
		    ((btrfs_chunk_type(chunk) & BTRFS_BLOCK_GROUP_DUP) && btrfs_chunk_num_stripes(chunk) < 2)) {
			error("chunk tree block %llu slot %u: chunk %llu num_stripes %u does not fit item size %u",
			      (unsigned long long)bytenr, i, (unsigned long long)logical,
			      btrfs_chunk_num_stripes(chunk), size);
			return -EUCLEAN;
		}
		if (restore_chunk_find(c->chunks, c->nr_chunks, logical))
			continue;
		if (c->multi) {
			ret = btrfs_add_chunk(&c->map, logical, chunk, size, btrfs_super_sectorsize(&c->super));
			if (ret)
				return ret;
		}
		if (ARRAY_GROW(c->chunks, c->nr_chunks, c->alloc_chunks))
			return -ENOMEM;
		rc = &c->chunks[c->nr_chunks++];
		rc->logical = logical;
		rc->length = btrfs_chunk_length(chunk);
		rc->physical = btrfs_stripe_offset_nr(chunk, 0);
		rc->physical_dup = (btrfs_chunk_type(chunk) & BTRFS_BLOCK_GROUP_DUP) ?
				   btrfs_stripe_offset_nr(chunk, 1) : 0;
	}
	return 0;
}

/* Pass 1: the chunk tree blocks of an item (blocks inside system chunks). */
static int scan_item(struct restore_ctx *c, u64 logical, size_t len)
{
	for (size_t off = 0; off + c->nodesize <= len; off += c->nodesize) {
		int ret;

		if (!btrfs_chunk_lookup(&c->sys, logical + off))
			continue;
		ret = take_chunk_leaf(c, c->buf + off, logical + off);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The checksum of the dump's csum type, with the key for a keyed one
 * (checked against the superblock's key check value first).  Once: the
 * superblock item is read by every pass.
 */
static int setup_csum_once(struct restore_ctx *c);

static int setup_csum(struct restore_ctx *c)
{
	if (c->csum.size || c->csum_err)
		return c->csum_err;
	c->csum_err = setup_csum_once(c);
	return c->csum_err;
}

static int setup_csum_once(struct restore_ctx *c)
{
	if (btrfs_csum_type_keyed(c->csum_type) && !c->auth_key) {
		error("the dump is of a filesystem with keyed checksums (%s): restoring it needs the key (btrfs --auth-key NAME image -r)",
		      btrfs_csum_type_name(c->csum_type));
		return -ENOKEY;
	}
	return btrfs_super_csum_setup(&c->csum, &c->super, c->auth_key, c->auth_key_len);
}

/*
 * btrfs-image checksums every block it dumps with crc32c, whatever the
 * filesystem's type: a block whose checksum is crc32c's and not the
 * filesystem's gets the filesystem's (every copy: DUP and -m mirrors too).
 */
static void fix_block_csums(struct restore_ctx *c, u64 logical, size_t len)
{
	u8 want[BTRFS_CSUM_SIZE], crc[BTRFS_CSUM_SIZE];

	if (c->csum_type == BTRFS_CSUM_TYPE_CRC32)
		return;
	for (size_t off = 0; off + c->nodesize <= len; off += c->nodesize) {
		u8 *blk = c->buf + off;

		if (btrfs_header_bytenr((struct btrfs_header *)blk) != logical + off)
			continue;
		if (btrfs_csum_compute(&c->csum, blk + BTRFS_CSUM_SIZE, c->nodesize - BTRFS_CSUM_SIZE, want) ||
		    !memcmp(want, blk, BTRFS_CSUM_SIZE))
			continue;
		/* btrfs-image puts the 4 bytes of crc32c over the field's first bytes, the rest stays */
		if (btrfs_csum_data(BTRFS_CSUM_TYPE_CRC32, blk + BTRFS_CSUM_SIZE,
				    c->nodesize - BTRFS_CSUM_SIZE, crc) ||
		    memcmp(crc, blk, btrfs_csum_type_size(BTRFS_CSUM_TYPE_CRC32)))
			continue;
		memcpy(blk, want, BTRFS_CSUM_SIZE);
	}
}

/*
 * -o: the superblock of btrfs-image's old restore, for tools that read a
 * METADUMP image with logical addresses as device offsets: flag METADUMP (v0
 * dumps), and a sys_chunk_array of one SYSTEM chunk at logical 0 of length
 * 2^64-1 on this device at offset 0 (owner the extent tree, stripe_len 64K,
 * io sizes the sectorsize).
 */
static void old_restore_super(struct btrfs_super_block *sb, bool magic_is_v0)
{
	struct btrfs_disk_key *key = (struct btrfs_disk_key *)sb->sys_chunk_array;
	struct btrfs_chunk *chunk = (struct btrfs_chunk *)(sb->sys_chunk_array + sizeof(*key));
	u32 sectorsize = btrfs_super_sectorsize(sb);

	if (magic_is_v0)
		btrfs_set_super_flags(sb, btrfs_super_flags(sb) | BTRFS_SUPER_FLAG_METADUMP);
	btrfs_set_disk_key_objectid(key, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
	btrfs_set_disk_key_type(key, BTRFS_CHUNK_ITEM_KEY);
	btrfs_set_disk_key_offset(key, 0);
	btrfs_set_chunk_length(chunk, (u64)-1);
	btrfs_set_chunk_owner(chunk, BTRFS_EXTENT_TREE_OBJECTID);
	btrfs_set_chunk_stripe_len(chunk, BTRFS_STRIPE_LEN);
	btrfs_set_chunk_type(chunk, BTRFS_BLOCK_GROUP_SYSTEM);
	btrfs_set_chunk_io_align(chunk, sectorsize);
	btrfs_set_chunk_io_width(chunk, sectorsize);
	btrfs_set_chunk_sector_size(chunk, sectorsize);
	btrfs_set_chunk_num_stripes(chunk, 1);
	btrfs_set_chunk_sub_stripes(chunk, 0);
	btrfs_set_stripe_devid(&chunk->stripe[0], btrfs_device_id(&sb->dev_item));
	btrfs_set_stripe_offset(&chunk->stripe[0], 0);
	memcpy(chunk->stripe[0].dev_uuid, sb->dev_item.uuid, BTRFS_UUID_SIZE);
	btrfs_set_super_sys_array_size(sb, sizeof(*key) + btrfs_chunk_item_size(1));
}

/*
 * The superblocks of target t.  One target: the dump's, flagged METADUMP_V2
 * (v0 dumps) with num_devices 1, mirrors where the target already reached (a
 * device; a new file: none), as btrfs-image; a collapsed multi-device dump's
 * with the temporary magic and no mirror (collapse_commit() writes them all).
 * -m: the dump's with the device's own dev_item, every mirror inside the
 * device's total_bytes.
 */
static int write_super(struct restore_ctx *c, struct restore_target *t)
{
	struct btrfs_super_block sb = c->super;
	u64 size = t->reach;
	int ret;

	if (c->multi) {
		sb.dev_item = t->item;
		size = btrfs_device_total_bytes(&t->item);
	} else if (c->old) {
		old_restore_super(&sb, c->magic == METADUMP_MAGIC_V0);
	} else {
		if (c->magic == METADUMP_MAGIC_V0)
			btrfs_set_super_flags(&sb, btrfs_super_flags(&sb) | BTRFS_SUPER_FLAG_METADUMP_V2);
		btrfs_set_super_num_devices(&sb, 1);
	}
	if (c->collapse) {
		btrfs_set_super_magic(&sb, BTRFS_MAGIC_TEMPORARY);
		size = 0;
	}
	ret = btrfs_super_csum_set(&sb, &c->csum);
	if (!ret)
		ret = restore_write(c, t, &sb, sizeof(sb), BTRFS_SUPER_INFO_OFFSET);
	if (ret)
		return ret;
	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 at = btrfs_sb_offset(m);

		if (at + BTRFS_SUPER_INFO_SIZE > size)
			break;
		btrfs_set_super_bytenr(&sb, at);
		ret = btrfs_super_csum_set(&sb, &c->csum);
		if (!ret)
			ret = restore_write(c, t, &sb, sizeof(sb), at);
		if (ret)
			return ret;
	}
	return 0;
}

static struct restore_target *target_of(struct restore_ctx *c, u64 devid)
{
	for (int i = 0; i < c->nr_tg; i++)
		if (btrfs_device_id(&c->tg[i].item) == devid)
			return &c->tg[i];
	return NULL;
}

#define RESTORE_ROWS_MAX (64ULL << 20)

/* -m: the range at c->buf onto every copy of it, where its chunk's stripes land. */
static int write_item_multi(struct restore_ctx *c, u64 logical, size_t len)
{
	size_t done = 0;

	while (done < len) {
		const struct btrfs_chunk_map *cm = btrfs_chunk_lookup(&c->map, logical + done);
		u64 piece = len - done;

		if (!cm)
			return -EUCLEAN;        /* the RANGES pass saw every range inside a chunk */
		if (btrfs_raid_has_parity(cm->type)) {
			int ret;

			piece = min_t(u64, piece, cm->logical + cm->length - (logical + done));
			ret = btrfs_write_logical(c->rows, logical + done, c->buf + done, piece);
			/* rows held in memory: written out (and flushed) every RESTORE_ROWS_MAX bytes */
			if (!ret && c->rows->nr_rows * btrfs_chunk_data_stripes(cm) * cm->stripe_len >= RESTORE_ROWS_MAX)
				ret = btrfs_block_writer_flush(c->rows);
			if (ret)
				return ret;
			done += piece;
			continue;
		}
		/* every copy of the piece up to the end of its stripe unit */
		for (int m = 1; m <= btrfs_chunk_num_mirrors(cm); m++) {
			struct btrfs_io_stripe io;
			int ret = btrfs_chunk_map_one(cm, logical + done, m, &io);

			if (ret)
				return ret;
			if (io.len < piece)
				piece = io.len;
		}
		for (int m = 1; m <= btrfs_chunk_num_mirrors(cm); m++) {
			struct btrfs_io_stripe io;
			struct restore_target *t;
			int ret = btrfs_chunk_map_one(cm, logical + done, m, &io);

			t = ret ? NULL : target_of(c, io.devid);
			if (!t)
				return ret ? ret : -ENODEV;  /* check_devices() found every stripe's device */
			ret = restore_write(c, t, c->buf + done, piece, io.physical);
			if (ret)
				return ret;
		}
		done += piece;
	}
	return 0;
}

/* Pass 2: one item onto the device. */
static int write_item(struct restore_ctx *c, u64 logical, size_t len)
{
	size_t done = 0;

	/* the superblocks go last, after every tree block is flushed (restore_finish()) */
	if (logical == BTRFS_SUPER_INFO_OFFSET)
		return 0;
	fix_block_csums(c, logical, len);
	if (c->collapse) {
		int ret = collapse_chunk_leaves(c->buf, len, logical, c->nodesize, c->fsid, c->chunks,
						c->nr_chunks, btrfs_device_id(&c->super.dev_item),
						c->super.dev_item.uuid, &c->csum);

		if (ret)
			return ret;
	}
	if (c->multi)
		return write_item_multi(c, logical, len);
	if (c->old)
		return restore_write(c, &c->tg[0], c->buf, len, logical);
	while (done < len) {
		const struct restore_chunk *rc = restore_chunk_find(c->chunks, c->nr_chunks, logical + done);
		u64 off, piece;
		int ret;

		if (!rc)
			return -EUCLEAN;        /* pass 1 saw every range inside a chunk */
		off = logical + done - rc->logical;
		piece = rc->length - off;
		if (piece > len - done)
			piece = len - done;
		ret = restore_write(c, &c->tg[0], c->buf + done, piece, rc->physical + off);
		if (!ret && rc->physical_dup)
			ret = restore_write(c, &c->tg[0], c->buf + done, piece, rc->physical_dup + off);
		if (ret)
			return ret;
		done += piece;
	}
	return 0;
}

/* The largest payload of an item in the file: zlib may grow a range a little. */
static u64 max_raw_item(const struct restore_ctx *c, u8 compress)
{
	return compress == METADUMP_COMPRESS_NONE ? c->max_item :
	       (u64)c->max_item + c->max_item / 64 + METADUMP_BLOCK_SIZE;
}

static int check_index(struct restore_ctx *c, const struct metadump_header *h, u64 cluster)
{
	u32 nritems = metadump_nritems(h);

	if (cluster == 0 && !c->max_item) {
		c->magic = metadump_magic(h);
		if (c->magic != METADUMP_MAGIC_V0 && c->magic != METADUMP_MAGIC_V1) {
			error("cluster at 0: magic 0x%016llx is not a btrfs-image dump",
			      (unsigned long long)c->magic);
			return -EUCLEAN;
		}
		c->max_item = c->magic == METADUMP_MAGIC_V0 ? METADUMP_MAX_PENDING_V0 * 2 :
			      METADUMP_MAX_PENDING_V1;
		/* slot buffers of at most 64 MiB together (v1: one slot) */
		c->batch_max = (64U << 20) / c->max_item;
		c->batch_max = c->batch_max < 1 ? 1 : c->batch_max > RESTORE_BATCH_MAX ?
			       RESTORE_BATCH_MAX : c->batch_max;
	}
	if (metadump_magic(h) != c->magic) {
		error("cluster at %llu: bad magic 0x%016llx", (unsigned long long)cluster,
		      (unsigned long long)metadump_magic(h));
		return -EUCLEAN;
	}
	if (metadump_bytenr(h) != cluster) {
		error("cluster at %llu: bytenr %llu is not the cluster's offset",
		      (unsigned long long)cluster, (unsigned long long)metadump_bytenr(h));
		return -EUCLEAN;
	}
	if (nritems > METADUMP_ITEMS_PER_CLUSTER) {
		error("cluster at %llu: nritems %u over %u", (unsigned long long)cluster, nritems,
		      METADUMP_ITEMS_PER_CLUSTER);
		return -EUCLEAN;
	}
	if (metadump_compress(h) > METADUMP_COMPRESS_ZLIB) {
		error("cluster at %llu: unknown compression %u", (unsigned long long)cluster,
		      metadump_compress(h));
		return -EUCLEAN;
	}
	if (cluster == 0 && nritems == 0) {
		error("cluster at 0: no items, the superblock item is missing");
		return -EUCLEAN;
	}
	return 0;
}

/* The checks of one item of a cluster from its index entry, its payload at dump offset p. */
static int check_item(struct restore_ctx *c, enum restore_pass pass, const struct metadump_cluster *cl,
		      u64 cluster, u32 i, u64 p)
{
	u64 logical = metadump_item_bytenr(&cl->items[i]);
	u32 size = metadump_item_size(&cl->items[i]);

	if (size > c->df.len - p) {
		error("cluster at %llu item %u: size %u past the end of the dump (%llu bytes left)",
		      (unsigned long long)cluster, i, size, (unsigned long long)(c->df.len - p));
		return -EUCLEAN;
	}
	if (cluster == 0 && i == 0 && logical != BTRFS_SUPER_INFO_OFFSET) {
		error("cluster at 0 item 0: bytenr %llu, the superblock item is missing",
		      (unsigned long long)logical);
		return -EUCLEAN;
	}
	if ((cluster || i) && logical == BTRFS_SUPER_INFO_OFFSET) {
		error("cluster at %llu item %u: a second superblock item", (unsigned long long)cluster, i);
		return -EUCLEAN;
	}
	if (pass == PASS_RANGES) {
		if (logical != BTRFS_SUPER_INFO_OFFSET && !restore_chunk_find(c->chunks, c->nr_chunks, logical)) {
			error("cluster at %llu item %u: bytenr %llu is outside every chunk",
			      (unsigned long long)cluster, i, (unsigned long long)logical);
			return -EUCLEAN;
		}
		return 0;
	}
	if (size > max_raw_item(c, metadump_compress(&cl->header))) {
		error("cluster at %llu item %u: size %u over the format's limit %u",
		      (unsigned long long)cluster, i, size, c->max_item);
		return -EUCLEAN;
	}
	return 0;
}

/*
 * Does this pass leave the item at logical alone?  Only the CHECK pass of a
 * restore that does not check every item first (check_all), once it has the
 * superblock, for an item that cannot hold chunk tree blocks: it starts
 * neither in a system chunk nor within the largest item's length before one.
 */
static bool pass_skips(const struct restore_ctx *c, enum restore_pass pass, u64 logical)
{
	if (pass != PASS_CHECK || c->check_all || !c->have_super)
		return false;
	for (size_t i = 0; i < c->sys.nr; i++) {
		const struct btrfs_chunk_map *cm = c->sys.chunks[i];

		if (logical < cm->logical + cm->length && logical + c->max_item > cm->logical)
			return false;
	}
	return true;
}

/*
 * One item (or, streamed, a piece of one) at c->buf: CHECK takes the
 * superblock and the chunk tree leaves, WRITE writes it.
 */
static int use_item(struct restore_ctx *c, enum restore_pass pass, u64 logical, size_t len, u64 cluster)
{
	if (pass == PASS_CHECK && logical == BTRFS_SUPER_INFO_OFFSET)
		return take_super(c, c->buf, len, cluster);
	if (pass == PASS_CHECK)
		return scan_item(c, logical, len);
	return write_item(c, logical, len);
}

/* A worker of load_batch(): inflate slot k (see struct restore_batch). */
static void inflate_slot(void *arg, u32 k)
{
	struct restore_batch *b = arg;
	struct restore_slot *s = &b->slots[k];

	if (!s->skip)
		s->ret = btrfs_zlib_inflate_exact(b->raw + s->raw_off, s->size, s->buf, b->c->max_item);
}

/* The items of a loaded batch, in order (CHECK: the superblock and chunk tree leaves taken; WRITE: written). */
static int use_batch(struct restore_ctx *c, struct restore_batch *b)
{
	for (u32 k = 0; k < b->nr; k++) {
		struct restore_slot *s = &b->slots[k];
		int ret;

		if (s->skip)
			continue;
		if (s->ret < 0)
			return inflate_error(s->ret, b->cluster, b->first + k);
		c->buf = s->buf;
		ret = use_item(c, b->pass, s->logical, (size_t)s->ret, b->cluster);
		if (ret)
			return ret;
	}
	return 0;
}

/* The writer thread's job (struct image_handoff): one batch. */
static int write_batch(void *arg, void *job)
{
	return use_batch(arg, job);
}

/*
 * Items first .. first + nr - 1 of a cluster, stored back to back from dump
 * offset p (raw bytes in all), checked by check_item(): read, inflated,
 * then used in order, or handed to the writer.
 */
static int load_batch(struct restore_ctx *c, enum restore_pass pass, const struct metadump_cluster *cl,
		      u64 cluster, u32 first, u32 nr, u64 p, size_t raw)
{
	struct restore_buffers *set = &c->set[c->cur_set];
	struct restore_batch *b = &set->batch;
	bool zlib = metadump_compress(&cl->header) == METADUMP_COMPRESS_ZLIB;
	bool behind = pass == PASS_WRITE && c->writer.started;
	int ret;
	size_t off = 0;

	if (ARRAY_RESERVE(set->raw, set->raw_alloc, raw ? raw : 1))
		return -ENOMEM;
	ret = dump_read(&c->df, set->raw, raw, p);
	if (ret)
		return ret;
	*b = (struct restore_batch){ .c = c, .pass = pass, .cluster = cluster, .first = first,
				     .nr = nr, .raw = set->raw };
	for (u32 k = 0; k < nr; k++) {
		struct restore_slot *s = &b->slots[k];

		s->logical = metadump_item_bytenr(&cl->items[first + k]);
		s->size = metadump_item_size(&cl->items[first + k]);
		s->raw_off = off;
		s->buf = set->raw + off;
		s->ret = (int)s->size;
		s->skip = pass_skips(c, pass, s->logical);
		off += s->size;
		if (zlib && !set->slot_buf[k]) {
			/* pages are touched only as items need them */
			set->slot_buf[k] = malloc(c->max_item);
			if (!set->slot_buf[k])
				return -ENOMEM;
		}
		if (zlib)
			s->buf = set->slot_buf[k];
	}
	if (zlib)
		image_parallel_for(c->threads, nr, inflate_slot, b);
	if (!behind)
		return use_batch(c, b);
	/* the other set is free once the writer is done with the batch before */
	c->cur_set ^= 1;
	return image_handoff_give(&c->writer, b);
}

/* What a stream_item() reads and writes: where its payload is, how far it got. */
struct item_stream {
	struct restore_ctx *c;
	enum restore_pass pass;
	u64 cluster;
	u64 p;                  /* dump offset of the stored payload */
	u64 logical;            /* of the piece put next */
	int err;                /* read_in's or put's error (said already) */
};

static int stream_read(void *arg, u8 *buf, u64 off, u32 n)
{
	struct item_stream *st = arg;

	st->err = dump_read(&st->c->df, buf, n, st->p + off);
	return st->err;
}

static int stream_put(void *arg, const u8 *out, u32 n)
{
	struct item_stream *st = arg;

	st->c->buf = (u8 *)out;
	st->err = use_item(st->c, st->pass, st->logical, n, st->cluster);
	st->logical += n;
	return st->err;
}

/*
 * A v1 dump's item (up to 256 MiB: file data) in bounded memory: read and
 * inflated in pieces, each used (use_item()) as it comes: RESTORE_STREAM_IN
 * plus RESTORE_STREAM_OUT bytes, whatever the item's size.  The output
 * pieces are a multiple of every node size, so no tree block is split.
 */
#define RESTORE_STREAM_IN (1U << 20)
#define RESTORE_STREAM_OUT (4U << 20)

static int stream_item(struct restore_ctx *c, enum restore_pass pass, const struct metadump_cluster *cl,
		       u64 cluster, u32 i, u64 p)
{
	struct item_stream st = { .c = c, .pass = pass, .cluster = cluster, .p = p,
				  .logical = metadump_item_bytenr(&cl->items[i]) };
	u32 size = metadump_item_size(&cl->items[i]);
	struct btrfs_inflate_pieces pieces = {
		.in_cap = RESTORE_STREAM_IN, .out_cap = RESTORE_STREAM_OUT, .max_out = c->max_item,
		.read_in = stream_read, .put = stream_put, .arg = &st,
	};
	s64 ret = 0;

	if (pass_skips(c, pass, st.logical))
		return 0;
	if (!c->stream_in)
		c->stream_in = malloc(RESTORE_STREAM_IN);
	if (!c->stream_out)
		c->stream_out = malloc(RESTORE_STREAM_OUT);
	if (!c->stream_in || !c->stream_out)
		return -ENOMEM;
	pieces.in_buf = c->stream_in;
	pieces.out_buf = c->stream_out;
	if (metadump_compress(&cl->header) == METADUMP_COMPRESS_ZLIB) {
		ret = btrfs_zlib_inflate_pieces(&pieces, size);
		if (ret < 0)
			return st.err ? st.err : inflate_error((int)ret, cluster, i);
		return 0;
	}
	for (u32 off = 0, n; off < size && ret >= 0; off += n) {
		n = min_t(u32, RESTORE_STREAM_OUT, size - off);
		ret = stream_read(&st, c->stream_out, off, n);
		if (ret >= 0)
			ret = stream_put(&st, c->stream_out, n);
	}
	return ret < 0 ? (int)ret : 0;
}

/*
 * The items of the cluster at dump offset cluster, the first at p: in
 * batches; an item that fails its checks ends the walk after the items
 * before it are loaded (their errors come first, as the dump is in order).
 */
static int walk_items(struct restore_ctx *c, enum restore_pass pass, const struct metadump_cluster *cl,
		      u64 cluster, u64 p)
{
	u32 nritems = metadump_nritems(&cl->header);

	if (c->magic == METADUMP_MAGIC_V1) {
		/* one item at a time, streamed */
		for (u32 i = 0; i < nritems; i++) {
			int ret = check_item(c, pass, cl, cluster, i, p);

			if (!ret && pass != PASS_RANGES)
				ret = stream_item(c, pass, cl, cluster, i, p);
			if (ret)
				return ret;
			p += metadump_item_size(&cl->items[i]);
		}
		return 0;
	}
	for (u32 i = 0; i < nritems;) {
		size_t raw = 0;
		u32 n = 0;
		int bad = 0, ret = 0;

		while (i + n < nritems && n < c->batch_max) {
			u32 size = metadump_item_size(&cl->items[i + n]);

			if (n && raw + size > RESTORE_BATCH_RAW)
				break;
			bad = check_item(c, pass, cl, cluster, i + n, p + raw);
			if (bad)
				break;
			raw += size;
			n++;
		}
		if (pass != PASS_RANGES && n)
			ret = load_batch(c, pass, cl, cluster, i, n, p, raw);
		if (ret || bad)
			return ret ? ret : bad;
		p += raw;
		i += n;
	}
	return 0;
}

static int walk_dump(struct restore_ctx *c, enum restore_pass pass)
{
	u64 pos = 0;

	if (!c->df.len) {
		error("empty dump: the superblock item is missing");
		return -EUCLEAN;
	}
	while (pos < c->df.len) {
		union {
			struct metadump_cluster cl;
			u8 block[METADUMP_BLOCK_SIZE];
		} idx;
		u64 cluster = pos, p;
		u32 nritems;
		int ret;

		if (c->df.len - pos < METADUMP_BLOCK_SIZE) {
			error("cluster at %llu: truncated index block (%llu of %u bytes)",
			      (unsigned long long)cluster, (unsigned long long)(c->df.len - pos),
			      METADUMP_BLOCK_SIZE);
			return -EUCLEAN;
		}
		ret = dump_read(&c->df, idx.block, METADUMP_BLOCK_SIZE, pos);
		if (!ret)
			ret = check_index(c, &idx.cl.header, cluster);
		if (ret)
			return ret;
		nritems = metadump_nritems(&idx.cl.header);
		p = pos + METADUMP_BLOCK_SIZE;
		/* asked to stop: between clusters of the WRITE pass (no superblock written yet) */
		if (pass == PASS_WRITE && c->stop && *c->stop)
			return -EINTR;
		ret = walk_items(c, pass, &idx.cl, cluster, p);
		if (ret)
			return ret;
		for (u32 i = 0; i < nritems; i++)
			p += metadump_item_size(&idx.cl.items[i]);
		p = (p + METADUMP_BLOCK_SIZE - 1) / METADUMP_BLOCK_SIZE * METADUMP_BLOCK_SIZE;
		if (p > c->df.len) {
			error("cluster at %llu: truncated, padding past the end of the dump",
			      (unsigned long long)cluster);
			return -EUCLEAN;
		}
		pos = p;
	}
	return 0;
}

/*
 * The WRITE pass, writing behind with -t N (N > 1) on a v0 dump (v1 items
 * are streamed).  The writer's error comes first: it is of an earlier item
 * than any the walk stopped at.  Without a thread the walk writes itself.
 */
static int write_pass(struct restore_ctx *c)
{
	int ret, writer;

	if (c->threads > 1 && c->magic == METADUMP_MAGIC_V0)
		(void)image_handoff_start(&c->writer, write_batch, c);
	ret = walk_dump(c, PASS_WRITE);
	writer = image_handoff_stop(&c->writer);
	return writer ? writer : ret;
}

/* -m, after the CHECK pass: a DEV_ITEM for every target, every stripe of every chunk on a device with a DEV_ITEM. */
static int check_devices(struct restore_ctx *c)
{
	const char *how = "-m";

	for (int i = 0; i < c->nr_tg; i++)
		if (!c->tg[i].have_item) {
			error("-m: the dump's chunk tree has %d device items, %d targets given", i, c->nr_tg);
			return -EINVAL;
		}
	for (size_t i = 0; i < c->map.nr; i++) {
		const struct btrfs_chunk_map *cm = c->map.chunks[i];

		for (int s = 0; s < cm->num_stripes; s++)
			if (!target_of(c, cm->stripes[s].devid)) {
				error("%s: chunk %llu stripe %d is on devid %llu, which has no device item",
				      how, (unsigned long long)cm->logical, s,
				      (unsigned long long)cm->stripes[s].devid);
				return -EUCLEAN;
			}
	}
	return 0;
}

/* The size a target must have: its device's (the kernel checks it); -o: none. */
static u64 target_need(const struct restore_ctx *c, const struct restore_target *t)
{
	if (c->old)
		return 0;
	if (c->collapse)
		return c->collapsed.dev_size;
	return btrfs_device_total_bytes(c->multi ? &t->item : &c->super.dev_item);
}

/* A file target grown to size by zeros written at its end (the device write path: logged, ordered). */
static int grow_target(struct restore_ctx *c, struct restore_target *t, u64 size)
{
	u64 have = btrfs_device_fd_size(t->fd), from;
	int ret;

	if (!t->is_file || have >= size)
		return 0;
	from = have > size - BTRFS_SUPER_INFO_SIZE || size < BTRFS_SUPER_INFO_SIZE ?
	       have : size - BTRFS_SUPER_INFO_SIZE;
	ret = btrfs_dev_zero(c->log, t->fd, from, size - from, false);
	if (ret)
		error_errno(ret, "cannot enlarge %s to %llu bytes", t->path, (unsigned long long)size);
	return ret;
}

/*
 * -m with RAID5/6 chunks, the targets open and cleared: the block writer
 * for their rows.  A row's units are read back before its parity is
 * computed (what the dump does not hold is what the target holds: zeros on
 * a new file), so a file target is first sized to its device (holes).
 */
static int setup_rows(struct restore_ctx *c)
{
	struct btrfs_fs_geometry geo = { .nodesize = c->nodesize,
					 .sectorsize = btrfs_super_sectorsize(&c->super),
					 .csum_type = c->csum_type, .csum_size = c->csum.size,
					 .incompat_flags = btrfs_super_incompat_flags(&c->super),
					 .compat_ro_flags = btrfs_super_compat_ro_flags(&c->super),
					 .super_generation = btrfs_super_generation(&c->super) };
	bool parity = false;
	int ret;

	for (size_t i = 0; i < c->map.nr; i++)
		parity |= btrfs_raid_has_parity(c->map.chunks[i]->type);
	if (!parity)
		return 0;
	memcpy(geo.fsid, c->fsid, BTRFS_FSID_SIZE);
	c->row_devs = calloc((size_t)c->nr_tg, sizeof(*c->row_devs));
	c->rows = calloc(1, sizeof(*c->rows));
	if (!c->row_devs || !c->rows)
		return -ENOMEM;
	for (int i = 0; i < c->nr_tg; i++) {
		struct restore_target *t = &c->tg[i];

		c->row_devs[i] = (struct block_writer_device){ btrfs_device_id(&t->item), t->fd, t->path };
		ret = grow_target(c, t, target_need(c, t));
		if (ret)
			return ret;
	}
	ret = btrfs_block_writer_init(c->rows, &geo, &c->csum, c->row_devs, c->nr_tg);
	if (ret)
		return ret;
	c->rows->map = c->map;          /* borrowed: given back before the release */
	c->rows->log = c->log;
	return 0;
}

static void release_rows(struct restore_ctx *c)
{
	if (c->rows) {
		memset(&c->rows->map, 0, sizeof(c->rows->map));
		btrfs_block_writer_release(c->rows);
	}
	free(c->rows);
	free(c->row_devs);
}

/*
 * A multi-device dump onto one target, after the RANGES pass: every chunk
 * placed, the superblock rewritten (image/collapse.h).
 */
static int collapse_plan(struct restore_ctx *c)
{
	int ret;

	if (btrfs_super_log_root(&c->super)) {
		error("restore onto one target: the dump's filesystem has a log tree (not replayed); restoring a multi-device dump with one onto one target is not implemented: restore it with -m");
		return -EOPNOTSUPP;
	}
	ret = restore_chunk_place(c->chunks, c->nr_chunks, &c->collapsed);
	return ret ? ret : collapse_super(&c->super, c->chunks, c->nr_chunks, &c->collapsed);
}

/*
 * Open a target and refuse a block device smaller than the filesystem's
 * device; nothing is written yet.
 */
static int open_target(struct restore_ctx *c, struct restore_target *t)
{
	struct stat st;
	int ret;

	/* read too: RAID5/6 rows are read back to compute their parity (-m) */
	t->fd = open(t->path, O_RDWR | O_CREAT, 0644);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		ret = -errno;
		error_errno(ret, "cannot open %s", t->path);
		return ret;
	}
	t->is_file = S_ISREG(st.st_mode);
	t->sparse = t->is_file && st.st_size == 0;
	/* backup superblocks only where the target reached before the restore (a new file: none) */
	t->reach = btrfs_device_fd_size(t->fd);
	if (!t->is_file && t->reach < target_need(c, t)) {
		error("%s has %llu bytes, the dump's device %llu needs %llu: nothing written", t->path,
		      (unsigned long long)t->reach,
		      (unsigned long long)btrfs_device_id(c->multi ? &t->item : &c->super.dev_item),
		      (unsigned long long)target_need(c, t));
		return -ENOSPC;
	}
	return 0;
}

/*
 * Before any tree block: the superblock copies the target holds are zeroed
 * and flushed, so that a restore cut short leaves no superblock (of the old
 * filesystem or the new one) over a mix of old and new blocks.  Then a file
 * is emptied, as btrfs-image truncates it.
 */
static int clear_target(struct restore_ctx *c, struct restore_target *t)
{
	bool zeroed = false;
	int ret = 0;

	for (int m = 0; !ret && m < btrfs_super_copies_in(t->reach); m++) {
		ret = btrfs_dev_zero(c->log, t->fd, btrfs_sb_offset(m), BTRFS_SUPER_INFO_SIZE, false);
		zeroed = true;
	}
	if (!ret && zeroed)
		ret = btrfs_dev_flush(c->log, t->fd);
	if (ret) {
		error_errno(ret, "cannot clear the superblocks of %s", t->path);
		return ret;
	}
	if (t->is_file && ftruncate(t->fd, 0)) {
		ret = -errno;
		error_errno(ret, "cannot truncate %s", t->path);
	}
	return ret;
}

/*
 * After the tree blocks: a file grows to its device's size (the kernel
 * checks it) by zeros written at its end, through the device write path so
 * that the growth is ordered (and logged) with the blocks, before the flush
 * that precedes the superblocks; then the target is flushed.
 */
static int finish_target(struct restore_ctx *c, struct restore_target *t)
{
	int ret = grow_target(c, t, max_t(u64, target_need(c, t), t->end));

	if (ret)
		return ret;
	ret = btrfs_dev_flush(c->log, t->fd);
	if (ret)
		error_errno(ret, "fsync of %s", t->path);
	return ret;
}

/*
 * A restore onto new or empty files that failed in the WRITE pass (an item
 * the CHECK pass did not inflate was bad): the files go back to what they
 * were, no file or an empty one.
 */
static void undo_targets(struct restore_ctx *c)
{
	for (int i = 0; i < c->nr_tg; i++) {
		struct restore_target *t = &c->tg[i];

		if (t->fd < 0 || !t->is_file)
			continue;
		if (t->created ? unlink(t->path) : ftruncate(t->fd, 0))
			warning("cannot remove what was written to %s: %m", t->path);
		else
			fprintf(stderr, "%s: %s\n", t->path, t->created ? "removed" : "emptied again");
	}
}

int image_restore(const char *source, const char *const *targets, int nr_targets,
		  const struct image_restore_opts *opts)
{
	struct restore_ctx c = { .df = { .fd = -1 }, .multi = opts->multi, .old = opts->old,
				 .nr_tg = nr_targets, .auth_key = opts->auth_key,
				 .threads = opts->threads > 1 ? opts->threads : 1,
				 .auth_key_len = opts->auth_key_len, .stop = opts->stop };
	int ret, i;

	if (nr_targets < 1 || (!opts->multi && nr_targets != 1)) {
		error("%d targets: one, or with -m one per device of the dump", nr_targets);
		return -EINVAL;
	}
	if (opts->multi && opts->old) {
		error("-m and -o cannot be used together");
		return -EINVAL;
	}
	c.tg = calloc((size_t)nr_targets, sizeof(*c.tg));
	if (!c.tg)
		return -ENOMEM;
	for (i = 0; i < nr_targets; i++) {
		c.tg[i].fd = -1;
		c.tg[i].path = targets[i];
	}
	for (i = 0; i < nr_targets; i++) {
		struct stat st;

		if (target_is_mounted(targets[i])) {
			error("%s is mounted (or a device of a mounted filesystem): nothing written",
			      targets[i]);
			ret = -EBUSY;
			goto out;
		}
		/* a target that may hold data (or cannot be looked at): every item checked first */
		if (stat(targets[i], &st) == 0)
			c.check_all |= !S_ISREG(st.st_mode) || st.st_size;
		else if (errno == ENOENT)
			c.tg[i].created = true;
		else
			c.check_all = true;
	}
	ret = dump_open(source, &c.df);
	if (ret)
		goto out;
	ret = walk_dump(&c, PASS_CHECK);
	if (!ret)
		ret = walk_dump(&c, PASS_RANGES);
	if (!ret && c.multi)
		ret = check_devices(&c);
	if (!ret && c.collapse)
		ret = collapse_plan(&c);
	if (ret)
		goto out;
	ret = btrfs_write_log_open(&c.log);
	for (i = 0; !ret && i < nr_targets; i++)
		ret = open_target(&c, &c.tg[i]);
	for (i = 0; !ret && i < nr_targets; i++)
		ret = clear_target(&c, &c.tg[i]);
	if (!ret && c.multi)
		ret = setup_rows(&c);
	if (!ret)
		ret = write_pass(&c);
	/* the last rows, before the targets are flushed for their superblocks */
	if (!ret && c.rows)
		ret = btrfs_block_writer_flush(c.rows);
	if (ret == -EINTR)
		error("interrupted before the superblocks were written: %s no filesystem; run the same command again",
		      c.check_all ? "the target holds" : "the target is back to what it was, with");
	if (ret && !c.check_all)
		undo_targets(&c);
	/*
	 * Tree blocks, flush, superblocks, flush (every device flushed before any
	 * superblock): an interrupted restore leaves no superblock, so the target
	 * never looks like a complete filesystem.
	 */
	for (i = 0; !ret && i < nr_targets; i++)
		ret = finish_target(&c, &c.tg[i]);
	for (i = 0; !ret && i < nr_targets; i++)
		ret = write_super(&c, &c.tg[i]);
	for (i = 0; !ret && i < nr_targets; i++) {
		ret = btrfs_dev_flush(c.log, c.tg[i].fd);
		if (ret)
			error_errno(ret, "fsync of %s", c.tg[i].path);
	}
	if (!ret && c.collapse) {
		c.collapsed.is_file = c.tg[0].is_file;
		ret = collapse_commit(c.tg[0].path, c.auth_key, c.auth_key_len, &c.collapsed);
	}
out:
	for (i = 0; i < nr_targets; i++)
		if (c.tg[i].fd >= 0)
			close(c.tg[i].fd);
	release_rows(&c);
	free(c.tg);
	btrfs_csum_release(&c.csum);
	btrfs_write_log_close(c.log);
	btrfs_chunk_tree_map_free(&c.sys);
	btrfs_chunk_tree_map_free(&c.map);
	free(c.chunks);
	for (int n = 0; n < 2; n++) {
		for (u32 k = 0; k < RESTORE_BATCH_MAX; k++)
			free(c.set[n].slot_buf[k]);
		free(c.set[n].raw);
	}
	free(c.stream_in);
	free(c.stream_out);
	dump_close(&c.df);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 6, csums: the items of the csum tree are sector aligned, hold whole
 * checksums, do not overlap and cover only data extents (--repair deletes
 * checksums over nothing at all).  With
 * --check-data-csum every sector they cover is read from every mirror and
 * its checksum compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/extent-records.h"
#include "check/csum-pipe.h"
#include "check/repair-queue.h"
#include "check/passes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"

struct csum_walk {
	struct ext_state *st;
	u32 sectorsize;
	u16 csum_size;
	u64 prev_end;          /* end of the previous item's range */
	bool verify;
	u32 span_off, span_len; /* the bytes of each checksum verified (btrfs_csum_verify_span()) */
	struct csum_pipe *pipe; /* --check-data-csum: data read and hashed ahead */
	u64 bad_sectors;
};

/* An item kept until its data is read and hashed (the owner of its csum_job). */
struct item_copy {
	u64 leaf;
	struct btrfs_key key;
	u32 size;
	u8 data[];
};

/* Inside a data extent only the log references? */
static u64 log_extent_end(const struct check_ctx *ctx, u64 pos)
{
	for (size_t i = 0; i < ctx->log_extents_nr; i++)
		if (ctx->log_extents[i].start <= pos && pos < ctx->log_extents[i].end)
			return ctx->log_extents[i].end;
	return 0;
}

/* Checksums over no data extent, dropped by the repair. */
struct stray_csums {
	u64 start, end;
};

static int fix_stray_csums(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct stray_csums *s = arg;
	int ret = check_delete_csums(ctx, t, s->start, s->end);

	if (ret == 0)
		printf("Deleted the checksums of [%llu %llu): no data extent there\n",
		       (unsigned long long)s->start, (unsigned long long)s->end);
	return ret;
}

/*
 * Checksums for [pos, end) and nothing there: no data extent, none the log
 * references, none the extent repair inserts.  Deleting them loses
 * nothing (no file reads those bytes): the repair does.
 */
static void queue_stray_csums(struct check_ctx *ctx, const struct ext_state *st, u64 pos, u64 end)
{
	size_t lo = check_first_extent_ending_after(st, pos);
	struct stray_csums s = { pos, end };

	if (lo < st->ext_nr && st->ext[lo].start < end)
		return;
	/* a file extent or tree pointer to it (its extent item lost): not stray */
	for (size_t i = 0; i < st->exp_nr; i++)
		if (st->exp[i].bytenr < end && st->exp[i].bytenr + st->exp[i].len > pos)
			return;
	for (size_t i = 0; i < ctx->log_extents_nr; i++)
		if (ctx->log_extents[i].start < end && ctx->log_extents[i].end > pos)
			return;
	check_fixable(ctx, fix_stray_csums, &s, sizeof(s));
}

/* Is every byte of [start, end) inside data extents?  Reports the first gap. */
static void check_covered(struct check_ctx *ctx, struct ext_state *st, u64 start, u64 end)
{
	size_t lo = check_first_extent_ending_after(st, start);
	u64 pos = start;

	for (; lo < st->ext_nr && pos < end; lo++) {
		const struct check_extent *x = &st->ext[lo];
		u64 l;

		while (x->start > pos && (l = log_extent_end(ctx, pos)))
			pos = l;
		if (x->start > pos)
			break;
		if (!(x->flags & BTRFS_EXTENT_FLAG_DATA))
			break;
		if (x->start + x->len > pos)
			pos = x->start + x->len;
	}
	for (u64 l; pos < end && (l = log_extent_end(ctx, pos));)
		pos = l;
	if (pos < end) {
		check_error(ctx, "csum tree: checksums for [%llu %llu) but there is no data extent at %llu",
			    start, end, pos);
		/* mended when --repair inserts the missing data extent items */
		if (check_repair_covers_data(ctx, pos, end))
			check_fixable(ctx, NULL, NULL, 0);
		else if (check_repairing(ctx))
			queue_stray_csums(ctx, st, pos, end);
	}
}

/*
 * For a keyed checksum type, what a mismatching sector is: ": ALTERED ..."
 * (an authsum sector whose keyed part fails while its xxhash64 part
 * matches: changed without the key) or ": DAMAGED"; "" for a plain type.
 * The sector is read again: the pipe computed only the keyed part.
 */
static const char *keyed_verdict(struct btrfs_fs_info *fs, u64 pos, int mirror, u32 sectorsize,
				 const u8 *csum)
{
	u8 stored[BTRFS_CSUM_SIZE] = { 0 }, *buf;
	char msg[CSUM_PIPE_MSG];
	int res = -EIO;

	if (!fs->csum.keyed)
		return "";
	buf = malloc(sectorsize);
	memcpy(stored, csum, fs->csum.size);
	if (buf && btrfs_read_data_mirror(fs, pos, mirror, buf, sectorsize, msg, sizeof(msg)) == 0)
		res = btrfs_csum_verify(&fs->csum, buf, sectorsize, stored);
	free(buf);
	if (res == BTRFS_CSUM_ALTERED) {
		fs->csum_altered++;	/* check's exit status 3, as for a tree block */
		return ": ALTERED (keyed hash fails, xxhash64 matches: changed without the key)";
	}
	return res == BTRFS_CSUM_DAMAGED ? ": DAMAGED" : "";
}

/* The digests computed from every mirror against the item's checksums. */
static void compare_data(struct check_ctx *ctx, struct csum_walk *w, u64 start, const u8 *csums,
			 u32 nsect, const struct csum_job *job)
{
	u64 end = start + (u64)nsect * w->sectorsize;

	for (int m = 1; m <= job->mirrors; m++) {
		const u8 *got = job->digests + (size_t)(m - 1) * nsect * w->csum_size;

		if (job->read_err[m - 1]) {
			check_error(ctx, "data [%llu %llu) mirror %d cannot be read: %s", start, end, m,
				    job->msg[m - 1]);
			continue;
		}
		for (u32 i = 0; i < nsect; i++) {
			u64 pos = start + (u64)i * w->sectorsize;

			/* the bytes the pipe computed (btrfs_csum_verify_span()) */
			if (!memcmp(got + (size_t)i * w->csum_size + w->span_off,
				    csums + (size_t)i * w->csum_size + w->span_off, w->span_len))
				continue;
			if (w->bad_sectors++ < 100)
				check_error(ctx, "mirror %d bytenr %llu csum mismatch against the csum tree%s",
					    m, pos, keyed_verdict(ctx->fs, pos, m, w->sectorsize,
								  csums + (size_t)i * w->csum_size));
			else
				ctx->errors++;
		}
	}
}

/* Does the item hold whole checksums of aligned sectors?  Its sector count, 0 if not. */
static u32 item_sectors(const struct csum_walk *w, const struct btrfs_key *key, u32 size)
{
	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY ||
	    !IS_ALIGNED(key->offset, (u64)w->sectorsize) || !size || size % w->csum_size)
		return 0;
	return size / w->csum_size;
}

/* Everything the pass says about one item, in order; job: its data's digests (verifying). */
static void report_item(struct check_ctx *ctx, struct csum_walk *w, u64 leaf,
			const struct btrfs_key *key, const u8 *data, u32 size,
			const struct csum_job *job)
{
	u64 start = key->offset, end;
	u32 nsect;

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID || key->type != BTRFS_EXTENT_CSUM_KEY) {
		check_error(ctx, "csum tree: unexpected item (%llu %u %llu) in leaf %llu",
			    key->objectid, key->type, key->offset, leaf);
		return;
	}
	nsect = item_sectors(w, key, size);
	if (!nsect) {
		check_error(ctx, "csum tree: item (EXTENT_CSUM %llu) in leaf %llu: offset not aligned to %u or size %u not a multiple of %u",
			    start, leaf, w->sectorsize, size, w->csum_size);
		return;
	}
	end = start + (u64)nsect * w->sectorsize;
	if (start < w->prev_end)
		check_error(ctx, "csum tree: item [%llu %llu) overlaps the previous one ending at %llu",
			    start, end, w->prev_end);
	if (end > w->prev_end)
		w->prev_end = end;
	check_covered(ctx, w->st, start, end);
	if (job)
		compare_data(ctx, w, start, data, nsect, job);
}

/* Report the items whose data is ready (all of them with drain), in order. */
static void finish_items(struct check_ctx *ctx, struct csum_walk *w, bool drain)
{
	struct csum_job *job;

	while ((job = csum_pipe_done(ctx->fs, w->pipe, drain))) {
		struct item_copy *it = job->owner;

		report_item(ctx, w, it->leaf, &it->key, it->data, it->size, job);
		free(it);
		csum_pipe_release(w->pipe, job);
	}
}

static int csum_item(struct check_ctx *ctx, const struct extent_buffer *eb, int slot,
		     const struct btrfs_key *key, void *arg)
{
	struct csum_walk *w = arg;
	u32 size = btrfs_leaf_item_size(eb, slot);
	struct item_copy *it;
	struct csum_job *job;

	if (!w->verify) {
		report_item(ctx, w, eb->start, key, btrfs_leaf_item_ptr(eb, slot), size, NULL);
		return 0;
	}
	/* its data is read and hashed ahead; it is reported after the items before it */
	finish_items(ctx, w, false);
	it = malloc(sizeof(*it) + size);
	if (!it)
		return -ENOMEM;
	it->leaf = eb->start;
	it->key = *key;
	it->size = size;
	memcpy(it->data, btrfs_leaf_item_ptr(eb, slot), size);
	job = csum_pipe_submit(ctx->fs, w->pipe, key->offset, item_sectors(w, key, size), false);
	if (!job) {
		free(it);
		return -ENOMEM;
	}
	job->owner = it;
	return 0;
}

int check_csums(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct csum_walk w = {
		.st = ctx->extents_state,
		.sectorsize = btrfs_super_sectorsize(sb),
		.csum_size = ctx->fs->geo.csum_size,
		.verify = ctx->opts && ctx->opts->check_data_csum,
	};
	struct btrfs_tree_ref tree;
	int ret;

	if (!w.st || !w.csum_size)
		return 0;
	ret = btrfs_find_tree_root(ctx->fs, BTRFS_CSUM_TREE_OBJECTID, &tree);
	if (ret)
		return 0;   /* pass 2 reported a missing csum tree */
	btrfs_csum_verify_span(&ctx->fs->csum, &w.span_off, &w.span_len);
	if (w.verify && csum_pipe_open(ctx->fs, &w.pipe) < 0) {
		check_error(ctx, "csum tree: out of memory verifying data");
		return -ENOMEM;
	}
	ret = check_for_each_item(ctx, &tree, NULL, csum_item, &w);
	if (w.verify) {
		finish_items(ctx, &w, true);
		csum_pipe_close(w.pipe);
	}
	if (ret < 0)
		check_error(ctx, "csum tree cannot be read to the end: %s", strerror(-ret));
	return 0;
}

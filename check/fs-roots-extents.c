// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (check/fs-roots.c), file extents: each EXTENT_DATA item well formed
 * for its type, aligned, not overlapping the one before; without NO_HOLES
 * each gap a hole to report and mend; the gaps that tell which num_bytes a
 * wrong nbytes means; the csum tree's coverage (read once for all
 * subvolumes) of what regular extents reference on disk, and checksums over
 * data that has none.  The inode's checks (check/fs-roots-inodes.c) call the
 * reports once its last extent is seen.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/fs-roots-internal.h"
#include "check/csum-tree.h"
#include "check/file-extent-codes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

/*
 * A range of the file no extent covers (without NO_HOLES), the last one up
 * to isize (else isize 0): recorded for the repair, the first four reported.
 */
void fs_root_add_hole(struct fs_root_tree *t, u64 start, u64 end, u64 isize)
{
	struct check_range *h = CHECK_PUSH(t, holes);

	if (t->cur.hole_reports++ < 4) {
		if (isize)
			INODE_ERR(t, t->cur.ino, "file extent discount: hole [%llu %llu) up to isize %llu without a hole extent",
				  start, end, isize);
		else
			INODE_ERR(t, t->cur.ino, "file extent discount: hole [%llu %llu) without a hole extent",
				  start, end);
	}
	if (h) {
		h->start = start;
		h->end = end;
	}
}

/* The latest disk extent's gap, now that the next extent (or the end) starts at next. */
void fs_root_end_gap(struct fs_root_cursor *c, u64 next)
{
	s64 gap;

	if (!c->have_last)
		return;
	c->have_last = false;
	gap = (s64)(next - (c->last.start + c->last.len));
	if (!gap)
		return;
	c->last.gap = gap;
	if (c->gaps_nr < ARRAY_SIZE(c->gaps))
		c->gaps[c->gaps_nr] = c->last;
	c->gaps_nr++;
}

/*
 * nbytes off by diff from what the file extents account: the one disk
 * extent whose num_bytes, moved by diff, ends exactly where the next
 * extent starts (the last: at the size rounded up; only shrinking, and
 * only a regular extent, as a preallocated one may reach past the size),
 * within its ram_bytes and aligned.  NULL when none or more than one.
 */
const struct fs_root_gap *fs_root_len_fix(const struct fs_root_cursor *c, s64 diff, u32 sectorsize)
{
	const struct fs_root_gap *fix = NULL;

	if (c->gaps_nr > ARRAY_SIZE(c->gaps))
		return NULL;
	for (u32 i = 0; i < c->gaps_nr; i++) {
		const struct fs_root_gap *g = &c->gaps[i];
		u64 want = g->len + (u64)diff;

		if (g->gap != diff || !want || want > g->max_len || want % sectorsize ||
		    (i + 1 == c->gaps_nr && g->gap < 0 && !g->reg))
			continue;
		if (fix)
			return NULL;
		fix = g;
	}
	return fix;
}

/*
 * The num_bytes of a regular or preallocated extent at start whose own is
 * 0 or reaches past its data: it reaches where the next extent starts, else
 * to the size rounded up;
 * an extent of data not past its data (ram_bytes less offset: with NO_HOLES
 * a hole may follow, without, nothing is told).  0 when not told.
 */
/* Where the file's layout says the extent at start ends: the next extent, else the size rounded up; 0 unknown. */
static u64 layout_end(struct fs_root_tree *t, u64 start)
{
	const struct fs_root_cursor *c = &t->cur;
	struct btrfs_key want = { c->ino, BTRFS_EXTENT_DATA_KEY, start + 1 }, k;
	struct btrfs_path path;
	u64 end = 0;

	btrfs_init_path(&path);
	if (btrfs_search_key(t->ctx->fs, t->tree, &want, BTRFS_SEARCH_NEXT, &path, &k) == 0 &&
	    k.objectid == c->ino && k.type == BTRFS_EXTENT_DATA_KEY)
		end = k.offset;
	btrfs_release_path(&path);
	if (!end && c->have_item)
		end = round_up(c->size, (u64)t->sectorsize);
	return end > start && IS_ALIGNED(end, (u64)t->sectorsize) ? end : 0;
}

static u64 num_bytes_told(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi, u64 start)
{
	u64 end = layout_end(t, start), len, avail;

	if (!end)
		return 0;
	len = end - start;
	if (btrfs_file_extent_disk_bytenr(fi)) {
		if (btrfs_file_extent_offset(fi) >= btrfs_file_extent_ram_bytes(fi))
			return 0;
		avail = btrfs_file_extent_ram_bytes(fi) - btrfs_file_extent_offset(fi);
		if (len > avail && !t->no_holes)
			return 0;
		len = min_t(u64, len, avail);
	}
	return IS_ALIGNED(len, (u64)t->sectorsize) ? len : 0;
}

/* One fix inserts every hole of the inode; the other hole reports it answers too. */
void fs_root_fix_holes(struct fs_root_tree *t, u64 ino)
{
	size_t size = sizeof(struct repair_holes) + t->holes_nr * sizeof(struct check_range);
	struct repair_holes *h = malloc(size);
	u32 reported = t->cur.hole_reports < 4 ? t->cur.hole_reports : 4;

	if (!h)
		return;
	h->root = t->root;
	h->ino = ino;
	h->nr = (u32)t->holes_nr;
	memcpy(h->hole, t->holes, t->holes_nr * sizeof(struct check_range));
	if (!check_fixable(t->ctx, repair_insert_holes, h, size))
		while (--reported)
			check_fixable(t->ctx, NULL, NULL, 0);
	free(h);
}

/* Data with checksums lacks some: --init-csum-tree mends it, plain --repair does not. */
void fs_root_report_csum_missing(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;

	INODE_ERR(t, c->ino, "file extent at %llu, disk [%llu %llu): the sector at %llu has no checksum%s (some csum missing)",
		  c->miss_offset, c->miss_disk, c->miss_disk_end, c->miss_at,
		  c->csum_missing > 1 ? ", nor have sectors of other extents" : "");
}

/* Checksums over data that has none (odd csum item): mended by --init-csum-tree only. */
void fs_root_report_odd_csums(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;

	INODE_ERR(t, c->ino, "%sfile extent (%llu EXTENT_DATA %llu), disk [%llu %llu): %s, yet the csum tree has checksums for %llu bytes of it%s (odd csum item)",
		  c->odd_prealloc ? "prealloc " : "", c->ino, c->odd_offset, c->odd_disk, c->odd_disk_end,
		  c->odd_prealloc ? "no regular file extent refers to its extent" : "the inode is NODATASUM",
		  c->odd_bytes, c->odd_csums > 1 ? ", and of other extents" : "");
}

/* Index of the first csum span ending after byte start (span_nr when none); spans are sorted, disjoint. */
static size_t first_span_ending_after(const struct fs_root_csums *cs, u64 start)
{
	size_t lo = 0, hi = cs->span_nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->span[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first byte of [start, end) no csum item covers; end when all are covered. */
static u64 first_unsummed(const struct fs_root_csums *cs, u64 start, u64 end)
{
	size_t i = first_span_ending_after(cs, start);

	if (i == cs->span_nr || cs->span[i].start > start)
		return start;
	return cs->span[i].end >= end ? end : cs->span[i].end;
}

/* Bytes of [start, end) the csum tree's items cover. */
static u64 summed_bytes(const struct fs_root_csums *cs, u64 start, u64 end)
{
	u64 sum = 0;

	for (size_t i = first_span_ending_after(cs, start); i < cs->span_nr && cs->span[i].start < end; i++)
		sum += min_t(u64, cs->span[i].end, end) - max_t(u64, cs->span[i].start, start);
	return sum;
}

static void read_csum_spans(struct check_ctx *ctx, struct fs_root_csums *cs)
{
	cs->state = check_csum_tree_spans(ctx, &cs->span, &cs->span_nr);
	if (!cs->state)
		cs->state = 1;
}

/* The csum tree's coverage, read when first needed: false without it (pass 2 or 6 reports it). */
static bool csums_ready(struct fs_root_tree *t)
{
	struct fs_root_csums *cs = t->csums;

	if (t->csums_state)
		return t->csums_state > 0;
	if (!cs->shared) {
		if (!cs->state)
			read_csum_spans(t->ctx, cs);
	} else {
		pthread_mutex_lock(&cs->lock);
		if (!cs->state) {
			FILE *own = messages_stream();
			FILE *out = open_memstream(&cs->msgs, &cs->msgs_len);

			if (out)
				messages_set_stream(out);
			read_csum_spans(t->ctx, cs);
			if (out) {
				fclose(out);
				messages_set_stream(own);
			}
		}
		pthread_mutex_unlock(&cs->lock);
	}
	t->csums_state = cs->state;
	return cs->state > 0;
}

/*
 * The disk range a file extent's checksums cover: the whole on-disk extent
 * when compressed, else the part it references.  False for nonsense the
 * extents pass reports.
 */
static bool extent_csum_range(const struct btrfs_file_extent_item *fi, u64 num_bytes, u64 *start,
			      u64 *len)
{
	u64 disk = btrfs_file_extent_disk_bytenr(fi);

	if (btrfs_file_extent_compression(fi)) {
		*start = disk;
		*len = btrfs_file_extent_disk_num_bytes(fi);
	} else {
		*start = disk + btrfs_file_extent_offset(fi);
		*len = num_bytes;
	}
	return *start >= disk && *start + *len >= *start && *len;
}

/*
 * A regular extent of an inode with data checksums: every sector of what it
 * references on disk has a checksum.  Compressed extents always have them,
 * over the whole on-disk extent (the kernel never compresses NODATASUM
 * data).  Prealloc extents are never written, so have none; inline ones live
 * in the tree; the data relocation tree copies extents that may have none.
 */
static void check_extent_csums(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi,
			       u64 file_off, u64 num_bytes)
{
	struct fs_root_cursor *c = &t->cur;
	u64 start, len, miss;

	if (!c->have_item || !num_bytes || t->root == BTRFS_DATA_RELOC_TREE_OBJECTID)
		return;
	if (!btrfs_file_extent_compression(fi) && (c->flags & BTRFS_INODE_NODATASUM))
		return;   /* check_odd_csums() */
	if (!extent_csum_range(fi, num_bytes, &start, &len) || !csums_ready(t))
		return;
	miss = first_unsummed(t->csums, start, start + len);
	if (miss == start + len)
		return;
	if (!c->csum_missing++) {
		c->miss_offset = file_off;
		c->miss_disk = start;
		c->miss_disk_end = start + len;
		c->miss_at = miss;
	}
}

/*
 * Checksums where the data has none (btrfs-progs' "odd csum item"): over a
 * regular extent of a NODATASUM inode, or over a prealloc extent that no
 * regular file extent item refers to (one that does, a reflink, wrote it).
 */
static void check_odd_csums(struct fs_root_tree *t, const struct btrfs_file_extent_item *fi, u64 file_off,
			    u64 num_bytes)
{
	struct fs_root_cursor *c = &t->cur;
	bool prealloc = btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_PREALLOC;
	const struct check_extent *x;
	struct ext_state *st;
	u64 start, len, found;

	if (!c->have_item || !num_bytes || t->root == BTRFS_DATA_RELOC_TREE_OBJECTID)
		return;
	if (!prealloc && !(c->flags & BTRFS_INODE_NODATASUM))
		return;
	if (!extent_csum_range(fi, num_bytes, &start, &len) || !csums_ready(t))
		return;
	found = summed_bytes(t->csums, start, start + len);
	if (!prealloc) {
		c->nosum_extents++;
		c->nosum_summed += found == len;
	}
	if (!found)
		return;
	/* on a second thread: once passes 3 and 4 are done with it (rare: prealloc with csums) */
	st = prealloc ? check_extents_final(t->ctx) : NULL;
	x = st ? check_find_extent(st, btrfs_file_extent_disk_bytenr(fi)) : NULL;
	if (x && x->data_written)
		return;
	/*
	 * Every sector summed: the data was written, which makes the kernel's
	 * prealloc extent regular; a prealloc extent is never summed unwritten.
	 */
	if (prealloc && found == len && btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE) {
		struct repair_file_extent f = { .root = t->root, .ino = c->ino, .offset = file_off,
						.field = REPAIR_FILE_EXTENT_TYPE, .value = BTRFS_FILE_EXTENT_REG };

		INODE_ERR(t, c->ino, "prealloc file extent at %llu, disk [%llu %llu): every sector has a checksum and no regular extent refers to it: it was written, a regular extent",
			  file_off, start, start + len);
		check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		return;
	}
	if (!c->odd_csums++) {
		c->odd_prealloc = prealloc;
		c->odd_offset = file_off;
		c->odd_disk = start;
		c->odd_disk_end = start + len;
		c->odd_bytes = found;
	}
}

void fs_root_file_extent(struct fs_root_tree *t, const struct extent_buffer *eb, int slot,
			const struct btrfs_key *key)
{
	struct fs_root_cursor *c = &t->cur;
	struct btrfs_file_extent_item *fi = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot);
	u64 ino = key->objectid, len, start = key->offset;
	u8 type, comp;

	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START) {
		INODE_ERR(t, ino, "file extent (%llu EXTENT_DATA %llu) size %u too small", ino, start, size);
		return;
	}
	type = btrfs_file_extent_type(fi);
	comp = btrfs_file_extent_compression(fi);
	c->have_extent = true;
	if (comp > BTRFS_COMPRESS_ZSTD || btrfs_file_extent_encryption(fi) ||
	    btrfs_file_extent_other_encoding(fi)) {
		INODE_ERR(t, ino, "file extent at %llu: compression %u encryption %u other_encoding %u",
			  start, comp, btrfs_file_extent_encryption(fi), btrfs_file_extent_other_encoding(fi));
		/* no kernel writes another encoding: the field is 0 (the others, in the leaf mend) */
		if (comp <= BTRFS_COMPRESS_ZSTD && !btrfs_file_extent_encryption(fi) &&
		    size == sizeof(*fi)) {
			struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
							.field = REPAIR_FILE_EXTENT_OTHER_ENCODING, .value = 0 };

			check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		}
	}
	/* made by a committed transaction (Debian: "invalid generation for extent") */
	if (btrfs_file_extent_generation(fi) > btrfs_super_generation(btrfs_fs_super(t->ctx->fs)) + 1) {
		/* written by no commit after the superblock's: its generation is the latest it can be */
		struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_GENERATION,
						.value = btrfs_super_generation(btrfs_fs_super(t->ctx->fs)) };

		INODE_ERR(t, ino, "file extent at %llu: generation %llu beyond the superblock's %llu + 1",
			  start, (unsigned long long)btrfs_file_extent_generation(fi),
			  (unsigned long long)btrfs_super_generation(btrfs_fs_super(t->ctx->fs)));
		check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
	}
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		u64 ram = btrfs_file_extent_ram_bytes(fi);
		int told = comp ? file_extent_inline_ram_told(t->ctx->fs, fi, size) : -1;

		if (start != 0)
			INODE_ERR(t, ino, "inline file extent at offset %llu, expected 0", start);
		if (told > 0 && (u64)told != ram) {
			INODE_ERR(t, ino, "compressed inline file extent ram_bytes %llu, its data decompresses to %d bytes",
				  ram, told);
			/* the inode's nbytes or size is the second witness */
			if (c->have_item && c->ino == ino && (c->nbytes == (u64)told || c->size == (u64)told)) {
				struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = start,
								.field = REPAIR_FILE_EXTENT_RAM_BYTES, .value = (u64)told };

				check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
				ram = (u64)told;
			}
		}
		if (!comp && ram != size - BTRFS_FILE_EXTENT_INLINE_DATA_START)
			INODE_ERR(t, ino, "inline file extent ram_bytes %llu, inline data is %u bytes",
				  ram, (u32)(size - BTRFS_FILE_EXTENT_INLINE_DATA_START));
		if (!ram)
			INODE_ERR(t, ino, "inline file extent with ram_bytes 0");
		else if (ram > t->sectorsize)
			INODE_ERR(t, ino, "inline file extent ram_bytes %llu beyond the sector size %u (inline file extent too large)",
				  ram, t->sectorsize);
		c->inline_extent = true;
		c->inline_size = ram;
		c->found_nbytes += ram;
		len = (ram + t->sectorsize - 1) / t->sectorsize * t->sectorsize;
	} else if (type == BTRFS_FILE_EXTENT_REG || type == BTRFS_FILE_EXTENT_PREALLOC) {
		u64 disk = btrfs_file_extent_disk_bytenr(fi);

		if (size != sizeof(*fi)) {
			INODE_ERR(t, ino, "file extent at %llu: item size %u, expected %zu", start, size, sizeof(*fi));
			return;
		}
		len = btrfs_file_extent_num_bytes(fi);
		if (!IS_ALIGNED(start, (u64)t->sectorsize) || !IS_ALIGNED(len, (u64)t->sectorsize) || !len) {
			INODE_ERR(t, ino, "file extent at %llu length %llu not aligned to sectorsize %u",
				  start, len, t->sectorsize);
			/* num_bytes 0 (the tree-checker lets it through): from the file's layout */
			if (!len && IS_ALIGNED(start, (u64)t->sectorsize)) {
				u64 want = num_bytes_told(t, fi, start);

				if (want) {
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_NUM_BYTES, .value = want };

					check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
					len = want;
				}
			}
		}
		if (type == BTRFS_FILE_EXTENT_PREALLOC && (comp || !disk))
			INODE_ERR(t, ino, "prealloc file extent at %llu: compression %u, disk_bytenr %llu",
				  start, comp, disk);
		if (comp && (c->flags & BTRFS_INODE_NODATASUM))
			INODE_ERR(t, ino, "compressed file extent at %llu in a NODATASUM inode (bad file extent)",
				  start);
		if (disk) {
			if (btrfs_file_extent_offset(fi) + len > btrfs_file_extent_ram_bytes(fi)) {
				u64 stored = btrfs_file_extent_disk_num_bytes(fi);

				INODE_ERR(t, ino, "file extent at %llu: offset %llu + num_bytes %llu beyond ram_bytes %llu",
					  start, btrfs_file_extent_offset(fi), len,
					  btrfs_file_extent_ram_bytes(fi));
				/* uncompressed data is as long as it is stored */
				if (!comp && btrfs_file_extent_offset(fi) + len <= stored) {
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_RAM_BYTES, .value = stored };

					check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
				} else if (layout_end(t, start) != start + len) {
					/*
					 * else num_bytes, when the file's layout contradicts it too,
					 * is what reaches past the data (one that the layout confirms
					 * says ram_bytes is the damaged field: not told)
					 */
					u64 want = num_bytes_told(t, fi, start);
					struct repair_file_extent f = {
						.root = t->root, .ino = ino, .offset = start,
						.field = REPAIR_FILE_EXTENT_NUM_BYTES, .value = want };

					if (want && want < len) {
						check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
						len = want;
					}
				}
			}
		}
		/* (with the num_bytes the fix above sets) */
		if (disk && type == BTRFS_FILE_EXTENT_REG)
			check_extent_csums(t, fi, start, len);
		if (disk) {
			check_odd_csums(t, fi, start, len);
			c->found_nbytes += len;
		}
	} else {
		INODE_ERR(t, ino, "file extent at %llu has unknown type %u", start, type);
		return;
	}
	fs_root_end_gap(c, start);
	if (type != BTRFS_FILE_EXTENT_INLINE && btrfs_file_extent_disk_bytenr(fi)) {
		c->have_last = true;
		c->last = (struct fs_root_gap){
			.start = start, .len = len, .reg = type == BTRFS_FILE_EXTENT_REG,
			.max_len = btrfs_file_extent_ram_bytes(fi) - min_t(u64, btrfs_file_extent_offset(fi),
									  btrfs_file_extent_ram_bytes(fi)),
		};
	}
	if (start < c->extent_end)
		INODE_ERR(t, ino, "file extent [%llu %llu) overlaps the previous one ending at %llu",
			  start, start + len, c->extent_end);
	else if (start > c->extent_end && !t->no_holes)
		fs_root_add_hole(t, c->extent_end, start, 0);
	if (start + len > c->extent_end)
		c->extent_end = start + len;
}

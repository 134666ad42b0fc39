// SPDX-License-Identifier: GPL-2.0
/*
 * RAID5/6 read-modify-write.  The row merge alone (raid56-row.h): which
 * units are read and when, what ends up in the row, what is written, a
 * failed read changing nothing, the rebuild of lost units and the eight
 * bytes at a time parity against a byte by byte reference.  Then the block
 * writer on temporary files (one per device): a partial write keeps the
 * rest of the row and gets the parity right, an unreadable unit is rebuilt
 * from the parity (RAID5 and RAID6, a device opened write-only makes its
 * reads fail), and a row that cannot be rebuilt fails the flush with
 * nothing written.
 */
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "kernel-shared/engine/raid56-row.h"
#include "kernel-shared/format/raid6.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "kernel-shared/format/accessors.h"

#define UNIT 4096u

/* Reference P and Q, byte by byte: Q = sum of 2^i * D_i. */
static void ref_pq(int n, size_t len, const u8 *const *d, u8 *p, u8 *q)
{
	for (size_t b = 0; b < len; b++) {
		u8 pp = 0, qq = 0, g = 1;

		for (int i = 0; i < n; i++) {
			pp ^= d[i][b];
			qq ^= raid6_gf_mul(g, d[i][b]);
			g = raid6_gf_mul(g, 2);
		}
		p[b] = pp;
		q[b] = qq;
	}
}

static void fill_random(u8 *buf, size_t len, unsigned int *seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (u8)rand_r(seed);
}

struct fake_disk {
	int reads[8];
	int fail_unit;               /* reads of this unit fail (-1: none) */
};

/* Unit i of the "disk" is the byte 0x10 + i everywhere. */
static int fake_read(void *ctx, const struct raid56_row *r, int unit, u8 *out)
{
	struct fake_disk *d = ctx;

	if (unit == d->fail_unit)
		return -EIO;
	d->reads[unit]++;
	memset(out, 0x10 + unit, r->unit_len);
	return 0;
}

static void test_row_merge(void)
{
	struct fake_disk disk = { { 0 }, -1 };
	struct raid56_row r;
	u8 data[2 * UNIT];

	memset(data, 0xee, sizeof(data));
	CHECK(raid56_row_init(&r, 1 << 20, 3, 1, UNIT, false) == 0);
	/* unit 1 in full: no read */
	CHECK(raid56_row_write(&r, UNIT, data, UNIT, fake_read, &disk) == 0);
	CHECK_EQ_U64(disk.reads[1], 0);
	/* part of unit 0, twice: one read */
	CHECK(raid56_row_write(&r, 100, data, 50, fake_read, &disk) == 0);
	CHECK(raid56_row_write(&r, 1000, data, 10, fake_read, &disk) == 0);
	CHECK_EQ_U64(disk.reads[0], 1);
	CHECK_EQ_U64(r.buf[99], 0x10);
	CHECK_EQ_U64(r.buf[100], 0xee);
	CHECK_EQ_U64(r.buf[149], 0xee);
	CHECK_EQ_U64(r.buf[150], 0x10);
	CHECK_EQ_U64(r.buf[1009], 0xee);
	CHECK_EQ_U64(r.buf[UNIT - 1], 0x10);
	CHECK(raid56_row_unit_to_write(&r, 0));
	CHECK(raid56_row_unit_to_write(&r, 1));
	CHECK(!raid56_row_unit_to_write(&r, 2));
	/* completing reads only the untouched unit */
	CHECK(raid56_row_complete(&r, fake_read, &disk) == 0);
	CHECK_EQ_U64(disk.reads[0], 1);
	CHECK_EQ_U64(disk.reads[1], 0);
	CHECK_EQ_U64(disk.reads[2], 1);
	CHECK_EQ_U64(r.buf[2 * UNIT + 5], 0x12);
	CHECK(!raid56_row_unit_to_write(&r, 2));
	/* outside the row */
	CHECK(raid56_row_write(&r, 3 * UNIT - 4, data, 8, fake_read, &disk) == -EINVAL);
	raid56_row_release(&r);
}

static void test_row_straddle_and_failure(void)
{
	struct fake_disk disk = { { 0 }, 1 };
	struct raid56_row r;
	u8 data[64];

	memset(data, 0xab, sizeof(data));
	CHECK(raid56_row_init(&r, 0, 2, 2, UNIT, false) == 0);
	/* straddles units 0 and 1: both partly covered, unit 1 unreadable */
	CHECK(raid56_row_write(&r, UNIT - 10, data, 20, fake_read, &disk) == -EIO);
	CHECK(!raid56_row_unit_to_write(&r, 0));
	CHECK(!raid56_row_unit_to_write(&r, 1));
	CHECK_EQ_U64(r.buf[UNIT - 10], 0x10);   /* unit 0 was read, nothing copied in */
	disk.fail_unit = -1;
	CHECK(raid56_row_write(&r, UNIT - 10, data, 20, fake_read, &disk) == 0);
	CHECK_EQ_U64(disk.reads[0], 1);        /* loaded by the failed attempt, kept */
	CHECK_EQ_U64(disk.reads[1], 1);
	CHECK_EQ_U64(r.buf[UNIT - 11], 0x10);
	CHECK_EQ_U64(r.buf[UNIT - 10], 0xab);
	CHECK_EQ_U64(r.buf[UNIT + 9], 0xab);
	CHECK_EQ_U64(r.buf[UNIT + 10], 0x11);
	raid56_row_release(&r);
}

static void test_row_fresh(void)
{
	struct fake_disk disk = { { 0 }, 0 };
	struct raid56_row r;
	u8 data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, p[UNIT], q[UNIT];

	CHECK(raid56_row_init(&r, 0, 2, 2, UNIT, true) == 0);
	CHECK(raid56_row_write(&r, UNIT + 8, data, 8, fake_read, &disk) == 0);
	CHECK(raid56_row_complete(&r, fake_read, &disk) == 0);
	CHECK_EQ_U64(disk.reads[0] + disk.reads[1], 0);
	CHECK(raid56_row_unit_to_write(&r, 0));  /* zeroes go out too */
	raid56_row_parity(&r, p, q);
	CHECK_EQ_U64(p[8], 1);
	CHECK_EQ_U64(q[8], raid6_gf_mul(2, 1));
	CHECK_EQ_U64(p[0], 0);
	raid56_row_release(&r);
	CHECK(raid56_row_init(&r, 0, 0, 1, UNIT, false) == -EINVAL);
	CHECK(raid56_row_init(&r, 0, 2, 3, UNIT, false) == -EINVAL);
}

static void test_gen_pq(void)
{
	unsigned int seed = 7;

	for (int n = 1; n <= 6; n++) {
		for (size_t len = 1; len <= 70; len += 23) {
			u8 d[6][70], p[70], q[70], rp[70], rq[70];
			const u8 *units[6];

			for (int i = 0; i < n; i++) {
				fill_random(d[i], len, &seed);
				units[i] = d[i];
			}
			raid6_gen_pq(n, len, units, p, q);
			ref_pq(n, len, units, rp, rq);
			CHECK(memcmp(p, rp, len) == 0);
			CHECK(memcmp(q, rq, len) == 0);
		}
	}
}

static void test_rebuild(void)
{
	enum { N = 4, LEN = 40 };
	unsigned int seed = 3;
	u8 orig[N + 2][LEN], work[N + 2][LEN];
	u8 *units[N + 2];
	const u8 *data[N];

	for (int i = 0; i < N; i++) {
		fill_random(orig[i], LEN, &seed);
		data[i] = orig[i];
	}
	ref_pq(N, LEN, data, orig[N], orig[N + 1]);
	for (int a = 0; a < N + 2; a++) {
		for (int b = -1; b < N + 2; b++) {
			bool lost[N + 2] = { false };

			if (b == a)
				continue;
			memcpy(work, orig, sizeof(work));
			for (int i = 0; i < N + 2; i++)
				units[i] = work[i];
			lost[a] = true;
			if (b >= 0)
				lost[b] = true;
			memset(work[a], 0x5a, LEN);
			if (b >= 0)
				memset(work[b], 0x5a, LEN);
			/* RAID6: any two */
			CHECK(raid56_rebuild_units(N, 2, LEN, units, lost) == 0);
			for (int i = 0; i < N; i++)
				CHECK(memcmp(work[i], orig[i], LEN) == 0);
		}
	}
	/* RAID5 (data + P only): one data unit from P; two lost is too many */
	for (int a = 0; a < N; a++) {
		bool lost[N + 2] = { false };

		memcpy(work, orig, sizeof(work));
		for (int i = 0; i < N + 1; i++)
			units[i] = work[i];
		units[N + 1] = NULL;
		lost[a] = true;
		memset(work[a], 0, LEN);
		CHECK(raid56_rebuild_units(N, 1, LEN, units, lost) == 0);
		CHECK(memcmp(work[a], orig[a], LEN) == 0);
		lost[(a + 1) % (N + 1)] = true;
		CHECK(raid56_rebuild_units(N, 1, LEN, units, lost) == -EIO);
	}
	{
		bool lost[N + 2] = { true, true, true, false, false, false };

		CHECK(raid56_rebuild_units(N, 2, LEN, units, lost) == -EIO);
	}
}

/* ---- the block writer on files ---- */

#define STRIPE BTRFS_STRIPE_LEN
#define DEV_BYTES (4 * SZ_1M)
#define PHYS SZ_1M
#define LOGICAL (8 * SZ_1M)

struct rig {
	int ndev;
	int nparity;
	char paths[4][64];
	int fds[4];
	struct block_writer_device devs[4];
	struct btrfs_block_writer w;
};

static int rig_open(struct rig *g, int ndev, int nparity)
{
	struct btrfs_fs_geometry geo = { 0 };
	struct chunk_placement *c;
	u32 size = btrfs_chunk_item_size(ndev);
	u8 item[512];
	int ret;

	memset(g, 0, sizeof(*g));
	g->ndev = ndev;
	g->nparity = nparity;
	for (int i = 0; i < ndev; i++) {
		snprintf(g->paths[i], sizeof(g->paths[i]), "/tmp/raid56-rmw-%d-%d.img", (int)getpid(), i);
		g->fds[i] = open(g->paths[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (g->fds[i] < 0 || ftruncate(g->fds[i], DEV_BYTES) < 0)
			return -errno;
		g->devs[i] = (struct block_writer_device){ i + 1, g->fds[i], g->paths[i] };
	}
	geo.sectorsize = 4096;
	geo.nodesize = 16384;
	geo.csum_type = 0;
	geo.csum_size = 4;
	ret = btrfs_block_writer_init(&g->w, &geo, NULL, g->devs, ndev);
	if (ret < 0)
		return ret;
	c = calloc(1, sizeof(*c) + ndev * sizeof(c->stripes[0]));
	if (!c)
		return -ENOMEM;
	c->logical = LOGICAL;
	c->stripe_size = SZ_1M;
	c->length = SZ_1M * (u64)(ndev - nparity);
	c->type = BTRFS_BLOCK_GROUP_DATA |
		  (nparity == 2 ? BTRFS_BLOCK_GROUP_RAID6 : BTRFS_BLOCK_GROUP_RAID5);
	c->num_stripes = ndev;
	c->sub_stripes = 1;
	for (int i = 0; i < ndev; i++)
		c->stripes[i] = (struct chunk_alloc_stripe){ i + 1, PHYS };
	memset(item, 0, sizeof(item));
	chunk_alloc_fill_chunk_item(c, 4096, (struct btrfs_chunk *)item);
	free(c);
	return btrfs_block_writer_add_chunk(&g->w, LOGICAL, (struct btrfs_chunk *)item, size);
}

static void rig_close(struct rig *g)
{
	btrfs_block_writer_release(&g->w);
	for (int i = 0; i < g->ndev; i++) {
		close(g->fds[i]);
		unlink(g->paths[i]);
	}
}

/* Unit k (data, then P, Q) of row n as the files hold it: stripe (k + n) % ndev. */
static void read_unit(const struct rig *g, int row, int k, u8 *out)
{
	int s = (k + row) % g->ndev;
	int fd = open(g->paths[s], O_RDONLY);

	CHECK(fd >= 0 && pread(fd, out, STRIPE, PHYS + (u64)row * STRIPE) == STRIPE);
	close(fd);
}

/* The row's parity on the files is that of its data units on the files. */
static bool row_parity_ok(const struct rig *g, int row)
{
	int ndata = g->ndev - g->nparity;
	static u8 units[6][STRIPE], p[STRIPE], q[STRIPE];
	const u8 *d[6];

	for (int k = 0; k < g->ndev; k++)
		read_unit(g, row, k, units[k]);
	for (int k = 0; k < ndata; k++)
		d[k] = units[k];
	ref_pq(ndata, STRIPE, d, p, q);
	return !memcmp(p, units[ndata], STRIPE) &&
	       (g->nparity < 2 || !memcmp(q, units[ndata + 1], STRIPE));
}

/* Reads of device i fail from now on (writes still work). */
static void make_unreadable(struct rig *g, int dev)
{
	int fd = open(g->paths[dev], O_WRONLY);

	CHECK(fd >= 0);
	g->devs[dev].fd = fd;
}

static void test_writer_raid5(void)
{
	static u8 row0[2 * STRIPE], piece[8192], before[STRIPE], after[STRIPE];
	unsigned int seed = 11;
	u64 row1 = LOGICAL + 2 * STRIPE;
	struct rig g;

	CHECK(rig_open(&g, 3, 1) == 0);
	/* rows 0 and 1 full of random data */
	fill_random(row0, sizeof(row0), &seed);
	CHECK(btrfs_write_logical(&g.w, LOGICAL, row0, sizeof(row0)) == 0);
	CHECK(btrfs_write_logical(&g.w, row1, row0, sizeof(row0)) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == 0);
	CHECK(row_parity_ok(&g, 0));
	CHECK(row_parity_ok(&g, 1));

	/* 8 KiB inside data unit 1 of row 1: unit 0 stays, parity follows */
	fill_random(piece, sizeof(piece), &seed);
	CHECK(btrfs_write_logical(&g.w, row1 + STRIPE + 4096, piece, sizeof(piece)) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == 0);
	read_unit(&g, 1, 0, after);
	CHECK(memcmp(after, row0, STRIPE) == 0);
	read_unit(&g, 1, 1, after);
	CHECK(memcmp(after, row0 + STRIPE, 4096) == 0);
	CHECK(memcmp(after + 4096, piece, sizeof(piece)) == 0);
	CHECK(memcmp(after + 4096 + sizeof(piece), row0 + STRIPE + 4096 + sizeof(piece),
		     STRIPE - 4096 - sizeof(piece)) == 0);
	CHECK(row_parity_ok(&g, 1));

	/* data unit 0 of row 0 (devid 1) unreadable: rebuilt from P, parity right */
	make_unreadable(&g, 0);
	fill_random(piece, sizeof(piece), &seed);
	CHECK(btrfs_write_logical(&g.w, LOGICAL + STRIPE + 100, piece, 100) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == 0);
	read_unit(&g, 0, 0, after);
	CHECK(memcmp(after, row0, STRIPE) == 0);
	CHECK(row_parity_ok(&g, 0));

	/* and P (devid 3 in row 0) unreadable too: refused, nothing written */
	make_unreadable(&g, 2);
	read_unit(&g, 0, 1, before);
	CHECK(btrfs_write_logical(&g.w, LOGICAL + STRIPE + 100, piece, 4096) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == -EIO);
	read_unit(&g, 0, 1, after);
	CHECK(memcmp(before, after, STRIPE) == 0);
	CHECK(row_parity_ok(&g, 0));
	close(g.devs[0].fd);
	close(g.devs[2].fd);
	rig_close(&g);
}

static void test_writer_raid6(void)
{
	static u8 row0[2 * STRIPE], piece[4096], after[STRIPE];
	unsigned int seed = 5;
	struct rig g;

	CHECK(rig_open(&g, 4, 2) == 0);
	fill_random(row0, sizeof(row0), &seed);
	CHECK(btrfs_write_logical(&g.w, LOGICAL, row0, sizeof(row0)) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == 0);
	CHECK(row_parity_ok(&g, 0));
	/* both data units unreadable: a partial write rebuilds them from P and Q */
	make_unreadable(&g, 0);
	make_unreadable(&g, 1);
	fill_random(piece, sizeof(piece), &seed);
	CHECK(btrfs_write_logical(&g.w, LOGICAL + 8192, piece, sizeof(piece)) == 0);
	CHECK(btrfs_block_writer_flush(&g.w) == 0);
	read_unit(&g, 0, 1, after);
	CHECK(memcmp(after, row0 + STRIPE, STRIPE) == 0);
	read_unit(&g, 0, 0, after);
	CHECK(memcmp(after, row0, 8192) == 0);
	CHECK(memcmp(after + 8192, piece, sizeof(piece)) == 0);
	CHECK(row_parity_ok(&g, 0));
	close(g.devs[0].fd);
	close(g.devs[1].fd);
	rig_close(&g);
}

int main(void)
{
	RUN(test_row_merge);
	RUN(test_row_straddle_and_failure);
	RUN(test_row_fresh);
	RUN(test_gen_pq);
	RUN(test_rebuild);
	RUN(test_writer_raid5);
	RUN(test_writer_raid6);
	return unit_done();
}

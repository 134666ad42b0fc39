/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One RAID5/6 full stripe row being rewritten: the in-memory merge of the
 * bytes written into the row with what its data units hold on disk
 * (read-modify-write), kept apart from any device I/O so that it can be
 * tested alone.  The writer (tree-write.c) supplies the read of a data unit
 * as a callback and writes the result.
 *
 * Each data unit is in one of three states:
 *   not loaded   nothing known of it yet;
 *   loaded       its bytes in buf are the disk's (or were all written);
 *   dirty        loaded and changed: it must go to disk with the parity.
 * A write that covers a unit in full needs no read; one that covers part
 * of it reads the unit first (once), then copies the new bytes over.
 * Before the parity is computed every unit still not loaded is read, so P
 * and Q always cover what the disk holds next to the changed units.
 *
 * A fresh row (a new filesystem: nothing else lives in it) starts with
 * every unit loaded as zeroes and written out whole, without any read.
 */
#ifndef BTRFS_KIT_RAID56_ROW_H
#define BTRFS_KIT_RAID56_ROW_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"

#define RAID56_UNIT_LOADED 0x1
#define RAID56_UNIT_DIRTY  0x2

struct raid56_row {
	u64 start;                 /* logical address of the row's first byte */
	int ndata;                 /* data units */
	int nparity;               /* 1 (RAID5) or 2 (RAID6) */
	u32 unit_len;              /* bytes per unit (the chunk's stripe_len) */
	bool fresh;
	u8 *buf;                   /* ndata * unit_len bytes, unit i at i * unit_len */
	u8 *state;                 /* RAID56_UNIT_* per data unit */
};

/* Read data unit `unit` of row as the disk holds it into out (unit_len bytes): 0 or < 0. */
typedef int (*raid56_read_unit_fn)(void *ctx, const struct raid56_row *row, int unit, u8 *out);

/* 0 or -ENOMEM / -EINVAL (bad geometry: 1..255 data units, 1 or 2 parity). */
int raid56_row_init(struct raid56_row *r, u64 start, int ndata, int nparity, u32 unit_len,
		    bool fresh);
void raid56_row_release(struct raid56_row *r);

/*
 * Put len bytes at offset (from the row's start, inside the row) into the
 * row, reading the partly covered units first.  When a read fails its
 * error is returned and no byte of buf is copied in.
 */
int raid56_row_write(struct raid56_row *r, u64 offset, const void *buf, size_t len,
		     raid56_read_unit_fn read, void *ctx);

/* Read every unit not loaded yet: afterwards the parity may be computed. */
int raid56_row_complete(struct raid56_row *r, raid56_read_unit_fn read, void *ctx);

/* Does unit i go to disk at flush (dirty, or any unit of a fresh row)? */
bool raid56_row_unit_to_write(const struct raid56_row *r, int unit);

/* P (and Q when q is not NULL) of the row's units, unit_len bytes each; the row must be complete. */
void raid56_row_parity(const struct raid56_row *r, u8 *p, u8 *q);

#endif

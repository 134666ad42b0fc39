// SPDX-License-Identifier: GPL-2.0
/*
 * Read-modify-write of one RAID5/6 stripe row in memory; see raid56-row.h.
 */
#include <stdlib.h>
#include "kernel-shared/engine/raid56-row.h"
#include "kernel-shared/format/raid6.h"

int raid56_row_init(struct raid56_row *r, u64 start, int ndata, int nparity, u32 unit_len,
		    bool fresh)
{
	memset(r, 0, sizeof(*r));
	if (ndata < 1 || ndata > 255 || nparity < 1 || nparity > 2 || !unit_len)
		return -EINVAL;
	r->start = start;
	r->ndata = ndata;
	r->nparity = nparity;
	r->unit_len = unit_len;
	r->fresh = fresh;
	/* a fresh row is zeroes; any other is filled from the disk unit by unit */
	r->buf = fresh ? calloc(ndata, unit_len) : malloc((size_t)ndata * unit_len);
	r->state = calloc(ndata, 1);
	if (!r->buf || !r->state) {
		raid56_row_release(r);
		return -ENOMEM;
	}
	if (fresh)
		memset(r->state, RAID56_UNIT_LOADED, ndata);
	return 0;
}

void raid56_row_release(struct raid56_row *r)
{
	free(r->buf);
	free(r->state);
	r->buf = NULL;
	r->state = NULL;
}

static int load_unit(struct raid56_row *r, int i, raid56_read_unit_fn read, void *ctx)
{
	int ret;

	if (r->state[i] & RAID56_UNIT_LOADED)
		return 0;
	ret = read(ctx, r, i, r->buf + (size_t)i * r->unit_len);
	if (ret < 0)
		return ret;
	r->state[i] |= RAID56_UNIT_LOADED;
	return 0;
}

int raid56_row_write(struct raid56_row *r, u64 offset, const void *buf, size_t len,
		     raid56_read_unit_fn read, void *ctx)
{
	u64 rowlen = (u64)r->ndata * r->unit_len;
	int first, last, ret;

	if (offset > rowlen || len > rowlen - offset)
		return -EINVAL;
	if (!len)
		return 0;
	first = (int)(offset / r->unit_len);
	last = (int)((offset + len - 1) / r->unit_len);
	/* only the two end units can be partly covered: read them before touching anything */
	if (offset % r->unit_len) {
		ret = load_unit(r, first, read, ctx);
		if (ret < 0)
			return ret;
	}
	if ((offset + len) % r->unit_len) {
		ret = load_unit(r, last, read, ctx);
		if (ret < 0)
			return ret;
	}
	memcpy(r->buf + offset, buf, len);
	for (int i = first; i <= last; i++)
		r->state[i] |= RAID56_UNIT_LOADED | RAID56_UNIT_DIRTY;
	return 0;
}

int raid56_row_complete(struct raid56_row *r, raid56_read_unit_fn read, void *ctx)
{
	for (int i = 0; i < r->ndata; i++) {
		int ret = load_unit(r, i, read, ctx);

		if (ret < 0)
			return ret;
	}
	return 0;
}

bool raid56_row_unit_to_write(const struct raid56_row *r, int unit)
{
	return r->fresh || (r->state[unit] & RAID56_UNIT_DIRTY);
}

void raid56_row_parity(const struct raid56_row *r, u8 *p, u8 *q)
{
	const u8 *units[255];

	for (int i = 0; i < r->ndata; i++)
		units[i] = r->buf + (size_t)i * r->unit_len;
	raid6_gen_pq(r->ndata, r->unit_len, units, p, q);
}

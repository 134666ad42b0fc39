// SPDX-License-Identifier: GPL-2.0
/* RAID6 P+Q over GF(2^8), polynomial 0x11d, generator 2: see raid6.h. */
#include <errno.h>
#include <string.h>
#include "kernel-shared/format/raid6.h"

u8 raid6_gf_mul(u8 a, u8 b)
{
	unsigned int r = 0, x = a;

	while (b) {
		if (b & 1)
			r ^= x;
		b >>= 1;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (u8)r;
}

u8 raid6_gf_pow2(unsigned int n)
{
	u8 r = 1;

	for (n %= 255; n; n--)
		r = raid6_gf_mul(r, 2);
	return r;
}

u8 raid6_gf_inv(u8 a)
{
	u8 r = 1;
	int i;

	/* a^254 = a^-1 in GF(2^8) */
	for (i = 0; i < 254; i++)
		r = raid6_gf_mul(r, a);
	return a ? r : 0;
}

/* q ^= g^i * d, p ^= d (p or q may be NULL). */
static void accumulate(u8 *p, u8 *q, const u8 *d, u8 coef, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++) {
		if (p)
			p[k] ^= d[k];
		if (q)
			q[k] ^= raid6_gf_mul(coef, d[k]);
	}
}

/* P and Q over the data units, leaving out skip_a and skip_b (-1: none). */
static void partial_pq(int ndata, size_t len, u8 *const *units, int skip_a, int skip_b,
		       u8 *p, u8 *q)
{
	int i;

	if (p)
		memset(p, 0, len);
	if (q)
		memset(q, 0, len);
	for (i = 0; i < ndata; i++)
		if (i != skip_a && i != skip_b)
			accumulate(p, q, units[i], raid6_gf_pow2((unsigned int)i), len);
}

/* Eight GF(2^8) bytes times g = 2 at once. */
static inline u64 gf_mul2_x8(u64 v)
{
	u64 high = v & 0x8080808080808080ULL;

	return ((v << 1) & 0xfefefefefefefefeULL) ^ ((high >> 7) * 0x1d);
}

static inline u8 gf_mul2(u8 x)
{
	return (u8)((x << 1) ^ ((x & 0x80) ? 0x1d : 0));
}

void raid6_gen_pq(int ndata, size_t len, const u8 *const *units, u8 *p, u8 *q)
{
	size_t b = 0;

	/* Horner from the last unit down: Q = sum of g^i * D_i, eight bytes at a time. */
	for (; b + 8 <= len; b += 8) {
		u64 pp = 0, qq = 0, d;

		for (int i = ndata - 1; i >= 0; i--) {
			memcpy(&d, units[i] + b, 8);
			pp ^= d;
			qq = gf_mul2_x8(qq) ^ d;
		}
		memcpy(p + b, &pp, 8);
		if (q)
			memcpy(q + b, &qq, 8);
	}
	for (; b < len; b++) {
		u8 pp = 0, qq = 0;

		for (int i = ndata - 1; i >= 0; i--) {
			pp ^= units[i][b];
			qq = gf_mul2(qq) ^ units[i][b];
		}
		p[b] = pp;
		if (q)
			q[b] = qq;
	}
}

int raid6_recover(int ndata, size_t len, u8 *const *units, int fail_a, int fail_b)
{
	int np = ndata, nq = ndata + 1;
	u8 *p = units[np], *q = units[nq];
	size_t k;

	if (fail_b >= 0 && fail_a > fail_b) {
		int t = fail_a;

		fail_a = fail_b;
		fail_b = t;
	}
	if (fail_a < 0) {
		fail_a = fail_b;
		fail_b = -1;
	}
	if (ndata < 1 || fail_a < 0 || fail_a > nq || fail_b > nq || fail_a == fail_b)
		return -EINVAL;

	if (fail_a >= np) {                     /* P and/or Q only */
		partial_pq(ndata, len, units, -1, -1, fail_a == np ? p : NULL,
			   fail_a == nq || fail_b == nq ? q : NULL);
		return 0;
	}
	if (fail_b < 0 || fail_b == nq) {       /* one data unit (and Q): from P */
		u8 *d = units[fail_a];

		memcpy(d, p, len);
		for (int i = 0; i < ndata; i++)
			if (i != fail_a)
				accumulate(d, NULL, units[i], 0, len);
		if (fail_b == nq)
			partial_pq(ndata, len, units, -1, -1, NULL, q);
		return 0;
	}
	if (fail_b == np) {                     /* data a and P: from Q */
		u8 *d = units[fail_a];
		u8 ginv = raid6_gf_inv(raid6_gf_pow2((unsigned int)fail_a));

		/* d = Q' (the others' Q) ^ Q, then scaled by g^-a; P from scratch */
		partial_pq(ndata, len, units, fail_a, -1, NULL, d);
		for (k = 0; k < len; k++)
			d[k] = raid6_gf_mul(ginv, d[k] ^ q[k]);
		partial_pq(ndata, len, units, -1, -1, p, NULL);
		return 0;
	}
	{                                       /* two data units a < b */
		u8 *da = units[fail_a], *db = units[fail_b];
		u8 gba = raid6_gf_pow2((unsigned int)(fail_b - fail_a));
		u8 denom = raid6_gf_inv(gba ^ 1);
		u8 ca = raid6_gf_mul(gba, denom);
		u8 cb = raid6_gf_mul(raid6_gf_inv(raid6_gf_pow2((unsigned int)fail_a)), denom);

		/* da = P' (others), db = Q' (others); then Pxy, Qxy in place */
		partial_pq(ndata, len, units, fail_a, fail_b, da, db);
		for (k = 0; k < len; k++) {
			u8 pxy = da[k] ^ p[k], qxy = db[k] ^ q[k];

			da[k] = raid6_gf_mul(ca, pxy) ^ raid6_gf_mul(cb, qxy);
			db[k] = da[k] ^ pxy;
		}
		return 0;
	}
}

int raid56_rebuild_units(int ndata, int nparity, size_t len, u8 *const *units, const bool *lost)
{
	int fail[2] = { -1, -1 }, nfail = 0, ndata_lost = 0;

	for (int i = 0; i < ndata + nparity; i++) {
		if (!lost[i])
			continue;
		if (nfail == 2 || nfail == nparity)
			return -EIO;
		fail[nfail++] = i;
		if (i < ndata)
			ndata_lost++;
	}
	if (!ndata_lost)
		return 0;
	/* raid6_recover() puts lost P/Q back too; RAID5 has no Q to lose */
	return raid6_recover(ndata, len, units, fail[0], fail[1]) < 0 ? -EIO : 0;
}

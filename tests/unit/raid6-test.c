// SPDX-License-Identifier: GPL-2.0
/*
 * RAID6 P+Q: field arithmetic against known values of GF(2^8)/0x11d, P and
 * Q of a hand-computed row, and every one- and two-unit loss rebuilt for
 * 1..8 data units (data, P and Q alike).
 */
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/raid6.h"

static void test_field(void)
{
	unsigned int a;

	CHECK_EQ_U64(raid6_gf_mul(2, 0x80), 0x1d);      /* x * x^7 = x^8 = x^4+x^3+x^2+1 */
	CHECK_EQ_U64(raid6_gf_mul(0x53, 0xca), 0x8f);
	CHECK_EQ_U64(raid6_gf_pow2(0), 1);
	CHECK_EQ_U64(raid6_gf_pow2(8), 0x1d);
	CHECK_EQ_U64(raid6_gf_pow2(255), 1);            /* 2 generates the whole group */
	CHECK_EQ_U64(raid6_gf_inv(2), 0x8e);
	for (a = 1; a < 256; a++)
		CHECK_EQ_U64(raid6_gf_mul((u8)a, raid6_gf_inv((u8)a)), 1);
	/* 2 is a generator: g^1 .. g^255 are all distinct */
	{
		u8 seen[256] = { 0 };
		int dup = 0;

		for (a = 1; a <= 255; a++)
			dup += seen[raid6_gf_pow2(a)]++;
		CHECK_EQ_U64(dup, 0);
	}
}

static void test_pq_by_hand(void)
{
	u8 d0[2] = { 0x01, 0x80 }, d1[2] = { 0x01, 0x80 }, d2[2] = { 0x00, 0x01 };
	u8 p[2], q[2];
	u8 *units[3] = { d0, d1, d2 };

	raid6_gen_pq(3, 2, (const u8 *const *)units, p, q);
	CHECK_EQ_U64(p[0], 0x00);
	CHECK_EQ_U64(p[1], 0x01);
	CHECK_EQ_U64(q[0], 0x01 ^ 0x02);                   /* 1 + 2*1 */
	CHECK_EQ_U64(q[1], 0x80 ^ 0x1d ^ 0x04);            /* 0x80 + 2*0x80 + 4*1 */
}

static void test_all_losses(void)
{
	enum { LEN = 512 };
	int n;

	srand(1);
	for (n = 1; n <= 8; n++) {
		u8 *units[10], *orig[10];
		int i, a, b;

		for (i = 0; i < n + 2; i++) {
			units[i] = malloc(LEN);
			orig[i] = malloc(LEN);
		}
		for (i = 0; i < n; i++)
			for (int k = 0; k < LEN; k++)
				units[i][k] = (u8)rand();
		raid6_gen_pq(n, LEN, (const u8 *const *)units, units[n], units[n + 1]);
		for (i = 0; i < n + 2; i++)
			memcpy(orig[i], units[i], LEN);
		for (a = 0; a < n + 2; a++) {
			for (b = -1; b < n + 2; b++) {
				int bad = 0;

				if (b == a)
					continue;
				memset(units[a], 0xa5, LEN);
				if (b >= 0)
					memset(units[b], 0x5a, LEN);
				CHECK(raid6_recover(n, LEN, units, a, b) == 0);
				for (i = 0; i < n + 2; i++)
					bad += memcmp(units[i], orig[i], LEN) != 0;
				if (bad)
					fprintf(stderr, "n=%d lost %d,%d: %d units wrong\n", n, a, b, bad);
				CHECK_EQ_U64(bad, 0);
				for (i = 0; i < n + 2; i++)
					memcpy(units[i], orig[i], LEN);
			}
		}
		CHECK(raid6_recover(n, LEN, units, 0, 0) == -EINVAL);
		CHECK(raid6_recover(n, LEN, units, n + 2, -1) == -EINVAL);
		for (i = 0; i < n + 2; i++) {
			free(units[i]);
			free(orig[i]);
		}
	}
}

int main(void)
{
	RUN(test_field);
	RUN(test_pq_by_hand);
	RUN(test_all_losses);
	return unit_done();
}

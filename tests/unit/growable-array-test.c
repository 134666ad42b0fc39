// SPDX-License-Identifier: GPL-2.0
/* The growable-array helper: growth, counts of any integer type, overflow and failure. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "tests/unit/unit.h"
#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/growable-array.h"

struct big {
	char bytes[1 << 20];
};

static void test_append(void)
{
	int *a = NULL, nr = 0, alloc = 0;
	int ok = 1;

	for (int i = 0; i < 1000; i++) {
		if (ARRAY_GROW(a, nr, alloc)) {
			ok = 0;
			break;
		}
		a[nr++] = i * 3;
	}
	CHECK(ok);
	CHECK_EQ_U64(nr, 1000);
	CHECK(alloc >= 1000 && alloc < 2000);   /* doubled, not grown one by one */
	for (int i = 0; i < nr; i++)
		ok &= a[i] == i * 3;
	CHECK(ok);
	free(a);
}

static void test_reserve(void)
{
	char *bytes = NULL;
	size_t alloc = 0;

	CHECK(ARRAY_RESERVE(bytes, alloc, 100) == 0);
	CHECK(bytes && alloc >= 100);
	memset(bytes, 'x', 100);
	CHECK(ARRAY_RESERVE(bytes, alloc, 50) == 0);       /* enough already */
	CHECK(ARRAY_RESERVE(bytes, alloc, 1000) == 0);
	CHECK(alloc >= 1000 && bytes[99] == 'x');
	free(bytes);
}

static void test_overflow(void)
{
	u8 *small = NULL, nr8 = 0, alloc8 = 0;
	struct big *big = NULL;
	size_t big_alloc = 0;
	int failed = 0;

	/* a u8 count holds 255 elements: the 256th fails, the array intact */
	for (int i = 0; i < 300 && !failed; i++) {
		if (ARRAY_GROW(small, nr8, alloc8))
			failed = i + 1;
		else
			small[nr8++] = (u8)i;
	}
	CHECK_EQ_U64(failed, 256);
	CHECK_EQ_U64(nr8, 255);
	CHECK_EQ_U64(alloc8, 255);
	CHECK(small[254] == 254);
	free(small);

	/* want * elem past SIZE_MAX: -ENOMEM, nothing allocated */
	CHECK(ARRAY_RESERVE(big, big_alloc, SIZE_MAX / sizeof(*big) + 1) == -ENOMEM);
	CHECK(big == NULL && big_alloc == 0);
}

int main(void)
{
	RUN(test_append);
	RUN(test_reserve);
	RUN(test_overflow);
	return unit_done();
}

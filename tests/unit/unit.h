/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit test harness.  A test file defines test functions and a main:
 *
 *   static void test_foo(void) { CHECK(1 + 1 == 2); CHECK_EQ_U64(x, 5); }
 *   int main(void) { RUN(test_foo); return unit_done(); }
 *
 * Each CHECK failure prints file:line and the expression; unit_done() prints
 * "N passed, N failed" for the checks and returns non-zero on any failure.
 */
#ifndef BTRFS_KIT_UNIT_H
#define BTRFS_KIT_UNIT_H

#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static int unit_checks, unit_failures;

#define CHECK(expr) do {                                                     \
	unit_checks++;                                                        \
	if (!(expr)) {                                                        \
		unit_failures++;                                              \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr); \
	}                                                                     \
} while (0)

#define CHECK_EQ_U64(a, b) do {                                              \
	unsigned long long _a = (a), _b = (b);                                \
	unit_checks++;                                                        \
	if (_a != _b) {                                                       \
		unit_failures++;                                              \
		fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n",  \
			__FILE__, __LINE__, #a, #b, _a, _b);                  \
	}                                                                     \
} while (0)

#define CHECK_STR(a, b) do {                                                 \
	const char *_a = (a), *_b = (b);                                      \
	unit_checks++;                                                        \
	if (!_a || !_b || strcmp(_a, _b)) {                                   \
		unit_failures++;                                              \
		fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",  \
			__FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
	}                                                                     \
} while (0)

#define CHECK_MEM(a, b, n) do {                                              \
	unit_checks++;                                                        \
	if (memcmp((a), (b), (n))) {                                          \
		unit_failures++;                                              \
		fprintf(stderr, "%s:%d: memory %s == %s (%zu bytes) differs\n", \
			__FILE__, __LINE__, #a, #b, (size_t)(n));              \
	}                                                                     \
} while (0)

#define RUN(fn) do {                                                         \
	int _before = unit_failures;                                          \
	fn();                                                                 \
	printf("%s %s\n", unit_failures == _before ? "ok" : "FAIL", #fn);     \
} while (0)

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_checks - unit_failures, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif

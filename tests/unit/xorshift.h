/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' one pseudo-random sequence: Marsaglia's xorshift64
 * (shifts 13, 7, 17), reproducible from its seed.  Each test keeps its own
 * state (any value but 0) and draws with xorshift64(&state).
 */
#ifndef BTRFS_KIT_TESTS_XORSHIFT_H
#define BTRFS_KIT_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t s = *state;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	*state = s;
	return s;
}

#endif

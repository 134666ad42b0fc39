/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adler-32 (RFC 1950, section 8.2), the checksum that ends a zlib stream.
 * Ours so that inflating a zlib stream need not run zlib's own, which is
 * scalar: over a dump restore it took a fifth of the CPU time.
 *
 * adler32_update(ADLER32_INIT, p, n) is the checksum of p[0..n); updating
 * with more bytes continues it.  Returns the checksum as zlib's adler32()
 * does (s2 << 16 | s1).  This layer knows nothing of btrfs.
 */
#ifndef BTRFS_KIT_CRYPTO_ADLER32_H
#define BTRFS_KIT_CRYPTO_ADLER32_H

#include <stddef.h>
#include <stdint.h>

#define ADLER32_INIT 1U

uint32_t adler32_update(uint32_t adler, const uint8_t *p, size_t len);

/* The portable version alone, for the unit test to compare against. */
uint32_t adler32_update_scalar(uint32_t adler, const uint8_t *p, size_t len);

#endif

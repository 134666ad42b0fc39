// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * The primitives update the raw CRC register: no initial or final inversion
 * (hash.c applies ~0 on both ends).  The reference is slicing-by-8 over
 * static tables and works on any host byte order.
 */
#include "crypto/hash-impl.h"
#include "crypto/crc32c-table.h"
#include "crypto/hash-x86.h"

uint32_t crc32c_ref(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len && ((uintptr_t)p & 7)) {
		crc = crc32c_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	while (len >= 8) {
		uint32_t lo = get_le32(p) ^ crc;
		uint32_t hi = get_le32(p + 4);

		crc = crc32c_table[7][lo & 0xff] ^ crc32c_table[6][(lo >> 8) & 0xff] ^
		      crc32c_table[5][(lo >> 16) & 0xff] ^ crc32c_table[4][lo >> 24] ^
		      crc32c_table[3][hi & 0xff] ^ crc32c_table[2][(hi >> 8) & 0xff] ^
		      crc32c_table[1][(hi >> 16) & 0xff] ^ crc32c_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc32c_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}


static const struct hash_impl crc32c_impl_ref = {
	.name = "ref", .short_name = "ref", .alg = HASH_CRC32C, .crc32c = crc32c_ref,
};

const struct hash_impl *const crc32c_impls[] = {
#if HASH_X86
	&crc32c_impl_vpclmul512x3,
	&crc32c_impl_vpclmul512,
	&crc32c_impl_vpclmul256x3,
	&crc32c_impl_vpclmul256,
	&crc32c_impl_sse42x3,
	&crc32c_impl_sse42,
#endif
	&crc32c_impl_ref,
	NULL,
};

/*
 * Name and data-ref hashes: short inputs with no context, so the SSE4.2
 * instruction (whose presence libgcc's CPU model answers without a CPUID)
 * or the tables.
 */
uint32_t crc32c_raw(uint32_t seed, const void *data, size_t len)
{
#if HASH_X86
	if (hash_x86_has(hash_x86_features(), HX86_SSE42))
		return crc32c_impl_sse42.crc32c(seed, data, len);
#endif
	return crc32c_ref(seed, data, len);
}

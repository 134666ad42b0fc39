/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unaligned loads and stores in a fixed byte order, correct on any host:
 * get_le32(p), put_be64(p, v), ...  The hashes use them, and so does the
 * on-disk format (kernel-shared/format/kerncompat.h, under the kernel's names).
 */
#ifndef BTRFS_KIT_CRYPTO_BYTE_ORDER_H
#define BTRFS_KIT_CRYPTO_BYTE_ORDER_H

#include <stdint.h>
#include <string.h>
#include <endian.h>

#define BYTE_ORDER_LOAD_STORE(bits, order)						\
	static inline uint##bits##_t get_##order##bits(const void *p)			\
	{										\
		uint##bits##_t v;							\
											\
		memcpy(&v, p, sizeof(v));						\
		return order##bits##toh(v);						\
	}										\
	static inline void put_##order##bits(void *p, uint##bits##_t v)			\
	{										\
		v = hto##order##bits(v);						\
		memcpy(p, &v, sizeof(v));						\
	}
BYTE_ORDER_LOAD_STORE(16, le)
BYTE_ORDER_LOAD_STORE(32, le)
BYTE_ORDER_LOAD_STORE(64, le)
BYTE_ORDER_LOAD_STORE(32, be)
BYTE_ORDER_LOAD_STORE(64, be)
#undef BYTE_ORDER_LOAD_STORE

#endif

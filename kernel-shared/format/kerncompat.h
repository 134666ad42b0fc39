/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Basic types and helpers shared by every layer above crypto/: fixed-width
 * integer names as the btrfs format documentation uses them, little-endian
 * load/store helpers, error pointers and a few kernel-style conveniences.
 */
#ifndef BTRFS_KIT_KERNCOMPAT_H
#define BTRFS_KIT_KERNCOMPAT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>
#include "crypto/byte-order.h"

/*
 * Kernel-style names over <linux/types.h>: u64 is unsigned long long, so
 * "%llu" prints it everywhere.  __le16/__le32/__le64 (also from linux/types.h)
 * mark on-disk little-endian fields: only format.h declares fields of them.
 */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define round_up(x, y) ((((x) - 1) | ((typeof(x))(y) - 1)) + 1)
#define round_down(x, y) ((x) & ~((typeof(x))(y) - 1))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define SZ_4K 0x1000ULL
#define SZ_16K 0x4000ULL
#define SZ_64K 0x10000ULL
#define SZ_1M 0x100000ULL
#define SZ_8M 0x800000ULL
#define SZ_16M 0x1000000ULL
#define SZ_32M 0x2000000ULL
#define SZ_64M 0x4000000ULL
#define SZ_256M 0x10000000ULL
#define SZ_1G 0x40000000ULL
#define SZ_256G 0x4000000000ULL
#define __unused __attribute__((unused))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Unaligned little-endian access to raw bytes (crypto/byte-order.h), the kernel's names. */
static inline u16 get_unaligned_le16(const void *p) { return get_le16(p); }
static inline u32 get_unaligned_le32(const void *p) { return get_le32(p); }
static inline u64 get_unaligned_le64(const void *p) { return get_le64(p); }
/* Big-endian, where a format outside btrfs has it (zlib's trailer). */
static inline u32 get_unaligned_be32(const void *p) { return get_be32(p); }
static inline void put_unaligned_le16(u16 v, void *p) { put_le16(p, v); }
static inline void put_unaligned_le32(u32 v, void *p) { put_le32(p, v); }
static inline void put_unaligned_le64(u64 v, void *p) { put_le64(p, v); }

/* Error pointers: a pointer in the top 4095 bytes carries a negative errno. */
#define MAX_ERRNO 4095
static inline void *ERR_PTR(long err)
{
	return (void *)err;
}
static inline long PTR_ERR(const void *p)
{
	return (long)p;
}
static inline bool IS_ERR(const void *p)
{
	return (unsigned long)p >= (unsigned long)-MAX_ERRNO;
}
static inline bool IS_ERR_OR_NULL(const void *p)
{
	return !p || IS_ERR(p);
}

/* Invariant checks for programmer errors only, never for bytes read from disk. */
#ifdef BTRFS_KIT_DEBUG
#include <assert.h>
#define ASSERT(c) assert(c)
#else
#define ASSERT(c) ((void)0)
#endif

#endif

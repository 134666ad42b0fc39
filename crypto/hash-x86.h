/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to crypto/: the x86-64 SIMD implementations (crc32c-x86.c,
 * sha256-x86.c, blake2b-x86.c) and the CPUID checks their cpu_ok hooks use.
 * Each function carries its own __attribute__((target(...))), so the rest of
 * the tree builds for baseline x86-64; an implementation is only picked when
 * CPUID (and XGETBV for the AVX register state) says it can run.
 */
#ifndef BTRFS_KIT_CRYPTO_HASH_X86_H
#define BTRFS_KIT_CRYPTO_HASH_X86_H

#include "crypto/hash-impl.h"

#if HASH_X86
#include <cpuid.h>

/* Feature bits, our own numbering: see hash_x86_features(). */
#define HX86_SSE42	(1U << 0)
#define HX86_PCLMUL	(1U << 1)
#define HX86_SSSE3	(1U << 2)
#define HX86_SSE41	(1U << 3)
#define HX86_AVX2	(1U << 4)	/* with OS-enabled ymm state */
#define HX86_SHA	(1U << 5)
#define HX86_VPCLMUL	(1U << 6)	/* CPUID.7.0:ECX[10] */
#define HX86_AVX512F	(1U << 7)	/* with OS-enabled zmm/opmask state */
#define HX86_AVX512VL	(1U << 8)
#define HX86_BMI2	(1U << 9)
#define HX86_AVX512BW	(1U << 10)
#define HX86_AVX512DQ	(1U << 11)

static inline uint64_t hash_x86_xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Straight from CPUID and XGETBV.  CPUID traps to the hypervisor in a VM
 * (7-14 microseconds each measured here), so the selection uses
 * hash_x86_features() below; the unit test checks that both agree.
 */
static inline unsigned int hash_x86_features_cpuid(void)
{
	unsigned int a, b, c, d, f = 0, b7 = 0, c7 = 0;
	uint64_t xcr0 = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (c & (1U << 20))
		f |= HX86_SSE42;
	if (c & (1U << 1))
		f |= HX86_PCLMUL;
	if (c & (1U << 9))
		f |= HX86_SSSE3;
	if (c & (1U << 19))
		f |= HX86_SSE41;
	if ((c & (1U << 27)) && (c & (1U << 28)))	/* OSXSAVE and AVX */
		xcr0 = hash_x86_xgetbv0();
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b7, c7, d);
		(void)a;
		(void)d;
	}
	if (b7 & (1U << 29))
		f |= HX86_SHA;
	if (b7 & (1U << 8))
		f |= HX86_BMI2;
	if ((xcr0 & 0x6) == 0x6) {			/* xmm and ymm state */
		if (b7 & (1U << 5))
			f |= HX86_AVX2;
		if (c7 & (1U << 10))
			f |= HX86_VPCLMUL;
		if ((xcr0 & 0xe6) == 0xe6) {		/* opmask, zmm_hi256, hi16_zmm */
			if (b7 & (1U << 16))
				f |= HX86_AVX512F;
			if (b7 & (1U << 31))
				f |= HX86_AVX512VL;
			if (b7 & (1U << 30))
				f |= HX86_AVX512BW;
			if (b7 & (1U << 17))
				f |= HX86_AVX512DQ;
		}
	}
	return f;
}

/*
 * The same bits from the CPU model libgcc filled in once at program start
 * (its own CPUID and XGETBV checks, OS-enabled AVX/AVX-512 state included):
 * nothing to query per context, and no state of ours.
 */
static inline unsigned int hash_x86_features(void)
{
	unsigned int f = 0;

	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2"))
		f |= HX86_SSE42;
	if (__builtin_cpu_supports("pclmul"))
		f |= HX86_PCLMUL;
	if (__builtin_cpu_supports("ssse3"))
		f |= HX86_SSSE3;
	if (__builtin_cpu_supports("sse4.1"))
		f |= HX86_SSE41;
	if (__builtin_cpu_supports("avx2"))
		f |= HX86_AVX2;
	if (__builtin_cpu_supports("sha"))
		f |= HX86_SHA;
	if (__builtin_cpu_supports("vpclmulqdq"))
		f |= HX86_VPCLMUL;
	if (__builtin_cpu_supports("avx512f"))
		f |= HX86_AVX512F;
	if (__builtin_cpu_supports("avx512vl"))
		f |= HX86_AVX512VL;
	if (__builtin_cpu_supports("avx512bw"))
		f |= HX86_AVX512BW;
	if (__builtin_cpu_supports("avx512dq"))
		f |= HX86_AVX512DQ;
	if (__builtin_cpu_supports("bmi2"))
		f |= HX86_BMI2;
	return f;
}

/* @feat from hash_cpu_features(), queried once per context set-up. */
static inline int hash_x86_has(unsigned int feat, unsigned int want)
{
	return (feat & want) == want;
}

extern const struct hash_impl crc32c_impl_sse42;
extern const struct hash_impl crc32c_impl_sse42x3;
extern const struct hash_impl crc32c_impl_vpclmul256;
extern const struct hash_impl crc32c_impl_vpclmul256x3;
extern const struct hash_impl crc32c_impl_vpclmul512;
extern const struct hash_impl crc32c_impl_vpclmul512x3;
extern const struct hash_impl sha256_impl_shani;
extern const struct hash_impl sha256_impl_avx512;
extern const struct hash_impl blake2b_impl_avx2;
extern const struct hash_impl blake2b_impl_avx512vl;
extern const struct hash_impl xxhash64_impl_avx512;
#endif

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC-32C folding and stream-combining constants, x^n mod P (P the
 * Castagnoli polynomial) in the reflected 32-bit form (bit i is the
 * coefficient of x^(31-i)), as crc32c-x86.c uses them:
 *   fold[m] = { x^(F+31), x^(F-33) } for a fold distance F = 128*(m+1) bits;
 *   shift[j] = { x^(8L-33), x^(16L-33) } for 3 streams of L = 64*(j+1) bytes;
 *   hyb[n-1] = x^(8L-33) for L = 40*n (the folding + 3 streams variant).
 * Derived in crc32c-x86.c's comments; tests/unit/crypto-crc32c-fold-test.c
 * recomputes every entry by carry-less arithmetic.
 */
#ifndef BTRFS_KIT_CRYPTO_CRC32C_FOLD_H
#define BTRFS_KIT_CRYPTO_CRC32C_FOLD_H

#define CRC32C_FOLD_MAX	16
#define CRC32C_SHIFT_MAX	32

static const uint32_t crc32c_fold_k[CRC32C_FOLD_MAX][2] = {
	{ 0xf20c0dfe, 0x493c7d27 },	/* F = 128 */
	{ 0x3da6d0cb, 0xba4fc28e },	/* F = 256 */
	{ 0x1c291d04, 0xddc0152b },	/* F = 384 */
	{ 0x740eef02, 0x9e4addf8 },	/* F = 512 */
	{ 0x083a6eec, 0x39d3b296 },	/* F = 640 */
	{ 0xc49f4f67, 0x0715ce53 },	/* F = 768 */
	{ 0x2ad91c30, 0x47db8317 },	/* F = 896 */
	{ 0x6992cea2, 0x0d3b6092 },	/* F = 1024 */
	{ 0x7e908048, 0xc96cfdc0 },	/* F = 1152 */
	{ 0x1b3d8f29, 0x878a92a7 },	/* F = 1280 */
	{ 0xf1d0f55e, 0xdaece73e },	/* F = 1408 */
	{ 0xa87ab8a8, 0xab7aff2a },	/* F = 1536 */
	{ 0x8462d800, 0x2162d385 },	/* F = 1664 */
	{ 0x71d111a8, 0x83348832 },	/* F = 1792 */
	{ 0xffd852c6, 0x299847d5 },	/* F = 1920 */
	{ 0xdcb17aa4, 0xb9e02b86 },	/* F = 2048 */
};

static const uint32_t crc32c_shift_k[CRC32C_SHIFT_MAX][2] = {
	{ 0x9e4addf8, 0x0d3b6092 },	/* L = 64 */
	{ 0x0d3b6092, 0xb9e02b86 },	/* L = 128 */
	{ 0xab7aff2a, 0xd270f1a2 },	/* L = 192 */
	{ 0xb9e02b86, 0xdd7e3b0c },	/* L = 256 */
	{ 0xbac2fd7b, 0x6b749fb2 },	/* L = 320 */
	{ 0xd270f1a2, 0xd7a4825c },	/* L = 384 */
	{ 0x1b03397f, 0x68bce87a },	/* L = 448 */
	{ 0xdd7e3b0c, 0x170076fa },	/* L = 512 */
	{ 0x271d9844, 0x86d8e4d2 },	/* L = 576 */
	{ 0x6b749fb2, 0xdd66cbbb },	/* L = 640 */
	{ 0xe6fc4e6a, 0xd813b325 },	/* L = 704 */
	{ 0xd7a4825c, 0x9ef68d35 },	/* L = 768 */
	{ 0x26f6a60a, 0x363bd6b3 },	/* L = 832 */
	{ 0x68bce87a, 0xaa7c7ad5 },	/* L = 896 */
	{ 0x3771e98f, 0xf48642e9 },	/* L = 960 */
	{ 0x170076fa, 0xa51b6135 },	/* L = 1024 */
	{ 0xff0dba97, 0xcbbe4ee1 },	/* L = 1088 */
	{ 0x86d8e4d2, 0xbedc6ba1 },	/* L = 1152 */
	{ 0xb3af077a, 0x63d097e9 },	/* L = 1216 */
	{ 0xdd66cbbb, 0x22c3799f },	/* L = 1280 */
	{ 0xc9c8b782, 0x889774e1 },	/* L = 1344 */
	{ 0xd813b325, 0x8515c07f },	/* L = 1408 */
	{ 0x6d9a4957, 0xc00df280 },	/* L = 1472 */
	{ 0x9ef68d35, 0x359674f7 },	/* L = 1536 */
	{ 0x2664fd8b, 0xf8448640 },	/* L = 1600 */
	{ 0x363bd6b3, 0x5f0e0438 },	/* L = 1664 */
	{ 0x00bcf5f6, 0x7f47463d },	/* L = 1728 */
	{ 0xaa7c7ad5, 0x96a1f19b },	/* L = 1792 */
	{ 0x6d390dec, 0xb58ac6fe },	/* L = 1856 */
	{ 0xf48642e9, 0x23d5e7e5 },	/* L = 1920 */
	{ 0x9a5ede41, 0xc776b648 },	/* L = 1984 */
	{ 0xa51b6135, 0x82f89c77 },	/* L = 2048 */
};

/* hybrid[n-1] = x^(8L-33) for the three crc32 streams of L = 40*n bytes. */
#define CRC32C_HYB_MAX	64

static const uint32_t crc32c_hyb_k[CRC32C_HYB_MAX] = {
	0x3da6d0cb, 0x39d3b296, 0x2ad91c30, 0x878a92a7, 0xa87ab8a8, 0x299847d5,
	0xf37c5aee, 0xbac2fd7b, 0xa00457f7, 0xc619809d, 0xe0e9f351, 0xb3e32c28,
	0xbd6f81f8, 0xc7a68855, 0xa3c6f37a, 0x6b749fb2, 0xe417f38a, 0x8227bb8a,
	0x61ff0e01, 0x0167d312, 0xd8d26619, 0x49c3cc9c, 0xdde8f5b9, 0x3771e98f,
	0xdf99fc11, 0x444dd413, 0x29f268b4, 0xf872e54c, 0x63ae91e6, 0xa90fd27a,
	0xccc4a1b9, 0xdd66cbbb, 0xa1962329, 0x3f70cc6f, 0x88eb3c07, 0x2342001e,
	0x6ef22b23, 0x995a5724, 0x8ec52396, 0x2664fd8b, 0x79afdf1c, 0x135c83fd,
	0xe0a22e29, 0x17f27698, 0xde8a97f8, 0x59f229bc, 0x72cbfcdb, 0xf48642e9,
	0x72675ce8, 0xa563905d, 0xae1175c2, 0x80f2886b, 0xd2fd8e3c, 0x8e1450f7,
	0x650ef6c5, 0xdefba41c, 0x9fd51b88, 0xeca08ffe, 0xe9bbf648, 0xd6c3a807,
	0xea1cb6e7, 0x13184649, 0x8b9be230, 0x22c3799f,
};

#endif

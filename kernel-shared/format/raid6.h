/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RAID6 parity over GF(2^8), the field btrfs and Linux md use: polynomial
 * x^8 + x^4 + x^3 + x^2 + 1 (0x11d), generator g = 2.  For data units
 * D_0 .. D_{n-1} of one stripe row, byte by byte:
 *
 *   P = D_0 ^ D_1 ^ ... ^ D_{n-1}
 *   Q = g^0 * D_0 ^ g^1 * D_1 ^ ... ^ g^{n-1} * D_{n-1}
 *
 * Any two units of the n + 2 can be rebuilt from the others (H. P. Anvin,
 * "The mathematics of RAID-6"):
 *   two data units a < b:  Pxy = P ^ P', Qxy = Q ^ Q' (P', Q' over the
 *       surviving data), D_a = (g^(b-a) * Pxy ^ g^(-a) * Qxy) / (g^(b-a) ^ 1),
 *       D_b = D_a ^ Pxy;
 *   data a and P:  D_a = (Q ^ Q') * g^(-a), then P again;
 *   data a and Q:  D_a from P, then Q again;
 *   P and Q:  both recomputed.
 * No tables, no state: multiplication is shift-and-add (rebuild is rare).
 */
#ifndef BTRFS_KIT_RAID6_H
#define BTRFS_KIT_RAID6_H

#include <stddef.h>
#include "kernel-shared/format/kerncompat.h"

u8 raid6_gf_mul(u8 a, u8 b);
/* g^n for any n >= 0 (g^255 = 1). */
u8 raid6_gf_pow2(unsigned int n);
/* a^-1 (a != 0; 0 gives 0). */
u8 raid6_gf_inv(u8 a);

/* P (and Q when q is not NULL) of ndata units of len bytes (units[0..ndata-1]). */
void raid6_gen_pq(int ndata, size_t len, const u8 *const *units, u8 *p, u8 *q);

/*
 * units[0..ndata-1] data, units[ndata] P, units[ndata + 1] Q, len bytes
 * each.  Rebuild units fail_a and fail_b in place (fail_b = -1 for one
 * unit; any order).  Returns 0, or -EINVAL for bad indices.
 */
int raid6_recover(int ndata, size_t len, u8 *const *units, int fail_a, int fail_b);

/*
 * Rebuild the lost units of one RAID5/6 stripe row in place: the read
 * path's rebuild of a mirror and the writer's read-modify-write both.
 * units[0 .. ndata-1] data, units[ndata] P, units[ndata + 1] Q (NULL for
 * RAID5; the array has ndata + 2 entries), len bytes each; lost[i] says
 * unit i could not be read (nparity 1 on a RAID6 row: from P alone, Q
 * unused).  0 when every lost data unit was rebuilt (lost parity need not
 * be: the caller recomputes it), -EIO when more units are lost than the
 * parity can make up for.
 */
int raid56_rebuild_units(int ndata, int nparity, size_t len, u8 *const *units, const bool *lost);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Balance filters: the profile table, parsing "usage=10..50,devid=2,..."
 * into the ioctl's struct btrfs_balance_args, and deciding which chunks a
 * set of filters selects, the way the kernel's restriper does.  Shared by
 * the online balance (cmds/balance-start.c, through the kernel) and the
 * offline one to come, which will apply the same selection itself.
 *
 * Parsing reports what is wrong with error() (btrfs-progs wording) and
 * returns -EINVAL; nothing here exits.
 */
#ifndef BTRFS_KIT_BALANCE_ARGS_H
#define BTRFS_KIT_BALANCE_ARGS_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/ioctl.h"
#include "kernel-shared/format/profiles.h"

/* "raid1|dup" into extended profile bits; 0 or -EINVAL after an error(). */
int btrfs_balance_parse_profiles(const char *s, u64 *profiles);
/*
 * Parse one -d/-m/-s filter string ("usage=5..50,devid=2,convert=raid1,soft")
 * into args (which the caller zeroed); an empty or NULL string sets nothing.
 * Returns 0 or -EINVAL after an error() naming the filter.
 */
int btrfs_balance_parse_filters(const char *filters, struct btrfs_balance_args *args);
/* The i-th filter name, with "=" when it takes a value ("usage=", "soft"), NULL past the last. */
const char *btrfs_balance_filter_name_at(size_t i, char buf[64]);
/*
 * "S..E", "S..", "..E" into [start, end]; missing ends are 0 and all ones.
 * u64 ranges (drange, vrange) must have start < end, u32 ones start <= end.
 */
int btrfs_balance_parse_range(const char *s, u64 *start, u64 *end);
int btrfs_balance_parse_range_u32(const char *s, u32 *start, u32 *end);

/*
 * Checks across filters of one type that btrfs-progs makes before asking
 * the kernel: drange needs devid, soft needs convert.  0 or -EINVAL after
 * an error().
 */
int btrfs_balance_check_args(const struct btrfs_balance_args *args);

/* A chunk as the filters see it. */
struct btrfs_balance_chunk {
	u64 logical;                    /* chunk start (key offset of the chunk item) */
	u64 length;
	u64 type;                       /* BTRFS_BLOCK_GROUP_* type and profile */
	u64 used;                       /* block group used bytes */
	u32 num_stripes;
	struct btrfs_balance_stripe {
		u64 devid;
		u64 physical;
	} *stripes;                     /* num_stripes entries */
};

/*
 * The selection state of one balance: a copy of the request whose limit
 * counters are consumed as chunks are selected, as the kernel does.  Chunks
 * must be offered in the kernel's order (descending logical address).
 */
struct btrfs_balance_selector {
	u64 flags;                      /* BTRFS_BALANCE_* type bits */
	struct btrfs_balance_args data, meta, sys;
};

void btrfs_balance_selector_init(struct btrfs_balance_selector *sel,
				 const struct btrfs_ioctl_balance_args *req);
/* Which args of sel apply to a chunk of this type (data first for mixed). */
struct btrfs_balance_args *btrfs_balance_args_for(struct btrfs_balance_selector *sel, u64 type);
/* Would the kernel relocate this chunk?  Consumes a limit count when it would. */
bool btrfs_balance_select_chunk(struct btrfs_balance_selector *sel, const struct btrfs_balance_chunk *c);
/*
 * Select from a whole chunk list (any order) as one balance run would:
 * offered in descending logical order, then a type with fewer selected
 * chunks than its limit_min loses them all.  selected[i] answers for
 * chunks[i]; returns how many are selected.
 */
size_t btrfs_balance_select_all(const struct btrfs_ioctl_balance_args *req,
				const struct btrfs_balance_chunk *chunks, size_t nr, bool *selected);

/*
 * Would converting metadata (or system) chunks of profile `from` to `to`
 * lose redundancy (fewer tolerated device failures)?
 */
bool btrfs_balance_reduces_redundancy(u64 from, u64 to);

#endif

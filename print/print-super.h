/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of btrfs-progs' dump-super: one superblock copy, and the chunk
 * item body that dump-tree prints the same way.
 */
#ifndef BTRFS_KIT_PRINT_SUPER_H
#define BTRFS_KIT_PRINT_SUPER_H

#include <stdio.h>
#include "lib/format/kerncompat.h"
#include "lib/format/format.h"
#include "lib/format/flags-names.h"

/*
 * Every field of sb in dump-super's layout; full adds sys_chunk_array and
 * the backup roots.  Problems in sys_chunk_array are reported on stderr
 * and printing goes on with the next section.
 */
void btrfs_print_superblock(FILE *out, const struct btrfs_super_block *sb, bool full);

/*
 * The body of a chunk item (the lines after "item N key (...)"), as
 * dump-super and dump-tree print it:
 *
 *		length L owner O stripe_len S type SYSTEM|DUP
 *		io_align A io_width W sector_size S
 *		num_stripes N sub_stripes M
 *			stripe 0 devid D offset P
 *			dev_uuid U
 *
 * len is the item size: only stripes that fit in it are printed, nothing
 * when the fixed part does not fit.
 */
void btrfs_print_chunk_item(FILE *out, const struct btrfs_chunk *chunk, u32 len);

/*
 * dump-super's flag list under a "name\t\t0x..." line:
 * "\t\t\t( A |\n\t\t\t  B |\n\t\t\t  unknown flag: 0x... )\n"; nothing for 0.
 */
void btrfs_print_readable_flags(FILE *out, u64 flags, const struct btrfs_flag_table *t);

#endif

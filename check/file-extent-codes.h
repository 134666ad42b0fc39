/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The codes of a file extent item whose own are damaged (check --repair's
 * leaf mend): the compression its data decompresses with.
 *
 * Uncompressed data is stored at its own length: an inline extent's data
 * fills the item past the header with ram_bytes bytes, a regular extent's
 * disk_num_bytes is its ram_bytes.  The kernel keeps compressed data only
 * when it is shorter, so other lengths mean compressed data, and the one
 * algorithm under which the stored bytes decompress to ram_bytes is the
 * extent's (a regular extent's ram_bytes is rounded up to the sector: the
 * data of a file's last extent may be shorter by less than one).  Nothing
 * is told when several or none do.
 *
 * A compressed inline extent's ram_bytes is the length its data
 * decompresses to: the kernel compresses the whole inline data, at most
 * one sector, into the item; a compressed regular extent's that length
 * rounded up to the sector.
 */
#ifndef BTRFS_KIT_CHECK_FILE_EXTENT_CODES_H
#define BTRFS_KIT_CHECK_FILE_EXTENT_CODES_H

#include "kernel-shared/format/kerncompat.h"

struct btrfs_fs_info;
struct btrfs_file_extent_item;

/*
 * The compression (BTRFS_COMPRESS_*) of the extent fi (an item of size
 * bytes, of the type it names); a regular extent's disk_bytenr and
 * disk_num_bytes must already be known to be a data extent.  -1 when it
 * cannot be told.
 */
int file_extent_compression_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi,
				 u32 size);

/*
 * The bytes the compressed inline extent fi (an item of size bytes)
 * decompresses to under its own compression: 1 to one sector, or -1 when
 * its data does not decompress or would be longer.
 */
int file_extent_inline_ram_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi, u32 size);

/*
 * The ram_bytes of the compressed regular extent fi: the length its data
 * (disk_num_bytes at disk_bytenr, at most 128 KiB, first mirror)
 * decompresses to under its own compression, rounded up to the sector (a
 * file's last extent may hold less); 0 when it does not decompress.
 */
u64 file_extent_ram_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi);

#endif

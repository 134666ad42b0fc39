// SPDX-License-Identifier: GPL-2.0
/* The compression and inline ram_bytes of a file extent, told from its data: see file-extent-codes.h. */
#include <stdlib.h>
#include "check/file-extent-codes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/compress.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/disk-io.h"

int file_extent_compression_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi,
				 u32 size)
{
	u32 ss = btrfs_fs_geometry(fs)->sectorsize, len;
	u64 ram = btrfs_file_extent_ram_bytes(fi);
	const u8 *in;
	u8 *stored = NULL, *out;
	int told = -1, fits = 0;
	bool inline_data = btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE;
	char msg[256];

	if (inline_data) {
		in = btrfs_file_extent_inline_start(fi);
		len = btrfs_file_extent_inline_item_len(size);
		/* an inline extent holds at most one sector */
		if (ram > ss)
			return -1;
	} else {
		if (btrfs_file_extent_disk_num_bytes(fi) > BTRFS_MAX_UNCOMPRESSED)
			return btrfs_file_extent_disk_num_bytes(fi) == ram ? BTRFS_COMPRESS_NONE : -1;
		len = (u32)btrfs_file_extent_disk_num_bytes(fi);
		if (len != ram && ram > BTRFS_MAX_UNCOMPRESSED)
			return -1;
		in = NULL;
	}
	if (len == ram)
		return BTRFS_COMPRESS_NONE;
	if (!len || len > ram)
		return -1;
	if (!in) {
		stored = malloc(len);
		if (!stored || btrfs_read_data_mirror(fs, btrfs_file_extent_disk_bytenr(fi), 1, stored, len,
						      msg, sizeof(msg)) < 0) {
			free(stored);
			return -1;
		}
		in = stored;
	}
	out = malloc(ram);
	for (int type = BTRFS_COMPRESS_ZLIB; out && type < BTRFS_NR_COMPRESS_TYPES; type++) {
		int got = btrfs_compress_supported(type) ?
			  btrfs_decompress_buf(type, ss, in, len, out, (u32)ram) : -1;

		if (got > 0 && (got == (int)ram || (!inline_data && round_up((u64)got, (u64)ss) == ram)) &&
		    !fits++)
			told = type;
	}
	free(out);
	free(stored);
	return fits == 1 ? told : -1;
}

int file_extent_inline_ram_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi, u32 size)
{
	u32 ss = btrfs_fs_geometry(fs)->sectorsize;
	int comp = btrfs_file_extent_compression(fi), got;
	u8 *out;

	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_INLINE || comp == BTRFS_COMPRESS_NONE ||
	    comp >= BTRFS_NR_COMPRESS_TYPES || !btrfs_compress_supported(comp))
		return -1;
	/* one byte more than a sector: longer data is seen, not cut */
	out = malloc(ss + 1);
	if (!out)
		return -1;
	got = btrfs_decompress_buf(comp, ss, btrfs_file_extent_inline_start(fi), btrfs_file_extent_inline_item_len(size),
				   out, ss + 1);
	free(out);
	return got > 0 && (u32)got <= ss ? got : -1;
}

u64 file_extent_ram_told(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi)
{
	u32 ss = btrfs_fs_geometry(fs)->sectorsize;
	u64 len = btrfs_file_extent_disk_num_bytes(fi);
	int comp = btrfs_file_extent_compression(fi), got = -1;
	u8 *stored, *out;
	char msg[256];

	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE || comp == BTRFS_COMPRESS_NONE ||
	    comp >= BTRFS_NR_COMPRESS_TYPES || !btrfs_compress_supported(comp) || !len ||
	    len > BTRFS_MAX_UNCOMPRESSED)
		return 0;
	stored = malloc(len);
	/* one byte more than the most a compressed extent holds: longer data is seen, not cut */
	out = malloc(BTRFS_MAX_UNCOMPRESSED + 1);
	if (stored && out &&
	    btrfs_read_data_mirror(fs, btrfs_file_extent_disk_bytenr(fi), 1, stored, len, msg, sizeof(msg)) >= 0)
		got = btrfs_decompress_buf(comp, ss, stored, (u32)len, out, BTRFS_MAX_UNCOMPRESSED + 1);
	free(out);
	free(stored);
	return got > 0 && got <= BTRFS_MAX_UNCOMPRESSED ? round_up((u64)got, (u64)ss) : 0;
}

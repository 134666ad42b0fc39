/* SPDX-License-Identifier: GPL-2.0 */
/* btrfs image: metadata dumps in the btrfs-image format (lib/format/metadump.h). */
#ifndef BTRFS_KIT_IMAGE_H
#define BTRFS_KIT_IMAGE_H

/*
 * Restore the dump at source ("-" = stdin) onto the single device or file
 * target.  The whole dump is read and validated (clusters, items, zlib
 * streams, superblock, every range inside a chunk) before the target is
 * opened, then read again to write; a dump that is not a regular file (a
 * pipe, stdin) is first copied to an unlinked temporary file in $TMPDIR.
 * Memory: one item of the dump, not the dump.  Returns 0 or a negative errno after an error naming the cluster
 * and item; -EOPNOTSUPP for what this version does not restore yet
 * (dumps of multi-device filesystems).
 */
int image_restore(const char *source, const char *target);

#endif

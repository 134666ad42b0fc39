/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btrfs image -s / -ss: the names of a dump replaced (image/sanitize.c;
 * what is replaced and what is kept: Documentation/btrfs-image.rst).
 */
#ifndef BTRFS_KIT_IMAGE_SANITIZE_H
#define BTRFS_KIT_IMAGE_SANITIZE_H

#include "kernel-shared/format/kerncompat.h"
#include "kernel-shared/format/extent-buffer.h"

struct btrfs_super_block;
struct btrfs_csum;
struct image_sanitizer;

/* A sanitizer with a fresh random key (one per dump: the same name gets the same new name in it). */
int image_sanitizer_new(struct image_sanitizer **out);
void image_sanitizer_free(struct image_sanitizer *s);

/*
 * Replace every name in the leaf eb (a copy: the caller re-checksums it):
 * dir items, dir indexes, xattr names (values zeroed), inode refs and
 * extrefs, root refs and backrefs; inline file data zeroed (symlink
 * targets).  Nodes are left alone.  Names of 1 to 4 bytes are kept.  Item
 * sizes and keys do not change.  Returns 0, or -EEXIST after an error
 * naming the block and slot when two names of one dir item would become the
 * same name.
 */
int image_sanitize_leaf(struct image_sanitizer *s, struct extent_buffer *eb);

/* The label of a superblock copy zeroed and its checksum set again. */
int image_sanitize_super(struct btrfs_super_block *sb, const struct btrfs_csum *csum);

/* Names left as they were (1 to 4 bytes long, or no replacement found), for the closing note. */
u64 image_sanitizer_kept(const struct image_sanitizer *s);

#endif

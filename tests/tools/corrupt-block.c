// SPDX-License-Identifier: GPL-2.0
/*
 * Damage a filesystem on purpose, one tree block at a time, for the check
 * and repair tests (btrfs-progs has btrfs-corrupt-block for the same job).
 * Unlike tree-edit (which goes through the write engine and so keeps every
 * block valid), this edits a block's bytes and writes them back raw, with
 * the checksum recomputed, so the damage reaches the tree-checker and check.
 *
 *   corrupt-block [OPTIONS] DEVICE[,DEVICE...] COMMAND ARGS...
 *
 * Commands (TREE a tree id, KEY "OBJECTID,TYPE,OFFSET" with TYPE a number or
 * a dump-tree name such as INODE_ITEM; the item must exist):
 *   field  TREE KEY FIELD VALUE   set FIELD of the item at KEY
 *   header TREE KEY FIELD VALUE   set header FIELD of the leaf holding KEY
 *                                 (--level L: of the node at level L above it)
 *   block  BYTENR FIELD VALUE     set header FIELD of the block at BYTENR
 *   delete TREE KEY               remove the item (the leaf stays well formed)
 *   dup    TREE KEY               insert a copy of the item right after it
 *   swap   TREE KEY KEY2          exchange two items of one leaf (order broken)
 *   shift  TREE KEY DELTA         add DELTA to the item's data offset
 *   move   TREE KEY DELTA         move the data of the item and of every item
 *                                 after it by DELTA bytes (offsets follow:
 *                                 DELTA < 0 leaves a gap before the item's end)
 *   list                          print every item of every tree: TREE KEY SIZE STRUCT
 *                                 LEAF LEVEL (STRUCT the structure its FIELD names
 *                                 default to, or -; LEAF the bytenr of the leaf
 *                                 holding it, LEVEL its tree's height: 0 when that
 *                                 leaf is the tree's root block)
 *   fields [STRUCT]               print the field table: STRUCT MEMBER BITS OFFSET
 *   super  FIELD VALUE            set a superblock field of the first device
 *                                 (super_block members, dev_item.MEMBER, uN@N;
 *                                 every copy that fits, or --mirror N: copy N)
 *
 * FIELD names a field of accessors.def: "MEMBER" of the structure the item's
 * key type holds (nlink for an INODE_ITEM), or "STRUCT.MEMBER" (inode_item.nlink,
 * extent_inline_ref.type), optionally "@N" for a structure at byte N of the
 * item's data (extent_inline_ref.offset@24, stripe.devid@80), or "u8@N" ..
 * "u64@N" for raw bytes.  "item.offset", "item.size", "key.objectid",
 * "key.type", "key.offset" are the item's own entry in the leaf.  Header
 * fields: bytenr, flags, generation, owner, nritems, level.  VALUE is a
 * number, or +N / -N to add to the current value.
 *
 * Options: --mirror N  write only copy N (1-based; default every copy),
 *          --no-csum   leave the checksum as it was (a checksum error),
 *          --level L   (header) the node L levels above the leaf,
 *          --key KEY   the key of a keyed csum type (the bytes of KEY),
 *          --forge     authsum types: recompute only the xxhash64 part, the
 *                      keyed part left as it was (what someone without the
 *                      key can do); super too.
 * Prints one line per copy written.  Exit 0, 1 on any error (nothing
 * written when the edit cannot be made).  RAID5/6 chunks are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "print/print-tree.h"

/* The field table, made from accessors.def: names, widths, offsets. */
struct field {
	const char *tag;      /* structure, e.g. "inode_item" */
	const char *member;   /* e.g. "nlink" */
	unsigned int bits;
	unsigned int offset;
};

static const struct field fields[] = {
#define BTRFS_FIELD(tag, name, member, bits, off) { #tag, #member, bits, off },
#include "kernel-shared/format/accessors.def"
#undef BTRFS_FIELD
};

/* The structure an item of each key type starts with (keyed by type). */
static const char *item_struct(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY: return "inode_item";
	case BTRFS_INODE_REF_KEY: return "inode_ref";
	case BTRFS_INODE_EXTREF_KEY: return "inode_extref";
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY: return "dir_item";
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY: return "dir_log_item";
	case BTRFS_EXTENT_DATA_KEY: return "file_extent_item";
	case BTRFS_ROOT_ITEM_KEY: return "root_item";
	case BTRFS_ROOT_BACKREF_KEY:
	case BTRFS_ROOT_REF_KEY: return "root_ref";
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY: return "extent_item";
	case BTRFS_EXTENT_DATA_REF_KEY: return "extent_data_ref";
	case BTRFS_SHARED_DATA_REF_KEY: return "shared_data_ref";
	case BTRFS_BLOCK_GROUP_ITEM_KEY: return "block_group_item";
	case BTRFS_FREE_SPACE_INFO_KEY: return "free_space_info";
	case BTRFS_DEV_EXTENT_KEY: return "dev_extent";
	case BTRFS_DEV_ITEM_KEY: return "dev_item";
	case BTRFS_CHUNK_ITEM_KEY: return "chunk";
	case BTRFS_QGROUP_STATUS_KEY: return "qgroup_status_item";
	case BTRFS_QGROUP_INFO_KEY: return "qgroup_info_item";
	case BTRFS_QGROUP_LIMIT_KEY: return "qgroup_limit_item";
	default: return NULL;
	}
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	*v = strtoull(s, &end, 0);
	return *end ? -EINVAL : 0;
}

/* A key type by number or by the name dump-tree prints. */
static int parse_key_type(const char *s, u8 *type)
{
	u64 v;

	if (!parse_u64(s, &v) && v <= 255) {
		*type = (u8)v;
		return 0;
	}
	for (int t = 0; t < 256; t++) {
		char name[64] = "";
		FILE *f = fmemopen(name, sizeof(name) - 1, "w");

		if (!f)
			return -ENOMEM;
		btrfs_print_key_type(f, (u8)t);
		fclose(f);
		if (!strcmp(name, s)) {
			*type = (u8)t;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_key(const char *s, struct btrfs_key *key)
{
	char buf[128], *type, *offset;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	type = strchr(buf, ',');
	offset = type ? strchr(type + 1, ',') : NULL;
	if (!offset)
		return -EINVAL;
	*type++ = 0;
	*offset++ = 0;
	if (parse_u64(buf, &key->objectid) || parse_key_type(type, &key->type) ||
	    parse_u64(offset, &key->offset))
		return -EINVAL;
	return 0;
}

/* resolve_field()'s slot for a superblock edit (the header is -1) */
#define SUPER_SLOT -2

/* Where a named field lives: byte offset in the block and width. */
struct place {
	u32 at;
	unsigned int bits;
	char name[96];
};

/*
 * Resolve spec for the item at slot of leaf (slot < 0: the block header).
 * Item-entry fields (item.*, key.*) are in the leaf's item array, header
 * fields at the block start, everything else in the item's data.
 */
static int resolve_field(const struct extent_buffer *eb, int slot, u8 key_type, const char *spec,
			 struct place *out)
{
	char buf[96], *at_sign, *dot, *member;
	const char *tag;
	u64 base = 0, extra = 0;
	bool has_extra = false;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	at_sign = strchr(buf, '@');
	if (at_sign) {
		*at_sign = 0;
		if (parse_u64(at_sign + 1, &extra))
			return -EINVAL;
		has_extra = true;
	}
	dot = strchr(buf, '.');
	if (dot) {
		*dot = 0;
		tag = buf;
		member = dot + 1;
	} else {
		member = buf;
		tag = slot == SUPER_SLOT ? "super_block" : slot < 0 ? "header" : item_struct(key_type);
	}
	snprintf(out->name, sizeof(out->name), "%s", spec);
	if (!dot && has_extra &&
	    (!strcmp(buf, "u8") || !strcmp(buf, "u16") || !strcmp(buf, "u32") || !strcmp(buf, "u64"))) {
		out->bits = (unsigned int)atoi(buf + 1);
		tag = NULL;
	} else {
		const struct field *f = NULL;

		if (!tag) {
			error("no structure known for key type %u: name it (STRUCT.MEMBER) or use u64@N", key_type);
			return -EINVAL;
		}
		if (!strcmp(tag, "key"))
			tag = "disk_key";
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strcmp(fields[i].tag, tag) && !strcmp(fields[i].member, member))
				f = &fields[i];
		if (!f) {
			error("no field '%s' in struct btrfs_%s (see kernel-shared/format/accessors.def)", member, tag);
			return -EINVAL;
		}
		out->bits = f->bits;
		extra += f->offset;
	}
	if (slot == SUPER_SLOT) {
		/* the superblock's own fields, or its embedded dev_item */
		base = tag && !strcmp(tag, "dev_item") ? offsetof(struct btrfs_super_block, dev_item) : 0;
		if (tag && strcmp(tag, "dev_item") && strcmp(tag, "super_block")) {
			error("a superblock edit takes super_block, dev_item or uN@N fields");
			return -EINVAL;
		}
	} else if (tag && !strcmp(tag, "header")) {
		base = 0;
	} else if (tag && (!strcmp(tag, "item") || !strcmp(tag, "disk_key"))) {
		if (slot < 0)
			return -EINVAL;
		base = (u64)((const u8 *)btrfs_leaf_item(eb, slot) - eb->data);
	} else {
		if (slot < 0) {
			error("a header edit takes a header field (bytenr, flags, generation, owner, nritems, level)");
			return -EINVAL;
		}
		base = sizeof(struct btrfs_header) + btrfs_leaf_item_offset(eb, slot);
		if (extra + out->bits / 8 > btrfs_leaf_item_size(eb, slot)) {
			error("field %s (bytes %llu..%llu) lies beyond the item's %u bytes", spec, extra,
			      extra + out->bits / 8, btrfs_leaf_item_size(eb, slot));
			return -EINVAL;
		}
	}
	if (base + extra + out->bits / 8 > eb->len)
		return -EINVAL;
	out->at = (u32)(base + extra);
	return 0;
}

static u64 get_le(const u8 *p, unsigned int bits)
{
	switch (bits) {
	case 8: return p[0];
	case 16: return get_unaligned_le16(p);
	case 32: return get_unaligned_le32(p);
	default: return get_unaligned_le64(p);
	}
}

static void put_le(u8 *p, unsigned int bits, u64 v)
{
	switch (bits) {
	case 8: p[0] = (u8)v; break;
	case 16: put_unaligned_le16((u16)v, p); break;
	case 32: put_unaligned_le32((u32)v, p); break;
	default: put_unaligned_le64(v, p); break;
	}
}

static int set_place(struct extent_buffer *eb, const struct place *pl, const char *value)
{
	u8 *p = eb->data + pl->at;
	u64 old = get_le(p, pl->bits), v;

	if (value[0] == '+' || value[0] == '-') {
		if (parse_u64(value + 1, &v))
			return -EINVAL;
		v = value[0] == '+' ? old + v : old - v;
	} else if (parse_u64(value, &v)) {
		return -EINVAL;
	}
	put_le(p, pl->bits, v);
	printf("%s: %llu -> %llu\n", pl->name, old, get_le(p, pl->bits));
	return 0;
}

/* ---- raw leaf surgery: the item array and data area by hand ---- */

static u32 leaf_data_end(const struct extent_buffer *eb)
{
	u32 n = btrfs_eb_nritems(eb);

	return n ? btrfs_leaf_item_offset(eb, (int)n - 1) : BTRFS_LEAF_DATA_SIZE(eb->len);
}

/* Remove item slot, closing the gap in the data area (as a delete does). */
static void leaf_delete(struct extent_buffer *eb, int slot)
{
	u32 n = btrfs_eb_nritems(eb), size = btrfs_leaf_item_size(eb, slot);
	u32 off = btrfs_leaf_item_offset(eb, slot), end = leaf_data_end(eb);
	u8 *data = eb->data + sizeof(struct btrfs_header);

	memmove(data + end + size, data + end, off - end);
	for (u32 i = (u32)slot + 1; i < n; i++) {
		struct btrfs_item *it = btrfs_leaf_item(eb, (int)i);

		btrfs_set_item_offset(it, btrfs_item_offset(it) + size);
	}
	memmove(btrfs_leaf_item(eb, slot), btrfs_leaf_item(eb, slot + 1),
		(n - (u32)slot - 1) * sizeof(struct btrfs_item));
	btrfs_set_header_nritems(btrfs_header(eb), n - 1);
}

/* Insert a copy of item slot at slot + 1 (same key, same data). */
static int leaf_duplicate(struct extent_buffer *eb, int slot)
{
	u32 n = btrfs_eb_nritems(eb), size = btrfs_leaf_item_size(eb, slot);
	u32 off = btrfs_leaf_item_offset(eb, slot), end = leaf_data_end(eb);
	u8 *data = eb->data + sizeof(struct btrfs_header);
	struct btrfs_item copy = *btrfs_leaf_item(eb, slot);

	if ((n + 1) * sizeof(struct btrfs_item) + size > end) {
		error("the leaf has no room for a copy of a %u-byte item", size);
		return -ENOSPC;
	}
	/* data of slots after slot moves down by size; the copy goes below slot's */
	memmove(data + end - size, data + end, off - end);
	for (u32 i = (u32)slot + 1; i < n; i++) {
		struct btrfs_item *it = btrfs_leaf_item(eb, (int)i);

		btrfs_set_item_offset(it, btrfs_item_offset(it) - size);
	}
	memmove(btrfs_leaf_item(eb, slot + 2), btrfs_leaf_item(eb, slot + 1),
		(n - (u32)slot - 1) * sizeof(struct btrfs_item));
	btrfs_set_item_offset(&copy, off - size);
	*btrfs_leaf_item(eb, slot + 1) = copy;
	memcpy(data + off - size, data + off, size);
	btrfs_set_header_nritems(btrfs_header(eb), n + 1);
	return 0;
}

/* ---- finding and writing blocks ---- */

struct target {
	u64 bytenr;
	int slot;      /* item slot in the leaf, -1 for a header edit */
	u8 key_type;
};

/* The block holding key in tree at level (0 = its leaf) and the slot there. */
static int find_block(struct btrfs_fs_info *fs, u64 tree_id, const struct btrfs_key *key, int level,
		      struct target *out)
{
	struct btrfs_tree_ref tree;
	struct btrfs_path path;
	int ret;

	ret = btrfs_find_tree_root(fs, tree_id, &tree);
	if (ret) {
		error("tree %llu not found", tree_id);
		return ret < 0 ? ret : -ENOENT;
	}
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &tree, key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret) {
		error("item (%llu %u %llu) not found in tree %llu", key->objectid, key->type, key->offset,
		      tree_id);
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (level < 0 || level >= BTRFS_MAX_LEVEL || !path.nodes[level]) {
		error("no block at level %d above the item", level);
		btrfs_release_path(&path);
		return -EINVAL;
	}
	out->bytenr = path.nodes[level]->start;
	out->slot = path.slots[level];
	out->key_type = key->type;
	btrfs_release_path(&path);
	return 0;
}

typedef int (*edit_fn)(struct extent_buffer *eb, const struct target *tg, char **args);

/*
 * Read the block (verified when possible, else the raw bytes of the copy
 * named or copy 1), apply edit, recompute the checksum unless told not to,
 * and write the copies (all, or the one named) through the library's copy
 * writer, which maps every copy before it writes one.
 */
static bool forge;

static int edit_block(struct btrfs_fs_info *fs, const struct target *tg, int mirror, bool csum,
		      edit_fn edit, char **args)
{
	struct extent_buffer *eb = NULL;
	int ret;

	if (btrfs_read_tree_block(fs, tg->bytenr, NULL, &eb) &&
	    btrfs_read_tree_block_mirror(fs, tg->bytenr, mirror ? mirror : 1, &eb)) {
		error("cannot read block %llu", tg->bytenr);
		return -EIO;
	}
	ret = edit(eb, tg, args);
	if (ret)
		goto out;
	if (csum) {
		u8 sum[BTRFS_CSUM_SIZE];

		btrfs_csum_tree_block(fs, eb, sum);
		if (forge)
			memcpy(eb->data + BTRFS_AUTHSUM_KEYED_BYTES, sum + BTRFS_AUTHSUM_KEYED_BYTES,
			       BTRFS_CSUM_SIZE - BTRFS_AUTHSUM_KEYED_BYTES);
		else
			memcpy(eb->data, sum, BTRFS_CSUM_SIZE);
	}
	ret = btrfs_write_tree_block_copies(fs, eb, mirror);
	if (!ret)
		printf("wrote block %llu %s%d\n", tg->bytenr, mirror ? "copy " : "every copy of ",
		       mirror ? mirror : btrfs_num_mirrors(fs, tg->bytenr));
out:
	free_extent_buffer(eb);
	return ret;
}

static int edit_field(struct extent_buffer *eb, const struct target *tg, char **args)
{
	struct place pl;

	if (tg->slot >= (int)btrfs_eb_nritems(eb) && tg->slot >= 0)
		return -EINVAL;
	if (resolve_field(eb, tg->slot, tg->key_type, args[0], &pl))
		return -EINVAL;
	return set_place(eb, &pl, args[1]);
}

static int edit_delete(struct extent_buffer *eb, const struct target *tg, char **args)
{
	leaf_delete(eb, tg->slot);
	printf("deleted slot %d\n", tg->slot);
	return 0;
}

static int edit_dup(struct extent_buffer *eb, const struct target *tg, char **args)
{
	int ret = leaf_duplicate(eb, tg->slot);

	if (!ret)
		printf("duplicated slot %d\n", tg->slot);
	return ret;
}

static int edit_swap(struct extent_buffer *eb, const struct target *tg, char **args)
{
	struct btrfs_key k2, k;
	struct btrfs_item tmp;
	u32 n = btrfs_eb_nritems(eb);
	int other = -1;

	if (parse_key(args[0], &k2))
		return -EINVAL;
	for (u32 i = 0; i < n; i++) {
		btrfs_item_key_to_cpu(eb, &k, (int)i);
		if (!btrfs_comp_cpu_keys(&k, &k2))
			other = (int)i;
	}
	if (other < 0) {
		error("item (%llu %u %llu) is not in the leaf of the first item", k2.objectid, k2.type,
		      k2.offset);
		return -ENOENT;
	}
	tmp = *btrfs_leaf_item(eb, tg->slot);
	*btrfs_leaf_item(eb, tg->slot) = *btrfs_leaf_item(eb, other);
	*btrfs_leaf_item(eb, other) = tmp;
	printf("swapped slots %d and %d\n", tg->slot, other);
	return 0;
}

static int edit_shift(struct extent_buffer *eb, const struct target *tg, char **args)
{
	struct place pl;

	if (resolve_field(eb, tg->slot, tg->key_type, "item.offset", &pl))
		return -EINVAL;
	return set_place(eb, &pl, args[0]);
}

static int edit_move(struct extent_buffer *eb, const struct target *tg, char **args)
{
	u32 nr = btrfs_eb_nritems(eb), first = btrfs_leaf_item_offset(eb, (int)nr - 1);
	u32 end = btrfs_leaf_item_offset(eb, tg->slot) + btrfs_leaf_item_size(eb, tg->slot);
	long long delta = strtoll(args[0], NULL, 0);

	if (first + delta < (long long)(nr * sizeof(struct btrfs_item)) || end + delta > btrfs_leaf_data_size(eb)) {
		error("moving the data of slots %d..%u by %lld leaves the leaf", tg->slot, nr - 1, delta);
		return -EINVAL;
	}
	memmove(btrfs_leaf_data(eb) + first + delta, btrfs_leaf_data(eb) + first, end - first);
	for (u32 i = (u32)tg->slot; i < nr; i++)
		btrfs_set_leaf_item_offset(eb, (int)i, (u32)(btrfs_leaf_item_offset(eb, (int)i) + delta));
	printf("moved the data of slots %d..%u by %lld\n", tg->slot, nr - 1, delta);
	return 0;
}

/* --forge on the superblock: recompute only the xxhash64 part of an authsum checksum. */
static int forge_super_secondary(struct btrfs_super_block *sb)
{
	struct hash_ctx xxh;
	int ret;

	if (!btrfs_csum_type_authsum(btrfs_super_csum_type(sb)))
		return -EINVAL;
	ret = hash_ctx_init(&xxh, HASH_XXHASH64, NULL, 0);
	if (ret < 0)
		return ret;
	ret = hash_digest(&xxh, (const u8 *)sb + BTRFS_CSUM_SIZE,
			  BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, sb->csum + BTRFS_AUTHSUM_KEYED_BYTES);
	hash_ctx_release(&xxh);
	return ret;
}

/*
 * The superblock: edit the copy the device holds at 64 KiB, then write it to
 * every copy that fits the device (or copy mirror), checksum recomputed
 * unless told not to.
 */
static int edit_super(const char *path, int mirror, bool csum, const char *spec, const char *value)
{
	struct extent_buffer *eb = alloc_extent_buffer(0, BTRFS_SUPER_INFO_SIZE);
	struct btrfs_super_block *sb;
	struct place pl;
	u64 size;
	int fd, ret = -EINVAL;

	if (!eb)
		return -ENOMEM;
	sb = (struct btrfs_super_block *)eb->data;
	fd = open(path, O_RDWR);
	if (fd < 0) {
		error("cannot open %s: %m", path);
		free_extent_buffer(eb);
		return -errno;
	}
	size = btrfs_device_fd_size(fd);
	if (btrfs_super_read_raw(fd, btrfs_sb_offset(0), sb, NULL) || btrfs_super_magic(sb) != BTRFS_MAGIC) {
		error("%s has no btrfs superblock at %llu", path, btrfs_sb_offset(0));
		goto out;
	}
	if (mirror > BTRFS_SUPER_MIRROR_MAX ||
	    (mirror && btrfs_sb_offset(mirror - 1) + BTRFS_SUPER_INFO_SIZE > size)) {
		error("%s has no superblock copy %d", path, mirror);
		goto out;
	}
	if (resolve_field(eb, SUPER_SLOT, 0, spec, &pl) || set_place(eb, &pl, value))
		goto out;
	for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 at = btrfs_sb_offset(m);

		if ((mirror && m != mirror - 1) || at + BTRFS_SUPER_INFO_SIZE > size)
			continue;
		btrfs_set_super_bytenr(sb, at);
		if (csum && forge) {
			if (forge_super_secondary(sb) < 0) {
				error("--forge: checksum type %u is not an authsum type",
				      btrfs_super_csum_type(sb));
				goto out;
			}
		} else if (csum && btrfs_super_csum_set(sb, NULL) < 0) {
			error("cannot checksum the superblock (checksum type %u)", btrfs_super_csum_type(sb));
			goto out;
		}
		if (pwrite(fd, sb, BTRFS_SUPER_INFO_SIZE, (off_t)at) != BTRFS_SUPER_INFO_SIZE || fsync(fd)) {
			error("writing the superblock at %llu of %s: %m", at, path);
			ret = -EIO;
			goto out;
		}
		printf("wrote superblock copy %d at %llu of %s\n", m + 1, at, path);
	}
	ret = 0;
out:
	close(fd);
	free_extent_buffer(eb);
	return ret;
}

/* Every item of one tree, one line each (for the fuzzing scripts). */
static int list_tree(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree)
{
	struct btrfs_key key = { 0 }, found;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, tree, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		const char *st;

		btrfs_path_item_key(&path, &found);
		st = item_struct(found.type);
		printf("%llu %llu,%u,%llu %u %s %llu %u\n", tree->objectid, found.objectid, found.type,
		       found.offset, btrfs_leaf_item_size(path.nodes[0], path.slots[0]), st ? st : "-",
		       path.nodes[0]->start, tree->level);
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static int list_items(struct btrfs_fs_info *fs)
{
	struct btrfs_key key = { 0 }, found;
	struct btrfs_path path;
	struct btrfs_tree_ref tree;
	int ret = list_tree(fs, &fs->tree_root);

	if (!ret)
		ret = list_tree(fs, &fs->chunk_root);
	btrfs_init_path(&path);
	key.type = BTRFS_ROOT_ITEM_KEY;
	for (int r = btrfs_search_key(fs, &fs->tree_root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	     r == 0 && !ret; r = btrfs_next_item(&path)) {
		btrfs_path_item_key(&path, &found);
		if (found.type != BTRFS_ROOT_ITEM_KEY ||
		    btrfs_leaf_item_size(path.nodes[0], path.slots[0]) < sizeof(struct btrfs_root_item))
			continue;
		btrfs_tree_ref_from_root_item(&tree, found.objectid,
					      btrfs_leaf_item_ptr(path.nodes[0], path.slots[0]));
		ret = list_tree(fs, &tree);
	}
	btrfs_release_path(&path);
	return ret;
}

static void list_fields(const char *tag)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!tag || !strcmp(tag, fields[i].tag))
			printf("%s %s %u %u\n", fields[i].tag, fields[i].member, fields[i].bits,
			       fields[i].offset);
}

static const struct command {
	const char *name;
	int nargs;          /* after the command name */
	bool by_bytenr;     /* BYTENR instead of TREE KEY */
	bool header;        /* a header edit */
	edit_fn edit;
} commands[] = {
	{ "field", 4, false, false, edit_field },
	{ "header", 4, false, true, edit_field },
	{ "block", 3, true, true, edit_field },
	{ "delete", 2, false, false, edit_delete },
	{ "dup", 2, false, false, edit_dup },
	{ "swap", 3, false, false, edit_swap },
	{ "shift", 3, false, false, edit_shift },
	{ "move", 3, false, false, edit_move },
	{ "super", 2, false, false, NULL },
	{ "list", 0, false, false, NULL },
};

static int usage(void)
{
	fprintf(stderr, "usage: corrupt-block [--mirror N] [--no-csum] [--level L] DEVICE[,DEVICE...] COMMAND ARGS\n"
		"  field TREE KEY FIELD VALUE | header TREE KEY FIELD VALUE | block BYTENR FIELD VALUE\n"
		"  delete TREE KEY | dup TREE KEY | swap TREE KEY KEY2 | shift TREE KEY DELTA\n"
		"  move TREE KEY DELTA\n"
		"  super FIELD VALUE | list | fields [STRUCT]\n"
		"  (see the comment at the top of tests/tools/corrupt-block.c)\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct btrfs_open_args oa = { .noscan = true, .writable = true, .partial = true };
	struct btrfs_fs_info *fs = NULL;
	const struct command *cmd = NULL;
	char *devs[16], *devlist, *save = NULL;
	struct target tg = { .slot = -1 };
	u64 mirror = 0, level = 0, tree_id;
	bool csum = true;
	int i = 1, ret;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--no-csum"))
			csum = false;
		else if (!strcmp(argv[i], "--forge"))
			forge = true;
		else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			oa.auth_key = (const u8 *)argv[++i];
			oa.auth_key_len = strlen(argv[i]);
		}
		else if (!strcmp(argv[i], "--mirror") && i + 1 < argc && !parse_u64(argv[i + 1], &mirror))
			i++;
		else if (!strcmp(argv[i], "--level") && i + 1 < argc && !parse_u64(argv[i + 1], &level) &&
			 level < BTRFS_MAX_LEVEL)
			i++;
		else
			return usage();
	}
	if (argc - i >= 1 && argc - i <= 2 && !strcmp(argv[i], "fields")) {
		list_fields(argc - i == 2 ? argv[i + 1] : NULL);
		return 0;
	}
	if (argc - i < 2)
		return usage();
	devlist = argv[i++];
	for (char *d = strtok_r(devlist, ",", &save); d && oa.ndevices < 16; d = strtok_r(NULL, ",", &save))
		devs[oa.ndevices++] = d;
	oa.devices = devs;
	for (size_t c = 0; c < ARRAY_SIZE(commands); c++)
		if (!strcmp(argv[i], commands[c].name))
			cmd = &commands[c];
	if (!cmd || argc - i - 1 != cmd->nargs)
		return usage();
	i++;
	if (!strcmp(cmd->name, "list")) {
		ret = btrfs_open_fs(&oa, &fs);
		if (!ret)
			ret = list_items(fs);
		btrfs_close_fs(fs);
		if (ret)
			error("cannot list the items: %s", strerror(-ret));
		return ret ? 1 : 0;
	}
	if (!cmd->edit) {
		ret = edit_super(devs[0], (int)mirror, csum, argv[i], argv[i + 1]) ? 1 : 0;
		if (ret)
			error("nothing written");
		return ret;
	}
	ret = btrfs_open_fs(&oa, &fs);
	if (ret) {
		error("cannot open the filesystem: %s", strerror(-ret));
		return 1;
	}
	if (cmd->by_bytenr) {
		if (parse_u64(argv[i], &tg.bytenr)) {
			ret = usage();
			goto out;
		}
		i++;
	} else {
		struct btrfs_key key;

		if (parse_u64(argv[i], &tree_id) || parse_key(argv[i + 1], &key)) {
			error("bad tree id or key (OBJECTID,TYPE,OFFSET): %s %s", argv[i], argv[i + 1]);
			ret = 1;
			goto out;
		}
		ret = find_block(fs, tree_id, &key, cmd->header ? (int)level : 0, &tg);
		if (ret) {
			ret = 1;
			goto out;
		}
		if (cmd->header)
			tg.slot = -1;
		i += 2;
	}
	ret = edit_block(fs, &tg, (int)mirror, csum, cmd->edit, argv + i) ? 1 : 0;
	if (ret)
		error("nothing written");
out:
	btrfs_close_fs(fs);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a filesystem (disk-io.h has the open sequence): its devices and
 * superblocks, the chunk tree, the tree roots, and the mends of a
 * superblock whose fields its trees contradict.  It reads blocks through
 * disk-io.c and searches trees through ctree.c, which reads through disk-io.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <uuid.h>
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/checked-blocks.h"
#include "kernel-shared/format/raid6.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/read/ctree.h"

/* ---- tree roots ---- */

void btrfs_tree_ref_from_root_item(struct btrfs_tree_ref *ref, u64 objectid,
				   const struct btrfs_root_item *ri)
{
	ref->objectid = objectid;
	ref->bytenr = btrfs_root_bytenr(ri);
	ref->level = btrfs_root_level(ri);
	ref->generation = btrfs_root_generation(ri);
}

int btrfs_find_tree_root(struct btrfs_fs_info *fs, u64 objectid, struct btrfs_tree_ref *out)
{
	struct btrfs_path path;
	struct btrfs_key key, found;
	int ret;

	if (objectid == BTRFS_ROOT_TREE_OBJECTID) {
		*out = fs->tree_root;
		return 0;
	}
	if (objectid == BTRFS_CHUNK_TREE_OBJECTID) {
		*out = fs->chunk_root;
		return 0;
	}
	if (objectid == BTRFS_TREE_LOG_OBJECTID) {
		if (!btrfs_super_log_root(fs->super))
			return -ENOENT;
		out->objectid = BTRFS_TREE_LOG_OBJECTID;
		out->bytenr = btrfs_super_log_root(fs->super);
		out->level = btrfs_super_log_root_level(fs->super);
		out->generation = 0;
		return 0;
	}
	key.objectid = objectid;
	key.type = BTRFS_ROOT_ITEM_KEY;
	key.offset = 0;
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &fs->tree_root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	if (ret == 0 && (found.objectid != objectid || found.type != BTRFS_ROOT_ITEM_KEY))
		ret = 1;
	if (ret == 0) {
		const struct extent_buffer *leaf = path.nodes[0];

		btrfs_tree_ref_from_root_item(out, objectid, btrfs_leaf_item_ptr(leaf, path.slots[0]));
	}
	btrfs_release_path(&path);
	return ret == 1 ? -ENOENT : ret;
}

/* ---- open ---- */

/*
 * check: a copy whose checksum is good (not a keyed type: without the key
 * a keyed copy is not known whole) but whose structural fields failed
 * validation, mended from its other fields (btrfs_super_mend()); kept when
 * it then validates.  The mends of the copy that becomes fs->super are kept
 * for check to report (btrfs_fs_super_mends()).
 */
static int mend_super(struct btrfs_fs_info *fs, int fd, u64 bytenr, struct btrfs_super_block *sb)
{
	struct btrfs_super_mend mends[BTRFS_SUPER_MENDS_MAX];
	size_t got;
	int n;

	if (!bytenr)
		bytenr = BTRFS_SUPER_INFO_OFFSET;
	if (btrfs_super_read_raw(fd, bytenr, sb, &got) < 0 || btrfs_super_magic(sb) != BTRFS_MAGIC ||
	    !btrfs_csum_type_valid(btrfs_super_csum_type(sb)) ||
	    btrfs_csum_type_keyed(btrfs_super_csum_type(sb)) || btrfs_super_csum_verify(sb))
		return -EUCLEAN;
	n = btrfs_super_mend(sb, mends, BTRFS_SUPER_MENDS_MAX);
	/* the copy in memory is checksummed again: the commit of a repair writes it */
	if (!n || n > BTRFS_SUPER_MENDS_MAX || btrfs_super_csum_set(sb, NULL) < 0 ||
	    btrfs_super_validate(sb, bytenr) < 0)
		return -EUCLEAN;
	for (int i = 0; i < n; i++)
		warning("superblock at %llu: %s %llu taken as %llu (%s), in memory",
			(unsigned long long)bytenr, mends[i].field, (unsigned long long)mends[i].was,
			(unsigned long long)mends[i].now, mends[i].why);
	if (!fs->super) {
		memcpy(fs->super_mends, mends, sizeof(mends[0]) * (size_t)n);
		fs->super_mends_nr = n;
	}
	return 0;
}

/* Set incompat bit (in memory, said as a mend) when the filesystem's content needs it. */
static void mend_incompat(struct btrfs_fs_info *fs, u64 bit, const char *why)
{
	u64 was = btrfs_super_incompat_flags(fs->super);

	if ((was & bit) || fs->super_mends_nr >= BTRFS_SUPER_MENDS_MAX)
		return;
	btrfs_set_super_incompat_flags(fs->super, was | bit);
	fs->geo.incompat_flags = was | bit;
	fs->super_mends[fs->super_mends_nr++] = (struct btrfs_super_mend){ "incompat_flags", was, was | bit, why };
	warning("superblock: incompat_flags 0x%llx taken as 0x%llx (%s), in memory", (unsigned long long)was,
		(unsigned long long)(was | bit), why);
}

/*
 * check: a root level in the superblock that its root block's header and
 * the backup root of the same commit (same block) both contradict is the
 * header's (the block read with any level, its owner and generation the
 * tree's).  field: "root_level" or "chunk_root_level".
 */
static void mend_root_level(struct btrfs_fs_info *fs, struct btrfs_tree_ref *ref, const char *field)
{
	static const struct read_policy any_level = { .on_failure = READ_CHECKER_SOFT, .quiet = true };
	struct tree_check expect = { .owner = ref->objectid, .level = -1, .transid = ref->generation };
	bool chunk = ref->objectid == BTRFS_CHUNK_TREE_OBJECTID;
	struct extent_buffer *eb;
	u8 level;

	if (fs->super_mends_nr >= BTRFS_SUPER_MENDS_MAX ||
	    btrfs_read_tree_block_policy(fs, ref->bytenr, &expect, &any_level, &eb) < 0)
		return;
	level = btrfs_eb_level(eb);
	free_extent_buffer(eb);
	if (level == ref->level)
		return;
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &fs->super->super_roots[i];

		if ((chunk ? btrfs_backup_chunk_root(b) : btrfs_backup_tree_root(b)) != ref->bytenr ||
		    (chunk ? btrfs_backup_chunk_root_level(b) : btrfs_backup_tree_root_level(b)) != level)
			continue;
		fs->super_mends[fs->super_mends_nr++] = (struct btrfs_super_mend){
			field, ref->level, level, "its root block's header and the backup root say" };
		warning("superblock: %s %u taken as %u (its root block's header and the backup root say), in memory",
			field, ref->level, level);
		ref->level = level;
		if (chunk)
			btrfs_set_super_chunk_root_level(fs->super, level);
		else
			btrfs_set_super_root_level(fs->super, level);
		return;
	}
}

/* Does the extent tree's first leaf hold a METADATA_ITEM (header checks only)? */
static bool has_metadata_items(struct btrfs_fs_info *fs)
{
	static const struct read_policy header_only = { .relax = READ_NO_TREE_CHECKER, .quiet = true };
	struct btrfs_tree_ref ref;
	struct extent_buffer *eb = NULL;
	bool found = false;
	u64 bytenr;
	int level;

	if (btrfs_find_tree_root(fs, BTRFS_EXTENT_TREE_OBJECTID, &ref) < 0)
		return false;
	bytenr = ref.bytenr;
	level = ref.level;
	for (int depth = 0; depth < BTRFS_MAX_LEVEL; depth++) {
		struct tree_check expect = { .owner = BTRFS_EXTENT_TREE_OBJECTID, .level = level };

		if (btrfs_read_tree_block_policy(fs, bytenr, &expect, &header_only, &eb) < 0)
			return false;
		if (!btrfs_eb_nritems(eb) || level == 0)
			break;
		/* a node's keys are its children's first keys: any may be one */
		for (u32 i = 0; i < btrfs_eb_nritems(eb) &&
		     (u64)(i + 1) * sizeof(struct btrfs_key_ptr) <= eb->len - sizeof(struct btrfs_header); i++) {
			struct btrfs_key k;

			btrfs_node_key_to_cpu(eb, &k, (int)i);
			found |= k.type == BTRFS_METADATA_ITEM_KEY;
		}
		bytenr = btrfs_node_blockptr(eb, 0);
		level--;
		free_extent_buffer(eb);
		eb = NULL;
	}
	for (u32 i = 0; eb && level == 0 && i < btrfs_eb_nritems(eb) &&
	     (u64)(i + 1) * sizeof(struct btrfs_item) <= btrfs_leaf_data_size(eb); i++) {
		struct btrfs_key k;

		btrfs_item_key_to_cpu(eb, &k, (int)i);
		found |= k.type == BTRFS_METADATA_ITEM_KEY;
	}
	free_extent_buffer(eb);
	return found;
}

/*
 * check: a compat_ro word that is garbage: unknown bits set, and either its
 * tree bits name trees the root tree lacks (or lack ones it has) or more
 * unknown bits than any kernel could have added.  Its tree bits are then the
 * trees there are (the free space tree with its VALID bit), VERITY kept (its
 * items would otherwise be foreign), the unknown bits cleared.  A few
 * unknown bits beside true tree bits may be a newer kernel's: kept, and
 * check says it cannot check them.
 */
static void mend_compat_ro(struct btrfs_fs_info *fs)
{
	const u64 fst = BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE, bgt = BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;
	u64 was = btrfs_super_compat_ro_flags(fs->super), unknown = was & ~BTRFS_FEATURE_COMPAT_RO_KNOWN, now;
	struct btrfs_tree_ref ref;

	if (!unknown || fs->super_mends_nr >= BTRFS_SUPER_MENDS_MAX)
		return;
	now = was & BTRFS_FEATURE_COMPAT_RO_VERITY;
	if (btrfs_find_tree_root(fs, BTRFS_FREE_SPACE_TREE_OBJECTID, &ref) == 0)
		now |= fst | BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID;
	if (btrfs_find_tree_root(fs, BTRFS_BLOCK_GROUP_TREE_OBJECTID, &ref) == 0)
		now |= bgt;
	if ((was & (fst | bgt)) == (now & (fst | bgt)) && __builtin_popcountll(unknown) < 8)
		return;
	btrfs_set_super_compat_ro_flags(fs->super, now);
	fs->geo.compat_ro_flags = now;
	fs->super_mends[fs->super_mends_nr++] = (struct btrfs_super_mend){
		"compat_ro_flags", was, now, "unknown bits, and its tree bits are not the trees there are" };
	warning("superblock: compat_ro_flags 0x%llx taken as 0x%llx (unknown bits, its tree bits from the root tree), in memory",
		(unsigned long long)was, (unsigned long long)now);
}

/*
 * check: incompat bits the filesystem's content shows it has, when the
 * superblock lacks them: MIXED_BACKREF with tree blocks of that back
 * reference revision, NO_HOLES with a block group tree (the kernel
 * refuses the one without the other), SKINNY_METADATA with METADATA_ITEMs
 * in the extent tree (its tree-checker rejects them without it).
 */
static void mend_feature_bits(struct btrfs_fs_info *fs)
{
	static const struct read_policy header_only = { .relax = READ_NO_TREE_CHECKER, .quiet = true };
	struct tree_check expect = { .owner = BTRFS_ROOT_TREE_OBJECTID, .level = fs->tree_root.level };
	struct extent_buffer *eb = NULL;

	/* a root block written with the mixed back reference revision: every kernel since 2.6.31 */
	if (!(btrfs_super_incompat_flags(fs->super) & BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF) &&
	    btrfs_read_tree_block_policy(fs, fs->tree_root.bytenr, &expect, &header_only, &eb) == 0 &&
	    btrfs_header_backref_rev(btrfs_header(eb)) == BTRFS_MIXED_BACKREF_REV)
		mend_incompat(fs, BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF,
			      "its tree blocks have the mixed back reference revision");
	free_extent_buffer(eb);
	mend_compat_ro(fs);
	if (btrfs_super_compat_ro_flags(fs->super) & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)
		mend_incompat(fs, BTRFS_FEATURE_INCOMPAT_NO_HOLES, "a block group tree needs NO_HOLES");
	if (!(btrfs_super_incompat_flags(fs->super) & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA) &&
	    has_metadata_items(fs))
		mend_incompat(fs, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA,
			      "the extent tree holds METADATA_ITEMs");
}

int btrfs_fs_super_mends(const struct btrfs_fs_info *fs, const struct btrfs_super_mend **out)
{
	*out = fs->super_mends;
	return fs->super_mends_nr;
}

static int open_one_device(struct btrfs_fs_info *fs, const char *path, u64 super_bytenr,
			   const struct btrfs_open_args *args, struct btrfs_super_block *sb)
{
	struct btrfs_device *dev;
	u64 devid;
	int fd, ret;

	fd = open(path, args->writable ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		ret = -errno;
		error_errno(ret, "cannot open %s", path);
		return ret;
	}
	ret = btrfs_read_super(fd, super_bytenr,
			       args->temporary_super ? BTRFS_SUPER_READ_TEMPORARY : 0, sb, NULL);
	if (ret == -EUCLEAN && args->trust_backup_generations && !args->temporary_super)
		ret = mend_super(fs, fd, super_bytenr, sb);
	if (ret < 0 && args->primary_fallback && !args->temporary_super &&
	    (super_bytenr == 0 || super_bytenr == BTRFS_SUPER_INFO_OFFSET)) {
		u64 found_at = BTRFS_SUPER_INFO_OFFSET;

		ret = btrfs_read_super(fd, 0, BTRFS_SUPER_READ_RECOVER, sb, &found_at);
		if (ret == 0 && found_at != BTRFS_SUPER_INFO_OFFSET)
			warning("%s: the primary superblock does not verify; opened by the copy at %llu (generation %llu), which is written over it before anything else",
				path, (unsigned long long)found_at, (unsigned long long)btrfs_super_generation(sb));
	}
	if (ret < 0) {
		error("%s: no valid superblock at %llu", path, super_bytenr);
		goto fail;
	}
	/* another filesystem's device (a seed device?): for attach_seed_devices() */
	if (fs->super && memcmp(sb->fsid, fs->super->fsid, BTRFS_FSID_SIZE)) {
		ret = 1;
		goto fail;
	}
	devid = btrfs_device_id(&sb->dev_item);
	if (btrfs_find_device(&fs->devices, devid, NULL)) {
		error("%s: device id %llu given twice", path, devid);
		ret = -EINVAL;
		goto fail;
	}
	dev = btrfs_add_device(&fs->devices, devid, sb->dev_item.uuid);
	if (!dev) {
		ret = -ENOMEM;
		goto fail;
	}
	dev->path = strdup(path);
	if (!dev->path) {
		fs->devices.nr--;
		ret = -ENOMEM;
		goto fail;
	}
	dev->fd = fd;
	memcpy(dev->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE);
	dev->size = btrfs_device_fd_size(fd);
	dev->total_bytes = btrfs_device_total_bytes(&sb->dev_item);
	dev->missing = false;
	return 0;
fail:
	close(fd);
	return ret;
}

static void setup_geometry(struct btrfs_fs_info *fs)
{
	const struct btrfs_super_block *sb = fs->super;
	struct btrfs_fs_geometry *g = &fs->geo;

	g->nodesize = btrfs_super_nodesize(sb);
	g->sectorsize = btrfs_super_sectorsize(sb);
	g->csum_type = btrfs_super_csum_type(sb);
	g->csum_size = btrfs_csum_type_size(g->csum_type);
	g->incompat_flags = btrfs_super_incompat_flags(sb);
	g->compat_ro_flags = btrfs_super_compat_ro_flags(sb);
	g->super_generation = btrfs_super_generation(sb);
	memcpy(g->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE);
}

/*
 * Chunk items into the map and (devices) dev items into the device list;
 * *overlap: some chunk overlapped another, left out.
 */
static int read_chunk_tree(struct btrfs_fs_info *fs, bool devices, bool *overlap)
{
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 }, found;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &fs->chunk_root, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0) {
		const struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];

		btrfs_item_key_to_cpu(leaf, &found, slot);
		if (found.type == BTRFS_CHUNK_ITEM_KEY) {
			ret = btrfs_add_chunk(&fs->chunks, found.offset, btrfs_leaf_item_ptr(leaf, slot),
					      btrfs_leaf_item_size(leaf, slot), fs->geo.sectorsize);
			if (ret == -EEXIST)
				*overlap = true;
			else if (ret < 0)
				break;
		} else if (devices && found.type == BTRFS_DEV_ITEM_KEY &&
			   btrfs_leaf_item_size(leaf, slot) >= sizeof(struct btrfs_dev_item)) {
			const struct btrfs_dev_item *di = btrfs_leaf_item_ptr(leaf, slot);
			struct btrfs_device *dev;

			dev = btrfs_find_device(&fs->devices, btrfs_device_id(di), di->uuid);
			if (!dev) {
				dev = btrfs_add_device(&fs->devices, btrfs_device_id(di), di->uuid);
				if (!dev) {
					ret = -ENOMEM;
					break;
				}
			}
			dev->total_bytes = btrfs_device_total_bytes(di);
			if (dev->missing)
				memcpy(dev->fsid, di->fsid, BTRFS_FSID_SIZE);
		}
		ret = btrfs_next_item(&path);
	}
	btrfs_release_path(&path);
	return ret == 1 ? 0 : ret;
}

int btrfs_read_chunk_map(struct btrfs_fs_info *fs, struct btrfs_chunk_tree_map *out)
{
	struct btrfs_chunk_tree_map saved = fs->chunks;
	bool overlap = false;
	int ret;

	memset(&fs->chunks, 0, sizeof(fs->chunks));
	btrfs_block_cache_drop(fs);
	ret = btrfs_read_sys_chunk_array(&fs->chunks, fs->super);
	if (ret == 0)
		ret = read_chunk_tree(fs, false, &overlap);
	btrfs_block_cache_drop(fs);
	*out = fs->chunks;
	fs->chunks = saved;
	if (ret == 0 && overlap) {
		error("chunk tree (root %llu): chunks that overlap", fs->chunk_root.bytenr);
		ret = -EUCLEAN;
	}
	if (ret < 0) {
		btrfs_chunk_tree_map_free(out);
		memset(out, 0, sizeof(*out));
	}
	return ret;
}

static bool any_missing(struct btrfs_fs_info *fs)
{
	int i;

	for (i = 0; i < fs->devices.nr; i++)
		if (fs->devices.devs[i].missing)
			return true;
	return false;
}

static void report_missing(struct btrfs_fs_info *fs, bool on_stdout)
{
	int i;

	for (i = 0; i < fs->devices.nr; i++) {
		struct btrfs_device *d = &fs->devices.devs[i];
		char uuid[BTRFS_UUID_UNPARSED_SIZE];

		if (!d->missing || d->reported)
			continue;
		uuid_unparse(d->uuid, uuid);
		if (on_stdout)
			printf("warning, device %llu is missing\n", d->devid);
		else
			warning("device devid %llu uuid %s is missing", d->devid, uuid);
		d->reported = true;
	}
}

/*
 * Devices given that belong to another filesystem (others[i] set): each one
 * that is a missing seed device of this one takes its place (and is
 * cleared).
 */
static int attach_seed_devices(struct btrfs_fs_info *fs, const struct btrfs_open_args *args,
			       const char **others)
{
	for (int i = 0; i < args->ndevices; i++) {
		int ret;

		if (!others[i])
			continue;
		ret = btrfs_attach_seed_device(&fs->devices, others[i]);
		if (ret < 0)
			return ret;
		if (ret)
			others[i] = NULL;
	}
	return 0;
}

/* Scan for the seed devices the chunk tree names and we do not have (their own fsid). */
static int scan_seed_devices(struct btrfs_fs_info *fs)
{
	static const u8 zero[BTRFS_FSID_SIZE];

	for (int i = 0; i < fs->devices.nr; i++) {
		struct btrfs_device *d = &fs->devices.devs[i];
		u8 fsid[BTRFS_FSID_SIZE];
		int ret;

		if (!d->missing || !memcmp(d->fsid, zero, BTRFS_FSID_SIZE) ||
		    !memcmp(d->fsid, btrfs_header_fsid(fs), BTRFS_FSID_SIZE))
			continue;
		memcpy(fsid, d->fsid, BTRFS_FSID_SIZE);   /* the list may move as it grows */
		ret = btrfs_scan_devices(&fs->devices, fsid);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Devices named in the sys chunk array that we do not have: add them as missing. */
static int note_stripe_devices(struct btrfs_fs_info *fs)
{
	size_t i;
	int j;

	for (i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];

		for (j = 0; j < c->num_stripes; j++) {
			if (btrfs_find_device(&fs->devices, c->stripes[j].devid, c->stripes[j].dev_uuid))
				continue;
			if (!btrfs_add_device(&fs->devices, c->stripes[j].devid, c->stripes[j].dev_uuid))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The newest backup root slot whose generation is not beyond the super's:
 * the tree and chunk roots it names replace the superblock's.
 */
static void use_backup_root(struct btrfs_fs_info *fs)
{
	const struct btrfs_root_backup *best = NULL;
	int i;

	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &fs->super->super_roots[i];

		if (!btrfs_backup_tree_root(b) ||
		    btrfs_backup_tree_root_gen(b) > btrfs_super_generation(fs->super))
			continue;
		if (!best || btrfs_backup_tree_root_gen(b) > btrfs_backup_tree_root_gen(best))
			best = b;
	}
	if (!best) {
		warning("no usable backup root, using the superblock's roots");
		return;
	}
	fs->tree_root.bytenr = btrfs_backup_tree_root(best);
	fs->tree_root.level = btrfs_backup_tree_root_level(best);
	fs->tree_root.generation = btrfs_backup_tree_root_gen(best);
	if (btrfs_backup_chunk_root(best)) {
		fs->chunk_root.bytenr = btrfs_backup_chunk_root(best);
		fs->chunk_root.level = btrfs_backup_chunk_root_level(best);
		fs->chunk_root.generation = btrfs_backup_chunk_root_gen(best);
	}
}

struct btrfs_generation_fix btrfs_fs_generation_fixes(const struct btrfs_fs_info *fs)
{
	return fs->gen_fix;
}

/*
 * trust_backup_generations: the generation root's block carries, when it
 * differs from root->generation and a backup root slot names that block
 * (chunk: its chunk root) with that generation; 0 otherwise.  *slot: which.
 */
static u64 backup_confirmed_generation(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *root,
				       bool chunk, int *slot)
{
	static const struct read_policy any = { .relax = READ_ANY_TRANSID,
						.on_failure = READ_FAIL, .quiet = true };
	struct tree_check expect = { .owner = root->objectid, .level = root->level };
	struct extent_buffer *eb;
	u64 gen;

	if (btrfs_read_tree_block_policy(fs, root->bytenr, &expect, &any, &eb) < 0)
		return 0;
	gen = btrfs_header_generation(btrfs_header(eb));
	free_extent_buffer(eb);
	if (gen == root->generation)
		return 0;
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &fs->super->super_roots[i];
		u64 at = chunk ? btrfs_backup_chunk_root(b) : btrfs_backup_tree_root(b);
		u64 bgen = chunk ? btrfs_backup_chunk_root_gen(b) : btrfs_backup_tree_root_gen(b);

		if (at == root->bytenr && bgen == gen) {
			*slot = i;
			return gen;
		}
	}
	return 0;
}

/*
 * The open's hook (btrfs_open_args.mend_chunk_root), at most once: 1 when a
 * mended chunk root is in and the tree is to be read again, 0 not, or an error.
 */
static int try_mend_chunk_root(struct btrfs_fs_info *fs, const struct btrfs_open_args *args, bool *tried,
			       const char *why)
{
	if (!args->mend_chunk_root || *tried)
		return 0;
	*tried = true;
	return args->mend_chunk_root(fs, why, args->mend_chunk_root_arg);
}

/* The chunk map again, from the sys_chunk_array and a chunk tree that was mended. */
static int reread_chunk_tree(struct btrfs_fs_info *fs, bool *overlap)
{
	int ret;

	btrfs_chunk_tree_map_free(&fs->chunks);
	ret = btrfs_read_sys_chunk_array(&fs->chunks, fs->super);
	*overlap = false;
	return ret < 0 ? ret : read_chunk_tree(fs, true, overlap);
}

/* The level a block's header states (checksum and header verified), 0 if unreadable. */
static u8 root_level_from_header(struct btrfs_fs_info *fs, u64 bytenr)
{
	static const struct read_policy any = { .relax = READ_ANY_TRANSID,
						.on_failure = READ_CHECKER_SOFT, .quiet = true };
	struct tree_check expect = { .level = -1 };
	struct extent_buffer *eb;
	u8 level;

	if (btrfs_read_tree_block_policy(fs, bytenr, &expect, &any, &eb) < 0)
		return 0;
	level = btrfs_eb_level(eb);
	free_extent_buffer(eb);
	return level;
}

/*
 * The filesystem's checksum with the key given: key check value first (a
 * wrong key is not corruption), then the superblock's keyed checksum that
 * btrfs_super_validate() could not verify without the key.
 */
static int setup_csum(struct btrfs_fs_info *fs, const struct btrfs_open_args *args)
{
	u16 type = fs->geo.csum_type;
	const char *name = btrfs_csum_type_name(type);
	bool keyed = btrfs_csum_type_keyed(type);
	int ret;

	ret = btrfs_super_csum_setup(&fs->csum, fs->super, args->auth_key, args->auth_key_len);
	if (ret < 0)
		return ret;
	if (!keyed)
		return 0;
	if (!fs->csum.have_key) {
		if (!fs->csum.authsum) {
			error("checksum type %s needs the filesystem's key: btrfs --auth-key NAME", name);
			return -ENOKEY;
		}
		if (args->writable) {
			error("checksum type %s: writing needs the filesystem's key: btrfs --auth-key NAME",
			      name);
			return -ENOKEY;
		}
		warning("no key for checksum type %s: only the xxhash64 part is verified, authenticity NOT verified",
			name);
		return 0;
	}
	ret = btrfs_super_csum_check(fs->super, &fs->csum);
	if (ret != BTRFS_CSUM_VALID) {
		error("superblock: checksum %s with the right key: superblock %s",
		      ret == BTRFS_CSUM_ALTERED ? "ALTERED" : "mismatch",
		      ret == BTRFS_CSUM_ALTERED ? "changed without the key" : "damaged");
		return ret == BTRFS_CSUM_ALTERED ? -EBADMSG : -EUCLEAN;
	}
	return 0;
}

/* The superblock copy in memory, the geometry and the checksum state take type. */
static int setup_csum_type(struct btrfs_fs_info *fs, const struct btrfs_open_args *args, u16 type)
{
	btrfs_set_super_csum_type(fs->super, type);
	fs->geo.csum_type = type;
	fs->geo.csum_size = btrfs_csum_type_size(type);
	return setup_csum(fs, args);
}

/*
 * check: a checksum type under which the chunk root's checksum (its copies
 * in turn) is wrong, while exactly one other plain type makes it right: the
 * superblock's csum_type is that one, in memory, said as a mend.  The block
 * must name its own address too; a checksum of another type does not match
 * by chance.
 */
static void mend_csum_type(struct btrfs_fs_info *fs, const struct btrfs_open_args *args)
{
	u64 at = fs->chunk_root.bytenr;
	u16 was = fs->geo.csum_type, told = 0;
	u32 good = 0;   /* bit t: a copy's checksum is right under type t */
	int fits = 0;

	if (btrfs_csum_type_keyed(was) || fs->super_mends_nr >= BTRFS_SUPER_MENDS_MAX)
		return;
	for (int mirror = 1; mirror <= btrfs_num_mirrors(fs, at); mirror++) {
		struct extent_buffer *eb = NULL;

		if (btrfs_read_tree_block_mirror(fs, at, mirror, &eb) < 0 || !eb ||
		    btrfs_header_bytenr(btrfs_header(eb)) != at) {
			free_extent_buffer(eb);
			continue;
		}
		for (u16 type = 0; type < 16; type++) {
			u8 sum[BTRFS_CSUM_SIZE];

			if (btrfs_csum_type_valid(type) && !btrfs_csum_type_keyed(type) &&
			    btrfs_csum_data(type, eb->data + BTRFS_CSUM_SIZE, eb->len - BTRFS_CSUM_SIZE, sum) == 0 &&
			    !memcmp(sum, btrfs_header(eb)->csum, btrfs_csum_type_size(type)))
				good |= 1u << type;
		}
		free_extent_buffer(eb);
		if (good & (1u << was))
			return;
	}
	for (u16 type = 0; type < 16; type++)
		if ((good & (1u << type)) && !fits++)
			told = type;
	if (fits != 1 || setup_csum_type(fs, args, told) < 0)
		return;
	fs->super_mends[fs->super_mends_nr++] = (struct btrfs_super_mend){
		"csum_type", was, told, "the chunk root's checksum is of that type" };
	warning("superblock: csum_type %u taken as %u (%s: the chunk root's checksum is of that type), in memory",
		was, told, btrfs_csum_type_name(told));
}

int btrfs_open_fs(const struct btrfs_open_args *args, struct btrfs_fs_info **out)
{
	struct btrfs_fs_info *fs;
	struct btrfs_super_block *sb = NULL;
	struct extent_buffer *eb;
	struct tree_check expect;
	struct read_policy soft = { 0 };
	bool mend_tried = false, overlap = false;
	u64 super_bytenr = args->super_bytenr ? args->super_bytenr : BTRFS_SUPER_INFO_OFFSET;
	const char **others = NULL;  /* devices given of other filesystems: seed devices? */
	int i, ret;

	*out = NULL;
	if (args->ndevices < 1) {
		error("no device given");
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	sb = malloc(BTRFS_SUPER_INFO_SIZE);
	others = calloc((size_t)args->ndevices, sizeof(*others));
	if (!fs || !sb || !others) {
		ret = -ENOMEM;
		goto fail;
	}
	fs->partial = args->partial;
	if (args->writable) {
		ret = btrfs_write_log_open(&fs->write_log);
		if (ret < 0)
			goto fail;
	}
	for (i = 0; i < args->ndevices; i++) {
		ret = open_one_device(fs, args->devices[i], super_bytenr, args, sb);
		if (ret < 0)
			goto fail;
		if (ret == 1) {
			others[i] = args->devices[i];
			continue;
		}
		if (!fs->super) {
			fs->super = sb;
			sb = malloc(BTRFS_SUPER_INFO_SIZE);
			if (!sb) {
				ret = -ENOMEM;
				goto fail;
			}
			continue;
		}
		if (btrfs_super_generation(sb) > btrfs_super_generation(fs->super))
			memcpy(fs->super, sb, BTRFS_SUPER_INFO_SIZE);
	}
	free(sb);
	sb = NULL;

	setup_geometry(fs);
	ret = setup_csum(fs, args);
	if (ret < 0)
		goto fail;
	ret = btrfs_read_sys_chunk_array(&fs->chunks, fs->super);
	if (ret < 0)
		goto fail;
	ret = note_stripe_devices(fs);
	if (ret == 0)
		ret = attach_seed_devices(fs, args, others);
	if (ret < 0)
		goto fail;
	if (!args->noscan && any_missing(fs)) {
		ret = btrfs_scan_devices(&fs->devices, fs->super->fsid);
		if (ret < 0)
			goto fail;
	}

	fs->chunk_root.objectid = BTRFS_CHUNK_TREE_OBJECTID;
	fs->chunk_root.bytenr = btrfs_super_chunk_root(fs->super);
	fs->chunk_root.level = btrfs_super_chunk_root_level(fs->super);
	fs->chunk_root.generation = btrfs_super_chunk_root_generation(fs->super);
	fs->tree_root.objectid = BTRFS_ROOT_TREE_OBJECTID;
	fs->tree_root.bytenr = btrfs_super_root(fs->super);
	fs->tree_root.level = btrfs_super_root_level(fs->super);
	fs->tree_root.generation = btrfs_super_generation(fs->super);

	if (args->use_backup_root)
		use_backup_root(fs);
	if (args->trust_backup_generations)
		mend_csum_type(fs, args);
	/* A root block named by the user: level and generation from its header. */
	if (args->chunk_root_bytenr) {
		fs->chunk_root.bytenr = args->chunk_root_bytenr;
		fs->chunk_root.generation = 0;
		fs->chunk_root.level = root_level_from_header(fs, args->chunk_root_bytenr);
	}

	if (args->trust_backup_generations && !args->use_backup_root && !args->chunk_root_bytenr) {
		u64 gen = backup_confirmed_generation(fs, &fs->chunk_root, true, &fs->gen_fix.backup);

		if (gen) {
			fs->gen_fix.chunk_root_generation_fixed = true;
			fs->gen_fix.chunk_root_generation = fs->chunk_root.generation;
			fs->chunk_root.generation = gen;
			btrfs_set_super_chunk_root_generation(fs->super, gen);
		}
		mend_root_level(fs, &fs->chunk_root, "chunk_root_level");
	}
	/*
	 * A partial open (printing tools) takes a root block that fails only the
	 * tree-checker, after its message, as btrfs-progs does.
	 */
	soft.on_failure = fs->partial ? READ_CHECKER_SOFT : READ_FAIL;
	/* The chunk tree's root header gives the chunk tree uuid the tree-checker may use. */
	expect = (struct tree_check){ .owner = BTRFS_CHUNK_TREE_OBJECTID,
				      .level = fs->chunk_root.level,
				      .transid = fs->chunk_root.generation };
	ret = btrfs_read_tree_block_policy(fs, fs->chunk_root.bytenr, &expect, &soft, &eb);
	if (ret < 0 && ret != -ENOMEM) {
		int mended = try_mend_chunk_root(fs, args, &mend_tried, "does not read as the superblock names it");

		if (mended)
			ret = mended < 0 ? mended :
			      btrfs_read_tree_block_policy(fs, fs->chunk_root.bytenr, &expect, &soft, &eb);
	}
	if (ret < 0) {
		error("cannot read chunk root");
		goto fail;
	}
	memcpy(fs->geo.chunk_tree_uuid, btrfs_header(eb)->chunk_tree_uuid, BTRFS_UUID_SIZE);
	free_extent_buffer(eb);
	ret = read_chunk_tree(fs, true, &overlap);
	if ((ret < 0 && ret != -ENOMEM) || overlap) {
		/* a root that failed only the tree-checker (read soft above), or chunks that overlap */
		int mended = try_mend_chunk_root(fs, args, &mend_tried, ret < 0 ?
						 "does not read as the superblock names it" :
						 "holds chunks that overlap");

		if (mended)
			ret = mended < 0 ? mended : reread_chunk_tree(fs, &overlap);
	}
	if (ret < 0) {
		error("cannot read chunk tree");
		if (!fs->partial)
			goto fail;
	}
	ret = attach_seed_devices(fs, args, others);
	if (ret < 0)
		goto fail;
	if (!args->noscan && any_missing(fs)) {
		ret = btrfs_scan_devices(&fs->devices, fs->super->fsid);
		if (ret >= 0)
			ret = scan_seed_devices(fs);
		if (ret < 0)
			goto fail;
	}
	if (args->forget_unused_devices)
		btrfs_forget_unused_missing(&fs->devices, &fs->chunks);
	report_missing(fs, args->missing_on_stdout);
	/* a seed device is read only: so is a sprouted filesystem here */
	if (args->writable && btrfs_seed_device(fs, NULL)) {
		error("%s is a seed device of this filesystem: writing a sprouted filesystem is not supported",
		      btrfs_seed_device(fs, NULL)->path);
		ret = -EOPNOTSUPP;
		goto fail;
	}
	for (i = 0; i < args->ndevices; i++) {
		char a[BTRFS_UUID_UNPARSED_SIZE];

		if (!others[i])
			continue;
		uuid_unparse(fs->super->fsid, a);
		warning("%s is not a device of filesystem %s (nor one of its seed devices): not used",
			others[i], a);
	}

	if (args->tree_root_bytenr) {
		fs->tree_root.bytenr = args->tree_root_bytenr;
		fs->tree_root.generation = 0;
		fs->tree_root.level = root_level_from_header(fs, args->tree_root_bytenr);
	} else if (args->trust_backup_generations && !args->use_backup_root) {
		u64 gen = backup_confirmed_generation(fs, &fs->tree_root, false, &fs->gen_fix.backup);

		if (gen) {
			fs->gen_fix.generation_fixed = true;
			fs->gen_fix.generation = btrfs_super_generation(fs->super);
			fs->tree_root.generation = gen;
			btrfs_set_super_generation(fs->super, gen);
			fs->geo.super_generation = gen;
		}
	}
	if (args->trust_backup_generations && !args->use_backup_root && !args->tree_root_bytenr)
		mend_root_level(fs, &fs->tree_root, "root_level");
	expect = (struct tree_check){ .owner = BTRFS_ROOT_TREE_OBJECTID,
				      .level = fs->tree_root.level,
				      .transid = fs->tree_root.generation };
	ret = btrfs_read_tree_block_policy(fs, fs->tree_root.bytenr, &expect, &soft, &eb);
	if (ret < 0) {
		error("cannot read root tree");
		if (!fs->partial)
			goto fail;
	}
	free_extent_buffer(eb);
	if (ret == 0 && args->trust_backup_generations)
		mend_feature_bits(fs);
	free(others);
	*out = fs;
	return 0;
fail:
	free(others);
	free(sb);
	btrfs_close_fs(fs);
	return ret;
}

int btrfs_fs_reader(struct btrfs_fs_info *fs, struct btrfs_fs_info **out)
{
	struct btrfs_fs_info *r = malloc(sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	/* the tree-checker's verdicts shared from the first reader on (NULL: each checks) */
	if (!fs->checked)
		fs->checked = btrfs_checked_blocks_new();
	*r = *fs;
	memset(r->cache, 0, sizeof(r->cache));
	r->csum_altered = 0;
	r->write_log = NULL;
	*out = r;
	return 0;
}

void btrfs_fs_reader_free(struct btrfs_fs_info *fs, struct btrfs_fs_info *reader)
{
	if (!reader)
		return;
	fs->csum_altered += reader->csum_altered;
	btrfs_block_cache_drop(reader);
	explicit_bzero(reader, sizeof(*reader));   /* its copy of the checksum key */
	free(reader);
}

void btrfs_close_fs(struct btrfs_fs_info *fs)
{
	if (!fs)
		return;
	btrfs_block_cache_drop(fs);
	btrfs_checked_blocks_free(fs->checked);
	btrfs_csum_release(&fs->csum);   /* wipes the key state */
	btrfs_overrides_free(fs);
	btrfs_chunk_tree_map_free(&fs->chunks);
	btrfs_free_devices(&fs->devices);
	btrfs_write_log_close(fs->write_log);
	free(fs->super);
	free(fs);
}

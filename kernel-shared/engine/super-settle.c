// SPDX-License-Identifier: GPL-2.0
/*
 * Finishing the superblock writes of an interrupted commit:
 * btrfs_settle_supers() in transaction.h.
 *
 * Why.  A commit writes its superblock device after device, copy after
 * copy.  A kill or a power cut in between leaves some devices at
 * generation N and others at N-1; both trees are whole on disk, since every
 * block of N was written and flushed before the first superblock.  The
 * opener reads by the newest copy (N), and its next commit may reuse tree
 * blocks that N freed (offline balance: dev extents that N freed) while
 * the N-1 copies still point at them.  A reader of such a device
 * (btrfs-progs reads the superblock of the device it is given) then finds
 * blocks of N+1 where N-1 wants its own ("parent transid verify failed
 * ... wanted N-1 found N+1"), and a second cut during N+1 can leave no
 * device whose superblock names intact trees.
 *
 * So before the first byte of a new write goes out, every copy of every
 * device that is older than the committed generation, or does not verify,
 * gets the committed superblock (with the device's own dev item, its sizes
 * from the committed chunk tree, as a commit writes it), and those devices
 * are flushed.  Copies that agree are not written: an opener of a settled
 * filesystem writes nothing here.
 */
#include <stdlib.h>
#include <string.h>
#include "kernel-shared/engine/engine-internal.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"

/* The magic of a copy a commit writes (mkfs --rootdir commits with the temporary one until its last). */
static bool magic_ok(const struct btrfs_super_block *sb)
{
	return btrfs_super_magic(sb) == BTRFS_MAGIC || btrfs_super_magic(sb) == BTRFS_MAGIC_TEMPORARY;
}

/* Copy m of d: valid for this filesystem and of generation gen or newer? */
static bool copy_current(struct btrfs_fs_info *fs, const struct btrfs_device *d, int m, u64 gen,
			 struct btrfs_super_block *sb)
{
	if (btrfs_super_read_raw(d->fd, btrfs_sb_offset(m), sb, NULL) < 0)
		return false;
	return magic_ok(sb) &&
	       btrfs_super_bytenr(sb) == btrfs_sb_offset(m) &&
	       !memcmp(sb->fsid, fs->super->fsid, BTRFS_FSID_SIZE) &&
	       btrfs_super_csum_check(sb, &fs->csum) == BTRFS_CSUM_VALID &&
	       btrfs_super_generation(sb) >= gen;
}

/*
 * The dev item d's superblock carries: its own, read from any copy that
 * names it, or the committed chunk tree's; the sizes always the tree's.
 */
static int device_item(struct btrfs_fs_info *fs, const struct btrfs_device *d, struct btrfs_dev_item *out,
		       struct btrfs_super_block *scratch)
{
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, d->devid };
	struct btrfs_path path;
	bool own = false;
	int ret;

	if (btrfs_device_id(&fs->super->dev_item) == d->devid) {
		*out = fs->super->dev_item;
		own = true;
	}
	for (int m = 0; !own && m < btrfs_super_copies_in(d->size); m++) {
		if (btrfs_super_read_raw(d->fd, btrfs_sb_offset(m), scratch, NULL) == 0 &&
		    magic_ok(scratch) &&
		    btrfs_super_csum_check(scratch, &fs->csum) == BTRFS_CSUM_VALID &&
		    btrfs_device_id(&scratch->dev_item) == d->devid) {
			*out = scratch->dev_item;
			own = true;
		}
	}
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &fs->chunk_root, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret == 0 && btrfs_path_item_size(&path) >= sizeof(*out)) {
		const struct btrfs_dev_item *tree = btrfs_path_item_ptr(&path);

		if (own)
			trans_super_dev_item_sync(out, tree);
		else
			memcpy(out, tree, sizeof(*out));
		own = true;
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	if (!own) {
		error("devid %llu (%s): no superblock copy and no dev item name it", d->devid, d->path);
		return -EUCLEAN;
	}
	return 0;
}

int btrfs_settle_supers(struct btrfs_fs_info *fs)
{
	u64 gen = btrfs_super_generation(fs->super);
	/* an unfinished mkfs --rootdir stays one: its copies' temporary magic is kept */
	u64 magic = btrfs_super_magic(fs->super);
	struct btrfs_super_block *sb, *scratch;
	int ret = 0, nr_primary = 0;
	bool *stale;

	/* every commit asks: after the first, nothing to read */
	if (fs->supers_settled)
		return 0;
	sb = malloc(sizeof(*sb));
	scratch = malloc(sizeof(*sb));
	stale = calloc((size_t)fs->devices.nr + 1, sizeof(*stale));
	if (!sb || !scratch || !stale) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < fs->devices.nr; i++) {
		const struct btrfs_device *d = &fs->devices.devs[i];

		/* a seed device is another filesystem's, never written */
		if (d->fd < 0 || memcmp(d->fsid, btrfs_super_metadata_fsid(fs->super), BTRFS_FSID_SIZE))
			continue;
		for (int m = 0; m < btrfs_super_copies_in(d->size) && !stale[i]; m++) {
			stale[i] = !copy_current(fs, d, m, gen, scratch);
			nr_primary += stale[i] && m == 0;
			if (!stale[i] && btrfs_super_magic(scratch) == BTRFS_MAGIC_TEMPORARY)
				magic = BTRFS_MAGIC_TEMPORARY;
		}
	}
	for (int i = 0; i < fs->devices.nr && ret == 0; i++) {
		struct btrfs_device *d = &fs->devices.devs[i];

		if (!stale[i])
			continue;
		memcpy(sb, fs->super, sizeof(*sb));
		btrfs_set_super_magic(sb, magic);
		ret = device_item(fs, d, &sb->dev_item, scratch);
		if (ret == 0)
			ret = btrfs_write_super_all(fs->write_log, d->fd, sb, &fs->csum, d->size);
		if (ret < 0)
			error("devid %llu (%s): cannot bring its superblock to generation %llu", d->devid,
			      d->path, gen);
	}
	for (int i = 0; i < fs->devices.nr && ret == 0; i++) {
		if (!stale[i])
			continue;
		ret = btrfs_dev_flush(fs->write_log, fs->devices.devs[i].fd);
		if (ret < 0)
			error_errno(ret, "fsync of %s", fs->devices.devs[i].path);
	}
	/* a stale primary copy: the last commit was cut during its superblock writes */
	if (ret == 0 && nr_primary)
		warning("%d of %d devices had the superblock of a generation before %llu (a commit was interrupted): brought up to date",
			nr_primary, fs->devices.nr, gen);
	if (ret == 0)
		fs->supers_settled = true;
out:
	free(sb);
	free(scratch);
	free(stale);
	return ret;
}

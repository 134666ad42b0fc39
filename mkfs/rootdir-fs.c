// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs --rootdir, the filesystem side: the empty filesystem mkfs has just
 * committed is opened with the write engine, rootdir.c copies the tree in
 * through transactions, then this file finishes: the "default" dir item
 * (-u default:DIR), --shrink (device and super total_bytes cut to the end
 * of the last dev extent), qgroup counts (every tree block and data extent
 * of a subvolume is its own: referenced = exclusive), in the last
 * transaction so the qgroup status generation is the filesystem's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <uuid/uuid.h>
#include "mkfs/rootdir-internal.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/messages.h"

int rootdir_fs_commit(struct rootdir_fs *f, bool restart)
{
	int ret = btrfs_commit_transaction(f->t);

	f->t = NULL;
	if (ret < 0) {
		error("cannot commit the filesystem while copying --rootdir");
		return ret;
	}
	return restart ? btrfs_start_transaction(f->fs, &f->t) : 0;
}

static int insert_in(struct btrfs_trans *t, u64 tree, u64 objectid, u8 type, u64 offset, const void *data,
		     u32 size)
{
	struct btrfs_key key = { objectid, type, offset };
	struct btrfs_wroot *root;
	int ret = btrfs_trans_get_root(t, tree, &root);

	return ret < 0 ? ret : btrfs_insert_item(t, root, &key, data, size);
}

static int add_root_ref(struct btrfs_trans *t, u64 objectid, u8 type, u64 offset, u64 dir, u64 index,
			const char *name)
{
	u8 buf[sizeof(struct btrfs_root_ref) + 256];
	struct btrfs_root_ref *ref = (struct btrfs_root_ref *)buf;
	size_t len = strlen(name);

	if (len > 255)
		return -ENAMETOOLONG;
	btrfs_set_root_ref_dirid(ref, dir);
	btrfs_set_root_ref_sequence(ref, index);
	btrfs_set_root_ref_name_len(ref, len);
	memcpy(buf + sizeof(*ref), name, len);
	return insert_in(t, BTRFS_ROOT_TREE_OBJECTID, objectid, type, offset, buf, sizeof(*ref) + len);
}

static bool has_quota(const struct rootdir_fs *f)
{
	return f->cfg->quota || f->cfg->squota;
}

static void fill_subvol_root_item(const struct rootdir_fs *f, struct btrfs_root_item *ri, const u8 *uuid,
				  bool readonly, u64 transid)
{
	btrfs_root_item_init_top_dir(ri, f->cfg->nodesize);
	/* Without ROOT_ITEM_INIT the kernel takes the item as pre-3.x and clears the flags (RDONLY). */
	btrfs_set_inode_flags(&ri->inode, BTRFS_INODE_ROOT_ITEM_INIT);
	btrfs_set_root_refs(ri, 1);
	btrfs_set_root_flags(ri, readonly ? BTRFS_ROOT_SUBVOL_RDONLY : 0);
	memcpy(ri->uuid, uuid, BTRFS_UUID_SIZE);
	btrfs_set_root_ctransid(ri, transid);
	btrfs_set_root_otransid(ri, transid);
	btrfs_set_timespec_sec(&ri->ctime, f->cfg->now);
	btrfs_set_timespec_sec(&ri->otime, f->cfg->now);
}

int rootdir_fs_new_subvol(struct rootdir_fs *f, u64 parent, u64 dir, u64 index, const char *name, int type,
		     struct rootdir_subvol **out)
{
	struct btrfs_trans *t = f->t;
	struct rootdir_subvol *sv;
	struct btrfs_wroot *r;
	__le64 id;
	int ret;

	if (f->nr_sv >= ROOTDIR_MAX_SUBVOLS) {
		error("too many subvolumes (at most %d)", ROOTDIR_MAX_SUBVOLS);
		return -E2BIG;
	}
	sv = &f->sv[f->nr_sv];
	memset(sv, 0, sizeof(*sv));
	sv->id = BTRFS_FIRST_FREE_OBJECTID + f->nr_sv;
	uuid_generate(sv->uuid);
	ret = btrfs_create_tree(t, sv->id, &r);
	if (ret < 0)
		return ret;
	f->nr_sv++;
	fill_subvol_root_item(f, &r->item, sv->uuid,
			      type == MKFS_SUBVOL_RO || type == MKFS_SUBVOL_DEFAULT_RO, btrfs_trans_transid(t));
	ret = add_root_ref(t, sv->id, BTRFS_ROOT_BACKREF_KEY, parent, dir, index, name);
	if (!ret)
		ret = add_root_ref(t, parent, BTRFS_ROOT_REF_KEY, sv->id, dir, index, name);
	put_unaligned_le64(sv->id, &id);
	if (!ret)
		ret = insert_in(t, BTRFS_UUID_TREE_OBJECTID, get_unaligned_le64(sv->uuid), BTRFS_UUID_KEY_SUBVOL,
				get_unaligned_le64(sv->uuid + 8), &id, sizeof(id));
	if (!ret && has_quota(f)) {
		struct btrfs_qgroup_info_item info = { 0 };
		struct btrfs_qgroup_limit_item lim = { 0 };

		ret = insert_in(t, BTRFS_QUOTA_TREE_OBJECTID, 0, BTRFS_QGROUP_INFO_KEY, sv->id, &info,
				sizeof(info));
		if (!ret)
			ret = insert_in(t, BTRFS_QUOTA_TREE_OBJECTID, 0, BTRFS_QGROUP_LIMIT_KEY, sv->id, &lim,
					sizeof(lim));
	}
	if (ret < 0) {
		error("cannot create subvolume %s", name);
		return ret;
	}
	if (type == MKFS_SUBVOL_DEFAULT || type == MKFS_SUBVOL_DEFAULT_RO)
		f->default_subvol = sv->id;
	*out = sv;
	return 0;
}

/* "default" in the root tree directory names the default subvolume; DEFAULT_SUBVOL set. */
static int set_default_subvol(struct rootdir_fs *f)
{
	const char *def = "default";
	struct btrfs_key key = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash(def, (int)strlen(def)) };
	struct btrfs_super_block *sb = f->fs->super;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret;

	if (!f->default_subvol)
		return 0;
	ret = btrfs_trans_get_root(f->t, BTRFS_ROOT_TREE_OBJECTID, &root);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(f->t, root, &key, &path, 0, 1);
	if (ret == 0) {
		struct btrfs_dir_item *di = btrfs_path_item_ptr(&path);

		btrfs_set_disk_key_objectid(&di->location, f->default_subvol);
	}
	btrfs_release_path(&path);
	if (ret > 0) {
		error("the root tree has no \"default\" directory item");
		return -ENOENT;
	}
	if (ret < 0)
		return ret;
	btrfs_set_super_incompat_flags(sb, btrfs_super_incompat_flags(sb) |
					   BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL);
	f->fs->geo.incompat_flags |= BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL;
	return 0;
}

/* Blocks of the subtree at bytenr. */
static int count_blocks(struct btrfs_trans *t, u64 tree, u64 bytenr, int level, u64 gen,
			const struct btrfs_disk_key *first, u64 *n)
{
	struct extent_buffer *eb;
	bool owned;
	int ret = 0;

	(*n)++;
	if (level == 0)
		return 0;
	ret = btrfs_trans_read_block(t, tree, bytenr, level, gen, first, &eb, &owned);
	if (ret < 0)
		return ret;
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && !ret; i++) {
		const struct btrfs_key_ptr *p = btrfs_node_key_ptr(eb, (int)i);

		ret = count_blocks(t, tree, btrfs_key_blockptr(p), level - 1, btrfs_key_generation(p), &p->key, n);
	}
	if (owned)
		free_extent_buffer(eb);
	return ret;
}

/* The quota tree item at key, for changing in place (path released by the caller). */
static void *quota_item(struct btrfs_trans *t, u8 type, u64 offset, struct btrfs_path *path, int *ret)
{
	struct btrfs_key key = { 0, type, offset };
	struct btrfs_wroot *quota;

	btrfs_init_path(path);
	*ret = btrfs_trans_get_root(t, BTRFS_QUOTA_TREE_OBJECTID, &quota);
	if (!*ret)
		*ret = btrfs_search_slot(t, quota, &key, path, 0, 1);
	if (*ret > 0) {
		error("quota tree: no item (0 %u %llu)", type, (unsigned long long)offset);
		*ret = -ENOENT;
	}
	return *ret ? NULL : btrfs_path_item_ptr(path);
}

/* One subvolume's qgroup: its tree blocks and data. */
static int set_qgroup(struct rootdir_fs *f, u64 id, u64 data_bytes)
{
	struct btrfs_trans *t = f->t;
	struct btrfs_qgroup_info_item *info;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	u64 blocks = 0, bytes;
	int ret;

	ret = btrfs_trans_get_root(t, id, &root);
	if (!ret)
		ret = count_blocks(t, id, root->bytenr, root->level, 0, NULL, &blocks);
	if (ret < 0)
		return ret;
	bytes = blocks * f->cfg->nodesize + data_bytes;
	info = quota_item(t, BTRFS_QGROUP_INFO_KEY, id, &path, &ret);
	if (info) {
		btrfs_set_qgroup_info_generation(info, btrfs_trans_transid(t));
		if (!f->cfg->squota)
			btrfs_set_qgroup_info_usage(info, bytes, bytes);
	}
	btrfs_release_path(&path);
	return ret;
}

/* Qgroup counts and status generation, in the last transaction (nothing else changes after). */
static int set_qgroups(struct rootdir_fs *f)
{
	struct btrfs_qgroup_status_item *st;
	struct btrfs_path path;
	int ret;

	if (!has_quota(f))
		return 0;
	st = quota_item(f->t, BTRFS_QGROUP_STATUS_KEY, 0, &path, &ret);
	if (st)
		btrfs_set_qgroup_status_generation(st, btrfs_trans_transid(f->t));
	btrfs_release_path(&path);
	if (!ret)
		ret = set_qgroup(f, BTRFS_FS_TREE_OBJECTID, f->top_data_bytes);
	for (int i = 0; i < f->nr_sv && !ret; i++)
		ret = set_qgroup(f, f->sv[i].id, f->sv[i].data_bytes);
	return ret;
}

/* --shrink: device 1 (the only one) ends where its last dev extent ends; *end set. */
static int shrink_device(struct rootdir_fs *f, u64 *end)
{
	struct btrfs_trans *t = f->t;
	struct btrfs_key key = { 1, BTRFS_DEV_EXTENT_KEY, (u64)-1 }, found;
	struct btrfs_super_block *sb = f->fs->super;
	struct btrfs_wroot *dev;
	struct btrfs_path path;
	int ret;

	*end = BTRFS_DEVICE_RANGE_RESERVED;
	ret = btrfs_trans_get_root(t, BTRFS_DEV_TREE_OBJECTID, &dev);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, dev, &key, BTRFS_SEARCH_PREV, &path, &found);
	if (ret == 0 && found.objectid == 1 && found.type == BTRFS_DEV_EXTENT_KEY)
		*end = found.offset +
		       btrfs_dev_extent_length((const struct btrfs_dev_extent *)btrfs_path_item_ptr(&path));
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	ret = btrfs_trans_dev_item(t, 1, &path);
	if (ret) {
		error("--shrink: no dev item for device 1");
		return ret;
	}
	btrfs_set_device_total_bytes(btrfs_path_item_ptr(&path), *end);
	btrfs_release_path(&path);
	/* the superblocks' dev_item copies follow the chunk tree's at commit */
	btrfs_set_super_total_bytes(sb, *end);
	/* No superblock copy past the end any more. */
	f->fs->devices.devs[0].total_bytes = *end;
	f->fs->devices.devs[0].size = *end;
	return 0;
}

/* Zero the superblock copies of a block device past the shrunk end. */
static int wipe_supers_past(const struct mkfs_config *cfg, const struct mkfs_device *d, u64 end)
{
	for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 off = btrfs_sb_offset(m);
		int ret;

		if (off + BTRFS_SUPER_INFO_SIZE <= end || off + BTRFS_SUPER_INFO_SIZE > d->size)
			continue;
		ret = btrfs_dev_zero(cfg->write_log, d->fd, off, BTRFS_SUPER_INFO_SIZE, false);
		if (ret < 0) {
			error_errno(ret, "cannot clear superblock %d on %s", m, d->path);
			return -EIO;
		}
	}
	return btrfs_dev_flush(cfg->write_log, d->fd);
}

static void fill_summary(const struct rootdir_fs *f, struct mkfs_summary *s, u64 dev_size)
{
	const struct btrfs_chunk_tree_map *map = &f->fs->chunks;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < map->nr && s->nr_chunks < (int)ARRAY_SIZE(s->chunks); i++) {
		s->chunks[s->nr_chunks].type = map->chunks[i]->type;
		s->chunks[s->nr_chunks].size = map->chunks[i]->length;
		s->nr_chunks++;
	}
	s->total_bytes = btrfs_super_total_bytes(f->fs->super);
	s->bytes_used = btrfs_super_bytes_used(f->fs->super);
	s->dev_size[0] = dev_size;
}

int mkfs_fill_rootdir(const struct mkfs_config *cfg, struct mkfs_summary *summary)
{
	struct rootdir_fs *f = calloc(1, sizeof(*f));
	struct btrfs_open_args args = { 0 };
	char **paths = calloc(cfg->ndevs + 1, sizeof(*paths));
	u64 end = cfg->devs[0].size;
	int ret;

	if (!f || !paths) {
		free(f);
		free(paths);
		return -ENOMEM;
	}
	for (int i = 0; i < cfg->ndevs; i++)
		paths[i] = (char *)cfg->devs[i].path;
	f->cfg = cfg;
	args.devices = paths;
	args.ndevices = cfg->ndevs;
	args.auth_key = cfg->auth_key;
	args.auth_key_len = cfg->auth_key_len;
	args.noscan = true;
	args.writable = true;
	args.temporary_super = true;    /* the skeleton mkfs-layout.c wrote */
	ret = btrfs_open_fs(&args, &f->fs);
	if (!ret)
		ret = btrfs_start_transaction(f->fs, &f->t);
	if (!ret)
		ret = rootdir_copy_tree(f);
	if (!ret)
		ret = set_default_subvol(f);
	if (!ret && cfg->shrink) {
		/* Every chunk is made: the copy's last transaction is in. */
		ret = rootdir_fs_commit(f, true);
		if (!ret)
			ret = shrink_device(f, &end);
	}
	if (!ret)
		ret = set_qgroups(f);
	if (!ret) {
		/* The uuid tree is complete: no rescan at the next mount (mkfs' own promise). */
		btrfs_set_super_uuid_tree_generation(f->fs->super, btrfs_trans_transid(f->t));
		/* the last commit makes it a filesystem: every commit before wrote the temporary magic */
		btrfs_set_super_magic(f->fs->super, BTRFS_MAGIC);
		ret = rootdir_fs_commit(f, false);
	}
	if (!ret && cfg->shrink)
		ret = wipe_supers_past(cfg, &cfg->devs[0], end);
	if (!ret && summary)
		fill_summary(f, summary, end);
	if (f->t)
		btrfs_abort_transaction(f->t);
	if (f->fs)
		btrfs_close_fs(f->fs);
	free(paths);
	free(f);
	return ret;
}

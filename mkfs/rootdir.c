// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs --rootdir: copy a directory tree into a freshly made filesystem
 * through the write engine (transaction.h), as btrfs-progs does: mkfs
 * commits the empty filesystem first, then this opens it and fills it.
 *
 * Inodes are numbered from 257 in walk order (entries of a directory sorted
 * by name), the root directory is 256 and takes the attributes of DIR.
 * Regular files of at most 2048 bytes (and less than a sector) are inline;
 * larger ones get regular extents of at most 128 MiB for each data region
 * (SEEK_DATA/SEEK_HOLE: holes stay holes, with explicit hole extents when
 * no-holes is off), data checksums in the csum tree and an extent item with
 * one inline EXTENT_DATA_REF each (btrfs_alloc_data_extent*: new data chunks
 * as needed).  Symlinks are inline extents of their target; fifos, sockets
 * and device nodes keep their rdev.  Hard links found inside DIR share one
 * inode (nlink counts the links inside DIR).  Extended attributes, modes,
 * owners and timestamps are copied.
 *
 * Directories named by --subvol become subvolumes (trees 256, 257, ... in
 * walk order, rootdir-subvol.c) with their own inode numbers from 257; a
 * hard link whose other names are in another subvolume becomes a separate
 * inode there.  --inode-flags sets NODATACOW (with NODATASUM for files) or
 * NODATASUM on a path; a directory passes its flags on to what is below it,
 * except into a subvolume.  --compress: regular extents of at most 128 KiB
 * of file data are compressed when that saves at least one sector, small
 * files become compressed inline extents when that fits; a file with
 * compressed extents gets the COMPRESS inode flag, one whose first piece
 * does not compress gets NOCOMPRESS and the rest is stored as is (as
 * btrfs-progs).  Files without checksums (NODATASUM) are never compressed,
 * as in the kernel.
 *
 * File data: rootdir-data.c.  Memory is bounded by committing whenever the
 * transaction holds ROOTDIR_COMMIT_DIRTY bytes of dirty tree blocks, and once
 * at the end; only hard-linked files are remembered across the walk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include "mkfs/rootdir-internal.h"
#include "kernel-shared/engine/ctree-append.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/growable-array.h"

#define ROOTDIR_COMMIT_DIRTY (64 * SZ_1M) /* dirty tree block bytes that make a commit */

static size_t link_slot(const struct rootdir_tree *rt, dev_t dev, ino_t ino)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ULL) ^ dev) & (rt->slots_cap - 1);
}

/* The already copied hard-linked file st names, or NULL. */
static struct rootdir_link *find_link(struct rootdir_tree *rt, const struct stat *st)
{
	if (!rt->slots_cap)
		return NULL;
	for (size_t s = link_slot(rt, st->st_dev, st->st_ino);; s = (s + 1) & (rt->slots_cap - 1)) {
		size_t i = rt->slots[s];

		if (i == (size_t)-1)
			return NULL;
		if (rt->links[i].src_dev == st->st_dev && rt->links[i].src_ino == st->st_ino)
			return &rt->links[i];
	}
}

static void put_slot(struct rootdir_tree *rt, size_t index)
{
	for (size_t s = link_slot(rt, rt->links[index].src_dev, rt->links[index].src_ino);;
	     s = (s + 1) & (rt->slots_cap - 1)) {
		if (rt->slots[s] == (size_t)-1) {
			rt->slots[s] = index;
			return;
		}
	}
}

/* Remember a hard-linked file: source st, inode ino. */
static int add_link(struct rootdir_tree *rt, const struct stat *st, u64 ino)
{
	if (ARRAY_GROW(rt->links, rt->nr_links, rt->alloc_links))
		return -ENOMEM;
	if ((rt->nr_links + 1) * 2 > rt->slots_cap) {
		size_t cap = rt->slots_cap ? rt->slots_cap * 2 : 1024;
		size_t *ns = malloc(cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		free(rt->slots);
		rt->slots = ns;
		rt->slots_cap = cap;
		memset(rt->slots, 0xff, cap * sizeof(*rt->slots));
		for (size_t i = 0; i < rt->nr_links; i++)
			put_slot(rt, i);
	}
	rt->links[rt->nr_links] = (struct rootdir_link){ st->st_dev, st->st_ino, ino };
	put_slot(rt, rt->nr_links++);
	return 0;
}

static void release_tree(struct rootdir_tree *rt)
{
	free(rt->links);
	free(rt->slots);
}

u64 rootdir_transid(const struct rootdir *rd)
{
	return btrfs_trans_transid(rd->fs->t);
}

/* The current tree's root in the transaction. */
static int cur_root(struct rootdir *rd, struct btrfs_wroot **root)
{
	int ret = 0;

	if (!rd->root)
		ret = btrfs_trans_get_root(rd->fs->t, rd->cur->root, &rd->root);
	*root = rd->root;
	return ret;
}

int rootdir_insert(struct rootdir *rd, u64 objectid, u8 type, u64 offset, const void *data, u32 size)
{
	struct btrfs_key key = { objectid, type, offset };
	struct btrfs_wroot *root;
	int ret = cur_root(rd, &root);

	return ret < 0 ? ret : btrfs_insert_item(rd->fs->t, root, &key, data, size);
}

static int insert_or_append(struct rootdir *rd, u64 objectid, u8 type, u64 offset, const void *data, u32 size)
{
	struct btrfs_key key = { objectid, type, offset };
	struct btrfs_wroot *root;
	int ret = cur_root(rd, &root);

	return ret < 0 ? ret : btrfs_insert_or_append_item(rd->fs->t, root, &key, data, size);
}

/* Everything pending into the tree and onto the disks; then commit (and start the next). */
static int rootdir_commit(struct rootdir *rd, bool restart)
{
	int ret = rootdir_flush_csums(rd);

	if (!ret)
		ret = rootdir_close_writer(rd);
	rd->root = NULL;
	if (ret < 0)
		return ret;
	return rootdir_fs_commit(rd->fs, restart);
}

/* Commit when the transaction holds enough dirty tree blocks. */
static int maybe_commit(struct rootdir *rd)
{
	if (btrfs_trans_dirty_blocks(rd->fs->t) * rd->cfg->nodesize < ROOTDIR_COMMIT_DIRTY)
		return 0;
	return rootdir_commit(rd, true);
}

/* ---- items ---- */

static void set_ts(struct btrfs_timespec *ts, const struct timespec *t)
{
	btrfs_set_timespec_sec(ts, (u64)t->tv_sec);
	btrfs_set_timespec_nsec(ts, (u32)t->tv_nsec);
}

/* The INODE_ITEM of a copied inode, with one link; replace: the tree's root directory exists. */
static int put_inode(struct rootdir *rd, const struct rootdir_inode *in, bool replace)
{
	struct btrfs_inode_item ii;
	const struct stat *st = &in->st;
	struct btrfs_key key = { in->ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret;

	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, rootdir_transid(rd));
	btrfs_set_inode_transid(&ii, rootdir_transid(rd));
	btrfs_set_inode_size(&ii, in->size);
	btrfs_set_inode_nbytes(&ii, in->nbytes);
	btrfs_set_inode_nlink(&ii, 1);
	btrfs_set_inode_uid(&ii, st->st_uid);
	btrfs_set_inode_gid(&ii, st->st_gid);
	btrfs_set_inode_mode(&ii, st->st_mode);
	btrfs_set_inode_flags(&ii, in->flags);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		btrfs_set_inode_rdev(&ii, ((u64)major(st->st_rdev) << 20) | minor(st->st_rdev));
	set_ts(&ii.atime, &st->st_atim);
	set_ts(&ii.ctime, &st->st_ctim);
	set_ts(&ii.mtime, &st->st_mtim);
	set_ts(&ii.otime, &st->st_ctim);
	if (!replace)
		return rootdir_insert(rd, in->ino, BTRFS_INODE_ITEM_KEY, 0, &ii, sizeof(ii));
	ret = cur_root(rd, &root);
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(rd->fs->t, root, &key, &path, 0, 1);
	if (ret == 0)
		memcpy(btrfs_path_item_ptr(&path), &ii, sizeof(ii));
	btrfs_release_path(&path);
	if (ret > 0)
		return rootdir_insert(rd, in->ino, BTRFS_INODE_ITEM_KEY, 0, &ii, sizeof(ii));
	return ret;
}

/* One more name of inode ino: nlink + 1. */
static int add_nlink(struct rootdir *rd, u64 ino)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = cur_root(rd, &root);

	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(rd->fs->t, root, &key, &path, 0, 1);
	if (ret == 0) {
		struct btrfs_inode_item *ii = btrfs_path_item_ptr(&path);

		btrfs_set_inode_nlink(ii, btrfs_inode_nlink(ii) + 1);
	}
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

/* The INODE_REF of name in directory parent (appended to the item of the same parent). */
static int add_inode_ref(struct rootdir *rd, u64 ino, u64 parent, u64 index, const char *name)
{
	size_t len = strlen(name);
	u8 buf[sizeof(struct btrfs_inode_ref) + NAME_MAX + 1];
	struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)buf;
	int ret;

	btrfs_set_inode_ref_index(ref, index);
	btrfs_set_inode_ref_name_len(ref, len);
	memcpy(buf + sizeof(*ref), name, len);
	ret = insert_or_append(rd, ino, BTRFS_INODE_REF_KEY, parent, buf, sizeof(*ref) + len);
	if (ret == -E2BIG || ret == -EOVERFLOW || ret == -ENOSPC)
		error("too many hard links of one file in one directory (inode %llu)", (unsigned long long)ino);
	return ret;
}

/* DIR_ITEM and DIR_INDEX of one name in directory dir: an inode, or a subvolume (ROOT_ITEM -1). */
static int add_dir_entry(struct rootdir *rd, u64 dir, u64 index, const char *name, u64 target, bool subvol,
			 u8 type)
{
	size_t len = strlen(name);
	u8 buf[sizeof(struct btrfs_dir_item) + NAME_MAX + 1];
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;
	u32 size = sizeof(*di) + len;
	int ret;

	memset(di, 0, sizeof(*di));
	btrfs_set_disk_key_objectid(&di->location, target);
	btrfs_set_disk_key_type(&di->location, subvol ? BTRFS_ROOT_ITEM_KEY : BTRFS_INODE_ITEM_KEY);
	btrfs_set_disk_key_offset(&di->location, subvol ? (u64)-1 : 0);
	btrfs_set_dir_transid(di, rootdir_transid(rd));
	btrfs_set_dir_name_len(di, len);
	btrfs_set_dir_type(di, type);
	memcpy(buf + sizeof(*di), name, len);
	ret = rootdir_insert(rd, dir, BTRFS_DIR_INDEX_KEY, index, buf, size);
	if (!ret)
		ret = insert_or_append(rd, dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, (int)len), buf, size);
	return ret;
}

/* The xattrs of fd, or of path (not followed) when fd < 0. */
static int copy_xattrs(struct rootdir *rd, int fd, const char *path, u64 ino)
{
	char names[65536];
	u8 *buf = NULL;
	ssize_t len = fd >= 0 ? flistxattr(fd, names, sizeof(names)) : llistxattr(path, names, sizeof(names));
	u32 max = rd->cfg->nodesize - sizeof(struct btrfs_header) - sizeof(struct btrfs_item) -
		  sizeof(struct btrfs_dir_item);
	int ret = 0;

	if (len <= 0)
		return 0;
	buf = malloc(sizeof(struct btrfs_dir_item) + 2 * 65536);
	if (!buf)
		return -ENOMEM;
	for (char *n = names; n < names + len && !ret; n += strlen(n) + 1) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;
		size_t nlen = strlen(n);
		u8 *value = buf + sizeof(*di) + nlen;
		ssize_t vlen = fd >= 0 ? fgetxattr(fd, n, value, 65536) : lgetxattr(path, n, value, 65536);

		if (vlen < 0)
			continue;
		if (nlen + vlen > max) {
			error("xattr %s of %s is too large (%zd bytes)", n, path, vlen);
			ret = -E2BIG;
			break;
		}
		memset(di, 0, sizeof(*di));
		btrfs_set_dir_transid(di, rootdir_transid(rd));
		btrfs_set_dir_data_len(di, vlen);
		btrfs_set_dir_name_len(di, nlen);
		btrfs_set_dir_type(di, BTRFS_FT_XATTR);
		memcpy(buf + sizeof(*di), n, nlen);
		/* Names with one hash share the item, as in the kernel. */
		ret = insert_or_append(rd, ino, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(n, (int)nlen), buf,
				       sizeof(*di) + nlen + vlen);
		if (ret < 0)
			error("cannot add xattr %s of %s", n, path);
	}
	free(buf);
	return ret;
}

/* Open name in directory dfd, not following a symlink: the fd, or -errno (printed, path named). */
int rootdir_open_child(int dfd, const char *name, const char *path, bool dir)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));

	if (fd < 0) {
		fd = -errno;
		error_errno(fd, "cannot open %s", path);
	}
	return fd;
}

/* A stream over directory dfd, or NULL with dfd closed and *ret set (printed). */
DIR *rootdir_open_dir_stream(int dfd, const char *path, int *ret)
{
	DIR *d = fdopendir(dfd);

	if (!d) {
		*ret = -errno;
		error_errno(*ret, "cannot open directory %s", path);
		close(dfd);
	}
	return d;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct rootdir_mark *find_mark(const struct rootdir_mark *m, int n, const struct stat *st)
{
	for (int i = 0; i < n; i++)
		if (m[i].dev == st->st_dev && m[i].ino == st->st_ino)
			return &m[i];
	return NULL;
}

/* The flags a new inode gets: inherited from its directory, plus --inode-flags. */
static u32 inode_flags_for(const struct rootdir *rd, const struct stat *st, u32 inherit)
{
	const struct rootdir_mark *m = find_mark(rd->iflags, rd->nr_iflags, st);
	u32 flags = inherit | (m ? m->flags : 0);

	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) && (flags & BTRFS_INODE_NODATACOW))
		flags |= BTRFS_INODE_NODATASUM;
	return flags;
}

/* Symlink name in directory dfd (path in messages). */
static int copy_symlink(struct rootdir *rd, int dfd, const char *name, const char *path, struct rootdir_inode *in)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(dfd, name, target, sizeof(target));

	if (len < 0) {
		error_errno(-errno, "cannot read link %s", path);
		return -errno;
	}
	in->size = len;
	return rootdir_add_inline(rd, in, (const u8 *)target, len, len, 0);
}

static int walk_dir(struct rootdir *rd, int dfd, const char *path, struct rootdir_inode *dir);

/*
 * Fill tree (the top-level subvolume, or a new one: top false) from
 * directory dfd (taken over; path in messages); st is its stat, flags its
 * inode flags.
 */
static int fill_tree(struct rootdir *rd, struct rootdir_tree *tree, int dfd, const char *path, const struct stat *st,
		     u32 flags, bool top)
{
	struct rootdir_tree *saved = rd->cur;
	struct rootdir_inode root = { .ino = BTRFS_FIRST_FREE_OBJECTID, .flags = flags, .st = *st };
	int ret = 0;

	rd->cur = tree;
	rd->root = NULL;
	tree->next_ino = BTRFS_FIRST_FREE_OBJECTID + 1;
	if (!top)
		ret = add_inode_ref(rd, BTRFS_FIRST_FREE_OBJECTID, BTRFS_FIRST_FREE_OBJECTID, 0, "..");
	if (!ret)
		ret = copy_xattrs(rd, dfd, path, BTRFS_FIRST_FREE_OBJECTID);
	if (ret < 0)
		close(dfd);
	else
		ret = walk_dir(rd, dfd, path, &root);
	if (!ret)
		ret = put_inode(rd, &root, true);
	rd->cur = saved;
	rd->root = NULL;
	return ret;
}

/* Directory dfd (taken over; name in directory dir of the current tree) becomes a subvolume. */
static int make_subvol(struct rootdir *rd, int dfd, const char *path, const struct stat *st, const struct rootdir_mark *m,
		       u64 dir, u64 index, const char *name, u64 *id)
{
	struct rootdir_tree tree = { 0 };
	struct rootdir_subvol *sv;
	int ret;

	ret = rootdir_fs_new_subvol(rd->fs, rd->cur->root, dir, index, name, m->type, &sv);
	if (ret < 0) {
		close(dfd);
		return ret;
	}
	rd->root = NULL;
	tree.root = sv->id;
	tree.data_bytes = &sv->data_bytes;
	/* A subvolume does not inherit inode flags from the directory above it. */
	ret = fill_tree(rd, &tree, dfd, path, st, inode_flags_for(rd, st, 0), false);
	release_tree(&tree);
	*id = sv->id;
	return ret;
}

/* The sorted names in directory d, without "." and "..": *nr set; NULL on -ENOMEM. */
static char **read_names(DIR *d, size_t *nr)
{
	struct dirent *de;
	char **names = NULL;
	size_t alloc = 0;

	*nr = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ARRAY_GROW(names, *nr, alloc))
			goto fail;
		names[*nr] = strdup(de->d_name);
		if (!names[*nr])
			goto fail;
		(*nr)++;
	}
	if (!names)
		names = malloc(sizeof(*names));
	if (names)
		qsort(names, *nr, sizeof(*names), cmp_name);
	return names;
fail:
	for (size_t i = 0; i < *nr; i++)
		free(names[i]);
	free(names);
	return NULL;
}

/*
 * Copy one entry of a directory: name in dfd (path in messages), with its
 * stat, number and flags in *in; adds its xattrs and contents (a directory:
 * everything below it), not its INODE_ITEM.
 */
static int copy_entry(struct rootdir *rd, int dfd, const char *name, const char *path, struct rootdir_inode *in)
{
	int fd = -1, ret;

	if (S_ISREG(in->st.st_mode) || S_ISDIR(in->st.st_mode)) {
		fd = rootdir_open_child(dfd, name, path, S_ISDIR(in->st.st_mode));
		if (fd < 0)
			return fd;
	}
	ret = copy_xattrs(rd, fd, path, in->ino);
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (S_ISDIR(in->st.st_mode))
		return walk_dir(rd, fd, path, in);      /* closes fd */
	if (S_ISREG(in->st.st_mode))
		ret = rootdir_copy_regular(rd, fd, path, in);
	else if (S_ISLNK(in->st.st_mode))
		ret = copy_symlink(rd, dfd, name, path, in);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* One name of directory dir (dfd): the inode (or subvolume) it names, its ref and dir items. */
static int copy_name(struct rootdir *rd, int dfd, const char *name, const char *child, struct rootdir_inode *dir,
		     u64 index)
{
	struct rootdir_tree *tree = rd->cur;
	struct rootdir_inode in = { 0 };
	const struct rootdir_mark *sv;
	struct rootdir_link *link;
	bool linked;
	u64 ino;
	int ret;

	if (fstatat(dfd, name, &in.st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = -errno;
		error_errno(ret, "cannot stat %s", child);
		return ret;
	}
	dir->size += 2 * strlen(name);
	sv = S_ISDIR(in.st.st_mode) ? find_mark(rd->subvols, rd->nr_subvols, &in.st) : NULL;
	if (sv) {
		int fd = rootdir_open_child(dfd, name, child, true);

		if (fd < 0)
			return fd;
		ret = make_subvol(rd, fd, child, &in.st, sv, dir->ino, index, name, &ino);
		if (!ret)
			ret = add_dir_entry(rd, dir->ino, index, name, ino, true, BTRFS_FT_DIR);
		return ret;
	}
	linked = !S_ISDIR(in.st.st_mode) && in.st.st_nlink > 1;
	link = linked ? find_link(tree, &in.st) : NULL;
	if (link) {
		/* Another name of a file copied already. */
		ino = link->ino;
		ret = add_nlink(rd, ino);
	} else {
		in.ino = tree->next_ino++;
		in.flags = inode_flags_for(rd, &in.st, dir->flags);
		ret = copy_entry(rd, dfd, name, child, &in);
		if (!ret)
			ret = put_inode(rd, &in, false);
		if (!ret && linked)
			ret = add_link(tree, &in.st, in.ino);
		ino = in.ino;
	}
	if (!ret)
		ret = add_inode_ref(rd, ino, dir->ino, index, name);
	if (!ret)
		ret = add_dir_entry(rd, dir->ino, index, name, ino, false, btrfs_ftype_of_mode(in.st.st_mode));
	return ret;
}

/* The entries of directory dfd (taken over and closed; path in messages). */
static int walk_dir(struct rootdir *rd, int dfd, const char *path, struct rootdir_inode *dir)
{
	char **names = NULL;
	size_t nr = 0;
	int ret = 0;
	DIR *d = rootdir_open_dir_stream(dfd, path, &ret);

	if (!d)
		return ret;
	names = read_names(d, &nr);
	if (!names) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr && !ret; i++) {
		char child[PATH_MAX];

		if (snprintf(child, sizeof(child), "%s/%s", path, names[i]) >= (int)sizeof(child)) {
			error("path too long: %s/%s", path, names[i]);
			ret = -ENAMETOOLONG;
			break;
		}
		ret = copy_name(rd, dirfd(d), names[i], child, dir, 2 + i);
		if (!ret)
			ret = maybe_commit(rd);
	}
out:
	closedir(d);
	for (size_t i = 0; names && i < nr; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* (dev, ino) of each --subvol and --inode-flags path. */
static int mark_paths(struct rootdir *rd, const struct mkfs_config *cfg)
{
	rd->subvols = calloc(cfg->nr_subvols + 1, sizeof(*rd->subvols));
	rd->iflags = calloc(cfg->nr_inode_flags + 1, sizeof(*rd->iflags));
	if (!rd->subvols || !rd->iflags)
		return -ENOMEM;
	for (int i = 0; i < cfg->nr_subvols; i++) {
		struct stat st;

		if (lstat(cfg->subvols[i].path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			error("subvolume %s is not a directory", cfg->subvols[i].path);
			return -ENOTDIR;
		}
		rd->subvols[i] = (struct rootdir_mark){ st.st_dev, st.st_ino, cfg->subvols[i].type, 0 };
	}
	rd->nr_subvols = cfg->nr_subvols;
	for (int i = 0; i < cfg->nr_inode_flags; i++) {
		struct stat st;

		if (lstat(cfg->inode_flags[i].path, &st) < 0) {
			error_errno(-errno, "cannot stat %s", cfg->inode_flags[i].path);
			return -ENOENT;
		}
		rd->iflags[i] = (struct rootdir_mark){ st.st_dev, st.st_ino, 0, cfg->inode_flags[i].flags };
	}
	rd->nr_iflags = cfg->nr_inode_flags;
	return 0;
}

int rootdir_copy_tree(struct rootdir_fs *f)
{
	const struct mkfs_config *cfg = f->cfg;
	const char *dir = cfg->rootdir;
	struct rootdir rd = { .fs = f, .cfg = cfg };
	struct rootdir_tree top = { .root = BTRFS_FS_TREE_OBJECTID, .data_bytes = &f->top_data_bytes };
	struct stat st;
	int dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		error("--rootdir %s is not a directory", dir);
		if (dfd >= 0)
			close(dfd);
		return -ENOTDIR;
	}
	rd.csum = cfg->csum;
	if (!rd.csum) {
		ret = btrfs_csum_setup(&rd.own_csum, cfg->csum_type, NULL, 0);
		if (ret < 0) {
			close(dfd);
			return ret;
		}
		rd.csum = &rd.own_csum;
	}
	rd.csum_size = btrfs_csum_type_size(cfg->csum_type);
	rd.csum_max = (cfg->nodesize - sizeof(struct btrfs_header) - 2 * sizeof(struct btrfs_item)) /
		      rd.csum_size - 1;
	rd.csums = malloc((size_t)rd.csum_max * rd.csum_size);
	rd.buf = malloc(ROOTDIR_IO_SIZE);
	rd.cbuf = malloc(BTRFS_MAX_UNCOMPRESSED);
	rd.wbuf = malloc(ROOTDIR_IO_SIZE);
	if (!rd.buf || !rd.cbuf || !rd.wbuf || !rd.csums) {
		ret = -ENOMEM;
		goto out;
	}
	if (cfg->compress) {
		ret = btrfs_compressor_init(&rd.comp, cfg->compress, cfg->compress_level, cfg->sectorsize);
		if (ret < 0) {
			error("cannot use compression %s level %d", btrfs_compress_name(cfg->compress),
			      cfg->compress_level);
			goto out;
		}
		rd.compress = true;
	}
	ret = mark_paths(&rd, cfg);
	if (!ret) {
		const struct rootdir_mark *top_flags = find_mark(rd.iflags, rd.nr_iflags, &st);

		ret = fill_tree(&rd, &top, dfd, dir, &st, top_flags ? top_flags->flags : 0, true);
		dfd = -1;
	}
	/* The last transaction stays open for rootdir_fs_finish(). */
	if (!ret)
		ret = rootdir_flush_csums(&rd);
	if (!ret)
		ret = rootdir_close_writer(&rd);
out:
	if (rd.w_open) {
		btrfs_block_writer_release(&rd.w);
		free(rd.wdevs);
	}
	if (dfd >= 0)
		close(dfd);
	release_tree(&top);
	free(rd.subvols);
	free(rd.iflags);
	free(rd.buf);
	free(rd.cbuf);
	free(rd.wbuf);
	free(rd.csums);
	if (rd.compress)
		btrfs_compressor_release(&rd.comp);
	if (rd.csum == &rd.own_csum)
		btrfs_csum_release(&rd.own_csum);
	return ret;
}

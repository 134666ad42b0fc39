// SPDX-License-Identifier: GPL-2.0
/*
 * Exercise the write engine on a real filesystem: create empty regular
 * files in the top-level directory of the fs tree (INODE_ITEM, INODE_REF,
 * DIR_ITEM, DIR_INDEX, the directory's size and times), optionally with a
 * user.engine xattr that is then grown or shrunk in place, over several
 * commits; optionally delete some of them again.
 *
 *   engine-fill [-n FILES] [-c COMMITS] [-x] [-d DELETE] [-p PREFIX] [-F] [-R] [-s SUBVOL]
 *               [-X BYTES] [-D KIB] [-r FIRST:STEP:COUNT] DEVICE...
 *
 *   -n  files to create (default 1000), spread over -c commits (default 4)
 *   -x  each file gets xattr user.engine = "v<ino>"; every 3rd one is then
 *       extended to 200 bytes ('x' * 200 after the name), every 5th cut to 1
 *   -d  then delete the last DELETE files created, in one more commit
 *   -p  name prefix (default "f"): files are PREFIX<number>
 *   -F  the last commit fails before the superblock is written (crash test)
 *   -R  the first commit rebuilds the free space tree (creates it if absent)
 *   -s  the subvolume (tree id) to fill, default 5 (top level)
 *   -X  as -x with a value of BYTES bytes ("v<ino>" then 'x's), not resized
 *   -D  each file gets KIB KiB of data in one extent (btrfs_alloc_data_extent,
 *       NODATASUM inode), every byte 'a' + ino % 26
 *   -k  the key of a keyed csum type (the bytes of KEY)
 *   -r  create nothing: remove the files PREFIX<FIRST + k * STEP>, k < COUNT
 *       (found by name; their data extents freed), in one commit
 *
 * Prints "generation G files N" after each commit.  Exit 0, 1 on error,
 * 3 when -F made the last commit fail as asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <getopt.h>
#include <time.h>
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/engine/ctree-append.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/tree-checker.h"

#define DIR_INO BTRFS_FIRST_FREE_OBJECTID
#define XNAME "user.engine"

struct created {
	u64 ino;
	u64 index;
	char name[64];
};

struct fill_opts {
	bool xattr;
	u64 data_len;                  /* bytes of data per file (-D) */
	u16 xattr_len;                 /* -X: xattr value length, no resizing */
	u64 subvol;
};

static void set_now(struct btrfs_timespec *ts)
{
	btrfs_set_timespec_sec(ts, (u64)time(NULL));
	btrfs_set_timespec_nsec(ts, 0);
}

/* Highest objectid in the fs tree, highest DIR_INDEX of the directory. */
static int find_next(struct btrfs_trans *t, struct btrfs_wroot *root, u64 *ino, u64 *index)
{
	struct btrfs_path path;
	struct btrfs_key key = { BTRFS_LAST_FREE_OBJECTID, 255, (u64)-1 }, found;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_PREV, &path, &found);
	if (ret < 0)
		return ret;
	*ino = (ret == 0 && found.objectid >= DIR_INO) ? found.objectid + 1 : DIR_INO + 1;
	key = (struct btrfs_key){ DIR_INO, BTRFS_DIR_INDEX_KEY, (u64)-1 };
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_PREV, &path, &found);
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	*index = (ret == 0 && found.objectid == DIR_INO && found.type == BTRFS_DIR_INDEX_KEY) ?
			 found.offset + 1 : 2;
	return 0;
}

static void fill_dir_item(u8 *buf, const struct btrfs_key *loc, u64 transid, const char *name,
			  u16 name_len, const void *data, u16 data_len, u8 type)
{
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;

	memset(di, 0, sizeof(*di));
	if (loc)
		btrfs_cpu_key_to_disk(&di->location, loc);
	btrfs_set_dir_transid(di, transid);
	btrfs_set_dir_data_len(di, data_len);
	btrfs_set_dir_name_len(di, name_len);
	btrfs_set_dir_type(di, type);
	memcpy(buf + sizeof(*di), name, name_len);
	if (data_len)
		memcpy(buf + sizeof(*di) + name_len, data, data_len);
}

/* Remove the entry named name from the dir item at key (the whole item if alone). */
static int remove_dir_item(struct btrfs_trans *t, struct btrfs_wroot *root,
			   const struct btrfs_key *key, const char *name, u16 name_len)
{
	struct btrfs_path path;
	u32 size, off = 0;
	u8 *p;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, key, &path, -1, 1);
	if (ret) {
		btrfs_release_path(&path);
		return ret > 0 ? -ENOENT : ret;
	}
	p = btrfs_path_item_ptr(&path);
	size = btrfs_path_item_size(&path);
	while (off + sizeof(struct btrfs_dir_item) <= size) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)(p + off);
		u32 len = sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);

		if (btrfs_dir_name_len(di) == name_len &&
		    !memcmp(p + off + sizeof(*di), name, name_len)) {
			if (len == size)
				return btrfs_del_items(t, root, &path, path.slots[0], 1);
			memmove(p + off, p + off + len, size - off - len);
			ret = btrfs_truncate_item(t, &path, size - len, true);
			btrfs_release_path(&path);
			return ret;
		}
		off += len;
	}
	btrfs_release_path(&path);
	return -ENOENT;
}

static int update_dir(struct btrfs_trans *t, struct btrfs_wroot *root, s64 size_delta)
{
	struct btrfs_path path;
	struct btrfs_key key = { DIR_INO, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item *ii;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 1);
	if (ret == 0) {
		ii = btrfs_path_item_ptr(&path);
		btrfs_set_inode_size(ii, btrfs_inode_size(ii) + (u64)size_delta);
		btrfs_set_inode_transid(ii, btrfs_trans_transid(t));
		btrfs_set_inode_sequence(ii, btrfs_inode_sequence(ii) + 1);
		set_now(&ii->ctime);
		set_now(&ii->mtime);
	}
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

/* One data extent of o->data_len bytes at file offset 0, its bytes written. */
static int add_file_data(struct btrfs_trans *t, struct btrfs_wroot *root, const struct created *c,
			 const struct fill_opts *o)
{
	struct btrfs_file_extent_item fi;
	struct btrfs_key key = { c->ino, BTRFS_EXTENT_DATA_KEY, 0 };
	u64 bytenr;
	u8 *buf;
	int ret;

	ret = btrfs_alloc_data_extent(t, o->data_len, o->subvol, c->ino, 0, &bytenr);
	if (ret)
		return ret;
	buf = malloc(o->data_len);
	if (!buf)
		return -ENOMEM;
	memset(buf, 'a' + (int)(c->ino % 26), o->data_len);
	ret = btrfs_trans_write_data(t, bytenr, buf, o->data_len);
	free(buf);
	if (ret)
		return ret;
	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, btrfs_trans_transid(t));
	btrfs_set_file_extent_ram_bytes(&fi, o->data_len);
	btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_disk_bytenr(&fi, bytenr);
	btrfs_set_file_extent_disk_num_bytes(&fi, o->data_len);
	btrfs_set_file_extent_num_bytes(&fi, o->data_len);
	return btrfs_insert_item(t, root, &key, &fi, sizeof(fi));
}

static int create_file(struct btrfs_trans *t, struct btrfs_wroot *root, const struct created *c,
		       const struct fill_opts *o)
{
	bool xattr = o->xattr;
	u8 buf[512];
	struct btrfs_key key;
	struct btrfs_inode_item ii;
	struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)buf;
	struct btrfs_key loc = { c->ino, BTRFS_INODE_ITEM_KEY, 0 };
	u16 len = (u16)strlen(c->name);
	u32 disz = sizeof(struct btrfs_dir_item) + len;
	int ret;

	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, btrfs_trans_transid(t));
	btrfs_set_inode_transid(&ii, btrfs_trans_transid(t));
	btrfs_set_inode_nlink(&ii, 1);
	btrfs_set_inode_mode(&ii, 0100644);
	if (o->data_len) {
		btrfs_set_inode_size(&ii, o->data_len);
		btrfs_set_inode_nbytes(&ii, o->data_len);
		btrfs_set_inode_flags(&ii, BTRFS_INODE_NODATASUM);
	}
	set_now(&ii.atime);
	set_now(&ii.ctime);
	set_now(&ii.mtime);
	set_now(&ii.otime);
	key = (struct btrfs_key){ c->ino, BTRFS_INODE_ITEM_KEY, 0 };
	ret = btrfs_insert_item(t, root, &key, &ii, sizeof(ii));
	if (ret == 0 && o->data_len)
		ret = add_file_data(t, root, c, o);
	if (ret)
		return ret;
	btrfs_set_inode_ref_index(ref, c->index);
	btrfs_set_inode_ref_name_len(ref, len);
	memcpy(buf + sizeof(*ref), c->name, len);
	key = (struct btrfs_key){ c->ino, BTRFS_INODE_REF_KEY, DIR_INO };
	ret = btrfs_insert_item(t, root, &key, buf, sizeof(*ref) + len);
	if (ret)
		return ret;
	fill_dir_item(buf, &loc, btrfs_trans_transid(t), c->name, len, NULL, 0, BTRFS_FT_REG_FILE);
	key = (struct btrfs_key){ DIR_INO, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(c->name, len) };
	ret = btrfs_insert_or_append_item(t, root, &key, buf, disz);
	if (ret)
		return ret;
	key = (struct btrfs_key){ DIR_INO, BTRFS_DIR_INDEX_KEY, c->index };
	ret = btrfs_insert_item(t, root, &key, buf, disz);
	if (ret)
		return ret;
	if (xattr) {
		u16 vlen = o->xattr_len ? o->xattr_len : 32;
		char *val = malloc(vlen + 1u);
		u8 *xbuf = malloc(sizeof(struct btrfs_dir_item) + strlen(XNAME) + vlen);

		if (!val || !xbuf) {
			free(val);
			free(xbuf);
			return -ENOMEM;
		}
		/* "v<ino>", padded with 'x' to -X bytes */
		snprintf(val, vlen + 1u, "v%llu", (unsigned long long)c->ino);
		if (o->xattr_len)
			memset(val + strlen(val), 'x', vlen - strlen(val));
		else
			vlen = (u16)strlen(val);
		fill_dir_item(xbuf, NULL, btrfs_trans_transid(t), XNAME, strlen(XNAME), val, vlen, BTRFS_FT_XATTR);
		key = (struct btrfs_key){ c->ino, BTRFS_XATTR_ITEM_KEY,
					  btrfs_name_hash(XNAME, strlen(XNAME)) };
		ret = btrfs_insert_or_append_item(t, root, &key, xbuf,
				      sizeof(struct btrfs_dir_item) + strlen(XNAME) + vlen);
		free(val);
		free(xbuf);
		if (ret)
			return ret;
	}
	return update_dir(t, root, 2 * (s64)len);
}

/* Grow (every 3rd) or shrink (every 5th) a file's xattr value in place. */
static int resize_xattr(struct btrfs_trans *t, struct btrfs_wroot *root, const struct created *c)
{
	struct btrfs_key key = { c->ino, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(XNAME, strlen(XNAME)) };
	struct btrfs_path path;
	struct btrfs_dir_item *di;
	u32 size, base = sizeof(*di) + strlen(XNAME);
	int ret;

	if (c->ino % 3 && c->ino % 5)
		return 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, c->ino % 3 == 0 ? 200 : 0, 1);
	if (ret) {
		btrfs_release_path(&path);
		return ret > 0 ? -ENOENT : ret;
	}
	size = btrfs_path_item_size(&path);
	if (c->ino % 3 == 0) {
		ret = btrfs_extend_item(t, &path, 200 - (size - base));
		di = btrfs_path_item_ptr(&path);
		if (ret == 0) {
			memset((u8 *)di + base, 'x', 200);
			btrfs_set_dir_data_len(di, 200);
		}
	} else {
		ret = btrfs_truncate_item(t, &path, base + 1, true);
		di = btrfs_path_item_ptr(&path);
		if (ret == 0)
			btrfs_set_dir_data_len(di, 1);
	}
	btrfs_release_path(&path);
	return ret;
}

/* The file's data extent at offset 0, if any: item deleted, extent freed. */
static int delete_file_data(struct btrfs_trans *t, struct btrfs_wroot *root, u64 ino)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	const struct btrfs_file_extent_item *fi;
	u64 bytenr = 0, len = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_path_item_size(&path) >= sizeof(*fi)) {
		fi = btrfs_path_item_ptr(&path);
		bytenr = btrfs_file_extent_disk_bytenr(fi);
		len = btrfs_file_extent_disk_num_bytes(fi);
	}
	btrfs_release_path(&path);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = btrfs_delete_item(t, root, &key);
	if (ret == 0 && bytenr)
		ret = btrfs_free_data_extent(t, bytenr, len);
	return ret;
}

/* A file of the directory by name: its inode and dir index into c (0, -ENOENT). */
static int lookup_file(struct btrfs_trans *t, struct btrfs_wroot *root, struct created *c)
{
	u16 len = (u16)strlen(c->name);
	struct btrfs_key key = { DIR_INO, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(c->name, len) };
	struct btrfs_path path;
	struct btrfs_key loc;
	u32 size, off = 0;
	const u8 *p;
	int ret;

	c->ino = 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
	if (ret == 0) {
		p = btrfs_path_item_ptr(&path);
		size = btrfs_path_item_size(&path);
		while (off + sizeof(struct btrfs_dir_item) <= size && !c->ino) {
			const struct btrfs_dir_item *di = (const void *)(p + off);

			if (btrfs_dir_name_len(di) == len && off + sizeof(*di) + len <= size &&
			    !memcmp(p + off + sizeof(*di), c->name, len)) {
				btrfs_disk_key_to_cpu(&loc, &di->location);
				c->ino = loc.objectid;
			}
			off += sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);
		}
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	if (!c->ino)
		return -ENOENT;
	key = (struct btrfs_key){ c->ino, BTRFS_INODE_REF_KEY, DIR_INO };
	ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_path_item_size(&path) >= sizeof(struct btrfs_inode_ref))
		c->index = btrfs_inode_ref_index(btrfs_path_item_ptr(&path));
	else if (ret == 0)
		ret = -EUCLEAN;
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

static int delete_file(struct btrfs_trans *t, struct btrfs_wroot *root, const struct created *c,
		       bool xattr)
{
	u16 len = (u16)strlen(c->name);
	struct btrfs_key key;
	int ret;

	key = (struct btrfs_key){ DIR_INO, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(c->name, len) };
	ret = remove_dir_item(t, root, &key, c->name, len);
	if (ret == 0) {
		key = (struct btrfs_key){ DIR_INO, BTRFS_DIR_INDEX_KEY, c->index };
		ret = btrfs_delete_item(t, root, &key);
	}
	if (ret == 0) {
		key = (struct btrfs_key){ c->ino, BTRFS_INODE_REF_KEY, DIR_INO };
		ret = btrfs_delete_item(t, root, &key);
	}
	if (ret == 0 && xattr) {
		key = (struct btrfs_key){ c->ino, BTRFS_XATTR_ITEM_KEY,
					  btrfs_name_hash(XNAME, strlen(XNAME)) };
		ret = btrfs_delete_item(t, root, &key);
	}
	if (ret == 0)
		ret = delete_file_data(t, root, c->ino);
	if (ret == 0) {
		key = (struct btrfs_key){ c->ino, BTRFS_INODE_ITEM_KEY, 0 };
		ret = btrfs_delete_item(t, root, &key);
	}
	if (ret == 0)
		ret = update_dir(t, root, -2 * (s64)len);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "usage: engine-fill [-n FILES] [-c COMMITS] [-x] [-d DELETE] [-p PREFIX] [-F] [-R] [-s SUBVOL]\n"
			"                   [-X BYTES] [-D KIB] [-r FIRST:STEP:COUNT] DEVICE...\n");
}

/* -r: remove PREFIX<first + k * step>, k < count, in one transaction. */
static int remove_files(struct btrfs_trans *t, struct btrfs_wroot *root, const char *prefix,
			long first, long step, long count, bool xattr)
{
	int ret = 0;

	for (long k = 0; k < count && ret == 0; k++) {
		struct created c;

		snprintf(c.name, sizeof(c.name), "%s%ld", prefix, first + k * step);
		ret = lookup_file(t, root, &c);
		if (ret == 0)
			ret = delete_file(t, root, &c, xattr);
		if (ret)
			error("removing %s failed: %d", c.name, ret);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct btrfs_open_args args = { 0 };
	struct btrfs_fs_info *fs = NULL;
	struct btrfs_trans *t;
	struct btrfs_wroot *root;
	struct created *files;
	const char *prefix = "f";
	long nfiles = 1000, commits = 4, ndelete = 0;
	bool fail = false, rebuild = false;
	struct fill_opts o = { .subvol = BTRFS_FS_TREE_OBJECTID };
	long rm_first = 0, rm_step = 0, rm_count = -1;
	long done = 0;
	int opt, ret = 0, c;

	while ((opt = getopt(argc, argv, "n:c:xd:p:FRs:D:r:X:k:")) != -1) {
		switch (opt) {
		case 'n': nfiles = atol(optarg); break;
		case 'c': commits = atol(optarg); break;
		case 'x': o.xattr = true; break;
		case 'd': ndelete = atol(optarg); break;
		case 'p': prefix = optarg; break;
		case 'F': fail = true; break;
		case 'k': args.auth_key = (const u8 *)optarg; args.auth_key_len = strlen(optarg); break;
		case 'R': rebuild = true; break;
		case 's': o.subvol = strtoull(optarg, NULL, 0); break;
		case 'X':
			o.xattr = true;
			o.xattr_len = (u16)atoi(optarg);
			if (o.xattr_len < 24) {
				usage();
				return 1;
			}
			break;
		case 'D': o.data_len = strtoull(optarg, NULL, 0) * 1024; break;
		case 'r':
			if (sscanf(optarg, "%ld:%ld:%ld", &rm_first, &rm_step, &rm_count) != 3 ||
			    rm_first < 0 || rm_step < 1 || rm_count < 0) {
				usage();
				return 1;
			}
			commits = 1;
			nfiles = 0;
			break;
		default: usage(); return 1;
		}
	}
	if (optind >= argc || nfiles < 0 || commits < 1 || ndelete < 0 || ndelete > nfiles ||
	    strlen(prefix) > 40) {
		usage();
		return 1;
	}
	files = calloc((size_t)nfiles + 1, sizeof(*files));
	if (!files)
		return 1;
	args.devices = argv + optind;
	args.ndevices = argc - optind;
	args.writable = true;
	if (btrfs_open_fs(&args, &fs) < 0) {
		free(files);
		return 1;
	}
	for (c = 0; c < commits + (ndelete ? 1 : 0) && ret == 0; c++) {
		bool last = c == commits + (ndelete ? 1 : 0) - 1;
		u64 ino = 0, index = 0;

		ret = btrfs_start_transaction(fs, &t);
		if (ret)
			break;
		ret = btrfs_trans_get_root(t, o.subvol, &root);
		if (ret == 0)
			ret = find_next(t, root, &ino, &index);
		if (rm_count >= 0) {
			if (ret == 0)
				ret = remove_files(t, root, prefix, rm_first, rm_step, rm_count, o.xattr);
		} else if (c < commits) {
			long upto = nfiles * (c + 1) / commits;

			for (; done < upto && ret == 0; done++) {
				struct created *f = &files[done];

				f->ino = ino++;
				f->index = index++;
				snprintf(f->name, sizeof(f->name), "%s%ld", prefix, done);
				ret = create_file(t, root, f, &o);
			}
			for (long i = 0; o.xattr && !o.xattr_len && i < done && ret == 0; i++)
				if (i >= nfiles * c / commits)
					ret = resize_xattr(t, root, &files[i]);
		} else {
			for (long i = nfiles - ndelete; i < nfiles && ret == 0; i++)
				ret = delete_file(t, root, &files[i], o.xattr);
			done = nfiles - ndelete;
		}
		if (ret) {
			error("filling failed at commit %d: %d", c, ret);
			btrfs_abort_transaction(t);
			break;
		}
		if (last && fail)
			btrfs_trans_fail_before_super(t, true);
		if (c == 0 && rebuild)
			btrfs_trans_rebuild_free_space_tree(t);
		ret = btrfs_commit_transaction(t);
		if (ret) {
			if (last && fail && ret == -EIO) {
				printf("commit failed before the superblock as asked\n");
				ret = 3;
			}
			break;
		}
		printf("generation %llu files %ld\n",
		       (unsigned long long)btrfs_super_generation(btrfs_fs_super(fs)), done);
	}
	btrfs_close_fs(fs);
	free(files);
	if (ret == 3)
		return 3;
	return ret ? 1 : 0;
}

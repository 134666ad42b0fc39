// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of the fs trees (pass 5's findings), through the transaction
 * engine: inode fields set to what the inode's items account, a lost inode
 * item recreated, hole file extents for uncovered ranges, directory entries
 * and inode refs added where the other two of (inode ref, DIR_ITEM,
 * DIR_INDEX) prove the link, entries nothing proves deleted.  Each prints
 * one line saying what it wrote.  See check/repair-fs-roots.h.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include "check/repair-fs-roots.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/engine/ctree-append.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/engine/transaction.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/tree-checker.h"

static int get_root(struct btrfs_trans *t, u64 id, struct btrfs_wroot **root)
{
	int ret = btrfs_trans_get_root(t, id, root);

	if (ret)
		error("repair: cannot open tree %llu: %s", id, strerror(-ret));
	return ret;
}

/*
 * The inode item of ino, ready to be changed (path from a cow search):
 * 0, -ENOENT (printed), or another error.
 */
static int inode_item(struct btrfs_trans *t, struct btrfs_wroot *root, u64 ino,
		      struct btrfs_path *path, struct btrfs_inode_item **ii)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	int ret;

	btrfs_init_path(path);
	ret = btrfs_search_slot(t, root, &key, path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(path) < sizeof(**ii))
		ret = -EUCLEAN;
	if (ret) {
		btrfs_release_path(path);
		if (ret > 0)
			ret = -ENOENT;
		error("repair: root %llu inode %llu: inode item: %s", root->objectid, ino, strerror(-ret));
		return ret;
	}
	*ii = btrfs_path_item_ptr(path);
	return 0;
}

/* Move an inode's size and nlink by deltas (a name added or removed). */
static int adjust_inode(struct btrfs_trans *t, struct btrfs_wroot *root, u64 ino, s64 dsize,
			s32 dnlink)
{
	struct btrfs_path path;
	struct btrfs_inode_item *ii;
	int ret = inode_item(t, root, ino, &path, &ii);

	if (ret)
		return ret;
	btrfs_set_inode_size(ii, btrfs_inode_size(ii) + (u64)dsize);
	btrfs_set_inode_nlink(ii, btrfs_inode_nlink(ii) + (u32)dnlink);
	btrfs_set_inode_transid(ii, btrfs_trans_transid(t));
	btrfs_release_path(&path);
	return 0;
}

int repair_set_inode_field(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	static const char *const names[] = { "nlink", "isize", "nbytes", "mode", "flags", "generation",
					     "transid" };
	const struct repair_set_inode *f = arg;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	struct btrfs_inode_item *ii;
	int ret = get_root(t, f->root, &root);

	if (!ret)
		ret = inode_item(t, root, f->ino, &path, &ii);
	if (ret)
		return ret;
	switch (f->field) {
	case REPAIR_INODE_NLINK: btrfs_set_inode_nlink(ii, (u32)f->value); break;
	case REPAIR_INODE_SIZE: btrfs_set_inode_size(ii, f->value); break;
	case REPAIR_INODE_NBYTES: btrfs_set_inode_nbytes(ii, f->value); break;
	case REPAIR_INODE_MODE: btrfs_set_inode_mode(ii, (u32)f->value); break;
	case REPAIR_INODE_FLAGS: btrfs_set_inode_flags(ii, f->value); break;
	case REPAIR_INODE_GENERATION: btrfs_set_inode_generation(ii, f->value); break;
	case REPAIR_INODE_TRANSID: btrfs_set_inode_transid(ii, f->value); break;
	}
	btrfs_release_path(&path);
	printf(f->field == REPAIR_INODE_MODE ? "root %llu inode %llu: %s set to 0%llo\n" :
	       f->field == REPAIR_INODE_FLAGS ? "root %llu inode %llu: %s set to 0x%llx\n" :
	       "root %llu inode %llu: %s set to %llu\n", f->root, f->ino, names[f->field], f->value);
	return 0;
}

int repair_set_file_extent_field(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_file_extent *f = arg;
	struct btrfs_key key = { f->ino, BTRFS_EXTENT_DATA_KEY, f->offset };
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = get_root(t, f->root, &root);

	if (ret)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 1);
	if (ret == 0 && btrfs_path_item_size(&path) != sizeof(struct btrfs_file_extent_item) &&
	    ((f->field != REPAIR_FILE_EXTENT_GENERATION && f->field != REPAIR_FILE_EXTENT_RAM_BYTES) ||
	     btrfs_path_item_size(&path) < BTRFS_FILE_EXTENT_INLINE_DATA_START))
		ret = -EUCLEAN;
	if (ret == 0) {
		static const char *const names[] = { "num_bytes", "ram_bytes", "other_encoding", "generation",
						     "type" };
		struct btrfs_file_extent_item *fi = btrfs_path_item_ptr(&path);
		u64 was = f->field == REPAIR_FILE_EXTENT_NUM_BYTES ? btrfs_file_extent_num_bytes(fi) :
			  f->field == REPAIR_FILE_EXTENT_RAM_BYTES ? btrfs_file_extent_ram_bytes(fi) :
			  f->field == REPAIR_FILE_EXTENT_GENERATION ? btrfs_file_extent_generation(fi) :
			  f->field == REPAIR_FILE_EXTENT_TYPE ? btrfs_file_extent_type(fi) :
			  btrfs_file_extent_other_encoding(fi);

		printf("root %llu inode %llu: file extent at %llu %s %llu set to %llu\n", f->root, f->ino,
		       f->offset, names[f->field], (unsigned long long)was, (unsigned long long)f->value);
		if (f->field == REPAIR_FILE_EXTENT_NUM_BYTES)
			btrfs_set_file_extent_num_bytes(fi, f->value);
		else if (f->field == REPAIR_FILE_EXTENT_RAM_BYTES)
			btrfs_set_file_extent_ram_bytes(fi, f->value);
		else if (f->field == REPAIR_FILE_EXTENT_GENERATION)
			btrfs_set_file_extent_generation(fi, f->value);
		else if (f->field == REPAIR_FILE_EXTENT_TYPE)
			btrfs_set_file_extent_type(fi, (u8)f->value);
		else
			btrfs_set_file_extent_other_encoding(fi, (u16)f->value);
	}
	btrfs_release_path(&path);
	if (ret) {
		ret = ret > 0 ? -ENOENT : ret;
		error("repair: root %llu inode %llu: file extent at %llu: %s", f->root, f->ino, f->offset,
		      strerror(-ret));
	}
	return ret;
}

int repair_set_file_extent_disk_len(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_file_extent_disk_len *f = arg;
	struct btrfs_key key = { f->ino, BTRFS_EXTENT_DATA_KEY, 0 }, k, at[16];
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = get_root(t, f->root, &root), n = 0;

	if (ret)
		return ret;
	/* the items' keys, read first (no CoW) */
	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_NEXT, &path, &k);
	while (ret == 0 && k.objectid == f->ino && k.type == BTRFS_EXTENT_DATA_KEY) {
		if (btrfs_path_item_size(&path) == sizeof(struct btrfs_file_extent_item)) {
			const struct btrfs_file_extent_item *fi = btrfs_path_item_ptr(&path);

			if (btrfs_file_extent_disk_bytenr(fi) == f->bytenr &&
			    btrfs_file_extent_disk_num_bytes(fi) == f->bad) {
				if (btrfs_file_extent_compression(fi) || btrfs_file_extent_ram_bytes(fi) != f->good ||
				    n == (int)ARRAY_SIZE(at)) {
					ret = -EUCLEAN;
					break;
				}
				at[n++] = k;
			}
		}
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_path_item_key(&path, &k);
	}
	btrfs_release_path(&path);
	if (ret > 0)
		ret = 0;
	if (!ret && !n)
		ret = -ENOENT;
	for (int i = 0; !ret && i < n; i++) {
		btrfs_init_path(&path);
		ret = btrfs_search_slot(t, root, &at[i], &path, 0, 1);
		if (ret == 0) {
			struct btrfs_file_extent_item *fi = btrfs_path_item_ptr(&path);

			printf("root %llu inode %llu: file extent at %llu disk_num_bytes %llu set to %llu, its data extent's length\n",
			       f->root, f->ino, at[i].offset, f->bad, f->good);
			btrfs_set_file_extent_disk_num_bytes(fi, f->good);
		}
		btrfs_release_path(&path);
		if (ret > 0)
			ret = -ENOENT;
	}
	if (ret)
		error("repair: root %llu inode %llu: no uncompressed file extent of data extent %llu with disk_num_bytes %llu and ram_bytes %llu to mend: %s",
		      f->root, f->ino, f->bytenr, f->bad, f->good, strerror(-ret));
	return ret;
}

static void set_now(struct btrfs_timespec *ts, time_t now)
{
	btrfs_set_timespec_sec(ts, (u64)now);
	btrfs_set_timespec_nsec(ts, 0);
}

/* A new inode item as n says, times now. */
static int insert_inode(struct btrfs_trans *t, const struct repair_new_inode *n)
{
	struct btrfs_key key = { n->ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item ii;
	struct btrfs_wroot *root;
	time_t now = time(NULL);
	int ret = get_root(t, n->root, &root);

	if (ret)
		return ret;
	memset(&ii, 0, sizeof(ii));
	btrfs_set_inode_generation(&ii, btrfs_trans_transid(t));
	btrfs_set_inode_transid(&ii, btrfs_trans_transid(t));
	btrfs_set_inode_size(&ii, n->size);
	btrfs_set_inode_nbytes(&ii, n->nbytes);
	btrfs_set_inode_nlink(&ii, n->nlink);
	btrfs_set_inode_mode(&ii, n->mode);
	set_now(&ii.atime, now);
	set_now(&ii.ctime, now);
	set_now(&ii.mtime, now);
	set_now(&ii.otime, now);
	ret = btrfs_insert_item(t, root, &key, &ii, sizeof(ii));
	if (ret)
		error("repair: root %llu inode %llu: cannot insert the inode item: %s",
		      n->root, n->ino, strerror(-ret));
	return ret;
}

int repair_recreate_inode(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_new_inode *n = arg;
	int ret = insert_inode(t, n);

	if (ret)
		return ret;
	printf("root %llu inode %llu: inode item recreated (mode 0%o, nlink %u, size %llu), check its permissions and content\n",
	       n->root, n->ino, n->mode, n->nlink, n->size);
	return 0;
}

int repair_insert_holes(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_holes *h = arg;
	struct btrfs_file_extent_item fi;
	struct btrfs_wroot *root;
	int ret = get_root(t, h->root, &root);

	for (u32 i = 0; !ret && i < h->nr; i++) {
		struct btrfs_key key = { h->ino, BTRFS_EXTENT_DATA_KEY, h->hole[i].start };
		u64 len = h->hole[i].end - h->hole[i].start;

		memset(&fi, 0, sizeof(fi));
		btrfs_set_file_extent_generation(&fi, btrfs_trans_transid(t));
		btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_REG);
		btrfs_set_file_extent_num_bytes(&fi, len);
		btrfs_set_file_extent_ram_bytes(&fi, len);
		ret = btrfs_insert_item(t, root, &key, &fi, sizeof(fi));
		if (ret)
			error("repair: root %llu inode %llu: cannot insert a hole extent at %llu: %s",
			      h->root, h->ino, h->hole[i].start, strerror(-ret));
		else
			printf("root %llu inode %llu: hole file extent [%llu %llu) added\n",
			       h->root, h->ino, h->hole[i].start, h->hole[i].end);
	}
	return ret;
}

static struct btrfs_key entry_key(const struct repair_name *n)
{
	struct btrfs_key key = { n->dir, n->key_type, n->index };

	if (n->key_type == BTRFS_DIR_ITEM_KEY)
		key.offset = btrfs_name_hash(n->name, n->name_len);
	return key;
}

static const char *entry_kind(const struct repair_name *n)
{
	return n->key_type == BTRFS_DIR_ITEM_KEY ? "dir item" : "dir index";
}

int repair_add_entry(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_name *n = arg;
	struct btrfs_key key = entry_key(n), loc = { n->ino, BTRFS_INODE_ITEM_KEY, 0 };

	if (n->subvol)
		loc = (struct btrfs_key){ n->ino, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	u8 buf[sizeof(struct btrfs_dir_item) + BTRFS_NAME_LEN];
	struct btrfs_dir_item *di = (struct btrfs_dir_item *)buf;
	u32 size = sizeof(*di) + n->name_len;
	struct btrfs_wroot *root;
	int ret = get_root(t, n->root, &root);

	if (ret)
		return ret;
	memset(buf, 0, sizeof(buf));
	btrfs_cpu_key_to_disk(&di->location, &loc);
	btrfs_set_dir_transid(di, btrfs_trans_transid(t));
	btrfs_set_dir_name_len(di, n->name_len);
	btrfs_set_dir_type(di, n->ftype);
	memcpy(buf + sizeof(*di), n->name, n->name_len);
	/* a DIR_ITEM holds every name with the same hash; a DIR_INDEX one */
	if (n->key_type == BTRFS_DIR_ITEM_KEY)
		ret = btrfs_insert_or_append_item(t, root, &key, buf, size);
	else
		ret = btrfs_insert_item(t, root, &key, buf, size);
	if (!ret)
		ret = adjust_inode(t, root, n->dir, n->name_len, 0);
	if (ret) {
		error("repair: root %llu dir %llu: cannot add %s '%.*s' for inode %llu: %s", n->root,
		      n->dir, entry_kind(n), (int)n->name_len, n->name, n->ino, strerror(-ret));
		return ret;
	}
	printf("root %llu dir %llu: %s '%.*s' (index %llu) for inode %llu added\n", n->root, n->dir,
	       entry_kind(n), (int)n->name_len, n->name, n->index, n->ino);
	return 0;
}

/*
 * The entry of n in the item at path (cow search): its offset in the item
 * and length, or -ENOENT.
 */
static int find_entry(const struct btrfs_path *path, const struct repair_name *n, u32 *off, u32 *len)
{
	u8 *p = btrfs_path_item_ptr(path);
	u32 size = btrfs_path_item_size(path), o = 0;

	while (o + sizeof(struct btrfs_dir_item) <= size) {
		struct btrfs_dir_item *di = (struct btrfs_dir_item *)(p + o);
		u32 l = sizeof(*di) + btrfs_dir_name_len(di) + btrfs_dir_data_len(di);
		struct btrfs_key loc;

		if (o + l > size)
			break;
		btrfs_disk_key_to_cpu(&loc, &di->location);
		if (loc.objectid == n->ino && btrfs_dir_name_len(di) == n->name_len &&
		    !memcmp(p + o + sizeof(*di), n->name, n->name_len)) {
			*off = o;
			*len = l;
			return 0;
		}
		o += l;
	}
	return -ENOENT;
}

/*
 * Search the entry's item in its tree (*root) for a change (ins_len < 0:
 * maybe deleted): 0 or a negative errno.
 */
static int search_entry(struct btrfs_trans *t, const struct repair_name *n, int ins_len,
			struct btrfs_wroot **root, struct btrfs_path *path, u32 *off, u32 *len)
{
	struct btrfs_key key = entry_key(n);
	int ret = get_root(t, n->root, root);

	if (ret)
		return ret;
	btrfs_init_path(path);
	ret = btrfs_search_slot(t, *root, &key, path, ins_len, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret)
		ret = find_entry(path, n, off, len);
	if (ret)
		btrfs_release_path(path);
	return ret;
}

/*
 * Remove bytes [off, off + len) of the item at path (a cow search with
 * ins_len < 0), the whole item when that is all of it; the path is released.
 */
static int cut_from_item(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_path *path,
			 u32 off, u32 len)
{
	u32 size = btrfs_path_item_size(path);
	u8 *p = btrfs_path_item_ptr(path);
	int ret;

	if (len == size) {
		ret = btrfs_del_items(t, root, path, path->slots[0], 1);
	} else {
		memmove(p + off, p + off + len, size - off - len);
		ret = btrfs_truncate_item(t, path, size - len, true);
	}
	btrfs_release_path(path);
	return ret;
}

int repair_del_entry(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_name *n = arg;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	u32 off, len;
	int ret = search_entry(t, n, -1, &root, &path, &off, &len);

	if (!ret)
		ret = cut_from_item(t, root, &path, off, len);
	if (!ret)
		ret = adjust_inode(t, root, n->dir, -(s64)n->name_len, 0);
	if (ret) {
		error("repair: root %llu dir %llu: cannot delete %s '%.*s' (index %llu) for inode %llu: %s",
		      n->root, n->dir, entry_kind(n), (int)n->name_len, n->name, n->index, n->ino,
		      strerror(-ret));
		return ret;
	}
	printf("root %llu dir %llu: %s '%.*s' (index %llu) for inode %llu deleted\n", n->root, n->dir,
	       entry_kind(n), (int)n->name_len, n->name, n->index, n->ino);
	return 0;
}

int repair_set_entry_type(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_name *n = arg;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	u32 off, len;
	int ret = search_entry(t, n, 0, &root, &path, &off, &len);

	if (ret) {
		error("repair: root %llu dir %llu: %s '%.*s' for inode %llu: %s", n->root, n->dir,
		      entry_kind(n), (int)n->name_len, n->name, n->ino, strerror(-ret));
		return ret;
	}
	btrfs_set_dir_type((struct btrfs_dir_item *)((u8 *)btrfs_path_item_ptr(&path) + off), n->ftype);
	btrfs_release_path(&path);
	printf("root %llu dir %llu: %s '%.*s' for inode %llu: file type set to %u\n", n->root, n->dir,
	       entry_kind(n), (int)n->name_len, n->name, n->ino, n->ftype);
	return 0;
}

/* Would the item at key, n bytes longer, pass the largest item a leaf holds? */
static bool item_overflows(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key, u32 n,
			   u32 nodesize)
{
	struct btrfs_path path;
	struct btrfs_key found;
	u32 have = 0;

	btrfs_init_path(&path);
	if (!btrfs_trans_search_key(t, root, key, BTRFS_SEARCH_EXACT, &path, &found))
		have = btrfs_path_item_size(&path);
	btrfs_release_path(&path);
	return have + n > BTRFS_MAX_ITEM_SIZE(nodesize);
}

int repair_add_ref(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct repair_name *n = arg;
	struct btrfs_key key = { n->ino, BTRFS_INODE_REF_KEY, n->dir };
	u8 buf[sizeof(struct btrfs_inode_extref) + BTRFS_NAME_LEN];
	u32 size = sizeof(struct btrfs_inode_ref) + n->name_len;
	struct btrfs_wroot *root;
	int ret = get_root(t, n->root, &root);

	if (ret)
		return ret;
	/*
	 * other names of the inode in the same directory share the item; when
	 * it is full, an extref keyed by the hash of parent and name, as the
	 * kernel does
	 */
	if (item_overflows(t, root, &key, size, btrfs_fs_geometry(ctx->fs)->nodesize) &&
	    (btrfs_super_incompat_flags(btrfs_fs_super(ctx->fs)) & BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF)) {
		struct btrfs_inode_extref *ext = (struct btrfs_inode_extref *)buf;

		key = (struct btrfs_key){ n->ino, BTRFS_INODE_EXTREF_KEY,
					  btrfs_extref_hash(n->dir, n->name, n->name_len) };
		btrfs_set_inode_extref_parent(ext, n->dir);
		btrfs_set_inode_extref_index(ext, n->index);
		btrfs_set_inode_extref_name_len(ext, n->name_len);
		size = sizeof(*ext) + n->name_len;
	} else {
		struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)buf;

		btrfs_set_inode_ref_index(ref, n->index);
		btrfs_set_inode_ref_name_len(ref, n->name_len);
	}
	memcpy(buf + size - n->name_len, n->name, n->name_len);
	ret = btrfs_insert_or_append_item(t, root, &key, buf, size);
	if (!ret)
		ret = adjust_inode(t, root, n->ino, 0, 1);
	if (ret) {
		error("repair: root %llu inode %llu: cannot add the inode ref '%.*s' in dir %llu: %s",
		      n->root, n->ino, (int)n->name_len, n->name, n->dir, strerror(-ret));
		return ret;
	}
	printf("root %llu inode %llu: inode %s '%.*s' (dir %llu index %llu) added\n", n->root, n->ino,
	       key.type == BTRFS_INODE_EXTREF_KEY ? "extref" : "ref", (int)n->name_len, n->name, n->dir, n->index);
	return 0;
}

/*
 * The ref of n (its index and name; an extref's parent too, which it holds
 * itself) in the INODE_REF or (extref) INODE_EXTREF item at path: its
 * offset and length.
 */
static int find_ref(const struct btrfs_path *path, const struct repair_name *n, bool extref, u32 *off, u32 *len)
{
	u8 *p = btrfs_path_item_ptr(path);
	u32 size = btrfs_path_item_size(path), o = 0;
	u32 hdr = extref ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);

	while (size - o >= hdr) {
		const void *ref = p + o;
		u32 nl = extref ? btrfs_inode_extref_name_len(ref) : btrfs_inode_ref_name_len(ref);
		u64 index = extref ? btrfs_inode_extref_index(ref) : btrfs_inode_ref_index(ref);

		if (nl > size - o - hdr)
			break;
		if ((!extref || btrfs_inode_extref_parent(ref) == n->dir) && index == n->index &&
		    nl == n->name_len && !memcmp(p + o + hdr, n->name, nl)) {
			*off = o;
			*len = hdr + nl;
			return 0;
		}
		o += hdr + nl;
	}
	return -ENOENT;
}

/* find_ref() in the item at key, the path held for changes (released on an error). */
static int search_ref(struct btrfs_trans *t, struct btrfs_wroot *root, const struct btrfs_key *key,
		      const struct repair_name *n, bool extref, struct btrfs_path *path, u32 *off, u32 *len)
{
	int ret;

	btrfs_init_path(path);
	ret = btrfs_search_slot(t, root, key, path, -1, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret)
		ret = find_ref(path, n, extref, off, len);
	if (ret)
		btrfs_release_path(path);
	return ret;
}

/*
 * The key of the INODE_EXTREF item holding n: by the inode's extref items,
 * not the hash (a damaged parent was not hashed into it).
 */
static int find_extref_key(struct btrfs_trans *t, struct btrfs_wroot *root, const struct repair_name *n,
			   struct btrfs_key *out)
{
	struct btrfs_key key = { n->ino, BTRFS_INODE_EXTREF_KEY, 0 };
	struct btrfs_path path;
	u32 off, len;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_NEXT, &path, out);
	while (ret == 0 && out->objectid == n->ino && out->type == BTRFS_INODE_EXTREF_KEY) {
		if (!find_ref(&path, n, true, &off, &len))
			break;
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_path_item_key(&path, out);
	}
	if (ret == 0 && (out->objectid != n->ino || out->type != BTRFS_INODE_EXTREF_KEY))
		ret = -ENOENT;
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

/*
 * repair_rename_ref() for a name the inode holds in an INODE_EXTREF item
 * (the kernel's when its INODE_REF item for the directory is full), keyed
 * by the hash of parent and name.  Only the index changes: set in place;
 * else the entry leaves the item and the new one goes where its own hash
 * keys it.
 */
static int rename_extref(struct btrfs_trans *t, struct btrfs_wroot *root, const struct repair_ref_rename *r)
{
	const struct repair_name *from = &r->from, *to = &r->to;
	struct btrfs_key key;
	struct btrfs_key to_key = { from->ino, BTRFS_INODE_EXTREF_KEY,
				    btrfs_extref_hash(to->dir, to->name, to->name_len) };
	u8 buf[sizeof(struct btrfs_inode_extref) + BTRFS_NAME_LEN];
	struct btrfs_inode_extref *ref = (struct btrfs_inode_extref *)buf;
	struct btrfs_path path;
	u32 off, len;
	int ret;

	ret = find_extref_key(t, root, from, &key);
	if (!ret)
		ret = search_ref(t, root, &key, from, true, &path, &off, &len);
	if (!ret && to->dir == from->dir && to->name_len == from->name_len &&
	    !memcmp(to->name, from->name, from->name_len)) {
		btrfs_set_inode_extref_index((struct btrfs_inode_extref *)((u8 *)btrfs_path_item_ptr(&path) + off),
					     to->index);
		btrfs_release_path(&path);
		return 0;
	}
	if (!ret)
		ret = cut_from_item(t, root, &path, off, len);
	if (ret)
		return ret;
	btrfs_set_inode_extref_parent(ref, to->dir);
	btrfs_set_inode_extref_index(ref, to->index);
	btrfs_set_inode_extref_name_len(ref, to->name_len);
	memcpy(buf + sizeof(*ref), to->name, to->name_len);
	return btrfs_insert_or_append_item(t, root, &to_key, buf, sizeof(*ref) + to->name_len);
}

int repair_rename_ref(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_ref_rename *r = arg;
	const struct repair_name *from = &r->from, *to = &r->to;
	struct btrfs_key key = { from->ino, BTRFS_INODE_REF_KEY, from->dir };
	struct btrfs_key to_key = { from->ino, BTRFS_INODE_REF_KEY, to->dir };
	u8 buf[sizeof(struct btrfs_inode_ref) + BTRFS_NAME_LEN];
	struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)buf;
	struct btrfs_wroot *root;
	struct btrfs_path path;
	u32 off, len;
	int ret = get_root(t, from->root, &root);

	if (ret)
		return ret;
	ret = search_ref(t, root, &key, from, false, &path, &off, &len);
	if (ret == -ENOENT) {
		/* not in the INODE_REF item of the directory: an extref */
		ret = rename_extref(t, root, r);
	} else {
		if (!ret)
			ret = cut_from_item(t, root, &path, off, len);
		btrfs_set_inode_ref_index(ref, to->index);
		btrfs_set_inode_ref_name_len(ref, to->name_len);
		memcpy(buf + sizeof(*ref), to->name, to->name_len);
		if (!ret)
			ret = btrfs_insert_or_append_item(t, root, &to_key, buf, sizeof(*ref) + to->name_len);
	}
	if (ret) {
		error("repair: root %llu inode %llu: cannot rename the inode ref '%.*s' (dir %llu index %llu): %s",
		      from->root, from->ino, (int)from->name_len, from->name, from->dir, from->index,
		      strerror(-ret));
		return ret;
	}
	if (to->dir != from->dir)
		printf("root %llu inode %llu: inode ref '%.*s' (dir %llu index %llu) moved to dir %llu\n",
		       from->root, from->ino, (int)from->name_len, from->name, from->dir, from->index, to->dir);
	else
		printf("root %llu inode %llu: inode ref '%.*s' (dir %llu index %llu) renamed to '%.*s' (index %llu)\n",
		       from->root, from->ino, (int)from->name_len, from->name, from->dir, from->index,
		       (int)to->name_len, to->name, to->index);
	return 0;
}

/* The index of ino's inode ref named n->name in n->dir: 0 with n->index set, -ENOENT, or an error. */
static int ref_index(struct btrfs_trans *t, struct btrfs_wroot *root, struct repair_name *n)
{
	struct btrfs_key key = { n->ino, BTRFS_INODE_REF_KEY, n->dir };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret) {
		u8 *p = btrfs_path_item_ptr(&path);
		u32 size = btrfs_path_item_size(&path), o = 0;

		ret = -ENOENT;
		while (size - o >= sizeof(struct btrfs_inode_ref)) {
			struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)(p + o);
			u32 nl = btrfs_inode_ref_name_len(ref);

			if (nl > size - o - sizeof(*ref))
				break;
			if (nl == n->name_len && !memcmp(p + o + sizeof(*ref), n->name, nl)) {
				n->index = btrfs_inode_ref_index(ref);
				ret = 0;
				break;
			}
			o += sizeof(*ref) + nl;
		}
	}
	btrfs_release_path(&path);
	return ret;
}

/* Is name (any inode) an entry of n->dir?  1 yes, 0 no, or an error. */
static int dir_has_name(struct btrfs_trans *t, struct btrfs_wroot *root, const struct repair_name *n)
{
	struct btrfs_key key = entry_key(n);
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, &key, &path, 0, 0);
	if (ret == 0) {
		u8 *p = btrfs_path_item_ptr(&path);
		u32 size = btrfs_path_item_size(&path), o = 0;

		while (o + sizeof(struct btrfs_dir_item) <= size && !ret) {
			struct btrfs_dir_item *di = (struct btrfs_dir_item *)(p + o);
			u32 nl = btrfs_dir_name_len(di);

			ret = nl == n->name_len && o + sizeof(*di) + nl <= size &&
			      !memcmp(p + o + sizeof(*di), n->name, nl);
			o += sizeof(*di) + nl + btrfs_dir_data_len(di);
		}
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	return ret;
}

int repair_rename_dup_entry(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	struct repair_ref_rename r = { .from = *(const struct repair_name *)arg };
	struct repair_name *from = &r.from, *to = &r.to;
	char suffix[24];
	struct btrfs_wroot *root;
	int len, ret = get_root(t, from->root, &root);

	from->key_type = BTRFS_DIR_ITEM_KEY;
	if (!ret && from->subvol)
		ret = -EOPNOTSUPP;
	if (!ret)
		ret = ref_index(t, root, from);
	if (ret) {
		error("repair: root %llu dir %llu: cannot rename the second entry '%.*s' (inode %llu): %s",
		      from->root, from->dir, (int)from->name_len, from->name, from->ino,
		      ret == -ENOENT ? "the inode has no inode ref of that name" : strerror(-ret));
		return ret;
	}
	/* NAME.INO, the name cut to leave room for the suffix */
	*to = *from;
	len = snprintf(suffix, sizeof(suffix), ".%llu", (unsigned long long)from->ino);
	if (to->name_len > BTRFS_NAME_LEN - len)
		to->name_len = (u16)(BTRFS_NAME_LEN - len);
	memcpy(to->name + to->name_len, suffix, (size_t)len);
	to->name_len = (u16)(to->name_len + len);
	ret = dir_has_name(t, root, to);
	if (ret) {
		error("repair: root %llu dir %llu: cannot rename the second entry '%.*s' (inode %llu) to '%.*s': %s",
		      from->root, from->dir, (int)from->name_len, from->name, from->ino, (int)to->name_len,
		      to->name, ret > 0 ? "that name exists" : strerror(-ret));
		return ret > 0 ? -EEXIST : ret;
	}
	ret = repair_del_entry(ctx, t, from);
	if (!ret)
		ret = repair_add_entry(ctx, t, to);
	from->key_type = to->key_type = BTRFS_DIR_INDEX_KEY;
	if (!ret)
		ret = repair_del_entry(ctx, t, from);
	if (!ret)
		ret = repair_add_entry(ctx, t, to);
	from->key_type = to->key_type = BTRFS_INODE_REF_KEY;
	if (!ret)
		ret = repair_rename_ref(ctx, t, &r);
	if (!ret)
		printf("root %llu dir %llu: inode %llu, the second entry named '%.*s', renamed to '%.*s'\n",
		       from->root, from->dir, from->ino, (int)from->name_len, from->name,
		       (int)to->name_len, to->name);
	return ret;
}

int repair_add_orphan(struct check_ctx *ctx __unused, struct btrfs_trans *t, void *arg)
{
	const struct repair_orphan *o = arg;
	struct btrfs_key key = { BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY, o->ino };
	struct btrfs_wroot *root;
	int ret = get_root(t, o->root, &root);

	if (!ret)
		ret = btrfs_insert_item(t, root, &key, NULL, 0);
	if (ret) {
		error("repair: root %llu inode %llu: cannot add an orphan item: %s", o->root, o->ino,
		      strerror(-ret));
		return ret;
	}
	printf("root %llu inode %llu: orphan item added (unlinked, deleted at the next mount)\n",
	       o->root, o->ino);
	return 0;
}

/* ---- lost+found ------------------------------------------------------------------ */

#define LOST_FOUND "lost+found"

/* The key <= key's last item: 0 with *found, 1 none, < 0 error. */
static int last_item(struct btrfs_trans *t, struct btrfs_wroot *root, struct btrfs_key key,
		     struct btrfs_key *found)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_PREV, &path, found);
	btrfs_release_path(&path);
	return ret;
}

/* The next free DIR_INDEX of dir (2 when it has none). */
static int next_index(struct btrfs_trans *t, struct btrfs_wroot *root, u64 dir, u64 *index)
{
	struct btrfs_key found;
	int ret = last_item(t, root, (struct btrfs_key){ dir, BTRFS_DIR_INDEX_KEY, (u64)-1 }, &found);

	if (ret < 0)
		return ret;
	*index = ret == 0 && found.objectid == dir && found.type == BTRFS_DIR_INDEX_KEY ?
		 found.offset + 1 : 2;
	return 0;
}

/* Both directory entries of name in dir, then the inode ref (nlink + 1). */
static int link_name(struct check_ctx *ctx, struct btrfs_trans *t, u64 rootid, u64 dir, u64 ino,
		     u8 ftype, const char *name)
{
	struct repair_name n = { .root = rootid, .dir = dir, .ino = ino, .ftype = ftype,
			      .name_len = (u16)strlen(name) };
	struct btrfs_wroot *root;
	int ret = get_root(t, rootid, &root);

	if (!ret)
		ret = next_index(t, root, dir, &n.index);
	if (ret)
		return ret;
	memcpy(n.name, name, n.name_len);
	n.key_type = BTRFS_DIR_ITEM_KEY;
	ret = repair_add_entry(ctx, t, &n);
	n.key_type = BTRFS_DIR_INDEX_KEY;
	if (!ret)
		ret = repair_add_entry(ctx, t, &n);
	n.key_type = BTRFS_INODE_REF_KEY;
	if (!ret)
		ret = repair_add_ref(ctx, t, &n);
	return ret;
}

/* lost+found in the top directory of the tree, made when missing: its inode number. */
static int lost_found(struct check_ctx *ctx, struct btrfs_trans *t, struct btrfs_wroot *root,
		      u64 *lf)
{
	u16 len = (u16)strlen(LOST_FOUND);
	struct btrfs_key key = { BTRFS_FIRST_FREE_OBJECTID, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash(LOST_FOUND, len) }, found;
	struct repair_new_inode n = { .root = root->objectid, .mode = 040700 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_trans_search_key(t, root, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret == 0) {
		u8 *p = btrfs_path_item_ptr(&path), *end = p + btrfs_path_item_size(&path);
		ret = -ENOENT;
		while (p + sizeof(struct btrfs_dir_item) <= end) {
			struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
			u32 nl = btrfs_dir_name_len(di);

			if (p + sizeof(*di) + nl > end)
				break;
			if (nl == len && !memcmp(p + sizeof(*di), LOST_FOUND, len) &&
			    btrfs_dir_type(di) == BTRFS_FT_DIR) {
				*lf = btrfs_disk_key_objectid(&di->location);
				ret = 0;
				break;
			}
			p += sizeof(*di) + nl + btrfs_dir_data_len(di);
		}
	}
	btrfs_release_path(&path);
	if (ret <= 0 && ret != -ENOENT)
		return ret;
	/* a new directory, with the highest inode number yet */
	ret = last_item(t, root, (struct btrfs_key){ BTRFS_LAST_FREE_OBJECTID, 255, (u64)-1 }, &found);
	if (ret < 0)
		return ret;
	n.ino = ret == 0 && found.objectid >= BTRFS_FIRST_FREE_OBJECTID ? found.objectid + 1 :
		BTRFS_FIRST_FREE_OBJECTID + 1;
	ret = insert_inode(t, &n);
	if (!ret)
		ret = link_name(ctx, t, root->objectid, BTRFS_FIRST_FREE_OBJECTID, n.ino, BTRFS_FT_DIR,
				LOST_FOUND);
	if (!ret)
		printf("root %llu: lost+found created (inode %llu)\n", root->objectid, n.ino);
	*lf = n.ino;
	return ret;
}

int repair_link_lost_found(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct repair_lost_inode *l = arg;
	struct repair_set_inode zero = { .root = l->root, .ino = l->ino, .field = REPAIR_INODE_NLINK, .value = 0 };
	struct btrfs_wroot *root;
	char name[24];
	u64 lf;
	int ret = get_root(t, l->root, &root);

	if (!ret)
		ret = lost_found(ctx, t, root, &lf);
	if (!ret)
		ret = repair_set_inode_field(ctx, t, &zero);
	snprintf(name, sizeof(name), "%llu", (unsigned long long)l->ino);
	if (!ret)
		ret = link_name(ctx, t, l->root, lf, l->ino, l->ftype, name);
	if (ret) {
		error("repair: root %llu inode %llu: cannot link it into lost+found: %s", l->root, l->ino,
		      strerror(-ret));
		return ret;
	}
	printf("root %llu inode %llu: no name proven, linked into lost+found (inode %llu) as '%s'\n",
	       l->root, l->ino, lf, name);
	return 0;
}

/* ---- reading full names from the committed tree (when queueing) ---------------- */

/* Copy the name at p (len bytes) into n when it is n's: same length and hash. */
static bool take_name(struct repair_name *n, const u8 *p, u32 len, u64 nhash)
{
	if (len != n->name_len || len > BTRFS_NAME_LEN || check_name_hash64(p, len) != nhash)
		return false;
	memcpy(n->name, p, len);
	return true;
}

int repair_read_entry_name(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree,
			u64 key_offset, u64 nhash, struct repair_name *n)
{
	struct btrfs_key key = { n->dir, n->key_type, key_offset };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, tree, &key, BTRFS_SEARCH_EXACT, &path, NULL);
	if (ret == 0) {
		const struct extent_buffer *eb = path.nodes[0];
		u8 *p = btrfs_leaf_item_ptr(eb, path.slots[0]);
		u8 *end = p + btrfs_leaf_item_size(eb, path.slots[0]);

		ret = -ENOENT;
		while (p + sizeof(struct btrfs_dir_item) <= end) {
			struct btrfs_dir_item *di = (struct btrfs_dir_item *)p;
			u32 nl = btrfs_dir_name_len(di), l = sizeof(*di) + nl + btrfs_dir_data_len(di);

			if (p + l > end)
				break;
			if (btrfs_disk_key_objectid(&di->location) == n->ino &&
			    take_name(n, p + sizeof(*di), nl, nhash)) {
				ret = 0;
				break;
			}
			p += l;
		}
	} else if (ret > 0) {
		ret = -ENOENT;
	}
	btrfs_release_path(&path);
	return ret;
}

/* Look for n's name among the refs (or extrefs) of the item at path. */
static bool ref_item_has(const struct btrfs_path *path, const struct btrfs_key *key, u64 nhash,
			 struct repair_name *n)
{
	const struct extent_buffer *eb = path->nodes[0];
	u8 *p = btrfs_leaf_item_ptr(eb, path->slots[0]);
	u8 *end = p + btrfs_leaf_item_size(eb, path->slots[0]);
	bool ext = key->type == BTRFS_INODE_EXTREF_KEY;
	size_t hdr = ext ? sizeof(struct btrfs_inode_extref) : sizeof(struct btrfs_inode_ref);

	while (p + hdr <= end) {
		u64 dir = key->offset, index;
		u32 nl;

		if (ext) {
			dir = btrfs_inode_extref_parent((struct btrfs_inode_extref *)p);
			index = btrfs_inode_extref_index((struct btrfs_inode_extref *)p);
			nl = btrfs_inode_extref_name_len((struct btrfs_inode_extref *)p);
		} else {
			index = btrfs_inode_ref_index((struct btrfs_inode_ref *)p);
			nl = btrfs_inode_ref_name_len((struct btrfs_inode_ref *)p);
		}
		if (p + hdr + nl > end)
			break;
		if (dir == n->dir && index == n->index && take_name(n, p + hdr, nl, nhash))
			return true;
		p += hdr + nl;
	}
	return false;
}

int repair_read_ref_name(struct btrfs_fs_info *fs, const struct btrfs_tree_ref *tree, u64 nhash,
		      struct repair_name *n)
{
	struct btrfs_key key = { n->ino, BTRFS_INODE_REF_KEY, n->dir }, found;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, tree, &key, BTRFS_SEARCH_EXACT, &path, &found);
	if (ret == 0 && ref_item_has(&path, &found, nhash, n))
		goto out;
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	/* extended refs: keyed by a hash of (dir, name) we cannot compute without the name */
	key = (struct btrfs_key){ n->ino, BTRFS_INODE_EXTREF_KEY, 0 };
	ret = btrfs_search_key(fs, tree, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0 && found.objectid == n->ino && found.type == BTRFS_INODE_EXTREF_KEY) {
		if (ref_item_has(&path, &found, nhash, n))
			goto out;
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_path_item_key(&path, &found);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : -ENOENT;
out:
	btrfs_release_path(&path);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs --rootdir: copy a directory tree into the top-level subvolume.
 *
 * Inodes are numbered from 257 in walk order (entries of a directory sorted
 * by name), the root directory is 256 and takes the attributes of DIR.
 * Regular files of at most 2048 bytes (and less than a sector) are inline;
 * larger ones get regular extents of at most 128 MiB for each data region
 * (SEEK_DATA/SEEK_HOLE: holes stay holes, with explicit hole extents when
 * no-holes is off), data checksums in the csum tree and an extent item with
 * one inline EXTENT_DATA_REF each.  Symlinks are inline extents of their
 * target; fifos, sockets and device nodes keep their rdev.  Hard links found
 * inside DIR share one inode (nlink counts the links inside DIR).  Extended
 * attributes, modes, owners and timestamps are copied.
 *
 * Directories named by --subvol become subvolumes (trees 256, 257, ... in
 * walk order) with their own inode numbers from 257; a hard link whose
 * other names are in another subvolume becomes a separate inode there.
 * --inode-flags sets NODATACOW (with NODATASUM for files) or NODATASUM on
 * a path; a directory passes its flags on to what is below it, except into
 * a subvolume.  --compress: regular extents of at most 128 KiB of file data
 * are compressed when that saves at least one sector, small files become
 * compressed inline extents when that fits; a file with compressed
 * extents gets the COMPRESS inode flag, one whose first piece does not
 * compress gets NOCOMPRESS and the rest is stored as is (as btrfs-progs).  Files
 * without checksums (NODATASUM) are never compressed, as in the kernel.
 *
 * File data is read once, in pieces of at most 1 MiB: checksummed (in
 * batches) and written right away through mkfs_ctx.w; extents next to each
 * other are gathered into writes of up to 1 MiB.
 * Memory is the items of the trees: an inode's items are added as soon as it
 * is copied; only hard-linked files are remembered until the end.
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
#include "kernel-shared/mkfs-internal.h"
#include "kernel-shared/tree-checker.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/compress.h"
#include <uuid/uuid.h>
#include "kernel-shared/messages.h"
#include "crypto/hash.h"

#define RD_MAX_INLINE 2048
#define RD_MAX_EXTENT (128 * SZ_1M)
#define RD_IO_SIZE SZ_1M            /* read, checksum and write in pieces of this size */
#define RD_BATCH 64                 /* sectors checksummed per hash_digest_batch() call */

/* An inode being copied; its INODE_ITEM is added when it is complete. */
struct rd_inode {
	u64 ino;
	u32 flags;                 /* BTRFS_INODE_* */
	struct stat st;
	u64 size;                  /* directories: sum of 2 * name lengths */
	u64 nbytes;
};

/* A copied file with more links in the source: its other names only add links. */
struct rd_link {
	dev_t src_dev;
	ino_t src_ino;
	u64 ino;
	size_t item;               /* its INODE_ITEM: index into the tree builder's items */
};

struct rd_entry {
	char *name;
	u64 ino;                   /* or the subvolume id (location ROOT_ITEM -1) */
	bool subvol;
	u8 type;
	u32 hash;
	u64 index;
};

struct rd_ref {
	u64 ino;
	u64 parent;
	u64 index;
	char *name;
};

struct rd_refs {
	struct rd_ref *r;
	size_t nr;
	size_t alloc;
};

/*
 * One tree being filled: the top-level subvolume or one made by --subvol.
 * Only hard-linked files are remembered (their link counts and merged
 * INODE_REFs are known at the end); every other inode's items are added
 * as soon as it is copied, so memory is the items, not the walk.
 */
struct rd_tree {
	int t;                     /* index into mkfs_ctx.tb */
	u64 root;                  /* tree id */
	u64 next_ino;
	struct rd_link *links;
	size_t nr_links;
	size_t alloc_links;
	/* (dev, ino) -> index into links, open addressing */
	size_t *slots;
	size_t slots_cap;
	struct rd_refs refs;       /* INODE_REFs of the files in links */
};

/* A path named by an option, by (dev, ino). */
struct rd_mark {
	dev_t dev;
	ino_t ino;
	int type;                  /* --subvol: MKFS_SUBVOL_* */
	u32 flags;                 /* --inode-flags */
};

struct rd {
	struct mkfs_ctx *ctx;
	struct hash_ctx csum;
	u16 csum_size;
	struct rd_tree *cur;
	struct rd_mark *subvols;
	int nr_subvols;
	struct rd_mark *iflags;
	int nr_iflags;
	bool compress;
	struct btrfs_compressor comp;
	u8 *buf;                   /* RD_IO_SIZE bytes */
	u8 *cbuf;                  /* compressed output, BTRFS_MAX_UNCOMPRESSED bytes */
	/* Small extents next to each other are written together: wlen bytes at wstart. */
	u8 *wbuf;                  /* RD_IO_SIZE bytes */
	u64 wstart;
	u64 wlen;
};

static struct tree_builder *fs_tree(struct rd *rd)
{
	return &rd->ctx->tb[rd->cur->t];
}

static size_t link_slot(const struct rd_tree *rd, dev_t dev, ino_t ino)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ULL) ^ dev) & (rd->slots_cap - 1);
}

/* The already copied hard-linked file st names, or NULL. */
static struct rd_link *find_link(struct rd_tree *rd, const struct stat *st)
{
	if (!rd->slots_cap)
		return NULL;
	for (size_t s = link_slot(rd, st->st_dev, st->st_ino);; s = (s + 1) & (rd->slots_cap - 1)) {
		size_t i = rd->slots[s];

		if (i == (size_t)-1)
			return NULL;
		if (rd->links[i].src_dev == st->st_dev && rd->links[i].src_ino == st->st_ino)
			return &rd->links[i];
	}
}

static void put_slot(struct rd_tree *rd, size_t index)
{
	for (size_t s = link_slot(rd, rd->links[index].src_dev, rd->links[index].src_ino);;
	     s = (s + 1) & (rd->slots_cap - 1)) {
		if (rd->slots[s] == (size_t)-1) {
			rd->slots[s] = index;
			return;
		}
	}
}

/* Remember a hard-linked file: source st, inode ino, INODE_ITEM at item. */
static int add_link(struct rd_tree *rd, const struct stat *st, u64 ino, size_t item)
{
	if (rd->nr_links == rd->alloc_links) {
		size_t n = rd->alloc_links ? rd->alloc_links * 2 : 64;
		struct rd_link *nl = realloc(rd->links, n * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		rd->links = nl;
		rd->alloc_links = n;
	}
	if ((rd->nr_links + 1) * 2 > rd->slots_cap) {
		size_t cap = rd->slots_cap ? rd->slots_cap * 2 : 1024;
		size_t *ns = malloc(cap * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		free(rd->slots);
		rd->slots = ns;
		rd->slots_cap = cap;
		memset(rd->slots, 0xff, cap * sizeof(*rd->slots));
		for (size_t i = 0; i < rd->nr_links; i++)
			put_slot(rd, i);
	}
	rd->links[rd->nr_links] = (struct rd_link){ st->st_dev, st->st_ino, ino, item };
	put_slot(rd, rd->nr_links++);
	return 0;
}

static void set_ts(struct btrfs_timespec *ts, const struct timespec *t)
{
	btrfs_set_timespec_sec(ts, (u64)t->tv_sec);
	btrfs_set_timespec_nsec(ts, (u32)t->tv_nsec);
}

/* The INODE_ITEM of a copied inode, with one link. */
static int emit_inode(struct rd *rd, const struct rd_inode *in)
{
	struct btrfs_inode_item *ii = tb_add_key(fs_tree(rd), in->ino, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii));
	const struct stat *st = &in->st;
	u64 gen = rd->ctx->gen;

	if (!ii)
		return -ENOMEM;
	btrfs_set_inode_generation(ii, gen);
	btrfs_set_inode_transid(ii, gen);
	btrfs_set_inode_size(ii, in->size);
	btrfs_set_inode_nbytes(ii, in->nbytes);
	btrfs_set_inode_nlink(ii, 1);
	btrfs_set_inode_uid(ii, st->st_uid);
	btrfs_set_inode_gid(ii, st->st_gid);
	btrfs_set_inode_mode(ii, st->st_mode);
	btrfs_set_inode_flags(ii, in->flags);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		btrfs_set_inode_rdev(ii, ((u64)major(st->st_rdev) << 20) | minor(st->st_rdev));
	set_ts(&ii->atime, &st->st_atim);
	set_ts(&ii->ctime, &st->st_ctim);
	set_ts(&ii->mtime, &st->st_mtim);
	set_ts(&ii->otime, &st->st_ctim);
	return 0;
}

static int cmp_entry_hash(const void *a, const void *b)
{
	const struct rd_entry *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static void set_location(struct btrfs_dir_item *di, const struct rd_entry *e)
{
	btrfs_set_disk_key_objectid(&di->location, e->ino);
	btrfs_set_disk_key_type(&di->location, e->subvol ? BTRFS_ROOT_ITEM_KEY : BTRFS_INODE_ITEM_KEY);
	btrfs_set_disk_key_offset(&di->location, e->subvol ? (u64)-1 : 0);
}

/* DIR_ITEMs (merged per name hash) and DIR_INDEXes of one directory. */
static int emit_dir_entries(struct rd *rd, u64 dir, struct rd_entry *ents, size_t n)
{
	struct tree_builder *tb = fs_tree(rd);
	u64 gen = rd->ctx->gen;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(ents[i].name);
		struct btrfs_dir_item *di = tb_add_key(tb, dir, BTRFS_DIR_INDEX_KEY, ents[i].index,
						       sizeof(*di) + len);

		if (!di)
			return -ENOMEM;
		set_location(di, &ents[i]);
		btrfs_set_dir_transid(di, gen);
		btrfs_set_dir_name_len(di, len);
		btrfs_set_dir_type(di, ents[i].type);
		memcpy(btrfs_dir_name_ptr(di), ents[i].name, len);
	}
	qsort(ents, n, sizeof(*ents), cmp_entry_hash);
	for (size_t i = 0; i < n;) {
		size_t j = i, total = 0, off = 0;
		u8 *p;

		while (j < n && ents[j].hash == ents[i].hash)
			total += sizeof(struct btrfs_dir_item) + strlen(ents[j++].name);
		p = tb_add_key(tb, dir, BTRFS_DIR_ITEM_KEY, ents[i].hash, total);
		if (!p)
			return -ENOMEM;
		for (; i < j; i++) {
			struct btrfs_dir_item *di = (struct btrfs_dir_item *)(p + off);
			size_t len = strlen(ents[i].name);

			set_location(di, &ents[i]);
			btrfs_set_dir_transid(di, gen);
			btrfs_set_dir_name_len(di, len);
			btrfs_set_dir_type(di, ents[i].type);
			memcpy(btrfs_dir_name_ptr(di), ents[i].name, len);
			off += sizeof(*di) + len;
		}
	}
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rd_ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* INODE_REFs of hard-linked files, one item per (inode, parent) with every name in that parent. */
static int emit_refs(struct rd *rd, struct rd_refs *refs)
{
	if (refs->nr)   /* no hard links: no array to sort */
		qsort(refs->r, refs->nr, sizeof(*refs->r), cmp_ref);
	for (size_t i = 0; i < refs->nr;) {
		size_t j = i, total = 0, off = 0;
		u8 *p;

		while (j < refs->nr && refs->r[j].ino == refs->r[i].ino && refs->r[j].parent == refs->r[i].parent)
			total += sizeof(struct btrfs_inode_ref) + strlen(refs->r[j++].name);
		if (total > rd->ctx->cfg->nodesize / 2) {
			error("too many hard links of one file in one directory (inode %llu)",
			      (unsigned long long)refs->r[i].ino);
			return -EMLINK;
		}
		p = tb_add_key(fs_tree(rd), refs->r[i].ino, BTRFS_INODE_REF_KEY, refs->r[i].parent, total);
		if (!p)
			return -ENOMEM;
		for (; i < j; i++) {
			struct btrfs_inode_ref *ref = (struct btrfs_inode_ref *)(p + off);
			size_t len = strlen(refs->r[i].name);

			btrfs_set_inode_ref_index(ref, refs->r[i].index);
			btrfs_set_inode_ref_name_len(ref, len);
			memcpy(btrfs_inode_ref_name_ptr(ref), refs->r[i].name, len);
			off += sizeof(*ref) + len;
		}
	}
	return 0;
}

static int add_ref(struct rd_refs *refs, u64 ino, u64 parent, u64 index, const char *name)
{
	if (refs->nr == refs->alloc) {
		size_t n = refs->alloc ? refs->alloc * 2 : 256;
		struct rd_ref *nr = realloc(refs->r, n * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		refs->r = nr;
		refs->alloc = n;
	}
	refs->r[refs->nr].name = strdup(name);
	if (!refs->r[refs->nr].name)
		return -ENOMEM;
	refs->r[refs->nr].ino = ino;
	refs->r[refs->nr].parent = parent;
	refs->r[refs->nr].index = index;
	refs->nr++;
	return 0;
}

/* The xattrs of fd, or of path (not followed) when fd < 0. */
static int copy_xattrs(struct rd *rd, int fd, const char *path, u64 ino)
{
	char names[65536], value[65536];
	ssize_t len = fd >= 0 ? flistxattr(fd, names, sizeof(names)) : llistxattr(path, names, sizeof(names));
	u32 max = rd->ctx->cfg->nodesize - sizeof(struct btrfs_header) - sizeof(struct btrfs_item) -
		  sizeof(struct btrfs_dir_item);

	if (len <= 0)
		return 0;
	for (char *n = names; n < names + len; n += strlen(n) + 1) {
		ssize_t vlen = fd >= 0 ? fgetxattr(fd, n, value, sizeof(value)) :
					 lgetxattr(path, n, value, sizeof(value));
		size_t nlen = strlen(n);
		struct btrfs_dir_item *di;
		struct btrfs_key key = { ino, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(n, (int)nlen) };

		if (vlen < 0)
			continue;
		if (nlen + vlen > max) {
			error("xattr %s of %s is too large (%zd bytes)", n, path, vlen);
			return -E2BIG;
		}
		/* A name hash collision would need a merged item; rare enough to refuse. */
		for (size_t i = fs_tree(rd)->nr; i-- > 0 && fs_tree(rd)->items[i].key.objectid == ino;) {
			if (!btrfs_comp_cpu_keys(&fs_tree(rd)->items[i].key, &key)) {
				error("xattr name hash collision on %s", path);
				return -EEXIST;
			}
		}
		di = tb_add(fs_tree(rd), &key, sizeof(*di) + nlen + vlen);
		if (!di)
			return -ENOMEM;
		btrfs_set_dir_transid(di, rd->ctx->gen);
		btrfs_set_dir_data_len(di, vlen);
		btrfs_set_dir_name_len(di, nlen);
		btrfs_set_dir_type(di, BTRFS_FT_XATTR);
		memcpy(btrfs_dir_name_ptr(di), n, nlen);
		memcpy(btrfs_dir_name_ptr(di) + nlen, value, vlen);
	}
	return 0;
}

/* The largest free tail of a data chunk (what the next allocation can get there). */
static u64 data_room(const struct mkfs_ctx *ctx)
{
	u64 room = 0;

	for (int i = 0; i < ctx->ca.nr_chunks; i++) {
		const struct ca_chunk *c = ctx->ca.chunks[i];
		u64 pos = round_up(c->cursor, (u64)ctx->cfg->sectorsize);

		if (c->removed || !(c->type & BTRFS_BLOCK_GROUP_DATA) || pos >= c->logical + c->length)
			continue;
		room = max_t(u64, room, c->logical + c->length - pos);
	}
	return room;
}

/*
 * Room for *len bytes of data; new data chunks as needed.  Unless fixed,
 * *len may come back smaller (what fits at the end of a chunk, so chunks
 * fill up; or halves when no chunk of *len can be made).
 */
static int alloc_data(struct rd *rd, u64 *len, bool fixed, u64 *logical)
{
	struct mkfs_ctx *ctx = rd->ctx;
	const u32 ss = ctx->cfg->sectorsize;
	u64 type = ctx->cfg->mixed ? BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA :
				     BTRFS_BLOCK_GROUP_DATA;
	u64 want = *len;

	for (int round = 0; round < 256; round++) {
		u64 room = data_room(ctx), n = want;
		struct ca_chunk *c;

		if (!fixed && room >= ss && room < n)
			n = round_down(room, (u64)ss);
		if (ca_alloc_bytes(&ctx->ca, BTRFS_BLOCK_GROUP_DATA, n, ss, logical) == 0) {
			*len = n;
			return 0;
		}
		c = ca_alloc_chunk(&ctx->ca, type | ctx->cfg->data_profile);
		if (!IS_ERR(c)) {
			int ret = mkfs_writer_add_chunk(ctx, c);

			if (ret < 0)
				return ret;
			continue;
		}
		if (fixed || want <= ss)
			return PTR_ERR(c);
		want = max_t(u64, round_down(want / 2, (u64)ss), ss);
	}
	return -ENOSPC;
}

static int add_file_extent(struct rd *rd, u64 ino, u64 file_off, u64 disk_bytenr, u64 disk_len, u64 len,
			   int compress)
{
	struct btrfs_file_extent_item *fi = tb_add_key(fs_tree(rd), ino, BTRFS_EXTENT_DATA_KEY, file_off,
						       sizeof(*fi));

	if (!fi)
		return -ENOMEM;
	btrfs_set_file_extent_generation(fi, rd->ctx->gen);
	btrfs_set_file_extent_ram_bytes(fi, len);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_compression(fi, compress);
	btrfs_set_file_extent_disk_bytenr(fi, disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(fi, disk_bytenr ? disk_len : 0);
	btrfs_set_file_extent_num_bytes(fi, len);
	return 0;
}

/*
 * Checksums of len bytes at logical.  A run that continues the last csum
 * item grows it (as the kernel merges them), up to the largest item
 * btrfs-progs accepts: (leaf data - 2 item headers) / csum size - 1 entries.
 */
static int add_csums(struct rd *rd, u64 logical, const u8 *data, u64 len)
{
	struct tree_builder *tb = &rd->ctx->tb[T_CSUM];
	const u32 ss = rd->ctx->cfg->sectorsize;
	const u32 max = (rd->ctx->cfg->nodesize - sizeof(struct btrfs_header) -
			 2 * sizeof(struct btrfs_item)) / rd->csum_size - 1;
	u64 sectors = len / ss, done = 0;

	while (done < sectors) {
		struct tb_item *last = tb->nr ? &tb->items[tb->nr - 1] : NULL;
		u32 have = last ? last->size / rd->csum_size : 0;
		u64 n;
		u8 *p;

		if (last && last->key.offset + (u64)have * ss == logical + done * ss && have < max) {
			n = min_t(u64, sectors - done, max - have);
			p = tb_extend_last(tb, n * rd->csum_size);
		} else {
			n = min_t(u64, sectors - done, max);
			p = tb_add_key(tb, BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
				       logical + done * ss, n * rd->csum_size);
		}
		if (!p)
			return -ENOMEM;
		/* The digests are the checksums (csum size = digest size), written in place. */
		for (u64 i = 0; i < n; i += RD_BATCH) {
			const void *blocks[RD_BATCH];
			size_t nb = min_t(u64, n - i, RD_BATCH);
			int ret;

			for (size_t b = 0; b < nb; b++)
				blocks[b] = data + (done + i + b) * ss;
			ret = hash_digest_batch(&rd->csum, blocks, nb, ss, p + i * rd->csum_size);
			if (ret < 0)
				return ret;
		}
		done += n;
	}
	return 0;
}

static int add_data_extent(struct rd *rd, u64 ino, u64 file_off, u64 logical, u64 disk_len)
{
	struct mkfs_ctx *ctx = rd->ctx;

	if (ctx->nr_data == ctx->alloc_data) {
		size_t n = ctx->alloc_data ? ctx->alloc_data * 2 : 256;
		struct mkfs_data_extent *nd = realloc(ctx->data, n * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		ctx->data = nd;
		ctx->alloc_data = n;
	}
	ctx->data[ctx->nr_data++] = (struct mkfs_data_extent){
		.logical = logical, .disk_len = disk_len, .file_offset = file_off, .ino = ino,
		.root = rd->cur->root,
	};
	return 0;
}

static int flush_data(struct rd *rd)
{
	int ret = 0;

	if (rd->wlen)
		ret = btrfs_write_logical(rd->ctx->w, rd->wstart, rd->wbuf, rd->wlen);
	rd->wlen = 0;
	return ret;
}

/*
 * Write len bytes of file data at logical.  Pieces that continue the
 * previous one are gathered into one large write; a full piece
 * (RD_IO_SIZE) goes out directly.
 */
static int write_data(struct rd *rd, u64 logical, const u8 *buf, u64 len)
{
	int ret;

	if (rd->wlen && (rd->wstart + rd->wlen != logical || rd->wlen + len > RD_IO_SIZE)) {
		ret = flush_data(rd);
		if (ret < 0)
			return ret;
	}
	if (len >= RD_IO_SIZE)
		return btrfs_write_logical(rd->ctx->w, logical, buf, len);
	if (!rd->wlen)
		rd->wstart = logical;
	memcpy(rd->wbuf + rd->wlen, buf, len);
	rd->wlen += len;
	return 0;
}

/* Open name in directory dfd, not following a symlink: the fd, or -errno (printed, path named). */
static int open_child(int dfd, const char *name, const char *path, bool dir)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));

	if (fd < 0) {
		fd = -errno;
		error_errno(fd, "cannot open %s", path);
	}
	return fd;
}

/* A stream over directory dfd, or NULL with dfd closed and *ret set (printed). */
static DIR *open_dir_stream(int dfd, const char *path, int *ret)
{
	DIR *d = fdopendir(dfd);

	if (!d) {
		*ret = -errno;
		error_errno(*ret, "cannot open directory %s", path);
		close(dfd);
	}
	return d;
}

static int read_full(int fd, u8 *buf, u64 len, u64 off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* have bytes of path at off into buf, zeros after them up to len; errors printed. */
static int read_piece(int fd, const char *path, u8 *buf, u64 have, u64 len, u64 off)
{
	int ret;

	memset(buf + have, 0, len - have);
	ret = read_full(fd, buf, have, off);
	if (ret < 0)
		error_errno(ret, "cannot read %s", path);
	return ret;
}

static int add_inline(struct rd *rd, struct rd_inode *in, const u8 *data, u32 len, u64 ram, int compress)
{
	struct btrfs_file_extent_item *fi = tb_add_key(fs_tree(rd), in->ino, BTRFS_EXTENT_DATA_KEY, 0,
						       BTRFS_FILE_EXTENT_INLINE_DATA_START + len);

	if (!fi)
		return -ENOMEM;
	btrfs_set_file_extent_generation(fi, rd->ctx->gen);
	btrfs_set_file_extent_ram_bytes(fi, ram);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	btrfs_set_file_extent_compression(fi, compress);
	memcpy(btrfs_file_extent_inline_start(fi), data, len);
	in->nbytes = ram;
	return 0;
}

/*
 * Compress len bytes (zero padded to a sector) of rd->buf into rd->cbuf:
 * the compressed length when it saves at least one sector, else 0.
 */
static int try_compress(struct rd *rd, u64 len)
{
	const u32 ss = rd->ctx->cfg->sectorsize;
	u64 aligned = round_up(len, (u64)ss);
	int ret;

	if (aligned <= ss)
		return 0;
	ret = btrfs_compress_buf(&rd->comp, rd->buf, aligned, rd->cbuf, aligned - ss);
	if (ret == -E2BIG)
		return 0;
	return ret;
}

/* The data of regular file fd (named path in messages). */
static int copy_regular(struct rd *rd, int fd, const char *path, struct rd_inode *in)
{
	const u32 ss = rd->ctx->cfg->sectorsize;
	const bool no_holes = rd->ctx->cfg->incompat & BTRFS_FEATURE_INCOMPAT_NO_HOLES;
	const bool csums = !(in->flags & BTRFS_INODE_NODATASUM);
	bool compress = rd->compress && csums && !(in->flags & BTRFS_INODE_NODATACOW);
	u64 size = in->st.st_size, pos = 0, end_aligned = round_up(size, (u64)ss);
	int ret = 0;

	in->size = size;
	if (!size)
		return 0;
	if (size < ss && (size <= RD_MAX_INLINE || compress)) {
		ret = read_full(fd, rd->buf, size, 0);  /* size < sectorsize <= RD_IO_SIZE */
		if (ret < 0) {
			error_errno(ret, "cannot read %s", path);
			goto out;
		}
		if (compress) {
			int clen = btrfs_compress_buf(&rd->comp, rd->buf, size, rd->cbuf,
						      min_t(u64, size - 1, RD_MAX_INLINE));

			if (clen > 0) {
				ret = add_inline(rd, in, rd->cbuf, clen, size, rd->comp.type);
				goto out;
			}
			if (clen != -E2BIG) {
				ret = clen;
				goto out;
			}
			compress = false;
		}
		if (size <= RD_MAX_INLINE)
			return add_inline(rd, in, rd->buf, size, size, 0);
	}
	while (pos < end_aligned) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;
		u64 start, stop;

		if (data < 0) {
			if (errno != ENXIO) {
				/* No SEEK_DATA here: the whole rest is data. */
				data = pos;
			} else {
				break;
			}
		}
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = size;
		start = round_down((u64)data, (u64)ss);
		stop = min_t(u64, round_up((u64)hole, (u64)ss), end_aligned);
		if (start < pos)
			start = pos;
		if (start > pos && !no_holes) {
			ret = add_file_extent(rd, in->ino, pos, 0, 0, start - pos, 0);
			if (ret < 0)
				goto out;
		}
		while (start < stop) {
			u64 len = min_t(u64, stop - start, compress ? BTRFS_MAX_UNCOMPRESSED : RD_MAX_EXTENT);
			u64 valid = min_t(u64, len, size - start), logical, disk_len = len;
			int clen = 0;

			if (compress) {
				/* len <= 128 KiB <= RD_IO_SIZE */
				ret = read_piece(fd, path, rd->buf, valid, len, start);
				if (ret < 0)
					goto out;
				clen = try_compress(rd, len);
				if (clen < 0) {
					ret = clen;
					goto out;
				}
				if (!clen && start == 0) {
					in->flags |= BTRFS_INODE_NOCOMPRESS;
					compress = false;
				}
				if (clen) {
					/* As btrfs-progs: COMPRESS marks a file with compressed extents. */
					in->flags |= BTRFS_INODE_COMPRESS;
					disk_len = round_up((u64)clen, (u64)ss);
					memset(rd->cbuf + clen, 0, disk_len - clen);
				}
			}
			if (clen) {
				ret = alloc_data(rd, &disk_len, true, &logical);
			} else {
				ret = alloc_data(rd, &len, false, &logical);
				disk_len = len;
				valid = min_t(u64, len, size - start);
			}
			if (ret < 0) {
				error("not enough space in the filesystem for %s (%llu bytes)", path,
				      (unsigned long long)size);
				goto out;
			}
			ret = add_file_extent(rd, in->ino, start, logical, disk_len, len,
					      clen ? rd->comp.type : 0);
			if (!ret && (clen || compress)) {
				/* Compressed in rd->cbuf, or did not compress: in rd->buf already. */
				const u8 *p = clen ? rd->cbuf : rd->buf;

				ret = add_csums(rd, logical, p, disk_len);
				if (!ret)
					ret = write_data(rd, logical, p, disk_len);
			} else {
				for (u64 done = 0; !ret && done < len; done += RD_IO_SIZE) {
					u64 piece = min_t(u64, len - done, RD_IO_SIZE);
					u64 have = done < valid ? min_t(u64, piece, valid - done) : 0;

					ret = read_piece(fd, path, rd->buf, have, piece, start + done);
					if (!ret && csums)
						ret = add_csums(rd, logical + done, rd->buf, piece);
					if (!ret)
						ret = write_data(rd, logical + done, rd->buf, piece);
				}
			}
			if (!ret)
				ret = add_data_extent(rd, in->ino, start, logical, disk_len);
			if (ret < 0)
				goto out;
			in->nbytes += len;
			start += len;
		}
		pos = stop;
	}
	if (pos < end_aligned && !no_holes)
		ret = add_file_extent(rd, in->ino, pos, 0, 0, end_aligned - pos, 0);
out:
	return ret;
}

/* Symlink name in directory dfd (path in messages). */
static int copy_symlink(struct rd *rd, int dfd, const char *name, const char *path, struct rd_inode *in)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(dfd, name, target, sizeof(target));

	if (len < 0) {
		error_errno(-errno, "cannot read link %s", path);
		return -errno;
	}
	in->size = len;
	return add_inline(rd, in, (const u8 *)target, len, len, 0);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct rd_mark *find_mark(const struct rd_mark *m, int n, const struct stat *st)
{
	for (int i = 0; i < n; i++)
		if (m[i].dev == st->st_dev && m[i].ino == st->st_ino)
			return &m[i];
	return NULL;
}

/* The flags a new inode gets: inherited from its directory, plus --inode-flags. */
static u32 inode_flags_for(const struct rd *rd, const struct stat *st, u32 inherit)
{
	const struct rd_mark *m = find_mark(rd->iflags, rd->nr_iflags, st);
	u32 flags = inherit | (m ? m->flags : 0);

	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) && (flags & BTRFS_INODE_NODATACOW))
		flags |= BTRFS_INODE_NODATASUM;
	return flags;
}

static int walk_dir(struct rd *rd, int dfd, const char *path, struct rd_inode *dir);

static void release_tree(struct rd_tree *t)
{
	for (size_t i = 0; i < t->refs.nr; i++)
		free(t->refs.r[i].name);
	free(t->refs.r);
	free(t->links);
	free(t->slots);
}

/*
 * Fill the tree of the top-level subvolume (t == T_FS) or of a new
 * subvolume from directory dfd (taken over; path in messages); st is its
 * stat, flags its inode flags.
 */
static int fill_tree(struct rd *rd, struct rd_tree *tree, int dfd, const char *path, const struct stat *st,
		     u32 flags)
{
	struct rd_tree *saved = rd->cur;
	struct rd_inode root = { .ino = BTRFS_FIRST_FREE_OBJECTID, .flags = flags, .st = *st };
	int ret;

	rd->cur = tree;
	tree->next_ino = BTRFS_FIRST_FREE_OBJECTID + 1;
	ret = copy_xattrs(rd, dfd, path, BTRFS_FIRST_FREE_OBJECTID);
	if (ret < 0)
		close(dfd);
	else
		ret = walk_dir(rd, dfd, path, &root);
	if (!ret)
		ret = mkfs_add_inode_ref(fs_tree(rd), BTRFS_FIRST_FREE_OBJECTID, BTRFS_FIRST_FREE_OBJECTID, 0, "..");
	if (!ret)
		ret = emit_inode(rd, &root);
	if (!ret)
		ret = emit_refs(rd, &tree->refs);
	rd->cur = saved;
	return ret;
}

/* Directory dfd (taken over; name in directory dir of the current tree) becomes a subvolume. */
static int make_subvol(struct rd *rd, int dfd, const char *path, const struct stat *st, const struct rd_mark *m,
		       u64 dir, u64 index, const char *name, u64 *id)
{
	struct mkfs_ctx *ctx = rd->ctx;
	struct rd_tree tree = { 0 };
	struct mkfs_subvol *sv;
	int n = ctx->nr_subvols, ret;

	if (n >= MKFS_MAX_SUBVOLS) {
		error("too many subvolumes (at most %d)", MKFS_MAX_SUBVOLS);
		close(dfd);
		return -E2BIG;
	}
	sv = &ctx->subvol[n];
	memset(sv, 0, sizeof(*sv));
	sv->id = BTRFS_FIRST_FREE_OBJECTID + n;
	sv->parent = rd->cur->root;
	sv->dirid = dir;
	sv->index = index;
	sv->readonly = m->type == MKFS_SUBVOL_RO || m->type == MKFS_SUBVOL_DEFAULT_RO;
	sv->name = strdup(name);
	if (!sv->name) {
		close(dfd);
		return -ENOMEM;
	}
	uuid_generate(sv->uuid);
	ctx->nr_subvols++;
	tree.t = T_SUBVOL + n;
	tree.root = sv->id;
	ctx->tree_id[tree.t] = sv->id;
	tb_init(&ctx->tb[tree.t], sv->id);
	ctx->present[tree.t] = true;
	ctx->ntrees = tree.t + 1;
	if (m->type == MKFS_SUBVOL_DEFAULT || m->type == MKFS_SUBVOL_DEFAULT_RO) {
		ctx->default_subvol = sv->id;
		ctx->incompat_extra |= BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL;
	}
	/* A subvolume does not inherit inode flags from the directory above it. */
	ret = fill_tree(rd, &tree, dfd, path, st, inode_flags_for(rd, st, 0));
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
		if (*nr == alloc) {
			size_t n = alloc ? alloc * 2 : 64;
			char **nn = realloc(names, n * sizeof(*nn));

			if (!nn)
				goto fail;
			names = nn;
			alloc = n;
		}
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
static int copy_entry(struct rd *rd, int dfd, const char *name, const char *path, struct rd_inode *in)
{
	int fd = -1, ret;

	if (S_ISREG(in->st.st_mode) || S_ISDIR(in->st.st_mode)) {
		fd = open_child(dfd, name, path, S_ISDIR(in->st.st_mode));
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
		ret = copy_regular(rd, fd, path, in);
	else if (S_ISLNK(in->st.st_mode))
		ret = copy_symlink(rd, dfd, name, path, in);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The entries of directory dfd (taken over and closed; path in messages). */
static int walk_dir(struct rd *rd, int dfd, const char *path, struct rd_inode *dir)
{
	char **names = NULL;
	size_t nr = 0;
	struct rd_entry *ents = NULL;
	struct rd_tree *tree = rd->cur;
	u64 next_index = 2;
	int ret = 0;
	DIR *d = open_dir_stream(dfd, path, &ret);

	if (!d)
		return ret;
	names = read_names(d, &nr);
	ents = calloc(nr + 1, sizeof(*ents));
	if (!names || !ents) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		char child[PATH_MAX];
		struct rd_inode in = { 0 };
		struct rd_link *link;
		size_t len = strlen(names[i]);
		const struct rd_mark *sv;
		bool linked;

		if (snprintf(child, sizeof(child), "%s/%s", path, names[i]) >= (int)sizeof(child)) {
			error("path too long: %s/%s", path, names[i]);
			ret = -ENAMETOOLONG;
			goto out;
		}
		if (fstatat(dfd, names[i], &in.st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			error_errno(ret, "cannot stat %s", child);
			goto out;
		}
		ents[i].name = names[i];
		ents[i].type = btrfs_ftype_of_mode(in.st.st_mode);
		ents[i].hash = btrfs_name_hash(names[i], (int)len);
		ents[i].index = next_index++;
		dir->size += 2 * len;
		sv = S_ISDIR(in.st.st_mode) ? find_mark(rd->subvols, rd->nr_subvols, &in.st) : NULL;
		if (sv) {
			int fd = open_child(dfd, names[i], child, true);

			if (fd < 0) {
				ret = fd;
				goto out;
			}
			ents[i].subvol = true;
			ret = make_subvol(rd, fd, child, &in.st, sv, dir->ino, ents[i].index, names[i], &ents[i].ino);
			if (ret < 0)
				goto out;
			continue;
		}
		linked = !S_ISDIR(in.st.st_mode) && in.st.st_nlink > 1;
		link = linked ? find_link(tree, &in.st) : NULL;
		if (link) {
			/* Another name of a file copied already. */
			struct tree_builder *tb = fs_tree(rd);
			struct btrfs_inode_item *ii = (struct btrfs_inode_item *)(tb->arena +
										    tb->items[link->item].data_off);

			btrfs_set_inode_nlink(ii, btrfs_inode_nlink(ii) + 1);
			ents[i].ino = link->ino;
		} else {
			in.ino = tree->next_ino++;
			in.flags = inode_flags_for(rd, &in.st, dir->flags);
			ret = copy_entry(rd, dfd, names[i], child, &in);
			if (!ret)
				ret = emit_inode(rd, &in);
			if (!ret && linked)
				ret = add_link(tree, &in.st, in.ino, fs_tree(rd)->nr - 1);
			if (ret < 0)
				goto out;
			ents[i].ino = in.ino;
		}
		/* A hard-linked file's names in one directory share an item: merged at the end. */
		if (linked)
			ret = add_ref(&tree->refs, ents[i].ino, dir->ino, ents[i].index, names[i]);
		else
			ret = mkfs_add_inode_ref(fs_tree(rd), ents[i].ino, dir->ino, ents[i].index, names[i]);
		if (ret < 0)
			goto out;
	}
	ret = emit_dir_entries(rd, dir->ino, ents, nr);
out:
	closedir(d);
	for (size_t i = 0; names && i < nr; i++)
		free(names[i]);
	free(names);
	free(ents);
	return ret;
}

/* (dev, ino) of each --subvol and --inode-flags path. */
static int mark_paths(struct rd *rd, const struct mkfs_config *cfg)
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
		rd->subvols[i] = (struct rd_mark){ st.st_dev, st.st_ino, cfg->subvols[i].type, 0 };
	}
	rd->nr_subvols = cfg->nr_subvols;
	for (int i = 0; i < cfg->nr_inode_flags; i++) {
		struct stat st;

		if (lstat(cfg->inode_flags[i].path, &st) < 0) {
			error_errno(-errno, "cannot stat %s", cfg->inode_flags[i].path);
			return -ENOENT;
		}
		rd->iflags[i] = (struct rd_mark){ st.st_dev, st.st_ino, 0, cfg->inode_flags[i].flags };
	}
	rd->nr_iflags = cfg->nr_inode_flags;
	return 0;
}

int mkfs_add_rootdir(struct mkfs_ctx *ctx, const char *dir)
{
	const struct mkfs_config *cfg = ctx->cfg;
	struct rd rd = { .ctx = ctx };
	struct rd_tree top = { .t = T_FS, .root = BTRFS_FS_TREE_OBJECTID };
	struct stat st;
	int dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		error("--rootdir %s is not a directory", dir);
		if (dfd >= 0)
			close(dfd);
		return -ENOTDIR;
	}
	ret = hash_ctx_init(&rd.csum, (enum hash_alg)cfg->csum_type, NULL, 0);
	if (ret < 0) {
		close(dfd);
		return ret;
	}
	rd.csum_size = btrfs_csum_type_size(cfg->csum_type);
	rd.buf = malloc(RD_IO_SIZE);
	rd.cbuf = malloc(BTRFS_MAX_UNCOMPRESSED);
	rd.wbuf = malloc(RD_IO_SIZE);
	if (!rd.buf || !rd.cbuf || !rd.wbuf) {
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
		const struct rd_mark *top_flags = find_mark(rd.iflags, rd.nr_iflags, &st);

		ret = fill_tree(&rd, &top, dfd, dir, &st, top_flags ? top_flags->flags : 0);
		dfd = -1;
		if (!ret)
			ret = flush_data(&rd);
	}
out:
	if (dfd >= 0)
		close(dfd);
	release_tree(&top);
	free(rd.subvols);
	free(rd.iflags);
	free(rd.buf);
	free(rd.cbuf);
	free(rd.wbuf);
	if (rd.compress)
		btrfs_compressor_release(&rd.comp);
	hash_ctx_release(&rd.csum);
	return ret;
}

struct size_walk {
	u32 sectorsize;
	u64 data;
	u64 meta;
};

/* Add up the contents of directory dfd (taken over and closed; path in messages), not following symlinks. */
static int size_tree(int dfd, const char *path, struct size_walk *w, int depth)
{
	struct dirent *de;
	int ret = 0;
	DIR *d = open_dir_stream(dfd, path, &ret);

	if (!d)
		return ret;
	while (!ret && (de = readdir(d))) {
		struct stat st;
		size_t name = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			error_errno(ret, "cannot stat %s/%s", path, de->d_name);
			break;
		}
		if (S_ISREG(st.st_mode))
			w->data += round_up((u64)st.st_size, (u64)w->sectorsize);
		/* inode item, inode ref, dir item and index, inline data or extent items */
		w->meta += 4 * (name + 64) + 200 + (S_ISREG(st.st_mode) ? min_t(u64, st.st_size, 2048) : 0);
		if (S_ISDIR(st.st_mode)) {
			char child[PATH_MAX];
			int fd;

			if (depth > 4096) {
				ret = -ELOOP;
				break;
			}
			if (snprintf(child, sizeof(child), "%s/%s", path, de->d_name) >= (int)sizeof(child)) {
				ret = -ENAMETOOLONG;
				break;
			}
			fd = open_child(dirfd(d), de->d_name, child, true);
			ret = fd < 0 ? fd : size_tree(fd, child, w, depth + 1);
		}
	}
	closedir(d);
	return ret;
}

int mkfs_rootdir_estimate(const char *dir, u32 sectorsize, u64 *data_bytes, u64 *meta_bytes)
{
	struct size_walk w = { .sectorsize = sectorsize };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		ret = -errno;
		error_errno(ret, "cannot open directory %s", dir);
		return ret;
	}
	ret = size_tree(fd, dir, &w, 1);
	if (ret < 0)
		return ret;
	/* Checksums: at most 32 bytes per sector. */
	w.meta += w.data / sectorsize * 32;
	*data_bytes = w.data;
	*meta_bytes = w.meta;
	return 0;
}

void mkfs_release_rootdir(struct mkfs_ctx *ctx)
{
	free(ctx->data);
	ctx->data = NULL;
	ctx->nr_data = 0;
}

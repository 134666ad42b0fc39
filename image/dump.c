// SPDX-License-Identifier: GPL-2.0
/*
 * Creation of a btrfs-image metadata dump (format: kernel-shared/format/metadump.h).
 *
 * What goes in, in btrfs-image's order: the superblock, then the tree
 * blocks (from the extent tree's METADATA_ITEMs and tree-block EXTENT_ITEMs,
 * and with dump_data the data extents (EXTENT_ITEMs flagged DATA, in a v1
 * dump), or with walk_trees the chunk tree, the root tree and every tree a
 * ROOT_ITEM of it names, depth first, a subtree already dumped through
 * another tree left out: the walk remembers 8 bytes per tree block, as
 * btrfs-image does), the log trees (the superblock's log
 * root tree and the trees it names) and the space cache v1 extents (the
 * REG file extents of the root tree's free space inodes).  Adjacent ranges
 * of the same kind merge into one item up to the version's limit; a cluster
 * is written as soon as it holds METADUMP_ITEMS_PER_CLUSTER items (with
 * dump_data also once it holds 256 MiB), so memory is one cluster whatever
 * the filesystem's size.
 *
 * Every tree block is read through the one read path (any mirror that
 * passes checksum and header; the tree-checker is not asked: a dump is
 * for damaged filesystems too), copied with the free space of nodes and
 * leaves and inline file data zeroed (as btrfs-image; with dump_data
 * inline data is kept)
 * and re-checksummed with the filesystem's own checksum type.  A block bad
 * in every copy is dumped as the first copy that reads holds it, or as
 * zeros (salvage_block(): btrfs-image stops there); after the extent tree
 * every tree is walked from its root for the blocks it does not name
 * (complete_walk()).  Space cache extents are copied as read from the first
 * mirror that can be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "image/dump.h"
#include "image/parallel-internal.h"
#include "image/sanitize.h"
#include "common/device-utils.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/metadump.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/read/disk-io.h"

/* One item of the cluster being filled: its bytes at raw + raw_off, compressed at zbuf + z_off. */
struct dump_item {
	u64 start;
	size_t raw_off;
	u32 len;
	size_t z_off;
	uLongf z_len;
	int zret;
};

/* A set of tree block addresses (open addressing, 0 = empty: no tree block is at 0). */
struct block_set {
	u64 *tab;
	size_t nr;
	size_t slots;                   /* a power of two */
};

struct dump_ctx {
	struct btrfs_fs_info *fs;
	u32 nodesize;
	int level;                      /* zlib level, 0 = stored */
	int threads;                    /* compressing a cluster */
	u64 magic;
	u32 max_pending;                /* the version's item limit */
	bool dump_data;                 /* -d: data extents too, inline data kept (v1) */
	const char *target;
	int fd;
	char *tmp_path;                 /* a file target: the dump is written here, renamed at the end */
	/* the range being collected */
	u64 pending_start;
	u64 pending_size;
	bool pending_data;
	/* the cluster being filled: at most 83 items of max_pending bytes */
	struct dump_item items[METADUMP_ITEMS_PER_CLUSTER];
	u32 nritems;
	u8 *raw;                        /* the items' bytes back to back, uncompressed */
	size_t raw_len;
	size_t raw_alloc;
	u8 *zbuf;                       /* their zlib streams, compressBound() room each */
	size_t zbuf_alloc;
	u64 cluster_start;              /* file offset of the cluster's index block */
	struct extent_buffer *copy;     /* one tree block being rewritten */
	struct image_sanitizer *san;    /* -s: names replaced (image/sanitize.c), else NULL */
	struct block_set dumped;        /* every tree block in the dump */
	struct block_set walked;        /* the completing walk: nodes (and leaves of trees of roots) read */
	bool walk_leaves;               /* the completing walk is in a tree of roots: leaves are read */
	bool walk_backups;              /* it is in a tree of a backup root: every block read, kept if it verifies */
	/* what the source's damage did to the dump (said at the end) */
	u64 bad_blocks;                 /* no copy verifies: dumped as read */
	u64 zeroed_blocks;              /* no copy can be read (or -s cannot sanitize it): zeros */
	u64 walk_found;                 /* found by walking the trees, not in the extent tree */
	u64 walk_unreadable;            /* blocks of the current trees the walk cannot read and verify */
	u64 backup_found;               /* found only in the trees of the superblock's backup roots */
	bool extent_tree_cut;           /* the extent tree could not be read to its end */
	int walk_error;                 /* -w: a root tree leaf the walk refused (hostile bounds) */
};

static int write_out(struct dump_ctx *c, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = write(c->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int ret = -errno;

			error_errno(ret, "write to %s", c->target);
			return ret;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Level 9's match search cut from zlib's 4096 chain links to 1024 (the other
 * level 9 parameters kept): on tree blocks it takes 0.38 to 0.58 of the CPU
 * time for streams at most 1.1% larger (4K nodes) and smaller on a 200k-file
 * filesystem (bench/deflate-tune.c; figures in btrfs-image.rst).  So -c9
 * dumps are no longer byte for byte btrfs-image's, only item for item.
 */
#define DUMP_LEVEL9_CHAIN 1024

/* item -> one zlib stream (what compress2() makes, level 9 tuned as above); a zlib status. */
static int deflate_item(u8 *out, uLongf *out_len, const u8 *in, u32 len, int level)
{
	z_stream z = { .next_in = (Bytef *)in, .avail_in = len, .next_out = out,
		       .avail_out = (uInt)*out_len };
	int ret = deflateInit(&z, level);

	if (ret != Z_OK)
		return ret;
	if (level == 9)
		ret = deflateTune(&z, 32, 258, 258, DUMP_LEVEL9_CHAIN);
	if (ret == Z_OK)
		ret = deflate(&z, Z_FINISH) == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
	*out_len = z.total_out;
	deflateEnd(&z);
	return ret;
}

/* One item of the cluster: a worker of compress_cluster() (it touches only that item's fields and zbuf part). */
static void compress_item(void *arg, u32 i)
{
	struct dump_ctx *c = arg;
	struct dump_item *it = &c->items[i];

	it->z_len = compressBound(it->len);
	it->zret = deflate_item(c->zbuf + it->z_off, &it->z_len, c->raw + it->raw_off, it->len, c->level);
}

/*
 * Compress the cluster's items in c->threads threads, each taking the next
 * item not taken yet (image_parallel_for()): each item's stream depends on
 * its bytes only, so the output is the same for any number of threads.
 */
static int compress_cluster(struct dump_ctx *c)
{
	size_t need = 0;

	for (u32 i = 0; i < c->nritems; i++) {
		c->items[i].z_off = need;
		need += compressBound(c->items[i].len);
	}
	if (ARRAY_RESERVE(c->zbuf, c->zbuf_alloc, need)) {
		error("out of memory compressing a cluster");
		return -ENOMEM;
	}
	image_parallel_for(c->threads, c->nritems, compress_item, c);
	for (u32 i = 0; i < c->nritems; i++) {
		if (c->items[i].zret != Z_OK) {
			error("zlib compression of the range at %llu failed",
			      (unsigned long long)c->items[i].start);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The cluster being filled onto the output: index block, payloads, padding. */
static int write_cluster(struct dump_ctx *c)
{
	static const u8 zeros[METADUMP_BLOCK_SIZE];
	u8 index[METADUMP_BLOCK_SIZE] = { 0 };
	struct metadump_cluster *mc = (struct metadump_cluster *)index;
	size_t payload = 0, pad;
	int ret = 0;

	if (!c->nritems)
		return 0;
	if (c->level)
		ret = compress_cluster(c);
	if (ret)
		return ret;
	for (u32 i = 0; i < c->nritems; i++) {
		u32 size = c->level ? (u32)c->items[i].z_len : c->items[i].len;

		metadump_set_item_bytenr(&mc->items[i], c->items[i].start);
		metadump_set_item_size(&mc->items[i], size);
		payload += size;
	}
	metadump_set_magic(&mc->header, c->magic);
	metadump_set_bytenr(&mc->header, c->cluster_start);
	metadump_set_nritems(&mc->header, c->nritems);
	mc->header.compress = c->level ? METADUMP_COMPRESS_ZLIB : METADUMP_COMPRESS_NONE;
	pad = (METADUMP_BLOCK_SIZE - payload % METADUMP_BLOCK_SIZE) % METADUMP_BLOCK_SIZE;
	ret = write_out(c, index, sizeof(index));
	if (!ret && !c->level)
		ret = write_out(c, c->raw, c->raw_len);
	for (u32 i = 0; !ret && c->level && i < c->nritems; i++)
		ret = write_out(c, c->zbuf + c->items[i].z_off, c->items[i].z_len);
	if (!ret)
		ret = write_out(c, zeros, pad);
	if (ret)
		return ret;
	c->cluster_start += sizeof(index) + payload + pad;
	c->nritems = 0;
	c->raw_len = 0;
	return 0;
}

/* Zero len bytes at off of a block when the range lies inside it (damaged blocks may lie). */
static void zero_in_block(struct extent_buffer *eb, u64 off, u64 len)
{
	if (off <= eb->len && len <= eb->len - off)
		memset(eb->data + off, 0, len);
}

/*
 * btrfs-image's rewrite of a tree block: free space zeroed (node: past the
 * last key pointer; leaf: between the item array and the lowest item data),
 * the data of inline file extents zeroed unless keep_inline (-d: a dump with
 * data keeps inline data too, where btrfs-image zeroes it).
 */
static void scrub_block(struct extent_buffer *eb, bool keep_inline)
{
	u32 nritems = btrfs_eb_nritems(eb);
	u64 hdr = sizeof(struct btrfs_header);

	if (btrfs_eb_level(eb)) {
		u64 used = hdr + (u64)nritems * sizeof(struct btrfs_key_ptr);

		if (used <= eb->len)
			zero_in_block(eb, used, eb->len - used);
		return;
	}
	if (!nritems) {
		zero_in_block(eb, hdr, eb->len - hdr);
		return;
	}
	if ((u64)nritems * sizeof(struct btrfs_item) > btrfs_leaf_data_size(eb))
		return;
	{
		u64 items_end = (u64)nritems * sizeof(struct btrfs_item);
		u64 data_end = btrfs_leaf_data_end(eb);

		if (data_end >= items_end)
			zero_in_block(eb, hdr + items_end, data_end - items_end);
	}
	for (u32 i = 0; !keep_inline && i < nritems; i++) {
		struct btrfs_key key;
		u64 off = hdr + btrfs_leaf_item_offset(eb, (int)i);
		u32 size = btrfs_leaf_item_size(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (off > eb->len || size > eb->len - off)
			continue;
		if (key.type == BTRFS_EXTENT_DATA_KEY && size > BTRFS_FILE_EXTENT_INLINE_DATA_START &&
		    btrfs_file_extent_type((const void *)(eb->data + off)) == BTRFS_FILE_EXTENT_INLINE)
			memset(eb->data + off + BTRFS_FILE_EXTENT_INLINE_DATA_START, 0,
			       btrfs_file_extent_inline_item_len(size));
	}
}

/*
 * A tree block no copy of which verifies (checksum, header): into dst as
 * the first copy that reads holds it, bytes unchanged, so that a restore
 * shows the same damage; zeros when none reads, or with -s (a block that
 * cannot be parsed cannot be sanitized).  Said, and counted for the end.
 */
static void salvage_block(struct dump_ctx *c, u64 bytenr, u8 *dst)
{
	static const struct read_policy keep = { .relax = READ_NO_TREE_CHECKER,
						 .on_failure = READ_KEEP_BAD, .quiet = true };
	const struct tree_check any = { .level = -1 };
	struct extent_buffer *eb = NULL;
	int ret = btrfs_read_tree_block_policy(c->fs, bytenr, &any, &keep, &eb);

	if ((ret == 0 || ret == -EUCLEAN) && eb && !c->san) {
		memcpy(dst, eb->data, c->nodesize);
		warning("tree block %llu: no copy passes its checksum and header checks: dumped as it is on disk",
			(unsigned long long)bytenr);
		c->bad_blocks++;
	} else {
		memset(dst, 0, c->nodesize);
		warning("tree block %llu: %s: zeros in the dump", (unsigned long long)bytenr,
			eb ? "no copy verifies and -s cannot sanitize it" : "no copy of it can be read");
		c->zeroed_blocks++;
	}
	free_extent_buffer(eb);
}

/* The tree blocks of [start, start + len) into dst, rewritten. */
static int read_tree_range(struct dump_ctx *c, u64 start, u32 len, u8 *dst)
{
	static const struct read_policy policy = { .relax = READ_NO_TREE_CHECKER, .on_failure = READ_FAIL };
	const struct tree_check any = { .level = -1 };
	u8 csum[BTRFS_CSUM_SIZE];

	for (u32 off = 0; off < len; off += c->nodesize) {
		struct extent_buffer *eb;
		int ret = btrfs_read_tree_block_policy(c->fs, start + off, &any, &policy, &eb);

		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			salvage_block(c, start + off, dst + off);
			continue;
		}
		memcpy(c->copy->data, eb->data, c->nodesize);
		c->copy->start = eb->start;
		free_extent_buffer(eb);
		scrub_block(c->copy, c->dump_data);
		if (c->san) {
			ret = image_sanitize_leaf(c->san, c->copy);
			if (ret)
				return ret;
		}
		btrfs_csum_tree_block(c->fs, c->copy, csum);
		memcpy(c->copy->data, csum, BTRFS_CSUM_SIZE);
		memcpy(dst + off, c->copy->data, c->nodesize);
	}
	return 0;
}

/*
 * Data bytes [start, start + len) into dst as stored (compressed extents
 * as their on-disk bytes), chunk by chunk (a merged range may cross
 * chunks), each piece from the first mirror of its chunk that reads.
 */
static int read_data_range(struct dump_ctx *c, u64 start, u32 len, u8 *dst)
{
	for (u32 done = 0; done < len;) {
		u64 pos = start + done;
		const struct btrfs_chunk_map *chunk = btrfs_chunk_lookup(&c->fs->chunks, pos);
		u32 n = len - done;
		char msg[256] = "";
		int m, mirrors;

		if (chunk && chunk->logical + chunk->length - pos < n)
			n = (u32)(chunk->logical + chunk->length - pos);
		mirrors = chunk ? btrfs_chunk_num_mirrors(chunk) : 0;
		for (m = 1; m <= mirrors; m++)
			if (!btrfs_read_data_mirror(c->fs, pos, m, dst + done, n, msg, sizeof(msg)))
				break;
		if (m > mirrors) {
			error("cannot dump the data extent range at %llu length %u: %s",
			      (unsigned long long)pos, n, mirrors ? msg : "in no chunk");
			return -EIO;
		}
		done += n;
	}
	return 0;
}

static size_t set_slot(const u64 *tab, size_t slots, u64 bytenr)
{
	size_t i = (size_t)((bytenr >> 12) * 0x9e3779b97f4a7c15ULL) & (slots - 1);

	while (tab[i] && tab[i] != bytenr)
		i = (i + 1) & (slots - 1);
	return i;
}

static bool set_has(const struct block_set *set, u64 bytenr)
{
	return set->slots && set->tab[set_slot(set->tab, set->slots, bytenr)] == bytenr;
}

/* Add bytenr (never 0) to the set; 0, or -ENOMEM (said). */
static int set_add(struct block_set *set, u64 bytenr)
{
	if (2 * (set->nr + 1) > set->slots) {
		size_t slots = set->slots ? 2 * set->slots : 1024;
		u64 *tab = calloc(slots, sizeof(*tab));

		if (!tab) {
			error("out of memory for the set of dumped tree blocks");
			return -ENOMEM;
		}
		for (size_t i = 0; i < set->slots; i++)
			if (set->tab[i])
				tab[set_slot(tab, slots, set->tab[i])] = set->tab[i];
		free(set->tab);
		set->tab = tab;
		set->slots = slots;
	}
	if (set->tab[set_slot(set->tab, set->slots, bytenr)] == bytenr)
		return 0;
	set->tab[set_slot(set->tab, set->slots, bytenr)] = bytenr;
	set->nr++;
	return 0;
}

/* The collected range as the next item of the cluster; a full cluster is written. */
static int flush_pending(struct dump_ctx *c)
{
	struct dump_item *it = &c->items[c->nritems];
	u64 start = c->pending_start;
	u32 len = (u32)c->pending_size;
	u8 *dst;
	int ret;

	if (!c->pending_size)
		return 0;
	c->pending_size = 0;
	if (ARRAY_RESERVE(c->raw, c->raw_alloc, c->raw_len + len)) {
		error("out of memory");
		return -ENOMEM;
	}
	dst = c->raw + c->raw_len;
	if (start == BTRFS_SUPER_INFO_OFFSET) {
		memcpy(dst, btrfs_fs_super(c->fs), BTRFS_SUPER_INFO_SIZE);
		ret = c->san ? image_sanitize_super((struct btrfs_super_block *)dst, &c->fs->csum) : 0;
	} else if (c->pending_data) {
		ret = read_data_range(c, start, len, dst);
	} else {
		ret = read_tree_range(c, start, len, dst);
	}
	if (ret)
		return ret;
	*it = (struct dump_item){ .start = start, .raw_off = c->raw_len, .len = len };
	c->raw_len += len;
	/* with data a cluster is also written once it holds max_pending bytes: memory stays bounded */
	if (++c->nritems == METADUMP_ITEMS_PER_CLUSTER || (c->dump_data && c->raw_len >= c->max_pending))
		return write_cluster(c);
	return 0;
}

/*
 * Add [start, start + size) to the dump: it extends the collected range
 * when of the same kind, adjacent and within the version's limit.  A data
 * extent larger than the limit becomes several items.
 */
static int add_range(struct dump_ctx *c, u64 start, u64 size, bool data)
{
	while (size) {
		u64 part = size < c->max_pending ? size : c->max_pending;
		int ret;

		if (c->pending_size && (c->pending_data != data ||
					c->pending_size + part > c->max_pending ||
					c->pending_start + c->pending_size != start)) {
			ret = flush_pending(c);
			if (ret)
				return ret;
		}
		if (!c->pending_size)
			c->pending_start = start;
		c->pending_size += part;
		c->pending_data = data;
		start += part;
		size -= part;
	}
	return 0;
}

/* A tree block into the dump (once: the set of dumped blocks remembers it). */
static int add_tree_block(struct dump_ctx *c, u64 bytenr)
{
	int ret;

	if (bytenr % c->fs->geo.sectorsize) {
		error("tree block %llu is not aligned to the sector size %u", (unsigned long long)bytenr,
		      c->fs->geo.sectorsize);
		return -EUCLEAN;
	}
	if (set_has(&c->dumped, bytenr))
		return 0;
	ret = set_add(&c->dumped, bytenr);
	return ret ? ret : add_range(c, bytenr, c->nodesize, false);
}

/* ---- finding the blocks ------------------------------------------------- */

static const struct read_policy walk_policy = { .relax = READ_NO_TREE_CHECKER, .on_failure = READ_FAIL };

/* A subtree whose top block was dumped already (shared by snapshots) is left out, as in btrfs-image. */
static int walk_ptr(struct btrfs_fs_info *fs, const struct extent_buffer *node, int slot, u64 bytenr,
		    u64 generation, int level, void *ctx)
{
	(void)fs;
	(void)node;
	(void)slot;
	(void)generation;
	(void)level;
	return set_has(&((struct dump_ctx *)ctx)->dumped, bytenr) ? BTRFS_WALK_SKIP : BTRFS_WALK_DESCEND;
}

static int walk_add_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
			  int err, void *ctx)
{
	(void)fs;
	(void)eb;
	if (err == -ENOMEM)
		return err;
	if (err)
		warning("tree block %llu cannot be read and verified: the blocks below it are not in the dump",
			(unsigned long long)bytenr);
	return add_tree_block(ctx, bytenr);
}

static int walk_from_ref(struct dump_ctx *c, const struct btrfs_tree_ref *ref, btrfs_walk_fn fn)
{
	const struct tree_check expect = { .owner = ref->objectid, .level = ref->level };
	struct extent_buffer *root;
	int ret;

	if (set_has(&c->dumped, ref->bytenr))
		return 0;
	ret = btrfs_read_tree_block_policy(c->fs, ref->bytenr, &expect, &walk_policy, &root);
	if (ret)
		return fn(c->fs, NULL, ref->bytenr, ret, c);
	ret = btrfs_walk_block_ptrs(c->fs, ref, root, BTRFS_WALK_DFS, &walk_policy, 0, walk_ptr, fn, c);
	free_extent_buffer(root);
	/* a block that could not be read was said and dumped (as it is, or zeros) by fn */
	if (c->walk_error)
		return c->walk_error;
	return ret == -ENOMEM ? ret : 0;
}

/* A tree of roots (root tree, log root tree): its blocks, and in each leaf every tree a ROOT_ITEM names. */
static int walk_add_root_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr,
			       int err, void *ctx)
{
	struct dump_ctx *c = ctx;
	int ret = walk_add_block(fs, eb, bytenr, err, ctx);

	/* a root tree block that cannot be read names no tree */
	if (ret || err || btrfs_eb_level(eb))
		return ret;
	/* the walk does not ask the tree-checker: bound the item table and each item by the leaf */
	if ((u64)btrfs_eb_nritems(eb) * sizeof(struct btrfs_item) > btrfs_leaf_data_size(eb)) {
		error("root tree block %llu: nritems %u, more items than the leaf holds",
		      (unsigned long long)bytenr, btrfs_eb_nritems(eb));
		return c->walk_error = -EUCLEAN;
	}
	for (u32 i = 0; i < btrfs_eb_nritems(eb); i++) {
		struct btrfs_tree_ref ref;
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY)
			continue;
		if ((u64)btrfs_leaf_item_offset(eb, (int)i) + btrfs_leaf_item_size(eb, (int)i) >
		    btrfs_leaf_data_size(eb)) {
			error("root tree block %llu slot %u: item offset %u size %u past the end of the leaf",
			      (unsigned long long)bytenr, i, btrfs_leaf_item_offset(eb, (int)i),
			      btrfs_leaf_item_size(eb, (int)i));
			return c->walk_error = -EUCLEAN;
		}
		if (btrfs_leaf_item_size(eb, (int)i) < sizeof(struct btrfs_root_item)) {
			error("root tree block %llu slot %u: ROOT_ITEM of %u bytes, too small to name a tree",
			      (unsigned long long)bytenr, i, btrfs_leaf_item_size(eb, (int)i));
			return c->walk_error = -EUCLEAN;
		}
		btrfs_tree_ref_from_root_item(&ref, key.objectid, btrfs_leaf_item_ptr(eb, (int)i));
		ret = walk_from_ref(c, &ref, walk_add_block);
		if (ret)
			return ret;
	}
	return 0;
}

static int walk_tree_of_roots(struct dump_ctx *c, u64 objectid, bool follow_roots)
{
	struct btrfs_tree_ref ref;
	int ret = btrfs_find_tree_root(c->fs, objectid, &ref);

	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	return walk_from_ref(c, &ref, follow_roots ? walk_add_root_block : walk_add_block);
}

/*
 * The completing walk: after the extent tree, every tree from its root
 * (the chunk tree, the root tree and every tree its ROOT_ITEMs name), each
 * node read once, each leaf added by its address without a read (but the
 * leaves of the root tree, read for their ROOT_ITEMs).  A block the extent
 * tree did not list (a damaged or partly unreadable extent tree) goes into
 * the dump; a node that cannot be read goes in too (dumped as it is, or
 * zeros) and its subtree is lost.  On an undamaged filesystem it adds
 * nothing: the dump stays btrfs-image's.
 */
static int complete_add(struct dump_ctx *c, u64 bytenr)
{
	if (set_has(&c->dumped, bytenr))
		return 0;
	if (c->walk_backups)
		c->backup_found++;
	else
		c->walk_found++;
	return add_tree_block(c, bytenr);
}

static int complete_ptr(struct btrfs_fs_info *fs, const struct extent_buffer *node, int slot, u64 bytenr,
			u64 generation, int level, void *ctx)
{
	struct dump_ctx *c = ctx;
	int ret;

	(void)fs;
	(void)node;
	(void)slot;
	(void)generation;
	if (c->walk_backups && set_has(&c->dumped, bytenr))
		return BTRFS_WALK_SKIP;         /* a block of the current trees, their subtree walked */
	if (level == 0 && !c->walk_leaves && !c->walk_backups) {
		ret = complete_add(c, bytenr);
		return ret ? ret : BTRFS_WALK_SKIP;
	}
	if (set_has(&c->walked, bytenr))
		return BTRFS_WALK_SKIP;
	ret = set_add(&c->walked, bytenr);
	return ret ? ret : BTRFS_WALK_DESCEND;
}

static int complete_from_ref(struct dump_ctx *c, const struct btrfs_tree_ref *ref, bool roots);

static int complete_block(struct btrfs_fs_info *fs, const struct extent_buffer *eb, u64 bytenr, int err,
			  void *ctx)
{
	struct dump_ctx *c = ctx;
	int ret;

	(void)fs;
	if (err && c->walk_backups)
		return 0;       /* an older tree's block since overwritten: not dumped */
	if (err) {
		warning("tree block %llu cannot be read and verified: the blocks below it are not in the dump unless the extent tree names them",
			(unsigned long long)bytenr);
		c->walk_unreadable++;
		return complete_add(c, bytenr);
	}
	ret = complete_add(c, bytenr);
	if (ret || !c->walk_leaves || btrfs_eb_level(eb))
		return ret;
	/* a leaf of the root tree: the trees its ROOT_ITEMs name (item bounds as walk_add_root_block) */
	if ((u64)btrfs_eb_nritems(eb) * sizeof(struct btrfs_item) > btrfs_leaf_data_size(eb))
		return 0;
	for (u32 i = 0; i < btrfs_eb_nritems(eb) && !ret; i++) {
		struct btrfs_tree_ref ref;
		struct btrfs_key key;

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY ||
		    (u64)btrfs_leaf_item_offset(eb, (int)i) + btrfs_leaf_item_size(eb, (int)i) >
		    btrfs_leaf_data_size(eb) || btrfs_leaf_item_size(eb, (int)i) < sizeof(struct btrfs_root_item))
			continue;
		btrfs_tree_ref_from_root_item(&ref, key.objectid, btrfs_leaf_item_ptr(eb, (int)i));
		c->walk_leaves = false;
		ret = complete_from_ref(c, &ref, false);
		c->walk_leaves = true;
	}
	return ret;
}

static int complete_from_ref(struct dump_ctx *c, const struct btrfs_tree_ref *ref, bool roots)
{
	/* a backup root's block carries the generation its slot names (else it was since reused) */
	const struct tree_check expect = { .owner = ref->objectid, .level = ref->level,
					   .transid = c->walk_backups ? ref->generation : 0 };
	struct extent_buffer *root;
	int ret;

	if (!ref->bytenr || set_has(&c->walked, ref->bytenr))
		return 0;
	ret = set_add(&c->walked, ref->bytenr);
	if (ret)
		return ret;
	c->walk_leaves = roots;
	ret = btrfs_read_tree_block_policy(c->fs, ref->bytenr, &expect, &walk_policy, &root);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return complete_block(c->fs, NULL, ref->bytenr, ret, c);
	ret = btrfs_walk_block_ptrs(c->fs, ref, root, BTRFS_WALK_DFS, &walk_policy, 0, complete_ptr,
				    complete_block, c);
	free_extent_buffer(root);
	/* a read error below was said and added by complete_block(); only a failure of ours stops */
	return ret == -ENOMEM ? ret : 0;
}

/*
 * A damaged filesystem's dump also holds the trees of the superblock's
 * backup roots (the chunk and root trees of up to four older commits and
 * every tree their ROOT_ITEMs name), as far as their blocks still read and
 * verify (generation from the pointer, owner, level): what `check --backup`
 * and `btrfs restore` of the dump may fall back on.  A block since
 * overwritten is left out silently; one of the current trees is not walked
 * again.  An undamaged filesystem's dump does not change (btrfs-image's).
 */
static int walk_backup_roots(struct dump_ctx *c)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(c->fs);
	int ret = 0;

	c->walk_backups = true;
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS && !ret; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];
		const struct btrfs_tree_ref chunk = {
			BTRFS_CHUNK_TREE_OBJECTID, btrfs_backup_chunk_root(b),
			btrfs_backup_chunk_root_level(b), btrfs_backup_chunk_root_gen(b),
		};
		const struct btrfs_tree_ref root = {
			BTRFS_ROOT_TREE_OBJECTID, btrfs_backup_tree_root(b),
			btrfs_backup_tree_root_level(b), btrfs_backup_tree_root_gen(b),
		};

		if (!root.bytenr || root.level >= BTRFS_MAX_LEVEL || chunk.level >= BTRFS_MAX_LEVEL)
			continue;
		ret = complete_from_ref(c, &chunk, false);
		if (!ret)
			ret = complete_from_ref(c, &root, true);
	}
	c->walk_backups = false;
	return ret;
}

/* Did the dump meet damage so far?  (then the backup roots are walked, and the summary said) */
static bool damage_seen(const struct dump_ctx *c)
{
	return c->bad_blocks || c->zeroed_blocks || c->walk_found || c->walk_unreadable || c->extent_tree_cut;
}

static int complete_walk(struct dump_ctx *c)
{
	static const u64 trees[] = { BTRFS_CHUNK_TREE_OBJECTID, BTRFS_ROOT_TREE_OBJECTID };
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(trees) && !ret; i++) {
		struct btrfs_tree_ref ref;

		if (btrfs_find_tree_root(c->fs, trees[i], &ref))
			continue;
		ret = complete_from_ref(c, &ref, trees[i] == BTRFS_ROOT_TREE_OBJECTID);
	}
	if (!ret && damage_seen(c))
		ret = walk_backup_roots(c);
	return ret;
}

/* btrfs_for_each_item() from `from` on the tree with this objectid; a missing tree has no items. */
static int for_each_item(struct dump_ctx *c, u64 tree, const struct btrfs_key *from, btrfs_item_fn fn)
{
	struct btrfs_tree_ref ref;
	int ret = btrfs_find_tree_root(c->fs, tree, &ref);

	if (ret)
		return ret == -ENOENT ? 0 : ret;
	return btrfs_for_each_item(c->fs, NULL, &ref, from, BTRFS_SEARCH_NEXT, fn, c);
}

static int extent_item_fn(struct btrfs_path *path, const struct btrfs_key *key, void *arg)
{
	struct dump_ctx *c = arg;
	const struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	u64 flags, size;

	if (key->type != BTRFS_METADATA_ITEM_KEY && key->type != BTRFS_EXTENT_ITEM_KEY)
		return 0;
	if (btrfs_leaf_item_size(leaf, slot) < sizeof(struct btrfs_extent_item))
		return 0;       /* v0 extent items carry no flags: btrfs-image skips them too */
	flags = btrfs_extent_flags(btrfs_leaf_item_ptr(leaf, slot));
	if (c->dump_data && (flags & BTRFS_EXTENT_FLAG_DATA) && key->type == BTRFS_EXTENT_ITEM_KEY) {
		if (!key->offset || key->offset % c->fs->geo.sectorsize) {
			error("extent tree leaf %llu slot %d: data extent (%llu %u %llu) is not a whole number of sectors",
			      (unsigned long long)leaf->start, slot, (unsigned long long)key->objectid,
			      key->type, (unsigned long long)key->offset);
			return -EUCLEAN;
		}
		return add_range(c, key->objectid, key->offset, true);
	}
	if (!(flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		return 0;
	size = key->type == BTRFS_METADATA_ITEM_KEY ? c->nodesize : key->offset;
	if (!size || size % c->nodesize) {
		error("extent tree leaf %llu slot %d: tree block extent (%llu %u %llu) is not a whole number of nodes",
		      (unsigned long long)leaf->start, slot, (unsigned long long)key->objectid, key->type,
		      (unsigned long long)key->offset);
		return -EUCLEAN;
	}
	for (u64 off = 0; off < size; off += c->nodesize) {
		int ret = add_tree_block(c, key->objectid + off);

		if (ret)
			return ret;
	}
	return 0;
}

static int space_cache_fn(struct btrfs_path *path, const struct btrfs_key *key, void *arg)
{
	struct dump_ctx *c = arg;
	const struct extent_buffer *leaf = path->nodes[0];
	int slot = path->slots[0];
	const struct btrfs_file_extent_item *fi;

	if (key->type != BTRFS_EXTENT_DATA_KEY ||
	    btrfs_leaf_item_size(leaf, slot) < sizeof(struct btrfs_file_extent_item))
		return 0;
	fi = btrfs_leaf_item_ptr(leaf, slot);
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG || !btrfs_file_extent_disk_bytenr(fi))
		return 0;
	return add_range(c, btrfs_file_extent_disk_bytenr(fi), btrfs_file_extent_disk_num_bytes(fi), true);
}

static int collect(struct dump_ctx *c, const struct image_dump_opts *opts)
{
	const struct btrfs_key after_super = { .objectid = BTRFS_SUPER_INFO_OFFSET + BTRFS_SUPER_INFO_SIZE };
	const struct btrfs_key first = { 0 };
	int ret = add_range(c, BTRFS_SUPER_INFO_OFFSET, BTRFS_SUPER_INFO_SIZE, false);

	if (!ret && opts->walk_trees) {
		ret = walk_tree_of_roots(c, BTRFS_CHUNK_TREE_OBJECTID, false);
		if (!ret)
			ret = walk_tree_of_roots(c, BTRFS_ROOT_TREE_OBJECTID, true);
	} else if (!ret) {
		ret = for_each_item(c, BTRFS_EXTENT_TREE_OBJECTID, &after_super, extent_item_fn);
		if (ret && ret != -ENOMEM) {
			warning("the extent tree cannot be read to its end (%s): the tree blocks it does not name are found by walking the trees",
				strerror(-ret));
			c->extent_tree_cut = true;
			ret = 0;
		}
		if (!ret)
			ret = complete_walk(c);
	}
	if (!ret && btrfs_super_log_root(btrfs_fs_super(c->fs)))
		ret = walk_tree_of_roots(c, BTRFS_TREE_LOG_OBJECTID, true);
	if (!ret)
		ret = for_each_item(c, BTRFS_ROOT_TREE_OBJECTID, &first, space_cache_fn);
	if (!ret)
		ret = flush_pending(c);
	if (!ret)
		ret = write_cluster(c);
	return ret;
}

/*
 * The dump's output: stdout for "-", a device or other non-regular file as
 * it is, else a new file beside target (renamed over it once the dump is
 * complete and flushed: a failed dump leaves no target file behind and an
 * old one as it was).
 */
static int open_target(struct dump_ctx *c)
{
	struct stat st;
	mode_t mask;
	int fd;

	if (!strcmp(c->target, "-"))
		return STDOUT_FILENO;
	if (stat(c->target, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(c->target, O_WRONLY | O_TRUNC);
	} else {
		if (asprintf(&c->tmp_path, "%s.partial-XXXXXX", c->target) < 0) {
			c->tmp_path = NULL;
			return -ENOMEM;
		}
		fd = mkstemp(c->tmp_path);
		mask = umask(0);
		umask(mask);
		if (fd >= 0 && fchmod(fd, 0666 & ~mask)) {
			close(fd);
			unlink(c->tmp_path);
			fd = -1;
		}
		if (fd < 0) {
			free(c->tmp_path);
			c->tmp_path = NULL;
		}
	}
	if (fd < 0) {
		fd = -errno;
		error_errno(fd, "cannot create %s", c->target);
	}
	return fd;
}

/* A complete dump in its temporary file: flushed and renamed over the target. */
static int publish_target(struct dump_ctx *c)
{
	int ret = 0;

	if (!c->tmp_path)
		return 0;
	ret = btrfs_dev_flush(NULL, c->fd);
	if (!ret && rename(c->tmp_path, c->target))
		ret = -errno;
	if (ret)
		error_errno(ret, "cannot write %s", c->target);
	return ret;
}

/* A source that can be read and is not mounted read-write (0), else a negative errno after an error. */
static int check_source(const char *source)
{
	int ret;

	if (access(source, R_OK)) {
		ret = -errno;
		error_errno(ret, "cannot read %s", source);
		return ret;
	}
	switch (target_mount_state(source)) {
	case TARGET_MOUNTED_RW:
		error("%s is mounted read-write: unmount it or mount it read-only to dump it", source);
		return -EBUSY;
	case TARGET_MOUNTED_RO:
		warning("%s is mounted read-only: dumping it as it is on disk", source);
		break;
	}
	return 0;
}

int image_dump(const char *const *sources, int nsources, const char *target,
	       const struct image_dump_opts *opts)
{
	struct btrfs_open_args args = { .devices = (char *const *)sources, .ndevices = nsources,
					.partial = true };
	struct dump_ctx c = { .level = opts->compress_level, .threads = opts->threads ? opts->threads : 1,
			      .magic = METADUMP_MAGIC_V0,
			      .max_pending = METADUMP_MAX_PENDING_V0, .target = target, .fd = -1 };
	int ret = 0;

	for (int i = 0; i < nsources && !ret; i++)
		ret = check_source(sources[i]);
	if (ret)
		return ret;
	args.auth_key = opts->auth_key;
	args.auth_key_len = opts->auth_key_len;
	ret = btrfs_open_fs(&args, &c.fs);
	if (ret) {
		error("%s%s: not a btrfs filesystem that can be opened", sources[0],
		      nsources > 1 ? " and the other devices named" : "");
		return ret;
	}
	c.nodesize = c.fs->geo.nodesize;
	if (opts->dump_data && opts->walk_trees) {
		error("dumping data (-d) needs the extent tree: not with walking the trees (-w)");
		ret = -EINVAL;
		goto out;
	}
	if (opts->dump_data) {
		c.dump_data = true;
		c.magic = METADUMP_MAGIC_V1;
		c.max_pending = METADUMP_MAX_PENDING_V1;
	}
	c.copy = alloc_extent_buffer(0, c.nodesize);
	if (!c.copy) {
		ret = -ENOMEM;
		error("out of memory");
		goto out;
	}
	if (opts->sanitize) {
		ret = image_sanitizer_new(&c.san);
		if (ret)
			goto out;
	}
	c.fd = open_target(&c);
	if (c.fd < 0) {
		ret = c.fd;
		goto out;
	}
	ret = collect(&c, opts);
	if (!ret && damage_seen(&c))
		fprintf(stderr,
			"the filesystem is damaged: %llu tree blocks dumped, %llu of them as they are on disk (no copy verifies), %llu as zeros (no copy reads), %llu found only by walking the trees%s, %llu only in the trees of the backup roots\n",
			(unsigned long long)c.dumped.nr, (unsigned long long)c.bad_blocks,
			(unsigned long long)c.zeroed_blocks, (unsigned long long)c.walk_found,
			c.extent_tree_cut ? " (the extent tree could not be read to its end)" : "",
			(unsigned long long)c.backup_found);
	if (!ret)
		ret = publish_target(&c);
	if (!ret && c.san && image_sanitizer_kept(c.san))
		warning("%llu names of 1 to 4 bytes kept as they were: no other name of their length has their hash",
			(unsigned long long)image_sanitizer_kept(c.san));
	if (c.fd != STDOUT_FILENO && close(c.fd) && !ret) {
		ret = -errno;
		error_errno(ret, "close of %s", target);
	}
out:
	if (ret && c.tmp_path && unlink(c.tmp_path) == 0)
		fprintf(stderr, "no dump written to %s\n", target);
	free(c.tmp_path);
	free(c.raw);
	free(c.zbuf);
	free(c.dumped.tab);
	free(c.walked.tab);
	free_extent_buffer(c.copy);
	image_sanitizer_free(c.san);
	btrfs_close_fs(c.fs);
	return ret;
}

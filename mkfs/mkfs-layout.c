// SPDX-License-Identifier: GPL-2.0
/*
 * A new filesystem, built in memory and written once; see mkfs-layout.h.
 *
 * Sequence: plan the chunks; fill the trees whose contents do not depend on
 * where blocks go (chunk, dev, fs, csum, uuid, data reloc); allocate their
 * blocks and the root tree's and block group tree's; then grow the extent
 * tree and free space tree allocations until they hold the items describing
 * every block, their own included (a fixed point: each round adds only the
 * blocks missing).  Then fill the allocation-dependent trees with the final
 * values, build every block, write, flush, write the superblocks.  With
 * --rootdir this empty filesystem is then filled through the write engine
 * (rootdir-fs.c), as btrfs-progs does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "mkfs/mkfs-layout.h"
#include "kernel-shared/read/dev-write.h"
#include "mkfs/mkfs-internal.h"
#include "mkfs/rootdir-internal.h"
#include "kernel-shared/engine/chunk-alloc.h"
#include "mkfs/tree-builder.h"
#include "kernel-shared/engine/tree-write.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/tree-checker.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/messages.h"
#include "crypto/hash.h"
#include "kernel-shared/format/growable-array.h"

const u64 mkfs_tree_ids[T_NR] = {
	BTRFS_ROOT_TREE_OBJECTID, BTRFS_EXTENT_TREE_OBJECTID, BTRFS_CHUNK_TREE_OBJECTID,
	BTRFS_DEV_TREE_OBJECTID, BTRFS_FS_TREE_OBJECTID, BTRFS_CSUM_TREE_OBJECTID,
	BTRFS_UUID_TREE_OBJECTID, BTRFS_QUOTA_TREE_OBJECTID, BTRFS_FREE_SPACE_TREE_OBJECTID,
	BTRFS_BLOCK_GROUP_TREE_OBJECTID, BTRFS_DATA_RELOC_TREE_OBJECTID,
};

/* Allocation order of the metadata trees (the chunk tree goes to SYSTEM). */
static const int alloc_order[] = { T_FS, T_CSUM, T_RELOC, T_UUID, T_QUOTA, T_DEV, T_ROOT, T_BGT };

/* ---- chunks -------------------------------------------------------------- */

u64 btrfs_mkfs_min_dev_size(const struct mkfs_config *cfg)
{
	u64 size = BTRFS_DEVICE_RANGE_RESERVED + 4 * SZ_1M + SZ_8M;
	const struct btrfs_raid_profile *m = btrfs_raid_profile_find(cfg->meta_profile);
	const struct btrfs_raid_profile *d = btrfs_raid_profile_find(cfg->data_profile);

	if (!cfg->mixed)
		size += SZ_8M;
	/* Chunks of other profiles come on top: system 8 MiB, metadata 32 MiB, data 64 MiB stripes. */
	if (m && m->bg_flag) {
		size += SZ_8M * m->dev_stripes;
		size += (cfg->mixed ? SZ_64M : SZ_32M) * m->dev_stripes;
	}
	if (!cfg->mixed && d && d->bg_flag)
		size += SZ_64M * d->dev_stripes;
	return size;
}

static int plan_chunks(struct mkfs_ctx *ctx)
{
	const struct mkfs_config *cfg = ctx->cfg;
	u64 sizes[CHUNK_ALLOC_MAX_DEVICES];
	struct chunk_placement *tmp_sys, *tmp_meta, *tmp_data = NULL, *c;
	u64 meta_type = cfg->mixed ? BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DATA :
				     BTRFS_BLOCK_GROUP_METADATA;
	int ret;

	for (int i = 0; i < cfg->ndevs; i++)
		sizes[i] = cfg->devs[i].size;
	ret = chunk_alloc_init(&ctx->ca, cfg->ndevs, sizes, cfg->sectorsize);
	if (ret < 0)
		return ret;
	/*
	 * --shrink: size the chunks as for a device of at most 1 GiB (chunk
	 * sizes follow the filesystem size); after the copy rootdir-fs.c
	 * cuts the device to the end of its last dev extent.
	 */
	if (cfg->shrink)
		ctx->ca.total_bytes = min_t(u64, ctx->ca.total_bytes, SZ_1G);
	tmp_sys = chunk_alloc_new_chunk_on_device(&ctx->ca, BTRFS_BLOCK_GROUP_SYSTEM, 1, 4 * SZ_1M);
	if (IS_ERR(tmp_sys))
		return PTR_ERR(tmp_sys);
	tmp_meta = chunk_alloc_new_chunk_on_device(&ctx->ca, meta_type, 1, SZ_8M);
	if (IS_ERR(tmp_meta))
		return PTR_ERR(tmp_meta);
	if (!cfg->mixed) {
		tmp_data = chunk_alloc_new_chunk_on_device(&ctx->ca, BTRFS_BLOCK_GROUP_DATA, 1, SZ_8M);
		if (IS_ERR(tmp_data))
			return PTR_ERR(tmp_data);
	}
	if (cfg->meta_profile) {
		c = chunk_alloc_new_chunk(&ctx->ca, BTRFS_BLOCK_GROUP_SYSTEM | cfg->meta_profile);
		if (IS_ERR(c))
			return PTR_ERR(c);
		c = chunk_alloc_new_chunk(&ctx->ca, meta_type | cfg->meta_profile);
		if (IS_ERR(c))
			return PTR_ERR(c);
	}
	if (!cfg->mixed && cfg->data_profile) {
		c = chunk_alloc_new_chunk(&ctx->ca, BTRFS_BLOCK_GROUP_DATA | cfg->data_profile);
		if (IS_ERR(c))
			return PTR_ERR(c);
	}
	if (cfg->meta_profile) {
		chunk_alloc_remove_chunk(&ctx->ca, tmp_sys);
		chunk_alloc_remove_chunk(&ctx->ca, tmp_meta);
	}
	if (tmp_data && cfg->data_profile)
		chunk_alloc_remove_chunk(&ctx->ca, tmp_data);
	if (ctx->ca.nr_chunks > (int)ARRAY_SIZE(ctx->chunks))
		return -E2BIG;
	ctx->nr_chunks = chunk_alloc_sorted_chunks(&ctx->ca, ctx->chunks);
	return 0;
}

/* ---- block allocation ------------------------------------------------------ */

static int alloc_blocks(struct mkfs_ctx *ctx, int t, u32 count)
{
	struct tree_blocks *b = &ctx->blk[t];
	u64 type = t == T_CHUNK ? BTRFS_BLOCK_GROUP_SYSTEM : BTRFS_BLOCK_GROUP_METADATA;
	u32 ns = ctx->cfg->nodesize;

	if (ARRAY_RESERVE(b->bytenr, b->alloc, (size_t)b->nr + count))
		return -ENOMEM;
	for (u32 i = 0; i < count; i++) {
		int ret = chunk_alloc_bytes(&ctx->ca, type, ns, ns, &b->bytenr[b->nr]);

		if (ret < 0) {
			error("no room for tree blocks of tree %lld in the %s chunks", (long long)ctx->tree_id[t],
			      t == T_CHUNK ? "system" : "metadata");
			return ret;
		}
		b->nr++;
	}
	return 0;
}

/* ---- tree contents --------------------------------------------------------- */

static void set_time(struct btrfs_timespec *ts, u64 sec)
{
	btrfs_set_timespec_sec(ts, sec);
	btrfs_set_timespec_nsec(ts, 0);
}

static void fill_dir_inode(const struct mkfs_ctx *ctx, struct btrfs_inode_item *ii)
{
	u64 now = ctx->cfg->now;

	btrfs_set_inode_generation(ii, ctx->gen);
	btrfs_set_inode_transid(ii, 0);
	btrfs_set_inode_size(ii, 0);
	btrfs_set_inode_nbytes(ii, ctx->cfg->nodesize);
	btrfs_set_inode_nlink(ii, 1);
	btrfs_set_inode_mode(ii, 040755);
	set_time(&ii->atime, now);
	set_time(&ii->ctime, now);
	set_time(&ii->mtime, now);
	set_time(&ii->otime, now);
}

static int add_inode_ref(struct tree_builder *tb, u64 ino, u64 parent, u64 index, const char *name)
{
	size_t len = strlen(name);
	struct btrfs_inode_ref *ref = tree_builder_add_key(tb, ino, BTRFS_INODE_REF_KEY, parent, sizeof(*ref) + len);

	if (!ref)
		return -ENOMEM;
	btrfs_set_inode_ref_index(ref, index);
	btrfs_set_inode_ref_name_len(ref, len);
	memcpy(btrfs_inode_ref_name_ptr(ref), name, len);
	return 0;
}

/* A subvolume-like tree with an empty root directory 256. */
static int fill_subvol_tree(struct mkfs_ctx *ctx, struct tree_builder *tb)
{
	struct btrfs_inode_item *ii;

	ii = tree_builder_add_key(tb, BTRFS_FIRST_FREE_OBJECTID, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii));
	if (!ii)
		return -ENOMEM;
	fill_dir_inode(ctx, ii);
	return add_inode_ref(tb, BTRFS_FIRST_FREE_OBJECTID, BTRFS_FIRST_FREE_OBJECTID, 0, "..");
}

/* A device item as the chunk tree and each device's superblock carry it. */
static void fill_dev_item(const struct mkfs_ctx *ctx, struct btrfs_dev_item *di, int i)
{
	const struct mkfs_config *cfg = ctx->cfg;
	const struct chunk_alloc_device *d = &ctx->ca.devs[i];

	btrfs_set_device_id(di, i + 1);
	btrfs_set_device_total_bytes(di, d->total_bytes);
	btrfs_set_device_bytes_used(di, d->bytes_used);
	btrfs_set_device_io_align(di, cfg->sectorsize);
	btrfs_set_device_io_width(di, cfg->sectorsize);
	btrfs_set_device_sector_size(di, cfg->sectorsize);
	memcpy(di->uuid, cfg->devs[i].uuid, BTRFS_UUID_SIZE);
	memcpy(di->fsid, cfg->fsid, BTRFS_FSID_SIZE);
}

/* The CHUNK_ITEM of c (btrfs_chunk_item_size(c->num_stripes) bytes, zeroed). */
static void fill_chunk_item(const struct mkfs_ctx *ctx, const struct chunk_placement *c, struct btrfs_chunk *ch)
{
	chunk_alloc_fill_chunk_item(c, ctx->cfg->sectorsize, ch);
	for (int s = 0; s < c->num_stripes; s++)
		memcpy(btrfs_chunk_stripe(ch, s)->dev_uuid, ctx->cfg->devs[c->stripes[s].devid - 1].uuid,
		       BTRFS_UUID_SIZE);
}

static int writer_add_chunk(struct mkfs_ctx *ctx, const struct chunk_placement *c)
{
	u32 size = btrfs_chunk_item_size(c->num_stripes);
	struct btrfs_chunk *ch = calloc(1, size);
	int ret;

	if (!ch)
		return -ENOMEM;
	fill_chunk_item(ctx, c, ch);
	ret = btrfs_block_writer_add_chunk(ctx->w, c->logical, ch, size);
	free(ch);
	return ret;
}

static int fill_chunk_tree(struct mkfs_ctx *ctx)
{
	const struct mkfs_config *cfg = ctx->cfg;
	struct tree_builder *tb = &ctx->tb[T_CHUNK];

	for (int i = 0; i < cfg->ndevs; i++) {
		struct btrfs_dev_item *di = tree_builder_add_key(tb, BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY,
						       i + 1, sizeof(*di));

		if (!di)
			return -ENOMEM;
		fill_dev_item(ctx, di, i);
	}
	for (int i = 0; i < ctx->nr_chunks; i++) {
		const struct chunk_placement *c = ctx->chunks[i];
		struct btrfs_chunk *ch = tree_builder_add_key(tb, BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
						    c->logical, btrfs_chunk_item_size(c->num_stripes));

		if (!ch)
			return -ENOMEM;
		fill_chunk_item(ctx, c, ch);
	}
	return 0;
}

static int fill_dev_tree(struct mkfs_ctx *ctx)
{
	struct tree_builder *tb = &ctx->tb[T_DEV];

	for (int i = 0; i < ctx->nr_chunks; i++) {
		const struct chunk_placement *c = ctx->chunks[i];

		for (int s = 0; s < c->num_stripes; s++) {
			struct btrfs_dev_extent *de = tree_builder_add_key(tb, c->stripes[s].devid, BTRFS_DEV_EXTENT_KEY,
								 c->stripes[s].physical, sizeof(*de));

			if (!de)
				return -ENOMEM;
			btrfs_set_dev_extent_chunk_tree(de, BTRFS_CHUNK_TREE_OBJECTID);
			btrfs_set_dev_extent_chunk_objectid(de, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
			btrfs_set_dev_extent_chunk_offset(de, c->logical);
			btrfs_set_dev_extent_length(de, c->stripe_size);
			memcpy(de->chunk_tree_uuid, ctx->cfg->chunk_uuid, BTRFS_UUID_SIZE);
		}
	}
	return 0;
}

static int fill_uuid_tree(struct mkfs_ctx *ctx)
{
	const u8 *u = ctx->cfg->fs_uuid;
	__le64 *id = tree_builder_add_key(&ctx->tb[T_UUID], get_unaligned_le64(u), BTRFS_UUID_KEY_SUBVOL,
				get_unaligned_le64(u + 8), sizeof(*id));

	if (!id)
		return -ENOMEM;
	put_unaligned_le64(BTRFS_FS_TREE_OBJECTID, id);
	return 0;
}

static int fill_quota_tree(struct mkfs_ctx *ctx)
{
	struct tree_builder *tb = &ctx->tb[T_QUOTA];
	struct btrfs_qgroup_status_item *st;
	struct btrfs_qgroup_info_item *info;
	struct btrfs_qgroup_limit_item *lim;
	u64 flags = BTRFS_QGROUP_STATUS_FLAG_ON;

	st = tree_builder_add_key(tb, 0, BTRFS_QGROUP_STATUS_KEY, 0, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (ctx->cfg->squota)
		flags |= BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE;
	btrfs_set_qgroup_status_version(st, BTRFS_QGROUP_STATUS_VERSION);
	btrfs_set_qgroup_status_generation(st, ctx->gen);
	btrfs_set_qgroup_status_flags(st, flags);
	btrfs_set_qgroup_status_rescan(st, 0);
	if (ctx->cfg->squota)
		btrfs_set_qgroup_status_enable_gen(st, ctx->gen);
	{
		u64 id = BTRFS_FS_TREE_OBJECTID;
		/* The empty top-level subvolume: one leaf. */
		u64 bytes = ctx->cfg->nodesize;
		info = tree_builder_add_key(tb, 0, BTRFS_QGROUP_INFO_KEY, id, sizeof(*info));
		if (!info)
			return -ENOMEM;
		btrfs_set_qgroup_info_generation(info, ctx->gen);
		if (!ctx->cfg->squota)
			btrfs_set_qgroup_info_usage(info, bytes, bytes);
		lim = tree_builder_add_key(tb, 0, BTRFS_QGROUP_LIMIT_KEY, id, sizeof(*lim));
		if (!lim)
			return -ENOMEM;
	}
	return 0;
}

static u64 tree_root_bytenr(const struct mkfs_ctx *ctx, int t)
{
	return ctx->blk[t].nr ? ctx->blk[t].bytenr[ctx->blk[t].nr - 1] : 0;
}

/* The root item of tree t, as every tree's: its root block, size, level, generation. */
static struct btrfs_root_item *add_root_item(struct mkfs_ctx *ctx, struct tree_builder *tb, int t, u64 dirid)
{
	struct btrfs_root_item *ri = tree_builder_add_key(tb, ctx->tree_id[t], BTRFS_ROOT_ITEM_KEY, 0, sizeof(*ri));

	if (!ri)
		return NULL;
	btrfs_root_item_init_top_dir(ri, ctx->cfg->nodesize);
	btrfs_set_root_generation(ri, ctx->gen);
	btrfs_set_root_dirid(ri, dirid);
	btrfs_set_root_bytenr(ri, tree_root_bytenr(ctx, t));
	btrfs_set_root_used(ri, (u64)ctx->blk[t].nr * ctx->cfg->nodesize);
	btrfs_set_root_refs(ri, 1);
	btrfs_set_root_level(ri, tree_builder_root_level(&ctx->tb[t]));
	btrfs_set_root_generation_v2(ri, ctx->gen);
	return ri;
}

static int fill_root_tree(struct mkfs_ctx *ctx)
{
	struct tree_builder *tb = &ctx->tb[T_ROOT];
	struct btrfs_inode_item *ii;
	struct btrfs_dir_item *di;
	const char *def = "default";
	size_t deflen = strlen(def);
	int ret;

	tree_builder_reset(tb);
	for (int t = 0; t < T_NR; t++) {
		struct btrfs_root_item *ri;
		bool subvol = t == T_FS || t == T_RELOC;

		if (!ctx->present[t] || t == T_ROOT || t == T_CHUNK)
			continue;
		ri = add_root_item(ctx, tb, t, subvol ? BTRFS_FIRST_FREE_OBJECTID : 0);
		if (!ri)
			return -ENOMEM;
		if (t == T_FS) {
			memcpy(ri->uuid, ctx->cfg->fs_uuid, BTRFS_UUID_SIZE);
			set_time(&ri->ctime, ctx->cfg->now);
			set_time(&ri->otime, ctx->cfg->now);
		}
	}
	/*
	 * The root tree directory with "default" pointing at the top-level
	 * subvolume, and the backref btrfs-progs writes for that name:
	 * (FS_TREE INODE_REF ROOT_TREE_DIR) "default", index 0.
	 */
	ret = add_inode_ref(tb, BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_TREE_DIR_OBJECTID, 0, def);
	if (ret < 0)
		return ret;
	ii = tree_builder_add_key(tb, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_INODE_ITEM_KEY, 0, sizeof(*ii));
	if (!ii)
		return -ENOMEM;
	fill_dir_inode(ctx, ii);
	ret = add_inode_ref(tb, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_ROOT_TREE_DIR_OBJECTID, 0, "..");
	if (ret < 0)
		return ret;
	di = tree_builder_add_key(tb, BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
			btrfs_name_hash(def, (int)deflen), sizeof(*di) + deflen);
	if (!di)
		return -ENOMEM;
	btrfs_set_disk_key_objectid(&di->location,
				    BTRFS_FS_TREE_OBJECTID);
	btrfs_set_disk_key_type(&di->location, BTRFS_ROOT_ITEM_KEY);
	btrfs_set_disk_key_offset(&di->location, (u64)-1);
	btrfs_set_dir_transid(di, 0);
	btrfs_set_dir_data_len(di, 0);
	btrfs_set_dir_name_len(di, deflen);
	btrfs_set_dir_type(di, BTRFS_FT_DIR);
	memcpy(btrfs_dir_name_ptr(di), def, deflen);
	return 0;
}

/* Bytes of tree blocks and data in chunk c. */
static u64 chunk_used(const struct chunk_placement *c)
{
	return c->used;
}

static int add_block_group_items(struct mkfs_ctx *ctx, struct tree_builder *tb)
{
	for (int i = 0; i < ctx->nr_chunks; i++) {
		const struct chunk_placement *c = ctx->chunks[i];
		struct btrfs_block_group_item *bg = tree_builder_add_key(tb, c->logical, BTRFS_BLOCK_GROUP_ITEM_KEY,
							       c->length, sizeof(*bg));

		if (!bg)
			return -ENOMEM;
		btrfs_set_block_group_used(bg, chunk_used(c));
		btrfs_set_block_group_chunk_objectid(bg, BTRFS_FIRST_CHUNK_TREE_OBJECTID);
		btrfs_set_block_group_flags(bg, c->type);
	}
	return 0;
}

struct range {
	u64 start;
	u64 len;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Every allocated metadata range, sorted; *nr set.  Caller frees. */
static struct range *used_ranges(const struct mkfs_ctx *ctx, size_t *nr)
{
	size_t n = 0, k = 0;
	struct range *r;

	for (int t = 0; t < T_NR; t++)
		n += ctx->blk[t].nr;
	r = malloc((n + 1) * sizeof(*r));
	if (!r)
		return NULL;
	for (int t = 0; t < T_NR; t++)
		for (u32 i = 0; i < ctx->blk[t].nr; i++)
			r[k++] = (struct range){ ctx->blk[t].bytenr[i], ctx->cfg->nodesize };
	qsort(r, k, sizeof(*r), cmp_range);
	*nr = k;
	return r;
}

static int fill_free_space_tree(struct mkfs_ctx *ctx)
{
	struct tree_builder *tb = &ctx->tb[T_FST];
	size_t nr, j = 0;
	struct range *used = used_ranges(ctx, &nr);

	if (!used)
		return -ENOMEM;
	tree_builder_reset(tb);
	for (int i = 0; i < ctx->nr_chunks; i++) {
		const struct chunk_placement *c = ctx->chunks[i];
		struct btrfs_free_space_info *info;
		u64 pos = c->logical, end = c->logical + c->length;
		u32 count = 0;

		info = tree_builder_add_key(tb, c->logical, BTRFS_FREE_SPACE_INFO_KEY, c->length, sizeof(*info));
		if (!info) {
			free(used);
			return -ENOMEM;
		}
		while (j < nr && used[j].start < c->logical)
			j++;
		for (; j < nr && used[j].start < end; j++) {
			if (used[j].start > pos) {
				if (!tree_builder_add_key(tb, pos, BTRFS_FREE_SPACE_EXTENT_KEY, used[j].start - pos, 0)) {
					free(used);
					return -ENOMEM;
				}
				count++;
			}
			pos = used[j].start + used[j].len;
		}
		if (pos < end) {
			if (!tree_builder_add_key(tb, pos, BTRFS_FREE_SPACE_EXTENT_KEY, end - pos, 0)) {
				free(used);
				return -ENOMEM;
			}
			count++;
		}
		/* Find the info again: tree_builder_add moved the arena. */
		info = (struct btrfs_free_space_info *)(tb->arena + tb->items[tb->nr - count - 1].data_off);
		btrfs_set_free_space_extent_count(info, count);
		btrfs_set_free_space_flags(info, 0);
	}
	free(used);
	return 0;
}

/*
 * The extent items of every tree block, and the block group items without
 * a block group tree.  own: level and first key of the extent tree's own
 * blocks from its last plan, or NULL (level 0: the first planning round).
 */
struct block_info {
	int level;
	struct btrfs_key first;
};

static int fill_extent_tree(struct mkfs_ctx *ctx, const struct block_info *own)
{
	struct tree_builder *tb = &ctx->tb[T_EXTENT];
	const u32 ns = ctx->cfg->nodesize;
	int ret;

	tree_builder_reset(tb);
	for (int t = 0; t < T_NR; t++) {
		for (u32 i = 0; i < ctx->blk[t].nr; i++) {
			struct btrfs_extent_item *ei;
			struct btrfs_extent_inline_ref *iref;
			struct btrfs_key first = { 0 };
			int level = 0;
			u32 size = sizeof(*ei) + sizeof(*iref);

			if (t == T_EXTENT) {
				if (own) {
					level = own[i].level;
					first = own[i].first;
				}
			} else if (i < ctx->tb[t].nr_blocks) {
				tree_builder_block_info(&ctx->tb[t], i, &level, &first);
			}
			if (ctx->skinny) {
				ei = tree_builder_add_key(tb, ctx->blk[t].bytenr[i], BTRFS_METADATA_ITEM_KEY, level, size);
			} else {
				size += sizeof(struct btrfs_tree_block_info);
				ei = tree_builder_add_key(tb, ctx->blk[t].bytenr[i], BTRFS_EXTENT_ITEM_KEY, ns, size);
			}
			if (!ei)
				return -ENOMEM;
			btrfs_set_extent_refs(ei, 1);
			btrfs_set_extent_generation(ei, ctx->gen);
			btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK);
			if (ctx->skinny) {
				iref = (struct btrfs_extent_inline_ref *)(ei + 1);
			} else {
				struct btrfs_tree_block_info *bi = (struct btrfs_tree_block_info *)(ei + 1);

				btrfs_cpu_key_to_disk(&bi->key, &first);
				btrfs_set_tree_block_level(bi, level);
				iref = (struct btrfs_extent_inline_ref *)(bi + 1);
			}
			btrfs_set_extent_inline_ref_type(iref, BTRFS_TREE_BLOCK_REF_KEY);
			btrfs_set_extent_inline_ref_offset(iref, ctx->tree_id[t]);
		}
	}
	if (!ctx->present[T_BGT]) {
		ret = add_block_group_items(ctx, tb);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int plan_extent_tree(struct mkfs_ctx *ctx)
{
	int ret = fill_extent_tree(ctx, NULL);

	if (ret < 0)
		return ret;
	return tree_builder_plan(&ctx->tb[T_EXTENT], ctx->cfg->nodesize);
}

/*
 * The final extent tree: plan with level-0 placeholders for its own blocks,
 * read their levels and first keys from that plan, refill.  Item sizes and
 * the order of keys (by bytenr) do not change, so neither does the plan.
 */
static int final_extent_tree(struct mkfs_ctx *ctx)
{
	struct tree_builder *tb = &ctx->tb[T_EXTENT];
	u32 n = ctx->blk[T_EXTENT].nr;
	struct block_info *own;
	int ret;

	ret = plan_extent_tree(ctx);
	if (ret < 0)
		return ret;
	if ((u32)ret != n)
		return -EAGAIN;
	own = calloc(n, sizeof(*own));
	if (!own)
		return -ENOMEM;
	for (u32 i = 0; i < n; i++)
		tree_builder_block_info(tb, i, &own[i].level, &own[i].first);
	ret = fill_extent_tree(ctx, own);
	if (ret >= 0) {
		ret = tree_builder_plan(tb, ctx->cfg->nodesize);
		if (ret >= 0 && (u32)ret != n)
			ret = -EAGAIN;
	}
	free(own);
	return ret < 0 ? ret : 0;
}

/* ---- the whole filesystem ------------------------------------------------- */

struct emit_ctx {
	struct btrfs_block_writer *w;
};

static int emit_block(struct extent_buffer *eb, void *p)
{
	struct emit_ctx *e = p;

	return btrfs_write_tree_block(e->w, eb);
}

static int fill_static_trees(struct mkfs_ctx *ctx)
{
	int ret;

	ret = fill_chunk_tree(ctx);
	if (!ret)
		ret = fill_dev_tree(ctx);
	if (!ret)
		ret = fill_subvol_tree(ctx, &ctx->tb[T_FS]);
	if (!ret)
		ret = fill_subvol_tree(ctx, &ctx->tb[T_RELOC]);
	if (!ret)
		ret = fill_uuid_tree(ctx);
	if (!ret && ctx->present[T_QUOTA])
		ret = fill_quota_tree(ctx);
	return ret;
}

/* Grow the extent tree and free space tree until they describe themselves. */
static int settle_allocations(struct mkfs_ctx *ctx)
{
	for (int round = 0; round < 64; round++) {
		int need_ext, need_fst = 0, ret;
		bool grew = false;

		need_ext = plan_extent_tree(ctx);
		if (need_ext < 0)
			return need_ext;
		if ((u32)need_ext > ctx->blk[T_EXTENT].nr) {
			ret = alloc_blocks(ctx, T_EXTENT, need_ext - ctx->blk[T_EXTENT].nr);
			if (ret < 0)
				return ret;
			grew = true;
		}
		if (ctx->present[T_FST]) {
			ret = fill_free_space_tree(ctx);
			if (ret < 0)
				return ret;
			need_fst = tree_builder_plan(&ctx->tb[T_FST], ctx->cfg->nodesize);
			if (need_fst < 0)
				return need_fst;
			if ((u32)need_fst > ctx->blk[T_FST].nr) {
				ret = alloc_blocks(ctx, T_FST, need_fst - ctx->blk[T_FST].nr);
				if (ret < 0)
					return ret;
				grew = true;
			}
		}
		if (!grew) {
			if ((u32)need_ext != ctx->blk[T_EXTENT].nr ||
			    (ctx->present[T_FST] && (u32)need_fst != ctx->blk[T_FST].nr)) {
				error("extent tree layout did not settle (%d/%u blocks)", need_ext,
				      ctx->blk[T_EXTENT].nr);
				return -EAGAIN;
			}
			return 0;
		}
	}
	error("extent tree layout did not settle");
	return -EAGAIN;
}

static void fill_backup(struct mkfs_ctx *ctx, struct btrfs_super_block *sb)
{
	struct btrfs_root_backup *b = &sb->super_roots[0];

	memset(sb->super_roots, 0, sizeof(sb->super_roots));
	btrfs_set_backup_tree_root(b, tree_root_bytenr(ctx, T_ROOT));
	btrfs_set_backup_tree_root_gen(b, ctx->gen);
	btrfs_set_backup_tree_root_level(b, tree_builder_root_level(&ctx->tb[T_ROOT]));
	btrfs_set_backup_chunk_root(b, tree_root_bytenr(ctx, T_CHUNK));
	btrfs_set_backup_chunk_root_gen(b, ctx->gen);
	btrfs_set_backup_chunk_root_level(b, tree_builder_root_level(&ctx->tb[T_CHUNK]));
	btrfs_set_backup_extent_root(b, tree_root_bytenr(ctx, T_EXTENT));
	btrfs_set_backup_extent_root_gen(b, ctx->gen);
	btrfs_set_backup_extent_root_level(b, tree_builder_root_level(&ctx->tb[T_EXTENT]));
	btrfs_set_backup_fs_root(b, tree_root_bytenr(ctx, T_FS));
	btrfs_set_backup_fs_root_gen(b, ctx->gen);
	btrfs_set_backup_fs_root_level(b, tree_builder_root_level(&ctx->tb[T_FS]));
	btrfs_set_backup_dev_root(b, tree_root_bytenr(ctx, T_DEV));
	btrfs_set_backup_dev_root_gen(b, ctx->gen);
	btrfs_set_backup_dev_root_level(b, tree_builder_root_level(&ctx->tb[T_DEV]));
	btrfs_set_backup_csum_root(b, tree_root_bytenr(ctx, T_CSUM));
	btrfs_set_backup_csum_root_gen(b, ctx->gen);
	btrfs_set_backup_csum_root_level(b, tree_builder_root_level(&ctx->tb[T_CSUM]));
	btrfs_set_backup_total_bytes(b, btrfs_super_total_bytes(sb));
	btrfs_set_backup_bytes_used(b, btrfs_super_bytes_used(sb));
	btrfs_set_backup_num_devices(b, btrfs_super_num_devices(sb));
}

static int fill_super(struct mkfs_ctx *ctx, struct btrfs_super_block *sb, u64 bytes_used)
{
	const struct mkfs_config *cfg = ctx->cfg;
	u32 array = 0;
	int ret;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->fsid, cfg->fsid, BTRFS_FSID_SIZE);
	btrfs_set_super_flags(sb, BTRFS_SUPER_FLAG_WRITTEN);
	btrfs_set_super_magic(sb, BTRFS_MAGIC);
	btrfs_set_super_generation(sb, ctx->gen);
	btrfs_set_super_root(sb, tree_root_bytenr(ctx, T_ROOT));
	btrfs_set_super_root_level(sb, tree_builder_root_level(&ctx->tb[T_ROOT]));
	btrfs_set_super_chunk_root(sb, tree_root_bytenr(ctx, T_CHUNK));
	btrfs_set_super_chunk_root_level(sb, tree_builder_root_level(&ctx->tb[T_CHUNK]));
	btrfs_set_super_chunk_root_generation(sb, ctx->gen);
	btrfs_set_super_total_bytes(sb, ctx->ca.total_bytes);
	btrfs_set_super_bytes_used(sb, bytes_used);
	btrfs_set_super_root_dir(sb, BTRFS_ROOT_TREE_DIR_OBJECTID);
	btrfs_set_super_num_devices(sb, cfg->ndevs);
	btrfs_set_super_sectorsize(sb, cfg->sectorsize);
	btrfs_set_super_nodesize(sb, cfg->nodesize);
	btrfs_set_super_leafsize(sb, cfg->nodesize);
	btrfs_set_super_stripesize(sb, cfg->sectorsize);
	btrfs_set_super_compat_flags(sb, 0);
	btrfs_set_super_compat_ro_flags(sb, cfg->compat_ro);
	btrfs_set_super_incompat_flags(sb, cfg->incompat);
	btrfs_set_super_csum_type(sb, cfg->csum_type);
	if (btrfs_csum_type_keyed(cfg->csum_type)) {
		if (!cfg->csum)
			return -ENOKEY;
		ret = btrfs_csum_key_check(cfg->csum, cfg->fsid, sb->auth_key_check);
		if (ret < 0)
			return ret;
	}
	btrfs_set_super_cache_generation(sb, ctx->present[T_FST] ? 0 : (u64)-1);
	btrfs_set_super_uuid_tree_generation(sb, ctx->gen);
	if (cfg->label)
		strncpy(sb->label, cfg->label, BTRFS_LABEL_SIZE - 1);
	/* The system chunks, for bootstrapping the chunk tree. */
	for (int i = 0; i < ctx->nr_chunks; i++) {
		const struct chunk_placement *c = ctx->chunks[i];
		struct btrfs_disk_key *k;
		struct btrfs_chunk *ch;
		u32 isize = btrfs_chunk_item_size(c->num_stripes);
		struct btrfs_key key = { BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY, c->logical };
		const struct tree_builder *tb = &ctx->tb[T_CHUNK];
		const void *src = NULL;

		if (!(c->type & BTRFS_BLOCK_GROUP_SYSTEM))
			continue;
		if (array + sizeof(*k) + isize > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
			error("system chunk array full: too many system chunks or stripes");
			return -E2BIG;
		}
		for (size_t j = 0; j < tb->nr; j++)
			if (!btrfs_comp_cpu_keys(&tb->items[j].key, &key))
				src = tb->arena + tb->items[j].data_off;
		if (!src)
			return -ENOENT;
		k = (struct btrfs_disk_key *)(sb->sys_chunk_array + array);
		btrfs_cpu_key_to_disk(k, &key);
		array += sizeof(*k);
		ch = (struct btrfs_chunk *)(sb->sys_chunk_array + array);
		memcpy(ch, src, isize);
		array += isize;
	}
	btrfs_set_super_sys_array_size(sb, array);
	fill_backup(ctx, sb);
	return 0;
}

static int write_supers(struct mkfs_ctx *ctx, struct btrfs_super_block *sb)
{
	const struct mkfs_config *cfg = ctx->cfg;
	int ret;

	for (int i = 0; i < cfg->ndevs; i++) {
		fill_dev_item(ctx, &sb->dev_item, i);
		ret = btrfs_write_super_all(cfg->write_log, cfg->devs[i].fd, sb, cfg->csum,
					    ctx->ca.devs[i].total_bytes);
		if (ret < 0) {
			error_errno(ret, "cannot write the superblocks of %s", cfg->devs[i].path);
			return ret;
		}
		ret = btrfs_dev_flush(cfg->write_log, cfg->devs[i].fd);
		if (ret < 0) {
			error_errno(ret, "fsync of %s", cfg->devs[i].path);
			return ret;
		}
	}
	return 0;
}

/* Zero every superblock copy so nothing half-made can be mounted. */
static int wipe_supers(const struct mkfs_config *cfg)
{
	int ret;

	for (int i = 0; i < cfg->ndevs; i++) {
		for (int m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
			u64 off = btrfs_sb_offset(m);

			if (off + BTRFS_SUPER_INFO_SIZE > cfg->devs[i].size)
				break;
			ret = btrfs_dev_zero(cfg->write_log, cfg->devs[i].fd, off, BTRFS_SUPER_INFO_SIZE,
					     false);
			if (ret < 0) {
				error_errno(ret, "cannot clear superblock %d on %s", m, cfg->devs[i].path);
				return -EIO;
			}
		}
		ret = btrfs_dev_flush(cfg->write_log, cfg->devs[i].fd);
		if (ret < 0) {
			error_errno(ret, "fsync of %s", cfg->devs[i].path);
			return -EIO;
		}
	}
	return 0;
}

/* Every live chunk made known to ctx->w (again: adding a known chunk does nothing). */
static int writer_add_chunks(struct mkfs_ctx *ctx)
{
	int ret = 0;

	for (int i = 0; i < ctx->ca.nr_chunks && ret >= 0; i++)
		if (!ctx->ca.chunks[i]->removed)
			ret = writer_add_chunk(ctx, ctx->ca.chunks[i]);
	return ret;
}

/*
 * The writer (ctx->w, devs its device table), knowing every chunk made so
 * far; the superblocks are wiped before anything else is written.
 */
static int open_writer(struct mkfs_ctx *ctx, struct btrfs_block_writer *w, struct block_writer_device *devs)
{
	const struct mkfs_config *cfg = ctx->cfg;
	struct btrfs_fs_geometry geo = { 0 };
	int ret;

	geo.nodesize = cfg->nodesize;
	geo.sectorsize = cfg->sectorsize;
	geo.csum_type = cfg->csum_type;
	geo.csum_size = btrfs_csum_type_size(cfg->csum_type);
	geo.incompat_flags = cfg->incompat;
	geo.compat_ro_flags = cfg->compat_ro;
	geo.super_generation = ctx->gen;
	memcpy(geo.fsid, cfg->fsid, BTRFS_FSID_SIZE);
	memcpy(geo.chunk_tree_uuid, cfg->chunk_uuid, BTRFS_UUID_SIZE);
	for (int i = 0; i < cfg->ndevs; i++)
		devs[i] = (struct block_writer_device){ i + 1, cfg->devs[i].fd, cfg->devs[i].path };
	ret = btrfs_block_writer_init(w, &geo, cfg->csum, devs, cfg->ndevs);
	if (ret < 0)
		return ret;
	w->fresh_space = true;          /* RAID5/6 rows: nothing to read back */
	w->log = cfg->write_log;
	ctx->w = w;
	ret = writer_add_chunks(ctx);
	if (ret >= 0)
		ret = wipe_supers(cfg);
	return ret;
}

/* Every tree block, flush, then the superblocks. */
static int write_everything(struct mkfs_ctx *ctx, struct btrfs_super_block *sb)
{
	const struct mkfs_config *cfg = ctx->cfg;
	struct btrfs_block_writer *w = ctx->w;
	struct emit_ctx e = { w };
	struct tree_builder_params p = { ctx->gen, cfg->fsid, cfg->chunk_uuid };
	int ret = writer_add_chunks(ctx);

	if (ret < 0)
		return ret;
	w->geo.incompat_flags = cfg->incompat;
	for (int t = 0; t < T_NR; t++) {
		if (!ctx->present[t])
			continue;
		ret = tree_builder_build(&ctx->tb[t], &p, ctx->blk[t].bytenr, emit_block, &e);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_block_writer_flush(w);
	if (ret < 0)
		return ret;
	return write_supers(ctx, sb);
}

int btrfs_make_fs(const struct mkfs_config *cfg, struct mkfs_summary *summary)
{
	struct mkfs_ctx *ctx;
	struct btrfs_super_block *sb = NULL;
	struct btrfs_block_writer w;
	struct block_writer_device devs[CHUNK_ALLOC_MAX_DEVICES];
	u64 bytes_used = 0;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->cfg = cfg;
	ctx->gen = cfg->generation ? cfg->generation : 1;
	ctx->skinny = cfg->incompat & BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA;
	for (int t = 0; t < T_NR; t++) {
		ctx->tree_id[t] = mkfs_tree_ids[t];
		tree_builder_init(&ctx->tb[t], mkfs_tree_ids[t]);
		ctx->present[t] = true;
	}
	ctx->present[T_FST] = cfg->compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE;
	ctx->present[T_BGT] = cfg->compat_ro & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE;
	ctx->present[T_QUOTA] = cfg->quota || cfg->squota;

	ret = plan_chunks(ctx);
	if (ret < 0)
		goto out;
	ret = fill_static_trees(ctx);
	if (ret < 0)
		goto out;
	/* The root tree's and block group tree's sizes do not depend on addresses. */
	ret = fill_root_tree(ctx);
	if (ret >= 0 && ctx->present[T_BGT])
		ret = add_block_group_items(ctx, &ctx->tb[T_BGT]);
	if (ret < 0)
		goto out;
	for (int t = 0; t < T_NR; t++) {
		int n;

		if (!ctx->present[t] || t == T_EXTENT || t == T_FST)
			continue;
		n = tree_builder_plan(&ctx->tb[t], cfg->nodesize);
		if (n < 0) {
			ret = n;
			goto out;
		}
	}
	ret = alloc_blocks(ctx, T_CHUNK, ctx->tb[T_CHUNK].nr_blocks);
	for (size_t i = 0; i < ARRAY_SIZE(alloc_order) && ret >= 0; i++) {
		int t = alloc_order[i];

		if (ctx->present[t])
			ret = alloc_blocks(ctx, t, ctx->tb[t].nr_blocks);
	}
	if (ret < 0)
		goto out;
	ret = settle_allocations(ctx);
	if (ret < 0)
		goto out;

	/* Final contents of the trees that describe allocations. */
	ret = final_extent_tree(ctx);
	if (ret >= 0 && ctx->present[T_FST]) {
		ret = fill_free_space_tree(ctx);
		if (ret >= 0 && tree_builder_plan(&ctx->tb[T_FST], cfg->nodesize) != (int)ctx->blk[T_FST].nr)
			ret = -EAGAIN;
	}
	if (ret >= 0)
		ret = fill_root_tree(ctx);
	if (ret >= 0 && tree_builder_plan(&ctx->tb[T_ROOT], cfg->nodesize) != (int)ctx->blk[T_ROOT].nr)
		ret = -EAGAIN;
	if (ret >= 0 && ctx->present[T_QUOTA]) {
		/* The qgroup counts, now that every tree's blocks are known. */
		tree_builder_reset(&ctx->tb[T_QUOTA]);
		ret = fill_quota_tree(ctx);
		if (ret >= 0 && tree_builder_plan(&ctx->tb[T_QUOTA], cfg->nodesize) != (int)ctx->blk[T_QUOTA].nr)
			ret = -EAGAIN;
	}
	if (ret >= 0 && ctx->present[T_BGT]) {
		tree_builder_reset(&ctx->tb[T_BGT]);
		ret = add_block_group_items(ctx, &ctx->tb[T_BGT]);
		if (ret >= 0 && tree_builder_plan(&ctx->tb[T_BGT], cfg->nodesize) != (int)ctx->blk[T_BGT].nr)
			ret = -EAGAIN;
	}
	if (ret == -EAGAIN)
		error("internal error: tree layout changed between planning and building");
	if (ret < 0)
		goto out;

	for (int i = 0; i < ctx->nr_chunks; i++)
		bytes_used += chunk_used(ctx->chunks[i]);
	sb = calloc(1, BTRFS_SUPER_INFO_SIZE);
	if (!sb) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fill_super(ctx, sb, bytes_used);
	/* --rootdir: not finished before the files are in (rootdir-fs.c writes the real magic) */
	if (cfg->rootdir)
		btrfs_set_super_magic(sb, BTRFS_MAGIC_TEMPORARY);
	if (ret >= 0 && !ctx->w)
		ret = open_writer(ctx, &w, devs);
	if (ret < 0)
		goto out;
	ret = write_everything(ctx, sb);
	if (ret < 0)
		goto out;
	if (summary) {
		memset(summary, 0, sizeof(*summary));
		for (int i = 0; i < ctx->nr_chunks && i < (int)ARRAY_SIZE(summary->chunks); i++) {
			summary->chunks[i].type = ctx->chunks[i]->type;
			summary->chunks[i].size = ctx->chunks[i]->length;
			summary->nr_chunks++;
		}
		summary->total_bytes = ctx->ca.total_bytes;
		summary->bytes_used = bytes_used;
		summary->dev_size[0] = ctx->ca.devs[0].total_bytes;
	}
out:
	if (ctx->w)
		btrfs_block_writer_release(ctx->w);
	free(sb);
	for (int t = 0; t < T_NR; t++) {
		tree_builder_release(&ctx->tb[t]);
		free(ctx->blk[t].bytenr);
	}
	chunk_alloc_release(&ctx->ca);
	free(ctx);
	if (ret >= 0 && cfg->rootdir) {
		/* The empty filesystem is committed: fill it through the write engine. */
		ret = mkfs_fill_rootdir(cfg, summary);
		if (ret < 0)
			wipe_supers(cfg);   /* leave no half-filled filesystem behind */
	}
	return ret;
}

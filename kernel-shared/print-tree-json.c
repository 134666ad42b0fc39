// SPDX-License-Identifier: GPL-2.0
/*
 * dump-tree --format json: the same trees, in the same order, as one JSON
 * document.  Header and item fields are named as the on-disk structure
 * members; flag sets are arrays of names.  Items without a decoder here
 * carry only their key, offset and size.
 */
#include <stdio.h>
#include "kernel-shared/print-tree-json.h"
#include "kernel-shared/print-tree-internal.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/messages.h"
#include "common/json-writer.h"

struct jctx {
	struct json_writer *w;
	const struct btrfs_print_opts *opts;
};

static void j_key(struct json_writer *w, const char *name, const struct btrfs_disk_key *k)
{
	json_begin_object(w, name);
	json_u64(w, "objectid", btrfs_disk_key_objectid(k));
	json_u64(w, "type", btrfs_disk_key_type(k));
	json_u64(w, "offset", btrfs_disk_key_offset(k));
	json_end_object(w);
}

static void j_time(struct json_writer *w, const char *name, const struct btrfs_timespec *t)
{
	json_begin_object(w, name);
	json_u64(w, "sec", btrfs_timespec_sec(t));
	json_u64(w, "nsec", btrfs_timespec_nsec(t));
	json_end_object(w);
}

static void j_inode(struct json_writer *w, const struct btrfs_inode_item *ii)
{
	json_u64(w, "generation", btrfs_inode_generation(ii));
	json_u64(w, "transid", btrfs_inode_transid(ii));
	json_u64(w, "size", btrfs_inode_size(ii));
	json_u64(w, "nbytes", btrfs_inode_nbytes(ii));
	json_u64(w, "block_group", btrfs_inode_block_group(ii));
	json_u64(w, "nlink", btrfs_inode_nlink(ii));
	json_u64(w, "uid", btrfs_inode_uid(ii));
	json_u64(w, "gid", btrfs_inode_gid(ii));
	json_u64(w, "mode", btrfs_inode_mode(ii));
	json_u64(w, "rdev", btrfs_inode_rdev(ii));
	json_u64(w, "flags", btrfs_inode_flags(ii));
	json_u64(w, "sequence", btrfs_inode_sequence(ii));
	j_time(w, "atime", &ii->atime);
	j_time(w, "ctime", &ii->ctime);
	j_time(w, "mtime", &ii->mtime);
	j_time(w, "otime", &ii->otime);
}

static void j_flag_names(struct json_writer *w, const char *name, const char *const *names,
			 int nbits, u64 flags)
{
	int i;

	json_begin_array(w, name);
	for (i = 0; i < nbits; i++)
		if ((flags & (1ULL << i)) && names[i])
			json_string(w, NULL, names[i]);
	json_end_array(w);
}

static const char *const header_flags[] = { "WRITTEN", "RELOC" };
static const char *const extent_flags[] = { "DATA", "TREE_BLOCK", NULL, NULL, NULL, NULL, NULL,
					    NULL, "FULL_BACKREF" };

static void j_item_body(struct json_writer *w, const struct print_item *it)
{
	const void *p = it->data;
	u32 cur;

	switch (it->key.type) {
	case BTRFS_INODE_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_inode_item))
			j_inode(w, p);
		break;
	case BTRFS_INODE_REF_KEY:
		json_begin_array(w, "refs");
		for (cur = 0; cur + sizeof(struct btrfs_inode_ref) <= it->size;) {
			const struct btrfs_inode_ref *r = (const void *)(it->data + cur);
			u32 len = min_t(u32, btrfs_inode_ref_name_len(r), it->size - cur - sizeof(*r));

			json_begin_object(w, NULL);
			json_u64(w, "index", btrfs_inode_ref_index(r));
			json_u64(w, "name_len", btrfs_inode_ref_name_len(r));
			if (!it->opts->hide_names)
				json_string_len(w, "name", (const u8 *)r + sizeof(*r), len);
			json_end_object(w);
			cur += sizeof(*r) + len;
		}
		json_end_array(w);
		break;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		json_begin_array(w, "entries");
		for (cur = 0; cur + sizeof(struct btrfs_dir_item) <= it->size;) {
			const struct btrfs_dir_item *d = (const void *)(it->data + cur);
			u32 avail = it->size - cur - sizeof(*d);
			u32 nl = min_t(u32, btrfs_dir_name_len(d), avail);
			u32 dl = min_t(u32, btrfs_dir_data_len(d), avail - nl);

			json_begin_object(w, NULL);
			j_key(w, "location", &d->location);
			json_u64(w, "transid", btrfs_dir_transid(d));
			json_u64(w, "data_len", btrfs_dir_data_len(d));
			json_u64(w, "name_len", btrfs_dir_name_len(d));
			json_u64(w, "type", btrfs_dir_type(d));
			if (!it->opts->hide_names) {
				json_string_len(w, "name", (const u8 *)d + sizeof(*d), nl);
				if (dl)
					json_string_len(w, "data", (const u8 *)d + sizeof(*d) + nl, dl);
			}
			json_end_object(w);
			cur += sizeof(*d) + nl + dl;
		}
		json_end_array(w);
		break;
	case BTRFS_EXTENT_DATA_KEY: {
		const struct btrfs_file_extent_item *fi = p;

		if (it->size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
			break;
		json_u64(w, "generation", btrfs_file_extent_generation(fi));
		json_u64(w, "ram_bytes", btrfs_file_extent_ram_bytes(fi));
		json_u64(w, "compression", btrfs_file_extent_compression(fi));
		json_u64(w, "type", btrfs_file_extent_type(fi));
		if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_INLINE && it->size >= sizeof(*fi)) {
			json_u64(w, "disk_bytenr", btrfs_file_extent_disk_bytenr(fi));
			json_u64(w, "disk_num_bytes", btrfs_file_extent_disk_num_bytes(fi));
			json_u64(w, "offset", btrfs_file_extent_offset(fi));
			json_u64(w, "num_bytes", btrfs_file_extent_num_bytes(fi));
		}
		break;
	}
	case BTRFS_ROOT_ITEM_KEY: {
		const struct btrfs_root_item *ri = p;

		if (it->size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
			break;
		json_u64(w, "generation", btrfs_root_generation(ri));
		json_u64(w, "root_dirid", btrfs_root_dirid(ri));
		json_u64(w, "bytenr", btrfs_root_bytenr(ri));
		json_u64(w, "bytes_used", btrfs_root_used(ri));
		json_u64(w, "flags", btrfs_root_flags(ri));
		json_u64(w, "refs", btrfs_root_refs(ri));
		json_u64(w, "level", btrfs_root_level(ri));
		break;
	}
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY: {
		const struct btrfs_extent_item *ei = p;

		if (it->size < sizeof(*ei))
			break;
		json_u64(w, "refs", btrfs_extent_refs(ei));
		json_u64(w, "generation", btrfs_extent_generation(ei));
		j_flag_names(w, "flags", extent_flags, ARRAY_SIZE(extent_flags), btrfs_extent_flags(ei));
		break;
	}
	case BTRFS_BLOCK_GROUP_ITEM_KEY: {
		const struct btrfs_block_group_item *bg = p;

		if (it->size < sizeof(*bg))
			break;
		json_u64(w, "used", btrfs_block_group_used(bg));
		json_u64(w, "chunk_objectid", btrfs_block_group_chunk_objectid(bg));
		json_u64(w, "flags", btrfs_block_group_flags(bg));
		break;
	}
	case BTRFS_DEV_EXTENT_KEY: {
		const struct btrfs_dev_extent *de = p;

		if (it->size < sizeof(*de))
			break;
		json_u64(w, "chunk_tree", btrfs_dev_extent_chunk_tree(de));
		json_u64(w, "chunk_objectid", btrfs_dev_extent_chunk_objectid(de));
		json_u64(w, "chunk_offset", btrfs_dev_extent_chunk_offset(de));
		json_u64(w, "length", btrfs_dev_extent_length(de));
		json_uuid(w, "chunk_tree_uuid", de->chunk_tree_uuid);
		break;
	}
	case BTRFS_CHUNK_ITEM_KEY: {
		const struct btrfs_chunk *c = p;
		u32 i, nr;

		if (it->size < sizeof(*c))
			break;
		json_u64(w, "length", btrfs_chunk_length(c));
		json_u64(w, "owner", btrfs_chunk_owner(c));
		json_u64(w, "stripe_len", btrfs_chunk_stripe_len(c));
		json_u64(w, "type", btrfs_chunk_type(c));
		json_u64(w, "num_stripes", btrfs_chunk_num_stripes(c));
		json_u64(w, "sub_stripes", btrfs_chunk_sub_stripes(c));
		nr = min_t(u32, btrfs_chunk_num_stripes(c),
			   (it->size - sizeof(*c)) / sizeof(struct btrfs_stripe));
		json_begin_array(w, "stripe");
		for (i = 0; i < nr; i++) {
			const struct btrfs_stripe *s = btrfs_chunk_stripe(c, (int)i);

			json_begin_object(w, NULL);
			json_u64(w, "devid", btrfs_stripe_devid(s));
			json_u64(w, "offset", btrfs_stripe_offset(s));
			json_uuid(w, "dev_uuid", s->dev_uuid);
			json_end_object(w);
		}
		json_end_array(w);
		break;
	}
	case BTRFS_DEV_ITEM_KEY: {
		const struct btrfs_dev_item *d = p;

		if (it->size < sizeof(*d))
			break;
		json_u64(w, "devid", btrfs_device_id(d));
		json_u64(w, "total_bytes", btrfs_device_total_bytes(d));
		json_u64(w, "bytes_used", btrfs_device_bytes_used(d));
		json_uuid(w, "uuid", d->uuid);
		json_uuid(w, "fsid", d->fsid);
		break;
	}
	case BTRFS_EXTENT_CSUM_KEY:
		if (it->opts->csum_items && it->opts->csum_size) {
			json_begin_array(w, "csum");
			for (cur = 0; cur + it->opts->csum_size <= it->size; cur += it->opts->csum_size)
				json_hex(w, NULL, it->data + cur, it->opts->csum_size);
			json_end_array(w);
		}
		break;
	}
}

static void j_block(const struct extent_buffer *eb, void *priv)
{
	struct jctx *jc = priv;
	struct json_writer *w = jc->w;
	const struct btrfs_header *h = (const struct btrfs_header *)eb->data;
	u32 data_size = min_t(u32, eb->len, jc->opts->nodesize ? jc->opts->nodesize : eb->len) - sizeof(*h);
	u32 i, nr = btrfs_header_nritems(h);

	json_begin_object(w, NULL);
	json_u64(w, "bytenr", btrfs_header_bytenr(h));
	json_u64(w, "level", btrfs_header_level(h));
	json_u64(w, "nritems", nr);
	json_u64(w, "generation", btrfs_header_generation(h));
	json_u64(w, "owner", btrfs_header_owner(h));
	j_flag_names(w, "flags", header_flags, ARRAY_SIZE(header_flags), btrfs_header_flags(h));
	json_u64(w, "backref_rev", btrfs_header_backref_rev(h));
	json_uuid(w, "fsid", h->fsid);
	json_uuid(w, "chunk_tree_uuid", h->chunk_tree_uuid);
	if (jc->opts->csum_headers)
		json_hex(w, "csum", h->csum, jc->opts->csum_size);
	if (btrfs_header_level(h)) {
		nr = min_t(u32, nr, data_size / sizeof(struct btrfs_key_ptr));
		json_begin_array(w, "ptrs");
		for (i = 0; i < nr; i++) {
			const struct btrfs_key_ptr *kp = (const void *)(eb->data + sizeof(*h) +
									 (size_t)i * sizeof(*kp));

			json_begin_object(w, NULL);
			j_key(w, "key", &kp->key);
			json_u64(w, "blockptr", btrfs_key_blockptr(kp));
			json_u64(w, "generation", btrfs_key_generation(kp));
			json_end_object(w);
		}
		json_end_array(w);
	} else {
		nr = min_t(u32, nr, data_size / sizeof(struct btrfs_item));
		json_begin_array(w, "items");
		for (i = 0; i < nr; i++) {
			const struct btrfs_item *item = (const void *)(eb->data + sizeof(*h) +
								       (size_t)i * sizeof(*item));
			u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
			struct print_item it = { .opts = jc->opts, .eb = eb, .slot = (int)i };

			json_begin_object(w, NULL);
			j_key(w, "key", &item->key);
			json_u64(w, "offset", off);
			json_u64(w, "size", size);
			if ((u64)off + size <= data_size) {
				it.key.objectid = btrfs_disk_key_objectid(&item->key);
				it.key.type = btrfs_disk_key_type(&item->key);
				it.key.offset = btrfs_disk_key_offset(&item->key);
				it.data = eb->data + sizeof(*h) + off;
				it.size = size;
				j_item_body(w, &it);
			}
			json_end_object(w);
		}
		json_end_array(w);
	}
	json_end_object(w);
}

struct jscan {
	struct btrfs_fs_info *fs;
	struct jctx *jc;
	u64 only;      /* 0 = every root item */
	int ret;
};

static void j_tree(struct jscan *js, const char *name, u64 id, const struct btrfs_disk_key *key,
		   const struct extent_buffer *eb)
{
	struct json_writer *w = js->jc->w;

	json_begin_object(w, NULL);
	json_string(w, "name", name);
	json_u64(w, "tree_id", id);
	if (key)
		j_key(w, "key", key);
	json_begin_array(w, "blocks");
	if (btrfs_visit_tree(js->fs, eb, js->jc->opts->dfs, j_block, js->jc))
		js->ret = 1;
	json_end_array(w);
	json_end_object(w);
}

static int j_root_items(const struct extent_buffer *leaf, void *priv)
{
	struct jscan *js = priv;
	const struct btrfs_header *h = (const struct btrfs_header *)leaf->data;
	u32 data_size = leaf->len - sizeof(*h);
	u32 i, nr = min_t(u32, btrfs_header_nritems(h), data_size / sizeof(struct btrfs_item));

	for (i = 0; i < nr; i++) {
		const struct btrfs_item *item = (const void *)(leaf->data + sizeof(*h) +
							       (size_t)i * sizeof(*item));
		u64 objectid = btrfs_disk_key_objectid(&item->key);
		u32 off = btrfs_item_offset(item), size = btrfs_item_size(item);
		const struct btrfs_root_item *ri;
		struct tree_check check = { .level = -1 };
		struct extent_buffer *eb;

		if (btrfs_disk_key_type(&item->key) != BTRFS_ROOT_ITEM_KEY ||
		    (u64)off + size > data_size || size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
			continue;
		if (js->only && objectid != js->only)
			continue;
		ri = (const void *)(leaf->data + sizeof(*h) + off);
		check.level = btrfs_root_level(ri);
		check.transid = btrfs_root_generation(ri);
		if (btrfs_print_read_block(js->fs, btrfs_root_bytenr(ri), &check, &eb)) {
			js->ret = 1;
			continue;
		}
		j_tree(js, "root item", objectid, &item->key, eb);
		free_extent_buffer(eb);
	}
	return 0;
}

int dump_tree_json(struct btrfs_fs_info *fs, const struct btrfs_print_opts *opts,
		   const u64 *trees, int ntrees, const u64 *blocks, int nblocks, bool follow)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(fs);
	struct json_writer w;
	struct jctx jc = { .w = &w, .opts = opts };
	struct jscan js = { .fs = fs, .jc = &jc };
	struct extent_buffer *root = NULL, *chunk = NULL;
	struct tree_check rc = { .owner = BTRFS_ROOT_TREE_OBJECTID, .level = btrfs_super_root_level(sb),
				 .transid = btrfs_super_generation(sb) };
	struct tree_check cc = { .owner = BTRFS_CHUNK_TREE_OBJECTID,
				 .level = btrfs_super_chunk_root_level(sb),
				 .transid = btrfs_super_chunk_root_generation(sb) };
	int i;

	json_init(&w, stdout);
	json_begin_object(&w, NULL);
	if (nblocks) {
		json_begin_array(&w, "blocks");
		for (i = 0; i < nblocks; i++) {
			struct tree_check any = { .level = -1 };
			struct extent_buffer *eb;

			if (btrfs_print_read_block(fs, blocks[i], &any, &eb)) {
				js.ret = 1;
				continue;
			}
			if (follow) {
				if (btrfs_visit_tree(fs, eb, opts->dfs, j_block, &jc))
					js.ret = 1;
			} else {
				j_block(eb, &jc);
			}
			free_extent_buffer(eb);
		}
		json_end_array(&w);
		goto out;
	}
	if (btrfs_print_read_block(fs, btrfs_super_root(sb), &rc, &root)) {
		root = NULL;
		js.ret = 1;
	}
	if (btrfs_print_read_block(fs, btrfs_super_chunk_root(sb), &cc, &chunk)) {
		chunk = NULL;
		js.ret = 1;
	}
	json_begin_array(&w, "trees");
	if (!ntrees) {
		if (root)
			j_tree(&js, "root tree", BTRFS_ROOT_TREE_OBJECTID, NULL, root);
		if (chunk)
			j_tree(&js, "chunk tree", BTRFS_CHUNK_TREE_OBJECTID, NULL, chunk);
		if (root)
			btrfs_walk_leaves(fs, root, j_root_items, &js);
	}
	for (i = 0; i < ntrees; i++) {
		if (trees[i] == BTRFS_ROOT_TREE_OBJECTID) {
			if (root)
				j_tree(&js, "root tree", trees[i], NULL, root);
		} else if (trees[i] == BTRFS_CHUNK_TREE_OBJECTID) {
			if (chunk)
				j_tree(&js, "chunk tree", trees[i], NULL, chunk);
		} else if (root) {
			js.only = trees[i];
			btrfs_walk_leaves(fs, root, j_root_items, &js);
		}
	}
	json_end_array(&w);
	json_u64(&w, "total_bytes", btrfs_super_total_bytes(sb));
	json_u64(&w, "bytes_used", btrfs_super_bytes_used(sb));
	json_uuid(&w, "fsid", sb->fsid);
out:
	json_end_object(&w);
	if (json_finish(&w))
		js.ret = 1;
	if (root)
		free_extent_buffer(root);
	if (chunk)
		free_extent_buffer(chunk);
	return js.ret;
}

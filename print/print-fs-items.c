// SPDX-License-Identifier: GPL-2.0
/*
 * Item emitters, filesystem tree items: inodes, inode refs, directory
 * entries and xattrs, file extents, root items and root refs, orphan and
 * log items, and the space cache v1 header of the root tree.  Each writes
 * dump-tree's text or the members of the item's JSON "data" (emit.h).
 */
#include <stdio.h>
#include <string.h>
#include "print/print-tree-internal.h"
#include "kernel-shared/format/accessors.h"

static void emit_inode_item(struct emitter *e, const char *name, const struct btrfs_inode_item *ii)
{
	u64 flags = btrfs_inode_flags(ii);

	emit_begin_object(e, name);
	emit_u64(e, "generation", "\t\tgeneration ", btrfs_inode_generation(ii));
	emit_u64(e, "transid", " transid ", btrfs_inode_transid(ii));
	emit_u64(e, "size", " size ", btrfs_inode_size(ii));
	emit_u64(e, "nbytes", " nbytes ", btrfs_inode_nbytes(ii));
	emit_eol(e);
	emit_u64(e, "block_group", "\t\tblock group ", btrfs_inode_block_group(ii));
	emit_octal(e, "mode", " mode ", btrfs_inode_mode(ii));
	emit_u64(e, "nlink", " links ", btrfs_inode_nlink(ii));
	emit_u64(e, "uid", " uid ", btrfs_inode_uid(ii));
	emit_u64(e, "gid", " gid ", btrfs_inode_gid(ii));
	emit_u64(e, "rdev", " rdev ", btrfs_inode_rdev(ii));
	emit_eol(e);
	emit_u64(e, "sequence", "\t\tsequence ", btrfs_inode_sequence(ii));
	emit_textf(e, " flags 0x%llx(", (unsigned long long)flags);
	emit_flags(e, "flags", "", flags, &btrfs_inode_flags_table);
	emit_textf(e, ")\n");
	emit_time(e, "atime", "\t\tatime ", &ii->atime);
	emit_eol(e);
	emit_time(e, "ctime", "\t\tctime ", &ii->ctime);
	emit_eol(e);
	emit_time(e, "mtime", "\t\tmtime ", &ii->mtime);
	emit_eol(e);
	emit_time(e, "otime", "\t\totime ", &ii->otime);
	emit_eol(e);
	emit_end_object(e);
}

static void emit_inode_refs(struct emitter *e, const struct print_item *it)
{
	u32 cur = 0;

	if (!it->size)
		return;
	emit_begin_array(e, "refs");
	while (cur + sizeof(struct btrfs_inode_ref) <= it->size) {
		const struct btrfs_inode_ref *ref = (const void *)(it->data + cur);
		u32 len = min_t(u32, btrfs_inode_ref_name_len(ref), it->size - cur - sizeof(*ref));

		emit_begin_object(e, NULL);
		emit_u64(e, "index", "\t\tindex ", btrfs_inode_ref_index(ref));
		emit_u64(e, "name_len", " namelen ", btrfs_inode_ref_name_len(ref));
		emit_name(e, "name", " name: ", (const u8 *)ref + sizeof(*ref), len);
		emit_eol(e);
		emit_end_object(e);
		cur += sizeof(*ref) + len;
	}
	emit_end_array(e);
}

static void emit_inode_extrefs(struct emitter *e, const struct print_item *it)
{
	u32 cur = 0;

	if (!it->size)
		return;
	emit_begin_array(e, "refs");
	while (cur + sizeof(struct btrfs_inode_extref) <= it->size) {
		const struct btrfs_inode_extref *ref = (const void *)(it->data + cur);
		u32 len = min_t(u32, btrfs_inode_extref_name_len(ref), it->size - cur - sizeof(*ref));

		emit_begin_object(e, NULL);
		emit_u64(e, "index", "\t\tindex ", btrfs_inode_extref_index(ref));
		emit_u64(e, "parent_objectid", " parent ", btrfs_inode_extref_parent(ref));
		emit_u64(e, "name_len", " namelen ", btrfs_inode_extref_name_len(ref));
		emit_name(e, "name", " name: ", ref->name, len);
		emit_eol(e);
		emit_end_object(e);
		cur += sizeof(*ref) + len;
	}
	emit_end_array(e);
}

static const char *dir_type_name(u8 type, char *buf, size_t len)
{
	static const char *const names[] = {
		[BTRFS_FT_REG_FILE] = "FILE",
		[BTRFS_FT_DIR] = "DIR",
		[BTRFS_FT_CHRDEV] = "CHRDEV",
		[BTRFS_FT_BLKDEV] = "BLKDEV",
		[BTRFS_FT_FIFO] = "FIFO",
		[BTRFS_FT_SOCK] = "SOCK",
		[BTRFS_FT_SYMLINK] = "SYMLINK",
		[BTRFS_FT_XATTR] = "XATTR",
	};

	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	snprintf(buf, len, "DIR_ITEM.%u", type);
	return buf;
}

static void emit_dir_items(struct emitter *e, const struct print_item *it)
{
	u32 cur = 0;

	if (!it->size)
		return;
	emit_begin_array(e, "entries");
	while (cur + sizeof(struct btrfs_dir_item) <= it->size) {
		const struct btrfs_dir_item *di = (const void *)(it->data + cur);
		u32 name_len = btrfs_dir_name_len(di);
		u32 data_len = btrfs_dir_data_len(di);
		u32 avail = it->size - cur - sizeof(*di);
		const u8 *name = (const u8 *)di + sizeof(*di);
		char buf[24];

		emit_begin_object(e, NULL);
		emit_disk_key(e, "location", "\t\tlocation ", &di->location);
		emit_named(e, "type", " type ", btrfs_dir_type(di),
			   dir_type_name(btrfs_dir_type(di), buf, sizeof(buf)));
		emit_u64(e, "transid", "\n\t\ttransid ", btrfs_dir_transid(di));
		emit_u64(e, "data_len", " data_len ", data_len);
		emit_u64(e, "name_len", " name_len ", name_len);
		emit_eol(e);
		name_len = min_t(u32, name_len, avail);
		avail -= name_len;
		data_len = min_t(u32, data_len, avail);
		emit_name(e, "name", "\t\tname: ", name, name_len);
		emit_eol(e);
		if (data_len) {
			/* the text shows at most BTRFS_NAME_LEN bytes of the value, as btrfs-progs */
			emit_name(e, NULL, "\t\tdata ", name + name_len,
				  min_t(u32, data_len, BTRFS_NAME_LEN));
			emit_name(e, "data", NULL, name + name_len, data_len);
			emit_eol(e);
		}
		emit_end_object(e);
		cur += sizeof(*di) + name_len + data_len;
	}
	emit_end_array(e);
}

static const char *file_extent_type_str(u8 type)
{
	switch (type) {
	case BTRFS_FILE_EXTENT_INLINE: return "inline";
	case BTRFS_FILE_EXTENT_REG: return "regular";
	case BTRFS_FILE_EXTENT_PREALLOC: return "prealloc";
	}
	return "unknown";
}

static const char *compress_str(u8 type)
{
	switch (type) {
	case BTRFS_COMPRESS_NONE: return "none";
	case BTRFS_COMPRESS_ZLIB: return "zlib";
	case BTRFS_COMPRESS_LZO: return "lzo";
	case BTRFS_COMPRESS_ZSTD: return "zstd";
	}
	return "unknown";
}

/* ram_bytes, compression (with its name in text) and the encodings (JSON only). */
static void emit_file_extent_coding(struct emitter *e, const struct btrfs_file_extent_item *fi,
				    const char *ram_label, const char *comp_label)
{
	u8 comp = btrfs_file_extent_compression(fi);

	emit_u64(e, "ram_bytes", ram_label, btrfs_file_extent_ram_bytes(fi));
	emit_u64(e, "compression", comp_label, comp);
	if (comp_label)
		emit_textf(e, " (%s)\n", compress_str(comp));
	emit_u64(e, "encryption", NULL, btrfs_file_extent_encryption(fi));
	emit_u64(e, "other_encoding", NULL, btrfs_file_extent_other_encoding(fi));
}

static void emit_file_extent(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_file_extent_item *fi = (const void *)it->data;
	bool prealloc;
	u8 type;

	if (it->size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return;
	type = btrfs_file_extent_type(fi);
	emit_u64(e, "generation", "\t\tgeneration ", btrfs_file_extent_generation(fi));
	emit_u64(e, "type", " type ", type);
	emit_textf(e, " (%s)\n", file_extent_type_str(type));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		emit_u64(e, "inline_size", "\t\tinline extent data size ",
			 btrfs_file_extent_inline_item_len(it->size));
		emit_file_extent_coding(e, fi, " ram_bytes ", " compression ");
		return;
	}
	if (it->size < sizeof(*fi)) {
		emit_file_extent_coding(e, fi, NULL, NULL);
		return;
	}
	prealloc = type == BTRFS_FILE_EXTENT_PREALLOC;
	emit_u64(e, "disk_bytenr", prealloc ? "\t\tprealloc data disk byte " :
		 "\t\textent data disk byte ", btrfs_file_extent_disk_bytenr(fi));
	emit_u64(e, "disk_num_bytes", " nr ", btrfs_file_extent_disk_num_bytes(fi));
	emit_eol(e);
	emit_u64(e, "offset", prealloc ? "\t\tprealloc data offset " : "\t\textent data offset ",
		 btrfs_file_extent_offset(fi));
	emit_u64(e, "num_bytes", " nr ", btrfs_file_extent_num_bytes(fi));
	if (prealloc) {
		emit_eol(e);
		emit_file_extent_coding(e, fi, NULL, NULL);
	} else {
		emit_file_extent_coding(e, fi, " ram ", "\n\t\textent compression ");
	}
}

static void emit_root_item(struct emitter *e, const struct print_item *it)
{
	struct btrfs_root_item ri;
	bool full = it->size >= sizeof(ri);
	u64 flags;

	if (it->size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
		return;
	/* a legacy (shorter) root item reads as zeroes past its end */
	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, it->data, min_t(u32, it->size, sizeof(ri)));
	flags = btrfs_root_flags(&ri);
	if (emit_is_json(e))
		emit_inode_item(e, "inode", &ri.inode);
	emit_u64(e, "generation", "\t\tgeneration ", btrfs_root_generation(&ri));
	emit_u64(e, "root_dirid", " root_dirid ", btrfs_root_dirid(&ri));
	emit_u64(e, "bytenr", " bytenr ", btrfs_root_bytenr(&ri));
	emit_u64(e, "byte_limit", " byte_limit ", btrfs_root_limit(&ri));
	emit_u64(e, "bytes_used", " bytes_used ", btrfs_root_used(&ri));
	emit_eol(e);
	emit_u64(e, "last_snapshot", "\t\tlast_snapshot ", btrfs_root_last_snapshot(&ri));
	emit_textf(e, " flags 0x%llx(", (unsigned long long)flags);
	emit_flags(e, "flags", "", flags, &btrfs_root_flags_table);
	emit_u64(e, "refs", ") refs ", btrfs_root_refs(&ri));
	emit_eol(e);
	emit_disk_key(e, "drop_progress", "\t\tdrop_progress ", &ri.drop_progress);
	emit_u64(e, "drop_level", " drop_level ", btrfs_root_drop_level(&ri));
	emit_eol(e);
	emit_u64(e, "level", "\t\tlevel ", btrfs_root_level(&ri));
	emit_u64(e, full ? "generation_v2" : NULL, " generation_v2 ", btrfs_root_generation_v2(&ri));
	emit_eol(e);
	if (!full)
		return;
	emit_uuid(e, "uuid", "\t\tuuid ", ri.uuid);
	emit_eol(e);
	emit_uuid(e, "parent_uuid", "\t\tparent_uuid ", ri.parent_uuid);
	emit_eol(e);
	emit_uuid(e, "received_uuid", "\t\treceived_uuid ", ri.received_uuid);
	emit_eol(e);
	emit_u64(e, "ctransid", "\t\tctransid ", btrfs_root_ctransid(&ri));
	emit_u64(e, "otransid", " otransid ", btrfs_root_otransid(&ri));
	emit_u64(e, "stransid", " stransid ", btrfs_root_stransid(&ri));
	emit_u64(e, "rtransid", " rtransid ", btrfs_root_rtransid(&ri));
	emit_eol(e);
	emit_time(e, "ctime", "\t\tctime ", &ri.ctime);
	emit_eol(e);
	emit_time(e, "otime", "\t\totime ", &ri.otime);
	emit_eol(e);
	emit_time(e, "stime", "\t\tstime ", &ri.stime);
	emit_eol(e);
	emit_time(e, "rtime", "\t\trtime ", &ri.rtime);
	emit_eol(e);
}

static void emit_root_ref(struct emitter *e, const struct print_item *it, const char *what)
{
	const struct btrfs_root_ref *ref = (const void *)it->data;
	u32 len;

	if (it->size < sizeof(*ref))
		return;
	len = min_t(u32, btrfs_root_ref_name_len(ref), it->size - sizeof(*ref));
	emit_textf(e, "\t\troot %s key", what);
	emit_u64(e, "dirid", " dirid ", btrfs_root_ref_dirid(ref));
	emit_u64(e, "sequence", " sequence ", btrfs_root_ref_sequence(ref));
	emit_u64(e, "name_len", NULL, btrfs_root_ref_name_len(ref));
	/* btrfs-progs 6.19 prints a subvolume's name here even with --hide-names */
	bool hide = e->hide_names;

	e->hide_names = false;
	emit_name(e, "name", " name ", (const u8 *)ref + sizeof(*ref), len);
	e->hide_names = hide;
	emit_eol(e);
}

static void emit_free_space_header(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_free_space_header *fsh = (const void *)it->data;

	if (it->size < sizeof(*fsh))
		return;
	emit_disk_key(e, "location", "\t\tlocation ", &fsh->location);
	emit_u64(e, "generation", "\n\t\tcache generation ", btrfs_free_space_generation(fsh));
	emit_u64(e, "num_entries", " entries ", btrfs_free_space_entries(fsh));
	emit_u64(e, "num_bitmaps", " bitmaps ", btrfs_free_space_bitmaps(fsh));
	emit_eol(e);
}

/* fs-verity items: the JSON decodes them, the text (as btrfs-progs) does not. */
static void emit_verity_item(struct emitter *e, const struct print_item *it)
{
	const struct btrfs_verity_descriptor_item *vd = (const void *)it->data;

	if (it->key.type == BTRFS_VERITY_MERKLE_ITEM_KEY) {
		if (it->size)
			emit_u64(e, "merkle_bytes", NULL, it->size);
	} else if (it->key.offset) {
		if (it->size)
			emit_hex(e, "bytes", NULL, it->data, it->size);
	} else if (it->size >= sizeof(*vd)) {
		emit_u64(e, "size", NULL, btrfs_verity_descriptor_size(vd));
		emit_u64(e, "encryption", NULL, btrfs_verity_descriptor_encryption(vd));
	}
}

bool emit_fs_item(struct emitter *e, const struct print_item *it)
{
	switch (it->key.type) {
	case 0:
		if (it->key.objectid == BTRFS_FREE_SPACE_OBJECTID)
			emit_free_space_header(e, it);
		return true;
	case BTRFS_INODE_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_inode_item))
			emit_inode_item(e, "inode_item", (const void *)it->data);
		return true;
	case BTRFS_INODE_REF_KEY:
		emit_inode_refs(e, it);
		return true;
	case BTRFS_INODE_EXTREF_KEY:
		emit_inode_extrefs(e, it);
		return true;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		emit_dir_items(e, it);
		return true;
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
		if (it->size >= sizeof(struct btrfs_dir_log_item)) {
			emit_u64(e, "end", "\t\tdir log end ",
				 btrfs_dir_log_end((const struct btrfs_dir_log_item *)it->data));
			emit_eol(e);
		}
		return true;
	case BTRFS_ORPHAN_ITEM_KEY:
		emit_textf(e, "\t\torphan item\n");
		return true;
	case BTRFS_EXTENT_DATA_KEY:
		emit_file_extent(e, it);
		return true;
	case BTRFS_ROOT_ITEM_KEY:
		emit_root_item(e, it);
		return true;
	case BTRFS_ROOT_REF_KEY:
		emit_root_ref(e, it, "ref");
		return true;
	case BTRFS_ROOT_BACKREF_KEY:
		emit_root_ref(e, it, "backref");
		return true;
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
		emit_verity_item(e, it);
		return true;
	}
	return false;
}

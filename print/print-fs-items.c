// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block printer, filesystem tree items: inodes, inode refs, directory
 * entries and xattrs, file extents, root items and root refs, orphan and
 * log items, and the space cache v1 header of the root tree.
 */
#include <stdio.h>
#include <string.h>
#include "print/print-tree-internal.h"
#include "lib/format/accessors.h"

static void print_inode_item(const struct btrfs_inode_item *ii)
{
	u64 flags = btrfs_inode_flags(ii);

	printf("\t\tgeneration %llu transid %llu size %llu nbytes %llu\n",
	       (unsigned long long)btrfs_inode_generation(ii),
	       (unsigned long long)btrfs_inode_transid(ii),
	       (unsigned long long)btrfs_inode_size(ii),
	       (unsigned long long)btrfs_inode_nbytes(ii));
	printf("\t\tblock group %llu mode %o links %u uid %u gid %u rdev %llu\n",
	       (unsigned long long)btrfs_inode_block_group(ii), btrfs_inode_mode(ii),
	       btrfs_inode_nlink(ii), btrfs_inode_uid(ii), btrfs_inode_gid(ii),
	       (unsigned long long)btrfs_inode_rdev(ii));
	printf("\t\tsequence %llu flags 0x%llx(", (unsigned long long)btrfs_inode_sequence(ii),
	       (unsigned long long)flags);
	print_flag_names(stdout, flags, &btrfs_inode_flags_table);
	printf(")\n");
	print_timespec(stdout, "atime", &ii->atime);
	print_timespec(stdout, "ctime", &ii->ctime);
	print_timespec(stdout, "mtime", &ii->mtime);
	print_timespec(stdout, "otime", &ii->otime);
}

static void print_inode_refs(const struct print_item *it)
{
	u32 cur = 0;

	while (cur + sizeof(struct btrfs_inode_ref) <= it->size) {
		const struct btrfs_inode_ref *ref = (const void *)(it->data + cur);
		u32 len = btrfs_inode_ref_name_len(ref);
		u32 avail = it->size - cur - sizeof(*ref);

		if (len > avail)
			len = avail;
		printf("\t\tindex %llu namelen %u name: ", (unsigned long long)btrfs_inode_ref_index(ref),
		       btrfs_inode_ref_name_len(ref));
		print_name(it, (const u8 *)ref + sizeof(*ref), len);
		putchar('\n');
		cur += sizeof(*ref) + len;
	}
}

static void print_inode_extrefs(const struct print_item *it)
{
	u32 cur = 0;

	while (cur + sizeof(struct btrfs_inode_extref) <= it->size) {
		const struct btrfs_inode_extref *ref = (const void *)(it->data + cur);
		u32 len = btrfs_inode_extref_name_len(ref);
		u32 avail = it->size - cur - sizeof(*ref);

		if (len > avail)
			len = avail;
		printf("\t\tindex %llu parent %llu namelen %u name: ",
		       (unsigned long long)btrfs_inode_extref_index(ref),
		       (unsigned long long)btrfs_inode_extref_parent(ref),
		       btrfs_inode_extref_name_len(ref));
		print_name(it, ref->name, len);
		putchar('\n');
		cur += sizeof(*ref) + len;
	}
}

static void print_dir_type(u8 type)
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
		fputs(names[type], stdout);
	else
		printf("DIR_ITEM.%u", type);
}

static void print_dir_items(const struct print_item *it)
{
	u32 cur = 0;

	while (cur + sizeof(struct btrfs_dir_item) <= it->size) {
		const struct btrfs_dir_item *di = (const void *)(it->data + cur);
		u32 name_len = btrfs_dir_name_len(di);
		u32 data_len = btrfs_dir_data_len(di);
		u32 avail = it->size - cur - sizeof(*di);
		const u8 *name = (const u8 *)di + sizeof(*di);

		printf("\t\tlocation ");
		btrfs_print_disk_key(stdout, &di->location);
		printf(" type ");
		print_dir_type(btrfs_dir_type(di));
		printf("\n\t\ttransid %llu data_len %u name_len %u\n",
		       (unsigned long long)btrfs_dir_transid(di), data_len, name_len);
		if (name_len > avail)
			name_len = avail;
		avail -= name_len;
		if (data_len > avail)
			data_len = avail;
		printf("\t\tname: ");
		print_name(it, name, name_len);
		putchar('\n');
		if (data_len) {
			/* At most BTRFS_NAME_LEN bytes of the value, as btrfs-progs. */
			printf("\t\tdata ");
			print_name(it, name + name_len, min_t(u32, data_len, BTRFS_NAME_LEN));
			putchar('\n');
		}
		cur += sizeof(*di) + name_len + data_len;
	}
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

static void print_file_extent(const struct print_item *it)
{
	const struct btrfs_file_extent_item *fi = (const void *)it->data;
	u8 type, comp;

	if (it->size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return;
	type = btrfs_file_extent_type(fi);
	comp = btrfs_file_extent_compression(fi);
	printf("\t\tgeneration %llu type %u (%s)\n",
	       (unsigned long long)btrfs_file_extent_generation(fi), type, file_extent_type_str(type));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		printf("\t\tinline extent data size %u ram_bytes %llu compression %u (%s)\n",
		       btrfs_file_extent_inline_item_len(it->size),
		       (unsigned long long)btrfs_file_extent_ram_bytes(fi), comp, compress_str(comp));
		return;
	}
	if (it->size < sizeof(*fi))
		return;
	if (type == BTRFS_FILE_EXTENT_PREALLOC) {
		printf("\t\tprealloc data disk byte %llu nr %llu\n",
		       (unsigned long long)btrfs_file_extent_disk_bytenr(fi),
		       (unsigned long long)btrfs_file_extent_disk_num_bytes(fi));
		printf("\t\tprealloc data offset %llu nr %llu\n",
		       (unsigned long long)btrfs_file_extent_offset(fi),
		       (unsigned long long)btrfs_file_extent_num_bytes(fi));
		return;
	}
	printf("\t\textent data disk byte %llu nr %llu\n",
	       (unsigned long long)btrfs_file_extent_disk_bytenr(fi),
	       (unsigned long long)btrfs_file_extent_disk_num_bytes(fi));
	printf("\t\textent data offset %llu nr %llu ram %llu\n",
	       (unsigned long long)btrfs_file_extent_offset(fi),
	       (unsigned long long)btrfs_file_extent_num_bytes(fi),
	       (unsigned long long)btrfs_file_extent_ram_bytes(fi));
	printf("\t\textent compression %u (%s)\n", comp, compress_str(comp));
}

static void print_root_item(const struct print_item *it)
{
	struct btrfs_root_item ri;
	u64 flags;

	if (it->size < BTRFS_LEGACY_ROOT_ITEM_SIZE)
		return;
	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, it->data, min_t(u32, it->size, sizeof(ri)));
	flags = btrfs_root_flags(&ri);
	printf("\t\tgeneration %llu root_dirid %llu bytenr %llu byte_limit %llu bytes_used %llu\n",
	       (unsigned long long)btrfs_root_generation(&ri),
	       (unsigned long long)btrfs_root_dirid(&ri),
	       (unsigned long long)btrfs_root_bytenr(&ri),
	       (unsigned long long)btrfs_root_limit(&ri),
	       (unsigned long long)btrfs_root_used(&ri));
	printf("\t\tlast_snapshot %llu flags 0x%llx(", (unsigned long long)btrfs_root_last_snapshot(&ri),
	       (unsigned long long)flags);
	print_flag_names(stdout, flags, &btrfs_root_flags_table);
	printf(") refs %u\n", btrfs_root_refs(&ri));
	printf("\t\tdrop_progress ");
	btrfs_print_disk_key(stdout, &ri.drop_progress);
	printf(" drop_level %u\n", btrfs_root_drop_level(&ri));
	printf("\t\tlevel %u generation_v2 %llu\n", btrfs_root_level(&ri),
	       (unsigned long long)btrfs_root_generation_v2(&ri));
	if (it->size < sizeof(ri))
		return;
	print_uuid_line("\t\tuuid", ri.uuid);
	print_uuid_line("\t\tparent_uuid", ri.parent_uuid);
	print_uuid_line("\t\treceived_uuid", ri.received_uuid);
	printf("\t\tctransid %llu otransid %llu stransid %llu rtransid %llu\n",
	       (unsigned long long)btrfs_root_ctransid(&ri),
	       (unsigned long long)btrfs_root_otransid(&ri),
	       (unsigned long long)btrfs_root_stransid(&ri),
	       (unsigned long long)btrfs_root_rtransid(&ri));
	print_timespec(stdout, "ctime", &ri.ctime);
	print_timespec(stdout, "otime", &ri.otime);
	print_timespec(stdout, "stime", &ri.stime);
	print_timespec(stdout, "rtime", &ri.rtime);
}

static void print_root_ref(const struct print_item *it, const char *what)
{
	const struct btrfs_root_ref *ref = (const void *)it->data;
	u32 len;

	if (it->size < sizeof(*ref))
		return;
	len = btrfs_root_ref_name_len(ref);
	if (len > it->size - sizeof(*ref))
		len = it->size - sizeof(*ref);
	printf("\t\troot %s key dirid %llu sequence %llu name ", what,
	       (unsigned long long)btrfs_root_ref_dirid(ref),
	       (unsigned long long)btrfs_root_ref_sequence(ref));
	print_name(it, (const u8 *)ref + sizeof(*ref), len);
	putchar('\n');
}

static void print_free_space_header(const struct print_item *it)
{
	const struct btrfs_free_space_header *fsh = (const void *)it->data;

	if (it->size < sizeof(*fsh))
		return;
	printf("\t\tlocation ");
	btrfs_print_disk_key(stdout, &fsh->location);
	printf("\n\t\tcache generation %llu entries %llu bitmaps %llu\n",
	       (unsigned long long)btrfs_free_space_generation(fsh),
	       (unsigned long long)btrfs_free_space_entries(fsh),
	       (unsigned long long)btrfs_free_space_bitmaps(fsh));
}

bool print_fs_item(const struct print_item *it)
{
	switch (it->key.type) {
	case 0:
		if (it->key.objectid == BTRFS_FREE_SPACE_OBJECTID)
			print_free_space_header(it);
		return true;
	case BTRFS_INODE_ITEM_KEY:
		if (it->size >= sizeof(struct btrfs_inode_item))
			print_inode_item((const void *)it->data);
		return true;
	case BTRFS_INODE_REF_KEY:
		print_inode_refs(it);
		return true;
	case BTRFS_INODE_EXTREF_KEY:
		print_inode_extrefs(it);
		return true;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		print_dir_items(it);
		return true;
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
		if (it->size >= sizeof(struct btrfs_dir_log_item))
			printf("\t\tdir log end %llu\n", (unsigned long long)
			       btrfs_dir_log_end((const struct btrfs_dir_log_item *)it->data));
		return true;
	case BTRFS_ORPHAN_ITEM_KEY:
		printf("\t\torphan item\n");
		return true;
	case BTRFS_EXTENT_DATA_KEY:
		print_file_extent(it);
		return true;
	case BTRFS_ROOT_ITEM_KEY:
		print_root_item(it);
		return true;
	case BTRFS_ROOT_REF_KEY:
		print_root_ref(it, "ref");
		return true;
	case BTRFS_ROOT_BACKREF_KEY:
		print_root_ref(it, "backref");
		return true;
	}
	return false;
}

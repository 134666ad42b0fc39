// SPDX-License-Identifier: GPL-2.0
/* dump-super's output: text and JSON. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include "print/print-super.h"
#include "print/emit.h"
#include "print/print-tree.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/super.h"
#include "kernel-shared/format/csum.h"

void btrfs_print_readable_flags(FILE *out, u64 flags, const struct btrfs_flag_table *t)
{
	u64 unknown = flags & ~btrfs_flag_table_mask(t);
	bool first = true;

	if (!flags)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		if (!(flags & t->names[i].bit))
			continue;
		fprintf(out, "%s%s", first ? "\t\t\t( " : " |\n\t\t\t  ", t->names[i].name);
		first = false;
	}
	if (unknown)
		fprintf(out, "%sunknown flag: 0x%llx", first ? "\t\t\t( " : " |\n\t\t\t  ", unknown);
	fputs(" )\n", out);
}

/* The superblock's copy of the system chunks: key and chunk item of each. */
static void emit_sys_chunk_array(struct emitter *e, const struct btrfs_super_block *sb)
{
	struct btrfs_sys_array_iter it;
	const struct btrfs_disk_key *key;
	const struct btrfs_chunk *chunk;
	u32 len;
	int ret;

	emit_textf(e, "sys_chunk_array[%d]:\n", BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	emit_begin_array(e, "sys_chunk_array");
	ret = btrfs_sys_array_init(&it, sb);
	while (ret == 0 && (ret = btrfs_sys_array_next_key(&it, &key)) > 0) {
		emit_begin_object(e, NULL);
		emit_textf(e, "\titem %d ", it.nr - 1);
		emit_disk_key(e, "key", "", key);
		emit_eol(e);
		ret = btrfs_sys_array_next_chunk(&it, key, &chunk, &len);
		if (ret == 0) {
			emit_begin_object(e, "chunk");
			emit_chunk_item(e, chunk, len);
			emit_end_object(e);
		}
		emit_end_object(e);
	}
	emit_end_array(e);
}

static void print_backup_root(FILE *out, const char *name, const char *tabs, u64 bytenr, u64 gen,
			      u8 level)
{
	fprintf(out, "\t\t%s:%s%llu\tgen: %llu\tlevel: %u\n", name, tabs, bytenr, gen, level);
}

static void print_backup_roots(FILE *out, const struct btrfs_super_block *sb)
{
	bool v2 = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2;

	fprintf(out, "backup_roots[%d]:\n", BTRFS_NUM_BACKUP_ROOTS);
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		/* A slot never used (no tree root, no generation) is not printed. */
		if (!btrfs_backup_tree_root(b) && !btrfs_backup_tree_root_gen(b))
			continue;
		fprintf(out, "\tbackup %d:\n", i);
		print_backup_root(out, "backup_tree_root", "\t", btrfs_backup_tree_root(b),
				  btrfs_backup_tree_root_gen(b), btrfs_backup_tree_root_level(b));
		print_backup_root(out, "backup_chunk_root", "\t", btrfs_backup_chunk_root(b),
				  btrfs_backup_chunk_root_gen(b), btrfs_backup_chunk_root_level(b));
		/* extent-tree-v2 keeps the block group root in the extent root slot. */
		print_backup_root(out, v2 ? "backup_block_group_root" : "backup_extent_root", "\t",
				  btrfs_backup_extent_root(b), btrfs_backup_extent_root_gen(b),
				  btrfs_backup_extent_root_level(b));
		print_backup_root(out, "backup_fs_root", "\t\t", btrfs_backup_fs_root(b),
				  btrfs_backup_fs_root_gen(b), btrfs_backup_fs_root_level(b));
		print_backup_root(out, "backup_dev_root", "\t", btrfs_backup_dev_root(b),
				  btrfs_backup_dev_root_gen(b), btrfs_backup_dev_root_level(b));
		print_backup_root(out, "csum_root", "\t", btrfs_backup_csum_root(b),
				  btrfs_backup_csum_root_gen(b), btrfs_backup_csum_root_level(b));
		fprintf(out, "\t\tbackup_total_bytes:\t%llu\n", btrfs_backup_total_bytes(b));
		fprintf(out, "\t\tbackup_bytes_used:\t%llu\n", btrfs_backup_bytes_used(b));
		fprintf(out, "\t\tbackup_num_devices:\t%llu\n", btrfs_backup_num_devices(b));
		fputc('\n', out);
	}
}

/* Printable bytes as they are, anything else as '.'. */
static void print_printable(FILE *out, const u8 *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fputc(isprint(s[i]) ? s[i] : '.', out);
}

static void print_uuid_line(FILE *out, const char *label, const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	btrfs_uuid_to_str(uuid, buf);
	fprintf(out, "%s%s", label, buf);
}

/* The csum line's verdict for what btrfs_super_csum_check() found; @no_key names a missing key. */
static void print_csum_result(FILE *out, int ret, const char *no_key)
{
	switch (ret) {
	case BTRFS_CSUM_VALID:
		fputs(" [match]\n", out);
		break;
	case BTRFS_CSUM_NO_KEY:
		fprintf(out, " [%s]\n", no_key);
		break;
	case BTRFS_CSUM_UNAUTHENTICATED:
		fprintf(out, " [%s] (xxhash64 part matches, authenticity NOT verified)\n", no_key);
		break;
	case BTRFS_CSUM_ALTERED:
		fputs(" [DON'T MATCH] (keyed part only: altered without the key)\n", out);
		break;
	default:
		fputs(" [DON'T MATCH]\n", out);
		break;
	}
}

/*
 * The end of the csum line of a keyed filesystem, then its key check value.
 * With the right key the whole checksum is verified; without a key (or with
 * a key the key check value rejects) the full types print [NO KEY] (or
 * [WRONG KEY]), the authsum types what their xxhash64 part says.
 */
static void print_keyed_super_csum(FILE *out, const struct btrfs_super_block *sb, const u8 *key,
				   size_t keylen)
{
	u16 type = btrfs_super_csum_type(sb);
	struct btrfs_csum csum;
	u8 check[BTRFS_CSUM_SIZE];
	const char *verdict = " [NO KEY]";
	int ret = -ENOKEY;

	if (key && btrfs_csum_setup(&csum, type, key, keylen) == 0) {
		ret = btrfs_csum_key_check(&csum, sb->fsid, check);
		if (ret == 0 && memcmp(check, sb->auth_key_check, BTRFS_CSUM_SIZE) == 0) {
			verdict = " [match] (right key)";
			ret = btrfs_super_csum_check(sb, &csum);
		} else {
			verdict = " [DON'T MATCH] (wrong key for this filesystem)";
			ret = -EKEYREJECTED;
		}
		btrfs_csum_release(&csum);
	} else if (key) {
		verdict = " [DON'T MATCH] (key refused by the hash)";
		ret = -EKEYREJECTED;
	}
	if (ret < 0) {
		/* no usable key: what can be verified without it */
		ret = btrfs_csum_setup(&csum, type, NULL, 0);
		if (ret == 0)
			ret = btrfs_super_csum_check(sb, &csum);
		btrfs_csum_release(&csum);
	}
	print_csum_result(out, ret, key ? "WRONG KEY" : "NO KEY");
	fputs("auth_key_check\t\t0x", out);
	for (int i = 0; i < BTRFS_CSUM_SIZE; i++)
		fprintf(out, "%02x", sb->auth_key_check[i]);
	fprintf(out, "%s\n", verdict);
}

void btrfs_print_superblock(FILE *out, const struct btrfs_super_block *sb, bool full)
{
	btrfs_print_superblock_key(out, sb, full, NULL, 0);
}

void btrfs_print_superblock_key(FILE *out, const struct btrfs_super_block *sb, bool full,
				const u8 *key, size_t keylen)
{
	const struct btrfs_dev_item *dev = &sb->dev_item;
	u16 csum_type = btrfs_super_csum_type(sb);
	const char *csum_name = btrfs_csum_type_name(csum_type);
	u16 csum_size = csum_name ? btrfs_csum_type_size(csum_type) : BTRFS_CSUM_SIZE;
	u8 magic[8];
	size_t label_len;

	fprintf(out, "csum_type\t\t%u (%s)\n", csum_type, csum_name ? csum_name : "INVALID");
	fprintf(out, "csum_size\t\t%u\n", csum_size);
	fputs("csum\t\t\t0x", out);
	for (int i = 0; i < csum_size; i++)
		fprintf(out, "%02x", sb->csum[i]);
	if (!csum_name)
		fputs(" [UNKNOWN CSUM TYPE OR SIZE]\n", out);
	else if (btrfs_csum_type_keyed(csum_type))
		print_keyed_super_csum(out, sb, key, keylen);
	else
		fputs(btrfs_super_csum_verify(sb) ? " [DON'T MATCH]\n" : " [match]\n", out);

	fprintf(out, "bytenr\t\t\t%llu\n", btrfs_super_bytenr(sb));
	fprintf(out, "flags\t\t\t0x%llx\n", btrfs_super_flags(sb));
	btrfs_print_readable_flags(out, btrfs_super_flags(sb), &btrfs_super_flags_table);

	memcpy(magic, &sb->magic, sizeof(magic));
	fputs("magic\t\t\t", out);
	print_printable(out, magic, sizeof(magic));
	fputs(btrfs_super_magic(sb) == BTRFS_MAGIC ? " [match]\n" : " [DON'T MATCH]\n", out);

	print_uuid_line(out, "fsid\t\t\t", sb->fsid);
	fputc('\n', out);
	print_uuid_line(out, "metadata_uuid\t\t", sb->metadata_uuid);
	fputc('\n', out);
	label_len = strnlen(sb->label, BTRFS_LABEL_SIZE);
	fputs("label\t\t\t", out);
	print_printable(out, (const u8 *)sb->label, label_len);
	fputc('\n', out);

	fprintf(out, "generation\t\t%llu\n", btrfs_super_generation(sb));
	fprintf(out, "root\t\t\t%llu\n", btrfs_super_root(sb));
	fprintf(out, "sys_array_size\t\t%u\n", btrfs_super_sys_array_size(sb));
	fprintf(out, "chunk_root_generation\t%llu\n", btrfs_super_chunk_root_generation(sb));
	fprintf(out, "root_level\t\t%u\n", btrfs_super_root_level(sb));
	fprintf(out, "chunk_root\t\t%llu\n", btrfs_super_chunk_root(sb));
	fprintf(out, "chunk_root_level\t%u\n", btrfs_super_chunk_root_level(sb));
	fprintf(out, "log_root\t\t%llu\n", btrfs_super_log_root(sb));
	fprintf(out, "log_root_transid (deprecated)\t%llu\n", btrfs_super_log_root_transid(sb));
	fprintf(out, "log_root_level\t\t%u\n", btrfs_super_log_root_level(sb));
	fprintf(out, "total_bytes\t\t%llu\n", btrfs_super_total_bytes(sb));
	fprintf(out, "bytes_used\t\t%llu\n", btrfs_super_bytes_used(sb));
	fprintf(out, "sectorsize\t\t%u\n", btrfs_super_sectorsize(sb));
	fprintf(out, "nodesize\t\t%u\n", btrfs_super_nodesize(sb));
	fprintf(out, "leafsize (deprecated)\t%u\n", btrfs_super_leafsize(sb));
	fprintf(out, "stripesize\t\t%u\n", btrfs_super_stripesize(sb));
	fprintf(out, "root_dir\t\t%llu\n", btrfs_super_root_dir(sb));
	fprintf(out, "num_devices\t\t%llu\n", btrfs_super_num_devices(sb));
	fprintf(out, "compat_flags\t\t0x%llx\n", btrfs_super_compat_flags(sb));
	fprintf(out, "compat_ro_flags\t\t0x%llx\n", btrfs_super_compat_ro_flags(sb));
	btrfs_print_readable_flags(out, btrfs_super_compat_ro_flags(sb), &btrfs_compat_ro_flags_table);
	fprintf(out, "incompat_flags\t\t0x%llx\n", btrfs_super_incompat_flags(sb));
	btrfs_print_readable_flags(out, btrfs_super_incompat_flags(sb), &btrfs_incompat_flags_table);
	fprintf(out, "cache_generation\t%llu\n", btrfs_super_cache_generation(sb));
	fprintf(out, "uuid_tree_generation\t%llu\n", btrfs_super_uuid_tree_generation(sb));

	print_uuid_line(out, "dev_item.uuid\t\t", dev->uuid);
	fputc('\n', out);
	print_uuid_line(out, "dev_item.fsid\t\t", dev->fsid);
	fputs(memcmp(dev->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE) ?
	      " [DON'T MATCH]\n" : " [match]\n", out);
	fprintf(out, "dev_item.type\t\t%llu\n", btrfs_device_type(dev));
	fprintf(out, "dev_item.total_bytes\t%llu\n", btrfs_device_total_bytes(dev));
	fprintf(out, "dev_item.bytes_used\t%llu\n", btrfs_device_bytes_used(dev));
	fprintf(out, "dev_item.io_align\t%u\n", btrfs_device_io_align(dev));
	fprintf(out, "dev_item.io_width\t%u\n", btrfs_device_io_width(dev));
	fprintf(out, "dev_item.sector_size\t%u\n", btrfs_device_sector_size(dev));
	fprintf(out, "dev_item.devid\t\t%llu\n", btrfs_device_id(dev));
	fprintf(out, "dev_item.dev_group\t%u\n", btrfs_device_group(dev));
	fprintf(out, "dev_item.seek_speed\t%u\n", btrfs_device_seek_speed(dev));
	fprintf(out, "dev_item.bandwidth\t%u\n", btrfs_device_bandwidth(dev));
	fprintf(out, "dev_item.generation\t%llu\n", btrfs_device_generation(dev));

	if (full) {
		struct emitter e = emit_text_to(out);

		emit_sys_chunk_array(&e, sb);
		print_backup_roots(out, sb);
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_backup_roots(struct json_writer *w, const struct btrfs_super_block *sb)
{
	json_begin_array(w, "super_roots");
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		json_begin_object(w, NULL);
		json_u64(w, "tree_root", btrfs_backup_tree_root(b));
		json_u64(w, "tree_root_gen", btrfs_backup_tree_root_gen(b));
		json_u64(w, "tree_root_level", btrfs_backup_tree_root_level(b));
		json_u64(w, "chunk_root", btrfs_backup_chunk_root(b));
		json_u64(w, "chunk_root_gen", btrfs_backup_chunk_root_gen(b));
		json_u64(w, "chunk_root_level", btrfs_backup_chunk_root_level(b));
		json_u64(w, "extent_root", btrfs_backup_extent_root(b));
		json_u64(w, "extent_root_gen", btrfs_backup_extent_root_gen(b));
		json_u64(w, "extent_root_level", btrfs_backup_extent_root_level(b));
		json_u64(w, "fs_root", btrfs_backup_fs_root(b));
		json_u64(w, "fs_root_gen", btrfs_backup_fs_root_gen(b));
		json_u64(w, "fs_root_level", btrfs_backup_fs_root_level(b));
		json_u64(w, "dev_root", btrfs_backup_dev_root(b));
		json_u64(w, "dev_root_gen", btrfs_backup_dev_root_gen(b));
		json_u64(w, "dev_root_level", btrfs_backup_dev_root_level(b));
		json_u64(w, "csum_root", btrfs_backup_csum_root(b));
		json_u64(w, "csum_root_gen", btrfs_backup_csum_root_gen(b));
		json_u64(w, "csum_root_level", btrfs_backup_csum_root_level(b));
		json_u64(w, "total_bytes", btrfs_backup_total_bytes(b));
		json_u64(w, "bytes_used", btrfs_backup_bytes_used(b));
		json_u64(w, "num_devices", btrfs_backup_num_devices(b));
		json_end_object(w);
	}
	json_end_array(w);
}

void btrfs_print_superblock_json(struct json_writer *w, const char *device, u64 bytenr,
				 const struct btrfs_super_block *sb, bool full)
{
	struct emitter e = emit_json_to(w);
	const struct btrfs_dev_item *dev = &sb->dev_item;
	u16 csum_type = btrfs_super_csum_type(sb);
	const char *csum_name = btrfs_csum_type_name(csum_type);
	u16 csum_size = csum_name ? btrfs_csum_type_size(csum_type) : BTRFS_CSUM_SIZE;

	json_begin_object(w, NULL);
	json_string(w, "device", device);
	json_u64(w, "superblock_bytenr", bytenr);
	json_u64(w, "csum_type", csum_type);
	if (csum_name)
		json_string(w, "csum_type_name", csum_name);
	else
		json_null(w, "csum_type_name");
	json_u64(w, "csum_size", csum_size);
	json_hex(w, "csum", sb->csum, csum_size);
	if (csum_name)
		json_bool(w, "csum_match", btrfs_super_csum_verify(sb) == 0);
	else
		json_null(w, "csum_match");
	json_u64(w, "bytenr", btrfs_super_bytenr(sb));
	json_flags(w, "flags", btrfs_super_flags(sb), &btrfs_super_flags_table);
	json_string_len(w, "magic", &sb->magic, sizeof(sb->magic));
	json_bool(w, "magic_match", btrfs_super_magic(sb) == BTRFS_MAGIC);
	json_uuid(w, "fsid", sb->fsid);
	json_uuid(w, "metadata_uuid", sb->metadata_uuid);
	json_string_len(w, "label", sb->label, strnlen(sb->label, BTRFS_LABEL_SIZE));
	json_u64(w, "generation", btrfs_super_generation(sb));
	json_u64(w, "root", btrfs_super_root(sb));
	json_u64(w, "sys_chunk_array_size", btrfs_super_sys_array_size(sb));
	json_u64(w, "chunk_root_generation", btrfs_super_chunk_root_generation(sb));
	json_u64(w, "root_level", btrfs_super_root_level(sb));
	json_u64(w, "chunk_root", btrfs_super_chunk_root(sb));
	json_u64(w, "chunk_root_level", btrfs_super_chunk_root_level(sb));
	json_u64(w, "log_root", btrfs_super_log_root(sb));
	json_u64(w, "log_root_transid", btrfs_super_log_root_transid(sb));
	json_u64(w, "log_root_level", btrfs_super_log_root_level(sb));
	json_u64(w, "total_bytes", btrfs_super_total_bytes(sb));
	json_u64(w, "bytes_used", btrfs_super_bytes_used(sb));
	json_u64(w, "sectorsize", btrfs_super_sectorsize(sb));
	json_u64(w, "nodesize", btrfs_super_nodesize(sb));
	json_u64(w, "leafsize", btrfs_super_leafsize(sb));
	json_u64(w, "stripesize", btrfs_super_stripesize(sb));
	json_u64(w, "root_dir_objectid", btrfs_super_root_dir(sb));
	json_u64(w, "num_devices", btrfs_super_num_devices(sb));
	json_flags(w, "compat_flags", btrfs_super_compat_flags(sb),
		   &(const struct btrfs_flag_table){ NULL, 0 });
	json_flags(w, "compat_ro_flags", btrfs_super_compat_ro_flags(sb), &btrfs_compat_ro_flags_table);
	json_flags(w, "incompat_flags", btrfs_super_incompat_flags(sb), &btrfs_incompat_flags_table);
	json_u64(w, "cache_generation", btrfs_super_cache_generation(sb));
	json_u64(w, "uuid_tree_generation", btrfs_super_uuid_tree_generation(sb));
	json_u64(w, "nr_global_roots", btrfs_super_nr_global_roots(sb));

	json_begin_object(w, "dev_item");
	emit_dev_item(&e, dev);
	json_bool(w, "fsid_match",
		  !memcmp(dev->fsid, btrfs_super_metadata_fsid(sb), BTRFS_FSID_SIZE));
	json_end_object(w);

	if (full) {
		emit_sys_chunk_array(&e, sb);
		json_backup_roots(w, sb);
	}
	json_end_object(w);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Mending a superblock written whole (its checksum good) whose structural
 * fields fail btrfs_super_validate(): see super.h, btrfs_super_mend().
 */
#include <string.h>
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/super.h"

struct mends {
	struct btrfs_super_mend *out;
	int max, nr;
};

static void note(struct mends *m, const char *field, u64 was, u64 now, const char *why)
{
	if (m->nr < m->max)
		m->out[m->nr] = (struct btrfs_super_mend){ field, was, now, why };
	m->nr++;
}

/* The backup root slot of the superblock's own commit: its generation and chunk root generation. */
static const struct btrfs_root_backup *current_backup(const struct btrfs_super_block *sb)
{
	for (int i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		if (btrfs_backup_tree_root(b) && btrfs_backup_tree_root_gen(b) == btrfs_super_generation(sb) &&
		    btrfs_backup_chunk_root_gen(b) == btrfs_super_chunk_root_generation(sb))
			return b;
	}
	return NULL;
}

int btrfs_super_mend(struct btrfs_super_block *sb, struct btrfs_super_mend *out, int max)
{
	struct mends m = { .out = out, .max = max };
	const struct btrfs_root_backup *b = current_backup(sb);
	u32 chunk_sector, used = btrfs_super_sys_array_used(sb, &chunk_sector), ss;

	if (!btrfs_super_sectorsize_valid(btrfs_super_sectorsize(sb)) &&
	    btrfs_super_sectorsize_valid(btrfs_device_sector_size(&sb->dev_item)) &&
	    btrfs_device_sector_size(&sb->dev_item) == chunk_sector) {
		note(&m, "sectorsize", btrfs_super_sectorsize(sb), chunk_sector,
		     "its device item's and system chunk's sector size");
		btrfs_set_super_sectorsize(sb, chunk_sector);
	}
	/* a log tree root no tree block can be at: the log is dropped (as rescue zero-log does) */
	if (btrfs_super_log_root(sb) && btrfs_super_sectorsize_valid(btrfs_super_sectorsize(sb)) &&
	    !IS_ALIGNED(btrfs_super_log_root(sb), (u64)btrfs_super_sectorsize(sb))) {
		note(&m, "log_root", btrfs_super_log_root(sb), 0, "not a block address: the log dropped");
		btrfs_set_super_log_root(sb, 0);
		btrfs_set_super_log_root_level(sb, 0);
	}
	/*
	 * a flags word with bits no kernel knows is damaged whole: the one bit
	 * every kernel's commit sets (a seed or metadump flag cannot be told)
	 */
	if (btrfs_super_flags(sb) & ~BTRFS_SUPER_FLAG_KNOWN) {
		note(&m, "flags", btrfs_super_flags(sb), BTRFS_SUPER_FLAG_WRITTEN,
		     "unknown bits: the flag every commit sets");
		btrfs_set_super_flags(sb, BTRFS_SUPER_FLAG_WRITTEN);
	}
	ss = btrfs_super_sectorsize(sb);
	if (!btrfs_super_sectorsize_valid(ss))
		return m.nr;
	/* leafsize is written equal to nodesize: each witnesses the other */
	if (!btrfs_super_nodesize_valid(btrfs_super_nodesize(sb), ss) && btrfs_super_nodesize_valid(btrfs_super_leafsize(sb), ss)) {
		note(&m, "nodesize", btrfs_super_nodesize(sb), btrfs_super_leafsize(sb), "its leafsize");
		btrfs_set_super_nodesize(sb, btrfs_super_leafsize(sb));
	} else if (btrfs_super_nodesize_valid(btrfs_super_nodesize(sb), ss) && !btrfs_super_nodesize_valid(btrfs_super_leafsize(sb), ss)) {
		note(&m, "leafsize", btrfs_super_leafsize(sb), btrfs_super_nodesize(sb), "its nodesize");
		btrfs_set_super_leafsize(sb, btrfs_super_nodesize(sb));
	}
	if (btrfs_super_stripesize(sb) != SZ_4K && btrfs_super_stripesize(sb) != ss) {
		note(&m, "stripesize", btrfs_super_stripesize(sb), ss, "the sector size, as the kernel writes it");
		btrfs_set_super_stripesize(sb, ss);
	}
	if (btrfs_super_log_root_level(sb) >= BTRFS_MAX_LEVEL && !btrfs_super_log_root(sb)) {
		note(&m, "log_root_level", btrfs_super_log_root_level(sb), 0, "no log tree");
		btrfs_set_super_log_root_level(sb, 0);
	}
	if ((btrfs_super_sys_array_size(sb) > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE ||
	     btrfs_super_sys_array_size(sb) < sizeof(struct btrfs_disk_key) + btrfs_chunk_item_size(1) ||
	     btrfs_super_sys_array_tail(sb)) && used) {
		note(&m, "sys_chunk_array_size", btrfs_super_sys_array_size(sb), used,
		     "the system chunks the array holds");
		btrfs_set_super_sys_array_size(sb, used);
	} else if (btrfs_super_sys_array_cut(sb)) {
		/* (stale chunks past it, which a removal leaves, stay out) */
		note(&m, "sys_chunk_array_size", btrfs_super_sys_array_size(sb), btrfs_super_sys_array_cut(sb),
		     "the end of the system chunk it cuts into");
		btrfs_set_super_sys_array_size(sb, btrfs_super_sys_array_cut(sb));
	}
	if (!b)
		return m.nr;
	if ((!btrfs_super_root(sb) || !IS_ALIGNED(btrfs_super_root(sb), ss)) &&
	    IS_ALIGNED(btrfs_backup_tree_root(b), ss)) {
		note(&m, "root", btrfs_super_root(sb), btrfs_backup_tree_root(b), "the backup root of its generation");
		btrfs_set_super_root(sb, btrfs_backup_tree_root(b));
	}
	if (btrfs_super_root_level(sb) >= BTRFS_MAX_LEVEL && btrfs_backup_tree_root_level(b) < BTRFS_MAX_LEVEL) {
		note(&m, "root_level", btrfs_super_root_level(sb), btrfs_backup_tree_root_level(b),
		     "the backup root of its generation");
		btrfs_set_super_root_level(sb, btrfs_backup_tree_root_level(b));
	}
	if ((!btrfs_super_chunk_root(sb) || !IS_ALIGNED(btrfs_super_chunk_root(sb), ss)) &&
	    btrfs_backup_chunk_root(b) && IS_ALIGNED(btrfs_backup_chunk_root(b), ss)) {
		note(&m, "chunk_root", btrfs_super_chunk_root(sb), btrfs_backup_chunk_root(b),
		     "the backup root of its generation");
		btrfs_set_super_chunk_root(sb, btrfs_backup_chunk_root(b));
	}
	if (btrfs_super_chunk_root_level(sb) >= BTRFS_MAX_LEVEL &&
	    btrfs_backup_chunk_root_level(b) < BTRFS_MAX_LEVEL) {
		note(&m, "chunk_root_level", btrfs_super_chunk_root_level(sb), btrfs_backup_chunk_root_level(b),
		     "the backup root of its generation");
		btrfs_set_super_chunk_root_level(sb, btrfs_backup_chunk_root_level(b));
	}
	if (!btrfs_super_num_devices(sb) && btrfs_backup_num_devices(b)) {
		note(&m, "num_devices", 0, btrfs_backup_num_devices(b), "the backup root of its generation");
		btrfs_set_super_num_devices(sb, btrfs_backup_num_devices(b));
	}
	if (!btrfs_super_total_bytes(sb) && btrfs_backup_total_bytes(b)) {
		note(&m, "total_bytes", 0, btrfs_backup_total_bytes(b), "the backup root of its generation");
		btrfs_set_super_total_bytes(sb, btrfs_backup_total_bytes(b));
	}
	if (btrfs_super_nodesize_valid(btrfs_super_nodesize(sb), ss) &&
	    btrfs_super_bytes_used(sb) < 6ULL * btrfs_super_nodesize(sb) &&
	    btrfs_backup_bytes_used(b) >= 6ULL * btrfs_super_nodesize(sb)) {
		note(&m, "bytes_used", btrfs_super_bytes_used(sb), btrfs_backup_bytes_used(b),
		     "the backup root of its generation");
		btrfs_set_super_bytes_used(sb, btrfs_backup_bytes_used(b));
	}
	return m.nr;
}

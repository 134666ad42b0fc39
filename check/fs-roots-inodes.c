// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5 (check/fs-roots.c), one inode when its last item has been seen:
 * its inode item present, nlink against its names, generation and transid
 * against the superblock, its flags, a directory's isize against its
 * entries, a file's last hole up to its size, nbytes against its extents,
 * and the reports of its extents' checksums (check/fs-roots-extents.c).
 * What stays open for the match of names (check/fs-roots-links.c) is
 * recorded: the inode as a run or its own record, an unlinked inode.
 */
#include <sys/stat.h>
#include <string.h>
#include "check/fs-roots-internal.h"

/* No inode item: remember what its items say; the fix is queued once its names are matched. */
static void note_missing(struct fs_root_tree *t)
{
	const struct fs_root_cursor *c = &t->cur;
	struct fs_root_missing *m;

	if (!c->names || t->holes_nr)
		return;
	m = CHECK_PUSH(t, missing);
	if (!m)
		return;
	m->ino = c->ino;
	m->names = c->names;
	m->dir_size = c->dir_size;
	m->found_nbytes = c->found_nbytes;
	m->extent_end = c->extent_end;
	m->inline_size = c->inline_size;
	m->inline_extent = c->inline_extent;
}

void fs_root_finish_inode(struct fs_root_tree *t)
{
	struct fs_root_cursor *c = &t->cur;
	u64 ino = c->ino;
	bool linkless = false;
	/* the inode's own items against its mode's type (entries' file types decide, see match_kind) */
	bool odd_entries = !S_ISDIR(c->mode) && c->dir_size, odd_extents = S_ISDIR(c->mode) && c->have_extent;

	if (!ino)
		return;
	fs_root_settle_names(t);
	if (ino < BTRFS_FIRST_FREE_OBJECTID || ino > BTRFS_LAST_FREE_OBJECTID)
		goto out;   /* orphan items, free-ino cache: not inodes */
	if (!c->have_item) {
		INODE_ERR(t, ino, "no inode item, but %u names and other items (errors: no inode item%s)",
			  c->names, c->names ? ", link count wrong" : "");
		note_missing(t);
		goto out;
	}
	/* an inode being deleted or truncated: its sizes and names are in flux */
	if (fs_root_is_orphan(t, ino))
		goto keep;
	if (c->nlink == 0 && c->names == 0) {
		u64 *u = CHECK_PUSH(t, unlinked);   /* needs an orphan item (fs_root_check_names) */

		if (u)
			*u = ino;
	} else if (c->nlink != c->names) {
		INODE_ERR(t, ino, "nlink %u, %u names found (link count wrong)", c->nlink, c->names);
		if (c->names)
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_NLINK, c->names);
		else
			linkless = true;   /* mended only if a name is proven (fs_root_check_names) */
	}
	if (c->generation > t->super_gen || c->transid > t->super_gen) {
		/* no commit after the superblock's: the last one is the latest either can be */
		u64 transid = min_t(u64, c->transid, t->super_gen);

		INODE_ERR(t, ino, "generation %llu transid %llu beyond the superblock's %llu",
			  c->generation, c->transid, t->super_gen);
		if (c->transid > t->super_gen)
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_TRANSID, transid);
		if (c->generation > transid)
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_GENERATION, transid);
	}
	if (c->flags & ~((u64)BTRFS_INODE_FLAG_MASK | ((u64)BTRFS_INODE_RO_FLAG_MASK << 32)))
		INODE_ERR(t, ino, "unknown flags 0x%llx (odd inode flags)", c->flags);
	if (S_ISLNK(c->mode) && (c->flags & (BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND)))
		INODE_ERR(t, ino, "symlink with flags 0x%llx: IMMUTABLE and APPEND do not apply (odd inode flags)",
			  c->flags);
	if (odd_entries)
		INODE_ERR(t, ino, "mode 0%o, yet it has directory entries (odd dir item)", c->mode);
	if (S_ISDIR(c->mode) && !odd_extents) {
		if (c->dir_size != c->size) {
			INODE_ERR(t, ino, "directory isize %llu, its entries' names sum to %llu (dir isize wrong)",
				  c->size, c->dir_size);
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_SIZE, c->dir_size);
		}
	}
	if (odd_extents)
		INODE_ERR(t, ino, "directory has file extent items");
	if ((S_ISREG(c->mode) || S_ISLNK(c->mode)) && !odd_entries) {
		u64 end = (c->size + t->sectorsize - 1) / t->sectorsize * t->sectorsize;

		if (!t->no_holes && c->extent_end < end)
			fs_root_add_hole(t, c->extent_end, end, c->size);
		if (t->holes_nr)
			fs_root_fix_holes(t, ino);
		const struct fs_root_gap *g;

		fs_root_end_gap(c, end);
		g = c->nbytes != c->found_nbytes ?
		    fs_root_len_fix(c, (s64)(c->nbytes - c->found_nbytes), t->sectorsize) : NULL;
		if (g) {
			struct repair_file_extent f = { .root = t->root, .ino = ino, .offset = g->start,
							.field = REPAIR_FILE_EXTENT_NUM_BYTES,
							.value = g->len + (c->nbytes - c->found_nbytes) };

			INODE_ERR(t, ino, "nbytes %llu, its file extents account %llu: the file extent at %llu %s %llu bytes %s where the next extent or the rounded size starts (file extent num_bytes wrong)",
				  c->nbytes, c->found_nbytes, g->start, g->gap > 0 ? "ends" : "reaches",
				  (unsigned long long)(g->gap > 0 ? g->gap : -g->gap),
				  g->gap > 0 ? "before" : "past");
			check_fixable(t->ctx, repair_set_file_extent_field, &f, sizeof(f));
		} else if (c->nbytes != c->found_nbytes) {
			INODE_ERR(t, ino, "nbytes %llu, its file extents account %llu (nbytes wrong)",
				  c->nbytes, c->found_nbytes);
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_NBYTES, c->found_nbytes);
		}
		if (c->csum_missing)
			fs_root_report_csum_missing(t);
		/*
		 * NODATASUM with every regular extent checksummed: the kernel sets
		 * the flag only on an empty file, so the flag is what is damaged
		 * (that error stands for the odd checksums).
		 */
		if ((c->flags & BTRFS_INODE_NODATASUM) && c->nosum_extents &&
		    c->nosum_summed == c->nosum_extents && !c->odd_prealloc) {
			INODE_ERR(t, ino, "NODATASUM (flags 0x%llx), yet every one of its %u regular extents has checksums: the flag is wrong",
				  (unsigned long long)c->flags, c->nosum_extents);
			fs_root_fix_inode_field(t, ino, REPAIR_INODE_FLAGS,
					c->flags & ~(u64)(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW));
		} else if (c->odd_csums) {
			fs_root_report_odd_csums(t);
		}
	} else if (c->have_extent && !S_ISDIR(c->mode) && !odd_entries) {
		INODE_ERR(t, ino, "mode 0%o has file extent items", c->mode);
	}
keep:
	if (!linkless && !odd_entries && !odd_extents) {
		struct fs_root_run *run = t->runs_nr ? &t->runs[t->runs_nr - 1] : NULL;

		if (run && run->ino + run->nr == ino && run->mode == c->mode && run->nr < UINT32_MAX) {
			run->nr++;
		} else if ((run = CHECK_PUSH(t, runs))) {
			run->ino = ino;
			run->nr = 1;
			run->mode = c->mode;
		}
	} else {
		struct fs_root_inode *in = CHECK_PUSH(t, inodes);

		if (in) {
			in->ino = ino;
			in->mode = c->mode;
			in->linkless = linkless;
			in->mode_odd = odd_entries || odd_extents;
			in->items_ftype = odd_entries ? BTRFS_FT_DIR : 0;
		}
	}
out:
	t->holes_nr = 0;
	memset(c, 0, sizeof(*c));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3's tree blocks against what the extent tree says of them: each
 * header's owner, flags and back reference revision (as the walk reads the
 * block), the owner against the block's tree back references, the RELOC
 * and FULL_BACKREF flags, the extent item's generation, and the kind of
 * block group the block lies in.  --repair mends a header by copying the
 * block on write in its tree (fix_reloc_flag()).
 */
#include <stdio.h>
#include <string.h>
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/header-mend.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/engine/transaction.h"

/*
 * --repair: a block whose header is wrong where the engine writes it anew (a
 * stray RELOC flag, flags without WRITTEN or with unknown bits) is copied on write in its tree (for RELOC the tree its
 * header names); the copy gets a new header.  A block of a subvolume is
 * copied in every subvolume that reaches it (a snapshot shares it).  The
 * re-check before the commit confirms the trees reached it by its first
 * key.  what: the message's fault.  Done once for a block queued for
 * several faults.
 */
struct reloc_fix {
	u64 bytenr, tree;
	const char *what;
};

/*
 * Copy the block at bytenr (level, first key) on write in tree, where the
 * tree reaches it by its first key: 1 copied, 0 not reached (or copied
 * before; a block no tree reaches is left to the re-check, which finds it
 * still there), < 0.
 */
static int cow_block_in_tree(struct btrfs_trans *t, u64 tree, u64 bytenr, int level, const struct btrfs_key *first,
			     const char *what)
{
	struct btrfs_wroot *root;
	struct btrfs_path path;
	int ret = btrfs_trans_get_root(t, tree, &root);

	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(t, root, first, &path, 0, 0);
	if (ret < 0 || !path.nodes[level] || path.nodes[level]->start != bytenr) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 0;
	}
	btrfs_release_path(&path);
	ret = btrfs_search_slot(t, root, first, &path, 0, 1);
	if (ret >= 0 && path.nodes[level]) {
		printf("Tree block %llu of tree %llu: %s, copied to %llu\n", bytenr, tree, what,
		       path.nodes[level]->start);
		ret = 1;
	}
	btrfs_release_path(&path);
	return ret;
}

static int fix_reloc_flag(struct check_ctx *ctx, struct btrfs_trans *t, void *arg)
{
	const struct reloc_fix *f = arg;
	const struct ext_state *st = ctx->extents_state;
	struct extent_buffer *eb;
	struct btrfs_key first;
	int level, ret;

	ret = btrfs_read_tree_block(ctx->fs, f->bytenr, NULL, &eb);
	if (ret < 0)
		return ret;
	level = btrfs_eb_level(eb);
	if (!btrfs_eb_nritems(eb))
		ret = -EUCLEAN;
	else
		btrfs_block_key_to_cpu(eb, &first, 0);
	free_extent_buffer(eb);
	if (!ret)
		ret = cow_block_in_tree(t, f->tree, f->bytenr, level, &first, f->what);
	for (size_t i = 0; ret >= 0 && st && btrfs_is_subvolume_tree(f->tree) && i < st->root_nr; i++) {
		u64 id = st->root[i].key.objectid;

		/* (not in a dead subvolume: it is dropped as it is) */
		if (id != f->tree && btrfs_is_subvolume_tree(id) && st->root[i].refs)
			ret = cow_block_in_tree(t, id, f->bytenr, level, &first, f->what);
	}
	if (ret < 0)
		error("cannot copy tree block %llu of tree %llu on write: %s", f->bytenr, f->tree, strerror(-ret));
	return ret < 0 ? ret : 0;
}

/*
 * What the header of a block of tree tree_id may say beyond what the read
 * path verifies (check_header_faults(), check/header-mend.h): its owner, its
 * flags and the back reference revision.  A relocation tree's blocks may be
 * owned by the subvolume it was made from and still carry RELOC.
 */
void check_block_header(struct check_ctx *ctx, u64 tree_id, const struct extent_buffer *eb)
{
	const struct btrfs_header *h = btrfs_header(eb);
	u64 owner = btrfs_header_owner(h), flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK;
	unsigned int faults = check_header_faults(ctx->fs, tree_id, eb);
	char nbuf[32];
	const char *tname = check_tree_name(tree_id, nbuf, sizeof(nbuf));
	/* a copy on write in the tree walked writes a new header (not in log and relocation trees) */
	struct reloc_fix f = { eb->start, tree_id, "header flags rewritten" };
	bool cow = tree_id != BTRFS_TREE_LOG_OBJECTID && tree_id != BTRFS_TREE_RELOC_OBJECTID;

	if (faults & HEADER_OWNER)
		check_error(ctx, "%s: tree block %llu has owner %llu, expected %s%llu",
			    tname, eb->start, owner, btrfs_is_subvolume_tree(tree_id) ? "a subvolume like " : "",
			    tree_id);
	if (faults & HEADER_UNKNOWN_FLAGS) {
		check_error(ctx, "%s: tree block %llu has unknown header flags 0x%llx",
			    tname, eb->start, flags & ~(BTRFS_HEADER_FLAG_WRITTEN | BTRFS_HEADER_FLAG_RELOC));
		if (cow)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	} else if (faults & HEADER_NOT_WRITTEN) {
		check_error(ctx, "%s: tree block %llu lacks the WRITTEN header flag every written block has",
			    tname, eb->start);
		if (cow)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	}
	/* the engine does not copy a block of revision 0 on write */
	if (faults & HEADER_BACKREF_REV)
		check_error(ctx, "%s: tree block %llu has back reference revision %u, expected %u",
			    tname, eb->start, btrfs_header_backref_rev(h), BTRFS_MIXED_BACKREF_REV);
}

static int cmp_owner(const void *a, const void *b)
{
	const struct check_owner *x = a, *y = b;

	return x->bytenr < y->bytenr ? -1 : x->bytenr > y->bytenr;
}

static const struct check_root *find_root(const struct ext_state *st, u64 id);

/*
 * A tree block's header owner against its back references: when they are
 * by root (its extent item is not FULL_BACKREF), one of them names the
 * owner, as the tree that made the block references it.  (btrfs-progs
 * checks the same; a block shared by parent pointers is not checked.)
 */
void check_block_owners(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i, j = 0;

	check_sort(st->owners, st->owners_nr, sizeof(*st->owners), cmp_owner);
	for (i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		const struct check_extent *x;
		size_t tree_refs = 0;
		bool named = false;
		u64 other = 0;

		if (i && o->bytenr == st->owners[i - 1].bytenr)
			continue;
		while (j < st->got_nr && st->got[j].bytenr < o->bytenr)
			j++;
		for (size_t k = j; k < st->got_nr && st->got[k].bytenr == o->bytenr; k++) {
			if (st->got[k].type != BTRFS_TREE_BLOCK_REF_KEY)
				continue;
			tree_refs++;
			named |= st->got[k].root == o->owner;
			other = st->got[k].root;
		}
		x = check_find_extent(st, o->bytenr);
		/* the kernel sets RELOC only on relocation tree blocks, all FULL_BACKREF */
		if (x && o->reloc && !(x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)) {
			struct reloc_fix f = { o->bytenr, o->owner, "RELOC header flag dropped" };

			check_error(ctx, "tree block %llu of tree %llu: header flag RELOC, but its extent item flags 0x%llx lack FULL_BACKREF (only relocation tree blocks carry RELOC)",
				    o->bytenr, o->owner, x->flags);
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
		}
		if (!tree_refs || named || !x || (x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
			continue;
		check_error(ctx, "tree block %llu: header owner %llu, but its %zu tree back reference(s) name root %llu%s",
			    o->bytenr, o->owner, tree_refs, other, tree_refs > 1 ? " and others" : "");
		/*
		 * An owner no tree has, one back reference: the header is what is
		 * wrong, and a copy on write in that tree writes its own; else the
		 * back references rebuilt from the trees that reach the block.
		 */
		if (tree_refs == 1 && !find_root(st, o->owner) && btrfs_is_subvolume_tree(other)) {
			struct reloc_fix f = { o->bytenr, other, "header owner rewritten" };

			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
		} else {
			check_queue_extent_rebuild(ctx, st, o->bytenr);
		}
	}
}

/* The root item of subvolume tree id, NULL when none. */
static const struct check_root *find_root(const struct ext_state *st, u64 id)
{
	for (size_t i = 0; i < st->root_nr; i++)
		if (st->root[i].key.objectid == id)
			return &st->root[i];
	return NULL;
}

/*
 * FULL_BACKREF on a block no snapshot can share: the kernel sets it only
 * when a shared block is copied on write, so only on blocks of subvolume
 * and relocation trees; and a subvolume's root block
 * (a snapshot copies it), or a block newer than the tree's last snapshot,
 * reached by one pointer, was never shared (btrfs-progs: "bad full backref").  Found before
 * the expected refs are resolved: the flag is cleared in memory, so its
 * children's refs are expected by root, and the --repair rebuild of its
 * records (queued by check_queue_full_backref_fixes()) writes the flag cleared.
 */
void check_full_backrefs(struct check_ctx *ctx, struct ext_state *st)
{
	check_sort(st->owners, st->owners_nr, sizeof(*st->owners), cmp_owner);
	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		struct check_extent *x = check_find_extent(st, o->bytenr);
		const struct check_root *r;
		size_t paths = 0;

		if (!x || !(x->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) || o->reloc ||
		    (i && o->bytenr == st->owners[i - 1].bytenr))
			continue;
		if (!btrfs_is_subvolume_tree(o->owner)) {
			if (o->owner == BTRFS_TREE_RELOC_OBJECTID || o->owner == BTRFS_DATA_RELOC_TREE_OBJECTID)
				continue;
			check_error(ctx, "tree block %llu of tree %llu: extent item flags 0x%llx have FULL_BACKREF, which only blocks of subvolume and relocation trees carry",
				    o->bytenr, o->owner, x->flags);
			x->flags &= ~BTRFS_BLOCK_FLAG_FULL_BACKREF;
			x->bad_full_backref = 1;
			continue;
		}
		r = find_root(st, o->owner);
		if (!r || (r->tree.bytenr != o->bytenr && o->gen <= r->last_snapshot))
			continue;
		for (size_t k = 0; k < st->exp_nr && paths < 2; k++)
			paths += st->exp[k].bytenr == o->bytenr;
		if (paths != 1)
			continue;
		check_error(ctx, "tree block %llu of tree %llu: extent item flags 0x%llx have FULL_BACKREF, but the block (generation %llu, %s, the tree's last snapshot %llu) was never shared",
			    o->bytenr, o->owner, x->flags, o->gen,
			    r->tree.bytenr == o->bytenr ? "its root block" : "newer than", r->last_snapshot);
		x->flags &= ~BTRFS_BLOCK_FLAG_FULL_BACKREF;
		x->bad_full_backref = 1;
	}
}

/*
 * A tree block's extent item was written when the block was (both get the
 * allocating transaction), and a block is never rewritten in place: their
 * generations agree.  The block's is the one its pointer vouched for as it
 * was read; the --repair rebuild of the extent's records takes it.
 */
void check_tree_block_generations(struct check_ctx *ctx, struct ext_state *st)
{
	u64 limit = btrfs_super_generation(btrfs_fs_super(ctx->fs));

	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		struct check_extent *x;

		if (i && o->bytenr == st->owners[i - 1].bytenr)
			continue;
		x = check_find_extent(st, o->bytenr);
		/* 0 or beyond the superblock: check_extent_items() says so */
		if (!x || x->start != o->bytenr || !(x->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) ||
		    !x->generation || x->generation > limit || x->generation == o->gen)
			continue;
		check_error(ctx, "tree block %llu of tree %llu: extent item generation %llu, the block's %llu",
			    o->bytenr, o->owner, x->generation, o->gen);
		check_queue_extent_rebuild(ctx, st, x->start);
	}
}

/* The rebuilds of check_full_backrefs()'s blocks, once the expected refs are sorted. */
void check_queue_full_backref_fixes(struct check_ctx *ctx, struct ext_state *st)
{
	for (size_t i = 0; i < st->ext_nr; i++)
		if (st->ext[i].bad_full_backref)
			check_queue_extent_rebuild(ctx, st, st->ext[i].start);
}

/*
 * Every tree block lies in a block group of its kind: the chunk tree's in a
 * system one, every other tree's in a metadata one (the kernel allocates
 * them so; Debian: "type mismatch with chunk").  Judged once both the chunk
 * and the block group item say another kind (when they disagree, the chunk
 * and block group repairs settle which one is wrong).  --repair copies the
 * block on write in its owner's tree, which allocates it where it belongs.
 */
void check_block_kinds(struct check_ctx *ctx, struct ext_state *st)
{
	for (size_t i = 0; i < st->owners_nr; i++) {
		const struct check_owner *o = &st->owners[i];
		const struct btrfs_chunk_map *c = btrfs_chunk_lookup(&ctx->fs->chunks, o->bytenr);
		const struct check_bg *bg = check_find_bg(st, o->bytenr);
		u64 want = o->owner == BTRFS_CHUNK_TREE_OBJECTID ? BTRFS_BLOCK_GROUP_SYSTEM : BTRFS_BLOCK_GROUP_METADATA;
		struct reloc_fix f = { o->bytenr, o->owner, "moved to a block group of its kind" };
		char nbuf[32];

		if (!c || (c->type & want) || !bg || (bg->flags & want))
			continue;
		check_error(ctx, "bad extent [%llu, %llu), type mismatch with chunk: tree block of the %s in block group %llu flags 0x%llx, not a %s one",
			    o->bytenr, o->bytenr + st->nodesize, check_tree_name(o->owner, nbuf, sizeof(nbuf)),
			    bg->start, (unsigned long long)bg->flags,
			    want == BTRFS_BLOCK_GROUP_SYSTEM ? "system" : "metadata");
		if (o->owner != BTRFS_TREE_LOG_OBJECTID && o->owner != BTRFS_TREE_RELOC_OBJECTID && !o->reloc)
			check_fixable(ctx, fix_reloc_flag, &f, sizeof(f));
	}
}

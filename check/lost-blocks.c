// SPDX-License-Identifier: GPL-2.0
/*
 * Tree blocks the trees point to but the extent tree has no item for: was
 * the lost item FULL_BACKREF?  Pass 3 needs to know what kind of back
 * references the block's children must have, and --repair rebuilds the
 * item with that flag.  The evidence, in order:
 *   - shared back references in the extent tree naming the block as their
 *     parent: its children's refs were shared ones;
 *   - else the block is FULL_BACKREF when its owner's tree (header owner)
 *     no longer points to it: the kernel leaves a block shared with a
 *     snapshot that way once its owner has copied it on write, and
 *     btrfs-progs' check wants a block without the flag to be in its
 *     owner's tree.
 * Only blocks without extent item are looked at: on a healthy filesystem
 * this costs nothing.
 */
#include "check/context.h"
#include "check/extents-internal.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"

/* Collect the blocks (expected tree refs, not yet resolved, without extent item), sorted, once each. */
static int collect(struct ext_state *st)
{
	size_t i, o;

	for (i = 0; i < st->exp_nr; i++) {
		const struct check_ref *r = &st->exp[i];
		struct check_lost *l;

		if (r->type != BTRFS_TREE_BLOCK_REF_KEY || check_find_extent(st, r->bytenr))
			continue;
		l = CHECK_PUSH(st, lost);
		if (!l)
			return -ENOMEM;
		l->bytenr = r->bytenr;
		l->level = (u8)r->objectid;    /* unresolved tree refs carry the level there */
	}
	check_sort(st->lost, st->lost_nr, sizeof(*st->lost), check_cmp_lost);
	for (i = o = 0; i < st->lost_nr; i++)
		if (!o || st->lost[o - 1].bytenr != st->lost[i].bytenr)
			st->lost[o++] = st->lost[i];
	st->lost_nr = o;
	return 0;
}

int check_find_lost_blocks(struct check_ctx *ctx, struct ext_state *st)
{
	u64 *parents = NULL;
	size_t i, nparents = 0, aparents = 0;
	int ret = collect(st);

	if (ret < 0 || !st->lost_nr)
		return ret;
	for (i = 0; i < st->lost_nr; i++) {
		struct check_lost *l = &st->lost[i];
		struct tree_check tc = { .owner = 0, .level = l->level, .transid = 0, .first_key = NULL };
		struct extent_buffer *eb;

		if (btrfs_read_tree_block(ctx->fs, l->bytenr, &tc, &eb) == 0) {
			l->owner = btrfs_header_owner(btrfs_header(eb));
			free_extent_buffer(eb);
		}
	}
	/* before resolving, a tree ref's root is the tree of the node (or root item) pointing */
	for (i = 0; i < st->exp_nr; i++) {
		const struct check_ref *r = &st->exp[i];
		struct check_lost *l = r->type == BTRFS_TREE_BLOCK_REF_KEY ? check_find_lost(st, r->bytenr) : NULL;

		if (l && l->owner && r->root == l->owner)
			l->in_owner_tree = true;
	}
	for (i = 0; i < st->got_nr; i++) {
		if (st->got[i].type != BTRFS_SHARED_BLOCK_REF_KEY && st->got[i].type != BTRFS_SHARED_DATA_REF_KEY)
			continue;
		if (ARRAY_GROW(parents, nparents, aparents)) {
			free(parents);
			return -ENOMEM;
		}
		parents[nparents++] = st->got[i].parent;
	}
	check_sort(parents, nparents, sizeof(u64), check_cmp_u64);
	for (i = 0; i < st->lost_nr; i++) {
		struct check_lost *l = &st->lost[i];

		l->full_backref = !l->in_owner_tree ||
				  check_bsearch(&l->bytenr, parents, nparents, sizeof(u64), check_cmp_u64);
	}
	free(parents);
	return 0;
}

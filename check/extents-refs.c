// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3's references against the extent tree: each reference a tree makes
 * turned into the kind of back reference its parent's FULL_BACKREF flag
 * asks for (check/lost-blocks.c for a parent without extent item), both
 * lists sorted and merged, then walked side by side: a reference without
 * back reference or extent item, a back reference no tree makes, counts
 * that differ, a file extent's length against its extent item's; last each
 * extent item's refs against both sums.
 */
#include <stdio.h>
#include "check/context.h"
#include "check/extents-internal.h"
#include "check/extent-records.h"
#include "check/repair-fs-roots.h"
#include "check/repair-queue.h"
#include "kernel-shared/format/accessors.h"

static int cmp_ref(const void *a, const void *b)
{
	const struct check_ref *x = a, *y = b;

#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	C(bytenr);
	C(type);
	C(parent);
	C(root);
	C(objectid);
	C(offset);
#undef C
	return 0;
}

/*
 * Turn a parent-relative expected ref into the kind the extent tree must
 * hold: by the parent's FULL_BACKREF flag, or, for a parent without extent
 * item, by what check/lost-blocks.c infers the lost item's flag was.
 */
int check_resolve_expected_refs(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i;
	int ret = check_find_lost_blocks(ctx, st);

	if (ret < 0)
		return ret;
	for (i = 0; i < st->exp_nr; i++) {
		struct check_ref *r = &st->exp[i];
		struct check_extent *p = r->parent ? check_find_extent(st, r->parent) : NULL;
		bool shared = p && (p->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF);
		bool data = r->type == BTRFS_EXTENT_DATA_REF_KEY;

		if (r->parent && !p)
			check_lost_block_full_backref(st, r->parent, &shared);

		r->is_data = data;
		r->level = data ? 0 : (u8)r->objectid;
		if (shared) {
			r->type = data ? BTRFS_SHARED_DATA_REF_KEY : BTRFS_SHARED_BLOCK_REF_KEY;
			r->root = r->objectid = r->offset = 0;
		} else {
			r->parent = 0;
			if (!data)
				r->objectid = 0;
		}
	}
	return 0;
}

/* Sort and merge equal refs, summing their counts. */
void check_sort_merge_refs(struct check_ref *arr, size_t *nr)
{
	size_t i, o = 0;

	if (!*nr)
		return;
	check_sort(arr, *nr, sizeof(*arr), cmp_ref);
	for (i = 1; i < *nr; i++) {
		if (!cmp_ref(&arr[o], &arr[i])) {
			arr[o].count += arr[i].count;
			arr[o].written |= arr[i].written;
		} else
			arr[++o] = arr[i];
	}
	*nr = o + 1;
}

static void describe_ref(const struct check_ref *r, char *buf, size_t len)
{
	switch (r->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		snprintf(buf, len, "tree block ref root %lld", (long long)r->root);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		snprintf(buf, len, "shared block ref parent %llu", r->parent);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		snprintf(buf, len, "data ref root %lld inode %llu offset %llu", (long long)r->root,
			 r->objectid, r->offset);
		break;
	default:
		snprintf(buf, len, "shared data ref parent %llu", r->parent);
		break;
	}
}

void check_compare_refs(struct check_ctx *ctx, struct ext_state *st)
{
	size_t i = 0, j = 0, e;
	char desc[128];

	/* per extent: sums of found and expected counts */
	for (e = 0; e < st->ext_nr; e++)
		st->ext[e].found_refs = st->ext[e].expected_refs = 0;
	while (i < st->exp_nr || j < st->got_nr) {
		int c;
		const struct check_ref *x = i < st->exp_nr ? &st->exp[i] : NULL;
		const struct check_ref *y = j < st->got_nr ? &st->got[j] : NULL;

		if (x && y)
			c = cmp_ref(x, y);
		else
			c = x ? -1 : 1;
		if (c <= 0) {
			struct check_extent *xe = check_find_extent(st, x->bytenr);

			if (!xe) {
				describe_ref(x, desc, sizeof(desc));
				check_error(ctx, "extent tree: no extent item for %s extent %llu len %llu (%s), expected one",
					    x->is_data ? "data" : "tree block", x->bytenr, x->len, desc);
				check_queue_extent_rebuild(ctx, st, x->bytenr);
			} else {
				xe->expected_refs += x->count;
				xe->referenced = 1;
				xe->data_written |= x->written;
				if (x->is_data && xe->len != x->len) {
					struct repair_file_extent_disk_len f = {
						.root = x->root, .ino = x->objectid, .bytenr = x->bytenr,
						.bad = x->len, .good = xe->len,
					};

					check_error(ctx, "data extent %llu: file extent item (%s) has disk_num_bytes %llu, extent item length %llu",
						    x->bytenr, (describe_ref(x, desc, sizeof(desc)), desc), x->len, xe->len);
					/* shared refs name no inode: only a data ref's items can be found */
					if (x->type == BTRFS_EXTENT_DATA_REF_KEY)
						check_fixable(ctx, repair_set_file_extent_disk_len, &f, sizeof(f));
				}
				if (!x->is_data && (xe->flags & BTRFS_EXTENT_FLAG_DATA))
					check_error(ctx, "extent %llu: referenced as a tree block (level %u) but the extent item has flags 0x%llx (data)",
						    x->bytenr, x->level, xe->flags);
				if (!x->is_data && (xe->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && xe->level != x->level) {
					check_error(ctx, "extent %llu: tree block level %u, extent item says level %u",
						    x->bytenr, x->level, xe->level);
					check_queue_extent_rebuild(ctx, st, x->bytenr);
				}
			}
		}
		if (c >= 0) {
			struct check_extent *ye = check_find_extent(st, y->bytenr);

			if (ye)
				ye->found_refs += y->count;
			else {
				describe_ref(y, desc, sizeof(desc));
				check_error(ctx, "extent tree: back reference for %llu (%s) has no extent item",
					    y->bytenr, desc);
				check_queue_extent_rebuild(ctx, st, y->bytenr);
			}
		}
		if (c == 0 && x->count != y->count) {
			describe_ref(x, desc, sizeof(desc));
			check_error(ctx, "extent %llu: %s: count %u in the extent tree, %u references found",
				    x->bytenr, desc, y->count, x->count);
			check_queue_extent_rebuild(ctx, st, x->bytenr);
		} else if (c < 0 && check_find_extent(st, x->bytenr)) {
			describe_ref(x, desc, sizeof(desc));
			check_error(ctx, "extent %llu: %s (count %u) has no back reference in the extent tree",
				    x->bytenr, desc, x->count);
			check_queue_extent_rebuild(ctx, st, x->bytenr);
		} else if (c > 0 && check_find_extent(st, y->bytenr)) {
			describe_ref(y, desc, sizeof(desc));
			check_error(ctx, "extent %llu: back reference %s (count %u) in the extent tree, no such reference found",
				    y->bytenr, desc, y->count);
			check_queue_extent_rebuild(ctx, st, y->bytenr);
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	for (e = 0; e < st->ext_nr; e++) {
		struct check_extent *x = &st->ext[e];

		if (x->refs != x->found_refs) {
			check_error(ctx, "extent item [%llu %llu]: refs %llu, the back references in the extent tree sum to %llu",
				    x->start, x->len, x->refs, x->found_refs);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
		if (x->refs != x->expected_refs) {
			check_error(ctx, "ref mismatch on [%llu %llu] extent item %llu, found %llu",
				    x->start, x->len, x->refs, x->expected_refs);
			check_queue_extent_rebuild(ctx, st, x->start);
		}
	}
}

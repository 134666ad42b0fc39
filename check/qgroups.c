// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 8, quota groups: recompute what every qgroup accounts and compare it
 * with its QGROUP_INFO item.  Each subvolume tree is walked whole (blocks
 * shared with snapshots included) and every tree block (nodesize) and data
 * extent (disk_num_bytes) it reaches is noted with the subvolume.  Then, per
 * extent, with R the set of subvolumes reaching it and for every qgroup G
 * (level 0: the subvolume itself; higher levels through QGROUP_RELATION):
 *   referenced(G) += len   when some member of R is in G
 *   exclusive(G)  += len   when every member of R is in G
 * The compressed figures equal these (btrfs accounts on-disk bytes).
 *
 * With --repair a QGROUP_INFO item whose numbers differ is rewritten with
 * ours (check/repair-qgroups.c), and one that a limit or relation names but
 * is missing is added with them.
 *
 * Not checked: simple quotas (accounted by owner refs), a status that says
 * the numbers are inconsistent or a rescan is running, and filesystems with
 * a subvolume being deleted (its extents are half accounted).
 */
#include <stdio.h>
#include <stdlib.h>
#include "check/context.h"
#include "check/check-extra.h"
#include "check/extent-records.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/format/messages.h"
#include "check/repair-qgroups.h"
#include "check/passes.h"
#include "kernel-shared/format/growable-array.h"

struct qgroup {
	u64 id;
	bool have_info;
	u64 rfer, excl;             /* on disk */
	u64 our_rfer, our_excl;     /* recomputed */
	u64 *members;               /* level-0 ids (subvolumes) in this group */
	size_t members_nr, members_alloc;
};

struct qgroup_state {
	struct check_ctx *ctx;
	u64 status_flags;
	bool have_status;
	struct qgroup *g;
	size_t g_nr, g_alloc;
	u64 (*rel)[2];              /* (child, parent) */
	size_t rel_nr, rel_alloc;
	struct qgroup_ref {         /* a LIMIT or RELATION item: its qgroups need INFO items */
		struct btrfs_key key;
		u64 leaf;
	} *refs;
	size_t refs_nr, refs_alloc;
	struct check_uses u;        /* who uses each extent (check_collect_uses) */
};

static struct qgroup *find_group(struct qgroup_state *q, u64 id)
{
	for (size_t i = 0; i < q->g_nr; i++)
		if (q->g[i].id == id)
			return &q->g[i];
	return NULL;
}

static int quota_item(struct check_ctx *ctx __unused, const struct extent_buffer *eb, int slot,
		      const struct btrfs_key *key, void *arg)
{
	struct qgroup_state *q = arg;
	void *p = btrfs_leaf_item_ptr(eb, slot);
	u32 size = btrfs_leaf_item_size(eb, slot);

	switch (key->type) {
	case BTRFS_QGROUP_STATUS_KEY:
		if (size >= 32) {
			q->have_status = true;
			q->status_flags = btrfs_qgroup_status_flags(p);
		}
		break;
	case BTRFS_QGROUP_INFO_KEY: {
		struct qgroup *g;

		if (size < 40)
			break;
		g = CHECK_PUSH(q, g);
		if (!g)
			return -ENOMEM;
		g->id = key->offset;
		g->have_info = true;
		g->rfer = btrfs_qgroup_info_rfer(p);
		g->excl = btrfs_qgroup_info_excl(p);
		break;
	}
	case BTRFS_QGROUP_LIMIT_KEY:
	case BTRFS_QGROUP_RELATION_KEY: {
		struct qgroup_ref *r = CHECK_PUSH(q, refs);

		if (!r)
			return -ENOMEM;
		r->key = *key;
		r->leaf = eb->start;
		if (key->type == BTRFS_QGROUP_LIMIT_KEY)
			break;
		if (key->objectid < key->offset) {
			if (ARRAY_GROW(q->rel, q->rel_nr, q->rel_alloc))
				return -ENOMEM;
			q->rel[q->rel_nr][0] = key->objectid;
			q->rel[q->rel_nr][1] = key->offset;
			q->rel_nr++;
		}
		break;
	}
	}
	return 0;
}

/*
 * A limit or a relation names qgroups that have info items: the kernel calls
 * a limit without one an inconsistent qgroup config, btrfs-progs fails to
 * load a relation to a missing qgroup.
 */
static int check_qgroup_refs(struct qgroup_state *q)
{
	for (size_t i = 0; i < q->refs_nr; i++) {
		const struct qgroup_ref *r = &q->refs[i];
		u64 ids[2] = { r->key.offset, r->key.objectid };
		int n = r->key.type == BTRFS_QGROUP_RELATION_KEY ? 2 : 1;

		for (int k = 0; k < n; k++) {
			struct qgroup *g = find_group(q, ids[k]);

			if (g && g->have_info)
				continue;
			/* once accounted, report() queues its item with the numbers */
			if (g) {
				check_fixable(q->ctx, NULL, NULL, 0);
			} else {
				g = CHECK_PUSH(q, g);
				if (!g)
					return -ENOMEM;
				g->id = ids[k];
			}
			if (n == 1)
				check_error(q->ctx, "quota tree: the QGROUP_LIMIT item of qgroup %llu/%llu in leaf %llu has no QGROUP_INFO item beside it",
					    btrfs_qgroup_level(ids[0]), btrfs_qgroup_subvolid(ids[0]), r->leaf);
			else
				check_error(q->ctx, "quota tree: QGROUP_RELATION item %llu/%llu -> %llu/%llu in leaf %llu names qgroup %llu/%llu, which has no QGROUP_INFO item",
					    btrfs_qgroup_level(ids[1]), btrfs_qgroup_subvolid(ids[1]),
					    btrfs_qgroup_level(ids[0]), btrfs_qgroup_subvolid(ids[0]), r->leaf,
					    btrfs_qgroup_level(ids[k]), btrfs_qgroup_subvolid(ids[k]));
		}
	}
	return 0;
}

/* Level-0 members of every group, following relations up to 8 levels. */
static int resolve_members(struct qgroup_state *q)
{
	for (size_t i = 0; i < q->g_nr; i++) {
		struct qgroup *g = &q->g[i];

		if (!(g->id >> BTRFS_QGROUP_LEVEL_SHIFT)) {
			g->members = malloc(sizeof(u64));
			if (!g->members)
				return -ENOMEM;
			g->members[0] = g->id;
			g->members_nr = 1;
		}
	}
	for (int pass = 0; pass < 8; pass++) {
		for (size_t r = 0; r < q->rel_nr; r++) {
			struct qgroup *c = find_group(q, q->rel[r][0]), *p = find_group(q, q->rel[r][1]);

			if (!c || !p || c == p)
				continue;
			for (size_t m = 0; m < c->members_nr; m++) {
				size_t k;

				for (k = 0; k < p->members_nr; k++)
					if (p->members[k] == c->members[m])
						break;
				if (k < p->members_nr)
					continue;
				if (ARRAY_GROW(p->members, p->members_nr, p->members_alloc))
					return -ENOMEM;
				p->members[p->members_nr++] = c->members[m];
			}
		}
	}
	return 0;
}

static bool is_member(const struct qgroup *g, u64 root)
{
	for (size_t i = 0; i < g->members_nr; i++)
		if (g->members[i] == root)
			return true;
	return false;
}

static void account(struct qgroup_state *q)
{
	size_t i = 0;

	const struct check_use *use = q->u.use;

	check_sort_uses(&q->u);
	while (i < q->u.use_nr) {
		size_t j = i;

		while (j < q->u.use_nr && use[j].bytenr == use[i].bytenr)
			j++;
		for (size_t k = 0; k < q->g_nr; k++) {
			struct qgroup *g = &q->g[k];
			bool any = false, all = true;

			for (size_t u = i; u < j; u++) {
				bool m = is_member(g, use[u].root);

				any |= m;
				all &= m;
			}
			if (any)
				g->our_rfer += use[i].len;
			if (any && all)
				g->our_excl += use[i].len;
		}
		i = j;
	}
}

static void report(struct qgroup_state *q)
{
	const struct check_options *o = q->ctx->opts;

	if (o && o->qgroup_report) {
		printf("Qgroupid    Referenced    Exclusive\n");
		for (size_t i = 0; i < q->g_nr; i++)
			printf("%llu/%-10llu %13llu %12llu\n", q->g[i].id >> BTRFS_QGROUP_LEVEL_SHIFT,
			       q->g[i].id & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1),
			       q->g[i].our_rfer, q->g[i].our_excl);
	}
	for (size_t i = 0; i < q->g_nr; i++) {
		struct qgroup *g = &q->g[i];
		struct repair_qgroup_info fix = { g->id, g->our_rfer, g->our_excl };

		/* named by a limit or relation, said by check_qgroup_refs() */
		if (!g->have_info) {
			check_fixable(q->ctx, repair_qgroup_add_info, &fix, sizeof(fix));
			continue;
		}
		if (g->our_rfer == g->rfer && g->our_excl == g->excl)
			continue;
		q->ctx->errors++;
		check_fixable(q->ctx, repair_qgroup_set_info, &fix, sizeof(fix));
		fflush(stdout);
		fprintf(stderr, "Counts for qgroup id: %llu/%llu are different\n",
			g->id >> BTRFS_QGROUP_LEVEL_SHIFT, g->id & ((1ULL << BTRFS_QGROUP_LEVEL_SHIFT) - 1));
		if (g->our_rfer != g->rfer)
			fprintf(stderr, "our:\t\treferenced %llu referenced compressed %llu\n"
				"disk:\t\treferenced %llu referenced compressed %llu\n"
				"diff:\t\treferenced %lld referenced compressed %lld\n",
				g->our_rfer, g->our_rfer, g->rfer, g->rfer,
				(long long)(g->our_rfer - g->rfer), (long long)(g->our_rfer - g->rfer));
		if (g->our_excl != g->excl)
			fprintf(stderr, "our:\t\texclusive %llu exclusive compressed %llu\n"
				"disk:\t\texclusive %llu exclusive compressed %llu\n"
				"diff:\t\texclusive %lld exclusive compressed %lld\n",
				g->our_excl, g->our_excl, g->excl, g->excl,
				(long long)(g->our_excl - g->excl), (long long)(g->our_excl - g->excl));
	}
}

int check_qgroups(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = btrfs_fs_super(ctx->fs);
	struct ext_state *st = ctx->extents_state;
	struct qgroup_state q = { .ctx = ctx };
	struct btrfs_tree_ref quota;
	size_t i;
	int ret = 0;

	if (!st || btrfs_find_tree_root(ctx->fs, BTRFS_QUOTA_TREE_OBJECTID, &quota))
		return 0;
	if (btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA)
		return 0;
	ret = check_for_each_item(ctx, &quota, NULL, quota_item, &q);
	if (ret < 0)
		goto out;
	ret = check_qgroup_refs(&q);
	if (ret < 0)
		goto out;
	if (!q.have_status || (q.status_flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
						  BTRFS_QGROUP_STATUS_FLAG_RESCAN)) ||
	    !(q.status_flags & BTRFS_QGROUP_STATUS_FLAG_ON))
		goto out;
	for (i = 0; i < st->root_nr; i++)
		if (st->root[i].drop_key.objectid || st->root[i].drop_level)
			goto out;
	for (i = 0; i < st->root_nr; i++) {
		const struct check_root *r = &st->root[i];
		u64 id = r->key.objectid;

		if (id != BTRFS_FS_TREE_OBJECTID &&
		    (id < BTRFS_FIRST_FREE_OBJECTID || id > BTRFS_LAST_FREE_OBJECTID))
			continue;
		ret = check_collect_uses(ctx->fs, &r->tree, id, &q.u);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
	}
	ret = resolve_members(&q);
	if (ret)
		goto out;
	account(&q);
	report(&q);
out:
	for (i = 0; i < q.g_nr; i++)
		free(q.g[i].members);
	free(q.g);
	free(q.rel);
	free(q.refs);
	free(q.u.use);
	return ret == -ENOMEM ? ret : 0;
}

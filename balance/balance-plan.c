// SPDX-License-Identifier: GPL-2.0
/* Balance planning: replay a relocation on a chunk/device description (see balance-plan.h). */
#include <stdlib.h>
#include <string.h>
#include "balance/balance-plan.h"
#include "kernel-shared/format/growable-array.h"

#define PLAN_MIN_STRIPE SZ_64K          /* BTRFS_STRIPE_LEN: smallest device extent per stripe */

enum btrfs_plan_kind btrfs_plan_kind_of(u64 type)
{
	if (type & BTRFS_BLOCK_GROUP_DATA)
		return PLAN_DATA;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return PLAN_SYSTEM;
	return PLAN_METADATA;
}

const char *btrfs_plan_kind_name(enum btrfs_plan_kind kind)
{
	static const char *const names[PLAN_KINDS] = { "data", "metadata", "system" };

	return kind < PLAN_KINDS ? names[kind] : "?";
}

struct cand {
	size_t idx;
	u64 avail;                      /* usable for this chunk: free capped at the wanted size */
	u64 free;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->avail != y->avail)
		return x->avail < y->avail ? 1 : -1;
	if (x->free != y->free)
		return x->free < y->free ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The kernel's per-type chunk size (calc_chunk_size()). */
static u64 type_chunk_size(u64 type, u64 total_rw_bytes)
{
	if (type & BTRFS_BLOCK_GROUP_DATA)
		return 10 * SZ_1G;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return SZ_32M;
	return total_rw_bytes > 50 * SZ_1G ? SZ_1G : SZ_256M;
}

u64 btrfs_plan_alloc_chunk(u64 type, const u64 *free_bytes, size_t nr_devs, u64 total_rw_bytes,
			   u64 *take, u64 *stripe_size)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(type);
	u64 chunk_size = type_chunk_size(type, total_rw_bytes);
	u64 max_stripe = min_t(u64, chunk_size, SZ_1G);
	u64 max_chunk = min_t(u64, total_rw_bytes / 100 * 10 + total_rw_bytes % 100 * 10 / 100, chunk_size);
	u64 want = max_stripe * p->dev_stripes, least = PLAN_MIN_STRIPE * p->dev_stripes;
	u64 stripe;
	u32 num_stripes, data_stripes;
	size_t ndevs = 0, devs_max;
	struct cand *c;

	*stripe_size = 0;
	for (size_t i = 0; i < nr_devs; i++)
		take[i] = 0;
	if (!nr_devs)
		return 0;
	c = calloc(nr_devs, sizeof(*c));
	if (!c)
		return 0;
	for (size_t i = 0; i < nr_devs; i++) {
		if (free_bytes[i] < least)
			continue;
		c[ndevs].idx = i;
		c[ndevs].free = free_bytes[i];
		c[ndevs].avail = min_t(u64, free_bytes[i], want);
		ndevs++;
	}
	qsort(c, ndevs, sizeof(*c), cmp_cand);
	devs_max = p->devs_max ? p->devs_max : nr_devs;
	if (ndevs > devs_max)
		ndevs = devs_max;
	ndevs -= ndevs % p->devs_increment;
	if (ndevs < p->devs_min || !ndevs) {
		free(c);
		return 0;
	}
	stripe = c[ndevs - 1].avail / p->dev_stripes;
	num_stripes = (u32)ndevs * p->dev_stripes;
	data_stripes = btrfs_raid_data_stripes(p, num_stripes);
	if (stripe * data_stripes > max_chunk) {
		u64 capped = round_up(max_chunk / data_stripes, SZ_16M);

		stripe = min_t(u64, stripe, capped);
	}
	stripe = min_t(u64, stripe, SZ_1G);
	stripe = round_down(stripe, PLAN_MIN_STRIPE);
	if (!stripe) {
		free(c);
		return 0;
	}
	for (size_t i = 0; i < ndevs; i++)
		take[c[i].idx] = stripe * p->dev_stripes;
	free(c);
	*stripe_size = stripe;
	return stripe * data_stripes;
}

/* Free space of chunks that stay, per (type bits, extended profile). */
struct pool {
	u64 type;
	u64 profile;
	u64 free;
};

struct plan_state {
	struct pool *pools;
	size_t nr_pools, alloc_pools;
	u64 *free;                      /* per device */
	u64 *take;
};

static struct pool *get_pool(struct plan_state *st, u64 type, u64 profile)
{
	struct pool *np;

	for (size_t i = 0; i < st->nr_pools; i++)
		if (st->pools[i].type == type && st->pools[i].profile == profile)
			return &st->pools[i];
	if (ARRAY_GROW(st->pools, st->nr_pools, st->alloc_pools))
		return NULL;
	np = &st->pools[st->nr_pools++];
	np->type = type;
	np->profile = profile;
	np->free = 0;
	return np;
}

static int cmp_chunk_desc(const void *a, const void *b, void *arg)
{
	const struct btrfs_balance_chunk *chunks = arg;
	u64 la = chunks[*(const size_t *)a].logical, lb = chunks[*(const size_t *)b].logical;

	return la < lb ? 1 : la > lb ? -1 : 0;
}

static u64 raw_bytes(u64 used, const struct btrfs_raid_profile *p, size_t nr_devs)
{
	size_t n = p->devs_max ? min_t(size_t, p->devs_max, nr_devs) : nr_devs;

	if (p->nparity && n > p->nparity)
		return used / (n - p->nparity) * n + used % (n - p->nparity) * n / (n - p->nparity);
	return used * p->ncopies;
}

static void release_stripes(struct plan_state *st, const struct btrfs_plan_layout *l,
			    const struct btrfs_balance_chunk *c)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(c->type);
	u64 stripe_len;

	if (!c->num_stripes)
		return;
	stripe_len = c->length / btrfs_raid_data_stripes(p, c->num_stripes);
	for (u32 s = 0; s < c->num_stripes; s++)
		for (size_t d = 0; d < l->nr_devs; d++)
			if (l->devs[d].devid == c->stripes[s].devid)
				st->free[d] += stripe_len;
}

static void record_failure(struct btrfs_balance_plan *plan, struct plan_state *st,
			   const struct btrfs_plan_layout *l, enum btrfs_plan_kind kind, u64 profile)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(profile);

	plan->fail_kind = kind;
	plan->fail_profile = profile;
	plan->devs_needed = p->devs_min;
	plan->devs_usable = 0;
	for (size_t d = 0; d < l->nr_devs; d++)
		if (st->free[d] >= PLAN_MIN_STRIPE * p->dev_stripes)
			plan->devs_usable++;
	plan->dev_free = st->free;      /* handed over to the plan */
	st->free = NULL;
}

int btrfs_balance_plan(const struct btrfs_plan_layout *l, const struct btrfs_ioctl_balance_args *req,
		       struct btrfs_balance_plan *plan)
{
	const struct btrfs_balance_args *kargs[PLAN_KINDS] = { &req->data, &req->meta, &req->sys };
	static const u64 kflag[PLAN_KINDS] = { BTRFS_BALANCE_DATA, BTRFS_BALANCE_METADATA, BTRFS_BALANCE_SYSTEM };
	struct plan_state st = { 0 };
	bool *selected = NULL;
	size_t *order = NULL, nsel = 0;
	u64 total_rw = 0, done = 0;
	int ret = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	plan->devs = l->devs;
	plan->nr_devs = l->nr_devs;
	selected = calloc(l->nr_chunks + 1, sizeof(*selected));
	order = calloc(l->nr_chunks + 1, sizeof(*order));
	st.free = calloc(l->nr_devs + 1, sizeof(*st.free));
	st.take = calloc(l->nr_devs + 1, sizeof(*st.take));
	if (!selected || !order || !st.free || !st.take)
		goto out;

	for (size_t d = 0; d < l->nr_devs; d++) {
		const struct btrfs_plan_device *dev = &l->devs[d];
		u64 used = dev->allocated + BTRFS_DEVICE_RANGE_RESERVED;

		st.free[d] = dev->total_bytes > used ? dev->total_bytes - used : 0;
		plan->unallocated += st.free[d];
		total_rw += dev->total_bytes;
	}

	plan->selected = btrfs_balance_select_all(req, l->chunks, l->nr_chunks, selected);
	for (int k = 0; k < PLAN_KINDS; k++) {
		struct btrfs_plan_kind_report *r = &plan->kind[k];

		r->converting = (req->flags & kflag[k]) && (kargs[k]->flags & BTRFS_BALANCE_ARGS_CONVERT);
		r->target = r->converting ? kargs[k]->target : 0;
	}
	for (size_t i = 0; i < l->nr_chunks; i++) {
		const struct btrfs_balance_chunk *c = &l->chunks[i];
		enum btrfs_plan_kind k = btrfs_plan_kind_of(c->type);
		struct btrfs_plan_kind_report *r = &plan->kind[k];

		if (!selected[i]) {
			struct pool *pl = get_pool(&st, c->type & BTRFS_BLOCK_GROUP_TYPE_MASK,
						   btrfs_extended_profile(c->type));

			if (!pl)
				goto out;
			if (c->length > c->used)
				pl->free += c->length - c->used;
			continue;
		}
		order[nsel++] = i;
		r->involved = true;
		r->chunks++;
		r->used += c->used;
		r->raw += raw_bytes(c->used, btrfs_raid_profile_of(r->converting ? r->target : c->type),
				    l->nr_devs);
	}

	/* A converting kind needs enough devices, whether or not anything moves. */
	for (int k = 0; k < PLAN_KINDS; k++) {
		const struct btrfs_raid_profile *p;

		if (!plan->kind[k].converting)
			continue;
		p = btrfs_raid_profile_of(plan->kind[k].target);
		if (l->nr_devs < p->devs_min) {
			plan->verdict = PLAN_TOO_FEW_DEVICES;
			record_failure(plan, &st, l, k, plan->kind[k].target);
			plan->devs_usable = (u32)l->nr_devs;
			plan->fail_short = plan->kind[k].used;
			ret = 0;
			goto out;
		}
	}

	qsort_r(order, nsel, sizeof(*order), cmp_chunk_desc, (void *)l->chunks);
	for (size_t n = 0; n < nsel; n++) {
		const struct btrfs_balance_chunk *c = &l->chunks[order[n]];
		enum btrfs_plan_kind k = btrfs_plan_kind_of(c->type);
		struct btrfs_plan_kind_report *r = &plan->kind[k];
		u64 type = c->type & BTRFS_BLOCK_GROUP_TYPE_MASK;
		u64 target = r->converting ? r->target : btrfs_extended_profile(c->type);
		u64 need = c->used, got;
		struct pool *pl = get_pool(&st, type, target);

		if (!pl)
			goto out;
		got = min_t(u64, need, pl->free);
		pl->free -= got;
		need -= got;
		while (need) {
			u64 stripe, size;
			u64 alloc_type = type | (target & BTRFS_BLOCK_GROUP_PROFILE_MASK);

			size = btrfs_plan_alloc_chunk(alloc_type, st.free, l->nr_devs, total_rw,
						      st.take, &stripe);
			if (!size) {
				plan->verdict = PLAN_NO_SPACE;
				plan->fail_chunk = c->logical;
				plan->fail_done = done;
				plan->fail_short = need;
				for (size_t m = n + 1; m < nsel; m++)
					if (btrfs_plan_kind_of(l->chunks[order[m]].type) == k)
						plan->fail_short += l->chunks[order[m]].used;
				record_failure(plan, &st, l, k, target);
				ret = 0;
				goto out;
			}
			for (size_t d = 0; d < l->nr_devs; d++)
				st.free[d] -= st.take[d];
			r->new_chunks++;
			r->new_bytes += size;
			got = min_t(u64, need, size);
			need -= got;
			pl->free += size - got;
		}
		release_stripes(&st, l, c);
		done++;
	}
	plan->verdict = PLAN_FITS;
	ret = 0;
out:
	if (ret)
		plan->verdict = PLAN_ERROR;
	free(selected);
	free(order);
	free(st.free);
	free(st.take);
	free(st.pools);
	return ret;
}

void btrfs_balance_plan_release(struct btrfs_balance_plan *plan)
{
	free(plan->dev_free);
	plan->dev_free = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Offline balance: what is refused, and the per-chunk plan on the devices'
 * holes (see offline.h).
 */
#include <stdlib.h>
#include <string.h>
#include "balance/offline.h"
#include "balance/balance-online.h"
#include "kernel-shared/read/disk-io.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/growable-array.h"
#include "kernel-shared/format/messages.h"

#define OFFLINE_UNIT SZ_64K             /* stripe unit of raid0/10/5/6 (BTRFS_STRIPE_LEN) */
#define OFFLINE_RESERVED SZ_1M          /* no dev extent below this */

/* ---- refusals ---------------------------------------------------------- */

/* Does the tree hold an item with this key?  1, 0, or < 0. */
static int has_item(struct btrfs_fs_info *fs, u64 tree, u64 objectid, u8 type, bool any_offset)
{
	struct btrfs_tree_ref ref;
	struct btrfs_key key = { objectid, type, 0 }, found;
	struct btrfs_path path;
	int ret = btrfs_find_tree_root(fs, tree, &ref);

	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &ref, &key, BTRFS_SEARCH_NEXT, &path, &found);
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return 0;
	return found.objectid == objectid && found.type == type && (any_offset || found.offset == 0);
}

/* A dev item of another filesystem (a seed under a sprout): 1 after an error(), 0, < 0. */
static int seed_device(struct btrfs_fs_info *fs)
{
	struct btrfs_tree_ref ref = { BTRFS_CHUNK_TREE_OBJECTID, fs->chunk_root.bytenr,
				      fs->chunk_root.level, fs->chunk_root.generation };
	struct btrfs_key key = { BTRFS_DEV_ITEMS_OBJECTID, BTRFS_DEV_ITEM_KEY, 0 }, found;
	struct btrfs_path path;
	bool seed = false;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_key(fs, &ref, &key, BTRFS_SEARCH_NEXT, &path, &found);
	while (ret == 0 && found.objectid == BTRFS_DEV_ITEMS_OBJECTID && found.type == BTRFS_DEV_ITEM_KEY) {
		const struct btrfs_dev_item *di = btrfs_path_item_ptr(&path);

		if (btrfs_path_item_size(&path) >= sizeof(*di) &&
		    memcmp(di->fsid, fs->super->fsid, BTRFS_FSID_SIZE)) {
			error("device %llu belongs to a seed filesystem: offline balance does not change seed devices",
			      btrfs_device_id(di));
			seed = true;
			break;
		}
		ret = btrfs_next_item(&path);
		if (ret == 0)
			btrfs_path_item_key(&path, &found);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : seed;
}

static int refuse_usage(const struct btrfs_balance_args *a, const char *kind)
{
	if (!(a->flags & (BTRFS_BALANCE_ARGS_USAGE | BTRFS_BALANCE_ARGS_USAGE_RANGE)))
		return 0;
	error("the usage filter (-%s) compacts chunks by relocating their extents to new addresses, which offline balance does not do; mount the filesystem and balance the mount point",
	      kind);
	return -EINVAL;
}

/* Metadata or system chunks converted to fewer tolerated failures: refused without force. */
static int refuse_reduction(struct btrfs_fs_info *fs, const struct btrfs_ioctl_balance_args *req)
{
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];
		const struct btrfs_balance_args *a;
		const char *kind;

		if (c->type & BTRFS_BLOCK_GROUP_DATA)
			continue;
		if (c->type & BTRFS_BLOCK_GROUP_SYSTEM) {
			a = &req->sys;
			kind = "system";
			if (!(req->flags & BTRFS_BALANCE_SYSTEM))
				continue;
		} else {
			a = &req->meta;
			kind = "metadata";
			if (!(req->flags & BTRFS_BALANCE_METADATA))
				continue;
		}
		if (!(a->flags & BTRFS_BALANCE_ARGS_CONVERT) ||
		    !btrfs_balance_reduces_redundancy(c->type, a->target))
			continue;
		error("converting %s from %s to %s reduces redundancy (survives %u lost devices instead of %u)",
		      kind, btrfs_raid_profile_of(c->type)->name, btrfs_raid_profile_of(a->target)->name,
		      btrfs_raid_profile_of(a->target)->tolerated_failures,
		      btrfs_raid_profile_of(c->type)->tolerated_failures);
		fprintf(stderr, "Use --force (-f) if you want this.\n");
		return -EINVAL;
	}
	return 0;
}

int offline_balance_refuse(struct btrfs_fs_info *fs, const struct btrfs_ioctl_balance_args *req,
			   bool force)
{
	const struct btrfs_super_block *sb = fs->super;
	static const struct {
		u64 tree, objectid;
		u8 type;
		bool any_offset;
		const char *what;
	} items[] = {
		{ BTRFS_ROOT_TREE_OBJECTID, BTRFS_BALANCE_OBJECTID, BTRFS_BALANCE_ITEM_KEY, false,
		  "a balance is in progress (balance item): mount the filesystem to resume or cancel it" },
		{ BTRFS_ROOT_TREE_OBJECTID, BTRFS_TREE_RELOC_OBJECTID, BTRFS_ROOT_ITEM_KEY, true,
		  "relocation trees of an interrupted balance exist: mount the filesystem to finish it" },
		{ BTRFS_DEV_TREE_OBJECTID, BTRFS_DEV_REPLACE_OBJECTID, BTRFS_DEV_REPLACE_KEY, false,
		  "a device replace item exists: mount the filesystem to finish or cancel the replace" },
	};
	int ret;

	if ((req->flags & BTRFS_BALANCE_DATA) && refuse_usage(&req->data, "d"))
		return -EINVAL;
	if ((req->flags & BTRFS_BALANCE_METADATA) && refuse_usage(&req->meta, "m"))
		return -EINVAL;
	if ((req->flags & BTRFS_BALANCE_SYSTEM) && refuse_usage(&req->sys, "s"))
		return -EINVAL;
	if (btrfs_super_log_root(sb)) {
		error("the filesystem has a log tree to replay (log root %llu): mount it once, or clear it with 'btrfs rescue zero-log', before an offline balance",
		      btrfs_super_log_root(sb));
		return -EOPNOTSUPP;
	}
	if (btrfs_super_flags(sb) & BTRFS_SUPER_FLAG_SEEDING) {
		error("the filesystem is a seed device: offline balance does not change seed filesystems");
		return -EOPNOTSUPP;
	}
	if (btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_ZONED) {
		error("the filesystem is zoned: offline balance does not support zoned devices");
		return -EOPNOTSUPP;
	}
	for (int i = 0; i < fs->devices.nr; i++) {
		if (fs->devices.devs[i].missing) {
			error("device %llu of the filesystem is missing: offline balance needs every device",
			      fs->devices.devs[i].devid);
			return -EOPNOTSUPP;
		}
	}
	ret = seed_device(fs);
	if (ret)
		return ret < 0 ? ret : -EOPNOTSUPP;
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		ret = has_item(fs, items[i].tree, items[i].objectid, items[i].type, items[i].any_offset);
		if (ret < 0) {
			error("cannot read tree %llu to look for key (%llu %u 0)", items[i].tree,
			      items[i].objectid, items[i].type);
			return ret;
		}
		if (ret) {
			error("%s", items[i].what);
			return -EOPNOTSUPP;
		}
	}
	return force ? 0 : refuse_reduction(fs, req);
}

/* ---- device holes ------------------------------------------------------ */

struct busy {
	u64 start;
	u64 len;
	u64 owner;                      /* chunk logical, (u64)-1 for reserved ranges */
};

struct pdev {
	struct offline_dev *out;
	struct busy *busy;              /* sorted by start */
	size_t nr, alloc;
};

static int busy_add(struct pdev *d, u64 start, u64 len, u64 owner)
{
	size_t i = 0;

	if (ARRAY_GROW(d->busy, d->nr, d->alloc))
		return -ENOMEM;
	while (i < d->nr && d->busy[i].start < start)
		i++;
	memmove(&d->busy[i + 1], &d->busy[i], (d->nr - i) * sizeof(d->busy[0]));
	d->busy[i] = (struct busy){ start, len, owner };
	d->nr++;
	return 0;
}

static void busy_drop(struct pdev *d, u64 start, u64 owner)
{
	for (size_t i = 0; i < d->nr; i++) {
		if (d->busy[i].start != start || d->busy[i].owner != owner)
			continue;
		d->out->used_after -= d->busy[i].len;
		memmove(&d->busy[i], &d->busy[i + 1], (d->nr - i - 1) * sizeof(d->busy[0]));
		d->nr--;
		return;
	}
}

/*
 * The first free range of at least len bytes on d (in OFFLINE_UNIT
 * alignment), *where set; the largest free range's length is returned
 * when none is big enough (and *where is (u64)-1).
 */
static u64 find_hole(const struct pdev *d, u64 len, u64 *where)
{
	u64 pos = OFFLINE_RESERVED, largest = 0, end = d->out->total_bytes;

	*where = (u64)-1;
	for (size_t i = 0; i <= d->nr; i++) {
		u64 next = i < d->nr ? d->busy[i].start : end;
		u64 hole;

		if (next > end)
			next = end;
		hole = next > pos ? next - pos : 0;
		if (hole >= len) {
			*where = pos;
			return hole;
		}
		if (hole > largest)
			largest = hole;
		if (i < d->nr && d->busy[i].start + d->busy[i].len > pos)
			pos = round_up(d->busy[i].start + d->busy[i].len, OFFLINE_UNIT);
	}
	return largest;
}

/* Two ranges of len bytes on d (dup)? */
static bool fits_twice(struct pdev *d, u64 len)
{
	u64 first, second;
	bool ok;

	find_hole(d, len, &first);
	if (first == (u64)-1 || busy_add(d, first, len, 0) < 0)
		return false;
	find_hole(d, len, &second);
	ok = second != (u64)-1;
	for (size_t i = 0; i < d->nr; i++) {
		if (d->busy[i].start == first && d->busy[i].owner == 0) {
			memmove(&d->busy[i], &d->busy[i + 1], (d->nr - i - 1) * sizeof(d->busy[0]));
			d->nr--;
			break;
		}
	}
	return ok;
}

/* ---- the plan ---------------------------------------------------------- */

struct plan_state {
	struct pdev *devs;
	size_t nr_devs;
};

static u64 stripe_size_of(u64 type, u64 length, u32 num_stripes)
{
	return length / btrfs_raid_data_stripes(btrfs_raid_profile_of(type), num_stripes);
}

static struct pdev *dev_of(struct plan_state *st, u64 devid)
{
	for (size_t i = 0; i < st->nr_devs; i++)
		if (st->devs[i].out->devid == devid)
			return &st->devs[i];
	return NULL;
}

struct cand {
	struct pdev *d;
	u64 hole;
	u64 where;
};

/* Largest hole first, then the lowest devid: the devices a new stripe goes to. */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->hole != y->hole)
		return x->hole < y->hole ? 1 : -1;
	return x->d->out->devid < y->d->out->devid ? -1 : x->d->out->devid > y->d->out->devid;
}

/* Devices with a hole of len bytes and none of the used stripes, best first; how many. */
static size_t candidates(struct plan_state *st, u64 len, const struct offline_stripe *used,
			 u32 nr_used, struct cand *out)
{
	size_t n = 0;

	for (size_t i = 0; i < st->nr_devs; i++) {
		bool taken = false;
		u64 where, hole = find_hole(&st->devs[i], len, &where);

		for (u32 s = 0; s < nr_used; s++)
			taken |= used[s].devid == st->devs[i].out->devid;
		if (taken || where == (u64)-1)
			continue;
		out[n++] = (struct cand){ &st->devs[i], hole, where };
	}
	qsort(out, n, sizeof(*out), cmp_cand);
	return n;
}

/* Place one new stripe of len bytes on d (its first hole); false when none. */
static bool place_on(struct offline_chunk *oc, struct pdev *d, u64 len, u32 s)
{
	u64 where;

	find_hole(d, len, &where);
	if (where == (u64)-1 || busy_add(d, where, len, oc->logical) < 0)
		return false;
	d->out->used_after += len;
	oc->stripes[s] = (struct offline_stripe){ d->out->devid, where, false };
	oc->copy_bytes += len;
	return true;
}

/*
 * Mirrored target from a mirrored chunk: keep the old stripes the target
 * allows (distinct devices; dup: both on the first one's device), then
 * place the rest.
 */
static bool place_mirrored(struct plan_state *st, const struct btrfs_chunk_map *c,
			   const struct btrfs_raid_profile *p, struct offline_chunk *oc, struct cand *cands)
{
	const struct btrfs_raid_profile *from = btrfs_raid_profile_of(c->type);
	u32 want = p->ncopies, have = 0;

	oc->new_stripe_size = c->length;
	if (from->layout == BTRFS_RAID_MIRRORED) {
		for (u32 i = 0; i < c->num_stripes && have < want; i++) {
			bool dup_dev = false;

			for (u32 s = 0; s < have; s++)
				dup_dev |= oc->stripes[s].devid == c->stripes[i].devid;
			if (dup_dev != (p->dev_stripes > 1 && have > 0))
				continue;
			oc->stripes[have++] = (struct offline_stripe){ c->stripes[i].devid,
								       c->stripes[i].physical, true };
		}
	}
	if (p->dev_stripes > 1) {
		/* dup: every stripe on one device */
		struct pdev *d = have ? dev_of(st, oc->stripes[0].devid) : NULL;

		if (!d) {
			size_t n = candidates(st, c->length, NULL, 0, cands);

			for (size_t k = 0; k < n && !d; k++)
				if (fits_twice(cands[k].d, c->length))
					d = cands[k].d;
		}
		while (d && have < want && place_on(oc, d, c->length, have))
			have++;
		return have == want;
	}
	while (have < want) {
		size_t n = candidates(st, c->length, oc->stripes, have, cands);

		if (!n || !place_on(oc, cands[0].d, c->length, have))
			return false;
		have++;
	}
	return true;
}

/*
 * Striped or parity target: the most devices the profile takes whose
 * stripes fit a hole each, with the chunk length a whole number of data
 * rows (data stripes times 64 KiB).
 */
static bool place_striped(struct plan_state *st, const struct btrfs_chunk_map *c,
			  const struct btrfs_raid_profile *p, struct offline_chunk *oc, struct cand *cands,
			  u64 *smallest)
{
	u32 max = p->devs_max ? p->devs_max : (u32)st->nr_devs;

	if (max > st->nr_devs)
		max = (u32)st->nr_devs;
	*smallest = 0;
	for (u32 ndevs = max; ndevs >= p->devs_min && ndevs >= 1; ndevs--) {
		u32 data = btrfs_raid_data_stripes(p, ndevs);
		u64 stripe;
		size_t n;

		if (ndevs % p->devs_increment || !data || c->length % ((u64)data * OFFLINE_UNIT))
			continue;
		stripe = c->length / data;
		if (!*smallest)
			*smallest = stripe;     /* the most devices' stripe: what a refusal names */
		n = candidates(st, stripe, NULL, 0, cands);
		if (n < ndevs)
			continue;
		oc->new_num_stripes = ndevs;
		oc->new_stripe_size = stripe;
		for (u32 s = 0; s < ndevs; s++)
			if (!place_on(oc, cands[s].d, stripe, s))
				return false;
		return true;
	}
	return false;
}

static void record_failure(struct offline_plan *plan, struct plan_state *st,
			   const struct btrfs_chunk_map *c, const struct btrfs_raid_profile *p, u64 stripe)
{
	plan->fits = false;
	plan->fail_logical = c->logical;
	plan->fail_length = c->length;
	plan->fail_type = c->type;
	plan->fail_target = p->bg_flag ? p->bg_flag : BTRFS_AVAIL_ALLOC_BIT_SINGLE;
	plan->fail_stripe_size = stripe;
	plan->fail_devs_needed = p->layout == BTRFS_RAID_MIRRORED ? p->ncopies / p->dev_stripes : p->devs_min;
	plan->fail_devs_with_room = 0;
	for (size_t i = 0; i < st->nr_devs; i++) {
		u64 where;

		st->devs[i].out->largest_hole = find_hole(&st->devs[i], stripe, &where);
		if (where != (u64)-1)
			plan->fail_devs_with_room++;
	}
}

/* Plan one chunk to profile p; false (with the failure recorded) when it cannot be placed. */
static bool plan_chunk(struct offline_plan *plan, struct plan_state *st, const struct btrfs_chunk_map *c,
		       const struct btrfs_raid_profile *p, struct cand *cands)
{
	struct offline_chunk *oc = &plan->chunks[plan->nr_chunks];
	u64 stripe = c->length;
	bool ok;

	memset(oc, 0, sizeof(*oc));
	oc->logical = c->logical;
	oc->length = c->length;
	oc->old_type = c->type;
	oc->new_type = (c->type & ~BTRFS_BLOCK_GROUP_PROFILE_MASK) | p->bg_flag;
	oc->old_num_stripes = c->num_stripes;
	oc->old_stripe_size = stripe_size_of(c->type, c->length, c->num_stripes);
	oc->new_sub_stripes = p->sub_stripes;
	oc->stripes = calloc(st->nr_devs * p->dev_stripes + p->ncopies + 1, sizeof(*oc->stripes));
	if (!oc->stripes)
		return false;
	plan->nr_chunks++;
	if (p->layout == BTRFS_RAID_MIRRORED) {
		oc->new_num_stripes = p->ncopies;
		ok = place_mirrored(st, c, p, oc, cands);
	} else {
		ok = place_striped(st, c, p, oc, cands, &stripe);
	}
	if (!ok) {
		record_failure(plan, st, c, p, stripe);
		free(oc->stripes);
		plan->nr_chunks--;
		return false;
	}
	/* the chunk is done: its old dev extents not kept are free again */
	for (u32 i = 0; i < c->num_stripes; i++) {
		bool kept = false;

		for (u32 s = 0; s < oc->new_num_stripes; s++)
			kept |= oc->stripes[s].kept && oc->stripes[s].devid == c->stripes[i].devid &&
				oc->stripes[s].physical == c->stripes[i].physical;
		if (!kept)
			busy_drop(dev_of(st, c->stripes[i].devid), c->stripes[i].physical, c->logical);
	}
	plan->copy_bytes += oc->copy_bytes;
	return true;
}

/* The filesystem's chunks as the filters see them. */
static struct btrfs_balance_chunk *filter_view(struct btrfs_fs_info *fs, struct btrfs_balance_stripe **stripes)
{
	struct btrfs_balance_chunk *v = calloc(fs->chunks.nr + 1, sizeof(*v));
	size_t total = 0, at = 0;

	for (size_t i = 0; i < fs->chunks.nr; i++)
		total += fs->chunks.chunks[i]->num_stripes;
	*stripes = calloc(total + 1, sizeof(**stripes));
	if (!v || !*stripes) {
		free(v);
		free(*stripes);
		return NULL;
	}
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];

		v[i] = (struct btrfs_balance_chunk){ c->logical, c->length, c->type, 0, c->num_stripes,
						     *stripes + at };
		for (u32 s = 0; s < c->num_stripes; s++)
			(*stripes)[at++] = (struct btrfs_balance_stripe){ c->stripes[s].devid,
									  c->stripes[s].physical };
	}
	return v;
}

static int init_devices(struct btrfs_fs_info *fs, struct offline_plan *plan, struct plan_state *st)
{
	plan->nr_devs = st->nr_devs = (size_t)fs->devices.nr;
	plan->devs = calloc(st->nr_devs + 1, sizeof(*plan->devs));
	st->devs = calloc(st->nr_devs + 1, sizeof(*st->devs));
	if (!plan->devs || !st->devs)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_devs; i++) {
		const struct btrfs_device *dev = &fs->devices.devs[i];

		st->devs[i].out = &plan->devs[i];
		plan->devs[i].devid = dev->devid;
		plan->devs[i].total_bytes = dev->total_bytes ? dev->total_bytes : dev->size;
		if (busy_add(&st->devs[i], 0, OFFLINE_RESERVED, (u64)-1) < 0)
			return -ENOMEM;
		for (int m = 1; m < BTRFS_SUPER_MIRROR_MAX; m++)
			if (btrfs_sb_offset(m) < plan->devs[i].total_bytes &&
			    busy_add(&st->devs[i], btrfs_sb_offset(m), BTRFS_SUPER_INFO_SIZE, (u64)-1) < 0)
				return -ENOMEM;
	}
	for (size_t i = 0; i < fs->chunks.nr; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];
		u64 len = stripe_size_of(c->type, c->length, c->num_stripes);

		for (u32 s = 0; s < c->num_stripes; s++) {
			struct pdev *d = dev_of(st, c->stripes[s].devid);

			if (!d) {
				error("chunk %llu stripe %u: devid %llu is not a device of the filesystem",
				      c->logical, s, c->stripes[s].devid);
				return -EUCLEAN;
			}
			if (busy_add(d, c->stripes[s].physical, len, c->logical) < 0)
				return -ENOMEM;
			d->out->used_before += len;
		}
	}
	for (size_t i = 0; i < st->nr_devs; i++)
		plan->devs[i].used_after = plan->devs[i].used_before;
	return 0;
}

int offline_plan_build(struct btrfs_fs_info *fs, const struct btrfs_ioctl_balance_args *req,
		       struct offline_plan *plan)
{
	struct btrfs_balance_stripe *stripes = NULL;
	struct btrfs_balance_chunk *view;
	struct btrfs_balance_selector sel;
	struct btrfs_ioctl_balance_args soft;
	struct btrfs_balance_args *kinds[] = { &soft.data, &soft.meta, &soft.sys };
	struct plan_state st = { 0 };
	struct cand *cands;
	bool *selected;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->fits = true;
	view = filter_view(fs, &stripes);
	selected = calloc(fs->chunks.nr + 1, sizeof(*selected));
	plan->chunks = calloc(fs->chunks.nr + 1, sizeof(*plan->chunks));
	cands = calloc((size_t)fs->devices.nr + 1, sizeof(*cands));
	ret = view && selected && plan->chunks && cands ? init_devices(fs, plan, &st) : -ENOMEM;
	if (ret < 0)
		goto out;
	/* soft is implied: a chunk already in the target profile neither moves nor counts for limit= */
	soft = *req;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		if (kinds[k]->flags & BTRFS_BALANCE_ARGS_CONVERT)
			kinds[k]->flags |= BTRFS_BALANCE_ARGS_SOFT;
	plan->selected = btrfs_balance_select_all(&soft, view, fs->chunks.nr, selected);
	btrfs_balance_selector_init(&sel, &soft);
	for (size_t i = 0; i < fs->chunks.nr && plan->fits; i++) {
		const struct btrfs_chunk_map *c = fs->chunks.chunks[i];
		const struct btrfs_balance_args *a;

		if (!selected[i])
			continue;
		a = btrfs_balance_args_for(&sel, c->type);
		/* offline there is nothing to do for a chunk that keeps its profile */
		if (!(a->flags & BTRFS_BALANCE_ARGS_CONVERT) ||
		    btrfs_extended_profile(c->type) == a->target) {
			plan->skipped++;
			continue;
		}
		if (!plan_chunk(plan, &st, c, btrfs_raid_profile_of(a->target), cands) && plan->fits) {
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	for (size_t i = 0; i < st.nr_devs; i++)
		free(st.devs[i].busy);
	free(st.devs);
	free(cands);
	free(selected);
	free(view);
	free(stripes);
	if (ret < 0)
		offline_plan_release(plan);
	return ret;
}

void offline_plan_release(struct offline_plan *plan)
{
	for (size_t i = 0; plan->chunks && i < plan->nr_chunks; i++)
		free(plan->chunks[i].stripes);
	free(plan->chunks);
	free(plan->devs);
	memset(plan, 0, sizeof(*plan));
}

/* ---- printing ---------------------------------------------------------- */

static const char *type_name(u64 type)
{
	if ((type & BTRFS_BLOCK_GROUP_DATA) && (type & BTRFS_BLOCK_GROUP_METADATA))
		return "Data+Metadata";
	if (type & BTRFS_BLOCK_GROUP_DATA)
		return "Data";
	return type & BTRFS_BLOCK_GROUP_SYSTEM ? "System" : "Metadata";
}

void offline_plan_print(FILE *out, const struct offline_plan *plan)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "Plan: %zu chunks to convert (%llu selected, %llu already in the target profile or not converted), %s to copy\n",
		plan->nr_chunks, plan->selected, plan->skipped,
		btrfs_balance_size_str(plan->copy_bytes, b1, sizeof(b1)));
	for (size_t i = 0; i < plan->nr_chunks; i++) {
		const struct offline_chunk *oc = &plan->chunks[i];

		fprintf(out, "  chunk %llu %s %s: %s -> %s, %u stripes of %s:", oc->logical,
			type_name(oc->old_type), btrfs_balance_size_str(oc->length, b1, sizeof(b1)),
			btrfs_profile_name(oc->old_type), btrfs_profile_name(oc->new_type),
			oc->new_num_stripes, btrfs_balance_size_str(oc->new_stripe_size, b2, sizeof(b2)));
		for (u32 s = 0; s < oc->new_num_stripes; s++)
			fprintf(out, " %llu:%llu%s", oc->stripes[s].devid, oc->stripes[s].physical,
				oc->stripes[s].kept ? "(kept)" : "");
		fputc('\n', out);
	}
	for (size_t d = 0; d < plan->nr_devs; d++)
		fprintf(out, "  devid %llu: %s allocated before, %s after, of %s\n", plan->devs[d].devid,
			btrfs_balance_size_str(plan->devs[d].used_before, b1, sizeof(b1)),
			btrfs_balance_size_str(plan->devs[d].used_after, b2, sizeof(b2)),
			btrfs_balance_size_str(plan->devs[d].total_bytes, b3, sizeof(b3)));
}

void offline_plan_print_refusal(const struct offline_plan *plan)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(plan->fail_target);
	char b1[32], b2[32], b3[32], b4[32];

	error("cannot convert %s chunk %llu (%s, %s) to %s: it needs %u devices with a free range of %s%s, %u have one",
	      type_name(plan->fail_type), plan->fail_logical,
	      btrfs_balance_size_str(plan->fail_length, b1, sizeof(b1)), btrfs_profile_name(plan->fail_type),
	      p->name, plan->fail_devs_needed,
	      btrfs_balance_size_str(plan->fail_stripe_size, b2, sizeof(b2)),
	      p->dev_stripes > 1 ? " twice" : "", plan->fail_devs_with_room);
	fprintf(stderr, "  after %zu of the chunks to convert, per device:\n",
		plan->nr_chunks);
	for (size_t d = 0; d < plan->nr_devs; d++) {
		const struct offline_dev *dv = &plan->devs[d];
		u64 unalloc = dv->total_bytes > dv->used_after + SZ_1M ? dv->total_bytes - dv->used_after - SZ_1M : 0;

		fprintf(stderr, "  devid %llu: needed %s, largest free range %s, unallocated %s of %s\n",
			dv->devid, btrfs_balance_size_str(plan->fail_stripe_size, b1, sizeof(b1)),
			btrfs_balance_size_str(dv->largest_hole, b2, sizeof(b2)),
			btrfs_balance_size_str(unalloc, b3, sizeof(b3)),
			btrfs_balance_size_str(dv->total_bytes, b4, sizeof(b4)));
	}
	fprintf(stderr, "Nothing was written.\n");
}

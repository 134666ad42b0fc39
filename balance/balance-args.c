// SPDX-License-Identifier: GPL-2.0
/* Balance filters: profiles, parsing and chunk selection (see balance-args.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "balance/balance-args.h"
#include "kernel-shared/format/messages.h"

int btrfs_balance_parse_profiles(const char *s, u64 *profiles)
{
	char buf[256];
	char *save = NULL, *tok;
	u64 flags = 0;

	if (strlen(s) >= sizeof(buf)) {
		error("profiles argument too long");
		return -EINVAL;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		const struct btrfs_raid_profile *p = btrfs_raid_profile_by_name(tok);

		if (!p) {
			error("unknown profile: %s", tok);
			return -EINVAL;
		}
		flags |= btrfs_extended_profile(p->bg_flag);
	}
	if (!flags) {
		error("unknown profile: %s", s);
		return -EINVAL;
	}
	*profiles = flags;
	return 0;
}

/* A whole-string unsigned decimal number (no sign, no suffix). */
static int parse_number(const char *s, size_t len, u64 *out)
{
	char tmp[32];
	char *end;
	unsigned long long v;

	if (!len || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	if (tmp[0] < '0' || tmp[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(tmp, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "S..E" with either end missing; silent, callers word the error. */
static int split_range(const char *s, u64 *start, u64 *end)
{
	const char *dots = strstr(s, "..");

	*start = 0;
	*end = (u64)-1;
	if (!dots)
		return -EINVAL;
	if (dots == s && !dots[2])
		return -EINVAL;             /* ".." alone says nothing */
	if (dots > s && parse_number(s, dots - s, start))
		return -EINVAL;
	if (dots[2] && parse_number(dots + 2, strlen(dots + 2), end))
		return -EINVAL;
	return 0;
}

int btrfs_balance_parse_range(const char *s, u64 *start, u64 *end)
{
	if (split_range(s, start, end))
		return -EINVAL;
	if (*start > *end) {
		error("range %llu..%llu doesn't make sense", *start, *end);
		return -EINVAL;
	}
	if (*start == *end) {
		error("range %llu..%llu not allowed", *start, *end);
		return -EINVAL;
	}
	return 0;
}

int btrfs_balance_parse_range_u32(const char *s, u32 *start, u32 *end)
{
	u64 a, b;

	if (split_range(s, &a, &b))
		return -EINVAL;
	if (b == (u64)-1)
		b = (u32)-1;
	if (a > (u32)-1 || b > (u32)-1)
		return -EINVAL;
	if (a > b) {
		error("range %llu..%llu doesn't make sense", a, b);
		return -EINVAL;
	}
	*start = (u32)a;
	*end = (u32)b;
	return 0;
}

enum filter_kind { F_PROFILES, F_USAGE, F_DEVID, F_DRANGE, F_VRANGE, F_CONVERT, F_SOFT, F_LIMIT, F_STRIPES };

static const struct {
	const char *name;
	enum filter_kind kind;
	const char *what;       /* "filter" or "option", for "requires an argument" */
} filter_names[] = {
	{ "profiles", F_PROFILES, "filter" },
	{ "usage", F_USAGE, "filter" },
	{ "devid", F_DEVID, "filter" },
	{ "drange", F_DRANGE, "filter" },
	{ "vrange", F_VRANGE, "filter" },
	{ "convert", F_CONVERT, "option" },
	{ "soft", F_SOFT, NULL },
	{ "limit", F_LIMIT, "filter" },
	{ "stripes", F_STRIPES, "filter" },
};

const char *btrfs_balance_filter_name_at(size_t i, char buf[64])
{
	if (i >= ARRAY_SIZE(filter_names))
		return NULL;
	snprintf(buf, 64, "%s%s", filter_names[i].name, filter_names[i].what ? "=" : "");
	return buf;
}

/* One "name=value" (value may be NULL) into args. */
static int parse_one_filter(const char *name, const char *value, struct btrfs_balance_args *args)
{
	size_t i;
	u64 v, v2;

	for (i = 0; i < ARRAY_SIZE(filter_names); i++)
		if (!strcmp(name, filter_names[i].name))
			break;
	if (i == ARRAY_SIZE(filter_names)) {
		error("unrecognized balance option: %s", name);
		return -EINVAL;
	}
	if (filter_names[i].what && (!value || !*value)) {
		error("the %s %s requires an argument", name, filter_names[i].what);
		return -EINVAL;
	}

	switch (filter_names[i].kind) {
	case F_PROFILES:
		if (btrfs_balance_parse_profiles(value, &v)) {
			error("invalid profiles argument");
			return -EINVAL;
		}
		args->profiles = v;
		args->flags |= BTRFS_BALANCE_ARGS_PROFILES;
		break;
	case F_USAGE:
		if (!parse_number(value, strlen(value), &v)) {
			if (v > 100) {
				error("invalid usage argument: %s", value);
				return -EINVAL;
			}
			args->usage = v;
			args->flags &= ~BTRFS_BALANCE_ARGS_USAGE_RANGE;
			args->flags |= BTRFS_BALANCE_ARGS_USAGE;
		} else {
			u32 lo, hi;

			if (btrfs_balance_parse_range_u32(value, &lo, &hi) || hi > 100) {
				error("invalid usage argument: %s", value);
				return -EINVAL;
			}
			args->usage_min = lo;
			args->usage_max = hi;
			args->flags &= ~BTRFS_BALANCE_ARGS_USAGE;
			args->flags |= BTRFS_BALANCE_ARGS_USAGE_RANGE;
		}
		break;
	case F_DEVID:
		if (parse_number(value, strlen(value), &v) || v == 0) {
			error("invalid devid argument: %s", value);
			return -EINVAL;
		}
		args->devid = v;
		args->flags |= BTRFS_BALANCE_ARGS_DEVID;
		break;
	case F_DRANGE:
		if (btrfs_balance_parse_range(value, &v, &v2)) {
			error("invalid drange argument");
			return -EINVAL;
		}
		args->pstart = v;
		args->pend = v2;
		args->flags |= BTRFS_BALANCE_ARGS_DRANGE;
		break;
	case F_VRANGE:
		if (btrfs_balance_parse_range(value, &v, &v2)) {
			error("invalid vrange argument");
			return -EINVAL;
		}
		args->vstart = v;
		args->vend = v2;
		args->flags |= BTRFS_BALANCE_ARGS_VRANGE;
		break;
	case F_CONVERT: {
		const struct btrfs_raid_profile *p = btrfs_raid_profile_by_name(value);

		if (!p) {
			error("unknown profile: %s", value);
			error("invalid convert argument");
			return -EINVAL;
		}
		args->target = btrfs_extended_profile(p->bg_flag);
		args->flags |= BTRFS_BALANCE_ARGS_CONVERT;
		break;
	}
	case F_SOFT:
		args->flags |= BTRFS_BALANCE_ARGS_SOFT;
		break;
	case F_LIMIT:
		if (!parse_number(value, strlen(value), &v)) {
			args->limit = v;
			args->flags &= ~BTRFS_BALANCE_ARGS_LIMIT_RANGE;
			args->flags |= BTRFS_BALANCE_ARGS_LIMIT;
		} else {
			u32 lo, hi;

			if (btrfs_balance_parse_range_u32(value, &lo, &hi)) {
				error("Invalid limit argument: %s", value);
				return -EINVAL;
			}
			args->limit_min = lo;
			args->limit_max = hi;
			args->flags &= ~BTRFS_BALANCE_ARGS_LIMIT;
			args->flags |= BTRFS_BALANCE_ARGS_LIMIT_RANGE;
		}
		break;
	case F_STRIPES: {
		u32 lo, hi;

		if (btrfs_balance_parse_range_u32(value, &lo, &hi)) {
			error("invalid stripes argument");
			return -EINVAL;
		}
		args->stripes_min = lo;
		args->stripes_max = hi;
		args->flags |= BTRFS_BALANCE_ARGS_STRIPES_RANGE;
		break;
	}
	}
	return 0;
}

int btrfs_balance_parse_filters(const char *filters, struct btrfs_balance_args *args)
{
	char *copy, *save = NULL, *tok;
	int ret = 0;

	if (!filters || !*filters)
		return 0;
	copy = strdup(filters);
	if (!copy) {
		error("not enough memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *value = strchr(tok, '=');

		if (value)
			*value++ = 0;
		ret = parse_one_filter(tok, value, args);
		if (ret)
			break;
	}
	free(copy);
	return ret;
}

int btrfs_balance_check_args(const struct btrfs_balance_args *args)
{
	if ((args->flags & BTRFS_BALANCE_ARGS_DRANGE) && !(args->flags & BTRFS_BALANCE_ARGS_DEVID)) {
		error("drange filter must be used with devid filter");
		return -EINVAL;
	}
	if ((args->flags & BTRFS_BALANCE_ARGS_SOFT) && !(args->flags & BTRFS_BALANCE_ARGS_CONVERT)) {
		error("'soft' option can be used only when converting profiles");
		return -EINVAL;
	}
	return 0;
}

void btrfs_balance_selector_init(struct btrfs_balance_selector *sel,
				 const struct btrfs_ioctl_balance_args *req)
{
	sel->flags = req->flags & BTRFS_BALANCE_TYPE_MASK;
	sel->data = req->data;
	sel->meta = req->meta;
	sel->sys = req->sys;
}

struct btrfs_balance_args *btrfs_balance_args_for(struct btrfs_balance_selector *sel, u64 type)
{
	if (type & BTRFS_BLOCK_GROUP_DATA)
		return &sel->data;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM)
		return &sel->sys;
	return &sel->meta;
}

/* Percent of a length, as the kernel rounds it (down). */
static u64 percent_of(u64 len, u32 pct)
{
	if (pct >= 100)
		return len;
	return len / 100 * pct + (len % 100) * pct / 100;
}

static bool usage_selects(const struct btrfs_balance_args *a, const struct btrfs_balance_chunk *c)
{
	u64 lo, hi;

	if (a->flags & BTRFS_BALANCE_ARGS_USAGE) {
		/* usage=N: used below N percent; usage=0 only empty chunks. */
		hi = a->usage == 0 ? 1 : percent_of(c->length, (u32)min_t(u64, a->usage, 100));
		return c->used < hi;
	}
	lo = a->usage_min ? percent_of(c->length, a->usage_min) : 0;
	hi = a->usage_max ? percent_of(c->length, a->usage_max) : 1;
	return lo <= c->used && c->used < hi;
}

static bool devid_selects(const struct btrfs_balance_args *a, const struct btrfs_balance_chunk *c)
{
	for (u32 i = 0; i < c->num_stripes; i++)
		if (c->stripes[i].devid == a->devid)
			return true;
	return false;
}

static bool drange_selects(const struct btrfs_balance_args *a, const struct btrfs_balance_chunk *c)
{
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(c->type);
	u64 stripe_len = c->length / btrfs_raid_data_stripes(p, c->num_stripes);

	for (u32 i = 0; i < c->num_stripes; i++) {
		const struct btrfs_balance_stripe *s = &c->stripes[i];

		if (s->devid != a->devid)
			continue;
		if (s->physical < a->pend && s->physical + stripe_len > a->pstart)
			return true;
	}
	return false;
}

bool btrfs_balance_select_chunk(struct btrfs_balance_selector *sel, const struct btrfs_balance_chunk *c)
{
	struct btrfs_balance_args *a;
	u64 f;

	if (!(c->type & BTRFS_BLOCK_GROUP_TYPE_MASK & sel->flags))
		return false;
	a = btrfs_balance_args_for(sel, c->type);
	f = a->flags;
	if ((f & BTRFS_BALANCE_ARGS_PROFILES) && !(a->profiles & btrfs_extended_profile(c->type)))
		return false;
	if ((f & (BTRFS_BALANCE_ARGS_USAGE | BTRFS_BALANCE_ARGS_USAGE_RANGE)) && !usage_selects(a, c))
		return false;
	if ((f & BTRFS_BALANCE_ARGS_DEVID) && !devid_selects(a, c))
		return false;
	if ((f & BTRFS_BALANCE_ARGS_DRANGE) && (f & BTRFS_BALANCE_ARGS_DEVID) && !drange_selects(a, c))
		return false;
	if ((f & BTRFS_BALANCE_ARGS_VRANGE) &&
	    !(c->logical < a->vend && c->logical + c->length > a->vstart))
		return false;
	if ((f & BTRFS_BALANCE_ARGS_STRIPES_RANGE) &&
	    !(a->stripes_min <= c->num_stripes && c->num_stripes <= a->stripes_max))
		return false;
	if ((f & BTRFS_BALANCE_ARGS_SOFT) && (f & BTRFS_BALANCE_ARGS_CONVERT) &&
	    btrfs_extended_profile(c->type) == a->target)
		return false;
	/* The count limit comes last: only chunks passing every other filter count. */
	if (f & BTRFS_BALANCE_ARGS_LIMIT) {
		if (a->limit == 0)
			return false;
		a->limit--;
	} else if (f & BTRFS_BALANCE_ARGS_LIMIT_RANGE) {
		if (a->limit_max == 0)
			return false;
		a->limit_max--;
	}
	return true;
}

bool btrfs_balance_reduces_redundancy(u64 from, u64 to)
{
	return btrfs_raid_profile_of(to)->tolerated_failures <
	       btrfs_raid_profile_of(from)->tolerated_failures;
}

/* Index order by descending logical address (the kernel walks the chunk tree backwards). */
static int cmp_desc_logical(const void *a, const void *b, void *arg)
{
	const struct btrfs_balance_chunk *chunks = arg;
	u64 la = chunks[*(const size_t *)a].logical, lb = chunks[*(const size_t *)b].logical;

	return la < lb ? 1 : la > lb ? -1 : 0;
}

size_t btrfs_balance_select_all(const struct btrfs_ioctl_balance_args *req,
				const struct btrfs_balance_chunk *chunks, size_t nr, bool *selected)
{
	struct btrfs_balance_selector sel;
	size_t count[3] = { 0 }, total = 0, *order;
	const struct btrfs_balance_args *kinds[3] = { &req->data, &req->meta, &req->sys };

	btrfs_balance_selector_init(&sel, req);
	order = calloc(nr ? nr : 1, sizeof(*order));
	for (size_t i = 0; i < nr; i++) {
		selected[i] = false;
		if (order)
			order[i] = i;
	}
	if (order)
		qsort_r(order, nr, sizeof(*order), cmp_desc_logical, (void *)chunks);
	for (size_t k = 0; k < nr; k++) {
		size_t i = order ? order[k] : nr - 1 - k;
		const struct btrfs_balance_args *a;

		if (!btrfs_balance_select_chunk(&sel, &chunks[i]))
			continue;
		selected[i] = true;
		a = btrfs_balance_args_for(&sel, chunks[i].type);
		count[a == &sel.data ? 0 : a == &sel.meta ? 1 : 2]++;
	}
	free(order);
	for (size_t i = 0; i < nr; i++) {
		const struct btrfs_balance_args *a;
		int kind;

		if (!selected[i])
			continue;
		a = btrfs_balance_args_for(&sel, chunks[i].type);
		kind = a == &sel.data ? 0 : a == &sel.meta ? 1 : 2;
		/* limit_min: too few matches of this type and the kernel moves none of them. */
		if ((kinds[kind]->flags & BTRFS_BALANCE_ARGS_LIMIT_RANGE) &&
		    count[kind] < kinds[kind]->limit_min) {
			selected[i] = false;
			continue;
		}
		total++;
	}
	return total;
}

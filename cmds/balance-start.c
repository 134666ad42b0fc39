// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs balance start: parse the filters, check a convert can fit before
 * anything moves, then let the kernel relocate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common/interrupt.h"
#include "common/auth-key.h"
#include "cmds/balance-run.h"
#include "balance/balance-online.h"
#include "balance/balance-plan.h"
#include "balance/offline.h"
#include "kernel-shared/read/ctree.h"
#include "kernel-shared/format/messages.h"

static const char *const cmd_balance_start_usage[] = {
	"btrfs balance start [options] <path>",
	"btrfs balance start [options] <device>...",
	"Relocate chunks: spread them over the devices or convert their profile",
	"",
	"Relocate (and with convert= change the profile of) the chunks that pass",
	"every filter given for their type; -d, -m and -s without filters take all",
	"chunks of that type, -m also applies to system chunks unless -s is given.",
	"With none of -d, -m, -s the whole filesystem is balanced, after a warning",
	"and a 10 second delay (skip it with --full-balance).",
	"",
	"Filters, comma separated: profiles=P1|P2, usage=N or usage=MIN..MAX (percent),",
	"devid=ID, drange=START..END (with devid), vrange=START..END, convert=PROFILE,",
	"soft (with convert: skip chunks that already have the target profile),",
	"limit=N or limit=MIN..MAX, stripes=MIN..MAX.",
	"",
	"Before a convert the chunk layout is checked: if the target profile cannot",
	"hold what will move (devices, unallocated space per device, the kernel's",
	"stripe placement) nothing is started, unless --force is given.",
	"",
	"Given the devices or image files of an unmounted filesystem (all of them,",
	"or some and the rest found by scanning), the convert runs offline: each",
	"chunk keeps its logical address and gets the new profile's layout, copied",
	"and verified, then switched by one commit (crash-safe; rerun to continue).",
	"Offline only convert= with soft, profiles, devid, drange, vrange, limit and",
	"stripes; usage= needs a mounted filesystem.  --dry-run prints the plan.",
	NULL
};

enum { OPT_FULL = OPT_LONG_BASE, OPT_BG, OPT_BACKGROUND, OPT_ENQUEUE, OPT_DRY_RUN };

static const char *filter_at(size_t i, char buf[64])
{
	return btrfs_balance_filter_name_at(i, buf);
}

static const struct cli_values filter_values = { .at = filter_at, .list = true };

static const struct cli_option balance_start_options[] = {
	OPT_OPTARG_VALUES('d', "data", "filters", "act on data chunks", filter_values),
	OPT_OPTARG_VALUES('m', "metadata", "filters", "act on metadata chunks (and system, unless -s)",
			  filter_values),
	OPT_OPTARG_VALUES('s', "system", "filters", "act on system chunks (needs -f)", filter_values),
	OPT_FLAG('f', "force", "allow -s, reducing metadata redundancy, and a convert the plan refuses"),
	OPT_FLAG('v', "verbose", "print the filters and the plan"),
	{ OPT_FULL, "full-balance", 0, NULL, "do not warn and wait before a full balance" },
	{ OPT_BACKGROUND, "background", 0, NULL, "run the balance in the background" },
	{ OPT_BG, "bg", 0, NULL, "same as --background" },
	{ OPT_ENQUEUE, "enqueue", 0, NULL, "wait until no other exclusive operation runs, then start" },
	{ OPT_DRY_RUN, "dry-run", 0, NULL, "offline: print the plan, write nothing" },
	OPT_END(),
};

static void full_balance_countdown(void)
{
	warning("a balance without filters relocates every chunk of the filesystem, which can\n"
		"\ttake hours.  Filters (-d, -m, -s with usage=, limit=, ...) narrow it down;\n"
		"\t--full-balance starts it without this pause.  Starting in 10 seconds,\n"
		"\tCtrl-C cancels.");
	for (int delay = 10; delay > 0; delay--) {
		printf("%2d", delay);
		fflush(stdout);
		sleep(1);
	}
	printf("\nStarting a full balance.\n");
	fflush(stdout);
}

static const char *profile_name(u64 flag)
{
	return btrfs_raid_profile_of(flag)->name;
}

static void print_dev_free(const struct btrfs_balance_plan *plan)
{
	char b1[32], b2[32];

	for (size_t d = 0; d < plan->nr_devs; d++)
		fprintf(stderr, "  devid %llu: %s unallocated of %s\n", plan->devs[d].devid,
			btrfs_balance_size_str(plan->dev_free ? plan->dev_free[d] : 0, b1, sizeof(b1)),
			btrfs_balance_size_str(plan->devs[d].total_bytes, b2, sizeof(b2)));
}

/* Explain why the plan refuses; to stderr. */
static void report_refusal(const struct btrfs_balance_plan *plan)
{
	const struct btrfs_plan_kind_report *r = &plan->kind[plan->fail_kind];
	const char *kind = btrfs_plan_kind_name(plan->fail_kind);
	const struct btrfs_raid_profile *p = btrfs_raid_profile_of(plan->fail_profile);
	char b1[32], b2[32], b3[32];

	if (plan->verdict == PLAN_TOO_FEW_DEVICES) {
		error("cannot convert %s to %s: it needs at least %u devices, the filesystem has %u",
		      kind, p->name, plan->devs_needed, plan->devs_usable);
	} else {
		error("cannot %s %s to %s: not enough unallocated space for %s",
		      r->converting ? "convert" : "relocate", kind, p->name, kind);
		fprintf(stderr, "  %s to move: %s in %llu chunks, %s on the devices as %s (%u %s)\n",
			kind, btrfs_balance_size_str(r->used, b1, sizeof(b1)), r->chunks,
			btrfs_balance_size_str(r->raw, b2, sizeof(b2)), p->name,
			p->nparity ? p->nparity : p->ncopies,
			p->nparity ? "parity" : (p->ncopies == 1 ? "copy" : "copies"));
		fprintf(stderr, "  unallocated before the balance: %s on %zu devices\n",
			btrfs_balance_size_str(plan->unallocated, b3, sizeof(b3)), plan->nr_devs);
		fprintf(stderr, "  after %llu of %llu chunks, %s of %s still has no room; %s needs %u devices with space, %u have some:\n",
			plan->fail_done, plan->selected, btrfs_balance_size_str(plan->fail_short, b1, sizeof(b1)),
			kind, p->name, p->devs_min, plan->devs_usable);
		print_dev_free(plan);
	}
	fprintf(stderr, "Nothing was relocated. Use --force (-f) to start the balance anyway.\n");
}

static void report_plan(const struct btrfs_balance_plan *plan)
{
	char b1[32], b2[32];

	printf("Plan: %llu chunks to relocate, %s unallocated\n", plan->selected,
	       btrfs_balance_size_str(plan->unallocated, b1, sizeof(b1)));
	for (int k = 0; k < PLAN_KINDS; k++) {
		const struct btrfs_plan_kind_report *r = &plan->kind[k];

		if (!r->involved)
			continue;
		printf("  %s: %llu chunks, %s used", btrfs_plan_kind_name(k), r->chunks,
		       btrfs_balance_size_str(r->used, b1, sizeof(b1)));
		if (r->converting)
			printf(", to %s: %s on the devices", profile_name(r->target),
			       btrfs_balance_size_str(r->raw, b2, sizeof(b2)));
		printf(", %llu new chunks\n", r->new_chunks);
	}
}

/*
 * Metadata or system chunks converted to a profile that survives fewer
 * device losses: refuse without force.
 */
static int check_redundancy(const struct btrfs_online_layout *ol, const struct btrfs_ioctl_balance_args *args,
			    const bool *selected)
{
	static const struct {
		u64 type;
		u64 flag;
		const char *name;
	} kinds[] = {
		{ BTRFS_BLOCK_GROUP_METADATA, BTRFS_BALANCE_METADATA, "metadata" },
		{ BTRFS_BLOCK_GROUP_SYSTEM, BTRFS_BALANCE_SYSTEM, "system" },
	};

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		const struct btrfs_balance_args *a = kinds[k].flag == BTRFS_BALANCE_METADATA ? &args->meta : &args->sys;

		if (!(args->flags & kinds[k].flag) || !(a->flags & BTRFS_BALANCE_ARGS_CONVERT))
			continue;
		for (size_t i = 0; i < ol->nr_chunks; i++) {
			const struct btrfs_balance_chunk *c = &ol->chunks[i];
			const struct btrfs_raid_profile *from, *to;

			if (!selected[i] || (c->type & BTRFS_BLOCK_GROUP_DATA) || !(c->type & kinds[k].type))
				continue;
			if (!btrfs_balance_reduces_redundancy(c->type, a->target))
				continue;
			from = btrfs_raid_profile_of(c->type);
			to = btrfs_raid_profile_of(a->target);
			error("converting %s from %s to %s reduces redundancy (survives %u lost devices instead of %u)",
			      kinds[k].name, from->name, to->name, to->tolerated_failures, from->tolerated_failures);
			fprintf(stderr, "Use --force (-f) if you want this.\n");
			return 1;
		}
	}
	return 0;
}

/* Read the layout, check redundancy and plan; 0 to go on, 1 refused or failed. */
static int plan_convert(int fd, const struct btrfs_ioctl_balance_args *args, bool force, bool verbose)
{
	struct btrfs_online_layout ol;
	struct btrfs_balance_plan plan;
	bool *selected;
	int ret;

	if (btrfs_online_read_layout(fd, &ol) < 0) {
		btrfs_online_layout_release(&ol);
		if (force)
			return 0;
		error("cannot read the chunk layout to plan the convert; use --force (-f) to start without a plan");
		return 1;
	}
	selected = calloc(ol.nr_chunks + 1, sizeof(*selected));
	if (!selected) {
		btrfs_online_layout_release(&ol);
		error("not enough memory");
		return 1;
	}
	btrfs_balance_select_all(args, ol.chunks, ol.nr_chunks, selected);
	ret = force ? 0 : check_redundancy(&ol, args, selected);
	free(selected);
	if (ret) {
		btrfs_online_layout_release(&ol);
		return ret;
	}
	if (btrfs_balance_plan(&ol.layout, args, &plan) < 0) {
		btrfs_online_layout_release(&ol);
		error("not enough memory to plan the balance");
		return 1;
	}
	if (verbose)
		report_plan(&plan);
	if (plan.verdict != PLAN_FITS) {
		if (force) {
			warning("the plan says the convert does not fit; starting anyway (--force)");
		} else {
			report_refusal(&plan);
			ret = 1;
		}
	}
	btrfs_balance_plan_release(&plan);
	btrfs_online_layout_release(&ol);
	return ret;
}

static bool converts(const struct btrfs_ioctl_balance_args *args)
{
	return ((args->flags & BTRFS_BALANCE_DATA) && (args->data.flags & BTRFS_BALANCE_ARGS_CONVERT)) ||
	       ((args->flags & BTRFS_BALANCE_METADATA) && (args->meta.flags & BTRFS_BALANCE_ARGS_CONVERT)) ||
	       ((args->flags & BTRFS_BALANCE_SYSTEM) && (args->sys.flags & BTRFS_BALANCE_ARGS_CONVERT));
}

/* The devices of an unmounted filesystem: refusals, plan, then the convert (or the plan only). */
static int balance_offline(struct btrfs_ioctl_balance_args *args, char **devices, int ndevices,
			   const char *auth_key, bool force, bool dry_run, bool verbose)
{
	struct btrfs_open_args oa = { .devices = devices, .ndevices = ndevices, .writable = !dry_run,
				      .primary_fallback = !dry_run };
	struct btrfs_fs_info *fs;
	struct offline_plan plan;
	int ret;

	if (!converts(args)) {
		error("offline balance only converts profiles (-dconvert=, -mconvert=, -sconvert=); to relocate chunks, mount the filesystem and balance the mount point");
		return 1;
	}
	ret = auth_open_fs(auth_key, &oa, &fs);
	if (ret < 0) {
		error("cannot open the filesystem on '%s'", devices[0]);
		return auth_open_exit_status(ret);
	}
	if (verbose)
		btrfs_balance_dump_args(stdout, args);
	if (offline_balance_refuse(fs, args, force) < 0) {
		btrfs_close_fs(fs);
		return 1;
	}
	if (offline_plan_build(fs, args, &plan) < 0) {
		error("not enough memory to plan the balance");
		btrfs_close_fs(fs);
		return 1;
	}
	if (dry_run || verbose)
		offline_plan_print(stdout, &plan);
	if (!plan.fits) {
		offline_plan_print_refusal(&plan);
		ret = 1;
	} else if (dry_run) {
		ret = 0;
	} else {
		const volatile sig_atomic_t *stop = interrupt_catch();

		ret = offline_convert(fs, &plan, stdout, stop) < 0 ? 1 : 0;
		interrupt_release();
	}
	offline_plan_release(&plan);
	btrfs_close_fs(fs);
	return ret;
}

/* --background: the parent returns at once, the child detaches and runs. */
static int run_in_background(int fd, const char *path, struct btrfs_ioctl_balance_args *args)
{
	pid_t pid;
	int null;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		error_errno(errno, "cannot fork for --background");
		return 1;
	}
	if (pid > 0) {
		waitpid(pid, NULL, 0);      /* the first child exits at once */
		return 0;
	}
	setsid();
	if (fork() > 0)
		_exit(0);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (chdir("/") < 0) {
		/* nothing to report to: stderr is /dev/null now */
	}
	_exit(balance_run(fd, path, args));
}

static int cmd_balance_start(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	struct btrfs_ioctl_balance_args args;
	struct cli_getopt_state st = { 0 };
	bool force = false, full = false, background = false, enqueue = false, filters = false;
	bool converting = false, dry_run = false, offline = false;
	int verbose = ctx->verbose;
	int c, fd, ret;
	const char *path;

	memset(&args, 0, sizeof(args));
	while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) {
		switch (c) {
		case 'd':
			filters = true;
			args.flags |= BTRFS_BALANCE_DATA;
			if (btrfs_balance_parse_filters(st.optarg, &args.data))
				return 1;
			break;
		case 'm':
			filters = true;
			args.flags |= BTRFS_BALANCE_METADATA;
			if (btrfs_balance_parse_filters(st.optarg, &args.meta))
				return 1;
			break;
		case 's':
			filters = true;
			args.flags |= BTRFS_BALANCE_SYSTEM;
			if (btrfs_balance_parse_filters(st.optarg, &args.sys))
				return 1;
			break;
		case 'f':
			force = true;
			break;
		case 'v':
			verbose++;
			break;
		case OPT_FULL:
			full = true;
			break;
		case OPT_BG:
		case OPT_BACKGROUND:
			background = true;
			break;
		case OPT_ENQUEUE:
			enqueue = true;
			break;
		case OPT_DRY_RUN:
			dry_run = true;
			break;
		case CLI_OPT_HELP:
			return usage_print(cmd, stdout, true);
		default:
			return 1;
		}
	}
	if (argc - st.optind >= 1 && btrfs_balance_is_unmounted_btrfs(argv[st.optind]))
		offline = true;
	if (!offline && check_argc_exact(cmd, argc - st.optind, 1))
		return 1;
	if (!offline && dry_run)
		return usage_error(cmd, "--dry-run is for unmounted devices (offline balance)");
	path = argv[st.optind];

	/* System chunks only on explicit request with force; else as metadata. */
	if (args.flags & BTRFS_BALANCE_SYSTEM) {
		if (!force) {
			error("-s balances the system chunks, which hold the chunk tree: it needs --force");
			return 1;
		}
	} else if (args.flags & BTRFS_BALANCE_METADATA) {
		args.flags |= BTRFS_BALANCE_SYSTEM;
		args.sys = args.meta;
	}
	if (!(args.flags & BTRFS_BALANCE_TYPE_MASK))
		args.flags |= BTRFS_BALANCE_TYPE_MASK;
	if (btrfs_balance_check_args(&args.data) || btrfs_balance_check_args(&args.meta) ||
	    btrfs_balance_check_args(&args.sys))
		return 1;
	if (force)
		args.flags |= BTRFS_BALANCE_FORCE;
	converting = converts(&args);
	if (offline)
		return balance_offline(&args, argv + st.optind, argc - st.optind, ctx->auth_key, force,
				       dry_run, verbose);

	fd = btrfs_balance_open_mount(path);
	if (fd < 0)
		return 1;
	if (verbose)
		btrfs_balance_dump_args(stdout, &args);
	if (converting && plan_convert(fd, &args, force, verbose)) {
		close(fd);
		return 1;
	}
	if (!filters && !full)
		full_balance_countdown();
	if (enqueue) {
		char what[64];
		bool said = false;

		while (balance_exclusive_busy(fd, what, sizeof(what))) {
			if (!said)
				printf("Waiting for the exclusive operation '%s' to finish\n", what);
			said = true;
			fflush(stdout);
			sleep(1);
		}
	}
	if (background)
		ret = run_in_background(fd, path, &args);
	else
		ret = balance_run(fd, path, &args);
	close(fd);
	return ret;
}
DEFINE_COMMAND(balance_start, "start", balance_start_options, 0);

// SPDX-License-Identifier: GPL-2.0
/*
 * The btrfs binary: global options, then dispatch through the command tree.
 * Also answers to mkfs.btrfs, btrfs-image and fsck.btrfs by argv[0].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include "cmds/commands.h"
#include "common/completion.h"
#include "kernel-shared/format/messages.h"

/* Commands reached by program name, busybox style. */
static const struct completion_alias argv0_aliases[] = {
	{ "mkfs.btrfs", "mkfs" },
	{ "btrfs-image", "image" },
	{ "fsck.btrfs", "check" },
	{ "btrfsck", "check" },
};

/* Parse global options (the table of cmd_struct_btrfs) into ctx; returns the index of the group token, or -1 on error. */
static int parse_global_options(int argc, char **argv, struct cli_ctx *ctx, bool *done)
{
	struct cli_getopt_state st = { 0 };
	int c;

	*done = false;
	while ((c = cli_getopt(&cmd_struct_btrfs, argc, argv, &st)) != -1) {
		switch (c) {
		case BTRFS_OPT_FORMAT:
			if (output_format_by_name(st.optarg) < 0) {
				error("unrecognized output format: %s", st.optarg);
				return -1;
			}
			ctx->format = output_format_by_name(st.optarg);
			break;
		case BTRFS_OPT_AUTH_KEY:
			if (!*st.optarg) {
				error("--auth-key needs a key name");
				return -1;
			}
			ctx->auth_key = st.optarg;
			break;
		case 'v':
			ctx->verbose++;
			break;
		case 'q':
			ctx->quiet = true;
			break;
		case BTRFS_OPT_VERSION:
			printf("%s v%s\n%s\n", PACKAGE_NAME, PACKAGE_VERSION, btrfs_build_features());
			*done = true;
			return 0;
		case BTRFS_OPT_GENERATE_COMPLETION:
			/* hidden: the build makes the installed completion script with it */
			if (strcmp(st.optarg, "bash")) {
				error("completion for shell '%s' is not available (only bash)", st.optarg);
				return -1;
			}
			completion_print_bash(&cmd_struct_btrfs, argv0_aliases, ARRAY_SIZE(argv0_aliases), stdout);
			*done = true;
			return 0;
		case CLI_OPT_HELP:
			group_print_help(&cmd_struct_btrfs, stdout, false);
			*done = true;
			return 0;
		default:
			return -1;
		}
	}
	return st.optind;
}


/*
 * fsck(8) at boot runs "fsck.btrfs -a DEV" (or -p, -y): btrfs needs no boot-time check (the
 * kernel verifies checksums and the tree-checker rules as it reads), and a full check
 * of a mounted root would be wrong, so these modes do nothing and succeed.
 */
static bool fsck_auto_mode(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "-p") || !strcmp(argv[i], "-y") ||
		    !strcmp(argv[i], "-A")) {
			fprintf(stderr, "fsck.btrfs: nothing to do in automatic mode: btrfs verifies its metadata as it reads; run 'btrfs check' on the unmounted device\n");
			return true;
		}
	return false;
}

static int run(int argc, char **argv, struct cli_ctx *ctx)
{
	char *base = basename(argv[0]);
	bool done;
	int idx;

	ctx->prog = "btrfs";
	for (size_t i = 0; i < ARRAY_SIZE(argv0_aliases); i++) {
		const struct cmd_struct *cmd;

		if (strcmp(base, argv0_aliases[i].prog))
			continue;
		ctx->prog = argv0_aliases[i].prog;
		cmd = cmd_lookup(btrfs_top_group(), argv0_aliases[i].command, false);
		if (!cmd || strcmp(cmd->token, argv0_aliases[i].command)) {
			error("%s is not available in this build", base);
			return 1;
		}
		if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
			return usage_print(cmd, stdout, true);
		if (!strcmp(base, "fsck.btrfs") && fsck_auto_mode(argc, argv))
			return 0;
		if (argc > 1 && !strcmp(argv[1], "--version")) {
			printf("%s, part of %s v%s\n", base, PACKAGE_NAME, PACKAGE_VERSION);
			return 0;
		}
		return cmd->fn(cmd, ctx, argc, argv);
	}

	idx = parse_global_options(argc, argv, ctx, &done);
	if (idx < 0)
		return 1;
	if (done)
		return 0;
	if (idx >= argc) {
		group_print_help(&cmd_struct_btrfs, stderr, false);
		return 1;
	}
	/* "btrfs [opts] group ..." is the top group with argv shifted to the group token. */
	return handle_command_group(&cmd_struct_btrfs, ctx, argc - idx + 1, argv + idx - 1);
}

int main(int argc, char **argv)
{
	struct cli_ctx ctx = { 0 };
	int ret;

	ret = run(argc, argv, &ctx);
	/* Like git: a write error on stdout (full disk, closed pipe) is a failure. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "ERROR: write to standard output failed: %s\n", strerror(errno));
		if (!ret)
			ret = 1;
	}
	return ret;
}

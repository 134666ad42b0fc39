// SPDX-License-Identifier: GPL-2.0
/*
 * The btrfs binary: global options, then dispatch through the command tree.
 * Also answers to mkfs.btrfs, btrfs-image and fsck.btrfs by argv[0].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <getopt.h>
#include "cmds/commands.h"
#include "lib/format/messages.h"

enum { OPT_FORMAT = 256, OPT_AUTH_KEY, OPT_VERSION, OPT_HELP };

/* Parse global options into ctx; returns the index of the group token, or -1 on error. */
static int parse_global_options(int argc, char **argv, struct cli_ctx *ctx, bool *done)
{
	static const struct option long_options[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "auth-key", required_argument, NULL, OPT_AUTH_KEY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*done = false;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+vqh", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				ctx->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "json"))
				ctx->format = FORMAT_JSON;
			else {
				error("unrecognized output format: %s", optarg);
				return -1;
			}
			break;
		case OPT_AUTH_KEY:
			if (!*optarg) {
				error("--auth-key needs a key name");
				return -1;
			}
			ctx->auth_key = optarg;
			break;
		case 'v':
			ctx->verbose++;
			break;
		case 'q':
			ctx->quiet = true;
			break;
		case OPT_VERSION:
			printf("%s v%s\n%s\n", PACKAGE_NAME, PACKAGE_VERSION, btrfs_build_features());
			*done = true;
			return 0;
		case 'h':
		case OPT_HELP:
			group_print_help(&cmd_struct_btrfs, stdout, false);
			*done = true;
			return 0;
		default:
			error("unknown global option: %s", argv[optind - 1]);
			group_print_help(&cmd_struct_btrfs, stderr, false);
			return -1;
		}
	}
	return optind;
}

/* Commands reached by program name, busybox style. */
static const struct {
	const char *prog;
	const char *command;
} argv0_aliases[] = {
	{ "mkfs.btrfs", "mkfs" },
	{ "btrfs-image", "image" },
	{ "fsck.btrfs", "check" },
	{ "btrfsck", "check" },
};

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

// SPDX-License-Identifier: GPL-2.0
/* The command tree: sorted, unique tokens, usage for every command; option parsing. */
#include "tests/unit/unit.h"
#include "cmds/commands.h"

static void check_group(const struct cmd_group *grp, const char *where)
{
	for (int i = 0; grp->commands[i]; i++) {
		const struct cmd_struct *c = grp->commands[i];

		CHECK(c->token && *c->token);
		CHECK(c->usagestr && c->usagestr[0]);
		if (grp->commands[i + 1] && strcmp(c->token, grp->commands[i + 1]->token) >= 0) {
			fprintf(stderr, "%s: '%s' and '%s' not sorted or duplicate\n", where,
				c->token, grp->commands[i + 1]->token);
			CHECK(0);
		}
		if (c->next)
			check_group(c->next, c->token);
	}
}

static void test_tables_sorted(void)
{
	check_group(btrfs_top_group(), "btrfs");
}

static void test_prefix_lookup(void)
{
	CHECK(cmd_lookup(btrfs_top_group(), "version", false) == &cmd_struct_version);
	CHECK(cmd_lookup(btrfs_top_group(), "vers", false) == &cmd_struct_version);
	CHECK(cmd_lookup(btrfs_top_group(), "no-such-command", false) == NULL);
}

static int dummy(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	return 0;
}

static void test_getopt(void)
{
	static const char *const usage[] = { "btrfs test [options] arg", "test", NULL };
	static const struct cli_option opts[] = {
		OPT_FLAG('f', "full", "full"),
		OPT_ARG('s', "super", "N", "copy"),
		{ OPT_LONG_BASE + 1, "bytenr", 1, "N", "bytenr" },
		OPT_OPTARG('d', NULL, "FILTERS", "filters"),
		OPT_END(),
	};
	const struct cmd_struct cmd = { .token = "test", .fn = dummy, .usagestr = usage, .options = opts };
	char *argv[] = { "test", "-f", "--super", "2", "--bytenr=65536", "-dusage=5", "dev", NULL };
	struct cli_getopt_state st = { 0 };
	int c, seen = 0;

	while ((c = cli_getopt(&cmd, 7, argv, &st)) != -1) {
		switch (c) {
		case 'f': seen |= 1; break;
		case 's': CHECK_STR(st.optarg, "2"); seen |= 2; break;
		case OPT_LONG_BASE + 1: CHECK_STR(st.optarg, "65536"); seen |= 4; break;
		case 'd': CHECK_STR(st.optarg, "usage=5"); seen |= 8; break;
		default: CHECK(0);
		}
	}
	CHECK_EQ_U64(seen, 15);
	CHECK_EQ_U64(st.optind, 6);
	CHECK_STR(argv[st.optind], "dev");
}

static void test_parse_size(void)
{
	u64 v;

	CHECK(parse_size("16k", &v) == 0 && v == 16384);
	CHECK(parse_size("1G", &v) == 0 && v == SZ_1G);
	CHECK(parse_size("300MiB", &v) == 0 && v == 300 * SZ_1M);
	CHECK(parse_size("12", &v) == 0 && v == 12);
	CHECK(parse_size("", &v) == -EINVAL);
	CHECK(parse_size("-1", &v) == -EINVAL);
	CHECK(parse_size("5q", &v) == -EINVAL);
	CHECK(parse_size("99999999999999999E", &v) == -ERANGE);
	CHECK(parse_u64("0x10", &v) == 0 && v == 16);
	CHECK(parse_u64("10x", &v) == -EINVAL);
}

int main(void)
{
	RUN(test_tables_sorted);
	RUN(test_prefix_lookup);
	RUN(test_getopt);
	RUN(test_parse_size);
	return unit_done();
}

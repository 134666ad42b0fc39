/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarative option tables, git parse-options style: one table feeds both
 * getopt_long and the help printer.
 *
 *   static const struct cli_option opts[] = {
 *       OPT_FLAG('f', "full", "print full superblock"),
 *       OPT_ARG('s', "super", "N", "use superblock copy N"),
 *       OPT_LONG_ARG(OPT_BYTENR, "bytenr", "N", "read the superblock at N"),
 *       OPT_END(),
 *   };
 *   while ((c = cli_getopt(cmd, argc, argv, &st)) != -1) { switch (c) ... }
 *
 * cli_getopt returns the short character (or the long-only value), -1 when
 * the options end, and CLI_OPT_HELP for -h/--help; on an unknown option or a
 * missing argument it prints the error and usage and returns CLI_OPT_ERROR,
 * which the command turns into "return 1".
 */
#ifndef BTRFS_KIT_OPTIONS_H
#define BTRFS_KIT_OPTIONS_H

#include <getopt.h>
#include "common/command.h"

/*
 * The fixed set of values an option takes, read from the table its parser uses (shell
 * completion lists them): at(i, buf) is the i-th value (it may format it into buf), NULL
 * past the last; list: a comma separated list of them ("-O a,^b", balance filters).
 */
struct cli_values {
	const char *(*at)(size_t i, char buf[64]);
	const char *const *names;   /* or, without at: the values themselves, NULL-terminated */
	bool list;
};

/* The i-th value of v (through at or names), NULL past the last. */
const char *cli_value_at(const struct cli_values *v, size_t i, char buf[64]);
/* Index of s among the values of v (exact match), -1 when it is none of them. */
int cli_value_index(const struct cli_values *v, const char *s);

struct cli_option {
	int val;               /* short option char, or >= OPT_LONG_BASE for long-only */
	const char *long_name; /* may be NULL */
	int has_arg;           /* 0 none, 1 required, 2 optional (attached: -dFILTERS) */
	const char *argname;   /* for help, e.g. "N" */
	const char *help;      /* NULL hides the option from help (and from completion) */
	const struct cli_values *values; /* NULL: any value (completion offers file names) */
};

#define OPT_LONG_BASE 256
#define CLI_OPT_HELP (-2)
#define CLI_OPT_ERROR (-3)

#define OPT_FLAG(s, l, h)        { (s), (l), 0, NULL, (h) }
#define OPT_ARG(s, l, a, h)      { (s), (l), 1, (a), (h) }
#define OPT_OPTARG(s, l, a, h)   { (s), (l), 2, (a), (h) }
#define OPT_END()                { 0, NULL, 0, NULL, NULL }
/* An option whose value is one of a fixed set (v: a struct cli_values). */
#define OPT_ARG_VALUES(s, l, a, h, v)    { (s), (l), 1, (a), (h), &(v) }
#define OPT_OPTARG_VALUES(s, l, a, h, v) { (s), (l), 2, (a), (h), &(v) }

#define CLI_MAX_OPTIONS 64

struct cli_getopt_state {
	char *optarg;
	int optind;           /* index of the first positional argument when done */
	bool started;
	char shortopts[3 * CLI_MAX_OPTIONS + 4];
	struct option longopts[CLI_MAX_OPTIONS + 2];
};

int cli_getopt(const struct cmd_struct *cmd, int argc, char **argv, struct cli_getopt_state *st);

/* The block group profiles, checksum types and compression names as value sets. */
extern const struct cli_values cli_profile_values, cli_csum_values, cli_compress_values;
/* The output formats of --format (common/command.c). */
extern const struct cli_values cli_format_values;

/* Print the option table as aligned help lines. */
void options_print_help(const struct cli_option *opts, FILE *out);

/* Parse a size with optional K/M/G/T/P/E suffix (binary); 0 on success. */
int parse_size(const char *s, u64 *out);
/* Parse an unsigned decimal/hex/octal integer, whole string; 0 on success. */
int parse_u64(const char *s, u64 *out);

#endif

// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <getopt.h>
#include <ctype.h>
#include <string.h>
#include "common/options.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/profiles.h"
#include "kernel-shared/format/csum.h"
#include "kernel-shared/format/compress.h"

static const char *profile_at(size_t i, char buf[64])
{
	return btrfs_raid_profile_name_at(i);
}

static const char *csum_at(size_t i, char buf[64])
{
	return btrfs_csum_name_at(i);
}

static const char *compress_at(size_t i, char buf[64])
{
	return btrfs_compress_name_at(i);
}

const struct cli_values cli_profile_values = { .at = profile_at };
const struct cli_values cli_csum_values = { .at = csum_at };
const struct cli_values cli_compress_values = { .at = compress_at };

const char *cli_value_at(const struct cli_values *v, size_t i, char buf[64])
{
	if (v->at)
		return v->at(i, buf);
	for (size_t k = 0; k < i; k++)
		if (!v->names[k])
			return NULL;
	return v->names[i];
}

int cli_value_index(const struct cli_values *v, const char *s)
{
	char buf[64];
	const char *name;

	for (size_t i = 0; (name = cli_value_at(v, i, buf)); i++)
		if (!strcmp(name, s))
			return (int)i;
	return -1;
}

/* Build the getopt_long tables from the command's option table. */
static int build_tables(const struct cli_option *opts, struct cli_getopt_state *st)
{
	char *s = st->shortopts;
	int n = 0;

	*s++ = '+';  /* stop at the first positional argument */
	*s++ = 'h';
	for (const struct cli_option *o = opts; o && (o->val || o->long_name); o++) {
		if (n >= CLI_MAX_OPTIONS)
			return -E2BIG;
		if (o->val > 0 && o->val < OPT_LONG_BASE) {
			*s++ = (char)o->val;
			if (o->has_arg == 1)
				*s++ = ':';
			else if (o->has_arg == 2) {
				*s++ = ':';
				*s++ = ':';
			}
		}
		if (o->long_name) {
			st->longopts[n].name = o->long_name;
			st->longopts[n].has_arg = o->has_arg == 1 ? required_argument :
				o->has_arg == 2 ? optional_argument : no_argument;
			st->longopts[n].flag = NULL;
			st->longopts[n].val = o->val;
			n++;
		}
	}
	*s = 0;
	st->longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	st->longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

int cli_getopt(const struct cmd_struct *cmd, int argc, char **argv, struct cli_getopt_state *st)
{
	int c;

	if (!st->started) {
		if (build_tables(cmd->options, st) < 0) {
			error("too many options in the table of '%s'", cmd->token);
			return CLI_OPT_ERROR;
		}
		st->started = true;
		optind = 0;     /* full getopt reset, each command parses afresh */
		opterr = 0;
	}
	c = getopt_long(argc, argv, st->shortopts, st->longopts, NULL);
	st->optarg = optarg;
	st->optind = optind;
	if (c == -1)
		return -1;
	if (c == 'h')
		return CLI_OPT_HELP;
	if (c == '?' || c == ':') {
		const char *bad = argv[optind - 1];

		if (optopt && optopt < OPT_LONG_BASE && c == '?' && bad && bad[0] == '-' && bad[1] != '-')
			error("invalid option -- '%c'", optopt);
		else if (optopt && c == '?' && bad && bad[1] != '-')
			error("option requires an argument -- '%c'", optopt);
		else
			error("unrecognized option or missing argument '%s'", bad ? bad : "?");
		usage_print(cmd, stderr, false);
		fprintf(stderr, "Try '--help' for more information.\n");
		return CLI_OPT_ERROR;
	}
	return c;
}

void options_print_help(const struct cli_option *opts, FILE *out)
{
	for (const struct cli_option *o = opts; o && (o->val || o->long_name); o++) {
		char left[96];
		int n = 0;

		if (!o->help)
			continue;
		if (o->val > 0 && o->val < OPT_LONG_BASE)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s", o->val, o->long_name ? "|" : "");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s", o->long_name);
		if (o->argname && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - n, o->has_arg == 2 ? "[%s]" : " %s", o->argname);
		if (strlen(left) > 24)
			fprintf(out, "    %s\n    %-24s %s\n", left, "", o->help);
		else
			fprintf(out, "    %-24s %s\n", left, o->help);
	}
}

int parse_u64(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		case 't': shift = 40; break;
		case 'p': shift = 50; break;
		case 'e': shift = 60; break;
		default: return -EINVAL;
		}
		end++;
		/* accept KiB / KB spellings too */
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (shift && v > (~0ULL >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

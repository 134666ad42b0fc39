// SPDX-License-Identifier: GPL-2.0
/* Command dispatch: prefix matching, group handling and usage output. */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include "common/command.h"
#include "common/options.h"
#include "kernel-shared/format/messages.h"

static bool is_synopsis(const char *line)
{
	static const char *const progs[] = { "btrfs ", "btrfs\0", "mkfs.btrfs", "fsck.btrfs" };

	for (size_t i = 0; i < ARRAY_SIZE(progs); i++)
		if (!strncmp(line, progs[i], strlen(progs[i])))
			return true;
	return false;
}

int usage_print(const struct cmd_struct *cmd, FILE *out, bool full)
{
	const char *const *u = cmd->usagestr;

	if (!u || !*u)
		return 0;
	fprintf(out, "usage: %s\n", *u++);
	while (*u && **u && is_synopsis(*u))
		fprintf(out, "   or: %s\n", *u++);
	if (*u && **u)
		fprintf(out, "\n    %s\n", *u++);
	if (!full)
		return 0;
	for (; *u; u++) {
		if (**u)
			fprintf(out, "    %s\n", *u);
		else
			fputc('\n', out);
	}
	if (cmd->options) {
		fputc('\n', out);
		options_print_help(cmd->options, out);
	}
	return 0;
}

int usage_error(const struct cmd_struct *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	usage_print(cmd, stderr, false);
	return 1;
}

int check_argc_exact(const struct cmd_struct *cmd, int nargs, int expected)
{
	if (nargs < expected)
		return usage_error(cmd, "not enough arguments: %d but %d expected", nargs, expected);
	if (nargs > expected)
		return usage_error(cmd, "too many arguments: %d but %d expected", nargs, expected);
	return 0;
}

int check_argc_min(const struct cmd_struct *cmd, int nargs, int expected)
{
	if (nargs < expected)
		return usage_error(cmd, "not enough arguments: %d but at least %d expected", nargs, expected);
	return 0;
}

int check_argc_max(const struct cmd_struct *cmd, int nargs, int expected)
{
	if (nargs > expected)
		return usage_error(cmd, "too many arguments: %d but at most %d expected", nargs, expected);
	return 0;
}

static const char *const output_format_names[] = {
	[FORMAT_TEXT] = "text",
	[FORMAT_JSON] = "json",
};

int output_format_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(output_format_names); i++)
		if (!strcmp(name, output_format_names[i]))
			return (int)i;
	return -1;
}

static const char *output_format_at(size_t i, char buf[64])
{
	return i < ARRAY_SIZE(output_format_names) ? output_format_names[i] : NULL;
}

const struct cli_values cli_format_values = { .at = output_format_at };

int cmd_check_format(const struct cmd_struct *cmd, const struct cli_ctx *ctx)
{
	if (ctx->format == FORMAT_JSON && !(cmd->flags & CMD_FORMAT_JSON)) {
		error("output format json is not supported by '%s'", cmd->token);
		return 1;
	}
	return 0;
}

const struct cmd_struct *cmd_lookup(const struct cmd_group *grp, const char *token, bool report)
{
	const struct cmd_struct *found = NULL;
	size_t len = strlen(token);
	int matches = 0;

	for (int i = 0; grp->commands[i]; i++) {
		const struct cmd_struct *c = grp->commands[i];

		if (!strcmp(c->token, token))
			return c;
		if (!strncmp(c->token, token, len)) {
			found = c;
			matches++;
		}
	}
	if (matches == 1)
		return found;
	if (!report)
		return NULL;
	if (matches == 0) {
		fprintf(stderr, "btrfs: unknown token '%s'\n", token);
		return NULL;
	}
	fprintf(stderr, "btrfs: ambiguous token '%s'\n\nDid you mean one of these ?\n", token);
	for (int i = 0; grp->commands[i]; i++)
		if (!strncmp(grp->commands[i]->token, token, len))
			fprintf(stderr, "\t%s\n", grp->commands[i]->token);
	return NULL;
}

static void list_commands(const struct cmd_group *grp, FILE *out, bool full)
{
	for (int i = 0; grp->commands[i]; i++) {
		const struct cmd_struct *c = grp->commands[i];
		const char *const *u = c->usagestr;

		if (c->flags & CMD_HIDDEN)
			continue;
		if (c->next) {
			if (full) {
				list_commands(c->next, out, full);
				continue;
			}
		}
		if (!u || !*u)
			continue;
		fprintf(out, "    %s\n", *u++);
		while (*u && **u && is_synopsis(*u))
			fprintf(out, "    %s\n", *u++);
		if (*u && **u)
			fprintf(out, "        %s\n", *u);
		fputc('\n', out);
	}
}

void group_print_help(const struct cmd_struct *grp_cmd, FILE *out, bool full)
{
	const struct cmd_group *grp = grp_cmd->next;
	const char *const *u = grp->usagestr;

	if (u && *u) {
		fprintf(out, "usage: %s\n", *u++);
		for (; *u; u++)
			fprintf(out, "   or: %s\n", *u);
	}
	fputc('\n', out);
	list_commands(grp, out, full);
	if (grp->infostr)
		fprintf(out, "%s\n", grp->infostr);
	if (grp_cmd->options)
		options_print_help(grp_cmd->options, out);
}

int handle_command_group(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cmd_group *grp = cmd->next;
	const struct cmd_struct *sub;

	if (argc < 2) {
		group_print_help(cmd, stderr, false);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		group_print_help(cmd, stdout, argc > 2 && !strcmp(argv[2], "--full"));
		return 0;
	}
	sub = cmd_lookup(grp, argv[1], true);
	if (!sub) {
		fputc('\n', stderr);
		group_print_help(cmd, stderr, false);
		return 1;
	}
	if (!sub->next) {
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			usage_print(sub, stdout, true);
			return 0;
		}
		if (cmd_check_format(sub, ctx))
			return 1;
	}
	return sub->fn(sub, ctx, argc - 1, argv + 1);
}

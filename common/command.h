/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command tree.  One node type serves commands and groups: a command has
 * fn and usage, a group has next.  Tables live in cmds/; dispatch, prefix
 * matching and help printing live here.
 *
 * Usage arrays are NULL-terminated string arrays of a fixed shape:
 *   [0]   synopsis ("btrfs inspect-internal dump-super [options] device")
 *   [1..] more synopsis lines, each starting with the program name, optional
 *   next  one-line summary
 *   then  "" and free description lines (printed with --help only)
 * Options are described by a struct cli_option table, which also drives the
 * parser (cli_getopt), so help and parsing cannot drift.
 */
#ifndef BTRFS_KIT_COMMAND_H
#define BTRFS_KIT_COMMAND_H

#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"

enum output_format {
	FORMAT_TEXT = 0,
	FORMAT_JSON = 1,
};

/* The only process state: built by main() and handed to every command. */
struct cli_ctx {
	int verbose;                  /* -v count, 0 by default */
	bool quiet;                   /* -q */
	enum output_format format;    /* --format */
	const char *auth_key;         /* --auth-key NAME (a keyring key name) */
	const char *prog;             /* "btrfs", "mkfs.btrfs", ... as invoked */
};

struct cmd_struct;
typedef int (*cmd_fn)(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv);

struct cli_option;

#define CMD_HIDDEN      (1U << 0)   /* not listed in help */
#define CMD_FORMAT_JSON (1U << 1)   /* accepts --format json */
#define CMD_ALIAS       (1U << 2)   /* listed under another name too */

struct cmd_group;

struct cmd_struct {
	const char *token;
	cmd_fn fn;
	const char *const *usagestr;
	const struct cli_option *options;    /* may be NULL */
	const struct cmd_group *next;        /* non-NULL for a group */
	unsigned int flags;
};

struct cmd_group {
	const char *const *usagestr;
	const char *infostr;
	const struct cmd_struct *const commands[];  /* NULL-terminated */
};

/*
 * DEFINE_COMMAND(inspect_dump_super, "dump-super", opts, flags) expects
 * cmd_inspect_dump_super() and cmd_inspect_dump_super_usage[].
 */
#define DEFINE_COMMAND(name, tok, opts, fl)                                  \
	const struct cmd_struct cmd_struct_##name = {                         \
		.token = tok, .fn = cmd_##name, .usagestr = cmd_##name##_usage, \
		.options = opts, .flags = fl }
#define DEFINE_GROUP_COMMAND(name, tok)                                      \
	const struct cmd_struct cmd_struct_##name = {                         \
		.token = tok, .fn = handle_command_group,                      \
		.usagestr = name##_cmd_group_usage, .next = &name##_cmd_group }

int handle_command_group(const struct cmd_struct *cmd, struct cli_ctx *ctx, int argc, char **argv);

/* Find argv token among the group's commands: exact, then unique prefix. */
const struct cmd_struct *cmd_lookup(const struct cmd_group *grp, const char *token, bool report);

/* Print usage; full adds the description and options.  Returns 0. */
int usage_print(const struct cmd_struct *cmd, FILE *out, bool full);
/* Print "ERROR: <msg>" and the short usage to stderr; returns 1 (usage exit code). */
int usage_error(const struct cmd_struct *cmd, const char *fmt, ...) __printf(2, 3);
/* Usage errors for positional argument counts: 0 when fine, 1 after printing. */
int check_argc_exact(const struct cmd_struct *cmd, int nargs, int expected);
int check_argc_min(const struct cmd_struct *cmd, int nargs, int expected);
int check_argc_max(const struct cmd_struct *cmd, int nargs, int expected);

/* FORMAT_TEXT or FORMAT_JSON by name ("text", "json"), -1 for another name. */
int output_format_by_name(const char *name);

/* Refuse --format json for commands that do not declare CMD_FORMAT_JSON. */
int cmd_check_format(const struct cmd_struct *cmd, const struct cli_ctx *ctx);

void group_print_help(const struct cmd_struct *grp_cmd, FILE *out, bool full);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The bash completion script: data (subcommands, options, the options that take a
 * separate argument, value sets) as associative arrays keyed by command path
 * ("btrfs balance start"), then one fixed function that walks COMP_WORDS through them.
 */
#include <stdio.h>
#include <string.h>
#include "common/completion.h"
#include "common/options.h"

/* "-d --data" of one option (none for a hidden one). */
static void print_words(const struct cli_option *o, FILE *out, const char **sep)
{
	if (o->val > 0 && o->val < OPT_LONG_BASE) {
		fprintf(out, "%s-%c", *sep, o->val);
		*sep = " ";
	}
	if (o->long_name) {
		fprintf(out, "%s--%s", *sep, o->long_name);
		*sep = " ";
	}
}

static bool visible(const struct cli_option *o)
{
	return (o->val || o->long_name) && o->help;
}

static void print_values(const char *path, const struct cli_option *o, FILE *out)
{
	const char *names[2] = { NULL, NULL };
	char key[16];
	int n = 0;

	if (o->val > 0 && o->val < OPT_LONG_BASE) {
		snprintf(key, sizeof(key), "-%c", o->val);
		names[n++] = key;
	}
	if (o->long_name)
		names[n++] = o->long_name;
	for (int k = 0; k < n; k++) {
		const char *sep = "";
		char buf[64];

		fprintf(out, "_btrfs_kit_vals['%s %s%s']='", path, names[k] == key ? "" : "--", names[k]);
		for (size_t i = 0; cli_value_at(o->values, i, buf); i++) {
			fprintf(out, "%s%s", sep, cli_value_at(o->values, i, buf));
			sep = " ";
		}
		fputs("'\n", out);
		if (o->values->list)
			fprintf(out, "_btrfs_kit_lists['%s %s%s']=1\n", path, names[k] == key ? "" : "--",
				names[k]);
		/* an optional argument is attached: -dusage=5 */
		if (o->has_arg == 2 && names[k] == key)
			fprintf(out, "_btrfs_kit_attached['%s']+=' %s'\n", path, key);
	}
}

static void print_node(const struct cmd_struct *cmd, const char *path, FILE *out)
{
	const char *sep = "";

	if (cmd->next) {
		fprintf(out, "_btrfs_kit_sub['%s']='", path);
		for (int i = 0; cmd->next->commands[i]; i++) {
			if (cmd->next->commands[i]->flags & CMD_HIDDEN)
				continue;
			fprintf(out, "%s%s", sep, cmd->next->commands[i]->token);
			sep = " ";
		}
		fputs("'\n", out);
	}
	sep = "";
	fprintf(out, "_btrfs_kit_opts['%s']='", path);
	for (const struct cli_option *o = cmd->options; o && (o->val || o->long_name); o++)
		if (visible(o))
			print_words(o, out, &sep);
	fputs("'\n", out);
	sep = "";
	fprintf(out, "_btrfs_kit_argopts['%s']='", path);
	for (const struct cli_option *o = cmd->options; o && (o->val || o->long_name); o++)
		if (visible(o) && o->has_arg == 1)
			print_words(o, out, &sep);
	fputs("'\n", out);
	for (const struct cli_option *o = cmd->options; o && (o->val || o->long_name); o++)
		if (visible(o) && o->values)
			print_values(path, o, out);
	if (!cmd->next)
		return;
	for (int i = 0; cmd->next->commands[i]; i++) {
		const struct cmd_struct *sub = cmd->next->commands[i];
		char subpath[256];

		if (sub->flags & CMD_HIDDEN)
			continue;
		snprintf(subpath, sizeof(subpath), "%s %s", path, sub->token);
		print_node(sub, subpath, out);
	}
}

/*
 * The walker.  Words before the cursor choose the command path (subcommand names) and
 * skip the arguments of options that take one; at the cursor it completes the value of
 * the option before it (or of --opt=, or an attached -dFILTER), an option (a word
 * starting with -), a subcommand, or else a file name.  Lists complete their last
 * element (after the last comma, keeping a leading ^).  It runs under "set -u" too.
 */
static const char completion_function[] =
"_btrfs_kit_values()\n"
"{\n"
"\tlocal key=$1 cur=$2 pre=$3 head=\n"
"\tif [[ -n ${_btrfs_kit_lists[$key]+x} ]]; then\n"
"\t\t[[ $cur == *,* ]] && head=${cur%,*},\n"
"\t\tcur=${cur##*,}\n"
"\t\tif [[ $cur == ^* ]]; then head+=^; cur=${cur#^}; fi\n"
"\t\tcompopt -o nospace 2>/dev/null\n"
"\tfi\n"
"\tCOMPREPLY=($(compgen -P \"$pre$head\" -W \"${_btrfs_kit_vals[$key]-}\" -- \"$cur\"))\n"
"}\n"
"\n"
"_btrfs_kit()\n"
"{\n"
"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= path=btrfs w i=1 o eq=\n"
"\tCOMPREPLY=()\n"
"\tfor ((o = 0; o < ${#_btrfs_kit_alias[@]}; o += 2)); do\n"
"\t\t[[ ${COMP_WORDS[0]##*/} == \"${_btrfs_kit_alias[o]}\" ]] && path+=\" ${_btrfs_kit_alias[o + 1]}\"\n"
"\tdone\n"
"\twhile ((i < COMP_CWORD)); do\n"
"\t\tw=${COMP_WORDS[i]}\n"
"\t\tif [[ $w == -* ]]; then\n"
"\t\t\t[[ \" ${_btrfs_kit_argopts[$path]-} \" == *\" $w \"* ]] && ((i++))\n"
"\t\telif [[ \" ${_btrfs_kit_sub[$path]-} \" == *\" $w \"* ]]; then\n"
"\t\t\tpath+=\" $w\"\n"
"\t\tfi\n"
"\t\t((i++))\n"
"\tdone\n"
"\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
"\t# COMP_WORDBREAKS splits --opt=value into --opt, =, value\n"
"\tif [[ $cur == = ]]; then\n"
"\t\tcur= eq=1\n"
"\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
"\t\tprev=${COMP_WORDS[COMP_CWORD - 2]} eq=1\n"
"\telif [[ $cur == --*=* ]]; then\n"
"\t\t_btrfs_kit_values \"$path ${cur%%=*}\" \"${cur#*=}\" \"${cur%%=*}=\"\n"
"\t\treturn 0\n"
"\tfi\n"
"\tif [[ \" ${_btrfs_kit_argopts[$path]-} \" == *\" $prev \"* || ( -n $eq && $prev == --* ) ]]; then\n"
"\t\tif [[ -n ${_btrfs_kit_vals[\"$path $prev\"]+x} ]]; then\n"
"\t\t\t_btrfs_kit_values \"$path $prev\" \"$cur\" \"\"\n"
"\t\telse\n"
"\t\t\tcompopt -o filenames 2>/dev/null\n"
"\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
"\t\tfi\n"
"\t\treturn 0\n"
"\tfi\n"
"\tfor o in ${_btrfs_kit_attached[$path]-}; do\n"
"\t\tif [[ $cur == \"$o\"?* ]]; then\n"
"\t\t\t_btrfs_kit_values \"$path $o\" \"${cur#\"$o\"}\" \"$o\"\n"
"\t\t\treturn 0\n"
"\t\tfi\n"
"\tdone\n"
"\tif [[ $cur == -* ]]; then\n"
"\t\tCOMPREPLY=($(compgen -W \"${_btrfs_kit_opts[$path]-}\" -- \"$cur\"))\n"
"\telif [[ -n ${_btrfs_kit_sub[$path]+x} ]]; then\n"
"\t\tCOMPREPLY=($(compgen -W \"${_btrfs_kit_sub[$path]-}\" -- \"$cur\"))\n"
"\telse\n"
"\t\tcompopt -o filenames 2>/dev/null\n"
"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
"\tfi\n"
"\treturn 0\n"
"}\n";

int completion_print_bash(const struct cmd_struct *top, const struct completion_alias *aliases,
			  size_t nr, FILE *out)
{
	fprintf(out, "# bash completion for btrfs-kit, generated by 'btrfs --generate-completion bash'\n"
		"# from the option tables the commands parse with: do not edit.\n"
		"declare -gA _btrfs_kit_sub=() _btrfs_kit_opts=() _btrfs_kit_argopts=() _btrfs_kit_vals=()\n"
		"declare -gA _btrfs_kit_lists=() _btrfs_kit_attached=()\n"
		"_btrfs_kit_alias=(");
	for (size_t i = 0; i < nr; i++)
		fprintf(out, "%s%s %s", i ? " " : "", aliases[i].prog, aliases[i].command);
	fputs(")\n", out);
	print_node(top, top->token, out);
	fputs(completion_function, out);
	fputs("complete -F _btrfs_kit btrfs", out);
	for (size_t i = 0; i < nr; i++)
		fprintf(out, " %s", aliases[i].prog);
	fputc('\n', out);
	return 0;
}

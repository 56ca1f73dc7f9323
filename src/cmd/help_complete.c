// SPDX-License-Identifier: GPL-2.0
/*
 * iodig help --completion bash|zsh: the completion script, from the option
 * tables.  An option's value is completed by the name of its argument: DISK
 * from /sys/class/block, PID from /proc, --comm by the names running, a
 * cgroup as a directory, FILE, PATH,
 * DIR and PREFIX as paths, and a value picked from a list by that list.
 */
#include <stdio.h>
#include <string.h>
#include "help.h"

static const struct cli_opt *tables(const struct cli_cmd *t, int i)
{
	return i == 0 ? t->opts : i == 1 ? t->more : cli__common_opts();
}

static bool has_short(const struct cli_opt *o)
{
	return o->key > ' ' && o->key < 127;
}

/* What completes a value: a shell function's suffix, or NULL. */
static const char *arg_kind(const struct cli_opt *o)
{
	static const struct { const char *arg, *kind; } kinds[] = {
		{ "DISK", "disk" }, { "PID", "pid" }, { "CGROUP", "dir" }, { "DIR", "dir" },
		{ "FILE", "file" }, { "PATH", "file" }, { "PREFIX", "file" },
	};

	if (!strcmp(o->name, "cgroup"))
		return "dir";
	if (!strcmp(o->name, "comm"))
		return "comm";
	for (size_t i = 0; o->arg && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(o->arg, kinds[i].arg))
			return kinds[i].kind;
	return NULL;
}

/* A picked value's choices, space-separated. */
static void names(const struct cli_opt *o)
{
	for (int k = 0; k < o->nnames; k++)
		printf("%s%s", k ? " " : "", o->names[k]);
}

static void bash_cmd(const struct cmd *c, const struct cli_cmd *t)
{
	printf("\t%s)\n\t\topts='", c->name);
	for (int i = 0; i < 3; i++)
		for (const struct cli_opt *o = tables(t, i); o && o->name; o++) {
			if (has_short(o))
				printf("-%c ", o->key);
			printf("--%s ", o->name);
		}
	printf("'\n\t\tcase $prev in\n");
	for (int i = 0; i < 3; i++)
		for (const struct cli_opt *o = tables(t, i); o && o->name; o++) {
			if (!o->arg)
				continue;
			printf("\t\t");
			if (has_short(o))
				printf("-%c|", o->key);
			printf("--%s) ", o->name);
			if (o->kind == CLI_PICK) {
				printf("COMPREPLY=($(compgen -W '");
				names(o);
				printf("' -- \"$cur\")); return ;;\n");
			} else if (arg_kind(o)) {
				printf("_iodig_%s; return ;;\n", arg_kind(o));
			} else {
				printf("return ;;\n");
			}
		}
	printf("\t\tesac ;;\n");
}

static int bash(void)
{
	/* after help: its options too; after --man, "iodig" (the main page) */
	const char *prev_is_help = "$([ \"$prev\" = help ] && echo --man --completion --commands || echo iodig)";

	printf("# bash completion for iodig: made by 'iodig help --completion bash' from the\n"
	       "# option tables iodig parses with.\n"
	       "_iodig_disk() { local d; COMPREPLY=($(for d in /sys/class/block/*; do echo \"${d##*/}\"; done "
	       "| grep -- \"^$cur\")); }\n"
	       "_iodig_pid() { COMPREPLY=($(cd /proc && compgen -W \"$(echo [0-9]*)\" -- \"$cur\")); }\n"
	       "_iodig_comm() { COMPREPLY=($(compgen -W \"$(cat /proc/[0-9]*/comm 2>/dev/null | sort -u)\" -- \"$cur\")); }\n"
	       "_iodig_dir() { COMPREPLY=($(compgen -d -- \"$cur\")); }\n"
	       "_iodig_file() { COMPREPLY=($(compgen -f -- \"$cur\")); }\n"
	       "_iodig() {\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
	       "\tCOMPREPLY=()\n"
	       "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '");
	for (const struct cmd *c = cmds__all; c->name; c++)
		printf("%s%s", c == cmds__all ? "" : " ", c->name);
	printf("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n"
	       "\thelp)\n\t\tcase $prev in\n\t\t--completion) COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")) ;;\n"
	       "\t\thelp|--man) COMPREPLY=($(compgen -W '%s", prev_is_help);
	for (const struct cmd *c = cmds__all; c->name; c++)
		printf(" %s", c->name);
	printf("' -- \"$cur\")) ;;\n\t\tesac\n\t\treturn ;;\n");
	for (const struct cmd *c = cmds__all; c->name; c++) {
		const struct cli_cmd *t = help__table(c);

		if (t)
			bash_cmd(c, t);
	}
	printf("\t*) return ;;\n\tesac\n"
	       "\tcase $cur in -*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;; esac\n}\n"
	       "complete -o default -F _iodig iodig\n");
	return 0;
}

/* Text inside zsh's quotes: the first line, no quote, bracket or
 * backslash; a colon escaped where it would end the item (colon_ok false). */
static void zsh_help(const char *h, bool colon_ok)
{
	for (; *h && *h != '\n'; h++)
		if (*h == ':')
			fputs(colon_ok ? ":" : "\\:", stdout);
		else if (!strchr("'[]\\", *h))
			putchar(*h);
}

static void zsh_cmd(const struct cmd *c, const struct cli_cmd *t)
{
	printf("\t%s)\n\t\t_arguments -s", c->name);
	for (int i = 0; i < 3; i++)
		for (const struct cli_opt *o = tables(t, i); o && o->name; o++) {
			const char *eq = o->arg ? "=" : "", *plus = o->arg ? "+" : "";

			printf(" \\\n\t\t\t'");
			if (has_short(o))
				printf("(-%c --%s)'{-%c%s,--%s%s}'", o->key, o->name, o->key, plus, o->name, eq);
			else
				printf("--%s%s", o->name, eq);
			printf("[");
			zsh_help(o->help, true);
			printf("]");
			if (o->arg) {
				printf(":%s:", o->arg);
				if (o->kind == CLI_PICK) {
					printf("(");
					names(o);
					printf(")");
				} else if (arg_kind(o)) {
					printf("_iodig_%s", arg_kind(o));
				}
			}
			printf("'");
		}
	printf(" \\\n\t\t\t'*:argument:_files' ;;\n");
}

static int zsh(void)
{
	printf("#compdef iodig\n# zsh completion for iodig: made by 'iodig help --completion zsh' from the\n"
	       "# option tables iodig parses with.\n"
	       "_iodig_disk() { local -a d; d=(/sys/class/block/*(N:t)); compadd -a d }\n"
	       "_iodig_pid() { _pids }\n_iodig_comm() { local -a c; c=(${(f)\"$(cat /proc/[0-9]*/comm 2>/dev/null)\"}); compadd -a c }\n"
	       "_iodig_dir() { _files -/ }\n_iodig_file() { _files }\n"
	       "_iodig() {\n\tlocal -a cmds\n\tcmds=(\n");
	for (const struct cmd *c = cmds__all; c->name; c++) {
		printf("\t\t'%s:", c->name);
		zsh_help(c->summary, false);
		printf("'\n");
	}
	printf("\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command cmds\n\t\treturn\n\tfi\n"
	       "\tlocal cmd=$words[2]\n\tshift words\n\t(( CURRENT-- ))\n\tcase $cmd in\n"
	       "\thelp) _arguments '--man' '--completion:shell:(bash zsh)' '1:command:(");
	for (const struct cmd *c = cmds__all; c->name; c++)
		printf("%s%s", c == cmds__all ? "" : " ", c->name);
	printf(")' ;;\n");
	for (const struct cmd *c = cmds__all; c->name; c++) {
		const struct cli_cmd *t = help__table(c);

		if (t)
			zsh_cmd(c, t);
	}
	printf("\tesac\n}\n_iodig \"$@\"\n");
	return 0;
}

int help__completion(const char *shell)
{
	return !strcmp(shell, "bash") ? bash() : zsh();
}

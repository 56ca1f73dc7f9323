// SPDX-License-Identifier: GPL-2.0
/*
 * iodig help: the list of commands, one command's help, and what is made
 * from the same option tables the parser uses: the man pages (--man) and the
 * shell completion (--completion).  Each command's table is had by running
 * it with --help while a hook (cli__on_help) keeps the table instead of
 * printing it, so no command declares anything twice.
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "cmds.h"
#include "help.h"
#include "log.h"
#include "version.h"

static struct cli_cmd kept;
static bool have_kept;

static void keep(const struct cli_cmd *cmd)
{
	kept = *cmd;
	have_kept = true;
}

const struct cli_cmd *help__table(const struct cmd *c)
{
	char *args[] = { (char *)c->name, "--help", NULL };

	if (c->run == cmd_help || c->run == cmd_version)
		return NULL;
	have_kept = false;
	cli__on_help(keep);
	c->run(2, args);
	cli__on_help(NULL);
	return have_kept ? &kept : NULL;
}

static int usage_help(void)
{
	printf("Usage: iodig help [COMMAND | --man [COMMAND [README]] | --completion bash|zsh | --commands]\n"
	       "The list of commands, or one command's help.  --man writes a man page in roff\n"
	       "(iodig(8) for COMMAND iodig or none, else iodig-COMMAND(8), with the EXAMPLES of\n"
	       "the README's section on it when README is given); --completion writes the\n"
	       "shell's completion script.  Both are made from the option tables the commands\n"
	       "parse with.  --commands lists the commands that have a page.\n");
	return 0;
}

int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	char *args[] = { NULL, "--help", NULL };

	log__init("help", false, false);
	if (argc < 2) {
		cmds__usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--man"))
		return argc > 4 ? usage_error("unexpected argument '%s'", argv[4])
				: help__man(argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL);
	if (!strcmp(argv[1], "--commands")) {	/* the names with a page: for make */
		for (c = cmds__all; c->name; c++)
			if (c->run != cmd_help && c->run != cmd_version)
				printf("%s\n", c->name);
		return 0;
	}
	if (!strcmp(argv[1], "--completion")) {
		if (argc != 3 || (strcmp(argv[2], "bash") && strcmp(argv[2], "zsh")))
			return usage_error("--completion bash or --completion zsh");
		return help__completion(argv[2]);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage_help();
	if (argc > 2)
		return usage_error("unexpected argument '%s'", argv[2]);
	c = cmds__find(argv[1]);
	if (!c)
		return usage_error("unknown command '%s'", argv[1]);
	if (c->run == cmd_help)
		return usage_help();
	args[0] = (char *)c->name;
	return c->run(2, args);
}

int cmd_version(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help")) {
		log__init("version", false, false);
		return usage_error("unexpected argument '%s'", argv[1]);
	}
	if (argc > 1) {
		printf("Usage: iodig version\nThe version, the libbpf it was built with and what it needs "
		       "of the kernel.\n");
		return 0;
	}
	printf("iodig %s\n", IODIG_VERSION);
	printf("libbpf %d.%d (linked in statically)\n", libbpf_major_version(), libbpf_minor_version());
	printf("needs: Linux 5.8 or later with BTF (/sys/kernel/btf/vmlinux), the BPF ring buffer and "
	       "tracepoints;\n       func KERNEL_FUNCTION needs kprobes or fentry, func BINARY:SYMBOL "
	       "uprobes ('iodig probe' says what this kernel has)\n");
	return 0;
}

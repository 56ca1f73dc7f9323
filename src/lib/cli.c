// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "bpfx.h"
#include "cli.h"
#include "log.h"

int cli__common(int opt, struct cli_common *c)
{
	switch (opt) {
	case OPT_JSON: c->json = true; return 1;
	case OPT_READY_FILE: c->ready_file = optarg; return 1;
	case 'v': c->verbose = true; return 1;
	case 'h': c->help = true; return 1;
	}
	return 0;
}

int cli__bad_option(int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		return usage_error("option '%s' needs a value", arg);
	/* getopt takes "-1" for an option: it is a number, and negative */
	if (arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9')
		return usage_error("invalid number '%s': 0 or more", arg);
	if (optopt && (arg[0] != '-' || arg[1] != '-'))
		return usage_error("unknown option '-%c'", optopt);
	return usage_error("unknown option '%s'", arg);
}

bool cli__is_decimal(const char *s, bool fraction)
{
	const char *p = s;

	if (!s)
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return false;
	if (fraction && *p == '.') {
		const char *f = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == f)
			return false;
	}
	return *p == '\0';
}

bool cli__uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!cli__is_decimal(s, false))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int cli__prologue(const struct cli_cmd *cmd, int argc, char **argv, struct cli_common *c, void *ctx)
{
	static const struct option common[] = { CLI_COMMON_LONG, {} };
	struct option longs[64];
	char shorts[64];
	int n = 0, opt, err = 0;

	log__init(cmd->name, false, false);
	for (const struct option *o = cmd->longs; o && o->name && n < 59; o++)
		longs[n++] = *o;
	for (const struct option *o = common; o->name; o++)
		longs[n++] = *o;
	longs[n] = (struct option){};
	snprintf(shorts, sizeof(shorts), ":%svh", cmd->shortopts ? cmd->shortopts : "");
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (cli__common(opt, c))
			continue;
		err = cmd->opt && opt != '?' && opt != ':' ? cmd->opt(ctx, opt, optarg) : -1;
		if (err < 0)
			err = cli__bad_option(opt, argv);
		if (err)
			break;
	}
	log__init(cmd->name, c->json, c->verbose);
	if (err)
		return err;
	if (c->help) {
		fputs(cmd->usage, stdout);
		return 0;
	}
	if (cmd->args)
		err = cmd->args(ctx, argc, argv, optind);
	else if (optind < argc)
		err = usage_error("unexpected argument '%s'", argv[optind]);
	if (!err && cmd->tracing)
		err = bpfx__setup(c->ready_file);
	return err ? err : -1;
}

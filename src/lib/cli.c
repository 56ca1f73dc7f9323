// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpfenv.h"
#include "cli.h"
#include "costmeter.h"
#include "log.h"
#include "run.h"
#include "text.h"

int cli__common(int opt, struct cli_common *c)
{
	switch (opt) {
	case OPT_JSON: c->json = true; return 1;
	case OPT_READY_FILE: c->ready_file = optarg; return 1;
	case OPT_STATS: c->stats = true; return 1;
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

int cli__min_ms(int argc, char **argv, int *optind, uint64_t *min_ns)
{
	char *end;
	double ms;

	if (*optind >= argc)
		return 0;
	ms = strtod(argv[*optind], &end);
	if (!text__is_decimal(argv[*optind], true) || *end || ms > 3600e3)
		return usage_error("invalid MIN_MS '%s': milliseconds, 0 or more", argv[*optind]);
	*min_ns = (uint64_t)(ms * 1e6);
	(*optind)++;
	return 0;
}

bool cli__uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!text__is_decimal(s, false))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static const struct cli_opt common_opts[] = {
	{ "json", OPT_JSON, NULL, "one JSON object per line" },
	{ "ready-file", OPT_READY_FILE, "PATH", "write PATH once tracing is live" },
	{ "stats", OPT_STATS, NULL, "at the end, what iodig's BPF programs cost (kernel's bpf_stats)" },
	{ "verbose", 'v', NULL, "show libbpf's log" },
	{ "help", 'h', NULL, "this help" },
	{}
};

const struct cli_opt *cli__common_opts(void)
{
	return common_opts;
}

static void (*help_hook)(const struct cli_cmd *cmd);

void cli__on_help(void (*fn)(const struct cli_cmd *cmd))
{
	help_hook = fn;
}

static bool has_short(int key)
{
	return key > ' ' && key < 127;
}

static void help_opts(const struct cli_opt *t, FILE *out)
{
	for (; t && t->name; t++) {
		char left[64];
		int n = snprintf(left, sizeof(left), "  %c%c%c --%s%s%s",
				 has_short(t->key) ? '-' : ' ', has_short(t->key) ? t->key : ' ',
				 has_short(t->key) ? ',' : ' ', t->name, t->arg ? " " : "",
				 t->arg ? t->arg : "");

		fprintf(out, "%s%*s", left, n < 23 ? 23 - n : 2, "");
		for (const char *h = t->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "%23s", "");
		}
		fputc('\n', out);
	}
}

void cli__help(const struct cli_cmd *cmd, FILE *out)
{
	fprintf(out, "Usage: iodig %s %s\n%s\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[options]",
		cmd->about ? cmd->about : "");
	help_opts(cmd->opts, out);
	help_opts(cmd->more, out);
	help_opts(common_opts, out);
	if (cmd->notes)
		fprintf(out, "\n%s", cmd->notes);
}

/* getopt's tables from the command's and the common ones. */
static void build_getopt(const struct cli_cmd *cmd, struct option *longs, size_t nlongs,
			 char *shorts, size_t nshorts)
{
	const struct cli_opt *tables[] = { cmd->opts, cmd->more, common_opts };
	size_t n = 0, s = 0;

	shorts[s++] = ':';
	for (unsigned int i = 0; i < 3; i++)
		for (const struct cli_opt *t = tables[i]; t && t->name && n < nlongs - 1; t++) {
			longs[n++] = (struct option){ t->name, t->arg ? required_argument : no_argument,
						      0, t->key };
			if (has_short(t->key) && s < nshorts - 3) {
				shorts[s++] = (char)t->key;
				if (t->arg)
					shorts[s++] = ':';
			}
		}
	longs[n] = (struct option){};
	shorts[s] = '\0';
}

/* The table entry of opt, among the command's. */
static const struct cli_opt *entry(const struct cli_cmd *cmd, int opt)
{
	const struct cli_opt *tables[] = { cmd->opts, cmd->more };

	for (unsigned int i = 0; i < 2; i++)
		for (const struct cli_opt *t = tables[i]; t && t->name; t++)
			if (t->key == opt)
				return t;
	return NULL;
}

/* An option the table knows how to parse: 0, an exit status, or -1: the
 * command's callback does it. */
static int parse_kind(const struct cli_opt *t, const char *arg, void *ctx)
{
	char name[40], *at;
	int i;

	if (!t || t->kind == CLI_CB || !ctx)
		return -1;
	at = (char *)ctx + t->off;
	if (has_short(t->key))
		snprintf(name, sizeof(name), "-%c", t->key);
	else
		snprintf(name, sizeof(name), "--%s", t->name);
	switch (t->kind) {
	case CLI_FLAG:
		*(bool *)at = true;
		return 0;
	case CLI_STR:
		if (t->max && strlen(arg) > t->max)
			return usage_error("%s '%s': %s", name, arg, t->what);
		*(const char **)at = arg;
		return 0;
	case CLI_UINT:
	case CLI_POW2:
		if (!cli__uint(arg, t->min, t->max, (unsigned long long *)at) ||
		    (t->kind == CLI_POW2 && (*(unsigned long long *)at & (*(unsigned long long *)at - 1))))
			return usage_error("%s '%s': %s", name, arg, t->what ? t->what : "a number");
		return 0;
	case CLI_PICK:
		if ((i = cli__pick(name, arg, t->names, t->nnames)) < 0)
			return -i;
		*(int *)at = i;
		return 0;
	default:
		return -1;
	}
}

int cli__prologue(const struct cli_cmd *cmd, int argc, char **argv, struct cli_common *c, void *ctx)
{
	struct option longs[64];
	char shorts[96];
	int opt, err = 0;

	log__init(cmd->name, false, false);
	build_getopt(cmd, longs, 64, shorts, sizeof(shorts));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (cli__common(opt, c))
			continue;
		err = opt != '?' && opt != ':' ? parse_kind(entry(cmd, opt), optarg, ctx) : -1;
		if (err < 0 && cmd->opt && opt != '?' && opt != ':')
			err = cmd->opt(ctx, opt, optarg);
		if (err < 0)
			err = cli__bad_option(opt, argv);
		if (err)
			break;
	}
	log__init(cmd->name, c->json, c->verbose);
	if (err)
		return err;
	if (c->help) {
		if (help_hook)
			help_hook(cmd);
		else
			cli__help(cmd, stdout);
		return 0;
	}
	if (cmd->args)
		err = cmd->args(ctx, argc, argv, optind);
	else if (optind < argc)
		err = usage_error("unexpected argument '%s'", argv[optind]);
	if (!err && cmd->tracing) {
		err = bpfenv__setup();
		bpfenv__slim_vmlinux(cmd->slim_btf);
	}
	if (!err && cmd->tracing)
		err = run__check_ready_file(c->ready_file);
	if (!err && c->stats)
		err = cmd->tracing ? costmeter__start(c->json)
				   : usage_error("--stats: '%s' runs no BPF program", cmd->name);
	return err ? err : -1;
}

int cli__pick(const char *opt, const char *arg, const char *const *names, int n)
{
	char list[256] = "";
	size_t len = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	for (int i = 0; i < n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", names[i]);
	return -usage_error("%s '%s': one of %s", opt, arg, list);
}

// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli.h"
#include "log.h"
#include "run.h"

static int parse(const char *a, const char *b, const char *c, struct run_loop *l)
{
	char *argv[] = { "lat", (char *)a, (char *)b, (char *)c, NULL };
	int argc = 1 + !!a + !!b + !!c;

	memset(l, 0, sizeof(*l));
	return run__parse_interval(argc, argv, 1, l);
}

struct got { bool flag; const char *disk, *name; int rest; };

static int got_opt(void *ctx, int opt, const char *arg)
{
	struct got *g = ctx;

	switch (opt) {
	case 'F': g->flag = true; return 0;
	case 'd': g->disk = arg; return 0;
	case OPT_FIRST_CMD: g->name = arg; return 0;
	}
	return -1;
}

static int got_args(void *ctx, int argc, char **argv, int optind)
{
	((struct got *)ctx)->rest = argc - optind;
	(void)argv;
	return 0;
}

static const struct cli_opt t_opts[] = {
	{ "flags", 'F', NULL, "one per flag" },
	{ "disk", 'd', "DISK", "only this disk" },
	{ "a-rather-long-name", OPT_FIRST_CMD, "NAME", "two lines\nof help" },
	{}
};

static const struct cli_cmd t_cmd = { .name = "t", .synopsis = "[options] [N]", .about = "About.\n",
				      .opts = t_opts, .notes = "Notes.\n", .opt = got_opt,
				      .args = got_args };

static const char t_help[] =
"Usage: iodig t [options] [N]\n"
"About.\n"
"\n"
"  -F, --flags          one per flag\n"
"  -d, --disk DISK      only this disk\n"
"      --a-rather-long-name NAME  two lines\n"
"                       of help\n"
"      --json           one JSON object per line\n"
"      --ready-file PATH  write PATH once tracing is live\n"
"      --stats          at the end, what iodig's BPF programs cost (kernel's bpf_stats)\n"
"  -v, --verbose        show libbpf's log\n"
"  -h, --help           this help\n"
"\n"
"Notes.\n";

/* Help and getopt's tables both come from the one options table. */
static void test_table(void)
{
	char *argv[] = { "t", "-F", "--disk", "sda", "--a-rather-long-name=x", "--json", "7", NULL };
	char *bad[] = { "t", "-x", NULL };
	char *help[] = { "t", "-h", NULL };
	struct cli_common c = {};
	struct got g = {};
	char buf[2048] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	cli__help(&t_cmd, f);
	fclose(f);
	CHECK(!strcmp(buf, t_help), "help from the table:\n%s", buf);
	CHECK(cli__prologue(&t_cmd, 7, argv, &c, &g) == -1, "parses");
	CHECK(g.flag && g.disk && !strcmp(g.disk, "sda") && g.name && !strcmp(g.name, "x") &&
	      c.json && g.rest == 1, "every option reached the command");
	memset(&c, 0, sizeof(c));
	CHECK(cli__prologue(&t_cmd, 2, bad, &c, &g) == EXIT_USAGE, "unknown short option");
	memset(&c, 0, sizeof(c));
	{
		int saved = dup(1), null = open("/dev/null", O_WRONLY);

		fflush(stdout);
		dup2(null, 1);
		CHECK(cli__prologue(&t_cmd, 2, help, &c, &g) == 0 && c.help, "-h: exit 0");
		fflush(stdout);
		dup2(saved, 1);
		close(null);
		close(saved);
	}
}

int main(void)
{
	struct run_loop l;
	unsigned long long v;

	log__init("test", false, false);
	CHECK(parse(NULL, NULL, NULL, &l) == 0 && l.interval_ms == 0 && l.count == 0, "none");
	CHECK(parse("1", NULL, NULL, &l) == 0 && l.interval_ms == 1000 && l.count == 0, "interval");
	CHECK(parse("2", "5", NULL, &l) == 0 && l.interval_ms == 2000 && l.count == 5, "both");
	CHECK(parse("0", NULL, NULL, &l) == EXIT_USAGE, "zero");
	CHECK(parse("-1", NULL, NULL, &l) == EXIT_USAGE, "negative");
	CHECK(parse("1x", NULL, NULL, &l) == EXIT_USAGE, "junk");
	CHECK(parse("", NULL, NULL, &l) == EXIT_USAGE, "empty");
	CHECK(parse("1", "0", NULL, &l) == EXIT_USAGE, "zero count");
	CHECK(parse("1", "2", "3", &l) == EXIT_USAGE, "extra");
	CHECK(parse("99999999999", NULL, NULL, &l) == EXIT_USAGE, "huge");

	CHECK(cli__uint("10", 1, 100, &v) && v == 10, "uint");
	CHECK(!cli__uint("0", 1, 100, &v), "below");
	CHECK(!cli__uint("101", 1, 100, &v), "above");
	CHECK(!cli__uint("-5", 0, 100, &v), "negative");
	CHECK(!cli__uint("5k", 0, 100, &v), "suffix");
	CHECK(!cli__uint("", 0, 100, &v), "empty");
	CHECK(!cli__uint("18446744073709551616", 0, ~0ULL, &v), "overflow");
	test_table();
	CHECK_DONE();
}

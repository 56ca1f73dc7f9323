// SPDX-License-Identifier: GPL-2.0
#include <string.h>
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
	CHECK_DONE();
}

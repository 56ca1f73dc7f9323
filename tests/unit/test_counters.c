// SPDX-License-Identifier: GPL-2.0
/* The counter table: JSON in table order with null where a mode does not
 * keep a counter; text lines only for non-zero counters that have text; a
 * summary sentence of every kept counter. */
#include <stddef.h>
#include <string.h>
#include "check.h"
#include "counters.h"
#include "json.h"

struct vals { uint64_t a, b, c; };

static const struct counter table[] = {
	{ "a", offsetof(struct vals, a), "%llu apples" },
	{ "b", offsetof(struct vals, b), NULL },
	{ "c", offsetof(struct vals, c), "%llu cherries", 2 },
};

static char buf[4096];

static const char *as_json(const struct vals *v, unsigned mode)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json__init(&j, f);
	json__obj_begin(&j);
	counters__json(&j, table, COUNTERS_N(table), v, mode);
	json__obj_end(&j);
	fclose(f);
	return buf;
}

int main(void)
{
	struct vals v = { 3, 0, 7 };
	FILE *f;

	CHECK(!strcmp(as_json(&v, 1), "{\"a\":3,\"b\":0,\"c\":null}\n"), "mode 1: %s", buf);
	CHECK(!strcmp(as_json(&v, 2), "{\"a\":3,\"b\":0,\"c\":7}\n"), "mode 2: %s", buf);

	v.a = 0;
	f = fmemopen(buf, sizeof(buf), "w");
	counters__lines(f, table, COUNTERS_N(table), &v, 2);
	fclose(f);
	CHECK(!strcmp(buf, "7 cherries\n"), "lines: '%s'", buf);

	f = fmemopen(buf, sizeof(buf), "w");
	counters__sentence(f, table, COUNTERS_N(table), &v, 2);
	fclose(f);
	CHECK(!strcmp(buf, "0 apples, 7 cherries\n"), "sentence: '%s'", buf);

	f = fmemopen(buf, sizeof(buf), "w");
	counters__sentence(f, table, COUNTERS_N(table), &v, 1);
	fclose(f);
	CHECK(!strcmp(buf, "0 apples\n"), "sentence, mode 1: '%s'", buf);
	CHECK_DONE();
}

// SPDX-License-Identifier: GPL-2.0
/* The result model: labelled series and counters, through both back ends. */
#include <stddef.h>
#include <string.h>
#include "check.h"
#include "hist_user.h"
#include "log.h"
#include "report.h"

struct vals { uint64_t done, lost; };

static const struct counter t_counters[] = {
	{ "done", offsetof(struct vals, done), NULL },
	{ "lost", offsetof(struct vals, lost), "lost: %llu things" },
};

static struct hist h[3];

static void fill(struct report *r)
{
	report__begin(r, true);
	report__add(r, &h[0], 3, "clock", LABEL_JSON_ONLY, "c", "disk", LABEL_STR, "sda", "phase", LABEL_STR, "Q2G");
	report__add(r, &h[1], 3, "clock", LABEL_JSON_ONLY, "c", "disk", LABEL_STR, "sda", "phase", LABEL_STR, "D2C");
	report__add(r, &h[2], 3, "clock", LABEL_JSON_ONLY, "c", "disk", LABEL_STR, "sdb", "phase", LABEL_STR, "Q2G");
}

int main(void)
{
	struct vals v = { 3, 2 };
	char buf[16384];
	struct json j;
	FILE *f;
	struct report r = { .empty = "nothing", .column = "phase", .counters = t_counters,
			    .ncounters = COUNTERS_N(t_counters) };

	log__init("test", false, false);
	hist__add(&h[0], 1000);
	hist__add(&h[1], 2000);
	hist__add(&h[2], 3000);

	/* JSON: one hist object per series with every label, then interval_end */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	json__init(&j, f);
	r.json = true;
	r.j = &j;
	r.out = f;
	fill(&r);
	report__emit(&r, &v);
	fclose(f);
	CHECK(strstr(buf, "{\"type\":\"hist\",\"interval\":1,\"time\":") == buf, "hist first: %s", buf);
	CHECK(strstr(buf, "\"clock\":\"c\",\"disk\":\"sdb\",\"phase\":\"Q2G\",\"count\":1,"), "labels: %s", buf);
	CHECK(strstr(buf, "\"histograms\":3,\"done\":3,\"lost\":2,\"last\":true}"), "interval_end: %s", buf);
	CHECK(strstr(buf, "\"ts_ns\":"), "monotonic stamp");

	/* text: sda's two phases side by side, then sdb's; counters with text */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	r.json = false;
	r.out = f;
	fill(&r);
	report__emit(&r, &v);
	fclose(f);
	CHECK(strstr(buf, "\ndisk = sda\n") && strstr(buf, "\ndisk = sdb\n"), "one line per group: %s", buf);
	CHECK(!strstr(buf, "clock") && !strstr(buf, "phase ="), "JSON-only and column labels not in text");
	CHECK(strstr(buf, "Q2G") < strstr(buf, "D2C") && strstr(buf, "D2C") < strstr(buf, "disk = sdb"),
	      "columns: %s", buf);
	CHECK(strstr(buf, "lost: 2 things\n"), "counter text");

	/* nothing: the command's sentence */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	r.out = f;
	r.per_interval = true;
	report__begin(&r, false);
	v.lost = 0;
	report__emit(&r, &v);
	fclose(f);
	CHECK(!strcmp(buf, "nothing in this interval\n"), "empty: '%s'", buf);
	CHECK(r.interval == 3, "intervals counted");
	report__free(&r);
	CHECK_DONE();
}

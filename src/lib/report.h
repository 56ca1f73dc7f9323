/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model: what an interval of lat, lat --phases or func found.
 *
 * A report holds labelled histogram series (labels such as disk, op, flags,
 * phase, function) and a counter table with its values, stamped with the
 * interval's number and time: "time" (wall clock, seconds since the epoch)
 * and "ts_ns" (CLOCK_MONOTONIC, the clock of every per-request record's
 * "ts_ns").  A command fills a report; report__emit() picks the back end
 * (text or JSON, later Prometheus and HTML) in this one place, and no
 * command prints a histogram or a counter itself.
 */
#ifndef IODIG_REPORT_H
#define IODIG_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "hist.h"
#include "json.h"

#define REPORT_LABELS	4

enum label_kind {
	LABEL_STR,		/* "key": "value"; text: key = value */
	LABEL_WORDS,		/* space-separated words: JSON array; text omits it when empty */
	LABEL_JSON_ONLY,	/* the same for every series of the command (clock, mode) */
};

struct report_label {
	const char *key;
	enum label_kind kind;
	char value[256];
};

struct frames;

struct report_series {
	int nlabels;
	struct report_label labels[REPORT_LABELS];
	const struct hist *h;		/* the command's, alive until emit */
	/* optional: the stacks the series is split by (func -K/-U), printed
	 * under its labels; the command's, alive until emit */
	const struct frames *kernel, *user;
};

struct report {
	/* Set once by the command. */
	const char *empty;	/* text when no series: "no block I/O completed" */
	const char *column;	/* text: series that differ only in this label
				 * print side by side, one column each (phases) */
	bool ms;		/* text rows in milliseconds, else microseconds */
	bool timestamp;		/* text: a time line first (-T) */
	bool per_interval;	/* "... in this interval" */
	bool json;
	struct json *j;
	FILE *out;
	const struct counter *counters;
	size_t ncounters;
	unsigned mode;		/* counters' only: see counters.h */

	/* This interval: report__begin() clears the series and stamps it. */
	uint64_t interval, time, ts_ns;
	bool last;
	struct report_series *s;
	int n, cap;
	const void *values;	/* the counters' values */
};

void report__begin(struct report *r, bool last);
/* A series: h and nlabels (key, kind, value) triples. -ENOMEM or 0. */
int report__add(struct report *r, const struct hist *h, int nlabels, ...);
/* The last series added is split by these stacks (either may be NULL). */
void report__stacks(struct report *r, const struct frames *kernel, const struct frames *user);
/* One interval out through the chosen back end. */
void report__emit(struct report *r, const void *values);
void report__free(struct report *r);

#endif

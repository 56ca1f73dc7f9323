/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running totals per key: a command's BPF program adds to u64 counters in a
 * hash map (key -> value); each report is the difference from the last, so
 * nothing is lost to a drain racing the counting.  The rows a report shows
 * are printed through the command's field table (fields.h): JSON, lines
 * (REC_LINES) or columns under their headings.
 *
 * A command's row is its key at offset 0, then two values: the totals last
 * seen (last_off) and this report's difference (d_off).  A value is
 * val_size bytes of u64, the first counters of them running totals
 * (differenced), the rest gauges (the newest value, copied).
 */
#ifndef IODIG_TALLY_H
#define IODIG_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include "fields.h"
#include "json.h"

struct tally {
	/* the command's */
	int map_fd;
	size_t key_size, val_size, counters;	/* counters: u64s differenced (0: all) */
	size_t row_size, last_off, d_off;
	int (*cmp)(const void *a, const void *b);	/* the rows' order, or NULL */
	const struct rec *rec;
	const struct rec *end;		/* its end record: REC_LINES(..., tally_end_fields) */
	const char *none;		/* text when no row moved */
	const uint64_t *map_full;	/* the kernel side's count of keys with no room */
	struct json *j;			/* where JSON goes, with json */
	bool json;
	/* kept */
	void *rows;
	size_t n, cap;
	uint64_t interval;
};

/* The end of a report: its number, when, the rows shown, what was lost. */
struct tally_end {
	uint64_t interval, ts_ns;
	struct { uint64_t rows, map_full; } v;
	const char *none;
};
extern const struct field tally_end_fields[4];

/* Read the map: each row's difference since the last report. 0 or -ENOMEM. */
int tally__collect(struct tally *t);
/* Print the rows with a counter moved (json: through j); how many. */
size_t tally__print(struct tally *t, struct json *j, bool json, const struct fctx *fc);
/* A report: the rows, then the end record (run_loop's report callback). */
int tally__report(void *tally, bool last);
void tally__free(struct tally *t);

#endif

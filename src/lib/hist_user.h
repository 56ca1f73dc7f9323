/* SPDX-License-Identifier: GPL-2.0 */
/* User side of the shared histogram (lib/hist.h): merge, percentiles, render. */
#ifndef IODIG_HIST_USER_H
#define IODIG_HIST_USER_H

#include <stdint.h>
#include <stdio.h>
#include "hist.h"
#include "json.h"

struct hist_summary {
	uint64_t count, sum, min, max;
	double mean;
	uint64_t p50, p90, p99, p999;
};

uint64_t hist__slot_lo(unsigned int slot);
uint64_t hist__slot_hi(unsigned int slot);	/* exclusive */
void hist__add(struct hist *h, uint64_t v);	/* user-side twin of hist_add() */
void hist__merge(struct hist *dst, const struct hist *src);
/* p in [0, 1]: nearest-rank percentile, reported as its bucket's midpoint
 * clamped to [min, max]; within HIST_REL_ERR of the exact value. */
uint64_t hist__percentile(const struct hist *h, double p);
void hist__summary(const struct hist *h, struct hist_summary *s);

/* Text: a bcc-style log2 table in units of unit_ns, then a summary line. */
void hist__print(const struct hist *h, FILE *out, uint64_t unit_ns, const char *unit_name);
void hist__print_summary(const struct hist *h, FILE *out);
/* Several histograms side by side (zpool iostat -w style): log2 rows of
 * counts, one column each, then count, percentile and max rows. */
void hist__print_columns(const struct hist *const *h, const char *const *names, int n,
			 FILE *out, uint64_t unit_ns, const char *unit_name);
/* JSON: the summary fields and the non-empty buckets as [lo_ns, hi_ns, count]. */
void hist__json(const struct hist *h, struct json *j);
/* Power-of-2 slots as [[low, high, count], ...], the non-empty ones:
 * slot s holds values in [2^s, 2^(s+1)). */
void hist__json_log2(struct json *j, const uint64_t *slots, int n);
/* Text: power-of-2 slots as bcc's log2 table (bitesize): "low -> high : count |***|". */
void hist__print_log2(FILE *out, const uint64_t *slots, int n, const char *unit);
/* "812ns", "35.2us", "1.25ms", "2.00s" */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);

#endif

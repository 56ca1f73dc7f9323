/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus back end of the result model: text exposition format
 * 0.0.4 into a growing buffer.  Histograms go out in a bounded bucket set:
 * log2 with 2 sub-buckets (upper bounds 2^k and 1.5 * 2^k ns, 1 us to 17 s),
 * each an exact sum of iodig's finer buckets (16 a power of two), so no
 * count moves between buckets.  le is in seconds.
 */
#ifndef IODIG_PROM_H
#define IODIG_PROM_H

#include <stddef.h>
#include <stdint.h>
#include "hist.h"

struct prom {
	char *buf;
	size_t len, cap;
	int oom;		/* a write failed for want of memory */
};

/* # HELP and # TYPE lines, once a metric. */
void prom__family(struct prom *p, const char *name, const char *type, const char *help);
/* name{labels} value; labels "disk=\"sda\",op=\"read\"" (made with
 * prom__label), or "" for none. */
void prom__sample(struct prom *p, const char *name, const char *labels, double v);
void prom__sample_u64(struct prom *p, const char *name, const char *labels, uint64_t v);
/* name_bucket{labels,le=...} for the bounded set and +Inf, name_sum (s),
 * name_count. */
void prom__hist(struct prom *p, const char *name, const char *labels, const struct hist *h);
/* Appends key="value" (escaped: \\, \", \n) to a label string of len bytes. */
void prom__label(char *labels, size_t len, const char *key, const char *value);
/* The upper bounds of the bounded set, in ns, ascending; how many. */
int prom__bounds(const uint64_t **b);
void prom__free(struct prom *p);

#endif

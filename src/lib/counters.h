/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_COUNTERS_H
#define IODIG_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct json;

/*
 * The BPF side keeps running totals in structs of __u64 counters; a report
 * wants what happened since the last one.  d = now - last for every field,
 * then last = now.  All three structs must be the same type, __u64 only.
 */
static inline void counters__delta(void *d, const void *now, void *last, size_t size)
{
	uint64_t *dd = d, *ll = last;
	const uint64_t *nn = now;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++) {
		dd[i] = nn[i] - ll[i];
		ll[i] = nn[i];
	}
}

/* sum += v, both structs of __u64 counters, size bytes. */
static inline void counters__add(void *sum, const void *v, size_t size)
{
	uint64_t *s = sum;
	const uint64_t *a = v;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++)
		s[i] += a[i];
}

/* The values of a per-CPU map entry (ncpus structs of __u64, size bytes
 * each) summed into sum. */
static inline void counters__sum_cpus(void *sum, const void *percpu, int ncpus, size_t size)
{
	memset(sum, 0, size);
	for (int c = 0; c < ncpus; c++)
		counters__add(sum, (const char *)percpu + c * size, size);
}

/*
 * A command's counters, described once: JSON and text both read the table,
 * so no report writes a counter field by field, and a fact keeps one name.
 * Each counter is a uint64_t (or, with sgn, an int64_t) at `off` in the struct
 * the table describes.
 */
struct counter {
	const char *name;	/* JSON key (docs and tests use the same) */
	size_t off;
	const char *text;	/* text: a printf format with one %llu, or NULL */
	unsigned only;		/* 0: always kept; else the modes that keep it
				 * (JSON null, and no text, in the others) */
	int sgn;		/* an int64_t, a remainder shown signed (text: %lld) */
};

#define COUNTERS_N(t) (sizeof(t) / sizeof((t)[0]))

/* The counters as JSON members, in table order. */
void counters__json(struct json *j, const struct counter *t, size_t n, const void *v, unsigned mode);
/* One line for each non-zero counter that has text. */
void counters__lines(FILE *out, const struct counter *t, size_t n, const void *v, unsigned mode);
/* Every kept counter's text, joined by ", " (a summary sentence). */
void counters__sentence(FILE *out, const struct counter *t, size_t n, const void *v, unsigned mode);

#endif

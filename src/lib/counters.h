/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_COUNTERS_H
#define IODIG_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

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

#endif

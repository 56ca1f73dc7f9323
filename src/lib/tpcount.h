/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracepoint's hits, counted by the kernel without BPF: one counting perf
 * event per CPU (PERF_TYPE_TRACEPOINT, as `perf stat -e sys:event` opens
 * them), optionally behind a tracefs filter ("dev == 7340032").  The outside
 * witness that iodig's skipped count is measured against.
 */
#ifndef IODIG_TPCOUNT_H
#define IODIG_TPCOUNT_H

#include <stdint.h>

struct tpcount {
	int nfd;
	int *fd;
};

/* Can this process open a perf event on tracepoint SYS:EVENT (one CPU,
 * opened and closed): 0 or -errno. */
int tpcount__probe(const char *sys, const char *event);
/* Opens the counters (tracefs must be mounted: bpfenv__tracefs()); a
 * negative errno on failure, the counters closed. */
int tpcount__open(struct tpcount *t, const char *sys, const char *event, const char *filter);
/* Hits so far, summed over the CPUs. */
int tpcount__read(const struct tpcount *t, uint64_t *n);
void tpcount__close(struct tpcount *t);

#endif

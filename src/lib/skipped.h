/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completions the kernel fired block_rq_complete for but ran no iodig
 * program for, measured, not inferred.
 *
 * Two counts of the same tracepoint, on the same disk: the kernel's own (a
 * counting perf event per CPU with a "dev == DISK" filter, tpcount.h: no BPF
 * involved) and the programs' (a counter at their very first instruction
 * after the disk check, before any early return of iodig's own).  skipped
 * is the first minus the second.  iodig's own early returns (partial
 * completions, flush steps, partitions and cgroups not asked for, full maps)
 * are counted apart and are never in it.  docs/DESIGN.md, "Skipped
 * completions", says what was measured and where the kernel drops them.
 */
#ifndef IODIG_SKIPPED_H
#define IODIG_SKIPPED_H

#include <stdbool.h>
#include <stdint.h>
#include "tpcount.h"

struct skipped {
	bool on;		/* the kernel's count could be opened */
	struct tpcount fired;	/* the kernel's count of the tracepoint's hits */
	uint64_t fired0, ran0;	/* both counts when tracing began */
	int64_t total;		/* fired - ran since start: signed, never clamped */
	int64_t taken;		/* of which skipped__interval() has reported */
};

/* The counter's text line (lat, phases), and the warning when the kernel's
 * own count cannot be opened (one argument: why). */
#define SKIPPED_TEXT "skipped: %lld requests completed (a perf counter of block_rq_complete saw them) " \
	"but the kernel ran no BPF program for them: not in the histograms"
#define SKIPPED_OFF "skipped is not measured (no perf counter on block:block_rq_complete: %s); it reads 0"

/* What the programs have counted at entry on that disk so far. */
typedef uint64_t (*skipped_seen_fn)(void *ctx);
/* Call right after attaching: disk is the whole disk the programs count
 * (0: every disk).  Returns 0, or a negative errno when the kernel's count
 * cannot be opened (skipped then stays 0; the caller says so: SKIPPED_OFF). */
int skipped__start(struct skipped *s, uint32_t disk, skipped_seen_fn seen, void *ctx);
/* Skipped since start.  Hits in flight between the two probes at a read can
 * make it a few low, even negative, for an instant (skipped.c). */
int64_t skipped__update(struct skipped *s, skipped_seen_fn seen, void *ctx);
/* Skipped since the last call (an interval report's share). */
int64_t skipped__interval(struct skipped *s, skipped_seen_fn seen, void *ctx);
/* The last update, before detaching: the count stays as it is after. */
void skipped__stop(struct skipped *s, skipped_seen_fn seen, void *ctx);

#endif

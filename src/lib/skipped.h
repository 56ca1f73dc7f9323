/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests the kernel completed but never showed to BPF.
 *
 * On 6.18 a few block_rq_complete hits a second reach ftrace but run no BPF
 * program at all: not iodig's, not bpftrace's, and no recursion miss is
 * counted (docs/DESIGN.md, "Skipped completions").  Nothing in BPF can see
 * them, so they are counted from the kernel's own per-disk counters: the
 * completions in /sys/block/DISK/stat since tracing began, less those the
 * programs saw.  The count is exact on a disk idle at both ends; requests in
 * completion at the instant tracing starts can be off by those few.
 */
#ifndef IODIG_SKIPPED_H
#define IODIG_SKIPPED_H

#include <stdbool.h>
#include <stdint.h>

struct skipped {
	uint32_t dev;		/* one disk, or 0: every blk-mq disk */
	bool on;		/* the kernel's counters could be read */
	uint64_t disk0, seen0;	/* both counts when tracing began */
	uint64_t total;		/* skipped so far (never goes down) */
	uint64_t taken;		/* of which skipped__interval() has reported */
};

/* Completions the kernel counted on this disk (0: on every request-based
 * disk): reads, writes, discards and flushes of /sys/block/DISK/stat. */
int skipped__disk_completions(uint32_t dev, uint64_t *n);
/* What the programs have seen complete so far. */
typedef uint64_t (*skipped_seen_fn)(void *ctx);
/* Call right after attaching. */
void skipped__start(struct skipped *s, uint32_t dev, skipped_seen_fn seen, void *ctx);
/* Skipped since start. */
uint64_t skipped__update(struct skipped *s, skipped_seen_fn seen, void *ctx);
/* Skipped since the last call (an interval report's share). */
uint64_t skipped__interval(struct skipped *s, skipped_seen_fn seen, void *ctx);
/* The last update, before detaching: the count stays as it is after. */
void skipped__stop(struct skipped *s, skipped_seen_fn seen, void *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completions the kernel counted in /proc/diskstats but ran no iodig
 * program for, measured, not inferred.
 *
 * Two counts of the same completions, per disk: the kernel's own
 * (/proc/diskstats: reads, writes, discards and flushes completed, no BPF
 * involved) and the programs' (src/bpf/seen.bpf.h: the block_rq_complete
 * hits diskstats counts, at their first instruction after the disk check,
 * before any early return of iodig's own).  skipped is the first less the
 * second, summed over the disks (-d's, or every request-based disk).
 * iodig's own early returns (partial completions, flush steps, partitions
 * and cgroups not asked for, full maps) are counted apart and are never in
 * it.  docs/DESIGN.md, "Skipped completions", says what was measured and
 * why diskstats and not a perf counter of the tracepoint.
 */
#ifndef IODIG_SKIPPED_H
#define IODIG_SKIPPED_H

#include <stdbool.h>
#include <stdint.h>

struct skipped_disk {
	uint32_t dev;		/* kernel dev_t */
	bool present;		/* in /proc/diskstats at the last read */
	unsigned int gen;	/* the read it was last in */
	uint64_t ds0, seen0;	/* both counts where this disk's share began */
	uint64_t ds, seen;	/* both counts at the last read */
};

struct skipped {
	bool on;		/* /proc/diskstats could be read */
	uint32_t disk;		/* -d's whole disk (none if bio-based), or 0: every request-based disk */
	int fd;			/* the programs' per-disk counts (seen_disks) */
	int ncpu;
	struct skipped_disk *d;
	int n, cap;
	unsigned int gen;	/* reads so far */
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last read */
	int64_t frozen;		/* shares of disks gone, or gone and back */
	uint64_t unplaced0, unplaced;	/* the programs' count of disks with no slot */
	int64_t total;		/* diskstats - seen since start: signed, never clamped */
	int64_t taken;		/* of which skipped__interval() has reported */
};

/* The counter's text line (lat, phases), and the warning when the kernel's
 * own count cannot be read (one argument: why). */
#define SKIPPED_TEXT "skipped: %lld requests completed (/proc/diskstats counted them) " \
	"but the kernel ran no BPF program for them: not in the histograms"
#define SKIPPED_OFF "skipped is not measured (%s); it reads 0"

/* Call right after attaching: disk is the whole disk the programs count (0:
 * every disk), fd their seen_disks map.  Returns 0, or a negative errno when
 * /proc/diskstats cannot be read (skipped then stays 0; the caller says
 * so: SKIPPED_OFF). */
int skipped__start(struct skipped *s, uint32_t disk, int fd);
/* Skipped since start.  Completions between the two counts at a read can
 * make it a few low, even negative, for an instant (skipped.c). */
int64_t skipped__update(struct skipped *s);
/* Between reports, every few hundred ms: both counts read again when a
 * second has passed since the last read, so that a disk made and removed
 * between two reports is in the count, as of its last read. */
void skipped__poll(struct skipped *s);
/* Skipped since the last call (an interval report's share). */
int64_t skipped__interval(struct skipped *s);
/* The last update, before detaching: the count stays as it is after. */
void skipped__stop(struct skipped *s);

#endif

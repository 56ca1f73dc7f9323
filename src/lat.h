/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_LAT_H
#define IODIG_LAT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Histograms live in per-CPU maps, two of each: epoch flips each interval so
 * the user side drains a settled half while the kernel fills the other.
 * Split by disk or flags: a hash keyed by this (8 bytes hash fastest);
 * not split: an array of one, cheaper still. */
struct lat_key {
	__u32 dev;	/* whole disk, kernel encoding; 0 unless per disk */
	__u32 flags;	/* cmd_flags; 0 unless per op/flags */
};

/* Counters for what was not put in a histogram, so nothing is lost silently. */
struct lat_stats {
	__u64 unstamped;	/* kernel gave no start stamp, and none of ours */
	__u64 map_full;		/* no room for a new histogram key */
	__u64 own_stamps;	/* requests timed from iodig's own issue stamp */
	__u64 partial_done;	/* block_rq_complete for part of a request */
	__u64 flush_steps;	/* flush-sequence data steps (counted at its end) */
	__u64 not_issued;	/* completed without reaching the device: empty
				 * preflush writes ended by the flush machinery */
	__u64 ran;		/* block_rq_complete hits on the disks asked for,
				 * counted first (skipped.h) */
	__u64 other_part;	/* on the disk, not the partition asked for */
	__u64 completed;	/* final completions on the disks (partition)
				 * asked for, before the cgroup filter: the user
				 * side's ran - partial_done - flush_steps - other_part
				 * + bios */
	__u64 bios;		/* block_bio_complete hits on the bio-based disks
				 * asked for */
	__u64 bio_unstamped;	/* of those, submitted before tracing began */
};

#define LAT_MAX_KEYS 1024

#endif

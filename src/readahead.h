/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig readahead: pages read ahead (sync, async), used before eviction or
 * wasted, time to first use, window sizes, per file or process.  Shared by
 * src/bpf/readahead.bpf.c and src/cmd/readahead.c.
 */
#ifndef IODIG_READAHEAD_H
#define IODIG_READAHEAD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "lib/hist.h"

#define RA_COMM_LEN	16
#define RA_ROWS		4096
#define RA_TRACKED	262144	/* read-ahead pages not yet used or evicted */
#define RA_WIN_SLOTS	16	/* window sizes in pages, log2: slot k holds [2^k, 2^(k+1)) */
#define RA_RANGE_MAX	1024	/* pages of one access looked up */

enum ra_by {
	RA_BY_FILE,
	RA_BY_PROCESS,
};

enum ra_kind {
	RA_SYNC,		/* page_cache_sync_ra: a read missed */
	RA_ASYNC,		/* page_cache_async_ra: a read reached a PG_readahead folio */
};

struct ra_key {
	__u64 id;		/* file: inode number; process: tgid */
	__u32 dev;		/* file: its file system's device (kernel dev_t) */
	__u32 pad;
	char comm[RA_COMM_LEN];	/* process */
};

/* a read-ahead page (or folio, by its first index) waiting for its first use */
struct ra_page {
	__u64 ino;
	__u32 dev;
	__u32 pad;
	__u64 index;
};

struct ra_tracked {
	__u64 ts;
	__u32 pages;
	__u32 kind;
	struct ra_key row;	/* whose readahead it was */
};

/* Running totals, per CPU, __u64 only; pages count a large folio's pages.
 * The time from readahead to first use is a histogram per row apart
 * (two epoch maps, drained per report). */
struct ra_val {
	__u64 calls[2];		/* readahead calls, by ra_kind */
	__u64 pages[2];		/* pages they added beyond what the read asked for */
	__u64 demand;		/* pages they added that the read asked for */
	__u64 used;		/* read-ahead pages read or mapped before eviction */
	__u64 wasted;		/* read-ahead pages evicted unused */
	__u64 random;		/* sync calls on files opened or advised for random access (no readahead) */
	__u64 windows[RA_WIN_SLOTS];	/* the windows chosen, in pages */
	__u64 ra_max;		/* the largest readahead limit seen (ra_pages: doubled by
				 * FADV_SEQUENTIAL): a maximum, not a total */
};

struct ra_stats {
	__u64 map_full;		/* events whose row found no room */
	__u64 track_full;	/* read-ahead pages not tracked: no room */
};

#endif

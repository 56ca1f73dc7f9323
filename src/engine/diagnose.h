/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig doctor's rules: the request engine's records (live, or from a
 * recording) added up by disk, by queue-attribute writer, by tag holder and
 * by stacked layer, then turned into findings ranked by the time each cost
 * the requests.  No BPF here: the rules are tested on records the tests
 * make (tests/unit/test_diagnose.c) and on faults the live tests create.
 */
#ifndef IODIG_DIAGNOSE_H
#define IODIG_DIAGNOSE_H

#include <stdbool.h>
#include <stdint.h>
#include "hist.h"
#include "life.h"
#include "records.h"
#include "readahead.h"
#include "throttle.h"
#include "why.h"

#define DX_DISKS 32
#define DX_WRITERS 64
#define DX_HOLDERS 64
#define DX_SECONDS 3600		/* a disk's per-second D2C p99s kept */
#define DX_FINDINGS 16
#define DX_EVIDENCE 6
#define DX_LINE 240		/* a line of evidence, or a next step */

/* Thresholds, documented in the README's doctor section. */
#define DX_SLOW_D2C_NS	(5 * 1000000ull)	/* a device is slow at D2C p99 >= 5 ms, */
#define DX_SLOW_D2C_ROT_NS (50 * 1000000ull)	/* a rotational one at 50 ms */
#define DX_SLOW_LAYER_NS (5 * 1000000ull)	/* a layer, at p99 of its own time >= 5 ms */
#define DX_MIN_COST_NS	1000000ull		/* a stall below 1 ms in all is no finding */
#define DX_SMALL_BYTES	(128u << 10)		/* the device is judged on requests up to 128 KiB */
#define DX_LOST_PER	100			/* lost events: a finding from 1 in 100, */
#define DX_LOST_MIN	10			/* and 10 of them */
#define DX_SLOW_MIN	3			/* a slow device: 3 requests over its bound at least */
#define DX_RUNQ_MIN_NS	(10 * 1000000ull)	/* CPU starvation: 10 ms in all (one preemption is not) */
#define DX_RA_MIN_PAGES	256			/* readahead waste: of 1 MiB read ahead at least, */
#define DX_RA_WASTE_PCT	50			/* half of it never used */
#define DX_THRASH_PAGES	256			/* page-cache thrash: 1 MiB refaulted at least */

struct dx_disk {
	uint32_t dev;
	uint64_t requests, complete;
	uint64_t ph[PH_NR];		/* sums over complete requests */
	struct hist q2c, d2c;		/* d2c: of small ones (DX_SMALL_BYTES) */
	uint64_t small, small_d2c_ns, small_q2c_ns;
	uint64_t sec;			/* the second (of c) sec_d2c holds */
	struct hist sec_d2c;
	uint32_t nsec;
	uint32_t sec_p99_us[DX_SECONDS];	/* each full second's D2C p99 */
	uint64_t unnamed, unnamed_ns;	/* Q2G of LIFE_TAG_MIN_NS or more, no tag
					 * holder noted and no queue write: said */
};

struct dx_writer {		/* a process writing a disk's queue attribute */
	uint32_t pid;
	char comm[LIFE_COMM_LEN];
	char disk[SYSFS_NAME_LEN], attr[SYSFS_NAME_LEN], value[SYSFS_VALUE_LEN];
	uint32_t writes;
	uint64_t write_ns, write_max_ns;
	uint64_t stalled, stalled_ns, stalled_max_ns;	/* requests whose Q2G overlapped its writes */
};

struct dx_holder {		/* who held the tags requests of a disk waited for */
	uint32_t dev, pid;
	char comm[LIFE_COMM_LEN];
	uint64_t waits, wait_ns, wait_max_ns;
	uint64_t held, held_all;	/* its tags, and all tags held, at those waits' starts */
	uint64_t waiters_self;		/* waits of its own requests */
};

struct dx_layer {		/* a bio-based disk: its bios' time above what they became */
	uint32_t dev;
	uint64_t bios, linked;
	int64_t own_ns;			/* signed: Q2C less the longest lower's */
	uint64_t q2c_ns;
	struct hist own;		/* own time of bios with own > 0 */
	uint32_t lower_dev;		/* the lower its bios went to most recently */
};

struct dx_throttled {		/* a writer balance_dirty_pages() put to sleep */
	struct throttle_key k;
	struct throttle_val v;
};

/* The slow calls of one system call (why's summary): their parts, and
 * their blocked time by place and waker. */
#define DX_PLACE_LEN 64
#define DX_WAITS 32
struct dx_calls {
	char name[24];
	uint64_t calls, wall_ns, part_ns[WP_NR];
	unsigned nwait;
	struct {
		uint32_t part;
		char place[DX_PLACE_LEN];
		char waker[16];		/* "": none seen; a pool's workers as one */
		bool irq;
		uint64_t ns, calls;
	} wait[DX_WAITS];
};
#define DX_SYSCALLS 40

/* Writes by submitter name, and whose data each was (life_req.wb_pid): a
 * journal thread's ordered data, a flusher's writeback. */
#define DX_OWNERS 64
struct dx_owner {
	char by[LIFE_COMM_LEN];		/* the submitter (a pool's threads as one name) */
	uint32_t pid;			/* the data's last dirtier; 0: the submitter's own, or unknown */
	char comm[LIFE_COMM_LEN];	/* its name, "" until known */
	uint64_t requests, bytes;
};

struct dx_readahead {		/* a process's readahead over the run */
	uint32_t pid;
	char comm[LIFE_COMM_LEN];
	uint64_t calls, random, pages, used, wasted;	/* pages: read ahead beyond what was asked */
};

struct diagnose {
	struct dx_disk *disk;		/* DX_DISKS */
	unsigned ndisk;
	struct dx_writer writer[DX_WRITERS];
	unsigned nwriter;
	struct dx_holder holder[DX_HOLDERS];
	unsigned nholder;
	struct dx_layer *layer;		/* DX_DISKS */
	unsigned nlayer;
	struct dx_throttled throttled[DX_WRITERS];
	unsigned nthrottled;
	bool throttle_on;		/* dirty throttling was watched */
	struct dx_owner owner[DX_OWNERS];
	unsigned nowner;
	bool owners_on;			/* writes carry their data's dirtier */
	uint64_t owners_dropped;	/* writes of submitters beyond the table */
	struct dx_readahead ra[DX_WRITERS];
	unsigned nra;
	bool ra_on;			/* readahead was watched */
	uint64_t read_bytes, read_d2c_ns;	/* every read request's, for a page's device time */
	bool refaults_on;		/* /proc/vmstat's refaults were read */
	uint64_t refaults, activations;	/* workingset_refault_file, _activate_file over the run */
	struct dx_calls calls[DX_SYSCALLS];
	unsigned ncalls;
	bool calls_on;			/* slow calls were watched (why's engine) */
	uint64_t call_min_ns;		/* ... from this long */
	uint64_t requests, complete, q2c_ns;	/* every disk's */
	uint64_t first_ns, last_ns;	/* the span of the requests seen */
	uint64_t full;			/* records that found their table full */
	bool have_summary;
	struct req_summary sum;
	bool have_stack;
	struct life_stack_stats stack;
	/* a disk's queue/rotational (live; NULL: every disk solid-state) */
	bool (*rotational)(uint32_t dev);
	/* a process's name (live; NULL, or false: not known) */
	bool (*comm_of)(uint32_t pid, char *comm, size_t len);
};

struct dx_finding {
	const char *kind;		/* queue_frozen, tag_starvation, slow_device, slow_layer,
					 * dirty_throttled, readahead_waste, cache_thrash, journal_wait,
					 * cpu_starved, cpu_stolen, reclaim, lock_contention, lost_events,
					 * nothing_wrong */
	unsigned rank;
	uint64_t cost_ns;		/* the requests' time it cost; all ones: not a time */
	double share;			/* of every request's time; < 0: none */
	char title[240];
	char disk[SYSFS_NAME_LEN];	/* "" when not one disk's */
	uint32_t pid;			/* the culprit process, 0: none */
	char comm[LIFE_COMM_LEN];
	char attr[SYSFS_NAME_LEN];
	unsigned nev;
	char ev[DX_EVIDENCE][DX_LINE];
	char next[2][DX_LINE];
	unsigned nnext;
	const char *confidence;		/* high, medium, low */
	char why[200];
};

int diagnose__init(struct diagnose *d);
void diagnose__free(struct diagnose *d);
/* The printer's sink (records.h): a printer with it feeds these. */
void diagnose__sink(struct diagnose *d, struct printer_sink *s);
void diagnose__request(struct diagnose *d, const struct req_seen *s);
/* A write, by its submitter and whose data it was: called for every write,
 * also of processes a filter leaves out (what a journal commit wrote for
 * others is what the traced process waited for). */
void diagnose__owner(struct diagnose *d, const struct req_seen *s);
void diagnose__write(struct diagnose *d, const struct life_sysfs *w);
void diagnose__upper(struct diagnose *d, const struct life_upper *u);
void diagnose__summary(struct diagnose *d, const struct req_summary *sum);
/* The disk dev's figures, or NULL: none seen. */
struct dx_disk *diagnose__disk(const struct diagnose *d, uint32_t dev);
/* A disk's current second of D2C into its history (the rules close it). */
void diagnose__second_end(struct dx_disk *k);
void diagnose__stack(struct diagnose *d, const struct life_stack_stats *s);
/* One system call's slow calls over the run (why's summary). */
void diagnose__calls(struct diagnose *d, const struct dx_calls *c);
/* A process's readahead totals over the run (readahead.bpf.c, by process). */
void diagnose__readahead(struct diagnose *d, uint32_t pid, const char *comm, const struct ra_val *v);
/* The machine's file refaults over the run (/proc/vmstat's workingset_*_file). */
void diagnose__refaults(struct diagnose *d, uint64_t refaults, uint64_t activations);
/* A writer's dirty throttling over the run (throttle.bpf.c's totals). */
void diagnose__throttle(struct diagnose *d, const struct throttle_key *k, const struct throttle_val *v);
/* The findings, the most costly first; lost events, when found, ahead of
 * all (they qualify the rest); "nothing wrong" when nothing else is.
 * Returns how many (at least 1). */
unsigned diagnose__findings(struct diagnose *d, struct dx_finding *f, unsigned max);

#endif

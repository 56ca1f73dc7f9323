/* SPDX-License-Identifier: GPL-2.0 */
/* iodig top's own parts: the front end (top.c) and its rows (top_rows.c). */
#ifndef IODIG_TOP_INT_H
#define IODIG_TOP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "cli.h"
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "hist_user.h"
#include "json.h"
#include "life_user.h"
#include "procio.h"
#include "run.h"

enum top_by { BY_PROCESS, BY_CGROUP, BY_DISK };
#define M(by) (1u << (by))	/* a field table's mode: rows by this */
enum top_sort { SORT_BYTES, SORT_IOS, SORT_AVG, SORT_P99, SORT_Q2G, SORT_PID };

extern const char *const top_by_names[3];	/* by process, cgroup, disk */

struct top_opts {
	struct cli_common c;
	enum top_by by;
	enum top_sort sort;
	unsigned long long rows, pid;
	bool batch;
	const char *disk, *cgroup, *comm;
	struct disk_sel sel;
	struct run_loop loop;
};

/* One line of the table: what the key's requests did this interval. */
struct top_row {
	uint32_t pid, dev, ndisks;	/* ndisks: other disks besides dev */
	uint32_t wb_pid;		/* writeback of pages this process dirtied, or 0 */
	char wb_comm[LIFE_COMM_LEN];
	uint32_t devs[8];
	uint64_t cgroup;
	char comm[LIFE_COMM_LEN];
	uint64_t ios[3], bytes[3];	/* read, write, other (flush, discard, ...) */
	uint64_t q2g_ns;
	struct hist q2c;
	int64_t proc_read, proc_write;	/* /proc/PID/io deltas; -1: unknown */
};

struct top_ctx {
	struct top_opts *o;
	struct life l;
	struct top_row *rows;
	int nrows, cap;
	struct procio io;	/* each process's own /proc/PID/io */
	struct life_stats last;
	unsigned long long last_missed;	/* the programs' recursion misses so far */
	struct json j;
	uint64_t interval;
	uint64_t t_last;	/* the last report (or the start), monotonic ns */
	bool tty;
	uint32_t stacked[64];	/* bio-based disks over others (sysfs slaves) */
	int nstacked;
};

struct top_values {
	uint64_t completed, map_full, unattributed, missed;
	int64_t skipped;
};

extern const struct counter top_counters[5];
extern const struct rec top_rec, top_end_rec;

/* the end of an interval, with its counters */
struct top_end {
	uint64_t interval, ts_ns, time, rows;
	struct top_values v;
};

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig top: block I/O per process (biotop, iotop), every interval.  The
 * request-life engine in its top mode keeps, per submitter at Q, disk and
 * op, histograms of Q2C, Q2G and bytes; here they are summed into rows by
 * process, cgroup or disk, sorted, and shown beside each process's own
 * /proc/PID/io counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "top_int.h"
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "recs.h"
#include "filter.h"
#include "hist_user.h"
#include "histmap.h"
#include "json.h"
#include "life_user.h"
#include "life.skel.h"
#include "log.h"
#include "procio.h"
#include "run.h"
#include "text.h"
#include "sort.h"

enum { OPT_BY = OPT_FIRST_CMD, OPT_SORT };

static const char *const sort_names[] = { "bytes", "ios", "avg", "p99", "q2g", "pid" };

static struct top_row *row_of(struct top_ctx *tc, const struct life_top_key *k)
{
	enum top_by by = tc->o->by;
	int i;

	for (i = 0; i < tc->nrows; i++) {
		struct top_row *r = &tc->rows[i];

		if (by == BY_PROCESS ? r->pid == k->pid && r->wb_pid == k->wb_pid &&
				       !strncmp(r->comm, k->comm, LIFE_COMM_LEN)
		    : by == BY_CGROUP ? r->cgroup == k->cgroup : r->dev == k->dev)
			break;
	}
	if (i == tc->nrows) {
		if (tc->nrows == tc->cap) {
			void *p = realloc(tc->rows, (tc->cap = tc->cap ? 2 * tc->cap : 64) * sizeof(*tc->rows));

			if (!p)
				return NULL;
			tc->rows = p;
		}
		memset(&tc->rows[i], 0, sizeof(tc->rows[i]));
		tc->rows[i].pid = k->pid;
		tc->rows[i].cgroup = k->cgroup;
		tc->rows[i].dev = k->dev;
		memcpy(tc->rows[i].comm, k->comm, LIFE_COMM_LEN);
		tc->rows[i].comm[LIFE_COMM_LEN - 1] = '\0';
		if (by == BY_PROCESS && k->wb_pid) {
			tc->rows[i].wb_pid = k->wb_pid;
			/* named when it dirtied: it may be gone */
			if (!life__dirtier_comm(&tc->l, k->wb_pid, tc->rows[i].wb_comm, LIFE_COMM_LEN))
				strcpy(tc->rows[i].wb_comm, "?");
		}
		tc->nrows++;
	}
	return &tc->rows[i];
}

static void note_stacked(uint32_t upper, uint32_t lower, void *ctx)
{
	struct top_ctx *tc = ctx;

	for (int i = 0; i < tc->nstacked; i++)
		if (tc->stacked[i] == upper)
			return;
	if (tc->nstacked < (int)(sizeof(tc->stacked) / sizeof(tc->stacked[0])))
		tc->stacked[tc->nstacked++] = upper;
}

/* A process's row counts each I/O once: a disk stacked on others (dm, md,
 * bcache) only when it is asked for (-d) or rows are by disk; else its I/O
 * is what the disks below it count.  (zram, on nothing, always counts.) */
static bool counted_below(const struct top_ctx *tc, uint32_t dev)
{
	if (tc->o->by == BY_DISK || tc->o->sel.disk)
		return false;
	for (int i = 0; i < tc->nstacked; i++)
		if (tc->stacked[i] == dev)
			return true;
	return false;
}

static int top_take(void *ctx, const void *key, const struct hist *h)
{
	struct top_ctx *tc = ctx;
	const struct life_top_key *k = key;
	struct top_row *r;
	int op = k->op == 0 ? 0 : k->op == 1 ? 1 : 2;	/* REQ_OP_READ, REQ_OP_WRITE */

	if (counted_below(tc, k->dev))
		return 0;
	r = row_of(tc, k);
	if (!r)
		return fail("collecting rows", "out of memory");
	switch (k->what) {
	case TOP_Q2C:
		hist__merge(&r->q2c, h);
		if (k->dev != r->dev) {	/* a process on several disks */
			uint32_t i;

			for (i = 0; i < r->ndisks && r->devs[i] != k->dev; i++)
				;
			if (i == r->ndisks && i < sizeof(r->devs) / sizeof(r->devs[0]))
				r->devs[r->ndisks++] = k->dev;
		}
		break;
	case TOP_Q2G:	/* (this one and the bytes carry only count and sum: life.bpf.h tops_add) */
		r->q2g_ns += h->sum;
		break;
	case TOP_BYTES:
		r->ios[op] += h->count;
		r->bytes[op] += h->sum;
		break;
	}
	return 0;
}

static double sort_value(const struct top_row *r, enum top_sort s)
{
	switch (s) {
	case SORT_BYTES: return r->bytes[0] + r->bytes[1];	/* the bytes shown: a discard's are not read or written */
	case SORT_IOS: return r->ios[0] + r->ios[1] + r->ios[2];
	case SORT_AVG: return r->q2c.count ? (double)r->q2c.sum / r->q2c.count : 0;
	case SORT_P99: return hist__percentile(&r->q2c, 0.99);
	case SORT_Q2G: return r->q2c.sum ? (double)r->q2g_ns / r->q2c.sum : 0;
	case SORT_PID: return -(double)r->pid;
	}
	return 0;
}

static enum top_sort sort_by;

static int cmp_rows(const void *a, const void *b)
{
	double x = sort_value(a, sort_by), y = sort_value(b, sort_by);

	if (x != y)
		return x > y ? -1 : 1;
	return (int)((const struct top_row *)a)->pid - (int)((const struct top_row *)b)->pid;
}

static int top_report(void *ctx, bool last)
{
	struct top_ctx *tc = ctx;
	struct life_bpf *sk = tc->l.skel;
	__u32 old = histmap__flip(&sk->bss->epoch);
	uint64_t now = run__mono_ns();
	double secs = (now - tc->t_last) / 1e9;
	struct life_stats s, d;
	struct top_values v;
	unsigned long long m;
	struct fctx fc;
	int err, shown;

	tc->t_last = now;
	tc->nrows = 0;
	err = histmap__drain_rows(bpf_map__fd(old ? sk->maps.top_rows1 : sk->maps.top_rows0),
				  bpf_map__fd(old ? sk->maps.tops1 : sk->maps.tops0), bpf_map__fd(sk->maps.tops_spill),
				  old, sizeof(struct life_top_key), TOP_NR, offsetof(struct life_top_key, what),
				  top_take, tc);
	if (err)
		return err < 0 ? fail("collecting rows", "%s", strerror(-err)) : err;
	procio__scan(&tc->io);
	for (int i = 0; i < tc->nrows; i++) {
		struct top_row *r = &tc->rows[i];

		if (!r->pid || !procio__delta(&tc->io, r->pid, &r->proc_read, &r->proc_write))
			r->proc_read = r->proc_write = -1;
	}
	sort_by = tc->o->sort;
	sort__any(tc->rows, tc->nrows, sizeof(*tc->rows), cmp_rows);
	life__stats(&tc->l, &s);
	counters__delta(&d, &s, &tc->last, sizeof(d));
	m = bpfenv__recursion_misses(sk->obj);
	v = (struct top_values){ d.completed, d.map_full, 0, m - tc->last_missed, life__skipped_interval(&tc->l) };
	tc->last_missed = m;
	for (int i = 0; i < tc->nrows; i++)
		if (!tc->rows[i].pid)
			v.unattributed += tc->rows[i].q2c.count;
	shown = tc->o->rows && (int)tc->o->rows < tc->nrows ? (int)tc->o->rows : tc->nrows;
	for (int i = 0; i < shown; i++)	/* the next delta of a process shown counts from now */
		if (tc->rows[i].proc_read >= 0)
			procio__shown(&tc->io, tc->rows[i].pid);
	tc->interval++;
	fc = (struct fctx){ .mode = M(tc->o->by), .secs = secs, .interval = tc->interval,
			    .by = top_by_names[tc->o->by], .user = tc };
	if (tc->o->c.json) {
		for (int i = 0; i < shown; i++)
			fields__json(&tc->j, &top_rec, &tc->rows[i], &fc);
		struct top_end e = { tc->interval, now, (uint64_t)time(NULL), tc->nrows, v };

		fields__json(&tc->j, &top_end_rec, &e, &fc);
		return 0;
	}
	if (tc->tty && !tc->o->batch)
		fputs("\033[H\033[2J", stdout);
	{
		time_t t = time(NULL);
		struct tm tm;
		char ts[16];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime_r(&t, &tm));
		printf("%s  %.1f s, %llu requests, by %s%s\n", ts, secs, (unsigned long long)d.completed,
		       top_by_names[tc->o->by], last ? " (last)" : "");
	}
	fields__head(stdout, &top_rec, &fc);
	for (int i = 0; i < shown; i++)
		fields__text(stdout, &top_rec, &tc->rows[i], &fc);
	if (shown < tc->nrows)
		printf("(%d more)\n", tc->nrows - shown);
	counters__lines(stdout, top_counters, COUNTERS_N(top_counters), &v, 0);
	if (!tc->tty || tc->o->batch)
		putchar('\n');
	return 0;
}

static int top_wait(void *ctx, int ms)
{
	struct top_ctx *tc = ctx;

	return life__poll(&tc->l, ms);
}

static int top_args(void *ctx, int argc, char **argv, int optind)
{
	struct top_opts *o = ctx;

	return run__parse_interval(argc, argv, optind, &o->loop);
}

int cmd_top(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "by", OPT_BY, "KEY", "rows by process (default), cgroup or disk",
		  CLI_PICK_AT(struct top_opts, by, top_by_names, 3) },
		{ "sort", OPT_SORT, "COL", "sort by bytes (default), ios, avg, p99, q2g or pid",
		  CLI_PICK_AT(struct top_opts, sort, sort_names, 6) },
		{ "rows", 'n', "N", "the first N rows (default 20; 0: all)",
		  CLI_UINT_AT(struct top_opts, rows, 0, 100000, "a number of rows (0: all)") },
		{ "batch", 'b', NULL, "plain lines, no screen refresh (also when not on a terminal)",
		  CLI_FLAG_AT(struct top_opts, batch) },
		{ "disk", 'd', "DISK", "only this disk (or partition)", CLI_STR_AT(struct top_opts, disk) },
		{ "pid", 'p', "PID", "only requests this process submitted, and the writeback of\n"
				      "pages it dirtied" ,
		  CLI_UINT_AT(struct top_opts, pid, 1, 0x7fffffff, "a process id") },
		{ "comm", 'C', "NAME", "only requests submitted by tasks of this name", CLI_STR_AT(struct top_opts, comm) },
		{ "cgroup", 'c', "CGROUP", "only I/O charged to this cgroup", CLI_STR_AT(struct top_opts, cgroup) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "top",
		.synopsis = "[options] [interval [count]]",
		.about = "Block I/O per process every interval (default 1 s), as biotop and iotop: reads\n"
			 "and writes per second, KB/s, mean and p99 latency (Q2C: from submission to\n"
			 "completion) and the share of that time spent before a request existed (Q2G:\n"
			 "a frozen or starved queue).  A request counts for the task that submitted it\n"
			 "(at Q), not for whichever task was on the CPU when it completed.  Writeback\n"
			 "is shown as the task that submits it (a kworker flusher, sync, ...), in a row\n"
			 "of its own for each process that dirtied the pages (\"writeback for dd[412]\":\n"
			 "the file's last dirtier, from writeback_dirty_folio).  Beside each process,\n"
			 "its own /proc/PID/io read_bytes and write_bytes since its last row shown.\n",
		.opts = opts, .args = top_args, .tracing = true, .slim_btf = true,
		.privileges = "The IO_RKB/s and IO_WKB/s columns of other users' processes (their /proc/PID/io)\n"
			 "need CAP_SYS_PTRACE; without it they are left empty.\n" };
	struct top_opts o = { .rows = 20 };
	struct top_ctx tc = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_TOP };
	uint64_t cgid = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (!o.loop.interval_ms)
		o.loop.interval_ms = 1000;
	if ((err = filter__io(o.pid, o.disk, &o.sel, o.cgroup, &cgid)))
		return err;
	cfg.dev = o.sel.disk;
	cfg.part = o.sel.part;
	cfg.cgroup = cgid;
	cfg.top_cgroups = o.by == BY_CGROUP;
	cfg.pid = o.pid;
	cfg.comm = o.comm;
	tc.tty = isatty(STDOUT_FILENO);
	json__init(&tc.j, stdout);
	disks__stacked(note_stacked, &tc);
	if ((err = life__start(&tc.l, &cfg, NULL, NULL)))
		goto out;
	procio__scan(&tc.io);
	tc.t_last = run__mono_ns();
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing block I/O per process... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = top_wait;
	o.loop.report = top_report;
	o.loop.ctx = &tc;
	err = run__loop(&o.loop);
out:
	life__stop(&tc.l);
	free(tc.rows);
	procio__free(&tc.io);
	return err;
}

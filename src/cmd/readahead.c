// SPDX-License-Identifier: GPL-2.0
/*
 * iodig readahead: per file (or process), the pages readahead added beyond
 * what reads asked for (sync: a read missed; async: a read reached the
 * readahead mark), how many were used before eviction, wasted (evicted
 * unused) or still waiting, the time from readahead to first use, the
 * window sizes chosen, and reads of files opened or advised for random
 * access (readahead off).  Running totals differenced per report.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfeatures.h"
#include "bpfenv.h"
#include "cli.h"
#include "filter.h"
#include "cmds.h"
#include "counters.h"
#include "hist_user.h"
#include "histmap.h"
#include "fields.h"
#include "json.h"
#include "log.h"
#include "procfiles.h"
#include "readahead.h"
#include "rows.h"
#include "recs.h"
#include "run.h"
#include "text.h"
#include "readahead.skel.h"
#include "sort.h"

enum { OPT_BY = OPT_FIRST_CMD };

static const char *const by_names[] = { "file", "process" };

struct ra_row {
	struct ra_key k;
	struct ra_val total, d;	/* running totals, this report's difference */
	struct hist to_use;	/* this report's */
	struct procfile file;	/* --by file: its name, looked for once */
};

struct ra_opts {
	struct cli_common c;
	enum ra_by by;
	unsigned long long pid, top;
	struct run_loop loop;
};

struct ra_ctx {
	struct ra_opts *o;
	struct readahead_bpf *sk;
	struct ra_row *rows;
	size_t n, cap;
	int ncpus;
	struct ra_val *percpu;
	struct json j;
	uint64_t interval;
	struct ra_stats last;
};

static struct ra_row *row_of(struct ra_ctx *rc, const struct ra_key *k)
{
	return rows__get((void **)&rc->rows, &rc->n, &rc->cap, sizeof(*rc->rows), k, sizeof(*k));
}

static uint64_t ra_pages(const struct ra_val *v)
{
	return v->pages[RA_SYNC] + v->pages[RA_ASYNC];
}

/* read ahead and neither used nor evicted yet, since the start */
static uint64_t pending(const struct ra_val *t)
{
	uint64_t done = t->used + t->wasted;

	return ra_pages(t) > done ? ra_pages(t) - done : 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct ra_row *x = a, *y = b;
	uint64_t u = ra_pages(&x->d) + x->d.used + x->d.wasted + x->d.demand;
	uint64_t v = ra_pages(&y->d) + y->d.used + y->d.wasted + y->d.demand;

	if (u != v)
		return u > v ? -1 : 1;
	return x->k.id < y->k.id ? -1 : x->k.id > y->k.id;
}

static int take_use(void *ctx, const void *key, const struct hist *h)
{
	struct ra_row *r = row_of(ctx, key);

	if (r)
		hist__merge(&r->to_use, h);
	return r ? 0 : -ENOMEM;
}

/* ---- the row, declared once (fields.h): modes are 1 << by ---- */

#define RR(f) offsetof(struct ra_row, f)
#define M(by) (1u << (by))

static void g_pending(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = pending(&((const struct ra_row *)row)->total);
}


static void t_use(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct ra_val *d = &((const struct ra_row *)row)->d;

	if (d->used + d->wasted) {
		v->k = V_DBL;
		v->d = 100.0 * d->used / (d->used + d->wasted);
	}
}

/* the largest window chosen this interval */
static void t_window(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct ra_val *d = &((const struct ra_row *)row)->d;

	v->k = V_U64;
	v->u = 0;
	for (int s = 0; s < RA_WIN_SLOTS; s++)
		if (d->windows[s])
			v->u = 1ULL << s;
}

static void t_to_use(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct ra_row *r = row;

	if (r->to_use.count) {
		v->k = V_STR;
		v->s = fmt_ns(b, n, hist__percentile(&r->to_use, 0.5));
	}
}

/* pid and name, or the file: its path, else its device and inode */
static void t_name(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct ra_row *r = row;
	char safe[TEXT_SAFE_LEN(4096)];

	if (((const struct ra_ctx *)c->user)->o->by == RA_BY_PROCESS)
		snprintf(b, n, "%-7llu %s", (unsigned long long)r->k.id, text__safe(r->k.comm, safe, sizeof(safe)));
	else if (r->file.path)
		snprintf(b, n, "%s", text__safe(r->file.path, safe, sizeof(safe)));
	else
		snprintf(b, n, "%u:%u ino %llu", r->k.dev >> 20, r->k.dev & 0xfffff, (unsigned long long)r->k.id);
	v->k = V_STR;
	v->s = b;
}

static const struct field ra_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "by", FS_BY },
	{ "pid", FS_U64, RR(k.id), .only = M(RA_BY_PROCESS) },
	{ "comm", FS_CHARS, RR(k.comm), .only = M(RA_BY_PROCESS) },
	{ "dev", FS_DEVT, RR(k.dev), .only = M(RA_BY_FILE) },
	{ "ino", FS_U64, RR(k.id), .only = M(RA_BY_FILE) },
	{ "path", FS_PSTR, RR(file.path), .flags = FL_NULLABLE, .only = M(RA_BY_FILE) },
	{ "sync_calls", FS_U64, RR(d.calls[RA_SYNC]) },
	{ "async_calls", FS_U64, RR(d.calls[RA_ASYNC]) },
	{ "sync_pages", FS_U64, RR(d.pages[RA_SYNC]), .head = "SYNC", .fmt = "%7llu" },
	{ "async_pages", FS_U64, RR(d.pages[RA_ASYNC]), .head = "ASYNC", .fmt = "%7llu" },
	{ NULL, FS_U64, RR(d.used), .head = "USED", .fmt = "%8llu" },
	{ NULL, FS_U64, RR(d.wasted), .head = "WASTED", .fmt = "%8llu" },
	{ NULL, FS_GET, .get = g_pending, .head = "PENDING", .fmt = "%8llu" },
	{ "demand_pages", FS_U64, RR(d.demand), .head = "DEMAND", .fmt = "%8llu" },
	{ NULL, FS_GET, .head = "USE%", .fmt = "%6.1f%%", .hw = 7, .tget = t_use },
	{ "used", FS_U64, RR(d.used) },
	{ "wasted", FS_U64, RR(d.wasted) },
	{ "pending", FS_GET, .get = g_pending, .flags = FL_INT },
	{ "random_reads", FS_U64, RR(d.random), .head = "RANDOM", .fmt = "%7llu" },
	{ NULL, FS_GET, .head = "WINDOW", .fmt = "%6llu", .tget = t_window },
	{ "ra_max", FS_U64, RR(d.ra_max), .head = "LIMIT", .fmt = "%6llu" },
	{ "windows", FS_LOG2, offsetof(struct ra_row, d.windows), .nsub = RA_WIN_SLOTS },
	{ "to_use", FS_HIST, offsetof(struct ra_row, to_use), .head = "TO_USE", .fmt = "%9s", .tget = t_to_use },
	{ NULL, FS_GET, .only = M(RA_BY_FILE), .head = " FILE", .fmt = " %s", .hw = -5, .tget = t_name,
	  .flags = FL_SAFE },
	{ NULL, FS_GET, .only = M(RA_BY_PROCESS), .head = " PID     COMM", .fmt = " %s", .hw = -13, .tget = t_name,
	  .flags = FL_SAFE },
};

const struct rec ra_rec = REC("readahead", "readahead", "readahead: one row (a file or a process) of one interval, "
			      "in pages; pending and ra_max since the start", ra_fields);

struct ra_values {
	uint64_t rows, map_full, track_full;
};

static const struct counter ra_counters[] = {
	{ "rows", offsetof(struct ra_values, rows), NULL },
	{ "map_full", offsetof(struct ra_values, map_full), "lost: %llu events found the row table full" },
	{ "track_full", offsetof(struct ra_values, track_full),
	  "not followed: %llu read-ahead pages (no room to track them)" },
};

struct ra_end {
	uint64_t interval, time, ts_ns;
	struct ra_values v;
	bool last;
};

#define RE(f) offsetof(struct ra_end, f)
static const struct field ra_end_fields[] = {
	{ "interval", FS_U64, RE(interval) },
	{ "time", FS_U64, RE(time) },
	{ "ts_ns", FS_U64, RE(ts_ns) },
	{ "counters", FS_COUNTERS, RE(v), .sub = ra_counters, .nsub = COUNTERS_N(ra_counters) },
	{ "last", FS_BOOL, RE(last) },
};

const struct rec ra_end_rec = REC("interval_end", "readahead.interval_end", "readahead: the counters of one interval",
				  ra_end_fields);

static int ra_report(void *ctx, bool last)
{
	struct ra_ctx *rc = ctx;
	struct readahead_bpf *sk = rc->sk;
	int fd = bpf_map__fd(sk->maps.rows), err;
	struct ra_key k, next, *prev = NULL;
	struct ra_stats st = sk->bss->stats;
	struct ra_values v;
	__u32 old = histmap__flip(&sk->bss->epoch);
	size_t shown = 0, active = 0;
	struct fctx fc;

	rc->interval++;
	for (size_t i = 0; i < rc->n; i++) {
		memset(&rc->rows[i].d, 0, sizeof(rc->rows[i].d));
		memset(&rc->rows[i].to_use, 0, sizeof(rc->rows[i].to_use));
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ra_val sum = {};
		struct ra_row *r;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, rc->percpu))
			continue;
		counters__sum_cpus(&sum, rc->percpu, rc->ncpus, sizeof(sum));
		sum.ra_max = 0;		/* a maximum, not a total */
		for (int c = 0; c < rc->ncpus; c++)
			if (rc->percpu[c].ra_max > sum.ra_max)
				sum.ra_max = rc->percpu[c].ra_max;
		if (!(r = row_of(rc, &k)))
			return fail("collecting rows", "out of memory");
		counters__delta(&r->d, &sum, &r->total, sizeof(sum));
		r->d.ra_max = sum.ra_max;	/* since the start, not this interval's */
	}
	err = histmap__drain(bpf_map__fd(old ? sk->maps.uses1 : sk->maps.uses0),
			     bpf_map__fd(sk->maps.uses_spill), old, sizeof(struct ra_key), take_use, rc);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	sort__any(rc->rows, rc->n, sizeof(*rc->rows), cmp_rows);
	for (size_t i = 0; i < rc->n; i++) {
		const struct ra_val *d = &rc->rows[i].d;

		active += ra_pages(d) || d->used || d->wasted || d->demand || d->random ||
			  d->calls[RA_SYNC] || d->calls[RA_ASYNC];
	}
	shown = rc->o->top && rc->o->top < active ? rc->o->top : active;
	if (rc->o->by == RA_BY_FILE) {
		for (size_t i = 0; i < shown; i++) {
			rc->rows[i].file.dev = rc->rows[i].k.dev;
			rc->rows[i].file.ino = rc->rows[i].k.id;
		}
		procfiles__name_rows(rc->rows, shown, sizeof(*rc->rows), offsetof(struct ra_row, file));
	}
	v = (struct ra_values){ shown, st.map_full - rc->last.map_full, st.track_full - rc->last.track_full };
	fc = (struct fctx){ .mode = M(rc->o->by), .interval = rc->interval, .by = by_names[rc->o->by],
			    .user = rc };
	if (rc->o->c.json) {
		struct ra_end e = { rc->interval, (uint64_t)time(NULL), run__mono_ns(), v, last };

		for (size_t i = 0; i < shown; i++)
			fields__json(&rc->j, &ra_rec, &rc->rows[i], &fc);
		fields__json(&rc->j, &ra_end_rec, &e, &fc);
	} else {
		if (rc->o->loop.timestamp)
			run__print_time(stdout);
		fields__head(stdout, &ra_rec, &fc);
		for (size_t i = 0; i < shown; i++)
			fields__text(stdout, &ra_rec, &rc->rows[i], &fc);
		if (!shown)
			printf("no readahead%s\n", rc->o->loop.interval_ms ? " in this interval" : "");
		counters__lines(stdout, ra_counters, COUNTERS_N(ra_counters), &v, 0);
		putchar('\n');
	}
	rc->last = st;
	return 0;
}

static int ra_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct ra_opts *)ctx)->loop);
}

int cmd_readahead(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "by", OPT_BY, "KEY", "rows by file (default) or process", CLI_PICK_AT(struct ra_opts, by, by_names, 2) },
		{ "top", 'n', "N", "the N busiest rows (default 10; 0: all)",
		  CLI_UINT_AT(struct ra_opts, top, 0, 1000000, "a number of rows") },
		{ "pid", 'p', "PID", "only readahead this process does", CLI_UINT_AT(struct ra_opts, pid, 1, 0x7fffffff, "a process id") },
		{ "timestamp", 'T', NULL, "a time line before each interval", CLI_FLAG_AT(struct ra_opts, loop.timestamp) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "readahead",
		.synopsis = "[options] [interval [count]]",
		.about = "Readahead efficiency, in pages: read ahead beyond what reads asked for, by a read\n"
			 "that missed (SYNC) or reached the readahead mark (ASYNC); of those, USED (read or\n"
			 "mapped before eviction), WASTED (evicted unused) and PENDING (neither yet, since\n"
			 "the start); DEMAND: pages readahead added that the read asked for; RANDOM: reads\n"
			 "of files opened or advised for random access (FADV_RANDOM: no readahead);\n"
			 "WINDOW: the largest window chosen; LIMIT: the file's readahead limit (read_ahead_kb\n"
			 "in pages, doubled by FADV_SEQUENTIAL); TO_USE: median time to first use.\n",
		.notes = "Needs the readahead tracepoints of 6.18.  A large folio counts its pages and is\n"
			 "followed by its first page.\n",
		.opts = opts, .args = ra_args, .tracing = true };
	struct ra_opts o = { .top = 10 };
	struct ra_ctx rc = { .o = &o };
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if ((err = filter__pid_alive(o.pid)))
		return err;
	json__init(&rc.j, stdout);
	rc.ncpus = libbpf_num_possible_cpus();
	if (rc.ncpus <= 0 || !(rc.percpu = calloc(rc.ncpus, sizeof(*rc.percpu))))
		return fail("counting CPUs", "%s", strerror(rc.ncpus < 0 ? -rc.ncpus : ENOMEM));
	if ((err = kfeatures__need(NEED_TASK_STORAGE, "readahead")) || (err = kfeatures__need(NEED_LOOP, "readahead")))
		goto out;
	if (!(rc.sk = readahead_bpf__open_opts(bpfenv__open_opts()))) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	rc.sk->rodata->targ_by = o.by;
	rc.sk->rodata->filter_pid = o.pid;
	if ((err = readahead_bpf__load(rc.sk))) {
		err = bpfenv__fail("loading BPF programs (the readahead tracepoints need 6.18+)", err);
		goto out;
	}
	if ((err = bpfenv__attach(rc.sk->skeleton))) {
		err = bpfenv__fail("attaching to the readahead and filemap tracepoints", err);
		goto out;
	}
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing readahead... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = run__sleep_ms;
	o.loop.report = ra_report;
	o.loop.ctx = &rc;
	err = run__loop(&o.loop);
out:
	readahead_bpf__destroy(rc.sk);
	for (size_t i = 0; i < rc.n; i++)
		free(rc.rows[i].file.path);
	free(rc.rows);
	free(rc.percpu);
	return err;
}

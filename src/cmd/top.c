// SPDX-License-Identifier: GPL-2.0
/*
 * iodig top: block I/O per process (biotop, iotop), every interval.  The
 * request-life engine in its top mode keeps, per submitter at Q, disk and
 * op, histograms of Q2C, Q2G and bytes; here they are summed into rows by
 * process, cgroup or disk, sorted, and shown beside each process's own
 * /proc/PID/io counters.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include "run.h"
#include "text.h"

enum top_by { BY_PROCESS, BY_CGROUP, BY_DISK };
enum top_sort { SORT_BYTES, SORT_IOS, SORT_AVG, SORT_P99, SORT_Q2G, SORT_PID };
enum { OPT_BY = OPT_FIRST_CMD, OPT_SORT };

static const char *const by_names[] = { "process", "cgroup", "disk" };
static const char *const sort_names[] = { "bytes", "ios", "avg", "p99", "q2g", "pid" };

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

/* A process's /proc/PID/io, kept from one interval to the next. */
struct proc_io {
	uint32_t pid;
	uint64_t read, write;
};

struct top_ctx {
	struct top_opts *o;
	struct life l;
	struct top_row *rows;
	int nrows, cap;
	struct proc_io *io, *io_last;
	int nio, nio_last, io_cap, io_last_cap;
	struct life_stats last;
	struct json j;
	uint64_t interval;
	uint64_t t_last;	/* the last report (or the start), monotonic ns */
	bool tty;
};

struct top_values {
	uint64_t completed, map_full, unattributed;
	int64_t skipped;
};

#define TV(f) offsetof(struct top_values, f)
static const struct counter top_counters[] = {
	{ "completed", TV(completed), NULL },
	{ "unattributed", TV(unattributed), "unattributed: %llu requests not seen at submission "
	  "(started before tracing, or a flush): pid 0" },
	{ "map_full", TV(map_full), "lost: %llu requests found the table full" },
	{ "skipped", TV(skipped), "skipped: %lld requests completed that the kernel ran no BPF "
	  "program for (a perf counter of block_rq_complete saw them): in no row", 0, 1 },
};

static int cmp_io(const void *a, const void *b)
{
	uint32_t x = ((const struct proc_io *)a)->pid, y = ((const struct proc_io *)b)->pid;

	return x < y ? -1 : x > y;
}

/* Every process's read_bytes and write_bytes now, sorted by pid: a
 * process's row is its delta since the last scan (0 before, if it did not
 * exist then: its counters started at 0). */
static void io_scan(struct top_ctx *tc)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	{	/* this scan's table becomes the last one */
		struct proc_io *p = tc->io_last;
		int c = tc->io_last_cap;

		tc->io_last = tc->io;
		tc->nio_last = tc->nio;
		tc->io_last_cap = tc->io_cap;
		tc->io = p;
		tc->io_cap = c;
		tc->nio = 0;
	}
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[512];
		struct proc_io io = {};
		FILE *f;

		if (!text__is_decimal(e->d_name, false))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/io", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		io.pid = strtoul(e->d_name, NULL, 10);
		while (fgets(buf, sizeof(buf), f)) {
			unsigned long long v;

			if (sscanf(buf, "read_bytes: %llu", &v) == 1)
				io.read = v;
			else if (sscanf(buf, "write_bytes: %llu", &v) == 1)
				io.write = v;
		}
		fclose(f);
		if (tc->nio == tc->io_cap) {
			void *p = realloc(tc->io, (tc->io_cap = tc->io_cap ? 2 * tc->io_cap : 512) * sizeof(*tc->io));

			if (!p)
				break;
			tc->io = p;
		}
		tc->io[tc->nio++] = io;
	}
	closedir(d);
	qsort(tc->io, tc->nio, sizeof(*tc->io), cmp_io);
}

static const struct proc_io *io_find(const struct proc_io *t, int n, uint32_t pid)
{
	struct proc_io k = { .pid = pid };

	return n ? bsearch(&k, t, n, sizeof(*t), cmp_io) : NULL;
}

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
			struct life_dirtier d = {};

			tc->rows[i].wb_pid = k->wb_pid;
			/* named when it dirtied: it may be gone */
			if (bpf_map_lookup_elem(bpf_map__fd(tc->l.skel->maps.dirtier_comms), &k->wb_pid, &d))
				strcpy(d.comm, "?");
			memcpy(tc->rows[i].wb_comm, d.comm, LIFE_COMM_LEN);
			tc->rows[i].wb_comm[LIFE_COMM_LEN - 1] = '\0';
		}
		tc->nrows++;
	}
	return &tc->rows[i];
}

static int top_take(void *ctx, const void *key, const struct hist *h)
{
	struct top_ctx *tc = ctx;
	const struct life_top_key *k = key;
	struct top_row *r = row_of(tc, k);
	int op = k->op == 0 ? 0 : k->op == 1 ? 1 : 2;	/* REQ_OP_READ, REQ_OP_WRITE */

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
	case TOP_Q2G:
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

static const char *row_disk(const struct top_opts *o, const struct top_row *r, char *buf, size_t len)
{
	const char *name = o->sel.part ? o->sel.name : disks__name(r->dev);

	if (r->ndisks)
		snprintf(buf, len, "%s+%u", name, r->ndisks);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* ---- the row, declared once (fields.h): modes are 1 << by ---- */

#define ROW(f) offsetof(struct top_row, f)
#define M(by) (1u << (by))

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = row_disk(((const struct top_ctx *)c->user)->o, row, b, n);
}

static void g_writeback(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	if (r->wb_pid) {
		v->k = V_STR;
		snprintf(b, n, "%.*s[%u]", LIFE_COMM_LEN, r->wb_comm, r->wb_pid);
		v->s = b;
	}
}

static void g_wb_obj(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct top_row *)row)->wb_pid)
		v->k = V_BOOL;
}

static void g_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_STR;
	v->s = r->pid ? r->comm : "[not seen at Q]";
}

static void g_secs(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = c->secs;
}

static void g_avg(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_U64;
	v->u = r->q2c.count ? r->q2c.sum / r->q2c.count : 0;
}

static void t_avg_ms(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_DBL;
	v->d = r->q2c.count ? r->q2c.sum / 1e6 / r->q2c.count : 0;
}

static void g_p99(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = hist__percentile(&((const struct top_row *)row)->q2c, 0.99);
}

static void t_q2g_share(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_DBL;
	v->d = r->q2c.sum ? 100.0 * r->q2g_ns / r->q2c.sum : 0;
}

static void g_proc(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n, bool w)
{
	const struct top_row *r = row;

	if (((const struct top_ctx *)c->user)->o->by == BY_PROCESS && r->proc_read >= 0) {
		v->k = V_U64;
		v->u = w ? r->proc_write : r->proc_read;
	}
}

static void g_proc_r(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_proc(row, c, v, b, n, false);
}

static void g_proc_w(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_proc(row, c, v, b, n, true);
}

static const struct field wb_fields[] = {
	{ "pid", FS_U32, ROW(wb_pid) },
	{ "comm", FS_CHARS, ROW(wb_comm) },
};
static const struct rec wb_rec = REC(NULL, NULL, NULL, wb_fields);

static const struct field top_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "by", FS_BY },
	{ "pid", FS_U32, ROW(pid), .only = M(BY_PROCESS), .head = "PID", .fmt = "%7u" },
	{ "comm", FS_CHARS, ROW(comm), .only = M(BY_PROCESS), .head = "COMM", .fmt = "%-16s", .tget = g_comm },
	{ "writeback_for", FS_OBJ, .get = g_wb_obj, .only = M(BY_PROCESS), .sub = &wb_rec },
	{ "cgroup", FS_U64, ROW(cgroup), .only = M(BY_CGROUP), .head = "CGROUP", .fmt = "%24llu" },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR, .only = M(BY_PROCESS) | M(BY_DISK) },
	{ NULL, FS_GET, .get = g_disk, .only = M(BY_DISK), .head = "DISK", .fmt = "%-24s" },
	{ "reads", FS_U64, ROW(ios[0]), .head = "R/s", .fmt = "%8.0f", .flags = FL_RATE },
	{ "writes", FS_U64, ROW(ios[1]), .head = "W/s", .fmt = "%8.0f", .flags = FL_RATE },
	{ "others", FS_U64, ROW(ios[2]) },
	{ "read_bytes", FS_U64, ROW(bytes[0]), .head = "RKB/s", .fmt = "%9.0f", .flags = FL_RATE, .tdiv = 1024 },
	{ "write_bytes", FS_U64, ROW(bytes[1]), .head = "WKB/s", .fmt = "%9.0f", .flags = FL_RATE, .tdiv = 1024 },
	{ "seconds", FS_GET, .get = g_secs, .flags = FL_NUMBER },
	{ "avg_ns", FS_GET, .get = g_avg, .flags = FL_INT, .head = "AVG_ms", .fmt = "%8.2f", .tget = t_avg_ms },
	{ "p99_ns", FS_GET, .get = g_p99, .flags = FL_INT, .head = "P99_ms", .fmt = "%8.2f", .tdiv = 1e6 },
	{ "max_ns", FS_U64, ROW(q2c.max) },
	{ "q2g_ns", FS_U64, ROW(q2g_ns) },
	{ NULL, FS_GET, .head = "Q2G", .fmt = "%5.1f%%", .hw = 6, .tget = t_q2g_share },
	{ "q2c_ns", FS_U64, ROW(q2c.sum) },
	{ NULL, FS_GET, .get = g_disk, .only = M(BY_PROCESS), .head = "DISK", .fmt = "%-10s" },
	{ "proc_read_bytes", FS_GET, .get = g_proc_r, .flags = FL_INT | FL_NULLABLE },
	{ "proc_write_bytes", FS_GET, .get = g_proc_w, .flags = FL_INT | FL_NULLABLE },
	{ NULL, FS_GET, .get = g_proc_r, .flags = FL_RATE, .only = M(BY_PROCESS),
	  .head = "IO_RKB/s", .fmt = "%9.0f", .tdiv = 1024 },
	{ NULL, FS_GET, .get = g_proc_w, .flags = FL_RATE, .only = M(BY_PROCESS),
	  .head = "IO_WKB/s", .fmt = "%9.0f", .tdiv = 1024 },
	{ NULL, FS_GET, .tget = g_writeback, .flags = FL_TAIL, .fmt = "  writeback for %s" },
};

const struct rec top_rec = REC("top", "top", "top: one row (process, cgroup or disk) of one interval", top_fields);

struct top_end {
	uint64_t interval, ts_ns, time, rows;
	struct top_values v;
};

#define END(f) offsetof(struct top_end, f)
static const struct field top_end_fields[] = {
	{ "interval", FS_U64, END(interval) },
	{ "ts_ns", FS_U64, END(ts_ns) },
	{ "time", FS_U64, END(time) },
	{ "rows", FS_U64, END(rows) },
	{ "counters", FS_COUNTERS, END(v), .sub = top_counters, .nsub = COUNTERS_N(top_counters) },
};

const struct rec top_end_rec = REC("interval_end", "top.interval_end", "top: the end of an interval, with its counters",
				   top_end_fields);

static int top_report(void *ctx, bool last)
{
	struct top_ctx *tc = ctx;
	struct life_bpf *sk = tc->l.skel;
	__u32 old = histmap__flip(&sk->bss->epoch);
	uint64_t now = run__mono_ns();
	double secs = (now - tc->t_last) / 1e9;
	struct life_stats s, d;
	struct top_values v;
	struct fctx fc;
	int err, shown;

	tc->t_last = now;
	tc->nrows = 0;
	err = histmap__drain(bpf_map__fd(old ? sk->maps.tops1 : sk->maps.tops0),
			     sizeof(struct life_top_key), top_take, tc);
	if (err)
		return err < 0 ? fail("collecting rows", "%s", strerror(-err)) : err;
	io_scan(tc);
	for (int i = 0; i < tc->nrows; i++) {
		struct top_row *r = &tc->rows[i];
		const struct proc_io *now_io = io_find(tc->io, tc->nio, r->pid);
		const struct proc_io *was = io_find(tc->io_last, tc->nio_last, r->pid);

		r->proc_read = r->proc_write = -1;
		if (now_io && r->pid) {
			r->proc_read = now_io->read - (was ? was->read : 0);
			r->proc_write = now_io->write - (was ? was->write : 0);
		}
	}
	sort_by = tc->o->sort;
	qsort(tc->rows, tc->nrows, sizeof(*tc->rows), cmp_rows);
	life__stats(&tc->l, &s);
	counters__delta(&d, &s, &tc->last, sizeof(d));
	v = (struct top_values){ d.completed, d.map_full, 0, life__skipped_interval(&tc->l) };
	for (int i = 0; i < tc->nrows; i++)
		if (!tc->rows[i].pid)
			v.unattributed += tc->rows[i].q2c.count;
	shown = tc->o->rows && (int)tc->o->rows < tc->nrows ? (int)tc->o->rows : tc->nrows;
	tc->interval++;
	fc = (struct fctx){ .mode = M(tc->o->by), .secs = secs, .interval = tc->interval,
			    .by = by_names[tc->o->by], .user = tc };
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
		       by_names[tc->o->by], last ? " (last)" : "");
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

static int top_opt(void *ctx, int opt, const char *arg)
{
	struct top_opts *o = ctx;
	int i;

	switch (opt) {
	case 'd': o->disk = arg; return 0;
	case 'c': o->cgroup = arg; return 0;
	case 'b': o->batch = true; return 0;
	case 'p':
		if (!cli__uint(arg, 1, 0x7fffffff, &o->pid))
			return usage_error("-p '%s': a process id", arg);
		return 0;
	case 'C':
		o->comm = arg;
		return 0;
	case 'n':
		if (!cli__uint(arg, 0, 100000, &o->rows))
			return usage_error("-n '%s': a number of rows (0: all)", arg);
		return 0;
	case OPT_BY:
		if ((i = cli__pick("--by", arg, by_names, 3)) < 0)
			return -i;
		o->by = i;
		return 0;
	case OPT_SORT:
		if ((i = cli__pick("--sort", arg, sort_names, 6)) < 0)
			return -i;
		o->sort = i;
		return 0;
	}
	return -1;
}

static int top_args(void *ctx, int argc, char **argv, int optind)
{
	struct top_opts *o = ctx;

	return run__parse_interval(argc, argv, optind, &o->loop);
}

int cmd_top(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "by", OPT_BY, "KEY", "rows by process (default), cgroup or disk" },
		{ "sort", OPT_SORT, "COL", "sort by bytes (default), ios, avg, p99, q2g or pid" },
		{ "rows", 'n', "N", "the first N rows (default 20; 0: all)" },
		{ "batch", 'b', NULL, "plain lines, no screen refresh (also when not on a terminal)" },
		{ "disk", 'd', "DISK", "only this disk (or partition)" },
		{ "pid", 'p', "PID", "only requests this process submitted, and the writeback of\n"
				      "pages it dirtied" },
		{ "comm", 'C', "NAME", "only requests submitted by tasks of this name" },
		{ "cgroup", 'c', "CGROUP", "only I/O charged to this cgroup" },
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
			 "its own /proc/PID/io read_bytes and write_bytes over the interval.\n",
		.opts = opts, .opt = top_opt, .args = top_args, .tracing = true };
	struct top_opts o = { .rows = 20 };
	struct top_ctx tc = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_TOP };
	uint64_t cgid = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (!o.loop.interval_ms)
		o.loop.interval_ms = 1000;
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cgid)))
		return err;
	cfg.dev = o.sel.disk;
	cfg.part = o.sel.part;
	cfg.cgroup = cgid;
	cfg.pid = o.pid;
	cfg.comm = o.comm;
	tc.tty = isatty(STDOUT_FILENO);
	json__init(&tc.j, stdout);
	if ((err = life__start(&tc.l, &cfg, NULL, NULL)))
		goto out;
	io_scan(&tc);
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
	free(tc.io);
	free(tc.io_last);
	return err;
}

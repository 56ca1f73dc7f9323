// SPDX-License-Identifier: GPL-2.0
/*
 * iodig cache (cachestat, correct on kernels after 5.16): every interval,
 * page-cache accesses, hits, misses, dirtied, written back and evicted
 * pages, for the whole machine or per process, cgroup or file.  Running
 * totals in a per-CPU hash, differenced per report as `size` does.
 * --snapshot FILE...: what cachestat(2) (6.5+) says of each file now.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kfeatures.h"
#include "bpfenv.h"
#include "cache.h"
#include "cli.h"
#include "filter.h"
#include "cmds.h"
#include "counters.h"
#include "fields.h"
#include "json.h"
#include "log.h"
#include "procfiles.h"
#include "rows.h"
#include "recs.h"
#include "run.h"
#include "text.h"
#include "cache.skel.h"
#include "sort.h"

enum { OPT_BY = OPT_FIRST_CMD, OPT_SNAPSHOT };

static const char *const by_names[] = { "all", "process", "cgroup", "file" };

struct cache_row {
	struct cache_key k;
	struct cache_val last, d;	/* totals last seen, this report's difference */
	struct procfile file;		/* --by file: its name, looked for once */
};

struct cache_opts {
	struct cli_common c;
	enum cache_by by;
	unsigned long long pid, top;
	bool snapshot;
	char **files;
	int nfiles;
	struct run_loop loop;
};

struct cache_ctx {
	struct cache_opts *o;
	struct cache_bpf *sk;
	struct cache_row *rows;
	size_t n, cap;
	int ncpus;
	struct cache_val *percpu;
	struct json j;
	uint64_t interval, map_full_last, missed_last;
	char all_name[64];		/* text, --by all: the meminfo columns */
	bool no_access;			/* no mm_filemap_get_pages (before 6.12): no accesses, no hits */
	bool no_fault;			/* no mm_filemap_fault (before 6.12) */
};

/* Accesses less misses, signed and never clamped: pages added that no
 * access of the interval accounts for (read ahead and read in a later
 * interval, or accesses the kernel did not trace: docs/DESIGN.md) show as
 * negative hits, and are summed in misses_beyond_accesses. */
static int64_t hits(const struct cache_val *d)
{
	return (int64_t)d->accesses - (int64_t)d->added;
}

/* The name the file's dentries had when its row was made (cache.h). */
static void name_from_kernel(struct cache_ctx *cc, struct cache_row *r)
{
	struct cache_name n;
	const char *comps[CACHE_NAME_DEPTH];

	if (r->file.looked || bpf_map_lookup_elem(bpf_map__fd(cc->sk->maps.names), &r->k, &n) || !n.depth)
		return;
	for (unsigned i = 0; i < n.depth && i < CACHE_NAME_DEPTH; i++) {
		n.comp[i][CACHE_NAME_LEN - 1] = '\0';
		comps[i] = n.comp[i];
	}
	r->file.path = procfiles__join(r->k.dev, comps, n.depth, n.cut);
	r->file.looked = r->file.path != NULL;
}

static struct cache_row *row_of(struct cache_ctx *cc, const struct cache_key *k)
{
	return rows__get((void **)&cc->rows, &cc->n, &cc->cap, sizeof(*cc->rows), k, sizeof(*k));
}

static int cmp_rows(const void *a, const void *b)
{
	const struct cache_row *x = a, *y = b;
	uint64_t u = x->d.accesses + x->d.added + x->d.dirtied, v = y->d.accesses + y->d.added + y->d.dirtied;

	if (u != v)
		return u > v ? -1 : 1;
	return x->k.id < y->k.id ? -1 : x->k.id > y->k.id;
}

static void meminfo_mb(uint64_t *buffers, uint64_t *cached)
{
	char line[256];
	unsigned long long kb;
	FILE *f = fopen("/proc/meminfo", "r");

	*buffers = *cached = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Buffers: %llu kB", &kb) == 1)
			*buffers = kb / 1024;
		else if (sscanf(line, "Cached: %llu kB", &kb) == 1)
			*cached = kb / 1024;
	}
	fclose(f);
}

/* ---- the row, declared once (fields.h): modes are 1 << by ---- */

#define CR(f) offsetof(struct cache_row, f)
#define M(by) (1u << (by))
#define CTX(c) ((const struct cache_ctx *)(c)->user)

/* not measured (no tracepoint): null, never a 0 that looks like one */
static void g_accesses(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!CTX(c)->no_access) {
		v->k = V_U64;
		v->u = ((const struct cache_row *)row)->d.accesses;
	}
}

static void g_hits(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!CTX(c)->no_access) {
		v->k = V_I64;
		v->i = hits(&((const struct cache_row *)row)->d);
	}
}

static void g_ratio(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct cache_val *d = &((const struct cache_row *)row)->d;

	if (d->accesses) {
		v->k = V_DBL;
		v->d = (double)hits(d) / d->accesses;
	}
}

static void g_faults(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!CTX(c)->no_fault) {
		v->k = V_U64;
		v->u = ((const struct cache_row *)row)->d.faults;
	}
}

static void t_percent(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct cache_val *d = &((const struct cache_row *)row)->d;

	if (d->accesses) {
		v->k = V_DBL;
		v->d = 100.0 * hits(d) / d->accesses;
	}
}

/* the row's name: pid and comm, cgroup id, the file, or (--by all) the meminfo columns */
static void t_name(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct cache_row *r = row;
	char safe[TEXT_SAFE_LEN(4096)];

	switch (CTX(c)->o->by) {
	case CACHE_BY_PROCESS:
		snprintf(b, n, "%-7llu %s", (unsigned long long)r->k.id, text__safe(r->k.comm, safe, sizeof(safe)));
		break;
	case CACHE_BY_CGROUP:
		snprintf(b, n, "%llu", (unsigned long long)r->k.id);
		break;
	case CACHE_BY_FILE:
		if (r->file.path)
			snprintf(b, n, "%s", text__safe(r->file.path, safe, sizeof(safe)));
		else
			snprintf(b, n, "%u:%u ino %llu", r->k.dev >> 20, r->k.dev & 0xfffff, (unsigned long long)r->k.id);
		break;
	default:
		snprintf(b, n, "%s", CTX(c)->all_name);
	}
	v->k = V_STR;
	v->s = b;
}

#define NAME_COL(by, h) { NULL, FS_GET, .only = M(by), .head = " " h, .fmt = " %s", .hw = -(int)sizeof(h), \
			  .tget = t_name, .flags = FL_SAFE }
static const struct field cache_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "by", FS_BY },
	{ "pid", FS_U64, CR(k.id), .only = M(CACHE_BY_PROCESS) },
	{ "comm", FS_CHARS, CR(k.comm), .only = M(CACHE_BY_PROCESS) },
	{ "cgroup", FS_U64, CR(k.id), .only = M(CACHE_BY_CGROUP) },
	{ "dev", FS_DEVT, CR(k.dev), .only = M(CACHE_BY_FILE) },
	{ "ino", FS_U64, CR(k.id), .only = M(CACHE_BY_FILE) },
	{ "path", FS_PSTR, CR(file.path), .flags = FL_NULLABLE, .only = M(CACHE_BY_FILE) },
	{ "accesses", FS_GET, .get = g_accesses, .flags = FL_INT | FL_NULLABLE, .head = "ACCESSES", .fmt = "%10llu" },
	{ "hits", FS_GET, .get = g_hits, .flags = FL_INT | FL_NULLABLE, .head = "HITS", .fmt = "%10lld" },
	{ "misses", FS_U64, CR(d.added), .head = "MISSES", .fmt = "%10llu" },
	{ "hit_ratio", FS_GET, .get = g_ratio, .flags = FL_NUMBER | FL_NULLABLE, .head = "HIT%", .fmt = "%6.1f%%",
	  .hw = 7, .tget = t_percent },
	{ "dirtied", FS_U64, CR(d.dirtied), .head = "DIRTIED", .fmt = "%9llu" },
	{ "written", FS_U64, CR(d.written), .head = "WRITTEN", .fmt = "%9llu" },
	{ "evicted", FS_U64, CR(d.evicted), .head = "EVICTED", .fmt = "%9llu" },
	{ "faults", FS_GET, .get = g_faults, .flags = FL_INT | FL_NULLABLE, .head = "FAULTS", .fmt = "%8llu" },
	NAME_COL(CACHE_BY_ALL, "BUFFERS_MB CACHED_MB"),
	NAME_COL(CACHE_BY_PROCESS, "PID     COMM"),
	NAME_COL(CACHE_BY_CGROUP, "CGROUP"),
	NAME_COL(CACHE_BY_FILE, "FILE"),
};

const struct rec cache_rec = REC("cache", "cache", "cache: one row (all, a process, a cgroup or a file) of one "
				 "interval, in pages (accesses, hits and faults null on a kernel without their "
				 "tracepoints, before 6.12)", cache_fields);

struct cache_values {
	uint64_t rows, map_full, beyond, missed;
};

static const struct counter cache_counters[] = {
	{ "rows", offsetof(struct cache_values, rows), NULL },
	{ "map_full", offsetof(struct cache_values, map_full), "lost: %llu page-cache events found the row table full" },
	{ "misses_beyond_accesses", offsetof(struct cache_values, beyond), "disagree: %llu pages added "
	  "beyond the accesses of their rows (read ahead for later, or reads the kernel did not trace): "
	  "shown as negative hits" },
	{ "missed", offsetof(struct cache_values, missed), "lost: %llu runs of iodig's programs the kernel "
	  "skipped (one was already running on that CPU): their events not counted" },
};

struct cache_end {
	uint64_t interval, time, ts_ns;
	struct cache_values v;
	bool last;
};

#define CE(f) offsetof(struct cache_end, f)
static const struct field cache_end_fields[] = {
	{ "interval", FS_U64, CE(interval) },
	{ "time", FS_U64, CE(time) },
	{ "ts_ns", FS_U64, CE(ts_ns) },
	{ "counters", FS_COUNTERS, CE(v), .sub = cache_counters, .nsub = COUNTERS_N(cache_counters) },
	{ "last", FS_BOOL, CE(last) },
};

const struct rec cache_end_rec = REC("interval_end", "cache.interval_end", "cache: the counters of one interval", cache_end_fields);

static int cache_report(void *ctx, bool last)
{
	struct cache_ctx *cc = ctx;
	int fd = bpf_map__fd(cc->sk->maps.rows);
	struct cache_key k, next, *prev = NULL;
	struct cache_values v = {};
	size_t shown = 0, active = 0;
	uint64_t mf = cc->sk->bss->stats.map_full;
	struct fctx fc;

	cc->interval++;
	for (size_t i = 0; i < cc->n; i++)
		memset(&cc->rows[i].d, 0, sizeof(cc->rows[i].d));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct cache_val sum = {};
		struct cache_row *r;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, cc->percpu))
			continue;
		counters__sum_cpus(&sum, cc->percpu, cc->ncpus, sizeof(sum));
		if (!(r = row_of(cc, &k)))
			return fail("collecting rows", "out of memory");
		counters__delta(&r->d, &sum, &r->last, sizeof(sum));
	}
	sort__any(cc->rows, cc->n, sizeof(*cc->rows), cmp_rows);
	for (size_t i = 0; i < cc->n; i++) {
		const struct cache_val *d = &cc->rows[i].d;

		active += d->accesses || d->added || d->dirtied || d->written || d->evicted || d->faults;
	}
	shown = cc->o->top && cc->o->top < active ? cc->o->top : active;
	if (cc->o->by == CACHE_BY_FILE) {
		for (size_t i = 0; i < shown; i++) {
			cc->rows[i].file.dev = cc->rows[i].k.dev;
			cc->rows[i].file.ino = cc->rows[i].k.id;
			name_from_kernel(cc, &cc->rows[i]);
		}
		/* rows the kernel had no name for: whoever holds them open now */
		procfiles__name_rows(cc->rows, shown, sizeof(*cc->rows), offsetof(struct cache_row, file));
	}
	v.rows = shown;
	if (!cc->no_access)
		for (size_t i = 0; i < cc->n; i++)
			if (hits(&cc->rows[i].d) < 0)
				v.beyond += -hits(&cc->rows[i].d);
	v.map_full = mf - cc->map_full_last;
	cc->map_full_last = mf;
	{
		uint64_t m = bpfenv__recursion_misses(cc->sk->obj);

		v.missed = m - cc->missed_last;
		cc->missed_last = m;
	}
	fc = (struct fctx){ .mode = M(cc->o->by), .interval = cc->interval, .by = by_names[cc->o->by],
			    .user = cc };
	if (cc->o->c.json) {
		struct cache_end e = { cc->interval, (uint64_t)time(NULL), run__mono_ns(), v, last };

		for (size_t i = 0; i < shown; i++)
			fields__json(&cc->j, &cache_rec, &cc->rows[i], &fc);
		fields__json(&cc->j, &cache_end_rec, &e, &fc);
		return 0;
	}
	if (cc->o->loop.timestamp)
		run__print_time(stdout);
	if (cc->o->by == CACHE_BY_ALL) {
		/* cachestat's one line an interval, with what /proc/meminfo says */
		struct cache_row all = shown ? cc->rows[0] : (struct cache_row){};
		uint64_t buffers, cached;

		meminfo_mb(&buffers, &cached);
		if (cc->interval == 1)
			fields__head(stdout, &cache_rec, &fc);
		snprintf(cc->all_name, sizeof(cc->all_name), "%10llu %9llu", (unsigned long long)buffers,
			 (unsigned long long)cached);
		fields__text(stdout, &cache_rec, &all, &fc);
	} else {
		fields__head(stdout, &cache_rec, &fc);
		for (size_t i = 0; i < shown; i++)
			fields__text(stdout, &cache_rec, &cc->rows[i], &fc);
		if (!shown)
			printf("no page-cache activity%s\n", cc->o->loop.interval_ms ? " in this interval" : "");
		putchar('\n');
	}
	counters__lines(stdout, cache_counters, COUNTERS_N(cache_counters), &v, 0);
	return 0;
}

static int cache_args(void *ctx, int argc, char **argv, int optind)
{
	struct cache_opts *o = ctx;

	if (o->snapshot) {
		o->files = argv + optind;
		o->nfiles = argc - optind;
		return o->nfiles ? 0 : usage_error("--snapshot: no file given");
	}
	return run__parse_interval(argc, argv, optind, &o->loop);
}

int cmd_cache(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "by", OPT_BY, "KEY", "rows by all (default: one line), process, cgroup or file",
		  CLI_PICK_AT(struct cache_opts, by, by_names, 4) },
		{ "top", 'n', "N", "text: the N busiest rows (default 10; 0: all)",
		  CLI_UINT_AT(struct cache_opts, top, 0, 1000000, "a number of rows") },
		{ "pid", 'p', "PID", "only what this process does", CLI_UINT_AT(struct cache_opts, pid, 1, 0x7fffffff, "a process id") },
		{ "timestamp", 'T', NULL, "a time line before each interval", CLI_FLAG_AT(struct cache_opts, loop.timestamp) },
		{ "snapshot", OPT_SNAPSHOT, NULL, "FILE...: each file's cached, dirty and evicted pages now\n"
						      "(cachestat(2), 6.5+; no tracing)" , CLI_FLAG_AT(struct cache_opts, snapshot) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "cache",
		.synopsis = "[options] [interval [count]] | --snapshot FILE...",
		.about = "The page cache from its tracepoints (6.12+ for accesses): pages that read(2)-family\n"
			 "calls asked for (ACCESSES), found (HITS) and had to add (MISSES: read from the\n"
			 "disk, readahead included), dirtied, written back by the flusher or sync(2),\n"
			 "evicted (reclaim, truncation, invalidation), and page faults on file mappings.\n"
			 "Large folios count their pages.  At the end, or every interval.\n",
		.notes = "HITS = ACCESSES - MISSES, at least 0: pages read ahead in one interval and used in\n"
			 "the next are a miss in the first and a hit in the second.  ACCESSES can be short\n"
			 "(never over) while reads find readahead I/O in flight: the kernel leaves that\n"
			 "path untraced.  --by process names whoever ran: written back is the flusher's,\n"
			 "evicted often kswapd's.  Written back excludes fsync(2) (no tracepoint there).\n",
		.opts = opts, .args = cache_args, .tracing = true,
		.privileges = "--by file names other users' files only with CAP_SYS_PTRACE (their /proc/PID/fd).\n" };
	struct cache_opts o = { .top = 10 };
	struct cache_ctx cc = { .o = &o };
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.snapshot)
		return cache__snapshot(o.files, o.nfiles, o.c.json);
	if ((err = filter__pid_alive(o.pid)))
		return err;
	json__init(&cc.j, stdout);
	cc.ncpus = libbpf_num_possible_cpus();
	if (cc.ncpus <= 0 || !(cc.percpu = calloc(cc.ncpus, sizeof(*cc.percpu))))
		return fail("counting CPUs", "%s", strerror(cc.ncpus < 0 ? -cc.ncpus : ENOMEM));
	if ((err = kfeatures__need(NEED_TASK_STORAGE, "cache")))
		goto out;
	if (!(cc.sk = cache_bpf__open_opts(bpfenv__open_opts()))) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	cc.sk->rodata->targ_by = o.by;
	cc.sk->rodata->filter_pid = o.pid;
	{
		/* before 6.12 there are no access tracepoints: misses, dirtied,
		 * written and evicted are still exact, hits cannot be told */
		static const struct bpfenv_optional_tp optional[] = {
			{ "mm_filemap_get_pages", "page-cache accesses (6.12+), and so hits, are" },
			{ "mm_filemap_fault", "page faults on file mappings (6.12+) are" },
		};
		const struct btf *vmlinux = bpfenv__vmlinux();

		if (!vmlinux) {
			err = fail("reading kernel BTF", "%s", strerror(errno));
			goto out;
		}
		bpfenv__drop_missing_tps(cc.sk->obj, vmlinux, optional, 2);
		cc.no_access = !bpfenv__has_tp(vmlinux, "mm_filemap_get_pages");
		cc.no_fault = !bpfenv__has_tp(vmlinux, "mm_filemap_fault");
		if (cc.no_access)
			warnf("misses, dirtied, written back and evicted pages are counted; accesses and hits show as -");
	}
	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
	if ((err = cache_bpf__load(cc.sk))) {
		err = bpfenv__fail("loading BPF programs (the filemap tracepoints need 6.12+)", err);
		goto out;
	}
	if ((err = bpfenv__attach(cc.sk->skeleton))) {
		err = bpfenv__fail("attaching to the filemap and writeback tracepoints", err);
		goto out;
	}
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing the page cache... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = run__sleep_ms;
	o.loop.report = cache_report;
	o.loop.ctx = &cc;
	err = run__loop(&o.loop);
out:
	cache_bpf__destroy(cc.sk);
	for (size_t i = 0; i < cc.n; i++)
		free(cc.rows[i].file.path);
	free(cc.rows);
	free(cc.percpu);
	return err;
}

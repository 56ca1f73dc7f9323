// SPDX-License-Identifier: GPL-2.0
/*
 * iodig size: I/O sizes per process, disk and op (bitesize), with the share
 * of sequential I/O (biopattern).  The kernel side keeps running totals;
 * each report is the difference from the last, so nothing is lost to a
 * drain racing the counting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "filter.h"
#include "hist_user.h"
#include "json.h"
#include "log.h"
#include "recs.h"
#include "rows.h"
#include "run.h"
#include "size.h"
#include "size.skel.h"
#include "text.h"

static const char *const op_names[] = { "read", "write", "other" };

struct size_row {
	struct size_key k;
	struct size_val last, d;	/* last totals seen, this report's difference */
};

struct size_opts {
	struct cli_common c;
	const char *disk, *cgroup;
	unsigned long long pid;
	struct disk_sel sel;
	struct run_loop loop;
};

struct size_ctx {
	struct size_opts *o;
	struct size_bpf *sk;
	struct size_row *rows;
	size_t n, cap;
	struct json j;
	uint64_t interval;
};

static struct size_row *row_of(struct size_ctx *sc, const struct size_key *k)
{
	return rows__get((void **)&sc->rows, &sc->n, &sc->cap, sizeof(*sc->rows), k, sizeof(*k));
}

static int cmp_rows(const void *a, const void *b)
{
	const struct size_row *x = a, *y = b;

	return x->d.bytes != y->d.bytes ? (x->d.bytes > y->d.bytes ? -1 : 1) : (int)x->k.pid - (int)y->k.pid;
}

/* ---- the row, declared once (fields.h) ---- */

#define SZ(f) offsetof(struct size_row, f)

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = disks__name(((const struct size_row *)row)->k.dev);
}

static void g_op(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	unsigned op = ((const struct size_row *)row)->k.op;

	v->k = V_STR;
	v->s = op_names[op < 3 ? op : 2];
}

static void g_random(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct size_val *d = &((const struct size_row *)row)->d;

	v->k = V_U64;
	v->u = d->count - d->seq;
}


static void t_seq_pct(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct size_val *d = &((const struct size_row *)row)->d;

	v->k = V_DBL;
	v->d = d->count ? 100.0 * d->seq / d->count : 0;
}

/* Text: "fio [301] loop0 read: 512 I/Os, 2097152 bytes, 0.0% sequential",
 * then bitesize's picture of its sizes. */
static const struct field size_fields[] = {
	{ "interval", FS_INTERVAL },
	{ NULL, FS_CHARS, SZ(k.comm), .fmt = "%s" },
	{ "pid", FS_U32, SZ(k.pid), .fmt = " [%u]" },
	{ "comm", FS_CHARS, SZ(k.comm) },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR, .fmt = " %s" },
	{ "op", FS_GET, .get = g_op, .flags = FL_STR, .fmt = " %s" },
	{ "count", FS_U64, SZ(d.count), .fmt = ": %llu I/Os" },
	{ "bytes", FS_U64, SZ(d.bytes), .fmt = ", %llu bytes" },
	{ "sequential", FS_U64, SZ(d.seq) },
	{ NULL, FS_GET, .tget = t_seq_pct, .fmt = ", %.1f%% sequential\n" },
	{ "random", FS_GET, .get = g_random, .flags = FL_INT },
	{ "buckets", FS_LOG2, offsetof(struct size_row, d.slots), .nsub = SIZE_SLOTS, .fmt = "bytes" },
	{ NULL, FS_TEXT, .fmt = "\n" },
};

const struct rec size_rec = REC_LINES("size", "size", "size: one process, disk and op over one report", size_fields);

static void print_row(struct size_ctx *sc, const struct size_row *r, const struct fctx *fc)
{
	if (sc->o->c.json)
		fields__json(&sc->j, &size_rec, r, fc);
	else
		fields__lines(stdout, &size_rec, r, fc);
}

struct size_values {
	uint64_t rows, map_full;	/* map_full: since the start */
};

static const struct counter size_counters[] = {
	{ "rows", offsetof(struct size_values, rows), NULL },
	{ "map_full", offsetof(struct size_values, map_full), "lost: %llu bios found the table full" },
};

struct size_end {
	uint64_t interval, ts_ns;
	struct size_values v;
};

static const struct field size_end_fields[] = {
	{ "interval", FS_U64, offsetof(struct size_end, interval) },
	{ "ts_ns", FS_U64, offsetof(struct size_end, ts_ns) },
	{ "counters", FS_COUNTERS, offsetof(struct size_end, v), .sub = size_counters, .nsub = COUNTERS_N(size_counters) },
};

const struct rec size_end_rec = REC("interval_end", "size.interval_end", "size: the end of a report, with its counters",
				    size_end_fields);

static int size_report(void *ctx, bool last)
{
	struct size_ctx *sc = ctx;
	int fd = bpf_map__fd(sc->sk->maps.sizes);
	struct size_key k, next, *prev = NULL;
	struct size_val v;
	size_t shown = 0;
	struct fctx fc = { .user = sc };
	struct size_end e;

	(void)last;
	fc.interval = ++sc->interval;
	for (size_t i = 0; i < sc->n; i++)
		memset(&sc->rows[i].d, 0, sizeof(sc->rows[i].d));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct size_row *r;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		if (!(r = row_of(sc, &k)))
			return fail("collecting sizes", "out of memory");
		r->d.count = v.count - r->last.count;
		r->d.bytes = v.bytes - r->last.bytes;
		r->d.seq = v.seq - r->last.seq;
		for (int s = 0; s < SIZE_SLOTS; s++)
			r->d.slots[s] = v.slots[s] - r->last.slots[s];
		r->last = v;
	}
	qsort(sc->rows, sc->n, sizeof(*sc->rows), cmp_rows);
	for (size_t i = 0; i < sc->n; i++)
		if (sc->rows[i].d.count) {
			print_row(sc, &sc->rows[i], &fc);
			shown++;
		}
	e = (struct size_end){ sc->interval, run__mono_ns(), { shown, sc->sk->bss->stats.map_full } };
	if (sc->o->c.json) {
		fields__json(&sc->j, &size_end_rec, &e, &fc);
	} else {
		if (!shown)
			printf("no block I/O submitted\n");
		counters__lines(stdout, size_counters, COUNTERS_N(size_counters), &e.v, 0);
	}
	return 0;
}

static int size_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct size_opts *)ctx)->loop);
}

int cmd_size(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only this disk (or partition)", CLI_STR_AT(struct size_opts, disk) },
		{ "pid", 'p', "PID", "only I/O this process submits", CLI_UINT_AT(struct size_opts, pid, 1, 0x7fffffff, "a process id") },
		{ "cgroup", 'c', "CGROUP", "only I/O charged to this cgroup", CLI_STR_AT(struct size_opts, cgroup) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "size",
		.synopsis = "[options] [interval [count]]",
		.about = "I/O sizes per process, disk and op (bitesize): a log2 histogram of the bios\n"
			 "submitted, and the share that began where the disk's previous bio ended\n"
			 "(sequential, as biopattern judges).  At the end, or every interval.\n",
		.opts = opts, .args = size_args, .tracing = true };
	struct size_opts o = {};
	struct size_ctx sc = { .o = &o };
	uint64_t cgid = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cgid)))
		return err;
	json__init(&sc.j, stdout);
	if (!(sc.sk = size_bpf__open_opts(bpfenv__open_opts())))
		return bpfenv__fail("opening BPF object", -errno);
	sc.sk->rodata->filter_pid = o.pid;
	sc.sk->rodata->filter_dev = o.sel.disk;
	sc.sk->rodata->filter_part = o.sel.part;
	sc.sk->rodata->filter_cgroup = cgid;
	if ((err = size_bpf__load(sc.sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = size_bpf__attach(sc.sk))) {
		err = bpfenv__fail("attaching to block_bio_queue", err);
		goto out;
	}
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing block I/O sizes... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = run__sleep_ms;
	o.loop.report = size_report;
	o.loop.ctx = &sc;
	err = run__loop(&o.loop);
out:
	size_bpf__destroy(sc.sk);
	free(sc.rows);
	return err;
}

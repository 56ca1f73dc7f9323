// SPDX-License-Identifier: GPL-2.0
/*
 * iodig iostat: `iostat -x` from /proc/diskstats, and beside each mean the
 * percentiles the means hide, from BPF: lat's program in its allocation-to-
 * completion mode (the clock diskstats' await uses), per disk and op.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "diskstats.h"
#include "filter.h"
#include "hist_user.h"
#include "histmap.h"
#include "fields.h"
#include "json.h"
#include "lat.h"
#include "lat_cmd.h"
#include "lat.skel.h"
#include "log.h"
#include "recs.h"
#include "run.h"
#include "skipped.h"

#define IOSTAT_DISKS 256

struct iostat_opts {
	struct cli_common c;
	const char *disk;
	struct disk_sel sel;
	struct run_loop loop;
};

struct iostat_ctx {
	struct iostat_opts *o;
	struct lat_bpf *sk;
	struct dstat last[IOSTAT_DISKS];
	int nlast;
	uint64_t t_last;
	struct hist h[IOSTAT_DISKS][2];	/* by index in last[], read and write */
	struct json j;
	uint64_t interval;
	struct skipped skipped;	/* -d: completions the kernel ran no program for */
};

static bool shown(const struct iostat_ctx *ic, const struct dstat *s)
{
	char path[300];
	FILE *f;

	if (ic->o->disk)	/* the disk, in the kernel's encoding as -d resolved it */
		return ((s->major << 20) | s->minor) == ic->o->sel.disk;
	snprintf(path, sizeof(path), "/sys/block/%s", s->name);
	if (!(f = fopen(path, "r")) && errno == ENOENT)
		return false;
	if (f)
		fclose(f);
	return s->rd + s->wr + s->dc + s->fl > 0;	/* never used: not shown, as iostat */
}

static int take(void *ctx, const void *key, const struct hist *h)
{
	struct iostat_ctx *ic = ctx;
	const struct lat_key *k = key;
	int op = (k->flags & 0xff) == 0 ? 0 : (k->flags & 0xff) == 1 ? 1 : -1;

	if (op < 0)
		return 0;	/* flush, discard: diskstats' own columns */
	for (int i = 0; i < ic->nlast; i++)
		if (((ic->last[i].major << 20) | ic->last[i].minor) == k->dev) {
			hist__merge(&ic->h[i][op], h);
			break;
		}
	return 0;
}

static double per(unsigned long long a, unsigned long long b)
{
	return b ? (double)a / b : 0;
}

/* ---- a disk's line, declared once (fields.h) ---- */

struct iostat_row {
	const char *disk;
	uint64_t interval, ts_ns, reads, writes, discards, flushes, bpf_reads, bpf_writes;
	uint64_t r_p50, r_p99, w_p50, w_p99;
	int64_t skipped;
	bool has_skipped;	/* -d's disk, where it is measured */
	double secs, r_s, w_s, rkb_s, wkb_s, rrqm_s, wrqm_s, r_await, w_await, d_await, f_await, aqu_sz, util;
};

#define R(f) offsetof(struct iostat_row, f)

/* -d's disk: completions of its requests the kernel ran no BPF program for
 * (skipped.h), so that bpf_reads + bpf_writes can be held to its counts;
 * null on the other lines and without -d */
static void g_skipped(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct iostat_row *r = row;

	if (r->has_skipped) {
		v->k = V_I64;
		v->i = r->skipped;
	}
}
static const struct field iostat_fields[] = {
	{ "interval", FS_U64, R(interval) },
	{ "ts_ns", FS_U64, R(ts_ns) },
	{ "disk", FS_PSTR, R(disk), .head = "Device", .fmt = "%-12s" },
	{ "seconds", FS_DBL, R(secs) },
	{ "reads", FS_U64, R(reads) },
	{ "writes", FS_U64, R(writes) },
	{ "discards", FS_U64, R(discards) },
	{ "flushes", FS_U64, R(flushes) },
	{ "r_s", FS_DBL, R(r_s), .head = "r/s", .fmt = "%8.2f" },
	{ "w_s", FS_DBL, R(w_s), .head = "w/s", .fmt = "%8.2f" },
	{ "rkB_s", FS_DBL, R(rkb_s), .head = "rkB/s", .fmt = "%9.2f" },
	{ "wkB_s", FS_DBL, R(wkb_s), .head = "wkB/s", .fmt = "%9.2f" },
	{ "rrqm_s", FS_DBL, R(rrqm_s), .head = "rrqm/s", .fmt = "%7.2f" },
	{ "wrqm_s", FS_DBL, R(wrqm_s), .head = "wrqm/s", .fmt = "%7.2f" },
	{ "r_await", FS_DBL, R(r_await), .head = "r_await", .fmt = "%7.2f" },
	{ "w_await", FS_DBL, R(w_await), .head = "w_await", .fmt = "%7.2f" },
	{ NULL, FS_U64, R(r_p50), .head = "r_p50", .fmt = "%8.2f", .tdiv = 1e6 },
	{ NULL, FS_U64, R(r_p99), .head = "r_p99", .fmt = "%8.2f", .tdiv = 1e6 },
	{ NULL, FS_U64, R(w_p50), .head = "w_p50", .fmt = "%8.2f", .tdiv = 1e6 },
	{ NULL, FS_U64, R(w_p99), .head = "w_p99", .fmt = "%8.2f", .tdiv = 1e6 },
	{ NULL, FS_U64, R(discards), .head = "d/s", .fmt = "%6.2f", .flags = FL_RATE },
	{ NULL, FS_U64, R(flushes), .head = "f/s", .fmt = "%6.2f", .flags = FL_RATE },
	{ "d_await", FS_DBL, R(d_await) },
	{ "f_await", FS_DBL, R(f_await) },
	{ "aqu_sz", FS_DBL, R(aqu_sz), .head = "aqu-sz", .fmt = "%6.2f" },
	{ "util", FS_DBL, R(util), .head = "%util", .fmt = "%6.2f" },
	{ "bpf_reads", FS_U64, R(bpf_reads) },
	{ "bpf_writes", FS_U64, R(bpf_writes) },
	{ "r_p50_ns", FS_U64, R(r_p50) },
	{ "r_p99_ns", FS_U64, R(r_p99) },
	{ "w_p50_ns", FS_U64, R(w_p50) },
	{ "w_p99_ns", FS_U64, R(w_p99) },
	{ "skipped", FS_GET, .get = g_skipped, .flags = FL_INT | FL_NULLABLE },
};

const struct rec iostat_rec = REC("iostat", "iostat", "iostat: one disk over one interval", iostat_fields);

static int iostat_report(void *ctx, bool last)
{
	struct iostat_ctx *ic = ctx;
	struct dstat now[IOSTAT_DISKS];
	uint64_t t = run__mono_ns();
	double secs = (t - ic->t_last) / 1e9;
	__u32 old = histmap__flip(&ic->sk->bss->epoch);
	int n = diskstats__read(now, IOSTAT_DISKS), err;
	struct fctx fc = {};
	int64_t sk;

	(void)last;
	if (n < 0)
		return fail("reading /proc/diskstats", "%s", strerror(-n));
	memset(ic->h, 0, sizeof(ic->h));
	err = histmap__drain(bpf_map__fd(old ? ic->sk->maps.hists1 : ic->sk->maps.hists0),
			     bpf_map__fd(ic->sk->maps.hists_spill), old,
			     sizeof(struct lat_key), take, ic);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	ic->interval++;
	fc.secs = secs;
	sk = skipped__interval(&ic->skipped);
	if (!ic->o->c.json)
		fields__head(stdout, &iostat_rec, &fc);
	for (int i = 0; i < ic->nlast; i++) {
		const struct dstat *a = &ic->last[i], *b = NULL;
		struct dstat d;

		for (int k = 0; k < n; k++)
			if (!strcmp(now[k].name, a->name))
				b = &now[k];
		if (!b || !shown(ic, b))
			continue;
		d = (struct dstat){
			.rd = b->rd - a->rd, .rd_m = b->rd_m - a->rd_m, .rd_sec = b->rd_sec - a->rd_sec,
			.rd_t = b->rd_t - a->rd_t, .wr = b->wr - a->wr, .wr_m = b->wr_m - a->wr_m,
			.wr_sec = b->wr_sec - a->wr_sec, .wr_t = b->wr_t - a->wr_t, .io_t = b->io_t - a->io_t,
			.q_t = b->q_t - a->q_t, .dc = b->dc - a->dc, .dc_sec = b->dc_sec - a->dc_sec,
			.dc_t = b->dc_t - a->dc_t, .fl = b->fl - a->fl, .fl_t = b->fl_t - a->fl_t,
		};
		struct iostat_row r = {
			.disk = b->name, .interval = ic->interval, .ts_ns = t, .secs = secs,
			.reads = d.rd, .writes = d.wr, .discards = d.dc, .flushes = d.fl,
			.r_s = d.rd / secs, .w_s = d.wr / secs, .rkb_s = d.rd_sec / 2.0 / secs,
			.wkb_s = d.wr_sec / 2.0 / secs, .rrqm_s = d.rd_m / secs, .wrqm_s = d.wr_m / secs,
			.r_await = per(d.rd_t, d.rd), .w_await = per(d.wr_t, d.wr),
			.d_await = per(d.dc_t, d.dc), .f_await = per(d.fl_t, d.fl),
			.aqu_sz = d.q_t / 1000.0 / secs, .util = d.io_t / 10.0 / secs,
			.bpf_reads = ic->h[i][0].count, .bpf_writes = ic->h[i][1].count,
			.r_p50 = hist__percentile(&ic->h[i][0], 0.5), .r_p99 = hist__percentile(&ic->h[i][0], 0.99),
			.w_p50 = hist__percentile(&ic->h[i][1], 0.5), .w_p99 = hist__percentile(&ic->h[i][1], 0.99),
			.has_skipped = ic->skipped.on && !strcmp(b->name, ic->o->sel.disk_name), .skipped = sk,
		};

		if (ic->o->c.json)
			fields__json(&ic->j, &iostat_rec, &r, &fc);
		else
			fields__text(stdout, &iostat_rec, &r, &fc);
	}
	if (!ic->o->c.json)
		putchar('\n');
	memcpy(ic->last, now, sizeof(now[0]) * n);
	ic->nlast = n;
	ic->t_last = t;
	return 0;
}

static int iostat_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct iostat_opts *)ctx)->loop);
}

int cmd_iostat(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only this disk", CLI_STR_AT(struct iostat_opts, disk) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "iostat",
		.synopsis = "[options] [interval [count]]",
		.about = "iostat -x for each disk every interval (default 1 s), from /proc/diskstats as\n"
			 "iostat reads it (r/s, w/s, kB/s, merges, await in ms, d/s, f/s, aqu-sz, %util),\n"
			 "and beside the means the p50 and p99 of the same requests' times from BPF\n"
			 "(allocation to completion, the clock of await): a tail that a mean hides.\n",
		.opts = opts, .args = iostat_args, .tracing = true, .slim_btf = true };
	struct iostat_opts o = {};
	struct iostat_ctx ic = { .o = &o };
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (!o.loop.interval_ms)
		o.loop.interval_ms = 1000;
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	json__init(&ic.j, stdout);
	if (!(ic.sk = lat_bpf__open_opts(bpfenv__open_opts())))
		return bpfenv__fail("opening BPF object", -errno);
	ic.sk->rodata->targ_per_disk = true;
	ic.sk->rodata->targ_per_flags = true;
	ic.sk->rodata->targ_queued = true;
	ic.sk->rodata->filter_dev = o.sel.disk;
	lat__prepare(ic.sk, o.sel.disk, true);	/* dm, md, bcache: their bios' tails too */
	if ((err = lat_bpf__load(ic.sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = bpfenv__attach(ic.sk->skeleton))) {
		err = bpfenv__fail("attaching to block tracepoints", err);
		goto out;
	}
	/* -d: the kernel's own count of its completions, beside the programs' */
	if (o.sel.disk && (err = skipped__start(&ic.skipped, o.sel.disk, bpf_map__fd(ic.sk->maps.seen_disks))))
		warnf(SKIPPED_OFF, bpfenv__strerror(err));
	/* the first report covers the first interval, not the time since boot (iostat -y) */
	if ((ic.nlast = diskstats__read(ic.last, IOSTAT_DISKS)) < 0) {
		err = fail("reading /proc/diskstats", "%s", strerror(-ic.nlast));
		goto out;
	}
	ic.t_last = run__mono_ns();
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = run__sleep_ms;
	o.loop.report = iostat_report;
	o.loop.ctx = &ic;
	err = run__loop(&o.loop);
out:
	skipped__stop(&ic.skipped);
	lat_bpf__destroy(ic.sk);
	return err;
}

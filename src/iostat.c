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
#include "filter.h"
#include "hist_user.h"
#include "histmap.h"
#include "json.h"
#include "lat.h"
#include "lat.skel.h"
#include "log.h"
#include "run.h"

#define IOSTAT_DISKS 256

/* /proc/diskstats, one line (Linux 5.5+: discards and flushes too). */
struct dstat {
	char name[32];
	unsigned major, minor;
	unsigned long long rd, rd_m, rd_sec, rd_t, wr, wr_m, wr_sec, wr_t, inflight, io_t, q_t,
		dc, dc_m, dc_sec, dc_t, fl, fl_t;
};

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
};

static int read_diskstats(struct dstat *d, int max)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct dstat s = {};

		if (sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu"
			   " %llu %llu %llu %llu %llu %llu", &s.major, &s.minor, s.name, &s.rd, &s.rd_m,
			   &s.rd_sec, &s.rd_t, &s.wr, &s.wr_m, &s.wr_sec, &s.wr_t, &s.inflight, &s.io_t,
			   &s.q_t, &s.dc, &s.dc_m, &s.dc_sec, &s.dc_t, &s.fl, &s.fl_t) < 14)
			continue;
		d[n++] = s;
	}
	fclose(f);
	return n;
}

/* A whole disk (as iostat shows without -p), the one asked for if any. */
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

static int iostat_report(void *ctx, bool last)
{
	struct iostat_ctx *ic = ctx;
	struct dstat now[IOSTAT_DISKS];
	uint64_t t = run__mono_ns();
	double secs = (t - ic->t_last) / 1e9;
	__u32 old = histmap__flip(&ic->sk->bss->epoch);
	int n = read_diskstats(now, IOSTAT_DISKS), err;

	(void)last;
	if (n < 0)
		return fail("reading /proc/diskstats", "%s", strerror(-n));
	memset(ic->h, 0, sizeof(ic->h));
	err = histmap__drain(bpf_map__fd(old ? ic->sk->maps.hists1 : ic->sk->maps.hists0),
			     sizeof(struct lat_key), take, ic);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	ic->interval++;
	if (!ic->o->c.json)
		printf("%-12s %8s %8s %9s %9s %7s %7s %7s %7s %8s %8s %8s %8s %6s %6s %6s %6s\n", "Device", "r/s",
		       "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "r_await", "w_await", "r_p50", "r_p99",
		       "w_p50", "w_p99", "d/s", "f/s", "aqu-sz", "%util");
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
		uint64_t rp50 = hist__percentile(&ic->h[i][0], 0.5), rp99 = hist__percentile(&ic->h[i][0], 0.99);
		uint64_t wp50 = hist__percentile(&ic->h[i][1], 0.5), wp99 = hist__percentile(&ic->h[i][1], 0.99);

		if (ic->o->c.json) {
			struct json *j = &ic->j;

			json__obj_begin(j);
			json__kstr(j, "type", "iostat");
			json__ku64(j, "interval", ic->interval);
			json__ku64(j, "ts_ns", t);
			json__kstr(j, "disk", b->name);
			json__kdouble(j, "seconds", secs);
			json__ku64(j, "reads", d.rd);
			json__ku64(j, "writes", d.wr);
			json__ku64(j, "discards", d.dc);
			json__ku64(j, "flushes", d.fl);
			json__kdouble(j, "r_s", d.rd / secs);
			json__kdouble(j, "w_s", d.wr / secs);
			json__kdouble(j, "rkB_s", d.rd_sec / 2.0 / secs);
			json__kdouble(j, "wkB_s", d.wr_sec / 2.0 / secs);
			json__kdouble(j, "rrqm_s", d.rd_m / secs);
			json__kdouble(j, "wrqm_s", d.wr_m / secs);
			json__kdouble(j, "r_await", per(d.rd_t, d.rd));
			json__kdouble(j, "w_await", per(d.wr_t, d.wr));
			json__kdouble(j, "d_await", per(d.dc_t, d.dc));
			json__kdouble(j, "f_await", per(d.fl_t, d.fl));
			json__kdouble(j, "aqu_sz", d.q_t / 1000.0 / secs);
			json__kdouble(j, "util", d.io_t / 10.0 / secs);
			json__ku64(j, "bpf_reads", ic->h[i][0].count);
			json__ku64(j, "bpf_writes", ic->h[i][1].count);
			json__ku64(j, "r_p50_ns", rp50);
			json__ku64(j, "r_p99_ns", rp99);
			json__ku64(j, "w_p50_ns", wp50);
			json__ku64(j, "w_p99_ns", wp99);
			json__obj_end(j);
		} else {
			printf("%-12s %8.2f %8.2f %9.2f %9.2f %7.2f %7.2f %7.2f %7.2f %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f "
			       "%6.2f %6.2f\n", b->name, d.rd / secs, d.wr / secs, d.rd_sec / 2.0 / secs,
			       d.wr_sec / 2.0 / secs, d.rd_m / secs, d.wr_m / secs, per(d.rd_t, d.rd),
			       per(d.wr_t, d.wr), rp50 / 1e6, rp99 / 1e6, wp50 / 1e6, wp99 / 1e6, d.dc / secs,
			       d.fl / secs, d.q_t / 1000.0 / secs, d.io_t / 10.0 / secs);
		}
	}
	if (!ic->o->c.json)
		putchar('\n');
	memcpy(ic->last, now, sizeof(now[0]) * n);
	ic->nlast = n;
	ic->t_last = t;
	return 0;
}

static int iostat_opt(void *ctx, int opt, const char *arg)
{
	struct iostat_opts *o = ctx;

	if (opt != 'd')
		return -1;
	o->disk = arg;
	return 0;
}

static int iostat_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct iostat_opts *)ctx)->loop);
}

int cmd_iostat(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only this disk" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "iostat",
		.synopsis = "[options] [interval [count]]",
		.about = "iostat -x for each disk every interval (default 1 s), from /proc/diskstats as\n"
			 "iostat reads it (r/s, w/s, kB/s, merges, await in ms, d/s, f/s, aqu-sz, %util),\n"
			 "and beside the means the p50 and p99 of the same requests' times from BPF\n"
			 "(allocation to completion, the clock of await): a tail that a mean hides.\n",
		.opts = opts, .opt = iostat_opt, .args = iostat_args, .tracing = true };
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
	if (!(ic.sk = lat_bpf__open()))
		return bpfenv__fail("opening BPF object", -errno);
	ic.sk->rodata->targ_per_disk = true;
	ic.sk->rodata->targ_per_flags = true;
	ic.sk->rodata->targ_queued = true;
	ic.sk->rodata->filter_dev = o.sel.disk;
	if ((err = lat_bpf__load(ic.sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = lat_bpf__attach(ic.sk))) {
		err = bpfenv__fail("attaching to block tracepoints", err);
		goto out;
	}
	/* the first report covers the first interval, not the time since boot (iostat -y) */
	if ((ic.nlast = read_diskstats(ic.last, IOSTAT_DISKS)) < 0) {
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
	lat_bpf__destroy(ic.sk);
	return err;
}

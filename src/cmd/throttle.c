// SPDX-License-Identifier: GPL-2.0
/*
 * iodig throttle: dirty throttling per process and backing device, each
 * interval: how often balance_dirty_pages() put a writer to sleep and for how
 * long, and the dirty pages against their limits.  Rows are running totals
 * kept by the kernel side (src/engine/tally.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "fields.h"
#include "filter.h"
#include "log.h"
#include "recs.h"
#include "run.h"
#include "tally.h"
#include "throttle.h"
#include "throttle.skel.h"

struct throttle_row {
	struct throttle_key k;
	struct throttle_val last, d;
};

#define TR(f) offsetof(struct throttle_row, f)
#define ROW(row) ((const struct throttle_row *)(row))

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	unsigned maj, min;

	v->k = V_STR;
	v->s = sscanf(ROW(row)->k.bdi, "%u:%u", &maj, &min) == 2 ? disks__name(maj << 20 | min) : ROW(row)->k.bdi;
}

/* text: pages as MiB */
#define MIB(name, f) static void name(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) \
	{ v->k = V_DBL; v->d = (double)ROW(row)->d.f * sysconf(_SC_PAGESIZE) / (1 << 20); }
MIB(t_dirty, dirty)
MIB(t_limit, limit)
MIB(t_wb_dirty, wb_dirty)
MIB(t_wb_setpoint, wb_setpoint)

static const struct field throttle_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "pid", FS_U32, TR(k.pid), .head = "PID", .fmt = "%7u" },
	{ "comm", FS_CHARS, TR(k.comm), .head = "COMM", .fmt = "%-16s" },
	{ "bdi", FS_CHARS, TR(k.bdi) },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR, .head = "DISK", .fmt = "%-8s" },
	{ "calls", FS_U64, TR(d.calls), .head = "CALLS", .fmt = "%7llu" },
	{ "pauses", FS_U64, TR(d.pauses), .head = "PAUSES", .fmt = "%7llu" },
	{ "paused_ms", FS_U64, TR(d.paused_ms), .head = "PAUSED_MS", .fmt = "%9llu" },
	{ "dirty_pages", FS_U64, TR(d.dirty), .tget = t_dirty, .head = "DIRTY_MB", .fmt = "%8.1f" },
	{ "limit_pages", FS_U64, TR(d.limit), .tget = t_limit, .head = "LIMIT_MB", .fmt = "%8.1f" },
	{ "wb_dirty_pages", FS_U64, TR(d.wb_dirty), .tget = t_wb_dirty, .head = "DEV_DIRTY_MB", .fmt = "%12.1f" },
	{ "wb_setpoint_pages", FS_U64, TR(d.wb_setpoint), .tget = t_wb_setpoint, .head = "DEV_SETPOINT_MB",
	  .fmt = "%15.1f" },
};
const struct rec throttle_rec = REC("throttle", "throttle", "throttle: one process and backing device over one report "
				    "(dirty, limit and the device's: pages at its newest call)", throttle_fields);

const struct rec throttle_end_rec = REC_LINES("interval_end", "throttle.interval_end",
					      "throttle: the end of a report, with its counters", tally_end_fields);

struct throttle_ctx {
	struct cli_common c;
	unsigned long long pid;
	const char *disk;
	struct run_loop loop;
	struct throttle_bpf *sk;
	struct tally t;
	struct json j;
};

static int by_paused(const void *a, const void *b)
{
	const struct throttle_row *x = a, *y = b;

	if (x->d.paused_ms != y->d.paused_ms)
		return x->d.paused_ms > y->d.paused_ms ? -1 : 1;
	return x->k.pid < y->k.pid ? -1 : x->k.pid > y->k.pid;
}

static int throttle_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct throttle_ctx *)ctx)->loop);
}

int cmd_throttle(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only writers to this disk's backing device", CLI_STR_AT(struct throttle_ctx, disk) },
		{ "pid", 'p', "PID", "only this process", CLI_UINT_AT(struct throttle_ctx, pid, 1, 0x7fffffff, "a process id") },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "throttle", .synopsis = "[options] [interval [count]]",
		.about = "Dirty throttling per process and backing device: each time balance_dirty_pages()\n"
			 "judged a writer (CALLS), put it to sleep (PAUSES) and for how long (PAUSED_MS),\n"
			 "and the dirty pages against the limits at its last call.\n",
		.opts = opts, .args = throttle_args, .tracing = true };
	struct throttle_ctx tc = { .t = { .key_size = sizeof(struct throttle_key), .val_size = sizeof(struct throttle_val),
					  .counters = THROTTLE_COUNTERS, .row_size = sizeof(struct throttle_row),
					  .last_off = TR(last), .d_off = TR(d), .cmp = by_paused, .rec = &throttle_rec,
					  .end = &throttle_end_rec, .none = "no task dirtied pages past its ratelimit" } };
	struct disk_sel sel = {};
	int err = cli__prologue(&cmd, argc, argv, &tc.c, &tc);

	if (err >= 0)
		return err;
	if ((err = filter__pid_alive(tc.pid)))
		return err;
	if (tc.disk && (err = filter__disk(tc.disk, &sel)))
		return err;
	json__init(&tc.j, stdout);
	if (!(tc.sk = throttle_bpf__open_opts(bpfenv__open_opts())))
		return bpfenv__fail("opening BPF object", -errno);
	tc.sk->rodata->filter_pid = tc.pid;
	if (tc.disk)
		snprintf((char *)tc.sk->rodata->filter_bdi, THROTTLE_BDI_LEN, "%u:%u", sel.disk >> 20, sel.disk & 0xfffff);
	if ((err = throttle_bpf__load(tc.sk)) || (err = bpfenv__attach(tc.sk->skeleton))) {
		err = bpfenv__fail("loading and attaching to writeback:balance_dirty_pages", err);
		goto out;
	}
	tc.t.map_fd = bpf_map__fd(tc.sk->maps.throttles);
	tc.t.map_full = (const uint64_t *)&tc.sk->bss->stats.map_full;
	tc.t.j = &tc.j;
	tc.t.json = tc.c.json;
	run__signals();
	if (!(err = run__ready(tc.c.ready_file, "Tracing dirty throttling... Hit Ctrl-C to end."))) {
		tc.loop.wait = run__sleep_ms;
		tc.loop.report = tally__report;
		tc.loop.ctx = &tc.t;
		err = run__loop(&tc.loop);
	}
out:
	throttle_bpf__destroy(tc.sk);
	tally__free(&tc.t);
	return err;
}

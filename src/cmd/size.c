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
#include "run.h"
#include "size.h"
#include "size.skel.h"
#include "tally.h"
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
	struct tally t;
	struct json j;
};

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

const struct rec size_end_rec = REC_LINES("interval_end", "size.interval_end",
					  "size: the end of a report, with its counters", tally_end_fields);

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
		.opts = opts, .args = size_args, .tracing = true, .slim_btf = true };
	struct size_opts o = {};
	struct size_ctx sc = { .o = &o, .t = { .key_size = sizeof(struct size_key), .val_size = sizeof(struct size_val),
					      .row_size = sizeof(struct size_row), .last_off = offsetof(struct size_row, last),
					      .d_off = offsetof(struct size_row, d), .cmp = cmp_rows, .rec = &size_rec,
					      .end = &size_end_rec, .none = "no block I/O submitted" } };
	uint64_t cgid = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if ((err = filter__io(o.pid, o.disk, &o.sel, o.cgroup, &cgid)))
		return err;
	json__init(&sc.j, stdout);
	if (!(sc.sk = size_bpf__open_opts(bpfenv__open_opts())))
		return bpfenv__fail("opening BPF object", -errno);
	sc.sk->rodata->filter_pid = o.pid;
	sc.sk->rodata->filter_dev = o.sel.disk;
	sc.sk->rodata->filter_part = o.sel.part;
	sc.sk->rodata->filter_cgroup = cgid;
	bpfenv__set_tp_leads(sc.sk->obj, NULL);
	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
	if ((err = size_bpf__load(sc.sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = bpfenv__attach(sc.sk->skeleton))) {
		err = bpfenv__fail("attaching to block_bio_queue", err);
		goto out;
	}
	sc.t.map_fd = bpf_map__fd(sc.sk->maps.sizes);
	sc.t.map_full = (const uint64_t *)&sc.sk->bss->stats.map_full;
	sc.t.j = &sc.j;
	sc.t.json = o.c.json;
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing block I/O sizes... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = run__sleep_ms;
	o.loop.report = tally__report;
	o.loop.ctx = &sc.t;
	err = run__loop(&o.loop);
out:
	size_bpf__destroy(sc.sk);
	tally__free(&sc.t);
	return err;
}

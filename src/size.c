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
#include "disks.h"
#include "filter.h"
#include "json.h"
#include "log.h"
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

static void print_row(struct size_ctx *sc, const struct size_row *r)
{
	const struct size_val *d = &r->d;
	const char *op = op_names[r->k.op < 3 ? r->k.op : 2];
	double seq = d->count ? 100.0 * d->seq / d->count : 0;
	char comm[TEXT_SAFE_LEN(SIZE_COMM_LEN)];
	uint64_t most = 0;

	if (sc->o->c.json) {
		struct json *j = &sc->j;

		json__obj_begin(j);
		json__kstr(j, "type", "size");
		json__ku64(j, "interval", sc->interval);
		json__ku64(j, "pid", r->k.pid);
		json__kstr(j, "comm", r->k.comm);
		json__kstr(j, "disk", disks__name(r->k.dev));
		json__kstr(j, "op", op);
		json__ku64(j, "count", d->count);
		json__ku64(j, "bytes", d->bytes);
		json__ku64(j, "sequential", d->seq);
		json__ku64(j, "random", d->count - d->seq);
		json__key(j, "buckets");
		json__arr_begin(j);
		for (int s = 0; s < SIZE_SLOTS; s++)
			if (d->slots[s]) {
				json__arr_begin(j);
				json__u64(j, 1ULL << s);
				json__u64(j, 1ULL << (s + 1));
				json__u64(j, d->slots[s]);
				json__arr_end(j);
			}
		json__arr_end(j);
		json__obj_end(j);
		return;
	}
	printf("%s [%u] %s %s: %llu I/Os, %llu bytes, %.1f%% sequential\n", text__safe(r->k.comm, comm, sizeof(comm)),
	       r->k.pid, disks__name(r->k.dev), op, (unsigned long long)d->count, (unsigned long long)d->bytes, seq);
	printf("%21s : %-9s distribution\n", "bytes", "count");
	for (int s = 0; s < SIZE_SLOTS; s++)
		if (d->slots[s] > most)
			most = d->slots[s];
	for (int s = 0; s < SIZE_SLOTS; s++) {
		char bar[41];
		int w = most ? (int)(40 * d->slots[s] / most) : 0;

		if (!d->slots[s])
			continue;
		memset(bar, '*', w);
		bar[w] = '\0';
		printf("%10llu -> %-8llu : %-9llu |%-40s|\n", 1ULL << s, (1ULL << (s + 1)) - 1,
		       (unsigned long long)d->slots[s], bar);
	}
	putchar('\n');
}

static int size_report(void *ctx, bool last)
{
	struct size_ctx *sc = ctx;
	int fd = bpf_map__fd(sc->sk->maps.sizes);
	struct size_key k, next, *prev = NULL;
	struct size_val v;
	size_t shown = 0;

	(void)last;
	sc->interval++;
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
			print_row(sc, &sc->rows[i]);
			shown++;
		}
	if (sc->o->c.json) {
		json__obj_begin(&sc->j);
		json__kstr(&sc->j, "type", "interval_end");
		json__ku64(&sc->j, "interval", sc->interval);
		json__ku64(&sc->j, "ts_ns", run__mono_ns());
		json__ku64(&sc->j, "rows", shown);
		json__ku64(&sc->j, "map_full", sc->sk->bss->stats.map_full);
		json__obj_end(&sc->j);
	} else {
		if (!shown)
			printf("no block I/O submitted\n");
		if (sc->sk->bss->stats.map_full)
			printf("lost: %llu bios found the table full\n", (unsigned long long)sc->sk->bss->stats.map_full);
	}
	return 0;
}

static int size_opt(void *ctx, int opt, const char *arg)
{
	struct size_opts *o = ctx;

	switch (opt) {
	case 'd': o->disk = arg; return 0;
	case 'c': o->cgroup = arg; return 0;
	case 'p':
		if (!cli__uint(arg, 1, 0x7fffffff, &o->pid))
			return usage_error("-p '%s': a process id", arg);
		return 0;
	}
	return -1;
}

static int size_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct size_opts *)ctx)->loop);
}

int cmd_size(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only this disk (or partition)" },
		{ "pid", 'p', "PID", "only I/O this process submits" },
		{ "cgroup", 'c', "CGROUP", "only I/O charged to this cgroup" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "size",
		.synopsis = "[options] [interval [count]]",
		.about = "I/O sizes per process, disk and op (bitesize): a log2 histogram of the bios\n"
			 "submitted, and the share that began where the disk's previous bio ended\n"
			 "(sequential, as biopattern judges).  At the end, or every interval.\n",
		.opts = opts, .opt = size_opt, .args = size_args, .tracing = true };
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
	if (!(sc.sk = size_bpf__open()))
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

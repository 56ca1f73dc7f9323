// SPDX-License-Identifier: GPL-2.0
/* iodig lat: block I/O latency histograms per disk and operation. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "disks.h"
#include "filter.h"
#include "counters.h"
#include "histmap.h"
#include "hist_user.h"
#include "lat.h"
#include "lat_cmd.h"
#include "report.h"
#include "life_user.h"
#include "life.skel.h"
#include "log.h"
#include "reqflags.h"
#include "run.h"
#include "skipped.h"
#include "lat.skel.h"
#include "sort.h"


enum { OPT_OWN_CLOCK = OPT_FIRST_CMD, OPT_PHASES };

static const struct cli_opt lat_opts_table[] = {
	{ "disk-split", 'D', NULL, "one histogram per disk", CLI_FLAG_AT(struct lat_opts, per_disk) },
	{ "flags", 'F', NULL, "one histogram per operation and flags (read, write sync, ...)", CLI_FLAG_AT(struct lat_opts, per_flags) },
	{ "queued", 'Q', NULL, "from request allocation: includes time queued in the OS", CLI_FLAG_AT(struct lat_opts, queued) },
	{ "disk", 'd', "DISK", "only this disk (a partition counts toward its disk)", CLI_STR_AT(struct lat_opts, disk) },
	{ "cgroup", 'c', "PATH", "only I/O charged to this cgroup (v2, or v1 blkio)", CLI_STR_AT(struct lat_opts, cgroup) },
	{ "ms", 'm', NULL, "histogram rows in milliseconds (default microseconds)", CLI_FLAG_AT(struct lat_opts, ms) },
	{ "timestamp", 'T', NULL, "a time line before each interval", CLI_FLAG_AT(struct lat_opts, loop.timestamp) },
	{ "own-clock", OPT_OWN_CLOCK, NULL, "time from iodig's own issue stamp, not the kernel's", CLI_FLAG_AT(struct lat_opts, own_clock) },
	{ "phases", OPT_PHASES, NULL, "per disk, a histogram for each phase of a request's life\n"
	  "side by side: Q2G (submit wait) G2I I2D (scheduler) D2C\n"
	  "(device) Q2C (total), from bio submission (see iodig slow)", CLI_FLAG_AT(struct lat_opts, phases) },
	{}
};

struct lat_entry {
	__u32 dev, flags;
	struct hist h;
};

struct lat_ctx {
	struct lat_opts *o;
	struct lat_bpf *skel;
	struct reqflags rf;
	struct bpf_link *issue_link;
	bool bio;	/* bio-based disks timed too */
	struct lat_stats last;
	struct skipped skipped;
	int ncpus;
	void *percpu;	/* ncpus values of one key */
	struct lat_entry *ents;
	int nents, cap;
	struct json j;
	struct report r;
};

static int lat_args(void *ctx, int argc, char **argv, int optind)
{
	struct lat_opts *o = ctx;

	if (o->phases && (o->per_flags || o->queued))
		return usage_error("--phases goes with neither -F nor -Q: it splits by disk and phase");
	if (o->queued && o->own_clock)
		return usage_error("-Q and --own-clock do not go together: own stamps are taken at issue");
	return run__parse_interval(argc, argv, optind, &o->loop);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct lat_entry *lc = a, *y = b;
	int c = strcmp(disks__name(lc->dev), disks__name(y->dev));

	if (c)
		return c;
	return lc->flags < y->flags ? -1 : lc->flags > y->flags;
}

static struct lat_entry *ent_get(struct lat_ctx *lc, __u32 dev, __u32 flags)
{
	for (int i = 0; i < lc->nents; i++)
		if (lc->ents[i].dev == dev && lc->ents[i].flags == flags)
			return &lc->ents[i];
	if (lc->nents == lc->cap) {
		int cap = lc->cap ? lc->cap * 2 : 16;
		void *p = realloc(lc->ents, cap * sizeof(*lc->ents));

		if (!p)
			return NULL;
		lc->ents = p;
		lc->cap = cap;
	}
	memset(&lc->ents[lc->nents], 0, sizeof(lc->ents[0]));
	lc->ents[lc->nents].dev = dev;
	lc->ents[lc->nents].flags = flags;
	return &lc->ents[lc->nents++];
}

static int lat_take(void *ctx, const void *key, const struct hist *h)
{
	const struct lat_key *k = key;
	struct lat_entry *e = ent_get(ctx, k->dev, k->flags);

	if (!e)
		return fail("collecting histograms", "out of memory");
	hist__merge(&e->h, h);
	return 0;
}

/* Flip the epoch, then drain the half the kernel no longer writes. */
static int lat_collect(struct lat_ctx *lc)
{
	struct lat_bpf *sk = lc->skel;
	size_t vsz = (sizeof(struct hist) + 7) & ~7UL;
	__u32 old = histmap__flip(&sk->bss->epoch);
	struct lat_entry *e;
	int err;

	lc->nents = 0;
	if (!lc->o->per_disk && !lc->o->per_flags) {
		int afd = bpf_map__fd(sk->maps.total);

		if (bpf_map_lookup_elem(afd, &old, lc->percpu))
			return fail("reading histograms", "%s", strerror(errno));
		e = ent_get(lc, 0, 0);
		for (int cpu = 0; cpu < lc->ncpus; cpu++)
			hist__merge(&e->h, (struct hist *)((char *)lc->percpu + cpu * vsz));
		memset(lc->percpu, 0, vsz * lc->ncpus);
		bpf_map_update_elem(afd, &old, lc->percpu, BPF_ANY);
		if (!e->h.count)
			lc->nents = 0;
		return 0;
	}
	err = histmap__drain(bpf_map__fd(old ? sk->maps.hists1 : sk->maps.hists0),
			     bpf_map__fd(sk->maps.hists_spill), old,
			     sizeof(struct lat_key), lat_take, lc);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	sort__any(lc->ents, lc->nents, sizeof(*lc->ents), cmp_ent);
	return 0;
}

/* One series per entry: disk (with -D or -d), op and flags (with -F). */
static int lat_series(struct lat_ctx *lc, struct lat_entry *e)
{
	const char *clock = lc->o->queued ? "alloc-to-complete" : "issue-to-complete";
	uint32_t dev = lc->o->per_disk ? e->dev : lc->o->sel.disk;
	char flags[256], opbuf[16];
	const char *op = "", *disk = NULL;

	if (lc->o->per_disk)
		disk = disk_label(lc->o, e->dev);
	else if (lc->o->disk)
		disk = lc->o->sel.name;
	/* a bio-based disk's bios, from submission to their end (lat.bpf.c) */
	if (dev && lc->bio && disks__bio_based(dev))
		clock = "submit-to-end";
	if (lc->o->per_flags) {
		op = reqflags__op_name(&lc->rf, e->flags, opbuf, sizeof(opbuf));
		reqflags__flags_str(&lc->rf, e->flags, flags, sizeof(flags));
	}
	if (lc->o->per_flags && disk)
		return report__add(&lc->r, &e->h, 4, "clock", LABEL_JSON_ONLY, clock, "disk", LABEL_STR, disk,
				   "op", LABEL_STR, op, "flags", LABEL_WORDS, flags);
	if (lc->o->per_flags)
		return report__add(&lc->r, &e->h, 3, "clock", LABEL_JSON_ONLY, clock,
				   "op", LABEL_STR, op, "flags", LABEL_WORDS, flags);
	if (disk)
		return report__add(&lc->r, &e->h, 2, "clock", LABEL_JSON_ONLY, clock, "disk",
				   lc->o->per_disk ? LABEL_STR : LABEL_JSON_ONLY, disk);
	return report__add(&lc->r, &e->h, 1, "clock", LABEL_JSON_ONLY, clock);
}

/* lat's counters for one interval: the BPF side's, and two from elsewhere. */
struct lat_values {
	struct lat_stats d;
	uint64_t missed;
	int64_t skipped;
	uint64_t not_final;	/* partial completions and flush steps: life's name */
};

#define LV(f) offsetof(struct lat_values, f)
static const struct counter lat_counters[] = {
	{ "completed", LV(d.completed), NULL },
	{ "unstamped", LV(d.unstamped), "unstamped: %llu requests had no start stamp (started before "
	  "tracing, or the queue keeps no stats; iodig now stamps them itself)" },
	{ "map_full", LV(d.map_full), "lost: %llu requests found the histogram map full" },
	{ "own_stamps", LV(d.own_stamps), NULL },
	{ "not_issued", LV(d.not_issued), "not issued: %llu requests completed without reaching the "
	  "device (empty preflush writes ended by the flush machinery); not in the device-time histogram" },
	{ "not_final", LV(not_final), NULL },
	{ "bios", LV(d.bios), NULL },
	{ "bio_unstamped", LV(d.bio_unstamped), "unstamped: %llu bios of bio-based disks had no start stamp "
	  "(submitted before tracing)" },
	{ "missed", LV(missed), "missed: %llu completions found a program already running on the CPU" },
	{ "skipped", LV(skipped), SKIPPED_TEXT, 0, 1 },
};

static int lat_report(void *ctx, bool last)
{
	struct lat_ctx *lc = ctx;
	int64_t skipped = skipped__interval(&lc->skipped);
	struct lat_stats now = lc->skel->bss->stats;
	struct lat_values v = { .missed = bpfenv__recursion_misses(lc->skel->obj), .skipped = skipped };
	int err = lat_collect(lc);

	if (err)
		return err;
	now.completed = now.ran + now.bios - now.partial_done - now.flush_steps - now.other_part;
	counters__delta(&v.d, &now, &lc->last, sizeof(v.d));
	v.not_final = v.d.partial_done + v.d.flush_steps;
	report__begin(&lc->r, last);
	for (int i = 0; i < lc->nents; i++)
		if ((err = lat_series(lc, &lc->ents[i])))
			return fail("reporting", "%s", strerror(-err));
	report__emit(&lc->r, &v);
	return 0;
}

/* The kernel stamps io_start_time_ns only when the queue collects stats
 * (QUEUE_FLAG_STATS: wbt, iocost, kyber, ... turn it on).  When requests
 * arrive without it, stamp at issue ourselves from then on. */
static int lat_wait(void *ctx, int ms)
{
	struct lat_ctx *lc = ctx;

	if (!lc->issue_link && !lc->o->queued && lc->skel->bss->stats.unstamped) {
		lc->issue_link = bpf_program__attach(lc->skel->progs.lat_issue);
		if (!lc->issue_link)
			return bpfenv__fail("attaching block_rq_issue", -errno);	/* said: exit 1 */
		lc->skel->bss->own_fallback = true;
		if (log__verbose())
			warnf("requests without a kernel issue stamp: stamping at block_rq_issue");
	}
	if (lc->o->per_disk || lc->o->per_flags) {	/* keys spilled since: made here (histmap.h) */
		__u32 ep = lc->skel->bss->epoch & 1;

		histmap__make_spilled(bpf_map__fd(ep ? lc->skel->maps.hists1 : lc->skel->maps.hists0),
				      bpf_map__fd(lc->skel->maps.hists_spill), ep, sizeof(struct lat_key), 1, 0);
	}
	skipped__poll(&lc->skipped);
	return run__sleep_ms(ctx, ms);
}

bool lat__prepare(struct lat_bpf *sk, uint32_t disk, bool per_disk)
{
	const struct btf *vmlinux = bpfenv__vmlinux();
	/* bio-based disks, when one is asked for: -d, or -D with one present */
	bool bio = disk ? disks__bio_based(disk) : per_disk && disks__any_bio_based();

	sk->rodata->targ_bio_own_q = !life__kernel_q(vmlinux);
	sk->rodata->rqf_flush_seq_bit = bpfenv__enumerator(vmlinux, "__RQF_FLUSH_SEQ", 4);
	sk->rodata->rqf_io_stat_bit = bpfenv__enumerator(vmlinux, "__RQF_IO_STAT", 13);
	bpfenv__set_tp_leads(sk->obj, vmlinux);
	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
	bpf_program__set_autoload(sk->progs.lat_bio_complete, bio);
	bpf_program__set_autoload(sk->progs.lat_bio_queue, bio && sk->rodata->targ_bio_own_q);
	/* its stamps' map, 5 MB of kernel memory made whole at start, only
	 * where that program runs */
	if (!(bio && sk->rodata->targ_bio_own_q))
		bpf_map__set_max_entries(sk->maps.bio_start, 1);
	return bio;
}

int cmd_lat(int argc, char **argv)
{
	struct lat_opts o = {};
	struct lat_ctx lc = {};
	uint64_t cgid = 0;
	int err;

	static const struct cli_cmd cmd = {
		.name = "lat", .synopsis = "[options] [interval [count]]",
		.about = "Block I/O latency histograms, from the kernel's own request stamps.\n"
			 "By default: device time (issue to completion), all disks together.\n",
		.opts = lat_opts_table,
		.notes = "Percentiles are within 3.125% of the exact value (log2 buckets, 16 linear\n"
			 "sub-buckets each).  Ctrl-C prints what was gathered so far.\n"
			 "Example: iodig lat -D -F 1 5\n", .args = lat_args, .tracing = true, .slim_btf = true,
		.privileges = "CAP_BPF and CAP_PERFMON are enough: skipped's count of the kernel's is\n"
			 "/proc/diskstats.\n" };

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cgid)))
		return err;
	if (o.phases)
		return lat__phases(&o, cgid);
	if (o.per_flags) {
		if ((err = reqflags__load(&lc.rf, NULL)))
			return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	}

	lc.o = &o;
	lc.ncpus = libbpf_num_possible_cpus();
	lc.percpu = calloc(lc.ncpus, (sizeof(struct hist) + 7) & ~7UL);
	json__init(&lc.j, stdout);
	lc.r = (struct report){ .empty = "no block I/O completed", .ms = o.ms, .timestamp = o.loop.timestamp,
			       .per_interval = o.loop.interval_ms, .json = o.c.json, .j = &lc.j, .out = stdout,
			       .counters = lat_counters, .ncounters = COUNTERS_N(lat_counters) };
	lc.skel = lat_bpf__open_opts(bpfenv__open_opts());
	if (!lc.skel)
		return bpfenv__fail("opening BPF object", -errno);
	lc.skel->rodata->targ_per_disk = o.per_disk;
	lc.skel->rodata->targ_per_flags = o.per_flags;
	lc.skel->rodata->targ_queued = o.queued;
	lc.skel->rodata->targ_test_spill = getenv("IODIG_TEST_SPILL") != NULL;	/* tests (lat.bpf.c) */
	lc.skel->rodata->targ_own_clock = o.own_clock;
	lc.skel->rodata->filter_dev = o.sel.disk;
	lc.skel->rodata->filter_part = o.sel.part;
	lc.skel->rodata->filter_cgroup = cgid;
	bpf_program__set_autoattach(lc.skel->progs.lat_issue, o.own_clock);
	lc.bio = lat__prepare(lc.skel, o.sel.disk, o.per_disk);
	err = lat_bpf__load(lc.skel);
	if (err) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	err = bpfenv__attach(lc.skel->skeleton);
	if (err) {
		err = bpfenv__fail("attaching to block tracepoints", err);
		goto out;
	}
	/* without the kernel's count, skipped reads 0: said, not fatal */
	if ((err = skipped__start(&lc.skipped, o.sel.disk, bpf_map__fd(lc.skel->maps.seen_disks))))
		warnf(SKIPPED_OFF, bpfenv__strerror(err));
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	o.loop.wait = lat_wait;
	o.loop.report = lat_report;
	o.loop.ctx = &lc;
	err = run__loop(&o.loop);
out:
	skipped__stop(&lc.skipped);
	bpf_link__destroy(lc.issue_link);
	lat_bpf__destroy(lc.skel);
	reqflags__free(&lc.rf);	/* a no-op when never loaded */
	free(lc.ents);
	free(lc.percpu);
	report__free(&lc.r);
	return err;
}

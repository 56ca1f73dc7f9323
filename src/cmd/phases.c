// SPDX-License-Identifier: GPL-2.0
/* iodig lat --phases: the request-life engine in histogram mode, one
 * histogram per disk and phase (Q2G, G2I, I2D, D2C, Q2C) side by side. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "counters.h"
#include "histmap.h"
#include "hist_user.h"
#include "json.h"
#include "lat_cmd.h"
#include "life_user.h"
#include "report.h"
#include "life.skel.h"
#include "log.h"
#include "sort.h"

struct phase_disk {
	__u32 dev;
	struct hist h[PH_NR];
};

struct phases_ctx {
	struct lat_opts *o;
	struct life l;
	struct phase_disk *d;
	int nd, cap;
	struct life_stats last;
	struct json j;
	struct report r;
};

static int phases_take(void *ctx, const void *key, const struct hist *h)
{
	struct phases_ctx *pc = ctx;
	const struct life_phase_key *k = key;
	int i;

	if (k->phase >= PH_NR)
		return 0;
	for (i = 0; i < pc->nd && pc->d[i].dev != k->dev; i++)
		;
	if (i == pc->nd) {
		if (pc->nd == pc->cap) {
			void *p = realloc(pc->d, (pc->cap = pc->cap ? 2 * pc->cap : 8) * sizeof(*pc->d));

			if (!p)
				return fail("collecting histograms", "out of memory");
			pc->d = p;
		}
		memset(&pc->d[pc->nd], 0, sizeof(pc->d[0]));
		pc->d[pc->nd++].dev = k->dev;
	}
	hist__merge(&pc->d[i].h[k->phase], h);
	return 0;
}

static int cmp_disk(const void *a, const void *b)
{
	return strcmp(disks__name(((const struct phase_disk *)a)->dev),
		      disks__name(((const struct phase_disk *)b)->dev));
}

struct phases_values {
	uint64_t partial, untracked, map_full, completed, not_final, in_flight, unseen_end,
		 missed;
	int64_t skipped;
};

#define PV(f) offsetof(struct phases_values, f)
static const struct counter phases_counters[] = {
	{ "partial", PV(partial), "partial: %llu requests not in the phases (Q, G or D not seen: "
	  "started before tracing, flush machinery, never issued)" },
	{ "untracked", PV(untracked), "lost: %llu bios untracked (slot taken by another)" },
	{ "map_full", PV(map_full), "lost: %llu requests found the histogram map full" },
	{ "completed", PV(completed), NULL },
	{ "not_final", PV(not_final), NULL },
	{ "in_flight", PV(in_flight), "in flight: %llu requests followed from submission had no "
	  "completion seen (still in flight, or their completion ran no BPF program: see skipped)" },
	{ "unseen_end", PV(unseen_end), "unseen: %llu requests followed from submission whose "
	  "completion ran no BPF program (see skipped); not in the phases" },
	{ "missed", PV(missed), "missed: %llu completions found a program already running on the CPU" },
	{ "skipped", PV(skipped), SKIPPED_TEXT, 0, 1 },
};

static int phases_report(void *ctx, bool last)
{
	struct phases_ctx *pc = ctx;
	struct life_bpf *sk = pc->l.skel;
	struct life_stats s, d;
	struct phases_values v;
	int64_t skipped;
	int err;

	pc->nd = 0;
	err = life__drain_phases(&pc->l, phases_take, pc);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	sort__any(pc->d, pc->nd, sizeof(*pc->d), cmp_disk);
	skipped = life__skipped_interval(&pc->l);
	life__stats(&pc->l, &s);
	counters__delta(&d, &s, &pc->last, sizeof(d));
	v = (struct phases_values){ d.partial, d.untracked, d.map_full, d.completed, d.not_final,
				    life__in_flight(&pc->l), d.unseen_end,
				    bpfenv__recursion_misses(sk->obj), skipped };
	if (!last && !pc->o->c.json)	/* in flight now is most of a busy disk: said at the end */
		v.in_flight = 0;
	report__begin(&pc->r, last);
	for (int i = 0; i < pc->nd; i++)
		for (int p = 0; p < PH_NR; p++)
			if ((err = report__add(&pc->r, &pc->d[i].h[p], 2, "disk", LABEL_STR,
					       disk_label(pc->o, pc->d[i].dev), "phase", LABEL_STR,
					       life__phase_name(p))))
				return fail("reporting", "%s", strerror(-err));
	report__emit(&pc->r, &v);
	return 0;
}

static int phases_wait(void *ctx, int ms)
{
	struct phases_ctx *pc = ctx;

	return life__poll(&pc->l, ms);	/* 1: the output failed, said already */
}

int lat__phases(struct lat_opts *o, uint64_t cgid)
{
	struct phases_ctx pc = { .o = o };
	struct life_cfg cfg = { .mode = LIFE_PHASES, .dev = o->sel.disk, .part = o->sel.part,
				.cgroup = cgid,
				.own_clock = o->own_clock };
	int err;

	json__init(&pc.j, stdout);
	pc.r = (struct report){ .empty = "no block I/O completed", .column = "phase", .ms = o->ms,
			       .timestamp = o->loop.timestamp, .per_interval = o->loop.interval_ms,
			       .json = o->c.json, .j = &pc.j, .out = stdout, .counters = phases_counters,
			       .ncounters = COUNTERS_N(phases_counters) };
	err = life__start(&pc.l, &cfg, NULL, NULL);
	if (err)
		goto out;
	run__signals();
	if ((err = run__ready(o->c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	o->loop.wait = phases_wait;
	o->loop.report = phases_report;
	o->loop.ctx = &pc;
	err = run__loop(&o->loop);
out:
	life__stop(&pc.l);
	free(pc.d);
	report__free(&pc.r);
	return err;
}


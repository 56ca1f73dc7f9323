// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why's summary: per system call (or --call's function), the slow
 * calls' wall time and each part's share, with the disks their requests
 * went to, then the counters; JSON through field tables, text as a table.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "why_int.h"
#include "why.skel.h"

enum { M_SYS = 1, M_FUNC = 2 };

/* ---- the summary: per system call (or --call's function), then the counters ---- */

struct why_values {
	uint64_t calls, slow, shown, lost, no_storage, calls_full, linked, unlinked_io, disk_skipped,
		 life_lost, untracked, wake_running, waker_unfollowed, any_missed;
};

#define WV(f) offsetof(struct why_values, f)
static const struct counter why_counters[] = {
	{ "calls", WV(calls), NULL },
	{ "slow", WV(slow), NULL },
	{ "shown", WV(shown), NULL },
	{ "lost", WV(lost), "lost: %llu slow calls found the ring buffer full" },
	{ "no_storage", WV(no_storage), "not followed: %llu calls found no room for their thread's state" },
	{ "calls_full", WV(calls_full), "lost: %llu slow calls arrived faster than they could be joined" },
	{ "linked_requests", WV(linked), NULL },
	{ "unlinked_io", WV(unlinked_io), "unlinked: %llu calls waited for block I/O that their own "
	  "thread did not submit (writeback, journal, another thread's request)" },
	{ "other_disk", WV(disk_skipped), NULL },
	{ "requests_lost", WV(life_lost), "lost: %llu block request records (ring buffer full): "
	  "their calls show fewer requests" },
	{ "requests_untracked", WV(untracked), "untracked: %llu bios whose slot was taken: their "
	  "requests name no submitter, so no call" },
	{ "wake_running", WV(wake_running), NULL },
	{ "wakers_unfollowed", WV(waker_unfollowed), "wakers: %llu shown without their time over the wait (more state "
	  "changes during it than why keeps a task, or first seen after it began)" },
	{ "task_changes_missed", WV(any_missed), "wakers: %llu context switches found a task's state busy "
	  "or no room for it: a waker's time around them may be in the wrong part" },
};

static void values(struct why_ctx *wc, struct why_values *v)
{
	struct why_stats *s = &wc->skel->bss->stats;
	struct life_stats ls;

	life__stats(&wc->l, &ls);
	*v = (struct why_values){ s->calls, s->slow, wc->shown, s->lost, s->no_storage, wc->calls_full,
				  wc->linked, wc->unlinked_io, wc->disk_skipped, ls.lost, ls.untracked,
				  s->wake_running, wc->wakers_unfollowed, s->any_missed };
}

/* One share of the slow calls' wall time, a row of the text table. */
static void share_row(const char *name, const struct hist *h, uint64_t wall, bool skip_zero)
{
	struct hist_summary s;
	char b1[32], b2[32], b3[32];

	hist__summary(h, &s);
	if (skip_zero && !s.sum)
		return;
	printf("  %-9s %6.1f%% %10s %10s %10s\n", name, wall ? 100.0 * s.sum / wall : 0,
	       fmt_ns(b1, sizeof(b1), s.sum), fmt_ns(b2, sizeof(b2), s.p50), fmt_ns(b3, sizeof(b3), s.p99));
}

static void summary_text(struct why_ctx *wc)
{
	struct why_values v;
	bool any = false;

	printf("\nSlow calls (%.3g ms or more), where their time went:\n", wc->o->min_ns / 1e6);
	for (int i = 0; i <= NSYSC; i++) {
		struct sys_agg *a = &wc->agg[i];
		struct hist_summary w;
		char b1[32], b2[32], b3[32];

		if (!a->calls)
			continue;
		any = true;
		hist__summary(&a->wall, &w);
		printf("\n%s: %llu calls, %s in all, p50 %s, p99 %s\n",
		       i == NSYSC ? why__target(wc->o) : why_syscalls[i].name,
		       (unsigned long long)a->calls, fmt_ns(b1, sizeof(b1), w.sum),
		       fmt_ns(b2, sizeof(b2), w.p50), fmt_ns(b3, sizeof(b3), w.p99));
		printf("  %-9s %7s %10s %10s %10s\n", "part", "share", "total", "p50", "p99");
		for (int p = 0; p < WP_NR; p++)
			share_row(why_part_names[p], &a->part[p], w.sum, true);
		if (i == NSYSC) {
			printf("  %-9s %7s %10s %10s %10s\n", "inside", "share", "total", "p50", "p99");
			for (int c = 0; c <= wc->o->ninto; c++)
				share_row(c < wc->o->ninto ? wc->o->into[c] : "(self)",
					  c < wc->o->ninto ? &a->child[c] : &a->self, w.sum, false);
		}
		for (int d = 0; d < a->ndisks; d++) {
			uint64_t q2c = a->disk[d].ph[PH_Q2C];

			printf("  %s: %llu requests, of their time Q2G %.1f%%  G2I %.1f%%  I2D %.1f%%  D2C %.1f%%\n",
			       disks__name(a->disk[d].dev), (unsigned long long)a->disk[d].n,
			       q2c ? 100.0 * a->disk[d].ph[PH_Q2G] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_G2I] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_I2D] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_D2C] / q2c : 0);
		}
		if (a->nwaits || a->wait_other)
			printf("  %-9s %7s %10s %7s  %s\n", "waited", "share", "total", "calls", "in");
		for (int k = 0; k < a->nwaits; k++)
			printf("  %-9s %6.1f%% %10s %7llu  %s\n", why_part_names[a->wait[k].part],
			       w.sum ? 100.0 * a->wait[k].ns / w.sum : 0, fmt_ns(b1, sizeof(b1), a->wait[k].ns),
			       (unsigned long long)a->wait[k].calls, a->wait[k].place);
		if (a->wait_other)
			printf("  %-9s %6.1f%% %10s %7s  (further places)\n", "", w.sum ? 100.0 * a->wait_other / w.sum : 0,
			       fmt_ns(b1, sizeof(b1), a->wait_other), "");
	}
	if (!any)
		printf("none\n");
	values(wc, &v);
	printf("\n%llu calls traced, %llu slow, %llu shown; %llu block requests linked to them\n",
	       (unsigned long long)v.calls, (unsigned long long)v.slow, (unsigned long long)v.shown,
	       (unsigned long long)v.linked);
	counters__lines(stdout, why_counters, COUNTERS_N(why_counters), &v, 0);
}


/* one share of the slow calls' wall time */
struct share_view {
	const char *function;	/* --into: the child, or "(self)" */
	uint64_t sum, p50, p99;
	double share;
};

#define SH(f) offsetof(struct share_view, f)
static const struct field share_fields[] = {
	{ "function", FS_PSTR, SH(function), .flags = FL_OMIT_NULL },
	{ "sum_ns", FS_U64, SH(sum) },
	{ "share", FS_DBL, SH(share) },
	{ "p50_ns", FS_U64, SH(p50) },
	{ "p99_ns", FS_U64, SH(p99) },
};
static const struct rec share_rec = REC(NULL, NULL, NULL, share_fields);

static struct share_view share_of(const char *function, const struct hist *h, uint64_t wall)
{
	struct hist_summary s;

	hist__summary(h, &s);
	return (struct share_view){ function, s.sum, s.p50, s.p99, wall ? (double)s.sum / wall : 0 };
}

struct agg_view {
	const struct sys_agg *a;
	const struct why_ctx *wc;
	const char *syscall, *function;
	uint64_t calls, wall, p50, p99, reqs;
};

#define AV(f) offsetof(struct agg_view, f)
#define AGG(row) ((const struct agg_view *)(row))

static const void *e_parts(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	struct share_view *sv = scratch;

	if (i >= WP_NR)
		return NULL;
	*key = why_part_names[i];
	*sv = share_of(NULL, &AGG(row)->a->part[i], AGG(row)->wall);
	return sv;
}

static const void *e_agg_children(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct agg_view *av = row;
	struct share_view *sv = scratch;
	unsigned n = av->wc->o->ninto;

	if (i > n)
		return NULL;
	*sv = share_of(i < n ? av->wc->o->into[i] : "(self)", i < n ? &av->a->child[i] : &av->a->self, av->wall);
	return sv;
}

struct disk_view {
	const char *disk;
	uint64_t n, ph[PH_NR];
};

#define DV(f) offsetof(struct disk_view, f)
static const struct field disk_fields[] = {
	{ "disk", FS_PSTR, DV(disk) },
	{ "requests", FS_U64, DV(n) },
	{ "q2g_ns", FS_U64, DV(ph[PH_Q2G]) },
	{ "g2i_ns", FS_U64, DV(ph[PH_G2I]) },
	{ "i2d_ns", FS_U64, DV(ph[PH_I2D]) },
	{ "d2c_ns", FS_U64, DV(ph[PH_D2C]) },
	{ "q2c_ns", FS_U64, DV(ph[PH_Q2C]) },
};
static const struct rec disk_rec = REC(NULL, NULL, NULL, disk_fields);

static const void *e_disks(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct sys_agg *a = AGG(row)->a;
	struct disk_view *dv = scratch;

	if ((int)i >= a->ndisks)
		return NULL;
	*dv = (struct disk_view){ disks__name(a->disk[i].dev), a->disk[i].n };
	memcpy(dv->ph, a->disk[i].ph, sizeof(dv->ph));
	return dv;
}

/* where the calls waited, by place and part, longest first */
struct aplace_view {
	const char *part, *in;
	uint64_t ns, calls;
};

#define APV(f) offsetof(struct aplace_view, f)
static const struct field aplace_fields[] = {
	{ "part", FS_PSTR, APV(part) },
	{ "in", FS_PSTR, APV(in) },
	{ "ns", FS_U64, APV(ns) },
	{ "calls", FS_U64, APV(calls) },
};
static const struct rec aplace_rec = REC(NULL, NULL, NULL, aplace_fields);

static const void *e_agg_waits(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct sys_agg *a = AGG(row)->a;
	struct aplace_view *v = scratch;

	if ((int)i >= a->nwaits)
		return NULL;
	*v = (struct aplace_view){ why_part_names[a->wait[i].part], a->wait[i].place, a->wait[i].ns,
				   a->wait[i].calls };
	return v;
}

static void g_wait_other(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = AGG(row)->a->wait_other;
}

static const struct field agg_fields[] = {
	{ "syscall", FS_PSTR, AV(syscall), .flags = FL_NULLABLE },
	{ "function", FS_PSTR, AV(function), .flags = FL_OMIT_NULL },
	{ "calls", FS_U64, AV(calls) },
	{ "wall_ns", FS_U64, AV(wall) },
	{ "wall_p50_ns", FS_U64, AV(p50) },
	{ "wall_p99_ns", FS_U64, AV(p99) },
	{ "parts", FS_LIST, .each = e_parts, .sub = &share_rec, .flags = FL_OBJECT },
	{ "children", FS_LIST, .each = e_agg_children, .sub = &share_rec, .only = M_FUNC },
	{ "requests", FS_U64, AV(reqs) },
	{ "disks", FS_LIST, .each = e_disks, .sub = &disk_rec },
	{ "waits", FS_LIST, .each = e_agg_waits, .sub = &aplace_rec },
	{ "waits_other_ns", FS_GET, .get = g_wait_other, .flags = FL_INT },
};
static const struct rec agg_rec = REC(NULL, NULL, NULL, agg_fields);

struct summary_view {
	uint64_t min_ns;
	struct why_values v;
	const struct why_ctx *wc;
};

/* each system call (then --call's function) that had calls: the next one
 * from where the last was found, kept in scratch beside the view */
static const void *e_syscalls(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct why_ctx *wc = ((const struct summary_view *)row)->wc;
	struct { int next; struct agg_view av; } *s = scratch;
	struct hist_summary w;
	const struct sys_agg *a;

	if (i == 0)
		s->next = 0;
	while (s->next <= NSYSC && !wc->agg[s->next].calls)
		s->next++;
	if (s->next > NSYSC)
		return NULL;
	i = s->next++;
	a = &wc->agg[i];
	c->mode = i == NSYSC ? M_FUNC : M_SYS;
	hist__summary(&a->wall, &w);
	s->av = (struct agg_view){ a, wc };
	s->av.syscall = i == NSYSC ? NULL : why_syscalls[i].name;
	s->av.function = i == NSYSC ? why__target(wc->o) : NULL;
	s->av.calls = a->calls;
	s->av.wall = w.sum;
	s->av.p50 = w.p50;
	s->av.p99 = w.p99;
	s->av.reqs = a->reqs;
	return &s->av;
}

static const struct field summary_fields[] = {
	{ "min_ns", FS_U64, offsetof(struct summary_view, min_ns) },
	{ "syscalls", FS_LIST, .each = e_syscalls, .sub = &agg_rec },
	{ "counters", FS_COUNTERS, offsetof(struct summary_view, v), .sub = why_counters,
	  .nsub = COUNTERS_N(why_counters) },
};

const struct rec why_summary_rec = REC("summary", "why.summary", "why: the slow calls per system call, and the counters",
				       summary_fields);

static int by_ns_desc(const void *a, const void *b)
{
	uint64_t x = ((const struct agg_wait *)a)->ns, y = ((const struct agg_wait *)b)->ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

void why__summary(struct why_ctx *wc)
{
	struct summary_view sv = { wc->o->min_ns };
	struct fctx fc = {};

	for (int i = 0; i <= NSYSC; i++)	/* the places, longest first */
		qsort(wc->agg[i].wait, wc->agg[i].nwaits, sizeof(wc->agg[i].wait[0]), by_ns_desc);

	if (!wc->o->c.json) {
		summary_text(wc);
		return;
	}
	sv.wc = wc;
	values(wc, &sv.v);
	fields__json(&wc->j, &why_summary_rec, &sv, &fc);
}

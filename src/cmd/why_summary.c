// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why's summary: per system call (or --call's function), the slow
 * calls' wall time and each part's share, with the disks their requests
 * went to, then the counters; JSON through field tables, text as a table.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "bpfenv.h"
#include "counters.h"
#include "kmemo.h"
#include "disks.h"
#include "fields.h"
#include "why_int.h"
#include "why.skel.h"
#include "sort.h"

enum { M_SYS = 1, M_FUNC = 2, M_KMEMO = 4 };

/* ---- the summary: per system call (or --call's function), then the counters ---- */

struct why_values {
	uint64_t calls, slow, shown, lost, no_storage, calls_full, linked, unlinked_io, disk_skipped,
		 life_lost, untracked, wake_running, waker_unfollowed, any_missed, switch_in_unseen,
		 switch_out_unseen, kstacks_lost;
	struct kmemo_stats km;	/* the kernel stacks' memos (kmemo.bpf.h) */
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
	{ "requests_lost", WV(life_lost), "lost: %llu records of block requests or queue writes (ring buffer "
	  "full): their calls show fewer requests or writers" },
	{ "requests_untracked", WV(untracked), "untracked: %llu bios whose slot was taken: their "
	  "requests name no submitter, so no call" },
	{ "wake_running", WV(wake_running), NULL },
	{ "wakers_unfollowed", WV(waker_unfollowed), "wakers: %llu shown without their time over the wait (more state "
	  "changes during it than why keeps a task, or first seen after it began)" },
	{ "task_changes_missed", WV(any_missed), "wakers: %llu context switches found a task's state busy "
	  "or no room for it: a waker's time around them may be in the wrong part" },
	{ "switch_in_unseen", WV(switch_in_unseen), NULL },
	{ "switch_out_unseen", WV(switch_out_unseen), NULL },
	{ "kstacks_lost", WV(kstacks_lost), "%llu waits, wakers or -K stacks shown without their kernel stack "
	  "(a full map, or a collision in the kernel's stack map without memos)" },
	BPFENV_KMEMO_COUNTERS(WV(km), M_KMEMO),
};

static void values(struct why_ctx *wc, struct why_values *v)
{
	struct why_stats *s = &wc->skel->bss->stats;
	struct life_stats ls;

	life__stats(&wc->l, &ls);
	*v = (struct why_values){ s->calls, s->slow, wc->shown, s->lost, s->no_storage, wc->calls_full,
				  wc->linked, wc->unlinked_io, wc->disk_skipped, ls.lost + s->qw_lost, ls.untracked,
				  s->wake_running, wc->wakers_unfollowed, s->any_missed, s->switch_in_unseen,
				  s->switch_out_unseen, wc->kstacks_lost };
}

/* M_KMEMO where the kernel stacks came from memos, with their counters in v */
static unsigned kmemo_mode(struct why_ctx *wc, struct why_values *v)
{
	return wc->skel->rodata->kmemo_on && !bpfenv__kmemo_stats(wc->skel->maps.kmemo_cpu, &v->km) ? M_KMEMO : 0;
}

/* one share of the slow calls' wall time */
struct share_view {
	const char *function;	/* --into: the child, or "(self)" */
	uint64_t sum, p50, p99;
	double share;
	const char *name;	/* text: the part or the child */
	bool shown;		/* text: a part of no time is left out */
};

#define SH(f) offsetof(struct share_view, f)
static void t_shown(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct share_view *)row)->shown)
		v->k = V_BOOL;
}

static const struct field share_line[] = {	/* "  sleep       69.8%    21.26ms     7.09ms     7.09ms" */
	{ NULL, FS_PSTR, SH(name), .fmt = "  %-9s" },
	{ NULL, FS_DBL, SH(share), .fmt = " %6.1f%%", .tdiv = 0.01 },
	{ NULL, FS_U64, SH(sum), .fmt = " %10s", .flags = FL_DUR },
	{ NULL, FS_U64, SH(p50), .fmt = " %10s", .flags = FL_DUR },
	{ NULL, FS_U64, SH(p99), .fmt = " %10s\n", .flags = FL_DUR },
};
static const struct rec share_line_rec = REC_LINES(NULL, NULL, NULL, share_line);

static const struct field share_fields[] = {
	{ "function", FS_PSTR, SH(function), .flags = FL_OMIT_NULL },
	{ "sum_ns", FS_U64, SH(sum) },
	{ "share", FS_DBL, SH(share) },
	{ "p50_ns", FS_U64, SH(p50) },
	{ "p99_ns", FS_U64, SH(p99) },
	{ NULL, FS_OBJ, .get = t_shown, .sub = &share_line_rec, .fmt = "" },
};
static const struct rec share_rec = REC_LINES(NULL, NULL, NULL, share_fields);

static struct share_view share_of(const char *function, const struct hist *h, uint64_t wall)
{
	struct hist_summary s;

	hist__summary(h, &s);
	return (struct share_view){ function, s.sum, s.p50, s.p99, wall ? (double)s.sum / wall : 0, function,
				    true };
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
	sv->name = why_part_names[i];
	sv->shown = sv->sum;
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
	double pct[PH_NR];	/* text: of their Q2C */
};

#define DV(f) offsetof(struct disk_view, f)
static const struct field disk_fields[] = {	/* "  loop3: 3 requests, of their time Q2G 2.8%  G2I 0.0% ..." */
	{ "disk", FS_PSTR, DV(disk), .fmt = "  %s" },
	{ "requests", FS_U64, DV(n), .fmt = ": %llu requests, of their time" },
	{ "q2g_ns", FS_U64, DV(ph[PH_Q2G]) },
	{ "g2i_ns", FS_U64, DV(ph[PH_G2I]) },
	{ "i2d_ns", FS_U64, DV(ph[PH_I2D]) },
	{ "d2c_ns", FS_U64, DV(ph[PH_D2C]) },
	{ "q2c_ns", FS_U64, DV(ph[PH_Q2C]) },
	{ NULL, FS_DBL, DV(pct[PH_Q2G]), .fmt = " Q2G %.1f%%" },
	{ NULL, FS_DBL, DV(pct[PH_G2I]), .fmt = "  G2I %.1f%%" },
	{ NULL, FS_DBL, DV(pct[PH_I2D]), .fmt = "  I2D %.1f%%" },
	{ NULL, FS_DBL, DV(pct[PH_D2C]), .fmt = "  D2C %.1f%%\n" },
};
static const struct rec disk_rec = REC_LINES(NULL, NULL, NULL, disk_fields);

static const void *e_disks(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct sys_agg *a = AGG(row)->a;
	struct disk_view *dv = scratch;

	if ((int)i >= a->ndisks)
		return NULL;
	*dv = (struct disk_view){ disks__name(a->disk[i].dev), a->disk[i].n };
	memcpy(dv->ph, a->disk[i].ph, sizeof(dv->ph));
	for (int p = 0; p < PH_NR; p++)
		dv->pct[p] = dv->ph[PH_Q2C] ? 100.0 * dv->ph[p] / dv->ph[PH_Q2C] : 0;
	return dv;
}

/* where the calls waited, by part, place and waker, longest first */
struct aplace_view {
	const char *part, *in;
	uint64_t ns, calls;
	double share;		/* text: of the calls' wall time */
	const char *waker;	/* NULL: none seen, or an interrupt */
	bool irq;
	const struct agg_wait *w;
};

/* the waker's own wakers, deeper in turn: "a wait's chain" */
static const void *e_agg_chain(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct agg_wait *w = ((const struct aplace_view *)row)->w;

	return i < WHY_CHAIN - 1 && w->up[i][0] ? w->up[i] : NULL;
}

static const struct field chain_line[] = { { NULL, FS_CHARS, 0, .fmt = " <- %s" } };
static const struct rec chain_line_rec = REC_LINES(NULL, NULL, NULL, chain_line);

static void t_irq(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct aplace_view *)row)->irq)
		v->k = V_BOOL;
}

#define APV(f) offsetof(struct aplace_view, f)
static const struct field aplace_fields[] = {	/* "  sleep       69.8%    21.26ms       3  do_nanosleep" */
	{ "part", FS_PSTR, APV(part), .fmt = "  %-9s" },
	{ NULL, FS_DBL, APV(share), .fmt = " %6.1f%%" },
	{ "in", FS_PSTR, APV(in) },
	{ "ns", FS_U64, APV(ns), .fmt = " %10s", .flags = FL_DUR },
	{ "calls", FS_U64, APV(calls), .fmt = " %7llu" },
	{ NULL, FS_PSTR, APV(in), .fmt = "  %s" },
	{ "woken_by", FS_PSTR, APV(waker), .flags = FL_NULLABLE, .fmt = " <- %s" },
	{ "interrupt", FS_BOOL, APV(irq), .tget = t_irq, .fmt = " <- an interrupt" },
	{ "chain", FS_LIST, .each = e_agg_chain, .flags = FL_STR, .sub = &chain_line_rec, .fmt = "" },
	{ NULL, FS_TEXT, .fmt = "\n" },
};
static const struct rec aplace_rec = REC_LINES(NULL, NULL, NULL, aplace_fields);

static const void *e_agg_waits(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct sys_agg *a = AGG(row)->a;
	struct aplace_view *v = scratch;

	if ((int)i >= a->nwaits)
		return NULL;
	*v = (struct aplace_view){ why_part_names[a->wait[i].part], a->wait[i].place, a->wait[i].ns,
				   a->wait[i].calls, AGG(row)->wall ? 100.0 * a->wait[i].ns / AGG(row)->wall : 0,
				   a->wait[i].waker[0] ? a->wait[i].waker : NULL, a->wait[i].irq, &a->wait[i] };
	return v;
}

static void g_wait_other(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = AGG(row)->a->wait_other;
}

static void t_waits_head(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (AGG(row)->a->nwaits || AGG(row)->a->wait_other)
		v->k = V_BOOL;
}

static void t_other(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (AGG(row)->a->wait_other)
		v->k = V_BOOL;
}

static void t_other_share(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = AGG(row)->wall ? 100.0 * AGG(row)->a->wait_other / AGG(row)->wall : 0;
}

static const struct field other_line[] = {	/* the time in places past those kept */
	{ NULL, FS_GET, .tget = t_other_share, .fmt = "            %6.1f%%" },
	{ NULL, FS_GET, .tget = g_wait_other, .flags = FL_DUR, .fmt = " %10s" },
	{ NULL, FS_TEXT, .fmt = "          (further places)\n" },
};
static const struct rec other_line_rec = REC_LINES(NULL, NULL, NULL, other_line);

#define HEADS(first) "  " first "   share      total        p50        p99\n"

/* Text: "read: 15 calls, 392.4us in all, p50 2.1us, p99 296.0us", then tables */
static const struct field agg_fields[] = {
	{ "syscall", FS_PSTR, AV(syscall), .flags = FL_NULLABLE, .fmt = "\n%s" },
	{ "function", FS_PSTR, AV(function), .flags = FL_OMIT_NULL, .fmt = "\n%s" },
	{ "calls", FS_U64, AV(calls), .fmt = ": %llu calls" },
	{ "wall_ns", FS_U64, AV(wall), .fmt = ", %s in all", .flags = FL_DUR },
	{ "wall_p50_ns", FS_U64, AV(p50), .fmt = ", p50 %s", .flags = FL_DUR },
	{ "wall_p99_ns", FS_U64, AV(p99), .fmt = ", p99 %s\n", .flags = FL_DUR },
	{ NULL, FS_TEXT, .fmt = HEADS("part     ") },
	{ "parts", FS_LIST, .each = e_parts, .sub = &share_rec, .flags = FL_OBJECT, .fmt = "" },
	{ "children", FS_LIST, .each = e_agg_children, .sub = &share_rec, .only = M_FUNC, .fmt = HEADS("inside   ") },
	{ "requests", FS_U64, AV(reqs) },
	{ "disks", FS_LIST, .each = e_disks, .sub = &disk_rec, .fmt = "" },
	{ NULL, FS_GET, .tget = t_waits_head, .fmt = "  waited      share      total   calls  in\n" },
	{ "waits", FS_LIST, .each = e_agg_waits, .sub = &aplace_rec, .fmt = "" },
	{ "waits_other_ns", FS_GET, .get = g_wait_other, .flags = FL_INT },
	{ NULL, FS_OBJ, .get = t_other, .sub = &other_line_rec, .fmt = "" },
};
static const struct rec agg_rec = REC_LINES(NULL, NULL, NULL, agg_fields);

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

static void t_none(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct why_ctx *wc = ((const struct summary_view *)row)->wc;

	for (int i = 0; i <= NSYSC; i++)
		if (wc->agg[i].calls)
			return;
	v->k = V_BOOL;
}

#define SV(f) offsetof(struct summary_view, f)
static const struct field summary_fields[] = {
	{ "min_ns", FS_U64, SV(min_ns), .fmt = "\nSlow calls (%.3g ms or more), where their time went:\n",
	  .tdiv = 1e6 },
	{ "syscalls", FS_LIST, .each = e_syscalls, .sub = &agg_rec, .fmt = "" },
	{ NULL, FS_GET, .tget = t_none, .fmt = "none\n" },
	{ NULL, FS_U64, SV(v.calls), .fmt = "\n%llu calls traced" },
	{ NULL, FS_U64, SV(v.slow), .fmt = ", %llu slow" },
	{ NULL, FS_U64, SV(v.shown), .fmt = ", %llu shown" },
	{ NULL, FS_U64, SV(v.linked), .fmt = "; %llu block requests linked to them\n" },
	{ "counters", FS_COUNTERS, SV(v), .sub = why_counters, .nsub = COUNTERS_N(why_counters), .fmt = "" },
};

const struct rec why_summary_rec = REC_LINES("summary", "why.summary", "why: the slow calls per system call, and the counters",
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
		sort__any(wc->agg[i].wait, wc->agg[i].nwaits, sizeof(wc->agg[i].wait[0]), by_ns_desc);

	sv.wc = wc;
	values(wc, &sv.v);
	fc.mode = kmemo_mode(wc, &sv.v);
	if (wc->o->c.json)
		fields__json(&wc->j, &why_summary_rec, &sv, &fc);
	else
		fields__lines(stdout, &why_summary_rec, &sv, &fc);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why: where a slow call waited and who ended each wait, declared
 * once (fields.h) for JSON and for the text line "waited: sleep 8.30 ms in
 * jbd2_log_wait_commit <- jbd2/loop0-8[301/301] in
 * jbd2_journal_commit_transaction: io 7.90 ms (3 requests, 48 KiB to loop0)".
 */
#include <stddef.h>
#include <string.h>
#include "disks.h"
#include "fields.h"
#include "why_int.h"

/* one place a call waited at, and who ended its longest wait there */
struct place_view {
	const struct pending *p;
	int w, d;		/* c.waits[w], at depth d of its chain (0: the call's own wait) */
	const char *lead;	/* text: "    waited:" for the first, then its indent */
	const char *part, *in;
	uint64_t ns;
	struct why_waker k;
	bool irq;
	const char *how, *disk;
	uint32_t nreq;
	uint64_t bytes, q2c, d2c;	/* the waker's requests; the longest one's Q2C and D2C */
	uint32_t owner;			/* whose data most of their bytes were, 0: none's */
	uint64_t owner_bytes;
	const char *owner_comm;
	const struct hop_names *h;	/* NULL: no waker */
};

#define PL(f) offsetof(struct place_view, f)
#define PLACE(row) ((const struct place_view *)(row))

/* a getter that says whether (a group of text is printed), or true */
#define IF(name, expr)									\
	static void name(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) \
	{										\
		const struct place_view *p = row;					\
		if (expr) {								\
			v->k = V_BOOL;							\
			v->b = true;							\
		}									\
	}

IF(g_woken, p->k.at)
IF(g_irq_text, p->irq)
IF(g_task_text, !p->irq && p->k.tid)
IF(g_followed_text, p->k.flags & WHY_WAKER_FOLLOWED)
IF(g_unfollowed_text, !(p->k.flags & WHY_WAKER_FOLLOWED))
IF(g_reqs_text, p->nreq)
IF(g_owner, p->owner)

static void g_wk_irq(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = PLACE(row)->irq;
}

static void g_wk_followed(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = PLACE(row)->k.flags & WHY_WAKER_FOLLOWED;
}

/* an interrupt's waker is no task: its name and ids null */
static void g_wk_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!PLACE(row)->irq) {
		v->k = V_STR;
		v->s = PLACE(row)->k.comm;
	}
}

static void g_wk_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!PLACE(row)->irq) {
		v->k = V_U64;
		v->u = PLACE(row)->k.pid;
	}
}

static void g_wk_tid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!PLACE(row)->irq) {
		v->k = V_U64;
		v->u = PLACE(row)->k.tid;
	}
}

static void t_resolution(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (PLACE(row)->k.resolution_ns) {
		v->k = V_U64;
		v->u = PLACE(row)->k.resolution_ns;
	}
}

static void g_plural(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = PLACE(row)->nreq == 1 ? "" : "s";
}

static const char *const wpart_names[WW_NR] = { "cpu", "runq", "io", "sleep", "steal" };

/* text: the waker's parts over the wait, largest first, those of 10 us or more */
struct wpart_view {
	const char *sep, *name;
	uint64_t ns;
};

static const struct field wpart_fields[] = {
	{ NULL, FS_PSTR, offsetof(struct wpart_view, sep), .fmt = "%s" },
	{ NULL, FS_PSTR, offsetof(struct wpart_view, name), .fmt = " %s" },
	{ NULL, FS_U64, offsetof(struct wpart_view, ns), .fmt = " %.2f ms", .tdiv = 1e6 },
};
static const struct rec wpart_rec = REC_LINES(NULL, NULL, NULL, wpart_fields);

static const void *e_wparts(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct why_waker *k = &PLACE(row)->k;
	struct wpart_view *v = scratch;
	bool done[WW_NR] = {};
	int m = -1;

	if (i >= WW_NR)
		return NULL;
	for (unsigned n = 0; n <= i; n++) {	/* the i-th largest */
		m = -1;
		for (int p = 0; p < WW_NR; p++)
			if (!done[p] && (m < 0 || k->part[p] > k->part[m]))
				m = p;
		done[m] = true;
	}
	if (k->part[m] < 10000)
		return NULL;
	*v = (struct wpart_view){ i ? "," : ":", wpart_names[m], k->part[m] };
	return v;
}

/* whose data the waker's requests were (a journal commit's ordered data) */
static const struct field owner_text[] = {	/* ", 40 KiB data of python3[1234]" */
	{ NULL, FS_U64, PL(owner_bytes), .fmt = ", %.0f KiB", .tdiv = 1024 },
	{ NULL, FS_PSTR, PL(owner_comm), .fmt = " data of %s" },
	{ NULL, FS_U32, PL(owner), .fmt = "[%u]" },
};
static const struct rec owner_text_rec = REC_LINES(NULL, NULL, NULL, owner_text);

static const struct field owner_fields[] = {
	{ "pid", FS_U32, PL(owner) },
	{ "comm", FS_PSTR, PL(owner_comm) },
	{ "bytes", FS_U64, PL(owner_bytes) },
};
static const struct rec owner_rec = REC(NULL, NULL, NULL, owner_fields);

static const struct field reqs_text[] = {	/* " (3 requests, 48 KiB to loop0, longest Q2C 5.10 ms D2C 5.02 ms)" */
	{ NULL, FS_U32, PL(nreq), .fmt = " (%u request" },
	{ NULL, FS_GET, .tget = g_plural, .fmt = "%s" },
	{ NULL, FS_U64, PL(bytes), .fmt = ", %.0f KiB", .tdiv = 1024 },
	{ NULL, FS_PSTR, PL(disk), .fmt = " to %s" },
	{ NULL, FS_OBJ, .get = g_owner, .sub = &owner_text_rec, .fmt = "" },
	{ NULL, FS_U64, PL(q2c), .fmt = ", longest Q2C %.2f ms", .tdiv = 1e6 },
	{ NULL, FS_U64, PL(d2c), .fmt = " D2C %.2f ms)", .tdiv = 1e6 },
};
static const struct rec reqs_text_rec = REC_LINES(NULL, NULL, NULL, reqs_text);

static const struct field followed_text[] = {
	{ NULL, FS_LIST, .each = e_wparts, .sub = &wpart_rec, .fmt = "" },
	{ NULL, FS_GET, .tget = t_resolution, .fmt = " (each within %.1f ms)", .tdiv = 1e6 },
};
static const struct rec followed_text_rec = REC_LINES(NULL, NULL, NULL, followed_text);

static const struct field task_text[] = {	/* " <- jbd2/loop0-8[301/301] in FN: ..." */
	{ NULL, FS_CHARS, PL(k.comm), .fmt = " <- %s" },
	{ NULL, FS_U32, PL(k.pid), .fmt = "[%u/" },
	{ NULL, FS_U32, PL(k.tid), .fmt = "%u]" },
	{ NULL, FS_PSTR, PL(how), .fmt = " in %s" },
	{ NULL, FS_GET, .tget = g_unfollowed_text, .fmt = " (its time over the wait not kept)" },
	{ NULL, FS_OBJ, .get = g_followed_text, .sub = &followed_text_rec, .fmt = "" },
	/* its requests over the wait come from the engine's records: shown
	 * whether or not its own time was kept */
	{ NULL, FS_OBJ, .get = g_reqs_text, .sub = &reqs_text_rec, .fmt = "" },
};
static const struct rec task_text_rec = REC_LINES(NULL, NULL, NULL, task_text);

/* the request whose completion ended the wait (the waker had none of its own) */
#define EN(f) offsetof(struct hop_names, ended.f)
static const void *e_ended(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct place_view *v = row;

	return !i && v->h && v->h->ended.found ? v->h : NULL;
}

static void g_ended_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = disks__name(((const struct hop_names *)row)->ended.dev);
}

/* a flusher's or journal's write: whose data it was */
static void g_ended_owner(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct hop_names *)row)->ended.owner) {
		v->k = V_BOOL;
		v->b = true;
	}
}

static const struct field ended_owner_fields[] = {	/* ", data of dd[412]" */
	{ "pid", FS_U32, EN(owner), .fmt = ", data of" },
	{ "comm", FS_CHARS, EN(owner_comm), .fmt = " %s" },
	{ NULL, FS_U32, EN(owner), .fmt = "[%u]" },
};
static const struct rec ended_owner_rec = REC_LINES(NULL, NULL, NULL, ended_owner_fields);

static const struct field ended_fields[] = {	/* ", ending loop0 read 4096 B of folioA[412/412] (Q2C 30.12 ms)" */
	{ "disk", FS_GET, .get = g_ended_disk, .flags = FL_STR, .fmt = ", ending %s" },
	{ "op", FS_CHARS, EN(op), .fmt = " %s" },
	{ "bytes", FS_U32, EN(bytes), .fmt = " %u B" },
	{ "comm", FS_CHARS, EN(comm), .fmt = " of %s" },
	{ "pid", FS_U32, EN(pid), .fmt = "[%u/" },
	{ "tid", FS_U32, EN(tid), .fmt = "%u]" },
	{ "q2c_ns", FS_U64, EN(q2c), .fmt = " (Q2C %.2f ms", .tdiv = 1e6 },
	{ "d2c_ns", FS_U64, EN(d2c), .fmt = " D2C %.2f ms", .tdiv = 1e6 },
	{ "data_of", FS_OBJ, .get = g_ended_owner, .sub = &ended_owner_rec, .flags = FL_NULLABLE, .fmt = "" },
	{ NULL, FS_TEXT, .fmt = ")" },
};
static const struct rec ended_rec = REC_LINES(NULL, NULL, NULL, ended_fields);

static const struct field irq_text[] = {	/* " <- an interrupt: hrtimer_wakeup" */
	{ NULL, FS_TEXT, .fmt = " <- an interrupt" },
	{ NULL, FS_PSTR, PL(how), .fmt = ": %s" },
};
static const struct rec irq_text_rec = REC_LINES(NULL, NULL, NULL, irq_text);

/* the longest of the waker's requests over the wait, null without one */
static const struct field longest_fields[] = {
	{ "q2c_ns", FS_U64, PL(q2c) },
	{ "d2c_ns", FS_U64, PL(d2c) },
};
static const struct rec longest_rec = REC(NULL, NULL, NULL, longest_fields);

/* a waker's time over the wait: null unless followed all through it */
static const struct field wk_parts_fields[] = {
	{ "cpu_ns", FS_U64, PL(k.part[WW_CPU]) },
	{ "runq_ns", FS_U64, PL(k.part[WW_RUNQ]) },
	{ "io_ns", FS_U64, PL(k.part[WW_IO]) },
	{ "sleep_ns", FS_U64, PL(k.part[WW_SLEEP]) },
	{ "steal_ns", FS_U64, PL(k.part[WW_STEAL]) },
};
static const struct rec wk_parts_rec = REC(NULL, NULL, NULL, wk_parts_fields);

static const struct rec hop_rec;
static const void *e_up(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key);

static const struct field wk_fields[] = {
	{ "comm", FS_GET, .get = g_wk_comm, .flags = FL_STR | FL_NULLABLE },
	{ "pid", FS_GET, .get = g_wk_pid, .flags = FL_INT | FL_NULLABLE },
	{ "tid", FS_GET, .get = g_wk_tid, .flags = FL_INT | FL_NULLABLE },
	{ "interrupt", FS_GET, .get = g_wk_irq, .flags = FL_BOOL },
	{ "how", FS_PSTR, PL(how), .flags = FL_NULLABLE },
	{ "wait_ns", FS_U64, PL(k.wait_ns) },
	{ "followed", FS_GET, .get = g_wk_followed, .flags = FL_BOOL },
	{ "parts", FS_OBJ, .get = g_followed_text, .sub = &wk_parts_rec, .flags = FL_NULLABLE },
	{ "resolution_ns", FS_U64, PL(k.resolution_ns) },	/* 0: parts exact */
	{ "requests", FS_U32, PL(nreq) },
	{ "request_bytes", FS_U64, PL(bytes) },
	{ "longest_request", FS_OBJ, .get = g_reqs_text, .sub = &longest_rec, .flags = FL_NULLABLE },
	{ "disk", FS_PSTR, PL(disk), .flags = FL_NULLABLE },
	{ "data_of", FS_OBJ, .get = g_owner, .sub = &owner_rec, .flags = FL_NULLABLE },
	{ NULL, FS_OBJ, .get = g_irq_text, .sub = &irq_text_rec, .fmt = "" },
	{ NULL, FS_OBJ, .get = g_task_text, .sub = &task_text_rec, .fmt = "" },
	{ "ended_request", FS_OBJ, .each = e_ended, .sub = &ended_rec, .flags = FL_NULLABLE, .fmt = "" },
	/* --depth 2+: the waker's longest wait over this one (null: none kept) */
	{ "waited", FS_OBJ, .each = e_up, .sub = &hop_rec, .flags = FL_NULLABLE, .fmt = "" },
};
static const struct rec wk_rec = REC_LINES(NULL, NULL, NULL, wk_fields);

/* the waker's own wait over this one, and who ended it: the next link */
static const struct field hop_fields[] = {	/* "; its sleep 30.50 ms in anon_pipe_read <- ..." */
	{ "part", FS_PSTR, PL(part), .fmt = "; its %s" },
	{ "ns", FS_U64, PL(ns), .fmt = " %.2f ms", .tdiv = 1e6 },
	{ "in", FS_PSTR, PL(in), .fmt = " in %s" },
	{ "woken_by", FS_OBJ, .get = g_woken, .sub = &wk_rec, .flags = FL_NULLABLE, .fmt = "" },
};
static const struct rec hop_rec = REC_LINES(NULL, NULL, NULL, hop_fields);

static const struct field place_fields[] = {
	{ NULL, FS_PSTR, PL(lead), .fmt = "%s" },
	{ "part", FS_PSTR, PL(part), .fmt = " %s" },
	{ "ns", FS_U64, PL(ns), .fmt = " %.2f ms", .tdiv = 1e6 },
	{ "in", FS_PSTR, PL(in), .fmt = " in %s" },
	{ "woken_by", FS_OBJ, .get = g_woken, .sub = &wk_rec, .flags = FL_NULLABLE, .fmt = "" },
	{ NULL, FS_TEXT, .fmt = "\n" },
};
const struct rec why_place_rec = REC_LINES(NULL, NULL, NULL, place_fields);

/* wait w of the call at depth d of its chain: its part, time, place and waker */
static void place_of(const struct pending *p, int w, int d, struct place_view *v)
{
	const struct hop_names *h = &p->hop[w][d];
	const struct why_waker *k = why__hop(p, w, d);

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->w = w;
	v->d = d;
	if (!d) {
		v->part = p->c.waits[w].part < WP_NR ? why_part_names[p->c.waits[w].part] : "?";
		v->ns = p->c.waits[w].ns;
		v->in = p->place[w];
	} else {
		v->part = k && k->wpart < WW_NR ? wpart_names[k->wpart] : "?";
		v->ns = k ? k->wait_ns : 0;
		v->in = h->place;
	}
	if (!k)
		return;
	v->k = *k;
	v->irq = h->irq;
	v->how = h->how[0] ? h->how : NULL;
	if (v->irq)	/* the task the interrupt came upon did not wake it: not its time */
		v->k.flags &= ~WHY_WAKER_FOLLOWED;
	v->nreq = h->reqs.n;
	v->bytes = h->reqs.bytes;
	v->q2c = h->reqs.q2c;
	v->d2c = h->reqs.d2c;
	v->disk = v->nreq ? disks__name(h->reqs.dev) : NULL;
	v->owner = h->reqs.owner;
	v->owner_bytes = h->reqs.owner_bytes;
	v->owner_comm = h->reqs.owner_comm;
	v->h = h;
}

static const void *e_up(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct place_view *v = row;

	if (i || v->d + 1 >= WHY_CHAIN || !why__hop(v->p, v->w, v->d + 1))
		return NULL;
	place_of(v->p, v->w, v->d + 1, scratch);
	return scratch;
}

const void *why__each_wait(const struct pending *p, unsigned i, void *scratch)
{
	struct place_view *v = scratch;

	for (unsigned w = 0, k = 0; w < WHY_WAITS; w++) {
		if (!p->c.waits[w].ns || k++ != i)
			continue;
		place_of(p, w, 0, v);
		v->lead = i ? "           " : "    waited:";
		return v;
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why's printer: each slow call (its parts, the requests it waited
 * for, its children with --into) and the summary, JSON through field tables
 * (fields.h) and text as the lines the README shows.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "text.h"
#include "why_int.h"
#include "why.skel.h"

const char *const why_part_names[WP_NR] = {
	"cpu", "runq", "io", "lock", "throttle", "reclaim", "sleep",
};


const char *why__target(const struct why_opts *o)
{
	const char *c = strrchr(o->call, ':');

	return c ? c + 1 : o->call;
}

static const char *lock_kind(uint32_t f)
{
	if (f & WHY_LCB_PERCPU)
		return f & WHY_LCB_WRITE ? "percpu-rwsem write" : "percpu-rwsem read";
	if (f & WHY_LCB_MUTEX)
		return f & WHY_LCB_SPIN ? "mutex (spinning)" : "mutex";
	if (f & WHY_LCB_RT)
		return "rt-mutex";
	if (f & (WHY_LCB_READ | WHY_LCB_WRITE)) {
		if (f & WHY_LCB_SPIN)
			return f & WHY_LCB_WRITE ? "rwlock write" : "rwlock read";
		return f & WHY_LCB_WRITE ? "rwsem write" : "rwsem read";
	}
	if (f & WHY_LCB_SPIN)
		return "spinlock";
	return "other";
}

/* ---- a call, declared once: modes say syscall or --call, and -K/-U ---- */

enum { M_SYS = 1, M_FUNC = 2, M_KSTACK = 4, M_USTACK = 8, M_STACK = M_KSTACK | M_USTACK };

struct call_view {
	struct why_call c;
	const char *syscall, *function, *file, *lock;
	uint64_t wall, self, total;
	int64_t unaccounted;	/* signed, never clamped: negative would be time counted twice */
	const struct life_req **rs;
	int nrs;
	const struct why_ctx *wc;
};

#define CV(f) offsetof(struct call_view, f)
#define CALL(row) ((const struct call_view *)(row))

static void g_major(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = CALL(row)->c.dev >> 20;
}

static void g_minor(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = CALL(row)->c.dev & 0xfffff;
}

static void g_error(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	int64_t ret = CALL(row)->c.ret;

	if (ret < 0 && ret >= -4095) {
		v->k = V_STR;
		v->s = text__ret(ret, b, n);
	}
}

static void g_lock(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->c.lock_max)
		v->k = V_BOOL;
}

static const struct field parts_fields[] = {
	{ "on_cpu_ns", FS_U64, CV(c.part[WP_CPU]) },
	{ "runnable_ns", FS_U64, CV(c.part[WP_RUNQ]) },
	{ "block_io_ns", FS_U64, CV(c.part[WP_IO]) },
	{ "lock_ns", FS_U64, CV(c.part[WP_LOCK]) },
	{ "throttle_ns", FS_U64, CV(c.part[WP_THROTTLE]) },
	{ "reclaim_ns", FS_U64, CV(c.part[WP_RECLAIM]) },
	{ "sleep_ns", FS_U64, CV(c.part[WP_SLEEP]) },
	{ "unaccounted_ns", FS_I64, CV(unaccounted) },
};
static const struct rec parts_rec = REC(NULL, NULL, NULL, parts_fields);

static const struct field lock_fields[] = {
	{ "kind", FS_PSTR, CV(lock) },
	{ "longest_ns", FS_U64, CV(c.lock_max) },
};
static const struct rec lock_rec = REC(NULL, NULL, NULL, lock_fields);

/* --into: each child's time and calls */
struct child_view {
	const char *function;
	uint64_t ns;
	uint32_t calls;
};

static const struct field child_fields[] = {
	{ "function", FS_PSTR, offsetof(struct child_view, function) },
	{ "ns", FS_U64, offsetof(struct child_view, ns) },
	{ "calls", FS_U32, offsetof(struct child_view, calls) },
};
static const struct rec child_rec = REC(NULL, NULL, NULL, child_fields);

static const void *e_children(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct call_view *cv = row;
	struct child_view *ch = scratch;

	if ((int)i >= cv->wc->o->ninto)
		return NULL;
	*ch = (struct child_view){ cv->wc->o->into[i], cv->c.child_ns[i], cv->c.child_calls[i] };
	return ch;
}

/* a request the call waited for, with the queue write that stalled it */
struct wreq_view {
	const char *disk, *op;
	uint64_t sector;
	uint32_t bytes;
	bool partial, has_w;
	__u64 ph[PH_NR];
	struct life_sysfs w;
	char val[SYSFS_VALUE_LEN], ob[16];
};

#define WR(f) offsetof(struct wreq_view, f)

static void g_has_w(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct wreq_view *)row)->has_w)
		v->k = V_BOOL;
}

static const struct field wq_fields[] = {
	{ "comm", FS_CHARS, WR(w.comm) },
	{ "pid", FS_U32, WR(w.pid) },
	{ "attr", FS_CHARS, WR(w.attr) },
	{ "value", FS_CHARS, WR(val) },
};
static const struct rec wq_rec = REC(NULL, NULL, NULL, wq_fields);

static const struct field wreq_fields[] = {
	{ "disk", FS_PSTR, WR(disk) },
	{ "op", FS_PSTR, WR(op) },
	{ "sector", FS_U64, WR(sector), .flags = FL_MAX_NULL },
	{ "bytes", FS_U32, WR(bytes) },
	{ "q2g_ns", FS_U64, WR(ph[PH_Q2G]) },
	{ "g2i_ns", FS_U64, WR(ph[PH_G2I]) },
	{ "i2d_ns", FS_U64, WR(ph[PH_I2D]) },
	{ "d2c_ns", FS_U64, WR(ph[PH_D2C]) },
	{ "q2c_ns", FS_U64, WR(ph[PH_Q2C]) },
	{ "partial", FS_BOOL, WR(partial) },
	{ "queue_write", FS_OBJ, .get = g_has_w, .sub = &wq_rec },
};
static const struct rec wreq_rec = REC(NULL, NULL, NULL, wreq_fields);

static void wreq_of(const struct why_ctx *wc, const struct life_req *r, struct wreq_view *q)
{
	const struct life_sysfs *w;

	memset(q, 0, sizeof(*q));
	q->partial = !life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, q->ph);
	q->disk = disks__name(r->dev);
	q->op = reqflags__op_name(&wc->pr.rf, r->cmd_flags, q->ob, sizeof(q->ob));
	q->sector = r->sector;
	q->bytes = r->bytes;
	if ((w = printer__culprit((struct req_printer *)&wc->pr, r, q->ph))) {
		q->has_w = true;
		q->w = *w;
		printer__value(w->value, q->val, sizeof(q->val));
	}
}

static const void *e_requests(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct call_view *cv = row;

	if ((int)i >= cv->nrs)
		return NULL;
	wreq_of(cv->wc, cv->rs[i], scratch);
	return scratch;
}

/* -K/-U: where the call blocked longest, or null */
static void g_waited(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->c.wait_max)
		v->k = V_BOOL;
}

static const void *e_kframes(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return &CALL(row)->wc->cur->kf;
}

static const void *e_uframes(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return &CALL(row)->wc->cur->uf;
}

static void g_ucut(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = CALL(row)->wc->cur->uf.cut;
}

static const struct field wait_fields[] = {
	{ "ns", FS_U64, CV(c.wait_max) },
	{ "kernel", FS_FRAMES, .each = e_kframes, .only = M_KSTACK },
	{ "user", FS_FRAMES, .each = e_uframes, .only = M_USTACK },
	{ "user_cut_short", FS_GET, .get = g_ucut, .flags = FL_BOOL, .only = M_USTACK },
};
static const struct rec wait_rec = REC(NULL, NULL, NULL, wait_fields);

/* one place a call waited at, and who ended its longest wait there */
struct place_view {
	const char *part, *in;
	uint64_t ns;
	struct why_waker k;
	bool irq;
	const char *how, *disk;
	uint32_t nreq;
	uint64_t bytes;
};

#define PL(f) offsetof(struct place_view, f)

static void g_woken(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct place_view *p = row;

	if (p->k.at)
		v->k = V_BOOL;
}

static void g_wk_irq(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = ((const struct place_view *)row)->irq;
}

static void g_wk_followed(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = ((const struct place_view *)row)->k.flags & WHY_WAKER_FOLLOWED;
}

/* an interrupt's waker is no task: its name and ids null */
static void g_wk_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct place_view *p = row;

	if (!p->irq) {
		v->k = V_STR;
		v->s = p->k.comm;
	}
}

static void g_wk_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct place_view *p = row;

	if (!p->irq) {
		v->k = V_U64;
		v->u = p->k.pid;
	}
}

static void g_wk_tid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct place_view *p = row;

	if (!p->irq) {
		v->k = V_U64;
		v->u = p->k.tid;
	}
}

/* a waker's time over the wait: null unless followed all through it */
static void g_wk_parts(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct place_view *)row)->k.flags & WHY_WAKER_FOLLOWED)
		v->k = V_BOOL;
}

static const struct field wk_parts_fields[] = {
	{ "cpu_ns", FS_U64, PL(k.part[WW_CPU]) },
	{ "runq_ns", FS_U64, PL(k.part[WW_RUNQ]) },
	{ "io_ns", FS_U64, PL(k.part[WW_IO]) },
	{ "sleep_ns", FS_U64, PL(k.part[WW_SLEEP]) },
};
static const struct rec wk_parts_rec = REC(NULL, NULL, NULL, wk_parts_fields);

static const struct field wk_fields[] = {
	{ "comm", FS_GET, .get = g_wk_comm, .flags = FL_STR | FL_NULLABLE },
	{ "pid", FS_GET, .get = g_wk_pid, .flags = FL_INT | FL_NULLABLE },
	{ "tid", FS_GET, .get = g_wk_tid, .flags = FL_INT | FL_NULLABLE },
	{ "interrupt", FS_GET, .get = g_wk_irq, .flags = FL_BOOL },
	{ "how", FS_PSTR, PL(how), .flags = FL_NULLABLE },
	{ "wait_ns", FS_U64, PL(k.wait_ns) },
	{ "followed", FS_GET, .get = g_wk_followed, .flags = FL_BOOL },
	{ "parts", FS_OBJ, .get = g_wk_parts, .sub = &wk_parts_rec, .flags = FL_NULLABLE },
	{ "requests", FS_U32, PL(nreq) },
	{ "request_bytes", FS_U64, PL(bytes) },
	{ "disk", FS_PSTR, PL(disk), .flags = FL_NULLABLE },
};
static const struct rec wk_rec = REC(NULL, NULL, NULL, wk_fields);

static const struct field place_fields[] = {
	{ "part", FS_PSTR, PL(part) },
	{ "ns", FS_U64, PL(ns) },
	{ "in", FS_PSTR, PL(in) },
	{ "woken_by", FS_OBJ, .get = g_woken, .sub = &wk_rec, .flags = FL_NULLABLE },
};
static const struct rec place_rec = REC(NULL, NULL, NULL, place_fields);

static void place_of(const struct pending *p, int w, struct place_view *v)
{
	memset(v, 0, sizeof(*v));
	v->part = p->c.waits[w].part < WP_NR ? why_part_names[p->c.waits[w].part] : "?";
	v->ns = p->c.waits[w].ns;
	v->in = p->place[w];
	v->k = p->c.waits[w].waker;
	v->irq = p->wk_irq[w];
	v->how = p->wk_how[w][0] ? p->wk_how[w] : NULL;
	if (v->irq)	/* the task the interrupt came upon did not wake it: not its time */
		v->k.flags &= ~WHY_WAKER_FOLLOWED;
	v->nreq = p->wk_reqs[w].n;
	v->bytes = p->wk_reqs[w].bytes;
	v->disk = v->nreq ? disks__name(p->wk_reqs[w].dev) : NULL;
}

static const void *e_waits(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct pending *p = CALL(row)->wc->cur;
	struct place_view *v = scratch;

	for (unsigned w = 0, k = 0; w < WHY_WAITS; w++) {
		if (!p->c.waits[w].ns || k++ != i)
			continue;
		place_of(p, w, v);
		return v;
	}
	return NULL;
}

static const struct field call_fields[] = {
	{ "ts_ns", FS_U64, CV(c.start) },
	{ "comm", FS_CHARS, CV(c.comm) },
	{ "pid", FS_U32, CV(c.pid) },
	{ "tid", FS_U32, CV(c.tid) },
	{ "syscall", FS_PSTR, CV(syscall), .flags = FL_NULLABLE },
	{ "function", FS_PSTR, CV(function), .flags = FL_OMIT_NULL },
	{ "fd", FS_I32, CV(c.fd) },
	{ "file", FS_PSTR, CV(file) },
	{ "dev_major", FS_GET, .get = g_major, .flags = FL_INT },
	{ "dev_minor", FS_GET, .get = g_minor, .flags = FL_INT },
	{ "ino", FS_U64, CV(c.ino) },
	{ "asked", FS_U64, CV(c.asked) },
	{ "ret", FS_I64, CV(c.ret) },
	{ "error", FS_GET, .get = g_error, .flags = FL_STR | FL_NULLABLE },
	{ "wall_ns", FS_U64, CV(wall) },
	{ "parts", FS_OBJ, .sub = &parts_rec, .flags = FL_OBJECT },
	{ "lock", FS_OBJ, .get = g_lock, .sub = &lock_rec },
	{ "cache_added_pages", FS_U64, CV(c.cache_added) },
	{ "readahead_sync", FS_U32, CV(c.ra_sync) },
	{ "readahead_async", FS_U32, CV(c.ra_async) },
	{ "faults", FS_U64, CV(c.faults) },
	{ "offcpu", FS_U32, CV(c.offcpu) },
	{ "waits", FS_LIST, .each = e_waits, .sub = &place_rec },
	{ "waits_other_ns", FS_U64, CV(c.waits_other) },
	{ "children", FS_LIST, .each = e_children, .sub = &child_rec, .only = M_FUNC },
	{ "self_ns", FS_U64, CV(self), .only = M_FUNC },
	{ "requests_total", FS_U64, CV(total) },
	{ "requests", FS_LIST, .each = e_requests, .sub = &wreq_rec },
	{ "longest_wait", FS_OBJ, .get = g_waited, .sub = &wait_rec, .only = M_STACK },
};

const struct rec why_call_rec = REC("call", "why.call", "why: one slow system call (or --call function call) and "
				    "where its time went", call_fields);

/* Who ended it: " <- jbd2/loop0-8[301]: io 7.90 ms, cpu 0.20 ms (3 requests,
 * 48 KiB to loop0)", " <- an interrupt", or its name alone when its time
 * over the wait was not kept. */
static void print_waker(const struct place_view *v)
{
	static const char *const names[WW_NR] = { "cpu", "runq", "io", "sleep" };
	bool done[WW_NR] = {};
	const char *sep = ":";
	char comm[TEXT_SAFE_LEN(WHY_COMM_LEN)];

	if (v->irq) {
		printf(" <- an interrupt%s%s", v->how ? ": " : "", v->how ? v->how : "");
		return;
	}
	if (!v->k.tid)
		return;
	printf(" <- %s[%u/%u]", text__safe(v->k.comm, comm, sizeof(comm)), v->k.pid, v->k.tid);
	if (v->how)
		printf(" in %s", v->how);
	if (!(v->k.flags & WHY_WAKER_FOLLOWED)) {
		printf(" (its time over the wait not kept)");
		return;
	}
	for (int n = 0; n < WW_NR; n++) {	/* its parts, largest first, those over 10 us */
		int m = -1;

		for (int i = 0; i < WW_NR; i++)
			if (!done[i] && (m < 0 || v->k.part[i] > v->k.part[m]))
				m = i;
		done[m] = true;
		if (v->k.part[m] < 10000)
			break;
		printf("%s %s %.2f ms", sep, names[m], v->k.part[m] / 1e6);
		sep = ",";
	}
	if (v->nreq)
		printf(" (%u request%s, %.0f KiB to %s)", v->nreq, v->nreq == 1 ? "" : "s", v->bytes / 1024.0,
		       v->disk);
}

/* Where it blocked, a line a place: "waited: sleep 8.30 ms in
 * jbd2_log_wait_commit <- jbd2/loop0-8[301]: io 7.90 ms" */
static void print_waits(const struct pending *p)
{
	const char *lead = "    waited:";
	struct place_view v;

	for (int w = 0; w < WHY_WAITS; w++) {
		if (!p->c.waits[w].ns)
			continue;
		place_of(p, w, &v);
		printf("%s %s %.2f ms in %s", lead, v.part, v.ns / 1e6, v.in);
		print_waker(&v);
		printf("\n");
		lead = "           ";
	}
	if (p->c.waits_other)
		printf("%s %.2f ms elsewhere\n", lead, p->c.waits_other / 1e6);
}

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.2f", ns / 1e6);
}


static void print_call_text(struct why_ctx *wc, const struct why_call *c, const char *file,
			    const struct sysc *s, const struct life_req **rs, int nrs, int total)
{
	uint64_t wall = c->end - c->start, sum = 0;
	char comm[TEXT_SAFE_LEN(WHY_COMM_LEN)], safe[TEXT_SAFE_LEN(sizeof(wc->calls[0].file))], rb[32], a[32];
	int order[WP_NR];

	printf("%-9.3f %s[%u/%u] %s(%s%s%s) = %s  %.2f ms\n", (c->start - wc->t0) / 1e9,
	       text__safe(c->comm, comm, sizeof(comm)), c->pid, c->tid,
	       c->nr == WHY_NR_FUNC ? why__target(wc->o) : s ? s->name : "?", text__safe(file, safe, sizeof(safe)),
	       c->asked ? ", " : "", c->asked ? (snprintf(a, sizeof(a), "%llu", (unsigned long long)c->asked), a) : "",
	       text__ret(c->ret, rb, sizeof(rb)), wall / 1e6);
	/* the parts, largest first */
	for (int p = 0; p < WP_NR; p++) {
		order[p] = p;
		sum += c->part[p];
	}
	for (int i = 1; i < WP_NR; i++)
		for (int k = i; k > 0 && c->part[order[k]] > c->part[order[k - 1]]; k--) {
			int t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	printf("   ");
	for (int i = 0; i < WP_NR; i++) {
		int p = order[i];
		char ms[32];

		if (!c->part[p] && i)
			continue;
		fmt_ms(ms, sizeof(ms), c->part[p]);
		printf(" %s %s ms (%.1f%%)", why_part_names[p], ms, wall ? 100.0 * c->part[p] / wall : 0);
		if (p == WP_LOCK && c->lock_max)
			printf(" [%s]", lock_kind(c->lock_flags));
	}
	if (wall != sum)	/* signed: negative is time counted twice, a bug */
		printf("  unaccounted %+.2f ms", ((int64_t)wall - (int64_t)sum) / 1e6);
	printf("\n");
	print_waits(wc->cur);
	if (c->nr == WHY_NR_FUNC) {
		uint64_t self = wall - c->in_children;

		printf("   ");
		for (int i = 0; i < wc->o->ninto; i++)
			printf(" %s %.2f ms (%.1f%%, %u call%s)", wc->o->into[i], c->child_ns[i] / 1e6,
			       wall ? 100.0 * c->child_ns[i] / wall : 0, c->child_calls[i],
			       c->child_calls[i] == 1 ? "" : "s");
		printf("  self %.2f ms (%.1f%%)\n", self / 1e6, wall ? 100.0 * self / wall : 0);
	}
	for (int i = 0; i < nrs; i++) {
		const struct life_req *r = rs[i];
		__u64 ph[PH_NR];
		int complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
		const struct life_sysfs *w = printer__culprit(&wc->pr, r, ph);
		char ob[16];

		printf("    %s %s %u B:", disks__name(r->dev), reqflags__op_name(&wc->pr.rf, r->cmd_flags, ob, sizeof(ob)),
		       r->bytes);
		for (int p = 0; p < PH_NR; p++)
			printf(" %s %.2f", life__phase_name(p), ph[p] / 1e6);
		printf(" ms%s", complete ? "" : " (partial)");
		if (w) {
			char wcomm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], attr[TEXT_SAFE_LEN(SYSFS_NAME_LEN)],
			     val[SYSFS_VALUE_LEN], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

			printer__value(w->value, val, sizeof(val));
			printf("  stalled by %s[%u] writing queue/%s = \"%s\"",
			       text__safe(w->comm, wcomm, sizeof(wcomm)), w->pid,
			       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)));
		}
		printf("\n");
	}
	if (total > nrs)
		printf("    ... %d more requests\n", total - nrs);
	if (c->cache_added || c->ra_sync || c->ra_async || c->faults)
		printf("    page cache: %llu pages added (misses), readahead %u sync %u async; %llu faults\n",
		       (unsigned long long)c->cache_added, c->ra_sync, c->ra_async, (unsigned long long)c->faults);
	if ((wc->o->kstack || wc->o->ustack) && c->wait_max) {
		printf("    longest wait off CPU %.2f ms, blocked at:\n", c->wait_max / 1e6);
		frames__text(&wc->cur->kf, stdout, "      ");
		if (wc->cur->kf.n && wc->cur->uf.n)
			printf("      --\n");
		frames__text(&wc->cur->uf, stdout, "      ");
	}
}


void why__print_call(struct why_ctx *wc, const struct why_call *c, const char *file, const struct sysc *s,
		     const struct life_req **rs, int nrs, int total)
{
	struct call_view cv = { .c = *c, .file = file, .wall = c->end - c->start, .total = total, .rs = rs,
				.nrs = nrs, .wc = wc };
	struct fctx fc = { .mode = (c->nr == WHY_NR_FUNC ? M_FUNC : M_SYS) | (wc->o->kstack ? M_KSTACK : 0) |
				   (wc->o->ustack ? M_USTACK : 0) };
	uint64_t sum = 0;

	if (!wc->o->c.json) {
		print_call_text(wc, c, file, s, rs, nrs, total);
		return;
	}
	for (int p = 0; p < WP_NR; p++)
		sum += c->part[p];
	cv.unaccounted = (int64_t)cv.wall - (int64_t)sum;
	cv.self = cv.wall - c->in_children;
	cv.syscall = c->nr == WHY_NR_FUNC ? NULL : s ? s->name : "?";
	cv.function = c->nr == WHY_NR_FUNC ? why__target(wc->o) : NULL;
	cv.lock = lock_kind(c->lock_flags);
	fields__json(&wc->j, &why_call_rec, &cv, &fc);
}

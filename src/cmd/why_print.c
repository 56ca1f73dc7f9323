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
	"cpu", "runq", "io", "lock", "throttle", "reclaim", "sleep", "steal",
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
	{ "steal_ns", FS_U64, CV(c.part[WP_STEAL]) },
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
	double pct;		/* text: of the call's wall time */
	const char *plural;
};

#define CH(f) offsetof(struct child_view, f)
static const struct field child_fields[] = {	/* " a 3.05 ms (29.9%, 1 call)" */
	{ "function", FS_PSTR, CH(function), .fmt = " %s" },
	{ "ns", FS_U64, CH(ns), .fmt = " %.2f ms", .tdiv = 1e6 },
	{ NULL, FS_DBL, CH(pct), .fmt = " (%.1f%%, " },
	{ "calls", FS_U32, CH(calls), .fmt = "%u call" },
	{ NULL, FS_PSTR, CH(plural), .fmt = "%s)" },
};
static const struct rec child_rec = REC_LINES(NULL, NULL, NULL, child_fields);

static const void *e_children(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct call_view *cv = row;
	struct child_view *ch = scratch;

	if ((int)i >= cv->wc->o->ninto)
		return NULL;
	*ch = (struct child_view){ cv->wc->o->into[i], cv->c.child_ns[i], cv->c.child_calls[i],
				   cv->wall ? 100.0 * cv->c.child_ns[i] / cv->wall : 0,
				   cv->c.child_calls[i] == 1 ? "" : "s" };
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

static void t_partial(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct wreq_view *)row)->partial)
		v->k = V_BOOL;
}

static const struct field wq_fields[] = {	/* "  stalled by udevadm[301] writing queue/ATTR = \"V\"" */
	{ "comm", FS_CHARS, WR(w.comm), .fmt = "  stalled by %s" },
	{ "pid", FS_U32, WR(w.pid), .fmt = "[%u]" },
	{ "attr", FS_CHARS, WR(w.attr), .fmt = " writing queue/%s" },
	{ "value", FS_CHARS, WR(val), .fmt = " = \"%s\"" },
};
static const struct rec wq_rec = REC_LINES(NULL, NULL, NULL, wq_fields);

static const struct field wreq_fields[] = {	/* "    loop0 write 4096 B: Q2G 0.00 ... Q2C 0.07 ms" */
	{ "disk", FS_PSTR, WR(disk), .fmt = "    %s" },
	{ "op", FS_PSTR, WR(op), .fmt = " %s" },
	{ "sector", FS_U64, WR(sector), .flags = FL_MAX_NULL },
	{ "bytes", FS_U32, WR(bytes), .fmt = " %u B:" },
	{ "q2g_ns", FS_U64, WR(ph[PH_Q2G]), .fmt = " Q2G %.2f", .tdiv = 1e6 },
	{ "g2i_ns", FS_U64, WR(ph[PH_G2I]), .fmt = " G2I %.2f", .tdiv = 1e6 },
	{ "i2d_ns", FS_U64, WR(ph[PH_I2D]), .fmt = " I2D %.2f", .tdiv = 1e6 },
	{ "d2c_ns", FS_U64, WR(ph[PH_D2C]), .fmt = " D2C %.2f", .tdiv = 1e6 },
	{ "q2c_ns", FS_U64, WR(ph[PH_Q2C]), .fmt = " Q2C %.2f ms", .tdiv = 1e6 },
	{ "partial", FS_BOOL, WR(partial), .tget = t_partial, .fmt = " (partial)" },
	{ "queue_write", FS_OBJ, .get = g_has_w, .sub = &wq_rec, .fmt = "" },
	{ NULL, FS_TEXT, .fmt = "\n" },
};
static const struct rec wreq_rec = REC_LINES(NULL, NULL, NULL, wreq_fields);

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

static void t_both(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->wc->cur->kf.n && CALL(row)->wc->cur->uf.n)
		v->k = V_BOOL;
}

static const struct field wait_fields[] = {
	{ "ns", FS_U64, CV(c.wait_max), .fmt = "    longest wait off CPU %.2f ms, blocked at:\n", .tdiv = 1e6 },
	{ "kernel", FS_FRAMES, .each = e_kframes, .only = M_KSTACK, .fmt = "      " },
	{ NULL, FS_GET, .tget = t_both, .fmt = "      --\n" },
	{ "user", FS_FRAMES, .each = e_uframes, .only = M_USTACK, .fmt = "      " },
	{ "user_cut_short", FS_GET, .get = g_ucut, .flags = FL_BOOL, .only = M_USTACK },
};
static const struct rec wait_rec = REC_LINES(NULL, NULL, NULL, wait_fields);

/* text: the parts, largest first (those of no time left out, but for the first) */
struct order_view {
	const char *name, *lock;
	uint64_t ns;
	double pct;
};

#define OV(f) offsetof(struct order_view, f)
static const struct field order_fields[] = {	/* " sleep 7.09 ms (69.6%)", " lock 1.00 ms (9.0%) [mutex]" */
	{ NULL, FS_PSTR, OV(name), .fmt = " %s" },
	{ NULL, FS_U64, OV(ns), .fmt = " %.2f ms", .tdiv = 1e6 },
	{ NULL, FS_DBL, OV(pct), .fmt = " (%.1f%%)" },
	{ NULL, FS_PSTR, OV(lock), .fmt = " [%s]" },
};
static const struct rec order_rec = REC_LINES(NULL, NULL, NULL, order_fields);

static const void *e_order(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct why_call *call = &CALL(row)->c;
	uint64_t wall = CALL(row)->wall;
	struct order_view *v = scratch;
	int order[WP_NR];
	unsigned k = 0;

	for (int p = 0; p < WP_NR; p++)
		order[p] = p;
	for (int a = 1; a < WP_NR; a++)
		for (int b = a; b > 0 && call->part[order[b]] > call->part[order[b - 1]]; b--) {
			int t = order[b];

			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (int n = 0; n < WP_NR; n++) {
		int p = order[n];

		if ((!call->part[p] && n) || k++ != i)
			continue;
		*v = (struct order_view){ why_part_names[p], NULL, call->part[p],
					  wall ? 100.0 * call->part[p] / wall : 0 };
		if (p == WP_LOCK && call->lock_max)
			v->lock = lock_kind(call->lock_flags);
		return v;
	}
	return NULL;
}

/* text getters */
static void t_since(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = (CALL(row)->c.start - CALL(row)->wc->t0) / 1e9;
}

static void t_asked(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->c.asked) {
		v->k = V_U64;
		v->u = CALL(row)->c.asked;
	}
}

static void t_ret(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = text__ret(CALL(row)->c.ret, b, n);
}

static void t_unaccounted(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->unaccounted) {
		v->k = V_I64;
		v->i = CALL(row)->unaccounted;
	}
}

static void t_self_pct(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = CALL(row)->wall ? 100.0 * CALL(row)->self / CALL(row)->wall : 0;
}

static void t_more(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->total > (uint64_t)CALL(row)->nrs) {
		v->k = V_U64;
		v->u = CALL(row)->total - CALL(row)->nrs;
	}
}

static void t_other_lead(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct why_call *call = &CALL(row)->c;

	if (!call->waits_other)
		return;
	v->k = V_STR;
	v->s = "    waited:";
	for (int w = 0; w < WHY_WAITS; w++)
		if (call->waits[w].ns)
			v->s = "           ";
}

static void t_other(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (CALL(row)->c.waits_other) {
		v->k = V_U64;
		v->u = CALL(row)->c.waits_other;
	}
}

static void t_cache(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct why_call *call = &CALL(row)->c;

	if (call->cache_added || call->ra_sync || call->ra_async || call->faults)
		v->k = V_BOOL;
}

static const struct field cache_fields[] = {	/* "    page cache: 64 pages added (misses), readahead 1 sync 0 async; 32 faults" */
	{ NULL, FS_U64, CV(c.cache_added), .fmt = "    page cache: %llu pages added (misses)" },
	{ NULL, FS_U32, CV(c.ra_sync), .fmt = ", readahead %u sync" },
	{ NULL, FS_U32, CV(c.ra_async), .fmt = " %u async" },
	{ NULL, FS_U64, CV(c.faults), .fmt = "; %llu faults\n" },
};
static const struct rec cache_rec = REC_LINES(NULL, NULL, NULL, cache_fields);

static const void *e_waits(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return why__each_wait(CALL(row)->wc->cur, i, scratch);
}

/* Text: "1.794     callee[17084/17084] outer() = 0  10.20 ms", then a line
 * of its parts, its waits, --into's children, its requests, the page cache
 * and -K/-U's stacks. */
static const struct field call_fields[] = {
	{ "ts_ns", FS_U64, CV(c.start), .tget = t_since, .fmt = "%-9.3f" },
	{ "comm", FS_CHARS, CV(c.comm), .fmt = " %s" },
	{ "pid", FS_U32, CV(c.pid), .fmt = "[%u/" },
	{ "tid", FS_U32, CV(c.tid), .fmt = "%u]" },
	{ "syscall", FS_PSTR, CV(syscall), .flags = FL_NULLABLE, .fmt = " %s" },
	{ "function", FS_PSTR, CV(function), .flags = FL_OMIT_NULL, .fmt = " %s" },
	{ "fd", FS_I32, CV(c.fd) },
	{ "file", FS_PSTR, CV(file), .fmt = "(%s" },
	{ "dev_major", FS_GET, .get = g_major, .flags = FL_INT },
	{ "dev_minor", FS_GET, .get = g_minor, .flags = FL_INT },
	{ "ino", FS_U64, CV(c.ino) },
	{ "asked", FS_U64, CV(c.asked), .tget = t_asked, .fmt = ", %llu" },
	{ "ret", FS_I64, CV(c.ret), .tget = t_ret, .flags = FL_SAFE, .fmt = ") = %s" },
	{ "error", FS_GET, .get = g_error, .flags = FL_STR | FL_NULLABLE },
	{ "wall_ns", FS_U64, CV(wall), .fmt = "  %.2f ms\n", .tdiv = 1e6 },
	{ "parts", FS_OBJ, .sub = &parts_rec, .flags = FL_OBJECT },
	{ NULL, FS_LIST, .each = e_order, .sub = &order_rec, .fmt = "   " },
	{ NULL, FS_GET, .tget = t_unaccounted, .fmt = "  unaccounted %+.2f ms", .tdiv = 1e6 },	/* signed */
	{ NULL, FS_TEXT, .fmt = "\n" },
	{ "lock", FS_OBJ, .get = g_lock, .sub = &lock_rec },
	{ "cache_added_pages", FS_U64, CV(c.cache_added) },
	{ "readahead_sync", FS_U32, CV(c.ra_sync) },
	{ "readahead_async", FS_U32, CV(c.ra_async) },
	{ "faults", FS_U64, CV(c.faults) },
	{ "offcpu", FS_U32, CV(c.offcpu) },
	{ "waits", FS_LIST, .each = e_waits, .sub = &why_place_rec, .fmt = "" },
	{ NULL, FS_GET, .tget = t_other_lead, .fmt = "%s" },
	{ "waits_other_ns", FS_U64, CV(c.waits_other), .tget = t_other, .fmt = " %.2f ms elsewhere\n", .tdiv = 1e6 },
	{ NULL, FS_TEXT, .only = M_FUNC, .fmt = "   " },
	{ "children", FS_LIST, .each = e_children, .sub = &child_rec, .only = M_FUNC, .fmt = "" },
	{ "self_ns", FS_U64, CV(self), .only = M_FUNC, .fmt = "  self %.2f ms", .tdiv = 1e6 },
	{ NULL, FS_GET, .tget = t_self_pct, .only = M_FUNC, .fmt = " (%.1f%%)\n" },
	{ "requests_total", FS_U64, CV(total) },
	{ "requests", FS_LIST, .each = e_requests, .sub = &wreq_rec, .fmt = "" },
	{ NULL, FS_GET, .tget = t_more, .fmt = "    ... %llu more requests\n" },
	{ NULL, FS_OBJ, .get = t_cache, .sub = &cache_rec, .fmt = "" },
	{ "longest_wait", FS_OBJ, .get = g_waited, .sub = &wait_rec, .only = M_STACK, .fmt = "" },
};

const struct rec why_call_rec = REC_LINES("call", "why.call", "why: one slow system call (or --call function call) and "
				    "where its time went", call_fields);

void why__print_call(struct why_ctx *wc, const struct why_call *c, const char *file, const struct sysc *s,
		     const struct life_req **rs, int nrs, int total)
{
	struct call_view cv = { .c = *c, .file = file, .wall = c->end - c->start, .total = total, .rs = rs,
				.nrs = nrs, .wc = wc };
	struct fctx fc = { .mode = (c->nr == WHY_NR_FUNC ? M_FUNC : M_SYS) | (wc->o->kstack ? M_KSTACK : 0) |
				   (wc->o->ustack ? M_USTACK : 0) };
	uint64_t sum = 0;

	for (int p = 0; p < WP_NR; p++)
		sum += c->part[p];
	cv.unaccounted = (int64_t)cv.wall - (int64_t)sum;
	cv.self = cv.wall - c->in_children;
	cv.syscall = c->nr == WHY_NR_FUNC ? NULL : s ? s->name : "?";
	cv.function = c->nr == WHY_NR_FUNC ? why__target(wc->o) : NULL;
	cv.lock = lock_kind(c->lock_flags);
	if (wc->o->c.json)
		fields__json(&wc->j, &why_call_rec, &cv, &fc);
	else
		fields__lines(stdout, &why_call_rec, &cv, &fc);
}

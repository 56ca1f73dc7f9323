// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <stddef.h>
#include "bpfenv.h"
#include "counters.h"
#include "disks.h"
#include "fields.h"
#include "log.h"
#include "records.h"
#include "frames.h"
#include "ksyms.h"
#include "usyms.h"
#include "life.skel.h"
#include "text.h"

void printer__init(struct req_printer *p, bool json, bool snoop)
{
	p->json = json;
	p->snoop = snoop;
	p->disk_w = 7;
	p->sector_w = 11;
	json__init(&p->j, stdout);
}

void printer__widths(struct req_printer *p)
{
	disks__widths(&p->disk_w, &p->sector_w);
}

/* A write is remembered at its start (a stalled request can complete before
 * the write returns) and completed by its end record. */
static void window_add(struct req_printer *p, const struct life_sysfs *w)
{
	for (int i = 0; i < p->nwin; i++) {
		if (p->win[i].tid == w->tid && p->win[i].start == w->start) {
			p->win[i] = *w;
			return;
		}
	}
	p->win[p->next] = *w;
	p->next = (p->next + 1) % MAX_WINDOWS;
	if (p->nwin < MAX_WINDOWS)
		p->nwin++;
}

/* The write to this disk's queue attributes that overlapped [from, to]. */
static const struct life_sysfs *window_find(struct req_printer *p, const char *disk, uint64_t from, uint64_t to)
{
	const struct life_sysfs *best = NULL;

	for (int i = 0; i < p->nwin; i++) {
		const struct life_sysfs *w = &p->win[i];

		if (strcmp(w->disk, disk) || w->start > to || (w->end && w->end < from))
			continue;
		if (!best || w->start > best->start)
			best = w;
	}
	return best;
}

void printer__remember(struct req_printer *p, const struct life_sysfs *w)
{
	window_add(p, w);
}

const struct life_sysfs *printer__culprit(struct req_printer *p, const struct life_req *r, const __u64 *ph)
{
	if (!(r->seen & SEEN_Q) || !(r->seen & SEEN_G) || !ph[PH_Q2G])
		return NULL;
	return window_find(p, disks__name(r->dev), r->q, r->q + ph[PH_Q2G]);
}

void printer__value(const char *in, char *out, size_t len)
{
	snprintf(out, len, "%s", in);
	out[strcspn(out, "\n")] = '\0';
}

/* ---- a queue write, declared once (fields.h) ---- */

struct qw_view {
	struct life_sysfs w;
	char val[SYSFS_VALUE_LEN];	/* the value up to its first newline */
	uint64_t duration_ns;
};

#define QW(f) offsetof(struct qw_view, f)

/* text: one sentence */
static void t_qw(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct qw_view *q = row;
	const struct req_printer *p = c->user;
	char comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], disk[TEXT_SAFE_LEN(SYSFS_NAME_LEN)],
	     attr[TEXT_SAFE_LEN(SYSFS_NAME_LEN)], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

	snprintf(b, n, "%-9.3f # queue write: %s[%u] (ppid %u) %s/queue/%s = \"%s\" took %.3f ms%s",
		 (q->w.start - p->t0) / 1e9, text__safe(q->w.comm, comm, sizeof(comm)), q->w.pid, q->w.ppid,
		 text__safe(q->w.disk, disk, sizeof(disk)), text__safe(q->w.attr, attr, sizeof(attr)),
		 text__safe(q->val, value, sizeof(value)), q->duration_ns / 1e6, q->w.ret < 0 ? " (failed)" : "");
	v->k = V_STR;
	v->s = b;
}

static const struct field qw_fields[] = {
	{ "ts_ns", FS_U64, QW(w.start) },
	{ "comm", FS_CHARS, QW(w.comm) },
	{ "pid", FS_U32, QW(w.pid) },
	{ "ppid", FS_U32, QW(w.ppid) },
	{ "disk", FS_CHARS, QW(w.disk) },
	{ "attr", FS_CHARS, QW(w.attr) },
	{ "value", FS_CHARS, QW(val) },
	{ "duration_ns", FS_U64, QW(duration_ns) },
	{ "ret", FS_I64, QW(w.ret) },
	{ NULL, FS_GET, .tget = t_qw, .flags = FL_TAIL | FL_SAFE, .fmt = "%s" },
};

const struct rec queue_write_rec = REC("queue_write", "queue_write", "slow, sysfs, replay: one write to a queue attribute",
				       qw_fields);

void printer__sysfs(struct req_printer *p, const struct life_sysfs *w)
{
	struct qw_view q = { *w, "", w->end - w->start };
	struct fctx c = { .user = p };

	q.w.comm[LIFE_COMM_LEN - 1] = q.w.disk[SYSFS_NAME_LEN - 1] = q.w.attr[SYSFS_NAME_LEN - 1] = '\0';
	printer__value(w->value, q.val, sizeof(q.val));
	if (p->json)
		fields__json(&p->j, &queue_write_rec, &q, &c);
	else
		fields__text(stdout, &queue_write_rec, &q, &c);
}

int printer__stacks(struct req_printer *p, bool kernel, bool user)
{
	int err;

	p->kstack = kernel;
	p->ustack = user;
	p->stack_fd = p->ustack_fd = -1;
	if (kernel) {
		if (!(p->ks = calloc(1, sizeof(*p->ks))))
			return fail("symbols", "out of memory");
		if ((err = ksyms__load(p->ks, NULL)))
			return fail("reading /proc/kallsyms", "%s", strerror(-err));
	}
	if (user && !(p->us = usyms__new()))
		return fail("symbols", "out of memory");
	return 0;
}

void printer__free(struct req_printer *p)
{
	if (p->ks) {
		ksyms__free(p->ks);
		free(p->ks);
	}
	usyms__free(p->us);
	ustacks__free(&p->kcache);
	ustacks__free(&p->ucache);
	reqflags__free(&p->rf);
}

/*
 * -K/-U: one of a request's stacks at Q, named once (the submitter may exit
 * soon) and kept by id; with --record, written into the recording the first
 * time, so a replay elsewhere names it as it was named here.
 */
static const struct frames *req_stack(struct req_printer *p, const struct life_req *r, bool user)
{
	static const struct frames none_k, none_u = { .user = true };
	struct ustacks *c = user ? &p->ucache : &p->kcache;
	uint32_t pid = user ? r->pid : 0;
	int32_t id = user ? r->ustack : r->kstack;
	uint64_t ips[LIFE_STACK_DEPTH];
	const struct frames *kept;
	struct frames fr;
	size_t len;
	char *text;
	int n;

	if (id < 0 || (user && !(r->seen & SEEN_WHO)))
		return user ? &none_u : &none_k;
	if ((kept = ustacks__find(c, pid, id)) || p->stack_fd < 0)
		return kept ? kept : user ? &none_u : &none_k;
	n = frames__read(user ? p->ustack_fd : p->stack_fd, id, ips, LIFE_STACK_DEPTH);
	if (user)
		frames__user(&fr, p->us, pid, ips, n);
	else
		frames__kernel(&fr, p->ks, ips, n);
	if (!(kept = ustacks__put(c, pid, id, &fr)))
		return user ? &none_u : &none_k;
	if (p->rec.f && !p->rec_err) {
		if (!(text = frames__to_text(kept, pid, id, &len)))
			p->rec_err = -ENOMEM;
		else
			p->rec_err = recfile__write(&p->rec, RECF_STACK, text, len);
		free(text);
	}
	return kept;
}

/* ---- a request, declared once (fields.h): mode M_STACK with -K/-U ---- */

enum { M_PLAIN = 1, M_STACK = 2, M_KSTACK = 4, M_USTACK = 8 };

struct req_view {
	struct life_req r;
	__u64 ph[PH_NR];
	bool complete, has_w, has_tags;
	struct tag_sum tags;		/* has_tags: who held and was given tags while it waited */
	const char *dom, *disk, *op;
	struct life_sysfs w;		/* has_w: the queue write that stalled it */
	char val[SYSFS_VALUE_LEN], ob[16], flags[200], seen[8];
};

#define RV(f) offsetof(struct req_view, f)
#define VIEW(row) ((const struct req_view *)(row))

static void t_time(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = (VIEW(row)->r.c - ((const struct req_printer *)c->user)->t0) / 1e9;
}

/* who submitted it, where it was seen (else null) */
static void g_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->r.seen & SEEN_WHO) {
		v->k = V_STR;
		v->s = VIEW(row)->r.comm;
	}
}

static void t_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = VIEW(row)->r.seen & SEEN_WHO ? VIEW(row)->r.comm : "?";
}

static void g_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->r.seen & SEEN_WHO) {
		v->k = V_U64;
		v->u = VIEW(row)->r.pid;
	}
}

static void g_tid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->r.seen & SEEN_WHO) {
		v->k = V_U64;
		v->u = VIEW(row)->r.tid;
	}
}

int printer__w_disk(const struct fctx *c)
{
	return ((const struct req_printer *)c->user)->disk_w;
}

int printer__w_sector(const struct fctx *c)
{
	return ((const struct req_printer *)c->user)->sector_w;
}

static const void *e_flags(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return VIEW(row)->flags;
}

static void t_dominant(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = VIEW(row)->dom ? VIEW(row)->dom : "partial";
}

static void g_bool(struct fval *v, bool b)
{
	v->k = V_BOOL;
	v->b = b;
}

static void g_partial(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_bool(v, !VIEW(row)->complete);
}

static void g_inserted(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_bool(v, VIEW(row)->r.seen & SEEN_I);
}

static void g_issued(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_bool(v, VIEW(row)->r.seen & SEEN_D);
}

static void g_split(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_bool(v, VIEW(row)->r.seen & SEEN_SPLIT);
}

static void g_status(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = reqflags__status(VIEW(row)->r.error, b, n);
}

static void t_seen(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (!VIEW(row)->complete) {
		v->k = V_STR;
		v->s = VIEW(row)->seen;
	}
}

static void t_error(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->r.error)
		g_status(row, c, v, b, n);
}

static void g_has_w(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->has_w)
		v->k = V_BOOL;
}

/* text: who froze the queue while the request waited */
size_t printer__writer(char *b, size_t n, const struct life_sysfs *w, const char *disk, const char *val)
{
	char comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], attr[TEXT_SAFE_LEN(SYSFS_NAME_LEN)],
	     value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];
	int k = snprintf(b, n, "%s[%u]: %s/queue/%s = \"%s\"", text__safe(w->comm, comm, sizeof(comm)), w->pid,
			 disk, text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)));

	return k < 0 ? 0 : (size_t)k;
}

static void t_frozen(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct req_view *q = row;

	if (!q->has_w)
		return;
	printer__writer(b, n, &q->w, q->disk, q->val);
	v->k = V_STR;
	v->s = b;
}

/* Tag starvation: who held the disk's tags when it began to wait, and who
 * was given tags while it waited.  JSON "tags" {held, given, at_least,
 * processes [{pid, comm, held, given}], others_held, others_given}; text
 * "  <- tags held by fio[3011] 3, dd[401] 1; given meanwhile to fio[3011] 2" */
static void g_has_tags(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (VIEW(row)->has_tags)
		v->k = V_BOOL;
}

static void g_at_least(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = VIEW(row)->tags.cut;
}

typedef typeof(((struct tag_sum *)0)->top[0]) tag_proc;

static const void *e_tag_procs(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct tag_sum *t = &VIEW(row)->tags;

	if (i >= TAG_TOP || (!t->top[i].held && !t->top[i].given))
		return NULL;
	return &t->top[i];
}

static const struct field tag_proc_fields[] = {
	{ "pid", FS_U32, offsetof(tag_proc, pid) },
	{ "comm", FS_CHARS, offsetof(tag_proc, comm) },
	{ "held", FS_U32, offsetof(tag_proc, held) },
	{ "given", FS_U32, offsetof(tag_proc, given) },
};
static const struct rec tag_proc_rec = REC(NULL, NULL, NULL, tag_proc_fields);

static const struct field tags_fields[] = {
	{ "held", FS_U32, RV(tags.held) },
	{ "given", FS_U32, RV(tags.given) },
	{ "at_least", FS_GET, .get = g_at_least, .flags = FL_BOOL },
	{ "processes", FS_LIST, .each = e_tag_procs, .sub = &tag_proc_rec },
	{ "others_held", FS_U32, RV(tags.others_held) },
	{ "others_given", FS_U32, RV(tags.others_given) },
	{ "not_seen_to_end", FS_U32, RV(tags.not_seen_to_end) },
};
static const struct rec tags_rec = REC(NULL, NULL, NULL, tags_fields);

/* "held by fio[3011] 3, dd[401] 1" or "given meanwhile to ...": the two
 * largest, then the rest */
static size_t tag_list(char *b, size_t n, const struct tag_sum *t, bool held)
{
	uint32_t rest = held ? t->held : t->given;
	size_t off = snprintf(b, n, held ? "held by" : "given meanwhile to");

	for (int shown = 0, k = 0; k < TAG_TOP && shown < 2 && off < n; k++) {
		uint32_t x = held ? t->top[k].held : t->top[k].given;
		char comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)];

		if (!x)
			continue;
		off += snprintf(b + off, n - off, "%s %s[%u] %u", shown++ ? "," : "",
				text__safe(t->top[k].comm, comm, sizeof(comm)), t->top[k].pid, x);
		rest -= x;
	}
	if (rest && off < n)
		off += snprintf(b + off, n - off, ", others %u", rest);
	return off < n ? off : n;
}

static void t_tags(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct req_view *q = row;
	size_t off = 0;

	if (!q->has_tags)
		return;
	off = snprintf(b, n, "tags %s", q->tags.cut ? "(at least) " : "");
	if (q->tags.held && off < n)
		off += tag_list(b + off, n - off, &q->tags, true);
	if (q->tags.given && off < n)
		off += snprintf(b + off, n - off, "%s", q->tags.held ? "; " : "");
	if (q->tags.given && off < n)
		tag_list(b + off, n - off, &q->tags, false);
	v->k = V_STR;
	v->s = b;
}

static const struct frames *req_stack(struct req_printer *p, const struct life_req *r, bool user);

/* -K/-U: the stacks at Q, each named once into the printer's cache */
static const void *e_kstack(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return req_stack((struct req_printer *)c->user, &VIEW(row)->r, false);
}

static const void *e_ustack(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return req_stack((struct req_printer *)c->user, &VIEW(row)->r, true);
}

static void g_ucut(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = req_stack((struct req_printer *)c->user, &VIEW(row)->r, true)->cut;
}

static const struct field stack_fields[] = {
	{ "kernel", FS_FRAMES, .each = e_kstack, .only = M_KSTACK },
	{ "user", FS_FRAMES, .each = e_ustack, .only = M_USTACK },
	{ "user_cut_short", FS_GET, .get = g_ucut, .flags = FL_BOOL, .only = M_USTACK },
};
static const struct rec stack_rec = REC(NULL, NULL, NULL, stack_fields);

static const struct field qw_short_fields[] = {
	{ "comm", FS_CHARS, RV(w.comm) },
	{ "pid", FS_U32, RV(w.pid) },
	{ "attr", FS_CHARS, RV(w.attr) },
	{ "value", FS_CHARS, RV(val) },
};
static const struct rec qw_short = REC(NULL, NULL, NULL, qw_short_fields);

#define PHASE(name, k, h, f) \
	{ name, FS_U64, RV(ph[k]), .head = h, .fmt = f, .tdiv = 1e6 }
static const struct field req_fields[] = {
	{ NULL, FS_GET, .head = "TIME(s)", .fmt = "%-9.3f", .tget = t_time },
	{ "ts_ns", FS_U64, RV(r.c) },
	{ "comm", FS_GET, .get = g_comm, .flags = FL_STR | FL_NULLABLE, .head = "COMM", .fmt = "%-15s", .tget = t_comm },
	{ "pid", FS_GET, .get = g_pid, .flags = FL_INT | FL_NULLABLE },
	{ NULL, FS_U32, RV(r.pid), .head = "PID", .fmt = "%-7u" },
	{ "tid", FS_GET, .get = g_tid, .flags = FL_INT | FL_NULLABLE },
	{ "disk", FS_PSTR, RV(disk), .head = "DISK", .fmt = "%-s", .width = printer__w_disk },
	{ "op", FS_PSTR, RV(op), .head = "OP", .fmt = "%-7s" },
	{ "flags", FS_WORDS, .each = e_flags },
	{ "sector", FS_U64, RV(r.sector), .flags = FL_MAX_NULL, .head = "SECTOR", .fmt = "%-llu", .width = printer__w_sector },
	{ "bytes", FS_U32, RV(r.bytes), .head = "BYTES", .fmt = "%-8u" },
	PHASE("q2g_ns", PH_Q2G, "Q2G(ms)", "%8.3f"),
	PHASE("g2i_ns", PH_G2I, "G2I(ms)", "%8.3f"),
	PHASE("i2d_ns", PH_I2D, "I2D(ms)", "%8.3f"),
	PHASE("d2c_ns", PH_D2C, "D2C(ms)", "%8.3f"),
	PHASE("q2c_ns", PH_Q2C, "Q2C(ms)", "%9.3f"),
	{ "dominant", FS_PSTR, RV(dom), .flags = FL_NULLABLE, .head = "DOMINANT", .fmt = "%s", .tget = t_dominant },
	{ "partial", FS_GET, .get = g_partial, .flags = FL_BOOL },
	{ "seen", FS_CHARS, RV(seen), .tget = t_seen, .flags = FL_TAIL, .fmt = " (seen %s)" },
	{ "inserted", FS_GET, .get = g_inserted, .flags = FL_BOOL },
	{ "issued", FS_GET, .get = g_issued, .flags = FL_BOOL },
	{ "split", FS_GET, .get = g_split, .flags = FL_BOOL },
	{ "requeues", FS_U16, RV(r.requeues) },
	{ "cgroup", FS_U64, RV(r.cgroup) },
	{ "error", FS_I32, RV(r.error) },
	{ "status", FS_GET, .get = g_status, .flags = FL_STR | FL_TAIL, .tget = t_error, .fmt = " error=%s" },
	{ "queue_write", FS_OBJ, .get = g_has_w, .flags = FL_OMIT_NULL, .sub = &qw_short },
	{ NULL, FS_GET, .tget = t_frozen, .flags = FL_TAIL | FL_SAFE, .fmt = "  <- queue frozen by %s" },
	{ "tags", FS_OBJ, .get = g_has_tags, .flags = FL_OMIT_NULL, .sub = &tags_rec },
	{ NULL, FS_GET, .tget = t_tags, .flags = FL_TAIL | FL_SAFE, .fmt = "  <- %s" },
	{ "stack", FS_OBJ, .sub = &stack_rec, .flags = FL_OBJECT, .only = M_STACK },
};

const struct rec request_rec = REC("request", "request", "slow, snoop, replay: one block request", req_fields);

static struct fctx req_ctx(const struct req_printer *p)
{
	return (struct fctx){ .mode = (p->kstack || p->ustack ? M_STACK : M_PLAIN) | (p->kstack ? M_KSTACK : 0) |
				      (p->ustack ? M_USTACK : 0), .user = p };
}

bool printer__tags_of(struct req_printer *p, const struct life_req *r, struct tag_sum *out)
{
	for (unsigned i = 0; i < sizeof(p->tags) / sizeof(p->tags[0]); i++) {
		struct tag_sum *t = &p->tags[i];

		if (!t->valid || t->dev != r->dev || t->c != r->c)
			continue;
		*out = *t;
		t->valid = false;
		p->tag_waits++;
		return true;
	}
	return false;
}

static void print_req(struct req_printer *p, const struct life_req *r)
{
	struct req_view q = { .r = *r };
	struct fctx c = req_ctx(p);
	const struct life_sysfs *w;

	q.r.comm[LIFE_COMM_LEN - 1] = '\0';
	q.complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, q.ph);
	q.dom = life__dominant(q.ph, q.complete);
	q.disk = disks__name(r->dev);
	/* stalled before allocation while this disk's queue attributes were
	 * being written: name the writer */
	if ((w = printer__culprit(p, r, q.ph))) {
		p->attributed++;
		q.has_w = true;
		q.w = *w;
		printer__value(w->value, q.val, sizeof(q.val));
	}
	/* who held the tags it waited for: its REC_TAGS came just before */
	q.has_tags = printer__tags_of(p, r, &q.tags);
	if (p->sink) {
		struct req_seen s = { .r = &q.r, .ph = q.ph, .complete = q.complete,
				      .w = q.has_w ? &q.w : NULL, .tags = q.has_tags ? &q.tags : NULL };

		const char *op = reqflags__op_name(&p->rf, r->cmd_flags, q.ob, sizeof(q.ob));

		s.read = !strcmp(op, "read");
		s.write = !strcmp(op, "write");

		p->sink->req(p->sink->ctx, &s);
		return;
	}
	p->shown++;
	q.op = reqflags__op_name(&p->rf, r->cmd_flags, q.ob, sizeof(q.ob));
	reqflags__flags_str(&p->rf, r->cmd_flags, q.flags, sizeof(q.flags));
	life__seen_str(r->seen, q.seen);
	if (p->json) {
		fields__json(&p->j, &request_rec, &q, &c);
		return;
	}
	fields__text(stdout, &request_rec, &q, &c);
	if (p->kstack || p->ustack) {
		static const struct frames none;
		const struct frames *kf = p->kstack ? req_stack(p, r, false) : &none,
				    *uf = p->ustack ? req_stack(p, r, true) : &none;

		frames__text(kf, stdout, "      ");
		if (kf->n && uf->n)
			printf("      --\n");
		frames__text(uf, stdout, "      ");
	}
}

/* A REC_TAGS added up by process, the most tags first. */
void records__tags_sum(struct tag_sum *s, const struct life_tags *t)
{
	struct { uint32_t pid, held, given; char comm[LIFE_COMM_LEN]; } by[LIFE_TAG_RING];
	uint8_t mark[LIFE_TAG_RING];
	unsigned nby = 0;

	memcpy(mark, t->mark, sizeof(mark));
	memset(s, 0, sizeof(*s));
	s->valid = true;
	s->dev = t->dev;
	s->c = t->c;
	s->cut = t->cut;
	/* No more can hold a tag than the queue has: beyond that, the oldest
	 * unended entries are requests whose completion ran no program (the
	 * kernel's skipped; seen beside a competing fio: 5 "held" of 4) */
	{
		unsigned held = 0;

		for (unsigned i = 0; i < LIFE_TAG_RING; i++)
			held += !!(t->mark[i] & LIFE_TAG_HELD);
		while (t->depth && held > t->depth) {
			unsigned oldest = LIFE_TAG_RING;

			for (unsigned i = 0; i < LIFE_TAG_RING; i++)
				if ((mark[i] & LIFE_TAG_HELD) && (oldest == LIFE_TAG_RING || t->ts[i] < t->ts[oldest]))
					oldest = i;
			mark[oldest] = 0;
			s->not_seen_to_end++;
			held--;
		}
	}
	for (unsigned i = 0; i < LIFE_TAG_RING; i++) {
		bool held = mark[i] & LIFE_TAG_HELD, given = mark[i] & LIFE_TAG_GIVEN;
		unsigned k;

		if (!held && !given)
			continue;
		for (k = 0; k < nby && by[k].pid != t->pid[i]; k++)
			;
		if (k == nby) {
			by[nby].pid = t->pid[i];
			by[nby].held = by[nby].given = 0;
			memcpy(by[nby].comm, t->comm[i], LIFE_COMM_LEN);
			by[nby].comm[LIFE_COMM_LEN - 1] = '\0';
			nby++;
		}
		by[k].held += held;
		by[k].given += given;
		s->held += held;
		s->given += given;
	}
	for (unsigned a = 1; a < nby; a++)	/* the most first */
		for (unsigned b = a; b > 0 && by[b].held + by[b].given > by[b - 1].held + by[b - 1].given; b--) {
			typeof(by[0]) x = by[b];

			by[b] = by[b - 1];
			by[b - 1] = x;
		}
	for (unsigned k = 0; k < nby; k++) {
		if (k < TAG_TOP) {
			s->top[k].pid = by[k].pid;
			s->top[k].held = by[k].held;
			s->top[k].given = by[k].given;
			memcpy(s->top[k].comm, by[k].comm, LIFE_COMM_LEN);
		} else {
			s->others_held += by[k].held;
			s->others_given += by[k].given;
		}
	}
}

void printer__record(struct req_printer *p, const void *data, size_t size)
{
	uint32_t type = size >= sizeof(uint32_t) ? *(const uint32_t *)data : 0;
	const struct life_req *r;
	struct life_req old;

	if (type == REC_REQ && (r = life_req__of(data, size, &old)))
		print_req(p, r);
	else if (type == REC_UPPER && size >= sizeof(struct life_upper))
		p->sink ? p->sink->upper(p->sink->ctx, data) : printer__upper(p, data);
	else if (type == REC_TAGS && size >= sizeof(struct life_tags))
		records__tags_sum(&p->tags[p->ntags++ % (sizeof(p->tags) / sizeof(p->tags[0]))], data);
	else if (type == REC_SYSFS_START && size >= sizeof(struct life_sysfs))
		window_add(p, data);
	else if (type == REC_SYSFS_END && size >= sizeof(struct life_sysfs)) {
		window_add(p, data);
		if (p->sink)
			p->sink->write(p->sink->ctx, data);
		else if (!p->snoop)
			printer__sysfs(p, data);
	}
}

int printer__on_record(void *ctx, void *data, size_t size)
{
	struct req_printer *p = ctx;
	const struct life_req *r = data;

	if (p->rec.f && !p->rec_err) {
		/* a request's stacks go first, the first time they are seen */
		if (*(uint32_t *)data == REC_REQ && size >= sizeof(*r)) {
			if (p->kstack)
				req_stack(p, r, false);
			if (p->ustack)
				req_stack(p, r, true);
		}
		if (!p->rec_err)
			p->rec_err = recfile__write(&p->rec, *(uint32_t *)data, data, size);
	}
	printer__record(p, data, size);
	return 0;
}

/* A recorded summary: this build's, or one from before life_stats ended in
 * watch_kept (8 bytes shorter, the fields after the stats moved up). */
bool req_summary__of(const void *data, size_t size, struct req_summary *sum)
{
	const size_t tail = sizeof(*sum) - offsetof(struct req_summary, in_flight),
		     old = sizeof(*sum) - sizeof(sum->s.watch_kept);

	if (size == sizeof(*sum)) {
		memcpy(sum, data, sizeof(*sum));
		return true;
	}
	if (size != old)
		return false;
	memcpy(sum, data, old - tail);
	sum->s.watch_kept = 0;
	memcpy(&sum->in_flight, (const char *)data + old - tail, tail);
	return true;
}

void printer__summary_of(struct life *l, struct req_summary *sum)
{
	*sum = (struct req_summary){ .followed = !l->watch, .kernel_q = l->kernel_q,
				      .sysfs_on = l->sysfs_on, .owners = l->owners };
	life__stats(l, &sum->s);
	sum->in_flight = life__in_flight(l);
	sum->missed = bpfenv__recursion_misses(l->skel->obj);
	sum->skipped = life__skipped(l);
}

/* The summary's counters, in the order JSON and text give them. */
struct summary_values {
	uint64_t completed, records, lost, partial, untracked, not_issued, merges, splits,
		 requeues, abandoned, in_flight, unseen_end, unstamped, watch_full, watch_kept, missed,
		 queue_write_stalls;
	int64_t skipped;
	struct kmemo_stats km;
};

/* what a run keeps (struct counter.only); KMEMO: -K's stacks from memos */
enum { FOLLOWED = 1, WATCHED = 2, KMEMO = 4 };

#define SV(f) offsetof(struct summary_values, f)
static const struct counter summary_counters[] = {
	{ "completed", SV(completed), "%llu requests completed" },
	{ "records", SV(records), "%llu records" },
	{ "lost", SV(lost), "%llu lost (ring buffer full)" },
	{ "partial", SV(partial), "%llu partial (Q, G or D not seen)" },
	{ "untracked", SV(untracked), "%llu with the submitter lost (slot taken)" },
	{ "not_issued", SV(not_issued), "%llu never issued" },
	/* watched: back merges are not seen, and no table of requests in flight */
	{ "merges", SV(merges), "%llu merges", FOLLOWED },
	{ "splits", SV(splits), "%llu splits" },
	{ "requeues", SV(requeues), "%llu requeues" },
	{ "abandoned", SV(abandoned), "%llu abandoned in flight", FOLLOWED },
	{ "in_flight", SV(in_flight), "%llu still in flight", FOLLOWED },
	{ "unseen_end", SV(unseen_end), "%llu ended unseen (no program ran at their completion)", FOLLOWED },
	{ "unstamped", SV(unstamped), "%llu without a Q stamp", WATCHED },
	{ "watch_full", SV(watch_full), "%llu with the watch list full", WATCHED },
	{ "watch_kept", SV(watch_kept), "%llu had Q and the submitter from the watch list (slot taken)", WATCHED },
	{ "missed", SV(missed), "%llu missed (a program already running on the CPU)" },
	{ "skipped", SV(skipped), "%lld skipped (completed, but the kernel ran no BPF program for them)", 0, 1 },
	{ "queue_write_stalls", SV(queue_write_stalls), "%llu stalls named a queue write" },
	BPFENV_KMEMO_COUNTERS(SV(km), KMEMO),
};

struct sum_view {
	const char *tracking, *q_stamp;
	struct summary_values v;
	bool sysfs_on;
};

static const struct field summary_fields[] = {
	{ "tracking", FS_PSTR, offsetof(struct sum_view, tracking) },
	{ "q_stamp", FS_PSTR, offsetof(struct sum_view, q_stamp) },
	{ "counters", FS_COUNTERS, offsetof(struct sum_view, v), .sub = summary_counters,
	  .nsub = COUNTERS_N(summary_counters) },
	{ "queue_writes_watched", FS_BOOL, offsetof(struct sum_view, sysfs_on) },
};

const struct rec summary_rec = REC("summary", "summary", "slow, snoop, replay: the end of a run (kstack_*: "
				   "how -K took the kernel stacks, where from memos; else null)", summary_fields);

void printer__summary(struct req_printer *p, const struct req_summary *sum)
{
	const struct life_stats *s = &sum->s;
	struct summary_values v = {
		s->completed, s->records, s->lost, s->partial, s->untracked, s->not_issued,
		s->merges, s->splits, s->requeues, s->abandoned, sum->in_flight, s->unseen_end,
		s->unstamped, s->watch_full, s->watch_kept, sum->missed, p->attributed, sum->skipped, p->km,
	};
	unsigned mode = (sum->followed ? FOLLOWED : WATCHED) | (p->kmemo ? KMEMO : 0);

	if (p->json) {
		struct sum_view sv = { sum->followed ? "followed" : "watched", sum->kernel_q ? "kernel" : "iodig",
				       v, sum->sysfs_on };
		struct fctx c = { .mode = mode };

		fields__json(&p->j, &summary_rec, &sv, &c);
		return;
	}
	fflush(stdout);
	fputc('\n', stderr);
	counters__sentence(stderr, summary_counters, COUNTERS_N(summary_counters), &v, mode);
}

void printer__header(struct req_printer *p)
{
	struct fctx c = req_ctx(p);

	if (!p->json)
		fields__head(stdout, &request_rec, &c);
}

/* The tables a replay needs, first in the file: what the printer reads
 * besides the records themselves. */
int printer__record_tables(struct req_printer *p, const char *path)
{
	char meta[512], *flags = reqflags__to_text(&p->rf), *disks = disks__to_text();
	struct timespec wall, mono;
	struct utsname u;
	int err, n;

	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	uname(&u);
	n = snprintf(meta, sizeof(meta),
		     "command %s\nt0_ns %llu\nboot_wall_ns %llu\ndisk_w %d\nsector_w %d\nkernel %s\nhost %s\n"
		     "kstack %d\nustack %d\n",
		     p->snoop ? "snoop" : "slow", (unsigned long long)p->t0,
		     (unsigned long long)((wall.tv_sec - mono.tv_sec) * 1000000000LL + wall.tv_nsec - mono.tv_nsec),
		     p->disk_w, p->sector_w, u.release, u.nodename, p->kstack, p->ustack);
	err = flags && disks ? 0 : -ENOMEM;
	if (!err)
		err = recfile__write(&p->rec, RECF_META, meta, n);
	if (!err)
		err = recfile__write(&p->rec, RECF_REQFLAGS, flags, strlen(flags));
	if (!err)
		err = recfile__write(&p->rec, RECF_DISKS, disks, strlen(disks));
	free(flags);
	free(disks);
	if (err)
		return fail("writing the recording", "%s: %s", path, strerror(-err));
	return 0;
}


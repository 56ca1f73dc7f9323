// SPDX-License-Identifier: GPL-2.0
/*
 * A bio of a bio-based disk (dm, md, bcache) and what it became below
 * (life.h's life_upper), declared once (fields.h) and printed in the
 * request columns: its own Q2C, the longest of its lowers ("below") and what
 * its own layer added (signed: layer = Q2C - below), then the lowers with
 * their phases.  JSON "bio" {..., below_ns, layer_ns, lower: [...],
 * lower_count, lower_not_shown}.
 */
#include <stdio.h>
#include <string.h>
#include "disks.h"
#include "hist_user.h"
#include "records.h"
#include "text.h"

struct lower_view {
	const char *disk, *op, *dom;
	char ob[16];
	uint32_t bytes;
	bool request;		/* a request (its phases), else a bio-based disk's bio */
	bool has_w;		/* its Q2G overlapped a write to its queue's attributes */
	__u64 ph[PH_NR];
	struct life_sysfs w;
	char val[SYSFS_VALUE_LEN];
};

struct upper_view {
	struct life_upper u;
	const char *disk, *op, *dom;
	char ob[16], flags[200];
	uint64_t q2c, below;
	int64_t layer;
	unsigned shown;
	struct lower_view lw[LIFE_LOWERS];
};

#define UV(f) offsetof(struct upper_view, f)
#define LV(f) offsetof(struct lower_view, f)
#define U(row) ((const struct upper_view *)(row))
#define L(row) ((const struct lower_view *)(row))

static void t_time(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = (U(row)->u.c - ((const struct req_printer *)c->user)->t0) / 1e9;
}

static const void *e_flags(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return U(row)->flags;
}

static void g_none(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
}

static void g_below(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (U(row)->shown) {
		v->k = V_U64;
		v->u = U(row)->below;
	}
}

static void g_layer(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (U(row)->shown) {
		v->k = V_I64;
		v->i = U(row)->layer;
	}
}

static void g_status(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = reqflags__status(U(row)->u.error, b, n);
}

static void t_error(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (U(row)->u.error)
		g_status(row, c, v, b, n);
}

static void g_not_shown(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = U(row)->u.nlower - U(row)->shown;
}

static const void *e_lower(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return i < U(row)->shown ? &U(row)->lw[i] : NULL;
}

/* a lower request's phases; null for a bio-based disk's bio */
#define LPH(name, ph_) { name, FS_GET, .get = g_ph_##ph_, .flags = FL_INT | FL_NULLABLE }
#define LPH_GET(ph_)										\
	static void g_ph_##ph_(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) \
	{											\
		if (L(row)->request) {								\
			v->k = V_U64;								\
			v->u = L(row)->ph[ph_];							\
		}										\
	}
LPH_GET(PH_Q2G)
LPH_GET(PH_G2I)
LPH_GET(PH_D2C)

static void g_has_w(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (L(row)->has_w)
		v->k = V_BOOL;
}

static const struct field lower_qw_fields[] = {
	{ "comm", FS_CHARS, LV(w.comm) },
	{ "pid", FS_U32, LV(w.pid) },
	{ "attr", FS_CHARS, LV(w.attr) },
	{ "value", FS_CHARS, LV(val) },
};
static const struct rec lower_qw_rec = REC(NULL, NULL, NULL, lower_qw_fields);

static const struct field lower_fields[] = {
	{ "disk", FS_PSTR, LV(disk) },
	{ "op", FS_PSTR, LV(op) },
	{ "bytes", FS_U32, LV(bytes) },
	{ "request", FS_BOOL, LV(request) },
	{ "q2c_ns", FS_U64, LV(ph[PH_Q2C]) },
	LPH("q2g_ns", PH_Q2G),
	LPH("g2d_ns", PH_G2I),
	LPH("d2c_ns", PH_D2C),
	{ "dominant", FS_PSTR, LV(dom), .flags = FL_NULLABLE },
	{ "queue_write", FS_OBJ, .get = g_has_w, .flags = FL_OMIT_NULL, .sub = &lower_qw_rec },
};
static const struct rec lower_rec = REC(NULL, NULL, NULL, lower_fields);

/* text: "  <- loop1 write 1.20ms (D2C 1.19ms), loop2 ...; dm-1 itself 10.1ms" */
static void t_chain(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct upper_view *q = row;
	size_t off = 0;
	char t1[32], t2[32];

	if (!q->shown)
		return;
	for (unsigned i = 0; i < q->shown && off < n; i++) {
		const struct lower_view *l = &q->lw[i];

		off += snprintf(b + off, n - off, "%s%s %s %s", i ? ", " : "", l->disk, l->op,
				fmt_ns(t1, sizeof(t1), l->ph[PH_Q2C]));
		if (l->dom && off < n)
			off += snprintf(b + off, n - off, " (%s %s", l->dom, fmt_ns(t2, sizeof(t2),
					l->ph[!strcmp(l->dom, "Q2G") ? PH_Q2G : !strcmp(l->dom, "G2I") ? PH_G2I :
					      !strcmp(l->dom, "I2D") ? PH_I2D : PH_D2C]));
		if (l->has_w && off < n) {
			/* the stall is its Q2G, whichever phase was longest */
			if (strcmp(l->dom, "Q2G"))
				off += snprintf(b + off, n - off, "; Q2G %s", fmt_ns(t2, sizeof(t2), l->ph[PH_Q2G]));
			if (off < n)
				off += snprintf(b + off, n - off, ": queue frozen by ");
			if (off < n)
				off += printer__writer(b + off, n - off, &l->w, l->disk, l->val);
		}
		if (l->dom && off < n)
			off += snprintf(b + off, n - off, ")");
	}
	if (q->u.nlower > q->shown && off < n)
		off += snprintf(b + off, n - off, " (+%u more)", q->u.nlower - q->shown);
	if (off < n)
		snprintf(b + off, n - off, "; %s itself %s%s", q->disk, q->layer < 0 ? "-" : "",
			 fmt_ns(t1, sizeof(t1), q->layer < 0 ? -q->layer : q->layer));
	v->k = V_STR;
	v->s = b;
}

#define NONE(name, h, f) { name, FS_GET, .get = g_none, .flags = FL_INT | FL_NULLABLE | FL_OMIT_NULL, .head = h, .fmt = f }
static const struct field upper_fields[] = {
	{ NULL, FS_GET, .head = "TIME(s)", .fmt = "%-9.3f", .tget = t_time },
	{ "ts_ns", FS_U64, UV(u.c) },
	{ "comm", FS_CHARS, UV(u.comm), .head = "COMM", .fmt = "%-15s" },
	{ "pid", FS_U32, UV(u.pid), .head = "PID", .fmt = "%-7u" },
	{ "tid", FS_U32, UV(u.tid) },
	{ "disk", FS_PSTR, UV(disk), .head = "DISK", .fmt = "%-s", .width = printer__w_disk },
	{ "op", FS_PSTR, UV(op), .head = "OP", .fmt = "%-7s" },
	{ "flags", FS_WORDS, .each = e_flags },
	{ "sector", FS_U64, UV(u.sector), .head = "SECTOR", .fmt = "%-llu", .width = printer__w_sector },
	{ "bytes", FS_U32, UV(u.bytes), .head = "BYTES", .fmt = "%-8u" },
	NONE(NULL, "Q2G(ms)", "%8.3f"),
	NONE(NULL, "G2I(ms)", "%8.3f"),
	NONE(NULL, "I2D(ms)", "%8.3f"),
	NONE(NULL, "D2C(ms)", "%8.3f"),
	{ "q2c_ns", FS_U64, UV(q2c), .head = "Q2C(ms)", .fmt = "%9.3f", .tdiv = 1e6 },
	{ "dominant", FS_PSTR, UV(dom), .flags = FL_NULLABLE, .head = "DOMINANT", .fmt = "%s" },
	{ "below_ns", FS_GET, .get = g_below, .flags = FL_INT | FL_NULLABLE },
	{ "layer_ns", FS_GET, .get = g_layer, .flags = FL_INT | FL_NULLABLE },
	{ "lower", FS_LIST, .each = e_lower, .sub = &lower_rec },
	{ "lower_count", FS_U32, UV(u.nlower) },
	{ "lower_not_shown", FS_GET, .get = g_not_shown, .flags = FL_INT },
	{ "error", FS_I32, UV(u.error) },
	{ "status", FS_GET, .get = g_status, .flags = FL_STR | FL_TAIL, .tget = t_error, .fmt = " error=%s" },
	{ NULL, FS_GET, .tget = t_chain, .flags = FL_TAIL | FL_SAFE, .fmt = "  <- %s" },
};

const struct rec bio_rec = REC("bio", "bio", "slow, snoop, replay: a bio of a bio-based disk (dm, md, bcache) "
			       "and the requests and bios it became below", upper_fields);

void printer__upper(struct req_printer *p, const struct life_upper *in)
{
	struct upper_view q = { .u = *in };
	struct fctx c = { .mode = 1, .user = p };

	q.u.comm[LIFE_COMM_LEN - 1] = '\0';
	q.disk = disks__name(q.u.dev);
	q.op = reqflags__op_name(&p->rf, q.u.cmd_flags, q.ob, sizeof(q.ob));
	reqflags__flags_str(&p->rf, q.u.cmd_flags, q.flags, sizeof(q.flags));
	q.q2c = q.u.c > q.u.q ? q.u.c - q.u.q : 0;
	q.shown = q.u.nlower < LIFE_LOWERS ? q.u.nlower : LIFE_LOWERS;
	for (unsigned i = 0; i < q.shown; i++) {
		const struct life_lower *x = &q.u.lower[i];
		struct lower_view *l = &q.lw[i];
		int complete = life_lower_phases(x, l->ph);

		l->disk = disks__name(x->dev);
		l->op = reqflags__op_name(&p->rf, x->cmd_flags, l->ob, sizeof(l->ob));
		l->bytes = x->bytes;
		l->request = x->g || x->d;
		l->dom = l->request ? life__dominant(l->ph, complete) : NULL;
		if (l->request && l->dom) {	/* stalled before G while its queue was written: who */
			struct life_req r = { .dev = x->dev, .q = x->q, .g = x->g, .seen = SEEN_Q | SEEN_G };
			const struct life_sysfs *w = printer__culprit(p, &r, l->ph);

			if (w) {
				p->attributed++;
				l->has_w = true;
				l->w = *w;
				printer__value(w->value, l->val, sizeof(l->val));
			}
		}
	}
	if (q.shown) {
		q.below = life_upper_below(&q.u);
		q.layer = (int64_t)q.q2c - (int64_t)q.below;
		q.dom = q.layer > (int64_t)q.below ? "layer" : "below";
	}
	p->shown++;
	if (p->json)
		fields__json(&p->j, &bio_rec, &q, &c);
	else
		fields__text(stdout, &bio_rec, &q, &c);
}

/* What the stacked disks' side counted, at the end: text one line, JSON a
 * "stack_summary" record. */
#define SS(f) offsetof(struct life_stack_stats, f)
static const struct field stack_sum_fields[] = {
	{ "upper_bios", FS_U64, SS(upper_bios), .fmt = "stacked disks: %u bios timed" },
	{ "upper_unseen", FS_U64, SS(upper_unseen), .fmt = ", %u not (submitted before tracing, or table full)" },
	{ "lowers", FS_U64, SS(lowers), .fmt = ", %u requests and bios below linked to them" },
	{ "lowers_orphan", FS_U64, SS(lowers_orphan), .fmt = ", %u linked to a bio already gone" },
	{ "remap_unlinked", FS_U64, SS(remap_unlinked), .fmt = ", %u remapped below with no bio found" },
	{ "unlinked", FS_U64, SS(unlinked),
	  .fmt = ", %u with nothing linked below (sent down by another task, as dm-crypt's writes)" },
	{ "records", FS_U64, SS(records), .fmt = ", %u records" },
	{ "lost", FS_U64, SS(lost), .fmt = ", %u lost (ring buffer full)\n" },
};
const struct rec stack_summary_rec = REC_LINES("stack_summary", "stack_summary",
	"slow, snoop: what the stacked disks' side counted", stack_sum_fields);

void printer__stack_summary(struct req_printer *p, const struct life_stack_stats *s)
{
	struct fctx c = { .mode = 1, .user = p };

	if (p->json)
		fields__json(&p->j, &stack_summary_rec, s, &c);
	else
		fields__lines(stdout, &stack_summary_rec, s, &c);
}

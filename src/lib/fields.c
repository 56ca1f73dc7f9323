// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <math.h>
#include <alloca.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "frames.h"
#include "fields.h"
#include "hist_user.h"
#include "json.h"
#include "text.h"

static bool kept(const struct field *f, const struct fctx *c)
{
	return !f->only || (f->only & c->mode);
}

/* The field's JSON value. */
static void value(const struct field *f, const void *row, const struct fctx *c, struct fval *v,
		  char *buf, size_t len)
{
	const char *p = (const char *)row + f->off;

	switch (f->src) {
	case FS_U64:
		v->k = V_U64;
		memcpy(&v->u, p, sizeof(v->u));
		if ((f->flags & FL_MAX_NULL) == FL_MAX_NULL && v->u == UINT64_MAX)
			v->k = V_NULL;
		break;
	case FS_U32: { uint32_t x; memcpy(&x, p, sizeof(x)); v->k = V_U64; v->u = x; break; }
	case FS_U16: { uint16_t x; memcpy(&x, p, sizeof(x)); v->k = V_U64; v->u = x; break; }
	case FS_I64: v->k = V_I64; memcpy(&v->i, p, sizeof(v->i)); break;
	case FS_I32: { int32_t x; memcpy(&x, p, sizeof(x)); v->k = V_I64; v->i = x; break; }
	case FS_DBL: v->k = V_DBL; memcpy(&v->d, p, sizeof(v->d)); break;
	case FS_BOOL: v->k = V_BOOL; v->b = *(const bool *)p; break;
	case FS_CHARS: v->k = V_STR; v->s = p; break;
	case FS_PSTR: v->k = V_STR; memcpy(&v->s, p, sizeof(v->s)); if (!v->s) v->k = V_NULL; break;
	case FS_DEVT: {
		uint32_t d;

		memcpy(&d, p, sizeof(d));
		snprintf(buf, len, "%u:%u", d >> 20, d & 0xfffff);
		v->k = V_STR;
		v->s = buf;
		break;
	}
	case FS_INTERVAL: v->k = V_U64; v->u = c->interval; break;
	case FS_BY: v->k = V_STR; v->s = c->by ? c->by : "?"; break;
	case FS_GET:
	case FS_OBJ:
		v->k = V_NULL;
		if (f->get)
			f->get(row, c, v, buf, len);
		else if (f->src == FS_OBJ)
			v->k = V_BOOL;
		break;
	case FS_COUNTERS:
	case FS_LIST: case FS_HIST: case FS_LOG2: case FS_FRAMES: case FS_WORDS: v->k = V_NULL; break;
	case FS_TEXT: v->k = V_BOOL; v->b = true; break;
	}
}

static void json_value(struct json *j, const struct fval *v)
{
	switch (v->k) {
	case V_NULL: json__null(j); break;
	case V_U64: json__u64(j, v->u); break;
	case V_I64: json__i64(j, v->i); break;
	case V_DBL: json__double(j, v->d); break;
	case V_STR: json__str(j, v->s); break;
	case V_BOOL: json__bool(j, v->b); break;
	}
}

static bool compound(const struct field *f)
{
	return f->src == FS_LIST || f->src == FS_HIST || f->src == FS_LOG2 || f->src == FS_FRAMES ||
	       f->src == FS_WORDS;
}

static void json_compound(struct json *j, const struct field *f, const void *row, const struct fctx *c)
{
	char scratch[FIELDS_BUF] __attribute__((aligned(16)));
	struct fctx ec = *c;
	const char *key = NULL;
	const void *at = f->each ? f->each(row, 0, &ec, scratch, &key) : (const char *)row + f->off;
	bool obj = f->flags & FL_OBJECT;

	switch (f->src) {
	case FS_HIST:
		json__obj_begin(j);
		hist__json(at, j);
		json__obj_end(j);
		return;
	case FS_LOG2:
		hist__json_log2(j, at, (int)f->nsub);
		return;
	case FS_FRAMES:
		frames__json_array(at, j);
		return;
	case FS_WORDS:
		json__words(j, at);
		return;
	default:
		break;
	}
	obj ? json__obj_begin(j) : json__arr_begin(j);
	for (unsigned i = 0; at; at = f->each(row, ++i, &ec, scratch, &key)) {
		if (obj)
			json__key(j, key);
		if (f->flags & FL_STR)
			json__str(j, at);
		else
			fields__json(j, f->sub, at, &ec);
		ec = *c;
	}
	obj ? json__obj_end(j) : json__arr_end(j);
}

/* FS_OBJ with each(): an object of sub's fields over another row (a chain's
 * next link), null when each() gives none. */
static void json_other_row(struct json *j, const struct field *f, const void *row, const struct fctx *c)
{
	char scratch[FIELDS_BUF] __attribute__((aligned(16)));
	struct fctx ec = *c;
	const char *key = NULL;
	const void *at = f->each(row, 0, &ec, scratch, &key);

	if (!at && (f->flags & FL_OMIT_NULL))
		return;
	json__key(j, f->name);
	if (!at) {
		json__null(j);
		return;
	}
	json__obj_begin(j);
	fields__json_members(j, f->sub, at, &ec);
	json__obj_end(j);
}

/*
 * Things made once a thread for a table (and mode) and kept for the run:
 * tables are static and few, so nothing is ever evicted, and a pointer
 * handed out stays good while a nested row is printed.  FIELDS_MEMO slots
 * by the table's address; when they are full, the caller makes its own.
 */
#define FIELDS_MEMO 128

struct memo {
	const struct rec *r;
	unsigned mode;
	void *v;
};

/* One of 128 slots for a pointer to a static table or literal. */
static size_t ptr_slot(const void *p)
{
	return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull >> 57);
}

static void **memo_at(struct memo *m, const struct rec *r, unsigned mode, bool *found)
{
	size_t h = ptr_slot(r) + mode;

	for (size_t i = 0; i < FIELDS_MEMO; i++) {
		struct memo *e = &m[(h + i) % FIELDS_MEMO];

		if (e->v && e->r == r && e->mode == mode) {
			*found = true;
			return &e->v;
		}
		if (!e->v) {
			e->r = r;
			e->mode = mode;
			*found = false;
			return &e->v;
		}
	}
	return NULL;
}

/*
 * A table's keys as JSON text ("name":), made once a thread per table: a
 * key was escaped a character at a time on every row, part of the 19% of
 * snoop --json's reader in escape() (perf on replay; replay --json of 604k
 * records 0.394-0.401 -> 0.329-0.338 s).  A name with a byte JSON would
 * escape keeps the escaping path (len 0).
 */
struct json_keys {
	uint16_t *off, *len;
	char *text;
};

static const struct json_keys *json_keys_of(const struct rec *r)
{
	static _Thread_local struct memo memo[FIELDS_MEMO];
	struct json_keys *k;
	bool found;
	void **at = memo_at(memo, r, 0, &found);
	size_t size = 0, pos = 0;

	if (!at)
		return NULL;	/* json__key for every key */
	if (found)
		return *at;
	for (size_t i = 0; i < r->n; i++)
		size += r->f[i].name ? strlen(r->f[i].name) + 3 : 0;
	if (!(k = calloc(1, sizeof(*k) + r->n * 2 * sizeof(uint16_t) + size)))
		return NULL;
	k->off = (uint16_t *)(k + 1);
	k->len = k->off + r->n;
	k->text = (char *)(k->len + r->n);
	for (size_t i = 0; i < r->n; i++) {
		const char *n = r->f[i].name;
		size_t l = n ? strlen(n) : 0;
		bool plain = n && pos + l + 3 <= UINT16_MAX;

		for (size_t c = 0; plain && c < l; c++)
			plain = n[c] >= 0x20 && n[c] < 0x7f && n[c] != '"' && n[c] != '\\';
		if (!plain)
			continue;
		k->off[i] = (uint16_t)pos;
		k->len[i] = (uint16_t)(l + 3);
		k->text[pos] = '"';
		memcpy(k->text + pos + 1, n, l);
		memcpy(k->text + pos + 1 + l, "\":", 2);
		pos += l + 3;
	}
	*at = k;
	return k;
}

static void json_key_of(struct json *j, const struct json_keys *k, size_t i, const char *name)
{
	if (k && k->len[i])
		json__key_raw(j, k->text + k->off[i], k->len[i]);
	else
		json__key(j, name);
}

void fields__json_members(struct json *j, const struct rec *r, const void *row, const struct fctx *c)
{
	const struct json_keys *keys = json_keys_of(r);

	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];
		char buf[FIELDS_BUF];
		struct fval v;

		if (!f->name || !kept(f, c))
			continue;
		if (f->src == FS_COUNTERS) {
			counters__json(j, f->sub, f->nsub, (const char *)row + f->off, c->mode);
			continue;
		}
		if (f->src == FS_OBJ && f->each) {
			json_other_row(j, f, row, c);
			continue;
		}
		if (compound(f)) {
			json_key_of(j, keys, i, f->name);
			json_compound(j, f, row, c);
			continue;
		}
		value(f, row, c, &v, buf, sizeof(buf));
		if (v.k == V_NULL && (f->flags & FL_OMIT_NULL))
			continue;
		json_key_of(j, keys, i, f->name);
		if ((f->flags & FL_MICROS) && (v.k == V_I64 || v.k == V_U64)) {
			json__micros(j, v.k == V_I64 ? v.i : (int64_t)v.u);
			continue;
		}
		if (f->src == FS_OBJ && v.k != V_NULL) {
			json__obj_begin(j);
			fields__json_members(j, f->sub, row, c);
			json__obj_end(j);
		} else {
			json_value(j, &v);
		}
	}
}

void fields__json(struct json *j, const struct rec *r, const void *row, const struct fctx *c)
{
	json__obj_begin(j);
	if (r->type)
		json__kstr(j, "type", r->type);
	fields__json_members(j, r, row, c);
	json__obj_end(j);
}

/* The conversion in fmt: where it starts and ends, its width (negative:
 * left-aligned) and its conversion character. */
static const char *conversion(const char *fmt, size_t *start, size_t *end, int *width)
{
	const char *p = fmt;

	while ((p = strchr(p, '%')) && p[1] == '%')
		p += 2;
	if (!p)
		return NULL;
	*start = p - fmt;
	p++;
	bool left = false;

	while (*p && strchr("-+ #0", *p))
		left |= *p++ == '-';
	*width = 0;
	while (*p >= '0' && *p <= '9')
		*width = *width * 10 + (*p++ - '0');
	if (left)
		*width = -*width;
	while (*p && strchr(".0123456789hlLqjzt", *p))
		p++;
	*end = p - fmt + 1;
	return p;
}

/* fmt with width w in its conversion: "%-s" and 12 make "%-12s" (fmt as it
 * is when it has none). */
static const char *with_width(const char *fmt, int w, char *tmp, size_t len)
{
	size_t start, end, k;
	int cw;

	if (!conversion(fmt, &start, &end, &cw))
		return fmt;
	for (k = start + 1; k < end && strchr("-+ #0", fmt[k]); k++)
		;
	snprintf(tmp, len, "%.*s%d%s", (int)k, fmt, w, fmt + k);
	return tmp;
}

/* printf's way, for what the quick way below leaves to it; width (when
 * not NULL) in place of the conversion's own. */
static void format_printf(char *out, size_t len, const char *fmt, const struct fval *v, bool safe, int nullw,
			  const int *width_of)
{
	size_t start, end, n;
	int width;
	char f[64], wf[64], esc[TEXT_SAFE_LEN(FIELDS_BUF)];
	const char *conv;

	if (width_of)
		fmt = with_width(fmt, *width_of, wf, sizeof(wf));
	conv = conversion(fmt, &start, &end, &width);
	if (!conv || !*conv) {
		snprintf(out, len, "%s", fmt);
		return;
	}
	if (v->k == V_NULL) {	/* "-" in the column's width, without the literal text */
		snprintf(out, len, "%*s", nullw ? nullw : width, "-");
		return;
	}
	/* the spec without its length modifier, then ours */
	n = end - 1 - start;
	while (n > 1 && strchr("hlLqjzt", fmt[start + n - 1]))
		n--;
	switch (*conv) {
	case 's':
		snprintf(f, sizeof(f), "%.*s%s", (int)end, fmt, fmt + end);
		snprintf(out, len, f, v->k == V_STR ? (safe ? v->s : text__safe(v->s, esc, sizeof(esc))) : v->k == V_BOOL
			 ? (v->b ? "yes" : "no") : "?");
		return;
	case 'f': case 'g': case 'e': {
		double d = v->k == V_DBL ? v->d : v->k == V_I64 ? (double)v->i : v->k == V_U64 ? (double)v->u : 0;

		snprintf(f, sizeof(f), "%.*s%s", (int)end, fmt, fmt + end);
		snprintf(out, len, f, d);
		return;
	}
	case 'd': case 'i':
		snprintf(f, sizeof(f), "%.*sll%c%s", (int)(start + n), fmt, *conv, fmt + end);
		snprintf(out, len, f, v->k == V_DBL ? (long long)v->d : v->k == V_U64 ? (long long)v->u : (long long)v->i);
		return;
	default:	/* u, x */
		snprintf(f, sizeof(f), "%.*sll%c%s", (int)(start + n), fmt, *conv, fmt + end);
		snprintf(out, len, f, v->k == V_DBL ? (unsigned long long)v->d : v->k == V_I64
			 ? (unsigned long long)v->i : (unsigned long long)v->u);
		return;
	}
}

/*
 * The quick way: a conversion with no flag but '-', no precision but a
 * float's, and literal text with no '%', written by hand.  snoop prints
 * 150k rows a second, each a dozen conversions, on the CPUs the traced
 * I/O needs; through snprintf (twice a field: the spec, then the value) a
 * row took 12.8 us of the reader's CPU (docs/PERFORMANCE.md, "Records out").
 */

/* %.Nf of d, as printf writes it, or 0 when too near a tie to tell here:
 * |d| * 10^N is exact to 2^-12 below 2^40, so a fraction more than 2^-10
 * from one half rounds the way the exact value does. */
static size_t put_fixed(char *b, double d, int prec)	/* b: 48 bytes at least */
{
	static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	static const uint64_t u10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					100000000, 1000000000 };
	double a, fr;
	uint64_t r, whole, frac;
	size_t n = 0;

	if (prec < 0 || prec > 9 || !isfinite(d))
		return 0;
	a = fabs(d) * p10[prec];
	if (a >= 0x1p40)
		return 0;
	r = (uint64_t)a;	/* floor: 0 <= a < 2^40 (no libm call) */
	fr = a - (double)r;
	if (fabs(fr - 0.5) < 0x1p-10)
		return 0;
	r += fr > 0.5;
	if (signbit(d))		/* printf keeps the sign of what rounds to 0 */
		b[n++] = '-';
	/* by a constant where the columns have it (a division by a variable
	 * is tens of cycles, six a snoop row) */
	if (prec == 3)
		whole = r / 1000, frac = r % 1000;
	else
		whole = r / u10[prec], frac = r % u10[prec];
	n += text__u64(b + n, whole);
	if (prec == 3) {
		b[n] = '.';
		b[n + 1] = '0' + frac / 100;
		b[n + 2] = '0' + frac / 10 % 10;
		b[n + 3] = '0' + frac % 10;
		n += 4;
	} else if (prec) {
		b[n++] = '.';
		for (int i = prec - 1; i >= 0; i--, frac /= 10)
			b[n + i] = '0' + frac % 10;
		n += prec;
	}
	return n;
}

/* A string as the terminal may see it: as it is when all printable ASCII
 * with no backslash, else text__safe's copy in esc. */
static const char *term_safe(const char *s, char *esc, size_t len)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '\\')
			return text__safe(s, esc, len);
	return s;
}

/* A format with one conversion iodig writes itself (format_quick), parsed:
 * the literal text before it (start), the flag, width and precision, the
 * conversion, and where the text after it begins (after). */
struct qfmt {
	bool ok, left;
	char conv;
	int width, prec;
	size_t start, after, tail, len;
};

static void qfmt_parse(const char *fmt, struct qfmt *q)
{
	const char *p;

	memset(q, 0, sizeof(*q));
	q->prec = -1;
	if (!(p = strchr(fmt, '%')) || p[1] == '%')
		return;
	q->start = p++ - fmt;
	if (*p == '-')
		q->left = true, p++;
	if (*p == '0')		/* zero padding: printf's */
		return;
	while (*p >= '0' && *p <= '9')
		q->width = q->width * 10 + (*p++ - '0');
	if (*p == '.') {
		q->prec = 0;
		while (*++p >= '0' && *p <= '9')
			q->prec = q->prec * 10 + (*p - '0');
	}
	while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j')
		p++;
	q->after = p - fmt + 1;
	if (!*p || strchr(p + 1, '%') || (q->prec >= 0 && *p != 'f'))
		return;
	q->conv = *p;
	q->tail = strlen(fmt + q->after);
	q->len = q->after + q->tail;
	q->ok = true;
}

/*
 * A field's format parsed once a thread, not once a row (a field's fmt is a
 * string literal of its table), for fields__lines; fields__text keeps its
 * columns' parses in the row's plan.  The parse was 43% of snoop's reader
 * beside fio (format_quick 28%, strchr 15%; perf).
 */
static const struct qfmt *qfmt_of(const char *fmt)
{
	static _Thread_local struct {
		const char *fmt;
		struct qfmt q;
	} cache[128];
	size_t h = ptr_slot(fmt);

	if (cache[h].fmt != fmt) {
		qfmt_parse(fmt, &cache[h].q);
		cache[h].fmt = fmt;
	}
	return &cache[h].q;
}

static inline char *put_bytes(char *o, const char *s, size_t n)
{
	if (n > 16) {
		memcpy(o, s, n);
		return o + n;
	}
	for (size_t i = 0; i < n; i++)
		o[i] = s[i];
	return o + n;
}

/* n spaces; up to 16 are written as 16 (a loop of stores would be made a
 * memset call by the compiler), so o must have 16 bytes of room */
static inline char *put_spaces(char *o, size_t n)
{
	if (n > 16)
		memset(o, ' ', n);
	else
		__builtin_memcpy(o, "                ", 16);
	return o + n;
}

/* The length written, or 0 when printf must do it. */
static size_t format_quick(char *out, size_t len, const char *fmt, const struct qfmt *q, const struct fval *v,
			   bool safe, int nullw, const int *width_of)
{
	const char *val;
	char num[48], esc[TEXT_SAFE_LEN(FIELDS_BUF)];
	size_t start = q->start, after = q->after, vlen, pad, total, tail;
	char *o = out;
	int width = q->width, prec = q->prec;
	bool left = q->left;

	if (!q->ok)
		return 0;
	if (width_of)
		width = *width_of < 0 ? -*width_of : *width_of;
	if (v->k == V_NULL) {	/* "-" in the column's width, without the literal text */
		int w = nullw ? nullw : left ? -width : width;

		left = w < 0;
		width = left ? -w : w;
		start = 0;
		after = q->len;
		val = "-";
		vlen = 1;
	} else {
		switch (q->conv) {
		case 's':
			val = v->k == V_STR ? (safe ? v->s : term_safe(v->s, esc, sizeof(esc)))
			      : v->k == V_BOOL ? (v->b ? "yes" : "no") : "?";
			vlen = strlen(val);
			break;
		case 'f':
			val = num;
			vlen = put_fixed(num, v->k == V_DBL ? v->d : v->k == V_I64 ? (double)v->i
					 : v->k == V_U64 ? (double)v->u : 0, prec < 0 ? 6 : prec);
			if (!vlen)
				return 0;
			break;
		case 'd': case 'i': {
			long long x = v->k == V_DBL ? (long long)v->d : v->k == V_U64 ? (long long)v->u
				      : (long long)v->i;

			val = num;
			vlen = 0;
			if (x < 0)
				num[vlen++] = '-';
			vlen += text__u64(num + vlen, x < 0 ? -(unsigned long long)x : (unsigned long long)x);
			break;
		}
		case 'u':
			val = num;
			vlen = text__u64(num, v->k == V_DBL ? (unsigned long long)v->d : v->k == V_I64
				       ? (unsigned long long)v->i : (unsigned long long)v->u);
			break;
		default:
			return 0;
		}
	}
	pad = vlen < (size_t)width ? width - vlen : 0;
	tail = v->k == V_NULL ? 0 : q->tail;
	total = start + pad + vlen + tail;
	if (!total || total + 32 >= len)	/* + the room of put_spaces and a number's copy */
		return 0;
	/* by hand: most pieces are a few bytes or none, where a call to
	 * memcpy or memset costs more than the bytes (10% of snoop's reader) */
	o = put_bytes(o, fmt, start);
	if (!left)
		o = put_spaces(o, pad);
	if (val == num && vlen <= 32)	/* a number: whole words, num has room */
		__builtin_memcpy(o, num, 32), o += vlen;
	else
		o = put_bytes(o, val, vlen);
	if (left)
		o = put_spaces(o, pad);
	o = put_bytes(o, fmt + after, tail);
	*o = '\0';
	return total;
}

/* The value in fmt's conversion, into out (a string); its length. */
static inline __attribute__((always_inline)) size_t format(char *out, size_t len, const char *fmt, const struct qfmt *q, const struct fval *v,
		     bool safe, int nullw, const int *width_of)
{
	struct qfmt parsed;
	size_t n;

	if (!q) {
		qfmt_parse(fmt, &parsed);
		q = &parsed;
	}
	n = format_quick(out, len, fmt, q, v, safe, nullw, width_of);

	if (n)
		return n;
	format_printf(out, len, fmt, v, safe, nullw, width_of);
	return strlen(out);
}

void fields__format(char *out, size_t len, const char *fmt, const struct fval *v)
{
	format(out, len, fmt, NULL, v, false, 0, NULL);
}

/* The field's text value: tget's or the JSON one, scaled, per second. */
static inline __attribute__((always_inline)) void text_value(const struct field *f, const void *row, const struct fctx *c, struct fval *v,
		       char *buf, size_t len)
{
	if (f->tget) {
		v->k = V_NULL;
		f->tget(row, c, v, buf, len);
	} else {
		value(f, row, c, v, buf, len);
	}
	if ((f->flags & FL_DUR) && (v->k == V_U64 || v->k == V_I64)) {
		fmt_ns(buf, len, v->k == V_U64 ? v->u : v->i < 0 ? 0 : (uint64_t)v->i);
		v->k = V_STR;
		v->s = buf;
		return;
	}
	if (v->k == V_NULL || v->k == V_STR || v->k == V_BOOL || (!f->tdiv && !(f->flags & FL_RATE)))
		return;
	double d = v->k == V_DBL ? v->d : v->k == V_I64 ? (double)v->i : (double)v->u;

	if (f->tdiv)
		d /= f->tdiv;
	if (f->flags & FL_RATE)
		d = c->secs > 0 ? d / c->secs : 0;
	v->k = V_DBL;
	v->d = d;
}

/* The field's conversion, with its width from f->width() if it has one. */
static const char *field_fmt(const struct field *f, const struct fctx *c, char *tmp, size_t len)
{
	return f->width ? with_width(f->fmt, f->width(c), tmp, len) : f->fmt;
}

static bool column(const struct field *f, const struct fctx *c)
{
	return f->head && f->fmt && !(f->flags & FL_TAIL) && kept(f, c);
}

void fields__head(FILE *out, const struct rec *r, const struct fctx *c)
{
	const char *sep = "";

	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];
		size_t s, e;
		char tmp[64];
		int w = 0;

		if (!column(f, c))
			continue;
		if (f->hw)
			w = f->hw;
		else
			conversion(field_fmt(f, c, tmp, sizeof(tmp)), &s, &e, &w);
		fprintf(out, "%s%*s", sep, w, f->head);
		sep = " ";
	}
	fputc('\n', out);
}

/*
 * Which of a table's fields a row's text has, in order: its columns, then
 * its tail fields.  The same for every row of a table in a mode, so made
 * once a thread and kept (memo_at); a row then visits only them.  Walking
 * the whole table twice a row to find them was 13% of snoop's reader (perf
 * on replay of 604k records; tables of 40 fields and more, most of them
 * JSON's alone).
 */
struct text_plan {
	uint16_t ncol, n;		/* columns, then tail fields to n */
	struct plan_col {
		const struct field *f;
		struct qfmt q;		/* f->fmt parsed (qfmt_of's lookup a field a row: 2.4%) */
	} col[];
};

static void plan_add(struct text_plan *p, const struct field *f)
{
	p->col[p->n].f = f;
	qfmt_parse(f->fmt, &p->col[p->n++].q);
}

static void text_plan_fill(struct text_plan *p, const struct rec *r, const struct fctx *c)
{
	*p = (struct text_plan){ 0 };
	for (size_t i = 0; i < r->n; i++)
		if (column(&r->f[i], c))
			plan_add(p, &r->f[i]);
	p->ncol = p->n;
	for (size_t i = 0; i < r->n; i++)
		if ((r->f[i].flags & FL_TAIL) && r->f[i].fmt && kept(&r->f[i], c))
			plan_add(p, &r->f[i]);
}

/* The table's plan in this mode, or NULL: then the caller fills its own. */
static const struct text_plan *text_plan_of(const struct rec *r, const struct fctx *c)
{
	static _Thread_local struct memo memo[FIELDS_MEMO];
	struct text_plan *p;
	bool found;
	void **at = memo_at(memo, r, c->mode, &found);

	if (!at)
		return NULL;
	if (found)
		return *at;
	if (!(p = malloc(sizeof(*p) + r->n * sizeof(p->col[0]))))
		return NULL;
	text_plan_fill(p, r, c);
	*at = p;
	return p;
}

void fields__text(FILE *out, const struct rec *r, const void *row, const struct fctx *c)
{
	/* the line is made here and written at once: a field's text is at
	 * most TXT, and what is made goes out before the room left is less */
	enum { TXT = TEXT_SAFE_LEN(FIELDS_BUF) + 64 };
	char buf[FIELDS_BUF], line[2 * TXT];
	const struct text_plan *p = text_plan_of(r, c);
	size_t off = 0;
	struct fval v;

	if (!p) {	/* none kept: this row's own */
		struct text_plan *own = alloca(sizeof(*own) + r->n * sizeof(own->col[0]));

		text_plan_fill(own, r, c);
		p = own;
	}
	for (unsigned j = 0; j < p->n; j++) {
		const struct field *f = p->col[j].f;
		bool tail = j >= p->ncol;
		int w = f->width && !tail ? f->width(c) : 0;

		text_value(f, row, c, &v, buf, sizeof(buf));
		if (tail && v.k == V_NULL)
			continue;
		if (sizeof(line) - off < TXT + 1) {
			fwrite(line, 1, off, out);
			off = 0;
		}
		if (!tail && j)		/* between columns */
			line[off++] = ' ';
		off += format(line + off, TXT, f->fmt, &p->col[j].q, &v, f->flags & FL_SAFE, f->hw,
			      f->width && !tail ? &w : NULL);
	}
	line[off++] = '\n';
	fwrite(line, 1, off, out);
}

/* ---- text as lines ---- */

static void line_compound(FILE *out, const struct field *f, const void *row, const struct fctx *c)
{
	char scratch[FIELDS_BUF] __attribute__((aligned(16)));
	struct fctx ec = *c;
	const char *key = NULL;
	const void *at = f->each ? f->each(row, 0, &ec, scratch, &key) : (const char *)row + f->off;

	switch (f->src) {
	case FS_FRAMES:
		(f->flags & FL_FOLDED ? frames__folded : frames__text)(at, out, f->fmt);
		return;
	case FS_LOG2:
		hist__print_log2(out, at, (int)f->nsub, f->fmt);
		return;
	case FS_LIST:
		if (at)
			fputs(f->fmt, out);
		for (unsigned i = 0; at; at = f->each(row, ++i, &ec, scratch, &key)) {
			fields__lines(out, f->sub, at, &ec);
			ec = *c;
		}
		return;
	default:
		return;
	}
}

void fields__lines(FILE *out, const struct rec *r, const void *row, const struct fctx *c)
{
	char buf[FIELDS_BUF], txt[TEXT_SAFE_LEN(FIELDS_BUF) + 256];
	struct fval v;

	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];

		if (!f->fmt || !kept(f, c))
			continue;
		if (f->src == FS_COUNTERS) {
			counters__lines(out, f->sub, f->nsub, (const char *)row + f->off, c->mode);
			continue;
		}
		if (f->src == FS_OBJ && f->each) {
			char scratch[FIELDS_BUF] __attribute__((aligned(16)));
			struct fctx ec = *c;
			const char *key = NULL;
			const void *at = f->each(row, 0, &ec, scratch, &key);

			if (at) {
				fputs(f->fmt, out);
				fields__lines(out, f->sub, at, &ec);
			}
			continue;
		}
		if (compound(f)) {
			line_compound(out, f, row, c);
			continue;
		}
		text_value(f, row, c, &v, buf, sizeof(buf));
		if (v.k == V_NULL)
			continue;
		if (f->src == FS_OBJ) {
			fputs(f->fmt, out);
			fields__lines(out, f->sub, row, c);
			continue;
		}
		format(txt, sizeof(txt), f->fmt, qfmt_of(f->fmt), &v, f->flags & FL_SAFE, 0, NULL);
		fputs(txt, out);
	}
}

/* ---- the schema ---- */

static const char *kind(const struct field *f)
{
	if (f->src == FS_LIST)	/* FL_STR says its elements' type */
		return f->flags & FL_OBJECT ? "object" : "array";
	if (f->flags & (FL_NUMBER | FL_MICROS))
		return "number";
	if (f->flags & FL_INT)
		return "integer";
	if (f->flags & FL_STR)
		return "string";
	if (f->flags & FL_BOOL)
		return "boolean";
	if (f->flags & FL_ARRAY)
		return "array";
	if (f->flags & FL_OBJECT)
		return "object";
	switch (f->src) {
	case FS_U64: case FS_U32: case FS_U16: case FS_I64: case FS_I32: case FS_INTERVAL: return "integer";
	case FS_DBL: return "number";
	case FS_BOOL: return "boolean";
	case FS_CHARS: case FS_PSTR: case FS_DEVT: case FS_BY: return "string";
	case FS_OBJ: case FS_HIST: return "object";
	case FS_LOG2: case FS_FRAMES: case FS_WORDS: return "array";
	default: return "?";	/* FS_GET without its type in the flags */
	}
}

static void schema_entry(FILE *out, const char **sep, const char *name, const char *k, bool nullable)
{
	fprintf(out, "%s\n  \"%s\": \"%s%s\"", *sep, name, k, nullable ? "|null" : "");
	*sep = ",";
}

static void schema_fields(FILE *out, const struct rec *r, unsigned modes, bool optional)
{
	const char *sep = "";

	if (!optional && r->type)
		schema_entry(out, &sep, "type", "string", false);
	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];
		bool opt = (f->only && (f->only & modes) != modes) || (f->flags & FL_OMIT_NULL);

		if (!f->name || opt != optional)
			continue;
		if (f->src == FS_COUNTERS) {
			const struct counter *t = f->sub;

			for (size_t k = 0; k < f->nsub; k++)
				schema_entry(out, &sep, t[k].name, "integer", t[k].only);
			continue;
		}
		schema_entry(out, &sep, f->name, kind(f),
			     f->flags & FL_NULLABLE || (f->src == FS_OBJ && f->get && !(f->flags & FL_OMIT_NULL)));
	}
	fputs(*sep ? "\n }" : "}", out);
}

void fields__schema(FILE *out, const struct rec *r, unsigned modes)
{
	fputs("{\n \"description\": ", out);
	json__escape(out, r->desc);
	fputs(",\n \"fields\": {", out);
	schema_fields(out, r, modes, false);
	fputs(",\n \"optional\": {", out);
	schema_fields(out, r, modes, true);
	fputs("\n}\n", out);
}

const char *fields__lint(const struct rec *r)
{
	static char msg[160];
	static int depth;	/* a record may nest itself (a chain): checked once */
	const char *found = NULL;

	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];
		const char *name = f->name ? f->name : f->head ? f->head : "?";
		const char *why = NULL;

		if (f->fmt && !f->head && !(f->flags & FL_TAIL) && !r->lines)
			why = "has a text conversion but no heading and no FL_TAIL: never printed";
		else if (r->lines && f->fmt && f->head)
			why = "has a heading in a record of lines";
		else if (!f->name && !f->fmt)
			why = "has neither a JSON name nor text";
		else if (f->src == FS_GET && !f->get && !f->tget)
			why = "is FS_GET without a getter";
		else if (f->src == FS_LIST && (!f->each || (!(f->flags & FL_STR) && !f->sub)))
			why = "is FS_LIST without each() or, for objects, their table";
		else if (f->name && f->src != FS_COUNTERS && !strcmp(kind(f), "?"))
			why = "is a getter whose JSON type no flag says";
		else if ((f->src == FS_OBJ || (f->src == FS_LIST && !(f->flags & FL_STR))) && f->sub &&
			 f->fmt && r->lines && !((const struct rec *)f->sub)->lines)
			why = "prints lines of a record not declared REC_LINES";
		if (why) {
			snprintf(msg, sizeof(msg), "field %zu (%s) %s", i, name, why);
			return msg;
		}
		if ((f->src == FS_OBJ || (f->src == FS_LIST && !(f->flags & FL_STR))) && f->sub && depth < 8) {
			depth++;
			found = fields__lint(f->sub);
			depth--;
			if (found)
				return found;
		}
	}
	return NULL;
}

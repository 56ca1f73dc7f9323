// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "json.h"
#include "text.h"

/*
 * Every record of snoop goes through here, 150k a second at full speed, on
 * the CPUs the traced I/O needs: a line is made in j->buf, numbers by hand,
 * and written with one call when it ends.  Through fputc() and fprintf() a
 * record took 7.7 us (docs/PERFORMANCE.md, "Records out").
 */
static void flush_buf(struct json *j)
{
	if (j->len)
		fwrite(j->buf, 1, j->len, j->out);
	j->len = 0;
}

static void put(struct json *j, const void *p, size_t n)
{
	if (j->len + n > sizeof(j->buf)) {
		flush_buf(j);
		if (n > sizeof(j->buf)) {
			fwrite(p, 1, n, j->out);
			return;
		}
	}
	memcpy(j->buf + j->len, p, n);
	j->len += n;
}

static void putch(struct json *j, char c)
{
	if (j->len == sizeof(j->buf))
		flush_buf(j);
	j->buf[j->len++] = c;
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* At depth 0 a value is a whole line (or a scalar alone): out it goes. */
static void done(struct json *j)
{
	if (!j->depth)
		flush_buf(j);
}

static void put_u64(struct json *j, uint64_t v)
{
	char b[20];

	if (j->len + sizeof(b) <= sizeof(j->buf)) {	/* in place: no copy (12 a snoop record) */
		j->len += text__u64(j->buf + j->len, v);
		return;
	}
	put(j, b, text__u64(b, v));
}

void json__init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	j->len = 0;
}

/* Emit the separator a new value needs at the current position. */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && !j->first[j->depth])
		putch(j, ',');
	j->first[j->depth] = false;
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	putch(j, c);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	putch(j, c);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		putch(j, '\n');	/* flushed by the caller's timer (run__flush) */
		j->first[0] = true;
		flush_buf(j);
	}
}

void json__obj_begin(struct json *j) { json_open(j, '{'); }
void json__obj_end(struct json *j) { json_close(j, '}'); }
void json__arr_begin(struct json *j) { json_open(j, '['); }
void json__arr_end(struct json *j) { json_close(j, ']'); }

/* Valid JSON for any bytes: control bytes and DEL as \u00XX, well-formed
 * UTF-8 as it is, and each byte that is not UTF-8 as the code point of the
 * same number (\u0080..\u00ff, as Latin-1 would read it): the output
 * always parses, and the byte values are kept. */
static void escape(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char u[8];

	putch(j, '"');
	while (*p) {
		const unsigned char *run = p;
		size_t n;

		/* printable ASCII, the common case, in one copy */
		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			put(j, run, p - run);
		if (!*p)
			break;
		n = text__utf8_len(p);
		switch (*p) {
		case '"': puts_(j, "\\\""); break;
		case '\\': puts_(j, "\\\\"); break;
		case '\n': puts_(j, "\\n"); break;
		case '\r': puts_(j, "\\r"); break;
		case '\t': puts_(j, "\\t"); break;
		case '\b': puts_(j, "\\b"); break;
		case '\f': puts_(j, "\\f"); break;
		default:
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
				/* a C1 control (U+0080..U+009F): escaped too */
				snprintf(u, sizeof(u), "\\u%04x", p[1]);
				puts_(j, u);
				p += 2;
				continue;
			}
			if (n > 1) {
				put(j, p, n);
				p += n;
				continue;
			}
			/* a control byte, DEL, or a byte that is not UTF-8 */
			snprintf(u, sizeof(u), "\\u%04x", *p);
			puts_(j, u);
		}
		p++;
	}
	putch(j, '"');
}

void json__escape(FILE *out, const char *s)
{
	struct json j;

	json__init(&j, out);
	escape(&j, s);
	flush_buf(&j);
}

void json__key(struct json *j, const char *key)
{
	json_sep(j);
	escape(j, key);
	putch(j, ':');
	j->after_key = true;
}

void json__key_raw(struct json *j, const char *quoted, size_t n)
{
	json_sep(j);
	put(j, quoted, n);
	j->after_key = true;
}

void json__str(struct json *j, const char *s)
{
	json_sep(j);
	escape(j, s ? s : "");
	done(j);
}

void json__u64(struct json *j, uint64_t v)
{
	json_sep(j);
	put_u64(j, v);
	done(j);
}

void json__i64(struct json *j, int64_t v)
{
	json_sep(j);
	if (v < 0)
		putch(j, '-');
	put_u64(j, v < 0 ? -(uint64_t)v : (uint64_t)v);
	done(j);
}

void json__double(struct json *j, double v)
{
	char b[32] = "null";

	json_sep(j);
	if (isfinite(v))
		snprintf(b, sizeof(b), "%.6g", v);
	puts_(j, b);
	done(j);
}

void json__bool(struct json *j, bool v)
{
	json_sep(j);
	puts_(j, v ? "true" : "false");
	done(j);
}

void json__null(struct json *j)
{
	json_sep(j);
	puts_(j, "null");
	done(j);
}

void json__kstr(struct json *j, const char *k, const char *s) { json__key(j, k); json__str(j, s); }
void json__ku64(struct json *j, const char *k, uint64_t v) { json__key(j, k); json__u64(j, v); }
void json__kdouble(struct json *j, const char *k, double v) { json__key(j, k); json__double(j, v); }

void json__kmicros(struct json *j, const char *k, int64_t ns)
{
	json__key(j, k);
	json__micros(j, ns);
}

void json__micros(struct json *j, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	json_sep(j);
	if (ns < 0)
		putch(j, '-');
	put_u64(j, a / 1000);
	putch(j, '.');
	putch(j, '0' + a % 1000 / 100);
	putch(j, '0' + a % 100 / 10);
	putch(j, '0' + a % 10);
	done(j);
}
void json__kbool(struct json *j, const char *k, bool v) { json__key(j, k); json__bool(j, v); }
void json__knull(struct json *j, const char *k) { json__key(j, k); json__null(j); }

void json__kwords(struct json *j, const char *key, const char *s)
{
	json__key(j, key);
	json__words(j, s);
}

void json__words(struct json *j, const char *s)
{
	json__arr_begin(j);
	while (*s) {
		size_t n = strcspn(s, " ");
		char word[128];

		if (n) {
			snprintf(word, sizeof(word), "%.*s", (int)n, s);
			json__str(j, word);
		}
		s += n + (s[n] == ' ');
	}
	json__arr_end(j);
}

// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "json.h"
#include "text.h"

void json__init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

/* Emit the separator a new value needs at the current position. */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && !j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		fputc('\n', j->out);	/* flushed by the caller's timer (run__flush) */
		j->first[0] = true;
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
void json__escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = text__utf8_len(p);

		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
				/* a C1 control (U+0080..U+009F): escaped too */
				fprintf(out, "\\u%04x", p[1]);
				p += 2;
				continue;
			}
			if (n > 1) {
				fwrite(p, 1, n, out);
				p += n;
				continue;
			}
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
		p++;
	}
	fputc('"', out);
}

void json__key(struct json *j, const char *key)
{
	json_sep(j);
	json__escape(j->out, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json__str(struct json *j, const char *s)
{
	json_sep(j);
	json__escape(j->out, s ? s : "");
}

void json__u64(struct json *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json__i64(struct json *j, int64_t v)
{
	json_sep(j);
	fprintf(j->out, "%" PRId64, v);
}

void json__double(struct json *j, double v)
{
	json_sep(j);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json__bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->out);
}

void json__null(struct json *j)
{
	json_sep(j);
	fputs("null", j->out);
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
	fprintf(j->out, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
		(unsigned long long)(a % 1000));
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

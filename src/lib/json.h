/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal streaming JSON writer: one object per line, strings escaped. */
#ifndef IODIG_JSON_H
#define IODIG_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

#define JSON_BUF 4096

/* A line is made in buf and written to out when it ends (or buf fills). */
struct json {
	FILE *out;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool after_key;
	size_t len;
	char buf[JSON_BUF];
};

void json__init(struct json *j, FILE *out);
void json__obj_begin(struct json *j);
void json__obj_end(struct json *j);	/* at depth 0 also ends the line */
void json__arr_begin(struct json *j);
void json__arr_end(struct json *j);
void json__key(struct json *j, const char *key);
/* A key given as its JSON text, quotes and colon included ("name":), n bytes:
 * for keys made once and written often (fields.c's tables). */
void json__key_raw(struct json *j, const char *quoted, size_t n);
void json__str(struct json *j, const char *s);
void json__u64(struct json *j, uint64_t v);
void json__i64(struct json *j, int64_t v);
void json__double(struct json *j, double v);
void json__bool(struct json *j, bool v);
void json__null(struct json *j);
/* key + value in one call */
void json__kstr(struct json *j, const char *key, const char *s);
void json__ku64(struct json *j, const char *key, uint64_t v);
void json__kdouble(struct json *j, const char *key, double v);
/* ns as microseconds with three decimals, exactly (trace events' unit) */
void json__kmicros(struct json *j, const char *key, int64_t ns);
void json__micros(struct json *j, int64_t ns);	/* the value alone */
void json__kbool(struct json *j, const char *key, bool v);
void json__knull(struct json *j, const char *key);
/* key: an array of the space-separated words of s (s is not changed) */
void json__kwords(struct json *j, const char *key, const char *s);
void json__words(struct json *j, const char *s);	/* the array alone */
/* Write s as a quoted JSON string (exposed for tests). */
void json__escape(FILE *out, const char *s);

#endif

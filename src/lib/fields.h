/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record or row type, declared once: a table of fields that one printer
 * walks for JSON, for aligned text columns with their headings, and for the
 * schema (the files of tests/schema, made by `iodig schema`).  A command fills
 * its row structure and calls fields__json() or fields__text(); it formats
 * no field itself.  The counter table (counters.h) is the model, and
 * iproute2's print_*() (one call, text or JSON) the inspiration.
 *
 * A field is where its value is (a C type at an offset of the row, or a
 * getter), its JSON name (NULL: a text column only) and its text column
 * (head NULL: JSON only).  The text value is the JSON value, or tget's,
 * divided by tdiv, per second of the interval with FL_RATE.
 */
#ifndef IODIG_FIELDS_H
#define IODIG_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json;
struct counter;

/* A value, as a getter gives it. */
struct fval {
	enum { V_NULL, V_U64, V_I64, V_DBL, V_STR, V_BOOL } k;
	union {
		uint64_t u;
		int64_t i;
		double d;
		const char *s;
		bool b;
	};
};

/* What a printer call knows beyond the row. */
struct fctx {
	unsigned mode;		/* a bit: fields with `only` keep to the modes they name */
	double secs;		/* the interval, for FL_RATE */
	uint64_t interval;	/* FS_INTERVAL: the report's number */
	const char *by;		/* FS_BY: what the rows are keyed by */
	const void *user;	/* the command's own, for its getters */
};

#define FIELDS_BUF 4096	/* room for a string a getter makes */

/* buf (len bytes) is room for a string value the getter makes. */
typedef void (*fget_fn)(const void *row, const struct fctx *c, struct fval *v, char *buf, size_t len);

enum fsrc {
	FS_U64, FS_U32, FS_U16, FS_I64, FS_I32, FS_DBL, FS_BOOL,
	FS_CHARS,	/* a char array in the row (a task's name), NUL-terminated */
	FS_PSTR,	/* a const char * in the row (NULL: null) */
	FS_DEVT,	/* a kernel dev_t (u32) in the row, as "major:minor" */
	FS_INTERVAL,	/* fctx.interval */
	FS_BY,		/* fctx.by */
	FS_GET,		/* get() */
	FS_OBJ,		/* a nested object: sub's fields of the same row; null when get() says V_NULL;
			 * with each(), of the row each(row, 0, ...) gives, null for none
			 * (sub may then hold this field again: a chain) */
	FS_COUNTERS,	/* the members of a counter table (counters.h) over the struct at off */
	/* Compound values, each written by one printer; where the value is: at
	 * off, or what each(row, 0, ...) returns when the field has each(). */
	FS_LIST,	/* an array: each() gives element i, or NULL after the last: a row
			 * of sub (an object of its fields), or with FL_STR a string;
			 * with FL_OBJECT an object instead, each element under the key
			 * each() names */
	FS_HIST,	/* a latency histogram (struct hist), as the result model writes
			 * one (hist__json): an object */
	FS_LOG2,	/* nsub uint64_t log2 slots (hist__json_log2): an array */
	FS_FRAMES,	/* a stack (struct frames, frames.h): an array of frames */
	FS_WORDS,	/* a string of space-separated words: an array of them */
	FS_TEXT,	/* text only, in lines: fmt as it is (a literal) */
};

enum {
	FL_NULLABLE = 1 << 0,	/* the schema says TYPE|null */
	FL_RATE = 1 << 1,	/* text: per second (divided by fctx.secs) */
	FL_TAIL = 1 << 2,	/* text: after the columns, no heading, only when not null */
	/* a getter's JSON type, for the schema (the row's C type says it otherwise) */
	FL_NUMBER = 1 << 3,
	FL_INT = 1 << 4,
	FL_STR = 1 << 5,
	FL_BOOL = 1 << 6,
	FL_ARRAY = 1 << 7,
	FL_OBJECT = 1 << 9,
	FL_SAFE = 1 << 8,	/* text: tget's string is already escaped (text__safe) */
	FL_OMIT_NULL = 1 << 10,	/* JSON: no member at all when null (the schema: optional) */
	FL_MICROS = 1 << 11,	/* JSON: ns written as microseconds, exactly (3 decimals) */
	FL_MAX_NULL = 1 << 12 | FL_NULLABLE,	/* FS_U64: all ones means none (a flush's sector) */
	FL_FOLDED = 1 << 14,	/* FS_FRAMES in lines: folded (";a;b"), fmt each frame's suffix */
	FL_DUR = 1 << 13,	/* text: ns as a duration with its unit (fmt_ns: 1.2us, 3.40ms) */
};

struct field {
	const char *name;	/* JSON key; NULL: text only */
	enum fsrc src;
	size_t off;
	fget_fn get;		/* FS_GET; FS_OBJ: presence */
	unsigned flags;
	unsigned only;		/* 0: every mode; else the modes (fctx.mode bits) that have it */
	const char *head;	/* text column heading; NULL: not in text */
	const char *fmt;	/* text: one printf conversion (%8.0f, %-16s, %7u: the
				 * length modifier is added), literal text around it */
	int hw;			/* heading (and "-" for null) width when not the
				 * conversion's (negative: left) */
	double tdiv;		/* text: the value divided by this (0: as it is) */
	fget_fn tget;		/* text: this value instead of the JSON one */
	/* FS_LIST: element i of the row's list, or NULL when there are no
	 * more; scratch is FIELDS_BUF bytes to build it in, c a copy the
	 * element is printed with (each() may set its mode), key (FL_OBJECT)
	 * its member's name.  Other compound fields: the value, at i 0. */
	const void *(*each)(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key);
	int (*width)(const struct fctx *c);	/* text: the conversion's width, when it
						 * depends on the run (disk names present) */
	const void *sub;	/* FS_OBJ, FS_LIST: its struct rec; FS_COUNTERS: the counter table */
	size_t nsub;		/* FS_COUNTERS: the table's length; FS_LOG2: the slots */
};

/* A record type: "type" first in its JSON, then the fields. */
struct rec {
	const char *type;	/* NULL: a nested object */
	const char *schema;	/* its tests/schema file, without .json */
	const char *desc;
	const struct field *f;
	size_t n;
	bool lines;	/* its text is lines (fields__lines), not columns */
};

#define FIELDS_N(t) (sizeof(t) / sizeof((t)[0]))
#define REC(type, schema, desc, table) { type, schema, desc, table, FIELDS_N(table) }
#define REC_LINES(type, schema, desc, table) { type, schema, desc, table, FIELDS_N(table), true }

/* The record as one JSON object (a line at depth 0). */
void fields__json(struct json *j, const struct rec *r, const void *row, const struct fctx *c);
/* Members only, into an object the caller opened. */
void fields__json_members(struct json *j, const struct rec *r, const void *row, const struct fctx *c);
/* The text headings of the mode's columns, and one row under them. */
void fields__head(FILE *out, const struct rec *r, const struct fctx *c);
void fields__text(FILE *out, const struct rec *r, const void *row, const struct fctx *c);
/* The record as text lines: each field with a text conversion, in the
 * table's order, its fmt holding the literal text around its value ("[%u/",
 * "  %.2f ms\n"); a null value prints nothing, not even that text.  A
 * literal (FS_TEXT, or any non-null field whose fmt has no conversion)
 * prints fmt.  Compound fields: FS_OBJ, when present, prints fmt then its
 * sub's lines over the same row; FS_LIST fmt before its first element, then
 * each element's lines; FS_FRAMES a frame a line, fmt the indent (FL_FOLDED:
 * frames__folded, fmt the suffix); FS_LOG2
 * the log2 picture, fmt its unit; FS_COUNTERS the counters' lines. */
void fields__lines(FILE *out, const struct rec *r, const void *row, const struct fctx *c);
/* The record's schema, as tests/schema/check.py reads it; modes: every
 * mode the record is printed in (a field not in all of them is optional). */
void fields__schema(FILE *out, const struct rec *r, unsigned modes);

/* A table's own mistakes, or NULL: text that is never printed (a conversion
 * with neither heading nor FL_TAIL), a field with no name and no text, a
 * getter missing, a field's type unknown to the schema. */
const char *fields__lint(const struct rec *r);

/* One value formatted by a field's text conversion (exposed for tests). */
void fields__format(char *out, size_t len, const char *fmt, const struct fval *v);

#endif

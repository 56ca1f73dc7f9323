// SPDX-License-Identifier: GPL-2.0
/* A record declared once (fields.h): its JSON, its text columns under their
 * headings, and its schema all come from the one table. */
#include <stddef.h>
#include <string.h>
#include "check.h"
#include "counters.h"
#include "fields.h"
#include "frames.h"
#include "json.h"

struct row {
	uint32_t pid;
	char comm[16];
	uint64_t reads, bytes;
	int64_t rem;
	uint64_t seen, lost;
	const char *name;
};

static void g_ratio(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct row *r = row;

	if (r->reads) {
		v->k = V_DBL;
		v->d = (double)r->bytes / r->reads;
	}
}

static void g_tail(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct row *r = row;

	if (r->name) {
		snprintf(b, n, "%s!", r->name);
		v->k = V_STR;
		v->s = b;
	}
}

static const struct counter counts[] = {
	{ "seen", 0, "%llu seen" },
	{ "lost", 8, "%llu lost" },
};

static const struct field sub_f[] = {
	{ "pid", FS_U32, offsetof(struct row, pid) },
};
static const struct rec sub = REC(NULL, NULL, NULL, sub_f);

static const struct field f[] = {
	{ "pid", FS_U32, offsetof(struct row, pid), .head = "PID", .fmt = "%6u" },
	{ "comm", FS_CHARS, offsetof(struct row, comm), .head = "COMM", .fmt = "%-8s", .only = 1 },
	{ "reads", FS_U64, offsetof(struct row, reads), .head = "R/s", .fmt = "%6.1f", .flags = FL_RATE },
	{ "bytes", FS_U64, offsetof(struct row, bytes), .head = "KB", .fmt = "%5.0f", .tdiv = 1024 },
	{ "per_read", FS_GET, .get = g_ratio, .flags = FL_NUMBER | FL_NULLABLE, .head = "AVG", .fmt = "%5.0f" },
	{ "rem", FS_I64, offsetof(struct row, rem), .head = "REM", .fmt = "%+5d%%", .hw = 6 },
	{ "me", FS_OBJ, .only = 2, .sub = &sub },
	{ NULL, FS_GET, .tget = g_tail, .flags = FL_TAIL, .fmt = "  tail %s" },
	{ "c", FS_COUNTERS, offsetof(struct row, seen), .sub = counts, .nsub = 2 },
};
static const struct rec rec = REC("t", "t", "a test row", f);

/* the rest of the sources: a dev_t, the report's interval and key, a
 * member left out when null, a run-sized width, a value written by hand */
struct row2 {
	uint32_t dev;
	const char *maybe;
	uint64_t sector;
};

static int w_sector(const struct fctx *c)
{
	return 6;
}

static const void *e_words(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return "a b";
}

/* a list of 3 numbers as objects {"n": i}, under keys "k0".. with FL_OBJECT;
 * each element printed in the mode each() sets */
struct elem { uint64_t n; };
static const struct field elem_f[] = { { "n", FS_U64, 0 }, { "odd", FS_U64, 0, .only = 2 } };
static const struct rec elem_rec = REC(NULL, NULL, NULL, elem_f);

static const void *e_list(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	static const char *const keys[] = { "k0", "k1", "k2" };
	struct elem *e = scratch;

	if (i >= 3)
		return NULL;
	e->n = i;
	c->mode = i & 1 ? 2 : 1;
	*key = keys[i];
	return e;
}

static const struct field f2[] = {
	{ "interval", FS_INTERVAL },
	{ "by", FS_BY },
	{ "dev", FS_DEVT, offsetof(struct row2, dev), .head = "DEV", .fmt = "%-6s" },
	{ "maybe", FS_PSTR, offsetof(struct row2, maybe), .flags = FL_OMIT_NULL },
	{ "sector", FS_U64, offsetof(struct row2, sector), .head = "SECTOR", .fmt = "%-llu", .width = w_sector },
	{ "words", FS_WORDS, .each = e_words },
	{ "list", FS_LIST, .each = e_list, .sub = &elem_rec },
	{ "map", FS_LIST, .each = e_list, .sub = &elem_rec, .flags = FL_OBJECT },
};
static const struct rec rec2 = REC("t2", "t2", "more", f2);

static char buf[4096];

/* for the lines test */
struct lrow { const char *name; uint64_t ns, gone; int64_t rem; const char *none; int n; };
struct lel { uint64_t v; };

static const void *each(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	struct lel *e = scratch;

	if ((int)i >= ((const struct lrow *)row)->n)
		return NULL;
	e->v = 10 * (i + 1);
	return e;
}

static void nonzero(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct lrow *)row)->rem)
		v->k = V_BOOL;
}

static const void *frames_of(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return row;
}

static FILE *open_buf(void)
{
	memset(buf, 0, sizeof(buf));
	return fmemopen(buf, sizeof(buf), "w");
}

/* a record that nests itself through FS_OBJ with each(): a chain of links,
 * each printed over the next row, null (JSON) or nothing (text) at its end */
struct link {
	const char *name;
	const struct link *next;
};

static const void *e_next(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return i ? NULL : ((const struct link *)row)->next;
}

static const struct rec link_rec;
static const struct field link_f[] = {
	{ "name", FS_PSTR, offsetof(struct link, name), .fmt = " <- %s" },
	{ "next", FS_OBJ, .each = e_next, .sub = &link_rec, .flags = FL_NULLABLE, .fmt = ";" },
};
static const struct rec link_rec = REC_LINES("link", NULL, NULL, link_f);

static void test_chain(void)
{
	struct link c = { "c", NULL }, b = { "b", &c }, a = { "a", &b };
	struct fctx fc = { 0 };
	struct json j;
	FILE *out = open_buf();

	json__init(&j, out);
	fields__json(&j, &link_rec, &a, &fc);
	fclose(out);
	CHECK(!strcmp(buf, "{\"type\":\"link\",\"name\":\"a\",\"next\":{\"name\":\"b\",\"next\":"
			   "{\"name\":\"c\",\"next\":null}}}\n"), "a chain in JSON: %s", buf);
	out = open_buf();
	fields__lines(out, &link_rec, &a, &fc);
	fclose(out);
	CHECK(!strcmp(buf, " <- a; <- b; <- c"), "a chain in text: '%s'", buf);
	CHECK(fields__lint(&link_rec) == NULL, "a record that nests itself passes lint (once): %s",
	      fields__lint(&link_rec));
}

/* fields.c writes the common conversions by hand: the same bytes as
 * printf's, ties and signs included, over values of every size. */
static void test_quick_format(void)
{
	static const char *const ffmt[] = { "%8.3f", "%-9.3f", "%9.3f", "%.1f", "%.0f", "%f", "%-4.2f ms", "x%12.6f|",
					    "%08.3f" };
	static const char *const ifmt[] = { "%-7u", "%8u", "%u", "%-llu", "%d", "%-5d|", "%6lld", "%05u" };
	static const double fixed[] = { 0, -0.0, 0.0005, 0.0015, 0.0025, 1.0005, 2.5, 0.5, -0.5, -0.0001, 123456.7895,
					1e11, 1e12 + 0.5, 1e15, 4.2719999999, 0.1, 0.7, 1e-9, -3.14159, 9.9995, 99.9995 };
	uint64_t seed = 88172645463325252ull;
	int bad = 0;

	for (int i = 0; i < 200000 && bad < 5; i++) {
		char got[128], want[128];
		struct fval v;
		const char *f;
		double d;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		if (i % 2) {	/* integers */
			f = ifmt[seed % 8];
			v = (struct fval){ .k = V_U64, .u = seed >> (seed % 64) };
			if (f[strlen(f) - 1] == 'd' || strchr(f, 'd')) {
				v.k = V_I64;
				v.i = (int64_t)(seed >> (seed % 64)) * ((seed & 1) ? -1 : 1);
				snprintf(want, sizeof(want), strchr(f, 'l') ? f : "%lld", (long long)v.i);
				if (!strchr(f, 'l')) {	/* the width and text around, as fields.c adds ll */
					char ff[32];
					const char *c = strchr(f, 'd');

					snprintf(ff, sizeof(ff), "%.*sll%s", (int)(c - f), f, c);
					snprintf(want, sizeof(want), ff, (long long)v.i);
				}
			} else {
				char ff[32];
				const char *c = strchr(f, 'u');
				const char *l = strchr(f, 'l');

				snprintf(ff, sizeof(ff), "%.*sll%s", (int)((l ? l : c) - f), f, c);
				snprintf(want, sizeof(want), ff, (unsigned long long)v.u);
			}
		} else {
			f = ffmt[seed % 9];
			if (i < 2 * (int)(sizeof(fixed) / sizeof(fixed[0])))
				d = fixed[i / 2];
			else if (seed & 2)	/* ns as ms, s: what snoop prints */
				d = (double)(seed % 100000000000ull) / ((seed & 4) ? 1e6 : 1e9);
			else		/* any bits */
				memcpy(&d, &seed, sizeof(d));
			v = (struct fval){ .k = V_DBL, .d = d };
			snprintf(want, sizeof(want), f, d);
		}
		fields__format(got, sizeof(got), f, &v);
		if (strcmp(got, want)) {
			bad++;
			CHECK(0, "'%s' of value %d: '%s', printf '%s'", f, i, got, want);
		}
	}
	CHECK(!bad, "the quick conversions match printf's");
}

/* fields.c writes a table's keys from text made once (json_keys_of); a
 * name JSON must escape still goes through the escaping writer, every
 * time, and the same table printed twice reads the same */
static const struct field odd_f[] = {
	{ "plain", FS_U32, offsetof(struct row, pid) },
	{ "q\"x\\", FS_U32, offsetof(struct row, pid) },
};
static const struct rec odd_rec = REC("odd", NULL, NULL, odd_f);

static void test_escaped_key(void)
{
	struct row r = { .pid = 5 };
	struct fctx c = { 0 };
	struct json j;

	for (int i = 0; i < 2; i++) {
		FILE *out = open_buf();

		json__init(&j, out);
		fields__json(&j, &odd_rec, &r, &c);
		fclose(out);
		CHECK(!strcmp(buf, "{\"type\":\"odd\",\"plain\":5,\"q\\\"x\\\\\":5}\n"), "escaped key, pass %d: %s", i, buf);
	}
}

int main(void)
{
	struct row r = { 42, "a\033b", 10, 20480, -3, 7, 1, "x" };
	struct fctx c1 = { .mode = 1, .secs = 2 }, c2 = { .mode = 2, .secs = 2 };
	struct json j;
	FILE *out;

	out = open_buf();
	json__init(&j, out);
	fields__json(&j, &rec, &r, &c1);
	fclose(out);
	CHECK(!strcmp(buf, "{\"type\":\"t\",\"pid\":42,\"comm\":\"a\\u001bb\",\"reads\":10,\"bytes\":20480,"
			   "\"per_read\":2048,\"rem\":-3,\"seen\":7,\"lost\":1}\n"), "json mode 1: %s", buf);

	out = open_buf();
	json__init(&j, out);
	r.reads = 0;
	fields__json(&j, &rec, &r, &c2);
	fclose(out);
	CHECK(!strcmp(buf, "{\"type\":\"t\",\"pid\":42,\"reads\":0,\"bytes\":20480,\"per_read\":null,\"rem\":-3,"
			   "\"me\":{\"pid\":42},\"seen\":7,\"lost\":1}\n"), "json mode 2 (a null, an object): %s", buf);

	r.reads = 10;
	out = open_buf();
	fields__head(out, &rec, &c1);
	fields__text(out, &rec, &r, &c1);
	fclose(out);
	/* per second, scaled, signed, the control byte escaped, the tail last */
	CHECK(!strcmp(buf, "   PID COMM        R/s    KB   AVG    REM\n"
			   "    42 a\\x1bb      5.0    20  2048    -3%  tail x!\n"), "text:\n%s", buf);

	r.reads = 0;
	r.name = NULL;
	out = open_buf();
	fields__text(out, &rec, &r, &c2);
	fclose(out);
	CHECK(!strcmp(buf, "    42    0.0    20     -    -3%\n"), "text, a null and no tail: '%s'", buf);

	out = open_buf();
	fields__schema(out, &rec, 3);
	fclose(out);
	CHECK(!strcmp(buf, "{\n \"description\": \"a test row\",\n \"fields\": {\n  \"type\": \"string\",\n"
			   "  \"pid\": \"integer\",\n  \"reads\": \"integer\",\n  \"bytes\": \"integer\",\n"
			   "  \"per_read\": \"number|null\",\n  \"rem\": \"integer\",\n  \"seen\": \"integer\",\n"
			   "  \"lost\": \"integer\"\n },\n \"optional\": {\n  \"comm\": \"string\",\n"
			   "  \"me\": \"object\"\n }\n}\n"), "schema (an object without a getter is never null):\n%s", buf);

	{
#define LIST ",\"list\":[{\"n\":0},{\"n\":1,\"odd\":1},{\"n\":2}]" \
	     ",\"map\":{\"k0\":{\"n\":0},\"k1\":{\"n\":1,\"odd\":1},\"k2\":{\"n\":2}}"
		struct row2 r2 = { (8u << 20) | 17, NULL, 42 };
		struct fctx c3 = { .interval = 3, .by = "disk" };

		out = open_buf();
		json__init(&j, out);
		fields__json(&j, &rec2, &r2, &c3);
		r2.maybe = "x";
		fields__json(&j, &rec2, &r2, &c3);
		fclose(out);
		CHECK(!strcmp(buf, "{\"type\":\"t2\",\"interval\":3,\"by\":\"disk\",\"dev\":\"8:17\",\"sector\":42,\"words\":[\"a\",\"b\"]" LIST "}\n"
				   "{\"type\":\"t2\",\"interval\":3,\"by\":\"disk\",\"dev\":\"8:17\",\"maybe\":\"x\",\"sector\":42,\"words\":[\"a\",\"b\"]" LIST "}\n"),
		      "json: dev_t, interval, by, a null left out, arrays, an object of elements: %s", buf);
		out = open_buf();
		fields__head(out, &rec2, &c3);
		fields__text(out, &rec2, &r2, &c3);
		fclose(out);
		CHECK(!strcmp(buf, "DEV    SECTOR\n8:17   42    \n"), "text, a run-sized width: '%s'", buf);
		out = open_buf();
		fields__schema(out, &rec2, 0);
		fclose(out);
		CHECK(strstr(buf, "\"maybe\": \"string\"") && strstr(buf, "\"words\": \"array\"") &&
		      strstr(buf, "\"list\": \"array\"") && strstr(buf, "\"map\": \"object\"") &&
		      strstr(buf, "\"dev\": \"string\"") && strstr(buf, "\"interval\": \"integer\""), "schema: %s", buf);
		CHECK(strstr(buf, "\"optional\": {\n  \"maybe\""), "a member left out when null is optional: %s", buf);
	}
	{	/* the table's own mistakes: text never printed (a CI run caught
		 * snoop's " error=" tail lost this way), a getter missing */
		static const struct field lost[] = { { "status", FS_U64, 0, .fmt = " error=%s" } };
		static const struct field noget[] = { { "x", FS_GET, .flags = FL_INT } };
		static const struct rec r1 = REC("a", "a", "", lost), r2 = REC("b", "b", "", noget);
		const char *m;

		CHECK(fields__lint(&rec) == NULL && fields__lint(&rec2) == NULL, "good tables pass");
		CHECK((m = fields__lint(&r1)) && strstr(m, "never printed"), "text never printed: %s", m ? m : "(none)");
		CHECK((m = fields__lint(&r2)) && strstr(m, "without a getter"), "no getter: %s", m ? m : "(none)");
	}
	{	/* text as lines: each value inside its literal text, nothing at all
		 * for a null one, groups (FS_OBJ) printed when present, a list's
		 * text before its first element only, durations with their unit,
		 * folded frames, control bytes escaped */
		struct lrow lr = { "a\x1b", 1500, 0, -2500000, NULL, 2 };
		static const struct field el_f[] = { { NULL, FS_U64, 0, .fmt = " <%llu>" } };
		static const struct rec el = REC_LINES(NULL, NULL, NULL, el_f);
		static const struct field grp_f[] = { { NULL, FS_I64, offsetof(struct lrow, rem), .fmt = " rem %+.1f ms",
							.tdiv = 1e6 } };
		static const struct rec grp = REC_LINES(NULL, NULL, NULL, grp_f);
		const struct field lf[] = {
			{ "name", FS_PSTR, offsetof(struct lrow, name), .fmt = "%s:" },
			{ "ns", FS_U64, offsetof(struct lrow, ns), .fmt = " took %s", .flags = FL_DUR },
			{ "none", FS_PSTR, offsetof(struct lrow, none), .fmt = " NEVER %s" },
			{ NULL, FS_OBJ, .get = nonzero, .sub = &grp, .fmt = " {" },
			{ NULL, FS_LIST, .each = each, .sub = &el, .fmt = " list:" },
			{ NULL, FS_TEXT, .fmt = "\n" },
		};
		const struct rec lines = REC_LINES("l", NULL, "", lf);
		struct fctx c = {};
		FILE *out = open_buf();

		fields__lines(out, &lines, &lr, &c);
		lr.rem = 0;
		lr.n = 0;
		fields__lines(out, &lines, &lr, &c);
		fclose(out);
		CHECK(!strcmp(buf, "a\\x1b: took 1.5us { rem -2.5 ms list: <10> <20>\na\\x1b: took 1.5us\n"),
		      "lines: '%s'", buf);
		CHECK(fields__lint(&lines) == NULL, "a table of lines passes: %s", fields__lint(&lines));
		{	/* a record of lines printing columns' records is a mistake */
			static const struct field cf[] = { { "x", FS_U64, 0, .head = "X", .fmt = "%3llu" } };
			static const struct rec cols = REC(NULL, NULL, NULL, cf);
			const struct field bad_f[] = { { NULL, FS_OBJ, .sub = &cols, .fmt = "" } };
			const struct rec bad = REC_LINES("b", NULL, "", bad_f);
			const char *m = fields__lint(&bad);

			CHECK(m && strstr(m, "REC_LINES"), "lines of columns: %s", m ? m : "(none)");
		}
	}
	{	/* folded frames, the flame graph's input: outermost first, each with its suffix */
		struct frame fr[] = { { .addr = 0x10, .sym = "inner" }, { .addr = 0x20 }, { .addr = 0x30, .sym = "outer" } };
		struct frames k = { fr, 3 };
		const struct field ff[] = { { NULL, FS_FRAMES, .each = frames_of, .flags = FL_FOLDED, .fmt = "_[k]" } };
		const struct rec folded = REC_LINES(NULL, NULL, "", ff);
		struct fctx c = {};
		FILE *out = open_buf();

		fields__lines(out, &folded, &k, &c);
		fclose(out);
		CHECK(!strcmp(buf, ";outer_[k];[0x20]_[k];inner_[k]"), "folded: '%s'", buf);
	}
	{
		struct fval v = { .k = V_U64, .u = 18446744073709551615ull };
		char s[64];

		fields__format(s, sizeof(s), "%24llu", &v);
		CHECK(!strcmp(s, "    18446744073709551615"), "a u64 in %%24llu: '%s'", s);
		fields__format(s, sizeof(s), "%x", &v);
		CHECK(!strcmp(s, "ffffffffffffffff"), "a u64 in %%x: '%s'", s);
	}
	test_chain();
	test_escaped_key();
	test_quick_format();
	CHECK_DONE();
}

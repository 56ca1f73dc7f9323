// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "check.h"
#include "hist_user.h"
#include "json.h"

static char *render(void (*fn)(struct json *, const void *), const void *arg)
{
	static char buf[65536];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json__init(&j, f);
	fn(&j, arg);
	fclose(f);
	return buf;
}

static void one_string(struct json *j, const void *s)
{
	json__obj_begin(j);
	json__kstr(j, "s", s);
	json__obj_end(j);
}

static void nested(struct json *j, const void *unused)
{
	json__obj_begin(j);
	json__ku64(j, "a", 1);
	json__key(j, "b");
	json__arr_begin(j);
	json__u64(j, 2);
	json__arr_begin(j);
	json__u64(j, 3);
	json__u64(j, 4);
	json__arr_end(j);
	json__obj_begin(j);
	json__kbool(j, "c", true);
	json__obj_end(j);
	json__arr_end(j);
	json__kdouble(j, "d", 0.0 / 0.0);
	json__obj_end(j);
}

static void words(struct json *j, const void *s)
{
	json__obj_begin(j);
	json__kwords(j, "w", s);
	json__obj_end(j);
}

static void a_hist(struct json *j, const void *h)
{
	json__obj_begin(j);
	hist__json(h, j);
	json__obj_end(j);
}

int main(void)
{
	char *s;
	static struct hist h;

	s = render(one_string, "plain");
	CHECK(!strcmp(s, "{\"s\":\"plain\"}\n"), "%s", s);
	s = render(one_string, "q\"b\\n\nt\tc\x01\x1f\x7f" "é");
	CHECK(!strcmp(s, "{\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\\u007fé\"}\n"), "%s", s);
	/* bytes that are not UTF-8 (a stray continuation, a cut sequence, an
	 * overlong, a surrogate) and C1 controls: still valid JSON */
	s = render(one_string, "a\xff\x80" "b\xe2\x82" "c\xc0\xaf" "d\xed\xa0\x80" "e\xc2\x9b" "f\xe2\x82\xac");
	CHECK(!strcmp(s, "{\"s\":\"a\\u00ff\\u0080b\\u00e2\\u0082c\\u00c0\\u00afd\\u00ed\\u00a0\\u0080e\\u009bf\xe2\x82\xac\"}\n"), "%s", s);
	s = render(nested, NULL);
	CHECK(!strcmp(s, "{\"a\":1,\"b\":[2,[3,4],{\"c\":true}],\"d\":null}\n"), "%s", s);

	s = render(words, "sync fua  preflush");
	CHECK(!strcmp(s, "{\"w\":[\"sync\",\"fua\",\"preflush\"]}\n"), "%s", s);
	s = render(words, "");
	CHECK(!strcmp(s, "{\"w\":[]}\n"), "%s", s);
	s = render(words, "a\"b");
	CHECK(!strcmp(s, "{\"w\":[\"a\\\"b\"]}\n"), "%s", s);

	hist__add(&h, 5);
	hist__add(&h, 100);
	s = render(a_hist, &h);
	CHECK(strstr(s, "\"count\":2,\"sum_ns\":105,\"min_ns\":5,") != NULL, "%s", s);
	CHECK(strstr(s, "\"buckets\":[[5,6,1],[100,104,1]]") != NULL, "%s", s);
	CHECK(strchr(s, '\n') == s + strlen(s) - 1, "one line: %s", s);
	CHECK_DONE();
}

// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "text.h"

static const char *safe(const char *s)
{
	static char buf[TEXT_SAFE_LEN(64)];

	return text__safe(s, buf, sizeof(buf));
}

/* text__u64 writes what printf's %llu does, without a NUL */
static int u64_as_printf(uint64_t v)
{
	char got[24], want[24];
	size_t n = text__u64(got, v);

	got[n] = '\0';
	snprintf(want, sizeof(want), "%" PRIu64, v);
	CHECK(!strcmp(got, want), "text__u64(%s) wrote %s", want, got);
	return !strcmp(got, want);
}

int main(void)
{
	char small[8];
	uint64_t p10 = 1;
	int bad = 0;

	/* every value below 100,000, then each power of 10 and its
	 * neighbours, and the largest */
	for (uint64_t v = 0; v < 100000 && !bad; v++)
		bad = !u64_as_printf(v);
	for (int i = 0; i < 20; i++, p10 *= 10)
		u64_as_printf(p10 - 1), u64_as_printf(p10), u64_as_printf(p10 + 1);
	u64_as_printf(UINT64_MAX);

	CHECK(text__utf8_len((const unsigned char *)"a") == 1, "ascii");
	CHECK(text__utf8_len((const unsigned char *)"\xc3\xa9") == 2, "é");
	CHECK(text__utf8_len((const unsigned char *)"\xe2\x82\xac") == 3, "€");
	CHECK(text__utf8_len((const unsigned char *)"\xf0\x9f\x92\xbe") == 4, "floppy");
	CHECK(text__utf8_len((const unsigned char *)"\x80") == 0, "continuation");
	CHECK(text__utf8_len((const unsigned char *)"\xc0\xaf") == 0, "overlong /");
	CHECK(text__utf8_len((const unsigned char *)"\xe0\x80\xaf") == 0, "overlong 3");
	CHECK(text__utf8_len((const unsigned char *)"\xed\xa0\x80") == 0, "surrogate");
	CHECK(text__utf8_len((const unsigned char *)"\xf4\x90\x80\x80") == 0, "past U+10FFFF");
	CHECK(text__utf8_len((const unsigned char *)"\xe2\x82") == 0, "cut short");

	CHECK(!strcmp(safe("fio"), "fio"), "%s", safe("fio"));
	CHECK(!strcmp(safe("caf\xc3\xa9"), "caf\xc3\xa9"), "%s", safe("caf\xc3\xa9"));
	/* ESC [ 2 J clears the screen; a newline would forge a line */
	CHECK(!strcmp(safe("\x1b[2Jx\ny\r\t\x7f"), "\\x1b[2Jx\\x0ay\\x0d\\x09\\x7f"), "%s", safe("\x1b[2Jx\ny"));
	/* 8-bit CSI, as a byte and as UTF-8 U+009B */
	CHECK(!strcmp(safe("a\x9b" "b\xc2\x9b" "c"), "a\\x9bb\\xc2\\x9bc"), "%s", safe("a\x9b" "b\xc2\x9b" "c"));
	CHECK(!strcmp(safe("a\\x41"), "a\\\\x41"), "%s", safe("a\\x41"));
	CHECK(!strcmp(safe("\xff\xfe"), "\\xff\\xfe"), "%s", safe("\xff\xfe"));
	/* cut to fit, never inside an escape */
	CHECK(!strcmp(text__safe("abc\x1b" "def", small, 7), "abc"), "%s", small);
	CHECK(!strcmp(text__safe("abc\x1b" "def", small, 8), "abc\\x1b"), "%s", small);
	CHECK(!strcmp(text__safe("abcdefghij", small, sizeof(small)), "abcdefg"), "%s", small);
	CHECK_DONE();
}

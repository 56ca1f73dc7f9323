// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include "text.h"

size_t text__utf8_len(const unsigned char *p)
{
	unsigned int c = p[0], n, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

const char *text__safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		size_t n = text__utf8_len(p);
		/* U+0080..U+009F (C2 80..C2 9F) are the C1 controls: CSI among them */
		int c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;

		if (n == 1 && *p >= 0x20 && *p != 0x7f && *p != '\\') {
			if (o + 1 >= len)
				break;
			buf[o++] = *p++;
		} else if (n == 1 && *p == '\\') {
			if (o + 2 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = '\\';
			p++;
		} else if (n > 1 && !c1) {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {	/* one byte at a time: a C1 control is two */
			if (o + 4 >= len)
				break;
			snprintf(buf + o, 5, "\\x%02x", *p++);
			o += 4;
		}
	}
	buf[o] = '\0';
	return buf;
}

const char *text__ret(int64_t ret, char *buf, size_t len)
{
	const char *n = ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;

	if (n)
		return n;
	snprintf(buf, len, "%lld", (long long)ret);
	return buf;
}

size_t text__u64(char *b, uint64_t v)
{
	/* two digits a division: the readers print a dozen numbers a row */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[20];
	size_t i = sizeof(t), n;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		t[--i] = pairs[2 * r + 1];
		t[--i] = pairs[2 * r];
	}
	if (v >= 10) {
		t[--i] = pairs[2 * v + 1];
		t[--i] = pairs[2 * v];
	} else {
		t[--i] = (char)('0' + v);
	}
	n = sizeof(t) - i;
	memcpy(b, t + i, n);
	return n;
}

bool text__is_decimal(const char *s, bool fraction)
{
	const char *p = s;

	if (!s)
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return false;
	if (fraction && *p == '.') {
		const char *f = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == f)
			return false;
	}
	return *p == '\0';
}

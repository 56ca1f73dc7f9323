// SPDX-License-Identifier: GPL-2.0
#include "counters.h"
#include "json.h"

static uint64_t value(const struct counter *c, const void *v)
{
	return *(const uint64_t *)((const char *)v + c->off);
}

static int kept(const struct counter *c, unsigned mode)
{
	return !c->only || (c->only & mode);
}

void counters__json(struct json *j, const struct counter *t, size_t n, const void *v, unsigned mode)
{
	for (size_t i = 0; i < n; i++) {
		if (kept(&t[i], mode))
			json__ku64(j, t[i].name, value(&t[i], v));
		else
			json__knull(j, t[i].name);
	}
}

void counters__lines(FILE *out, const struct counter *t, size_t n, const void *v, unsigned mode)
{
	for (size_t i = 0; i < n; i++) {
		if (!t[i].text || !kept(&t[i], mode) || !value(&t[i], v))
			continue;
		fprintf(out, t[i].text, (unsigned long long)value(&t[i], v));
		fputc('\n', out);
	}
}

void counters__sentence(FILE *out, const struct counter *t, size_t n, const void *v, unsigned mode)
{
	const char *sep = "";

	for (size_t i = 0; i < n; i++) {
		if (!t[i].text || !kept(&t[i], mode))
			continue;
		fputs(sep, out);
		fprintf(out, t[i].text, (unsigned long long)value(&t[i], v));
		sep = ", ";
	}
	fputc('\n', out);
}

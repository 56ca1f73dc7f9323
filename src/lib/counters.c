// SPDX-License-Identifier: GPL-2.0
#include "counters.h"
#include "json.h"

static uint64_t value(const struct counter *c, const void *v)
{
	return *(const uint64_t *)((const char *)v + c->off);
}

/* One counter's text, its value signed or not as the table says. */
static void print_text(FILE *out, const struct counter *c, const void *v)
{
	if (c->sgn)
		fprintf(out, c->text, (long long)value(c, v));
	else
		fprintf(out, c->text, (unsigned long long)value(c, v));
}

static int kept(const struct counter *c, unsigned mode)
{
	return !c->only || (c->only & mode);
}

void counters__json(struct json *j, const struct counter *t, size_t n, const void *v, unsigned mode)
{
	for (size_t i = 0; i < n; i++) {
		if (!kept(&t[i], mode)) {
			json__knull(j, t[i].name);
		} else if (t[i].sgn) {
			json__key(j, t[i].name);
			json__i64(j, (int64_t)value(&t[i], v));
		} else {
			json__ku64(j, t[i].name, value(&t[i], v));
		}
	}
}

void counters__lines(FILE *out, const struct counter *t, size_t n, const void *v, unsigned mode)
{
	for (size_t i = 0; i < n; i++) {
		if (!t[i].text || !kept(&t[i], mode) || !value(&t[i], v))
			continue;
		print_text(out, &t[i], v);
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
		print_text(out, &t[i], v);
		sep = ", ";
	}
	fputc('\n', out);
}

// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hist_user.h"
#include "prom.h"

/* 2^10 ns (1.024 us) to 2^34 ns (17.2 s), with 1.5 * 2^k between */
#define PROM_LO_LOG2	10
#define PROM_HI_LOG2	34
#define PROM_NB		(2 * (PROM_HI_LOG2 - PROM_LO_LOG2) + 1)

static uint64_t bounds[PROM_NB];

int prom__bounds(const uint64_t **b)
{
	if (!bounds[0])
		for (int k = PROM_LO_LOG2, i = 0; k <= PROM_HI_LOG2; k++) {
			bounds[i++] = 1ULL << k;
			if (k < PROM_HI_LOG2)
				bounds[i++] = 3ULL << (k - 1);
		}
	*b = bounds;
	return PROM_NB;
}

static void put(struct prom *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = p->cap - p->len;

		va_start(ap, fmt);
		n = vsnprintf(p->buf ? p->buf + p->len : NULL, p->buf ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (p->buf && (size_t)n < room) {
			p->len += n;
			return;
		}
		size_t cap = p->cap ? 2 * p->cap : 65536;
		while (cap < p->len + n + 1)
			cap *= 2;
		char *b = realloc(p->buf, cap);

		if (!b) {
			p->oom = 1;
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
}

void prom__family(struct prom *p, const char *name, const char *type, const char *help)
{
	put(p, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void prom__sample(struct prom *p, const char *name, const char *labels, double v)
{
	put(p, labels[0] ? "%s{%s} %.17g\n" : "%s%s %.17g\n", name, labels, v);
}

void prom__sample_u64(struct prom *p, const char *name, const char *labels, uint64_t v)
{
	put(p, labels[0] ? "%s{%s} %llu\n" : "%s%s %llu\n", name, labels, (unsigned long long)v);
}

void prom__hist(struct prom *p, const char *name, const char *labels, const struct hist *h)
{
	const uint64_t *b;
	int nb = prom__bounds(&b), i = 0;
	uint64_t cum = 0;
	const char *sep = labels[0] ? "," : "";

	/* every slot of iodig's histogram ends at or below a bound, or past the last */
	for (unsigned int s = 0; s < HIST_SLOTS; s++) {
		uint64_t hi = hist__slot_hi(s);

		while (i < nb && hi > b[i]) {
			put(p, "%s_bucket{%s%sle=\"%.12g\"} %llu\n", name, labels, sep, b[i] / 1e9,
			    (unsigned long long)cum);
			i++;
		}
		cum += h->slots[s];
	}
	for (; i < nb; i++)
		put(p, "%s_bucket{%s%sle=\"%.12g\"} %llu\n", name, labels, sep, b[i] / 1e9, (unsigned long long)cum);
	put(p, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)h->count);
	put(p, labels[0] ? "%s_sum{%s} %.9f\n" : "%s_sum%s %.9f\n", name, labels, h->sum / 1e9);
	put(p, labels[0] ? "%s_count{%s} %llu\n" : "%s_count%s %llu\n", name, labels, (unsigned long long)h->count);
}

void prom__label(char *labels, size_t len, const char *key, const char *value)
{
	size_t n = strlen(labels);

	if (n && n + 1 < len)
		labels[n++] = ',';
	n += snprintf(labels + n, n < len ? len - n : 0, "%s=\"", key);
	for (const char *c = value; *c && n + 3 < len; c++) {
		if (*c == '\\' || *c == '"') {
			labels[n++] = '\\';
			labels[n++] = *c;
		} else if (*c == '\n') {
			labels[n++] = '\\';
			labels[n++] = 'n';
		} else {
			labels[n++] = *c;
		}
	}
	if (n + 1 < len) {
		labels[n++] = '"';
		labels[n] = '\0';
	}
}

void prom__free(struct prom *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "hist_user.h"

uint64_t hist__slot_lo(unsigned int slot)
{
	unsigned int e, sub;

	if (slot < HIST_SUB)
		return slot;
	e = slot / HIST_SUB + HIST_SUB_BITS - 1;
	sub = slot % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

uint64_t hist__slot_hi(unsigned int slot)
{
	if (slot >= HIST_SLOTS - 1)
		return UINT64_MAX;
	return hist__slot_lo(slot + 1);
}

void hist__add(struct hist *h, uint64_t v)
{
	hist_add_plain(h, v);
}

void hist__merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (int i = 0; i < HIST_SLOTS; i++)
		dst->slots[i] += src->slots[i];
}

uint64_t hist__percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;

	if (!h->count)
		return 0;
	/* nearest rank: the smallest value with at least p*count values <= it */
	rank = (uint64_t)(p * (double)h->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (int i = 0; i < HIST_SLOTS; i++) {
		seen += h->slots[i];
		if (seen < rank)
			continue;
		lo = hist__slot_lo(i);
		hi = hist__slot_hi(i);
		mid = hi == UINT64_MAX ? h->max : lo + (hi - 1 - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

void hist__summary(const struct hist *h, struct hist_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->count = h->count;
	if (!h->count)
		return;
	s->sum = h->sum;
	s->min = h->min;
	s->max = h->max;
	s->mean = (double)h->sum / (double)h->count;
	s->p50 = hist__percentile(h, 0.50);
	s->p90 = hist__percentile(h, 0.90);
	s->p99 = hist__percentile(h, 0.99);
	s->p999 = hist__percentile(h, 0.999);
}

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

static unsigned int row_of(uint64_t v)
{
	return v < 2 ? 0 : hist_log2(v);
}

/* Folds fine buckets into log2 rows of the unit; returns the last row used. */
static int fold_rows(const struct hist *h, uint64_t unit_ns, uint64_t rows[64])
{
	int last = -1;

	memset(rows, 0, 64 * sizeof(rows[0]));
	for (int i = 0; i < HIST_SLOTS; i++) {
		unsigned int r;

		if (!h->slots[i])
			continue;
		r = row_of(hist__slot_lo(i) / unit_ns);
		rows[r] += h->slots[i];
		if ((int)r > last)
			last = r;
	}
	return last;
}

void hist__print_columns(const struct hist *const *h, const char *const *names, int n,
			 FILE *out, uint64_t unit_ns, const char *unit_name)
{
	uint64_t rows[16][64];
	int last = -1;
	char buf[32];

	if (n > 16)
		n = 16;
	for (int c = 0; c < n; c++) {
		int l = fold_rows(h[c], unit_ns, rows[c]);

		if (l > last)
			last = l;
	}
	fprintf(out, "%*s%-*s :", 5, "", 19, unit_name);
	for (int c = 0; c < n; c++)
		fprintf(out, " %9s", names[c]);
	fputc('\n', out);
	for (int r = 0; r <= last; r++) {
		fprintf(out, "%10llu -> %-10llu :", r == 0 ? 0ULL : 1ULL << r, (2ULL << r) - 1);
		for (int c = 0; c < n; c++)
			fprintf(out, " %9llu", (unsigned long long)rows[c][r]);
		fputc('\n', out);
	}
	static const struct { const char *name; double p; } pct[] = {
		{ "p50", 0.50 }, { "p90", 0.90 }, { "p99", 0.99 }, { "p99.9", 0.999 },
	};
	fprintf(out, "%-24s :", "count");
	for (int c = 0; c < n; c++)
		fprintf(out, " %9llu", (unsigned long long)h[c]->count);
	fputc('\n', out);
	for (unsigned int k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		fprintf(out, "%-24s :", pct[k].name);
		for (int c = 0; c < n; c++)
			fprintf(out, " %9s", fmt_ns(buf, sizeof(buf), hist__percentile(h[c], pct[k].p)));
		fputc('\n', out);
	}
	fprintf(out, "%-24s :", "max");
	for (int c = 0; c < n; c++)
		fprintf(out, " %9s", fmt_ns(buf, sizeof(buf), h[c]->max));
	fputc('\n', out);
}

void hist__print(const struct hist *h, FILE *out, uint64_t unit_ns, const char *unit_name)
{
	uint64_t rows[64], top = 0;
	const int width = 40;
	/* A fine bucket goes to the log2 row of its lower bound in the unit;
	 * the rows are for the eye, the percentiles come from fine buckets. */
	int last = fold_rows(h, unit_ns, rows);

	for (int r = 0; r <= last; r++)
		if (rows[r] > top)
			top = rows[r];
	fprintf(out, "%*s%-*s : count    distribution\n", 5, "", 19, unit_name);
	for (int r = 0; r <= last; r++) {
		uint64_t lo = r == 0 ? 0 : 1ULL << r;
		uint64_t hi = (2ULL << r) - 1;
		int stars = top ? (int)(rows[r] * width / top) : 0;

		fprintf(out, "%10llu -> %-10llu : %-8llu |%-*.*s|\n",
			(unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)rows[r], width, stars,
			"****************************************");
	}
	hist__print_summary(h, out);
}

void hist__print_summary(const struct hist *h, FILE *out)
{
	struct hist_summary s;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	hist__summary(h, &s);
	if (!s.count) {
		fprintf(out, "count 0\n");
		return;
	}
	fprintf(out, "count %llu  min %s  mean %s  max %s  p50 %s  p90 %s  p99 %s  p99.9 %s  (percentiles within %.1f%%)\n",
		(unsigned long long)s.count, fmt_ns(a, sizeof(a), s.min),
		fmt_ns(b, sizeof(b), (uint64_t)s.mean), fmt_ns(c, sizeof(c), s.max),
		fmt_ns(d, sizeof(d), s.p50), fmt_ns(e, sizeof(e), s.p90),
		fmt_ns(f, sizeof(f), s.p99), fmt_ns(g, sizeof(g), s.p999),
		HIST_REL_ERR * 100);
}

void hist__json(const struct hist *h, struct json *j)
{
	struct hist_summary s;

	hist__summary(h, &s);
	json__ku64(j, "count", s.count);
	json__ku64(j, "sum_ns", s.sum);
	json__ku64(j, "min_ns", s.min);
	json__kdouble(j, "mean_ns", s.mean);
	json__ku64(j, "max_ns", s.max);
	json__ku64(j, "p50_ns", s.p50);
	json__ku64(j, "p90_ns", s.p90);
	json__ku64(j, "p99_ns", s.p99);
	json__ku64(j, "p999_ns", s.p999);
	json__kdouble(j, "percentile_rel_err", HIST_REL_ERR);
	json__key(j, "buckets");
	json__arr_begin(j);
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		json__arr_begin(j);
		json__u64(j, hist__slot_lo(i));
		json__u64(j, hist__slot_hi(i));
		json__u64(j, h->slots[i]);
		json__arr_end(j);
	}
	json__arr_end(j);
}

void hist__json_log2(struct json *j, const uint64_t *slots, int n)
{
	json__arr_begin(j);
	for (int s = 0; s < n; s++) {
		if (!slots[s])
			continue;
		json__arr_begin(j);
		json__u64(j, 1ULL << s);
		json__u64(j, 1ULL << (s + 1));
		json__u64(j, slots[s]);
		json__arr_end(j);
	}
	json__arr_end(j);
}

void hist__print_log2(FILE *out, const uint64_t *slots, int n, const char *unit)
{
	uint64_t most = 0;

	fprintf(out, "%21s : %-9s distribution\n", unit, "count");
	for (int s = 0; s < n; s++)
		if (slots[s] > most)
			most = slots[s];
	for (int s = 0; s < n; s++) {
		char bar[41];
		int w = most ? (int)(40 * slots[s] / most) : 0;

		if (!slots[s])
			continue;
		memset(bar, '*', w);
		bar[w] = '\0';
		fprintf(out, "%10llu -> %-8llu : %-9llu |%-40s|\n", 1ULL << s, (1ULL << (s + 1)) - 1,
			(unsigned long long)slots[s], bar);
	}
}

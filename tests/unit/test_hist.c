// SPDX-License-Identifier: GPL-2.0
/* Bucketing and percentiles against a sorted array, with the error bound. */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "hist_user.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t exact_pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n + 0.999999999);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^ (uint64_t)random();
}

static void check_set(const char *name, uint64_t *v, size_t n)
{
	static struct hist h;
	static const double ps[] = { 0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	uint64_t sum = 0;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		hist__add(&h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(v[0]), cmp_u64);
	CHECK(h.count == n, "%s: count %llu != %zu", name, (unsigned long long)h.count, n);
	CHECK(h.sum == sum, "%s: sum", name);
	CHECK(h.min == v[0] && h.max == v[n - 1], "%s: min/max", name);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t want = exact_pct(v, n, ps[i]), got = hist__percentile(&h, ps[i]);
		double err = want ? ((double)got - (double)want) / (double)want : (double)got;

		if (err < 0)
			err = -err;
		/* values beyond the last slot are only bounded by [min, max] */
		if (want >= (1ULL << HIST_MAX_LOG2))
			continue;
		CHECK(err <= HIST_REL_ERR, "%s: p%g exact %llu got %llu err %.4f > %.4f", name,
		      ps[i] * 100, (unsigned long long)want, (unsigned long long)got, err, HIST_REL_ERR);
	}
}

int main(void)
{
	enum { N = 100000 };
	static uint64_t v[N];

	/* slots: monotone, contiguous, every value inside its own slot */
	for (unsigned int s = 0; s + 1 < HIST_SLOTS; s++) {
		CHECK(hist__slot_lo(s) < hist__slot_hi(s), "slot %u empty", s);
		CHECK(hist__slot_hi(s) == hist__slot_lo(s + 1), "slot %u not contiguous", s);
		CHECK(hist_slot(hist__slot_lo(s)) == s, "lo of slot %u maps to %u", s, hist_slot(hist__slot_lo(s)));
		CHECK(hist_slot(hist__slot_hi(s) - 1) == s, "hi-1 of slot %u", s);
		if (hist__slot_lo(s) >= HIST_SUB)
			CHECK((double)(hist__slot_hi(s) - hist__slot_lo(s)) <= hist__slot_lo(s) / (double)HIST_SUB,
			      "slot %u wider than lo/%d", s, HIST_SUB);
	}
	for (int i = 0; i < 64; i++) {
		uint64_t x = 1ULL << i;
		CHECK(hist_log2(x) == (unsigned)i, "log2(2^%d)", i);
		if (i > 1)
			CHECK(hist_log2(x - 1) == (unsigned)i - 1, "log2(2^%d-1)", i);
	}
	CHECK(hist_slot(UINT64_MAX) == HIST_SLOTS - 1, "saturation");

	srandom(42);
	for (int round = 0; round < 20; round++) {
		/* log-uniform over 1 ns .. 2^40 ns */
		for (int i = 0; i < N; i++)
			v[i] = rnd64() >> (24 + random() % 40);
		check_set("log-uniform", v, N);
	}
	/* adversarial: bucket edges, a single value, tiny sets, a spike and a tail */
	for (int i = 0; i < N; i++)
		v[i] = hist__slot_lo(random() % (HIST_SLOTS - 1));
	check_set("bucket-lo", v, N);
	for (int i = 0; i < N; i++)
		v[i] = hist__slot_hi(random() % (HIST_SLOTS - 1)) - 1;
	check_set("bucket-hi-1", v, N);
	v[0] = 123456789;
	check_set("single", v, 1);
	v[0] = 0; v[1] = 1ULL << 39;
	check_set("two-extremes", v, 2);
	for (int i = 0; i < N; i++)
		v[i] = i < N - 10 ? 5000 : 50000000ULL + i;
	check_set("spike+tail", v, N);
	for (int i = 0; i < 15; i++)
		v[i] = i;
	check_set("exact-small", v, 15);
	for (int i = 0; i < 1000; i++)
		v[i] = (1ULL << 45) + i;	/* beyond the last slot: clamped to max */
	check_set("saturated", v, 1000);

	/* merge equals adding everything to one */
	{
		static struct hist a, b, all;
		for (int i = 0; i < 1000; i++) {
			uint64_t x = rnd64() >> 30;
			hist__add(i % 2 ? &a : &b, x);
			hist__add(&all, x);
		}
		hist__merge(&a, &b);
		CHECK(!memcmp(&a, &all, sizeof(a)), "merge");
	}
	CHECK_DONE();
}

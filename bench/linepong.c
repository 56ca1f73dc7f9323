// SPDX-License-Identifier: GPL-2.0
/*
 * bench/linepong [CPU_A CPU_B]: what one cache line costs to cross between
 * two CPUs now, in ns (the median of 7 runs of 100,000 crossings each).
 * The request engine's completion program reads a line its Q program wrote
 * on the submitting CPU; on a VM, where the host puts the two vCPUs decides
 * that crossing's cost, and a bench's figures move with it (bench.py prints
 * this before and after its runs: docs/PERFORMANCE.md, "Helper calls").
 * Two threads, one on each CPU, hand a counter back and forth: each waits
 * for the other's value and writes the next, so each hand-over is one
 * crossing of the line.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CROSSINGS 100000
#define RUNS 7

static _Alignas(64) atomic_long ball;

struct side {
	int cpu;
	long first;	/* the value it waits for first: 0 or 1 */
	int err;
};

static void *play(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		s->err = 1;
		return NULL;
	}
	for (long v = s->first; v < CROSSINGS; v += 2) {
		while (atomic_load_explicit(&ball, memory_order_acquire) != v)
			;
		atomic_store_explicit(&ball, v + 1, memory_order_release);
	}
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct side a = { argc > 2 ? atoi(argv[1]) : 0, 0, 0 }, b = { argc > 2 ? atoi(argv[2]) : 1, 1, 0 };
	double ns[RUNS];

	for (int r = 0; r < RUNS; r++) {
		pthread_t ta, tb;
		double t0;

		atomic_store(&ball, -1);
		if (pthread_create(&ta, NULL, play, &a) || pthread_create(&tb, NULL, play, &b)) {
			fprintf(stderr, "linepong: threads: cannot start\n");
			return 1;
		}
		t0 = now_ns();
		atomic_store(&ball, 0);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		if (a.err || b.err) {
			fprintf(stderr, "linepong: CPUs %d and %d: cannot run there\n", a.cpu, b.cpu);
			return 1;
		}
		ns[r] = (now_ns() - t0) / CROSSINGS;
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp);
	printf("%.0f\n", ns[RUNS / 2]);
	return 0;
}

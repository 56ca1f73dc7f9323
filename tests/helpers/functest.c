// SPDX-License-Identifier: GPL-2.0
/*
 * Calls functions a known number of times with known sleeps, for func's
 * tests: leaf() N times; outer(), which calls leaf() (nesting); recurse(),
 * which calls itself (recursion), each level sleeping LEAF_MS / 2.  Waits for GO_FILE to exist first, so the
 * probes are attached before the first call.  Each call is also timed on the
 * helper's own CLOCK_MONOTONIC, inside the function; GO_FILE.times gets one
 * line per function: its name and every call's ns, in call order.
 * Usage: functest GO_FILE LEAF_CALLS LEAF_MS RECURSE_CALLS DEPTH
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "go.h"

#define MAXCALLS 4096
static long long times[3][MAXCALLS];	/* leaf, outer, recurse */
static int ntimes[3];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void took(int f, long long t0)
{
	if (ntimes[f] < MAXCALLS)
		times[f][ntimes[f]++] = now_ns() - t0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void leaf(int ms)
{
	long long t0 = now_ns();

	sleep_ms(ms);
	took(0, t0);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int ms)
{
	long long t0 = now_ns();

	sleep_ms(ms);
	leaf(ms);
	took(1, t0);
	asm volatile("" ::: "memory");
}

/* each level sleeps ms, then recurses: level k (from the top) of a depth-d
 * call lasts (d - k + 1) * ms */
__attribute__((noinline)) void recurse(int depth, int ms)
{
	long long t0 = now_ns();

	sleep_ms(ms);
	if (depth > 1)
		recurse(depth - 1, ms);
	took(2, t0);
	asm volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	int leaves, ms, rcalls, depth;

	if (argc != 6)
		return fprintf(stderr, "usage: functest GO_FILE LEAF_CALLS LEAF_MS RECURSE_CALLS DEPTH\n"), 2;
	leaves = atoi(argv[2]);
	ms = atoi(argv[3]);
	rcalls = atoi(argv[4]);
	depth = atoi(argv[5]);
	wait_go(argv[1]);
	for (int i = 0; i < leaves; i++)
		leaf(ms);
	outer(ms);
	for (int i = 0; i < rcalls; i++)
		recurse(depth, ms / 2 > 0 ? ms / 2 : 1);
	{
		static const char *const names[3] = { "leaf", "outer", "recurse" };
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.times", argv[1]);
		if (!(f = fopen(path, "w")))
			return 1;
		for (int k = 0; k < 3; k++) {
			fprintf(f, "%s", names[k]);
			for (int i = 0; i < ntimes[k]; i++)
				fprintf(f, " %lld", times[k][i]);
			fputc('\n', f);
		}
		if (fclose(f))
			return 1;
	}
	return 0;
}

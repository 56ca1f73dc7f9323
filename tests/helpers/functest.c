// SPDX-License-Identifier: GPL-2.0
/*
 * Calls functions a known number of times with known sleeps, for func's
 * tests: leaf() N times; outer(), which calls leaf() (nesting); recurse(),
 * which calls itself (recursion), each level sleeping LEAF_MS / 2.  Waits for GO_FILE to exist first, so the
 * probes are attached before the first call.  Each call is also timed on the
 * helper's own CLOCK_MONOTONIC twice: inside the function, and around the
 * call by its caller.  A probe at the function's entry and one at its return
 * time it between the two: not less than inside, not more than around,
 * whatever delays the task between a probe and a clock read.
 * GO_FILE.times gets two lines per function, NAME and NAME:around, each
 * call's ns in the order the calls ended.
 * Usage: functest GO_FILE LEAF_CALLS LEAF_MS RECURSE_CALLS DEPTH
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "go.h"

#define MAXCALLS 4096
static long long times[2][3][MAXCALLS];	/* [inside, around][leaf, outer, recurse] */
static int ntimes[2][3];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void took_as(int how, int f, long long t0)
{
	long long t = now_ns() - t0;

	if (ntimes[how][f] < MAXCALLS)
		times[how][f][ntimes[how][f]++] = t;
}

#define took(f, t0) took_as(0, f, t0)
/* the call, timed around by its caller */
#define CALL(f, call)                          \
	do {                                   \
		long long t_ = now_ns();       \
		call;                          \
		took_as(1, f, t_);             \
	} while (0)

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
	CALL(0, leaf(ms));
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
		CALL(2, recurse(depth - 1, ms));
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
		CALL(0, leaf(ms));
	CALL(1, outer(ms));
	for (int i = 0; i < rcalls; i++)
		CALL(2, recurse(depth, ms / 2 > 0 ? ms / 2 : 1));
	{
		static const char *const names[3] = { "leaf", "outer", "recurse" };
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.times", argv[1]);
		if (!(f = fopen(path, "w")))
			return 1;
		for (int how = 0; how < 2; how++)
			for (int k = 0; k < 3; k++) {
				fprintf(f, "%s%s", names[k], how ? ":around" : "");
				for (int i = 0; i < ntimes[how][k]; i++)
					fprintf(f, " %lld", times[how][k][i]);
				fputc('\n', f);
			}
		if (fclose(f))
			return 1;
	}
	return 0;
}

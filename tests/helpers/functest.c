// SPDX-License-Identifier: GPL-2.0
/*
 * Calls functions a known number of times with known sleeps, for func's
 * tests: leaf() N times; outer(), which calls leaf() (nesting); recurse(),
 * which calls itself (recursion), each level sleeping LEAF_MS / 2.  Waits for GO_FILE to exist first, so the
 * probes are attached before the first call.
 * Usage: functest GO_FILE LEAF_CALLS LEAF_MS RECURSE_CALLS DEPTH
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void leaf(int ms)
{
	sleep_ms(ms);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int ms)
{
	sleep_ms(ms);
	leaf(ms);
	asm volatile("" ::: "memory");
}

/* each level sleeps ms, then recurses: level k (from the top) of a depth-d
 * call lasts (d - k + 1) * ms */
__attribute__((noinline)) void recurse(int depth, int ms)
{
	sleep_ms(ms);
	if (depth > 1)
		recurse(depth - 1, ms);
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
	while (access(argv[1], F_OK))
		sleep_ms(10);
	for (int i = 0; i < leaves; i++)
		leaf(ms);
	outer(ms);
	for (int i = 0; i < rcalls; i++)
		recurse(depth, ms / 2 > 0 ? ms / 2 : 1);
	return 0;
}

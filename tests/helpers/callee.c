// SPDX-License-Identifier: GPL-2.0
/*
 * For why --call/--into: outer() calls a(), which spins on the CPU for
 * A_MS, then b(), which sleeps B_MS; nothing else.  So of outer()'s time a
 * has A/(A+B), b has B/(A+B), self is near 0, and the parts are on CPU (a)
 * and asleep (b).  With DEPTH, rec() runs instead: it calls itself until
 * DEPTH deep, and the deepest calls a() then b(): one outermost rec() a call.
 * Usage: callee GO_FILE CALLS A_MS B_MS [DEPTH]
 * At the end GO_FILE.clock has a line per outer() call: CLOCK_MONOTONIC ns
 * before a(), between a() and b(), after b(), and the thread's CPU ns over
 * them (what a late wakeup or the host's steal did to each call, measured
 * by the helper itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "go.h"

#define CALLS_MAX 1024
static struct { unsigned long long t0, t1, t2, cpu; } clk[CALLS_MAX];
static int nclk;

static unsigned long long ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void a(int ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		asm volatile("" ::: "memory");
}

__attribute__((noinline)) void b(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/* not even a sleep of 0 in the call of no time: beside a busy loop
	 * on each CPU its wakeup waited over 5 ms for a CPU, and the call
	 * became a record (a 21st outer(), a 6th rec()) */
	if (ms)
		nanosleep(&ts, NULL);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int a_ms, int b_ms)
{
	unsigned long long c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), t0 = ns_of(CLOCK_MONOTONIC), t1;

	a(a_ms);
	t1 = ns_of(CLOCK_MONOTONIC);
	b(b_ms);
	if (nclk < CALLS_MAX) {
		clk[nclk].t2 = ns_of(CLOCK_MONOTONIC);
		clk[nclk].cpu = ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
		clk[nclk].t0 = t0;
		clk[nclk++].t1 = t1;
	}
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void rec(int depth, int a_ms, int b_ms)
{
	if (depth > 1)
		rec(depth - 1, a_ms, b_ms);
	else
		outer(a_ms, b_ms);
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int calls, a_ms, b_ms, depth = 0;

	if (argc != 5 && argc != 6)
		return 2;
	if (argc == 6)
		depth = atoi(argv[5]);
	calls = atoi(argv[2]);
	a_ms = atoi(argv[3]);
	b_ms = atoi(argv[4]);
	printf("%d\n", getpid());
	fflush(stdout);
	wait_go(argv[1]);
	/* one call of no time first, below any threshold and not in the clock
	 * file: a process's first uprobe hit maps its out-of-line area and
	 * return trampoline, 0.4 ms of self time in a loaded CI run's first
	 * rec() (its others 21 us) */
	if (depth)
		rec(depth, 0, 0);
	else
		outer(0, 0);
	nclk = 0;
	for (int i = 0; i < calls; i++) {
		if (depth)
			rec(depth, a_ms, b_ms);
		else
			outer(a_ms, b_ms);
	}
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.clock", argv[1]);
	if (!(f = fopen(path, "w")))
		return 1;
	for (int i = 0; i < nclk; i++)
		fprintf(f, "%llu %llu %llu %llu\n", clk[i].t0, clk[i].t1, clk[i].t2, clk[i].cpu);
	return fclose(f) != 0;
}

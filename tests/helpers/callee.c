// SPDX-License-Identifier: GPL-2.0
/*
 * For why --call/--into: outer() calls a(), which spins on the CPU for
 * A_MS, then b(), which sleeps B_MS; nothing else.  So of outer()'s time a
 * has A/(A+B), b has B/(A+B), self is near 0, and the parts are on CPU (a)
 * and asleep (b).  With DEPTH, rec() runs instead: it calls itself until
 * DEPTH deep, and the deepest calls a() then b(): one outermost rec() a call.
 * Usage: callee GO_FILE CALLS A_MS B_MS [DEPTH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

	nanosleep(&ts, NULL);
	asm volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int a_ms, int b_ms)
{
	a(a_ms);
	b(b_ms);
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
	while (access(argv[1], F_OK))
		usleep(10000);
	for (int i = 0; i < calls; i++) {
		if (depth)
			rec(depth, a_ms, b_ms);
		else
			outer(a_ms, b_ms);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* switchcost [N]: ns per context switch, from two processes passing a byte
 * back and forth over pipes N times on one CPU (each round trip is two
 * switches).  The best of 5 rounds (bench/why.sh: what a sched_switch hook
 * adds to every switch on the machine). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int ab[2], ba[2];
	double best = 1e18;
	cpu_set_t one;
	char c = 0;
	pid_t kid;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (n <= 0 || pipe(ab) || pipe(ba) || sched_setaffinity(0, sizeof(one), &one))
		return 1;
	kid = fork();
	if (kid == 0) {
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	for (int r = 0; r < 5; r++) {
		double t0 = now(), d;

		for (long i = 0; i < n; i++)
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				return 1;
		d = (now() - t0) / (2.0 * n);
		if (d < best)
			best = d;
	}
	close(ab[1]);
	waitpid(kid, NULL, 0);
	printf("switch %.1f\n", best);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * symbench PID NAME N: the cost of naming user addresses.  N distinct
 * addresses spread evenly over the executable mapping of NAME (a library or
 * binary mapped by process PID) are named twice through src/lib/usyms: the
 * first pass opens and reads the file's symbols, the second finds them
 * cached.  Prints the time of each pass, the addresses named, and the growth
 * of the bench's peak RSS.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "usyms.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	unsigned long lo = 0, hi = 0, a, b;
	char path[4096], line[4608], perm[8];
	int pid, n, named = 0;
	struct usyms *u;
	double t0, t1, t2;
	long rss0;
	FILE *f;

	if (argc != 4)
		return fprintf(stderr, "usage: symbench PID NAME N\n"), 2;
	pid = atoi(argv[1]);
	n = atoi(argv[3]);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return perror(path), 1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &a, &b, perm, path) >= 3 && perm[2] == 'x' &&
		    strstr(path, argv[2]) && b - a > hi - lo) {
			lo = a;
			hi = b;
		}
	}
	fclose(f);
	if (!hi)
		return fprintf(stderr, "symbench: no executable mapping of %s in %d\n", argv[2], pid), 1;
	u = usyms__new();
	rss0 = maxrss_kb();
	t0 = now();
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			struct usym s;

			if (!usyms__resolve(u, pid, lo + (hi - lo) / n * i, &s) && s.name && !pass)
				named++;
		}
		if (!pass)
			t1 = now();
	}
	t2 = now();
	printf("%s: %d addresses over %lu KiB of text: %d named; first pass %.1f ms (%.2f us each), "
	       "cached %.1f ms (%.2f us each); peak RSS +%ld KiB\n",
	       argv[2], n, (hi - lo) >> 10, named, (t1 - t0) * 1e3, (t1 - t0) * 1e6 / n, (t2 - t1) * 1e3,
	       (t2 - t1) * 1e6 / n, maxrss_kb() - rss0);
	usyms__free(u);
	return 0;
}

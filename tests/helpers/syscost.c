// SPDX-License-Identifier: GPL-2.0
/* syscost [N]: ns per call of write(2), pwrite64(2) and writev(2) of one
 * byte to /dev/null, and of getppid(2): what a syscall hook adds to every
 * process on the machine (bench/syscost.sh).  The best of 5 rounds. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int fd = open("/dev/null", O_WRONLY);
	const char *names[] = { "write", "pwrite64", "writev", "getppid" };
	struct iovec iov = { "x", 1 };
	double best[4];

	if (fd < 0 || n <= 0)
		return 1;
	for (int k = 0; k < 4; k++) {
		best[k] = 1e18;
		for (int r = 0; r < 5; r++) {
			double t0 = now(), d;

			for (long i = 0; i < n; i++) {
				switch (k) {
				case 0: (void)!write(fd, "x", 1); break;
				case 1: (void)!pwrite(fd, "x", 1, 0); break;
				case 2: (void)!writev(fd, &iov, 1); break;
				default: syscall(SYS_getppid); break;
				}
			}
			d = (now() - t0) / n;
			if (d < best[k])
				best[k] = d;
		}
	}
	for (int k = 0; k < 4; k++)
		printf("%s %.1f\n", names[k], best[k]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's two actors of seed 000 (tests/vm/stack), static so that the
 * busybox initramfs can run it, and run under the names of the processes
 * it stands for (its file copied to ceph-osd and udevadm: comm is the name):
 *   write DEV N       N writes of 4 KiB (O_DIRECT), each followed by
 *                     fdatasync, as an OSD commits its journal; prints each
 *                     call pair's own CLOCK_MONOTONIC time: "W i ns"
 *   attrs FILE N MS V1 V2...  writes the values in turn into FILE, N times,
 *                     MS apart, as udevadm trigger re-applies queue
 *                     attributes: "A value ns end" each, end the
 *                     CLOCK_MONOTONIC time the write returned (the clock
 *                     of bpf_ktime_get_ns, so of iodig's ts_ns)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "write")) {
		int fd = open(argv[2], O_WRONLY | O_DIRECT);
		int n = atoi(argv[3]);
		void *buf;

		if (fd < 0 || posix_memalign(&buf, 4096, 4096))
			return perror(argv[2]), 1;
		memset(buf, 0x5a, 4096);
		for (int i = 0; i < n; i++) {
			long long t = now_ns();

			/* 64 KiB apart: no two in one request */
			if (pwrite(fd, buf, 4096, (off_t)i * 65536) != 4096 || fdatasync(fd))
				return perror("write"), 1;
			printf("W %d %lld\n", i, now_ns() - t);
		}
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "attrs")) {
		int n = atoi(argv[3]), ms = atoi(argv[4]), nv = argc - 5;

		for (int i = 0; i < n; i++) {
			const char *v = argv[5 + i % nv];
			int fd = open(argv[2], O_WRONLY);
			long long t = now_ns();

			/* as udevadm, a write refused is said and the next one made */
			if (fd < 0 || write(fd, v, strlen(v)) < 0)
				perror(argv[2]);
			if (fd >= 0)
				close(fd);
			long long e = now_ns();

			printf("A %s %lld %lld\n", v, e - t, e);
			usleep(ms * 1000);
		}
		return 0;
	}
	fprintf(stderr, "usage: osdwrite write DEV N | attrs FILE N MS VALUE...\n");
	return 2;
}

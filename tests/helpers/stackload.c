// SPDX-License-Identifier: GPL-2.0
/*
 * stackload GO DEV N: waits until GO exists, then from main -> outer ->
 * middle -> through (inlined) -> inner does N 4 KiB O_DIRECT reads of DEV, so `iodig stacks`
 * has a user stack whose frames and lines are known; then lives 1 s more,
 * so its frames can be named while it lives.  `stackload GO DEV N now`
 * exits at once instead (named after its exit).  Built with and without
 * frame pointers (tests/live/stacks.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "go.h"

static char buf[4096] __attribute__((aligned(4096)));

/* pread64 without libc: libc's own wrapper has no frame pointer, so a
 * frame-pointer walk from inside it skips its caller */
static inline __attribute__((always_inline)) long raw_pread(int fd, void *b, long n, long off)
{
	register long r10 __asm__("r10") = off;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(17L), "D"((long)fd), "S"(b), "d"(n), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) int inner(int fd, int n)
{
	int got = 0;

	for (int i = 0; i < n; i++)
		got += raw_pread(fd, buf, sizeof(buf), (long)i * 4096) == sizeof(buf); /* READ */
	return got;
}

/* inlined into middle: its frame is named from DWARF (an inlined frame) */
static inline __attribute__((always_inline)) int through(int fd, int n)
{
	return inner(fd, n) + 0 * getpid();	/* THROUGH */
}

__attribute__((noinline)) int middle(int fd, int n)
{
	return through(fd, n) + 0 * getpid();	/* MIDDLE */
}

__attribute__((noinline)) int outer(int fd, int n)
{
	return middle(fd, n) + 0 * getpid();
}

int main(int argc, char **argv)
{
	int fd, n;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "now")))
		return 2;
	fd = open(argv[2], O_RDONLY | O_DIRECT);
	if (fd < 0)
		return 1;
	printf("%d\n", getpid());
	fflush(stdout);
	wait_go(argv[1]);
	n = outer(fd, atoi(argv[3]));
	if (argc == 4)	/* "now": exit at once, before any stack scan */
		sleep(1);
	return n == atoi(argv[3]) ? 0 : 1;
}

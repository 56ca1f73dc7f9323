// SPDX-License-Identifier: GPL-2.0
/*
 * jitload GO DEV N: a stand-in for a JIT.  Copies a small function that
 * reads with pread64 into anonymous executable memory, names it in
 * /tmp/perf-PID.map as a JIT does for perf ("jitted_pread"), waits until GO
 * exists, then from main -> jit_caller calls it N times on DEV (4 KiB
 * O_DIRECT), and lives 1 s more.  The copied code keeps the frame-pointer
 * chain, so the stack is jitted_pread < jit_caller < main.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "go.h"

static char buf[4096] __attribute__((aligned(4096)));

/* push rbp; mov rbp,rsp; mov r10,rcx; mov eax,17 (pread64); syscall; pop rbp; ret */
static const unsigned char code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x49, 0x89, 0xca, 0xb8, 0x11, 0x00, 0x00, 0x00,
	0x0f, 0x05, 0x5d, 0xc3,
};

typedef long (*pread_fn)(long fd, void *b, long n, long off);

__attribute__((noinline)) int jit_caller(pread_fn f, int fd, int n)
{
	int got = 0;

	for (int i = 0; i < n; i++)
		got += f(fd, buf, sizeof(buf), (long)i * 4096) == sizeof(buf);
	return got;
}

int main(int argc, char **argv)
{
	char path[64];
	void *mem;
	FILE *map;
	int fd, n;

	if (argc != 4)
		return 2;
	fd = open(argv[2], O_RDONLY | O_DIRECT);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	if (!(map = fopen(path, "w")))
		return 1;
	fprintf(map, "%lx %zx jitted_pread\n", (unsigned long)mem, sizeof(code));
	fclose(map);
	printf("%d\n", getpid());
	fflush(stdout);
	wait_go(argv[1]);
	n = jit_caller((pread_fn)mem, fd, atoi(argv[3]));
	sleep(1);
	unlink(path);
	return n == atoi(argv[3]) ? 0 : 1;
}

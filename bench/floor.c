// SPDX-License-Identifier: GPL-2.0
/*
 * bench/floor MODE: attaches bench/floor.bpf.c's programs and waits for
 * SIGINT or SIGTERM (bench.py runs it as a tool beside iodig).
 *   c      an empty program at block_rq_complete (one program a request)
 *   qc     empty programs at block_bio_queue and block_rq_complete
 *   stamp  Q's clock into a slot, C's difference into a histogram
 * Prints "Attached" when live.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t done;

static void stop(int sig)
{
	done = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";
	bool q = !strcmp(mode, "qc"), c = q || !strcmp(mode, "c"), st = !strcmp(mode, "stamp");
	struct floor_bpf *sk;
	int err;

	if (!c && !st) {
		fprintf(stderr, "usage: floor c|qc|stamp\n");
		return 2;
	}
	sk = floor_bpf__open();
	if (!sk)
		return 1;
	bpf_program__set_autoload(sk->progs.q_empty, q);
	bpf_program__set_autoload(sk->progs.c_empty, c);
	bpf_program__set_autoload(sk->progs.q_stamp, st);
	bpf_program__set_autoload(sk->progs.c_hist, st);
	err = floor_bpf__load(sk) ?: floor_bpf__attach(sk);
	if (err) {
		fprintf(stderr, "floor: cannot load or attach: %s\n", strerror(-err));
		floor_bpf__destroy(sk);
		return 1;
	}
	signal(SIGINT, stop);
	signal(SIGTERM, stop);
	printf("Attached (%s)\n", mode);
	fflush(stdout);
	while (!done)
		pause();
	floor_bpf__destroy(sk);
	return 0;
}

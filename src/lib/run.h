/* SPDX-License-Identifier: GPL-2.0 */
/* Signals, readiness and the interval loop every tracing command shares. */
#ifndef IODIG_RUN_H
#define IODIG_RUN_H

#include <stdbool.h>
#include <stdio.h>

struct run_loop {
	int interval_ms;	/* 0: one report, at the end */
	int count;		/* reports before stopping; 0: no limit */
	bool timestamp;		/* -T: a time line before each text report */
	/* Waits up to timeout_ms; NULL sleeps.  Returns 0, -errno (the loop
	 * reports it), or an exit status after saying what went wrong. */
	int (*wait)(void *ctx, int timeout_ms);
	/* Prints one report; last is true for the final one. */
	int (*report)(void *ctx, bool last);
	void *ctx;
};

/* At start: SIGINT and SIGTERM blocked where ignored (a background job of a
 * shell with no job control), so one sent during set-up is not lost... */
void run__hold_signals(void);
/* ... and once tracing is live: handled (the run ends with its summary) */
void run__signals(void);
bool run__stopping(void);
/* Ends the run as a signal would: the loop prints its last report. */
void run__stop(void);
/* A run_loop wait that only sleeps (a signal cuts it short). */
int run__sleep_ms(void *ctx, int ms);
/* Tells a caller that tracing is live: msg on stderr, then ready_file. */
int run__ready(const char *ready_file, const char *msg);
int run__loop(struct run_loop *loop);
/* Flushes stdout; on failure (a full disk, a closed pipe) says so once,
 * stops the run and returns -EIO. */
int run__flush(void);
/* stdout fully buffered, 64 KiB, even on a terminal: for a command that
 * prints many lines and calls run__flush() on its own clock (the engine's
 * drain, every LIFE_DRAIN_MS).  Before its first output. */
void run__buffer_output(void);
/* Another file run__flush() flushes (and checks) with stdout: a recording. */
void run__add_output(FILE *f, const char *name);
void run__remove_output(FILE *f);
/* Fails now, before anything is attached, if the ready file cannot be
 * written later.  Returns 0 or the exit status. */
int run__check_ready_file(const char *ready_file);
/* Parses "[interval [count]]" from argv[optind..]; returns 0 or EXIT_USAGE. */
int run__parse_interval(int argc, char **argv, int optind, struct run_loop *loop);
void run__print_time(FILE *out);
/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(). */
unsigned long long run__mono_ns(void);

#endif

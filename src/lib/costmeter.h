/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stats: what iodig's BPF programs cost this machine, from the kernel's
 * own accounting (bpf_stats: run count and run time of each program, on
 * while iodig runs).  The programs loaded when tracing goes live are kept
 * (their fds duplicated) so that their totals can be read after the command
 * detached them, and printed last: a line of text, or a "bpf_stats" record.
 */
#ifndef IODIG_COSTMETER_H
#define IODIG_COSTMETER_H

#include <stdbool.h>

/* Turns the kernel's BPF run-time statistics on: 0 or the exit status. */
int costmeter__start(bool json);
/* Tracing is live: keep every BPF program this process holds now. */
void costmeter__ready(void);
/* At exit: print what they cost (nothing without --stats). */
void costmeter__print(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_FUNC_H
#define IODIG_FUNC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The most functions one `func` traces: histogram keys and cookies. */
#define FUNC_MAX 4096
/* Calls in flight per thread that are timed; deeper ones are counted. */
#define FUNC_MAX_DEPTH 32

/* With -K/-U, the histograms split by stack too: at most FUNC_KEYS
 * (function, process, stacks) keys and FUNC_STACKS distinct stacks. */
#define FUNC_KEYS	16384
#define FUNC_STACKS	8192
#define FUNC_STACK_DEPTH 127	/* frames kept, the kernel's limit */

struct func_frame {
	__u32 id;
	__s32 kstack, ustack;	/* taken at entry; -1: not asked */
	__u32 pad;
	__u64 ts;
};

/* A histogram's key: the function, and with -K/-U the stacks at its entry
 * (with -U the process too: user addresses mean something in one only). */
struct func_key {
	__u32 id;
	__u32 pid;		/* -U: the caller's process, else 0 */
	__s32 kstack, ustack;	/* stack map ids; -1: not asked; other < 0: not taken */
};

/* Per thread: a stack of entry times, not one slot, so nested and recursive
 * calls each pair with their own return (bcc's funclatency keeps one slot
 * per thread and gets recursion wrong: bcc issue 2548). */
struct func_stack {
	__u32 depth;
	__u32 pad;
	struct func_frame f[FUNC_MAX_DEPTH];
};

struct func_stats {
	__u64 too_deep;		/* calls deeper than FUNC_MAX_DEPTH: not timed */
	__u64 unmatched;	/* returns whose entry was not seen */
	__u64 map_full;
	__u64 threads_full;	/* no room for another thread's stack */
	__u64 kstack_lost;	/* -K: kernel stacks not taken (stack map full, collision) */
	__u64 ustack_lost;	/* -U: user stacks not taken */
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig exec: every exec on the machine, failures too.  Shared by the
 * kernel side (src/bpf/exec.bpf.c) and the user side (src/cmd/exec.c).
 */
#ifndef IODIG_EXEC_H
#define IODIG_EXEC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define EXEC_COMM_LEN	16
#define EXEC_PATH_LEN	256
#define EXEC_ARG_LEN	256			/* one argument, NUL included */
#define EXEC_ARGS_LEN	4096			/* all of them */
#define EXEC_ARGS_MAX	64			/* the most --max-args allows (its usage error says 64) */
#define REC_EXEC	32

/* One exec, as it ended.  args: argv[0..nargs) as NUL-separated strings,
 * args_len bytes; truncated: more arguments than read, or one cut short. */
struct exec_event {
	__u32 type, size;			/* REC_EXEC, sizeof */
	__u64 ts;				/* the return, bpf_ktime_get_ns() */
	__u64 start;				/* the call */
	__u64 cgroup;
	__u32 pid, ppid, uid, tid;		/* tid: the thread that called exec */
	__s32 ret;				/* 0, or -errno */
	__u32 nargs, args_len, truncated;
	char comm[EXEC_COMM_LEN];		/* after the exec: the new program's */
	char path[EXEC_PATH_LEN];		/* the file asked for, as given */
	char args[EXEC_ARGS_LEN];
};

struct exec_stats {
	__u64 seen;		/* exec calls that returned, before filters */
	__u64 lost;		/* records the ring buffer had no room for */
	__u64 no_entry;		/* returns whose start was not kept (table full) */
};

#endif

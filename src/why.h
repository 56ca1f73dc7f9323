/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig why: where a slow system call's time went.  Shared by the kernel
 * side (src/bpf/why.bpf.c) and the user side (src/cmd/why.c).
 *
 * Between a traced call's entry and exit, every moment of the calling
 * thread is in exactly one part, switched by scheduler, lock, writeback,
 * reclaim and block tracepoints; at exit the parts add up to the wall time
 * by construction (what a missed event puts in the wrong part is counted,
 * not hidden: struct why_stats).
 */
#ifndef IODIG_WHY_H
#define IODIG_WHY_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum why_part {
	WP_CPU,		/* running */
	WP_RUNQ,	/* runnable, waiting for a CPU (preempted, or woken) */
	WP_IO,		/* off CPU waiting for block I/O: in_iowait, or in bio
			 * submission before a request was allocated (a frozen
			 * queue, tag starvation: Q2G) */
	WP_LOCK,	/* between lock:contention_begin and _end (spinning or asleep) */
	WP_THROTTLE,	/* asleep in balance_dirty_pages (dirty-page throttling) */
	WP_RECLAIM,	/* in direct reclaim (on or off CPU) */
	WP_SLEEP,	/* other sleep: pipes, futexes, timers, ... */
	WP_STEAL,	/* on CPU in the guest, but the hypervisor ran something
			 * else (steal time, kvm's per-CPU steal clock): carved
			 * out of the running part it fell in */
	WP_NR
};

/* How each traced system call's arguments read (user side fills the table). */
enum why_args {
	WA_NONE,	/* not traced */
	WA_FD,		/* fd in arg 0 */
	WA_FD_COUNT,	/* fd in arg 0, bytes asked in arg 2 */
	WA_FD_IOV,	/* fd in arg 0, iovec array in arg 1, count in arg 2 */
	WA_PATH_AT,	/* a path in arg 1 (openat, unlinkat, renameat...) */
	WA_PATH,	/* a path in arg 0 (unlink, rename, ...) */
	WA_NOARGS,	/* traced, no argument read (sync) */
};

#define WHY_SYSCALLS	512	/* syscall numbers below this are traceable */
#define WHY_PATH_LEN	256	/* a power of 2 (why.bpf.c's path_of masks with it) */
#define WHY_COMM_LEN	16
#define WHY_STACK_DEPTH	127
/* Where a call waited off CPU: the kernel stack it blocked with (walked
 * WHY_WAIT_DEPTH deep, enough to pass the tracepoint's dispatch and the
 * scheduler), kept for WHY_WAITS places a call, summed by place and part. */
#define WHY_WAIT_DEPTH	20
#define WHY_WAITS	4

/* lock:contention_begin flags (include/trace/events/lock.h) */
#define WHY_LCB_SPIN	(1U << 0)
#define WHY_LCB_READ	(1U << 1)
#define WHY_LCB_WRITE	(1U << 2)
#define WHY_LCB_RT	(1U << 3)
#define WHY_LCB_PERCPU	(1U << 4)
#define WHY_LCB_MUTEX	(1U << 5)

#define REC_CALL	16	/* beside life.h's record types */

/* why --call TARGET --into CHILD,...: a call of TARGET is a "call" whose nr
 * is WHY_NR_FUNC; its children are numbered 1.. by their BPF cookie. */
#define WHY_NR_FUNC	0xffffu
#define WHY_CHILDREN	8

/* Who ended a wait: the task that woke the waiting thread (sched_waking
 * runs in the waker's context), and what that task did over the wait, from
 * the state why keeps for every task while it runs (cpu, runq, io, sleep;
 * steal: time the host took its vCPU while it ran, never a state of its
 * own, carved out of cpu as a traced thread's steal part is). */
enum why_wpart { WW_CPU, WW_RUNQ, WW_IO, WW_SLEEP, WW_STEAL, WW_NR };
#define WHY_WAKE_DEPTH		40	/* the waker's stack: deep enough to reach an interrupt's entry */
#define WHY_WAKER_FOLLOWED	2	/* part[] holds the waker's time over the whole wait */
#define WHY_WAKER_RING		64	/* state changes a task keeps, to look back over a wait */
#define WHY_COARSE_RING		32	/* ... and older ones, one per WHY_COARSE_NS at most */
#define WHY_COARSE_NS		2000000ull

/*
 * A wait's chain: who ended it (depth 1), who ended that waker's longest
 * wait over it (depth 2), and who ended that one's (depth 3).  Beyond depth
 * 1, each task followed keeps its last WHY_LINKS wakes out of waits of
 * targ_chain_ns or more (made in the waker's context at sched_waking, with
 * the waker's time over the wait and the waker's own depth-2 link then).
 */
#define WHY_CHAIN	3	/* the deepest --depth */
#define WHY_LINKS	4
#define WHY_HOP_IPS	12	/* the woken task's stack at a link's wake: where it waited */

struct why_waker {
	__u32 pid, tid;		/* 0 as well for the idle task (an interrupt on an
				 * idle CPU): none is at == 0 */
	__u32 flags;
	__s32 stack;		/* the waker's kernel stack (wakestacks), < 0: none */
	__u64 at;		/* when it woke the thread (ns, bpf_ktime_get_ns) */
	__u64 wait_ns;		/* the wait it ended: the slot's longest ended by a wake */
	__u64 part[WW_NR];	/* the waker's time over that wait, ns */
	__u64 resolution_ns;	/* 0: part[] exact; else part[] from the coarse ring,
				 * each within this of the truth */
	char comm[WHY_COMM_LEN];
	/* depth 2 and 3 only: the wait it ended, of the previous link's waker */
	__u32 wpart;		/* enum why_wpart: WW_SLEEP or WW_IO */
	__u32 nips;		/* place[]'s frames (0: not walked) */
	__u32 cpu;		/* the CPU it woke the task on, plus 1 */
	__u32 pad;
	__u64 place[WHY_HOP_IPS];	/* that task's kernel stack as it was woken */
};

struct why_wait {
	__s32 stack;		/* in the waitstacks map; < 0: the walk failed
				 * (-errno), or WHY_WAIT_UNSEEN */
	__u32 part;		/* enum why_part */
	__u64 ns;
	struct why_waker waker;	/* of its longest wait */
	struct why_waker up[WHY_CHAIN - 1];	/* the waker's chain (tid 0: none) */
};

/* A wait's stack where its switch out went unseen (found at its wakeup:
 * the thread was never current in it while traced) */
#define WHY_WAIT_UNSEEN	(-10000)

/* One slow call. */
struct why_call {
	__u32 type;		/* REC_CALL */
	__u32 nr;		/* syscall number */
	__u64 start, end;	/* ns, CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u32 pid, tid;
	__s64 ret;
	__u64 asked;		/* bytes asked (read/write family), else 0 */
	__s32 fd;		/* -1: no fd argument */
	__u32 dev;		/* the file's super block dev_t (kernel encoding), 0: none */
	__u64 ino;
	__u32 unlinked;		/* the file had no name left (i_nlink 0) at the call's end */
	__u32 pad_u;
	__u64 cgroup;
	__u64 part[WP_NR];	/* ns */
	__u64 faults;		/* page faults taken during the call */
	__u64 cache_added;	/* pages added to the page cache by this thread (misses) */
	__u32 ra_sync, ra_async;	/* readahead decisions made in the call */
	__u32 offcpu;		/* times it left the CPU */
	__u32 lock_flags;	/* of its longest lock wait */
	__u64 lock_max;		/* its longest lock wait, ns */
	__u64 child_ns[WHY_CHILDREN];	/* --into: inclusive time in each child */
	__u32 child_calls[WHY_CHILDREN];
	__u64 in_children;	/* time inside any child (their union: self = wall - this) */
	__u64 wait_max;		/* -K/-U: its longest time off CPU, blocked (ns) */
	__s32 kstack, ustack;	/* -K/-U: the stacks it blocked with then (stack map ids, < 0: none) */
	__u64 waits_other;	/* blocked time at further places */
	char comm[WHY_COMM_LEN];
	/* then: a call's start clears what comes before, each wait's ns,
	 * waker.at and up[].at (a waker is written whole, or not at all),
	 * and path's first byte (each writer ends it with a NUL) */
	struct why_wait waits[WHY_WAITS];	/* its blocked time by where it blocked, in order seen */
	char path[WHY_PATH_LEN];	/* WA_PATH*: the path given, as given; an fd's:
					 * its file's, from its dentries ("": not
					 * theirs, or longer than this) */
};

/* Counted, never silent. */
struct why_stats {
	__u64 calls;		/* traced calls that returned */
	__u64 slow;		/* ... over the threshold: records */
	__u64 lost;		/* records the ring buffer had no room for */
	__u64 no_storage;	/* calls not followed: no room for the thread's state */
	__u64 unmatched_exit;	/* exits with no entry seen (began before tracing) */
	__u64 wake_running;	/* wakeups of a thread already counted running (no part changed) */
	__u64 unmatched_child;	/* --into: a child's return without its entry */
	__u64 any_missed;	/* a task's state change not kept (its storage busy or full) */
	__u64 qw_lost;		/* queue-write records the engine's ring had no room for */
	__u64 switch_in_unseen;	/* a traced thread ran again with no sched_switch
				 * into it (the host's kernel skips one now and
				 * then): its run told from the kernel's count
				 * of its waits for a CPU (run_delay) */
	__u64 switch_out_unseen;	/* a traced thread left its CPU with no
				 * sched_switch seen (its task storage busy):
				 * told at its wakeup or its next switch in
				 * from the kernel's clocks (last_queued, its
				 * CPU clock since its last arrival) */
};

#endif

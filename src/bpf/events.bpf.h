/* SPDX-License-Identifier: GPL-2.0 */
/* Shapes several BPF objects share: syscall event records and stack maps. */
#ifndef IODIG_EVENTS_BPF_H
#define IODIG_EVENTS_BPF_H

/*
 * The records of syscalls:sys_enter_NAME and sys_exit_NAME (tracefs
 * events/syscalls/.../format): the common header, the number, then the
 * arguments or the return value.  A program may read only as far as the
 * event's own record goes (fsync's has one argument): the kernel refuses to
 * attach it otherwise.
 */
struct sc_enter {
	__u64 common;
	int nr;
	__u32 pad;
	unsigned long args[6];
};

struct sc_exit {
	__u64 common;
	int nr;
	__u32 pad;
	long ret;
};

/* The submit flags of a ring buffer record: wake the reader only once
 * `bytes` or more wait in `ring` (it polls on its own clock meanwhile: a
 * wakeup from a program costs the task it runs in an irq_work and the
 * reader's wakeup, docs/DESIGN.md "Ring buffer, and output that is live") */
#define RB_WAKE_PAST(ring, bytes)						\
	(bpf_ringbuf_query(&(ring), BPF_RB_AVAIL_DATA) >= (bytes) ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP)

/* A stack-trace map of `max` stacks, `depth` frames each (sized 1 by the
 * user side when no stack is asked for). */
#define STACK_MAP(name, max, depth)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);			\
		__uint(max_entries, max);				\
		__uint(key_size, sizeof(__u32));			\
		__uint(value_size, (depth) * sizeof(__u64));		\
	} name SEC(".maps")

#endif

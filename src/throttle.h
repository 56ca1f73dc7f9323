/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig throttle: dirty throttling per process and backing device, from the
 * writeback:balance_dirty_pages tracepoint.  Shared by
 * src/bpf/throttle.bpf.c and src/cmd/throttle.c.
 */
#ifndef IODIG_THROTTLE_H
#define IODIG_THROTTLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define THROTTLE_COMM_LEN	16
#define THROTTLE_BDI_LEN	32

struct throttle_key {
	__u32 pid;
	char comm[THROTTLE_COMM_LEN];
	char bdi[THROTTLE_BDI_LEN];	/* the backing device, "7:0" */
};

struct throttle_val {
	/* running totals */
	__u64 calls;		/* balance_dirty_pages() decisions */
	__u64 pauses;		/* ... that put the task to sleep */
	__u64 paused_ms;	/* their planned sleep (the kernel's jiffies, in ms) */
	/* gauges: at the newest call (pages) */
	__u64 dirty, limit;	/* the system's dirty pages and their hard limit */
	__u64 wb_dirty, wb_setpoint;	/* the device's dirty pages and its share */
};
#define THROTTLE_COUNTERS 3

struct throttle_stats {
	__u64 map_full;		/* calls whose key found no room */
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig stacks: kernel and user stacks counted at an event (block I/O
 * submission, a tracepoint, a user function).  Shared by the kernel side
 * (src/bpf/stacks.bpf.c) and the user side (src/cmd/stacks.c).
 */
#ifndef IODIG_STACKS_H
#define IODIG_STACKS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "lib/hist.h"

#define STACKS_COMM_LEN	16
#define STACKS_DEPTH	127	/* frames kept, the kernel's limit */
#define STACKS_MAX	16384	/* distinct stacks */
#define STACKS_KEYS	16384	/* distinct (process, stacks, disk) */
#define STACKS_INFLIGHT_BITS 16
#define STACKS_INFLIGHT	(1 << STACKS_INFLIGHT_BITS)	/* block: slots of bios between submission and completion */
#define STACKS_RQ_BIOS	1024	/* bios of one request looked at for their end (4 KiB bios of a 4 MiB request) */

struct stacks_key {
	__u32 pid;		/* process */
	__u32 dev;		/* block submission: the bio's disk; else 0 */
	__s32 kstack, ustack;	/* stack map ids; < 0: not taken (-EFAULT: none, -EEXIST: collision, ...) */
	char comm[STACKS_COMM_LEN];
};

struct stacks_val {
	__u64 count, bytes;
	struct hist lat;	/* block: each bio's time from submission (Q) to its end */
};

/* block: a bio on its way, in an array slot by a hash of its address (as
 * the life engine's, life.h): which bio, whose it is and since when; one
 * cache line */
struct stacks_inflight {
	__u64 bio;		/* ptr_val() of the bio; 0: free */
	__u64 ts;
	struct stacks_key k;
	__u64 pad[2];
};

struct stacks_stats {
	__u64 events;		/* events that passed the filters */
	__u64 kstack_lost;	/* kernel stacks that could not be taken (map full, hash collision) */
	__u64 ustack_lost;	/* user stacks that could not be taken */
	__u64 map_full;		/* events whose key found no room */
	__u64 inflight_full;	/* block: bios not timed, their slot taken by another's */
	__u64 unmatched;	/* block: bio ends whose submission was not seen (before the start) */
};

#endif

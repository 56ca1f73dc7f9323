/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig size: I/O sizes and access pattern per process, disk and op, at bio
 * submission.  Shared by src/bpf/size.bpf.c and src/cmd/size.c.
 */
#ifndef IODIG_SIZE_H
#define IODIG_SIZE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define SIZE_COMM_LEN	16
#define SIZE_SLOTS	40	/* log2 of bytes: slot k holds [2^k, 2^(k+1)) */

struct size_key {
	__u32 pid;
	__u32 dev;
	__u32 op;		/* REQ_OP_READ 0, REQ_OP_WRITE 1, other */
	__u32 pad;
	char comm[SIZE_COMM_LEN];
};

struct size_val {
	__u64 count, bytes;
	__u64 seq;		/* began where the disk's previous bio ended */
	__u64 slots[SIZE_SLOTS];
};

struct size_stats {
	__u64 map_full;		/* bios whose key found no room */
};

#endif

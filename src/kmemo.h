/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the BPF side (bpf/kmemo.bpf.h) and the user side: what a
 * program's kernel stack memos did, per CPU. */
#ifndef IODIG_KMEMO_H
#define IODIG_KMEMO_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct kmemo_stats {
	__u64 walked;	/* kernel stacks walked by the kernel (a path without a memo) */
	__u64 used;	/* stacks taken from a memo of their path (checked ones included) */
	__u64 checked;	/* of them, walked again to check the memo */
	__u64 differed;	/* of them, a walk that gave another stack (the memo forgotten) */
	__u64 made;	/* memos made */
	__u64 offstack;	/* of the walked, events whose stack could not be copied (an
			 * interrupt's, off its task's; or deeper than a memo spans) */
};

#endif

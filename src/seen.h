/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the BPF side (bpf/seen.bpf.h) and the user side (lib/skipped.c). */
#ifndef IODIG_SEEN_H
#define IODIG_SEEN_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* disks each CPU counts completions of apart, for `skipped`; slot
 * SEEN_DISKS counts those of disks that found no slot */
#define SEEN_BITS	8
#define SEEN_DISKS	(1 << SEEN_BITS)
#define SEEN_PROBES	4

/* The i-th slot a disk may take in a CPU's table (i < SEEN_PROBES): the BPF
 * side places a disk there, the user side reads only these slots. */
static inline __u32 seen_key(__u32 dev, __u32 i)
{
	return (((dev * 2654435761U) >> (32 - SEEN_BITS)) + i) & (SEEN_DISKS - 1);
}

struct seen_slot {
	__u32 dev;	/* kernel dev_t; 0: free */
	__u32 pad;
	__u64 n;	/* completions diskstats counts, seen by the programs */
};

#endif

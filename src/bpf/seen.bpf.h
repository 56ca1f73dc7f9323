/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs' side of `skipped` (src/lib/skipped.h): block_rq_complete
 * hits that /proc/diskstats counts too, per disk, counted at the first
 * instruction after the disk check, before any return of iodig's own.
 * The user side compares each disk's count with its diskstats line: what
 * the kernel counted there and ran no program for is skipped.  Per disk, so
 * that a disk removed while tracing leaves both counts as they were at the
 * last read, not the programs' alone.
 *
 * A per-CPU array, not a hash: its lookup is inlined (a hash's took about
 * 25 ns a request).  Each CPU keeps its own open-addressed table of disks in
 * its copy; a disk with no free slot in SEEN_PROBES tries is counted in the
 * last slot, as seen on some disk, so that the sum stays exact.
 */
#ifndef IODIG_SEEN_BPF_H
#define IODIG_SEEN_BPF_H

#include "compat.bpf.h"
#include "seen.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SEEN_DISKS + 1);
	__type(key, __u32);
	__type(value, struct seen_slot);
} seen_disks SEC(".maps");

static __always_inline void seen_count(struct request *rq, unsigned int nr_bytes, __u32 dev)
{
	struct seen_slot *s;
	__u32 k;

	if (!rq_in_diskstats(rq, nr_bytes))
		return;
#pragma unroll
	for (int i = 0; i < SEEN_PROBES; i++) {
		k = seen_key(dev, i);
		s = bpf_map_lookup_elem(&seen_disks, &k);
		if (!s)
			return;
		if (s->dev == dev) {
			s->n += 1;
			return;
		}
		if (!s->dev) {		/* no disk has major 0 */
			s->dev = dev;
			s->n = 1;
			return;
		}
	}
	k = SEEN_DISKS;
	s = bpf_map_lookup_elem(&seen_disks, &k);
	if (s)
		s->n += 1;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the objects linked into life.bpf.o share: the ring every record goes
 * to, the running totals, and a pointer as a number.  Defined in life_block.bpf.c, declared here
 * for the others (life_sysfs.bpf.c); the static linker (bpftool gen object)
 * makes them one.
 */
#ifndef IODIG_LIFE_BPF_H
#define IODIG_LIFE_BPF_H

struct life_records_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* resized by the user side */
};

extern struct life_records_map records SEC(".maps");
extern struct life_stats stats;

/*
 * A kernel pointer's value as a number, to hash it.  The verifier forbids
 * arithmetic on a pointer and refuses partial fills of a spilled one; a copy
 * made by bpf_probe_read_kernel() is a plain scalar.
 */
static __always_inline __u64 ptr_val(const void *p)
{
	__u64 spill = (__u64)p, v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &spill);
	return v;
}

#endif

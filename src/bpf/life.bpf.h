/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the objects linked into life.bpf.o share: the ring every record goes
 * to, and the running totals.  Defined in life_block.bpf.c, declared here
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

#endif

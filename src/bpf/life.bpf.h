/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the objects linked into life.bpf.o share: the ring every record goes
 * to, the running totals, and a pointer as a number.  Defined in life_block.bpf.c, declared here
 * for the others (life_sysfs.bpf.c); the static linker (bpftool gen object)
 * makes them one.
 */
#ifndef IODIG_LIFE_BPF_H
#define IODIG_LIFE_BPF_H

#include "hist.bpf.h"
#include "ptr.bpf.h"

struct life_records_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* resized by the user side */
};

extern struct life_records_map records SEC(".maps");
extern struct life_stats stats;

/* The phases' histograms by disk and op (lat --phases, export), and top's
 * by process, disk and op: hist.bpf.h's epoch maps, each key's histograms
 * in one value (key's phase, or what, 0 in the map), so a request costs
 * one lookup, not one a histogram (5 for the phases, 3 for top: ~80 ns
 * each, docs/PERFORMANCE.md).  Named so that life_stack.bpf.c adds the
 * bio-based disks' bios to them too. */
HIST_N_VALUE(life_phase_hists, PH_NR);
HIST_N_VALUE(life_top_hists, TOP_NR);
#define LIFE_HIST_MAP(name, key_t, val_t, max)				\
	struct name {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);			\
		__uint(max_entries, max);				\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, key_t);					\
		__type(value, val_t);					\
	}
LIFE_HIST_MAP(life_phases_map, struct life_phase_key, struct life_phase_hists, 4096);
LIFE_HIST_MAP(life_tops_map, struct life_top_key, struct life_top_hists, 8192);
struct life_tops_spill_map {	/* (the phases' spill list too: the same shape) */
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct hist_spill);
};
/* Their first rows: hist.bpf.h's HIST_ROWS_PUT, 4 rows a CPU, two probes
 * (a disk's reads, writes and flushes seldom collide twice) */
#define LIFE_ROWS 4
#define LIFE_ROW_PROBES 2
HIST_ROW(life_phase_row, struct life_phase_key, struct life_phase_hists);
HIST_ROW(life_top_row, struct life_top_key, struct life_top_hists);
HIST_ROWS_MAP(life_phase_rows_map, struct life_phase_row, LIFE_ROWS);
HIST_ROWS_MAP(life_top_rows_map, struct life_top_row, LIFE_ROWS);
extern struct life_phases_map phases0 SEC(".maps"), phases1 SEC(".maps");
extern struct life_phase_rows_map phase_rows0 SEC(".maps"), phase_rows1 SEC(".maps");
extern struct life_top_rows_map top_rows0 SEC(".maps"), top_rows1 SEC(".maps");
extern struct life_tops_spill_map phases_spill SEC(".maps");
extern struct life_tops_map tops0 SEC(".maps"), tops1 SEC(".maps");
extern struct life_tops_spill_map tops_spill SEC(".maps");
extern __u32 epoch;
static struct life_phase_hists phases_zero;	/* a new key's value */
static struct life_top_hists tops_zero;

/* The values of the phases in mask (1 << PH_*), from v[PH_*], for dev and op. */
static __always_inline void phases_add(__u32 dev, __u32 op, const __u64 *v, __u32 mask)
{
	/* made in a register and stored whole: the hash loads it as one word,
	 * and a load over three narrower stores waits for them to reach the
	 * cache (3.5% of C's samples, PERFORMANCE.md "One transfer") */
	union { struct life_phase_key k; __u64 w; } u = {
		.w = (__u64)dev << (8 * __builtin_offsetof(struct life_phase_key, dev)) |
		     (__u64)op << (8 * __builtin_offsetof(struct life_phase_key, op)),
	};

	_Static_assert(sizeof(struct life_phase_key) == 8 && sizeof(((struct life_phase_key *)0)->dev) == 4,
		       "the phases' key is one word");
	if (targ_test_spill || !HIST_ROWS_PUT(phase_rows, epoch, &u.k, LIFE_ROWS, LIFE_ROW_PROBES, PH_NR, mask, ~0u, v))
		HIST_PUT_N(phases, epoch, &u.k, phase, PH_NR, mask, ~0u, v, &phases_zero, &stats.map_full);
}

/* Q2C, Q2G and bytes (v[TOP_*]) into k's row; k->what is 0.  top reads
 * Q2G's sum and the bytes' count and sum (top.c's top_take()), so only
 * Q2C's histogram is whole. */
static __always_inline void tops_add(struct life_top_key *k, const __u64 *v)
{
	if (targ_test_spill || !HIST_ROWS_PUT(top_rows, epoch, k, LIFE_ROWS, LIFE_ROW_PROBES, TOP_NR, ~0u, 1u << TOP_Q2C, v))
		HIST_PUT_N(tops, epoch, k, what, TOP_NR, ~0u, 1u << TOP_Q2C, v, &tops_zero, &stats.map_full);
}

#endif

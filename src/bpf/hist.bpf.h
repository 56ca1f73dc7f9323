/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_HIST_BPF_H
#define IODIG_HIST_BPF_H

#include "lib/hist.h"

/*
 * Add one value to a histogram.  Callers hand in a per-CPU value, yet the
 * adds are atomic: a raw tracepoint program can be interrupted on its CPU by
 * an interrupt that runs it again (block_rq_complete from a softirq; some
 * kernels, this project's 6.18 among them, have no recursion guard for raw
 * tracepoints), and a plain read-modify-write would then lose one count.
 * Seen here: 1 to 8 requests in 150k short of /proc/diskstats.  An
 * uncontended locked add on a per-CPU line costs a few ns.  min and max can
 * still race in that rare nesting; they are bounds for the eye.
 */
static __always_inline void hist_add(struct hist *h, __u64 v)
{
	__u32 slot = hist_slot(v);

	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
	if (slot < HIST_SLOTS)	/* bounds proof for the verifier */
		__sync_fetch_and_add(&h->slots[slot], 1);
}

/*
 * Histograms split by a key live in two per-CPU hashes, one per epoch: the
 * user side flips `epoch` and drains the half no longer written.  Declare
 * them with HIST_EPOCH_MAPS(prefix, key type, max entries).
 */
#define HIST_EPOCH_MAPS(prefix, key_t, max)				\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);			\
		__uint(max_entries, max);				\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, key_t);					\
		__type(value, struct hist);				\
	} prefix##0 SEC(".maps"), prefix##1 SEC(".maps")

static struct hist hist_zero;

/* The histogram for key, created empty when missing; NULL (and *full
 * counted) when the map has no room. */
static __always_inline struct hist *hist_get(void *map, void *key, __u64 *full)
{
	struct hist *h = bpf_map_lookup_elem(map, key);

	if (h)
		return h;
	/* EEXIST from a racing CPU is fine: look up again either way. */
	bpf_map_update_elem(map, key, &hist_zero, BPF_NOEXIST);
	h = bpf_map_lookup_elem(map, key);
	if (!h)
		__sync_fetch_and_add(full, 1);
	return h;
}

#endif

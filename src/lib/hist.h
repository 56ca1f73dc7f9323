/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one latency histogram of iodig, shared by the BPF side (update) and
 * the user side (merge, percentiles, rendering).
 *
 * Buckets are log2 ranges split into HIST_SUB linear sub-buckets (an HDR
 * histogram with 4 significant bits).  Values below HIST_SUB are exact; above,
 * a bucket [lo, hi) has hi - lo = lo / 16 at most, so reporting its midpoint
 * is within 1/32 (3.125%) of any value in it.  That is the stated bound on
 * every percentile iodig prints (HIST_REL_ERR).
 */
#ifndef IODIG_HIST_H
#define IODIG_HIST_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HIST_SUB_BITS	4
#define HIST_SUB	(1 << HIST_SUB_BITS)
/* Values at or above 2^HIST_MAX_LOG2 ns (~18 minutes) share the last slot. */
#define HIST_MAX_LOG2	40
#define HIST_SLOTS	((HIST_MAX_LOG2 - HIST_SUB_BITS + 1) * HIST_SUB)
#define HIST_REL_ERR	(1.0 / (2 * HIST_SUB))

struct hist {
	__u64 count;
	__u64 sum;
	__u64 min;
	__u64 max;
	__u32 slots[HIST_SLOTS];
};

/* A keyed histogram's values that found no room in its map (hist.bpf.h's
 * HIST_PUT), per CPU and epoch, folded in by the drain (histmap.h). */
#define HIST_SPILL_N	128
#define HIST_SPILL_KEY	64
/* An entry of a map of several histograms a key (HIST_PUT_N) holds all of
 * a request's values: its key's idx member is HIST_SPILL_ALL, the values
 * follow the key at HIST_SPILL_VOFF(key size), and v is the mask of those
 * given; the drain (histmap.c) reads it as one entry a value. */
#define HIST_SPILL_ALL	0xff
#define HIST_SPILL_VOFF(key_size)	(((key_size) + 7) & ~7UL)
struct hist_spill {
	__u32 n;
	__u32 pad;
	struct {
		__u64 v;
		__u8 key[HIST_SPILL_KEY];
	} e[HIST_SPILL_N];
};

/* floor(log2(v)) for v > 0, without clz: BPF has no such instruction. */
static inline __u32 hist_log2(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8)  { v >>= 8;  r += 8; }
	if (v >> 4)  { v >>= 4;  r += 4; }
	if (v >> 2)  { v >>= 2;  r += 2; }
	if (v >> 1)  { r += 1; }
	return r;
}

static inline __u32 hist_slot(__u64 v)
{
	__u32 e;

	if (v < HIST_SUB)
		return (__u32)v;
	e = hist_log2(v);
	if (e >= HIST_MAX_LOG2)
		return HIST_SLOTS - 1;
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       (__u32)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* v's bounds into h's, before its count moves */
static inline void hist_bounds(struct hist *h, __u64 v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* One value into h with plain adds: the user side's hist__add(), and the
 * BPF side's where no other run can be in the middle of h (hist.bpf.h). */
static inline void hist_add_plain(struct hist *h, __u64 v)
{
	__u64 slot = hist_slot(v);

	hist_bounds(h, v);
	h->count++;
	h->sum += v;
	/* a bounds proof for the verifier, on the register the index is then
	 * taken from, in 64 bits: 6.1's lost a 32-bit test's bound on the way
	 * to a 64-bit index (top on a dm disk, life_stack_end) */
	asm volatile("" : "+r"(slot));
	if (slot < HIST_SLOTS)
		h->slots[slot]++;
}

#endif

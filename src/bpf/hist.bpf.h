/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_HIST_BPF_H
#define IODIG_HIST_BPF_H

#include "lib/hist.h"

/*
 * Add one value to a histogram.  Callers hand in a per-CPU value, so plain
 * stores are enough: a program does not re-enter itself on one CPU.
 */
static __always_inline void hist_add(struct hist *h, __u64 v)
{
	__u32 slot = hist_slot(v);

	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	if (slot < HIST_SLOTS)	/* bounds proof for the verifier */
		h->slots[slot]++;
}

#endif

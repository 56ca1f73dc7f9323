/* SPDX-License-Identifier: GPL-2.0 */
/* Draining a per-CPU hash of histograms (one epoch of HIST_EPOCH_MAPS). */
#ifndef IODIG_HISTMAP_H
#define IODIG_HISTMAP_H

#include <stddef.h>
#include "hist.h"

/* Points the BPF side at the other epoch and returns the old one, once no
 * program run that read it is still going (an RCU grace period): the old
 * half is then settled and can be drained. */
__u32 histmap__flip(__u32 *epoch);

typedef int (*histmap_fn)(void *ctx, const void *key, const struct hist *h);

/* Calls fn with each key of the map fd (the epoch's half) and its
 * histogram summed over CPUs, with what the programs spilled for it
 * (spill_fd, HIST_PUT; -1: none) folded in; not for an empty one.  It
 * empties them: a key used since the last drain stays (the programs need not
 * allocate it again), one unused since is deleted.  Returns 0, a negative
 * errno, or what fn returned if not 0. */
int histmap__drain(int fd, int spill_fd, __u32 epoch, size_t key_size, histmap_fn fn, void *ctx);
/* The same for a map whose value is nhist histograms, the key's byte at
 * idx_off 0 (the index a spilled value's key names): fn is called for each
 * histogram with values, its key with the histogram's index at idx_off. */
int histmap__drain_n(int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist, size_t idx_off,
		     histmap_fn fn, void *ctx);

/* The same with rows in front of the map (hist.bpf.h's HIST_ROWS_PUT),
 * rows_fd the epoch's array: first fn for each histogram with values of
 * each CPU's held rows (a key in several is called for each), each row
 * emptied, then the map as histmap__drain_n() does it. */
int histmap__drain_rows(int rows_fd, int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist,
			size_t idx_off, histmap_fn fn, void *ctx);

/* Between drains: the keys the programs spilled so far in epoch, the one
 * they write (its spill list read, not emptied), made in its map fd, empty,
 * so that they find them from now on (made in their context, a new key's
 * value can find the kernel's allocator empty for a while: 5.10's per-CPU
 * atomic pool, hist.bpf.h).  nhist, idx_off as histmap__drain_n()'s.
 * Returns how many it made. */
int histmap__make_spilled(int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist, size_t idx_off);

#endif

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

	hist_bounds(h, v);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
	if (slot < HIST_SLOTS)	/* bounds proof for the verifier */
		__sync_fetch_and_add(&h->slots[slot], 1);
}

/*
 * Histograms split by a key live in two per-CPU hashes, one per epoch: the
 * user side flips `epoch` and drains the half no longer written.  Declare
 * them with HIST_EPOCH_MAPS(prefix, key type, max entries), add with
 * HIST_PUT.
 *
 * A new key is allocated in the program's context, from a per-CPU cache
 * the kernel refills later (bpf_mem_alloc, 6.1 on): it holds one element of
 * a histogram's size, so the second new key in a burst on a CPU finds it
 * empty (seen: top lost 2 of 20 requests with 3 new keys at once, on an idle
 * machine).  What finds no room is not lost: it goes to a spill list (key
 * and value) per CPU and epoch, which the drain folds in (histmap.h).  Only
 * a full spill list is map_full.
 */
#define HIST_EPOCH_MAPS(prefix, key_t, max)				\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);			\
		__uint(max_entries, max);				\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, key_t);					\
		__type(value, struct hist);				\
	} prefix##0 SEC(".maps"), prefix##1 SEC(".maps");		\
	_Static_assert(sizeof(key_t) <= HIST_SPILL_KEY, "key too large to spill"); \
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);		\
		__uint(max_entries, 2);					\
		__type(key, __u32);					\
		__type(value, struct hist_spill);			\
	} prefix##_spill SEC(".maps")

static struct hist hist_zero;

/* HIST_NO_ALLOC, where an object defines it before including this: true
 * makes hist_get() make no key, as when the kernel's allocator is empty in
 * the programs' context (tests only: IODIG_TEST_SPILL=1 sets the read-only
 * constant it names, and the life engine's programs then take no row
 * either, so that tests/live/hist_rows.sh holds the spill lists, and the
 * keys user space makes from them, to the disks' counts) */
#ifndef HIST_NO_ALLOC
#define HIST_NO_ALLOC false
#endif

/* The histogram (or histograms) for key, created as zero (an empty value
 * of the map's size) when missing; NULL when the map (or the allocator's
 * cache) has no room. */
static __always_inline void *hist_get(void *map, void *key, const void *zero)
{
	void *h = bpf_map_lookup_elem(map, key);

	if (h || HIST_NO_ALLOC)
		return h;
	/* EEXIST from a racing CPU is fine: look up again either way. */
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* Value v of *keyp onto the epoch's spill list of prefix; when that is
 * full, *full counted. */
#define HIST_SPILL(spill, ep_, keyp, val, full) ({				\
	__u32 __se = (ep_);							\
	struct hist_spill *__s = bpf_map_lookup_elem(&spill, &__se);		\
	__u32 __i = __s ? __s->n : HIST_SPILL_N;				\
										\
	if (__i < HIST_SPILL_N) {						\
		__i &= HIST_SPILL_N - 1;					\
		__builtin_memcpy(__s->e[__i].key, keyp, sizeof(*(keyp)));	\
		__s->e[__i].v = (val);						\
		__s->n = __i + 1;						\
	} else {								\
		__sync_fetch_and_add(full, 1);					\
	}									\
})

/* Value v into the histogram of *keyp in this epoch's map of prefix; when
 * it has no room, onto the epoch's spill list; when that is full too, *full
 * counted.  Constant map pointers in each branch: the verifier inlines
 * lookups on a known map, not on one chosen at run time. */
#define HIST_PUT(prefix, ep, keyp, val, full) ({				\
	__u32 __e = (ep) & 1;							\
	__u64 __v = (val);							\
	struct hist *__h = __e ? hist_get(&prefix##1, keyp, &hist_zero)	\
			       : hist_get(&prefix##0, keyp, &hist_zero);		\
										\
	if (__h)								\
		hist_add(__h, __v);						\
	else									\
		HIST_SPILL(prefix##_spill, __e, keyp, __v, full);		\
})

/* Several histograms under one key, one value of the map (each request
 * adds to all of them, so one lookup): vals[i] into histogram i for each i
 * below n in mask.  The value is a struct with the histograms in h[] and a
 * word `busy` after them (HIST_N_VALUE).  The key's member idx is 0 in the
 * map; a value that finds no room is spilled with idx set to its
 * histogram's index, which histmap__drain_n() reads back.
 *
 * Plain adds, not hist_add()'s locked ones (15 of them for the 5 phases:
 * 58 ns a request here, docs/PERFORMANCE.md): the value is per CPU, and
 * the one run that can come between a load and a store is a nested one on
 * the same CPU (see hist_add()).  busy is set around the adds, so a run
 * that nests there finds it set and spills instead; one that nests
 * anywhere else runs whole before the outer one goes on.  The compiler
 * barriers keep the adds between the two stores; a CPU sees its own
 * stores in order. */
#define HIST_N_VALUE(name, n) struct name { struct hist h[n]; __u64 busy; }

/* The adds of HIST_PUT_N into value hv, whose busy word the caller set.
 * A histogram in mask but not in whole takes only its count and sum: one
 * whose slots and bounds nobody reads (top's Q2G and bytes) is a sum. */
#define HIST_ADD_N(hv, n, mask, whole, vals) ({				\
	for (int __p = 0; __p < (n); __p++) {					\
		if (!((mask) & (1u << __p)))					\
			continue;						\
		if ((whole) & (1u << __p)) {					\
			hist_add_plain(&(hv)->h[__p], (vals)[__p]);		\
		} else {							\
			(hv)->h[__p].count++;					\
			(hv)->h[__p].sum += (vals)[__p];			\
		}								\
	}									\
})

/* The values of mask (vals[i] for each i below n in mask) of *keyp onto the
 * epoch's spill list in one entry: the key with its idx member 0xff, then
 * the n values (hist.h, HIST_SPILL_VOFF), v the mask; when the list is
 * full, *full counted once.  (One entry a request, not one a value: five
 * phases filled 128 entries in 25 requests, in a CI run while the kernel's
 * per-CPU allocator had no room for a new key's value.) */
#define HIST_SPILL_VALS(spill, ep_, keyp, nv, mask, vals, full) ({		\
	__u32 __se = (ep_);							\
	struct hist_spill *__s = bpf_map_lookup_elem(&spill, &__se);		\
	__u32 __i = __s ? __s->n : HIST_SPILL_N;				\
										\
	_Static_assert(HIST_SPILL_VOFF(sizeof(*(keyp))) + 8 * (nv) <= HIST_SPILL_KEY, \
		       "a key and its values in one spill entry");		\
	if (__i < HIST_SPILL_N) {						\
		__i &= HIST_SPILL_N - 1;					\
		__builtin_memcpy(__s->e[__i].key, keyp, sizeof(*(keyp)));	\
		for (int __p = 0; __p < (nv); __p++)				\
			((__u64 *)&__s->e[__i].key[HIST_SPILL_VOFF(sizeof(*(keyp)))])[__p] = \
				(mask) & (1u << __p) ? (vals)[__p] : 0;		\
		__s->e[__i].v = (mask);						\
		__s->n = __i + 1;						\
	} else {								\
		__sync_fetch_and_add(full, 1);					\
	}									\
})

#define HIST_PUT_N(prefix, ep, keyp, idx, n, mask, whole, vals, zero, full) ({ \
	__u32 __e = (ep) & 1;							\
	typeof(zero) __hv = __e ? hist_get(&prefix##1, keyp, zero)		\
				: hist_get(&prefix##0, keyp, zero);		\
										\
	if (__hv && !__hv->busy) {	/* (no arithmetic on __hv before this test: the verifier) */ \
		__hv->busy = 1;							\
		asm volatile("" ::: "memory");					\
		HIST_ADD_N(__hv, n, mask, whole, vals);				\
		asm volatile("" ::: "memory");					\
		__hv->busy = 0;							\
	} else {								\
		(keyp)->idx = HIST_SPILL_ALL;					\
		HIST_SPILL_VALS(prefix##_spill, __e, keyp, n, mask, vals, full); \
	}									\
})

/*
 * Rows: the first keys of a HIST_N_VALUE map, per CPU, in an array in front
 * of it.  A key's row is at its hash or the next (probes); the first key
 * to come to a free row on a CPU holds it until the drain empties it, and a
 * key whose rows others hold goes to the hash as before.  An array element
 * is found in place (on 6.18 the verifier inlines the lookup: the JIT adds
 * this CPU's offset from %gs, no call), where a hash key is hashed, walked
 * to and compared: 56 ns a request here (docs/PERFORMANCE.md).  A row is
 * HIST_ROW(name, key type, value type): the key (a multiple of 8 bytes),
 * a word that says it is held, and the value, whose busy word keeps a
 * nested run out as HIST_PUT_N's does.  histmap__drain_rows() reads them.
 */
#define HIST_ROW(name, key_t, val_t)						\
	struct name { key_t key; __u64 used; val_t v; };			\
	_Static_assert(sizeof(key_t) % 8 == 0, "a row's key is compared by words")

#define HIST_ROWS_MAP(name, row_t, nrows)					\
	struct name {								\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);			\
		__uint(max_entries, nrows);					\
		__type(key, __u32);						\
		__type(value, row_t);						\
	}

static __always_inline __u32 hist_key_hash(const void *k, __u32 size)
{
	__u64 h = 0;

	for (__u32 i = 0; i < size / 8; i++)
		h = (h ^ ((const __u64 *)k)[i]) * 0x9E3779B97F4A7C15ULL;
	return h >> 32;
}

static __always_inline bool hist_key_eq(const void *a, const void *b, __u32 size)
{
	for (__u32 i = 0; i < size / 8; i++)
		if (((const __u64 *)a)[i] != ((const __u64 *)b)[i])
			return false;
	return true;
}

/* The row at *atp of the epoch's rows: a lookup on a constant map in each
 * branch, and a different asm after each, so that the compiler does not
 * make the two one call on a map picked at run time (it did, with a
 * ternary), which the verifier cannot inline: a helper call through the
 * map's ops, in every request's C. */
#define HIST_ROW_AT(prefix, ep, atp) ({						\
	typeof(*(prefix##0).value) *__ra;					\
										\
	if ((ep) & 1) {								\
		__ra = bpf_map_lookup_elem(&prefix##1, atp);			\
		asm volatile("%0 = %0" : "+r"(__ra));				\
	} else {								\
		__ra = bpf_map_lookup_elem(&prefix##0, atp);			\
		asm volatile("" : "+r"(__ra));					\
	}									\
	__ra;									\
})

/* vals into the row of *keyp in this epoch's rows (prefix##0 or 1, of
 * nrows, a power of 2): true when it had one, or took a free one. */
#define HIST_ROWS_PUT(prefix, ep, keyp, nrows, probes, n, mask, whole, vals) ({ \
	__u32 __h = hist_key_hash(keyp, sizeof(*(keyp)));			\
	bool __mine = false;							\
										\
	for (int __j = 0; __j < (probes) && !__mine; __j++) {			\
		__u32 __at = (__h + __j) & ((nrows) - 1);			\
		typeof(*(prefix##0).value) *__r = HIST_ROW_AT(prefix, ep, &__at); \
										\
		if (!__r || __r->v.busy)					\
			continue;						\
		__r->v.busy = 1;						\
		asm volatile("" ::: "memory");					\
		__mine = __r->used && hist_key_eq(&__r->key, keyp, sizeof(*(keyp))); \
		if (!__mine && !__r->used) {					\
			__r->key = *(keyp);					\
			__r->used = 1;						\
			__mine = true;						\
		}								\
		if (__mine)							\
			HIST_ADD_N(&__r->v, n, mask, whole, vals);		\
		asm volatile("" ::: "memory");					\
		__r->v.busy = 0;						\
	}									\
	__mine;									\
})

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig stacks: at each event, the kernel and user stacks of the task it
 * happened in, counted per (process, stacks, disk) in a hash.  Block I/O
 * submission is block_bio_queue, which runs in the submitter's context
 * (for writeback, the flusher's).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stacks.h"
#include "filter.bpf.h"
#include "events.bpf.h"
#include "hist.bpf.h"
#include "ptr.bpf.h"
#include "ustack.bpf.h"
#include "kmemo.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool targ_kernel = true;
const volatile bool targ_user = true;
const volatile __u32 filter_pid = 0;	/* a process (tgid), or 0 */

struct stacks_stats stats;

STACK_MAP(stackmap, STACKS_MAX, STACKS_DEPTH);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STACKS_KEYS);
	__type(key, struct stacks_key);
	__type(value, struct stacks_val);
} counts SEC(".maps");

/* An array, not a hash: no allocation and no lock at each bio (the LRU
 * hash before cost about 1100 ns a bio here, its insert and its delete
 * on different CPUs, docs/PERFORMANCE.md).  A slot whose bio never ends
 * where it is looked for (a completion the kernel ran no program for) is
 * simply taken by the next bio that hashes to it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STACKS_INFLIGHT);
	__type(key, __u32);
	__type(value, struct stacks_inflight);
} inflight SEC(".maps");

__u64 ptr_anchor;	/* ptr.bpf.h */

/* user stacks, walked by ustack.bpf.h where the kernel allows */
USTACK_MAP(ustackmap, STACKS_MAX);
/* block submission's kernel stacks, memoized by kmemo.bpf.h where it can */
USTACK_MAP(kstackmap, STACKS_MAX);

static __always_inline __u32 slot_of(__u64 key)
{
	return (__u32)(((key >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - STACKS_INFLIGHT_BITS));
}

static struct stacks_val val_zero;

/* One event: its stacks counted.  bio: a submission's, timed to its end
 * where its disk has requests; memo: the kernel stack from kmemo_stackid()
 * (a tp_btf or raw_tp program's ctx) */
static __always_inline int count(void *ctx, __u32 dev, __u64 bytes, struct bio *bio, bool memo)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct stacks_key k = {};
	struct stacks_val *v;

	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	k.pid = id >> 32;
	k.dev = dev;
	if (!targ_kernel)
		k.kstack = -1;
	else if (memo)
		k.kstack = kmemo_stackid(ctx, &kstackmap, &stackmap);
	else
		k.kstack = kstack_take(ctx, &kstackmap, &stackmap);
	k.ustack = targ_user ? ustack_take(ctx, &ustackmap, &stackmap) : -1;
	/* -EFAULT: no user stack (a kernel thread); else lost, and counted */
	if (targ_kernel && k.kstack < 0)
		__sync_fetch_and_add(&stats.kstack_lost, 1);
	if (targ_user && k.ustack < 0 && k.ustack != -14)
		__sync_fetch_and_add(&stats.ustack_lost, 1);
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	__sync_fetch_and_add(&stats.events, 1);
	v = bpf_map_lookup_elem(&counts, &k);
	if (!v) {
		bpf_map_update_elem(&counts, &k, &val_zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &k);
		if (!v) {
			__sync_fetch_and_add(&stats.map_full, 1);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->bytes, bytes);
	/* timed only where its end is looked for: a disk with requests (asked
	 * here, after the stacks: one verifier state through them, not two) */
	if (bio && bio_to_mq(bio)) {
		__u64 key = ptr_val(bio), now = bpf_ktime_get_ns();
		__u32 i = slot_of(key);
		struct stacks_inflight *in = bpf_map_lookup_elem(&inflight, &i);

		if (!in)
			return 0;
		/* (a slot a second old: its bio's end was not seen) */
		if (in->bio && now - in->ts < 1000000000ull)
			__sync_fetch_and_add(&stats.inflight_full, 1);
		in->bio = key;
		in->ts = now;
		in->k = k;
	}
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(stacks_bio, block_bio_queue, struct bio *bio)
{
	if (!bio_wanted(bio) || !cgroup_wanted(bio))
		return 0;
	return count(ctx, bio_dev(bio), bio->bi_iter.bi_size, bio, true);
}

/*
 * A bio's end, timed from its submission.  block_bio_complete cannot be
 * used: on this host (6.18) it fires for no bio that ends through a request
 * (bpftrace: 158 block_bio_queue, 0 block_bio_complete for 100 reads).  So
 * the ends are read at block_rq_complete, as blk_update_request() makes
 * them: the request's bios in order, each ending if the bytes completed
 * cover it (the event fires before the update, sizes still whole).
 */
struct rq_done {
	struct bio *bio;	/* the next bio of the request */
	__u32 left;		/* bytes completed not yet given to a bio */
	bool wanted;		/* the request's first bio passes the filters */
	__u64 now;
	__u64 anchor;		/* ptr_anchor_num(), read once for the loop */
};

/* A bio the completed bytes cover ends: its time into its stack's. */
static __always_inline void bio_end(struct rq_done *d, __u64 key)
{
	__u32 slot = slot_of(key);
	struct stacks_inflight *in = bpf_map_lookup_elem(&inflight, &slot);
	struct stacks_val *v;

	if (in && in->bio == key) {
		v = bpf_map_lookup_elem(&counts, &in->k);
		if (v)
			hist_add(&v->lat, d->now - in->ts);
		in->bio = 0;
	} else if (d->wanted) {
		__sync_fetch_and_add(&stats.unmatched, 1);
	}
}

/* The request's next bio: ends if the bytes cover it; 1 stops the loop. */
static long bio_done(__u64 i, void *arg)
{
	struct rq_done *d = arg;
	struct bio *bio = d->bio;
	__u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);

	if (!bio || size > d->left)
		return 1;	/* the end, or only part of it done: it ends later */
	d->left -= size;
	/* (the callback's bio is a number: ptr_num_val() with the anchor read once) */
	bio_end(d, (__u64)bio - d->anchor);
	d->bio = BPF_CORE_READ(bio, bi_next);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(stacks_rq_done, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct bio *first = rq->bio;
	struct rq_done d = { .left = nr_bytes };
	__u32 size;

	if (!first)
		return 0;
	size = first->bi_iter.bi_size;
	if (size > nr_bytes)
		return 0;	/* only part of it done: it ends later */
	d.now = bpf_ktime_get_ns();
	d.wanted = bio_wanted(first) && cgroup_wanted(first);
	d.left -= size;
	/* the first bio through typed pointers, here: most requests hold one */
	bio_end(&d, ptr_val(first));
	if (!d.left)
		return 0;
	/* the others as numbers (the callback's bio is a plain pointer), in
	 * bpf_loop (5.17): a request can hold hundreds, too many to unroll */
	d.bio = BPF_CORE_READ(first, bi_next);
	d.anchor = ptr_anchor_num();
	bpf_loop(STACKS_RQ_BIOS, bio_done, &d, 0);
	return 0;
}

/* any tracepoint, by name (attached by stacks.c; its ctx, as tp_btf's, on
 * the stack of the kernel's bpf_trace_run*(): memos hold) */
SEC("raw_tp")
int stacks_tp(void *ctx)
{
	return count(ctx, 0, 0, NULL, true);
}

/* a kernel function, where the kernel allows (stacks.c attaches through the
 * attach layer: fentry for one function, kprobe-multi or kprobes) */
SEC("fentry/vfs_read")
int BPF_PROG(stacks_fentry)
{
	return count(ctx, 0, 0, NULL, false);
}

SEC("kprobe")
int stacks_kprobe(struct pt_regs *ctx)
{
	return count(ctx, 0, 0, NULL, false);
}

SEC("kprobe.multi")
int stacks_kmulti(struct pt_regs *ctx)
{
	return count(ctx, 0, 0, NULL, false);
}

/* a user function (attached by stacks.c through the attach layer) */
SEC("uprobe")
int stacks_uprobe(struct pt_regs *ctx)
{
	return count(ctx, 0, 0, NULL, false);
}

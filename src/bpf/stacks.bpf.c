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

static __always_inline int count(void *ctx, __u32 dev, __u64 bytes)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct stacks_key k = {};
	struct stacks_val *v, zero = {};

	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	k.pid = id >> 32;
	k.dev = dev;
	k.kstack = targ_kernel ? bpf_get_stackid(ctx, &stackmap, 0) : -1;
	k.ustack = targ_user ? bpf_get_stackid(ctx, &stackmap, BPF_F_USER_STACK) : -1;
	/* -EFAULT: no user stack (a kernel thread); else lost, and counted */
	if (targ_kernel && k.kstack < 0)
		__sync_fetch_and_add(&stats.kstack_lost, 1);
	if (targ_user && k.ustack < 0 && k.ustack != -14)
		__sync_fetch_and_add(&stats.ustack_lost, 1);
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	__sync_fetch_and_add(&stats.events, 1);
	v = bpf_map_lookup_elem(&counts, &k);
	if (!v) {
		bpf_map_update_elem(&counts, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &k);
		if (!v) {
			__sync_fetch_and_add(&stats.map_full, 1);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->bytes, bytes);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(stacks_bio, struct bio *bio)
{
	if (!bio_wanted(bio) || !cgroup_wanted(bio))
		return 0;
	return count(ctx, bio_dev(bio), bio->bi_iter.bi_size);
}

/* any tracepoint, by name (attached by stacks.c) */
SEC("raw_tp")
int stacks_tp(void *ctx)
{
	return count(ctx, 0, 0);
}

/* a user function (attached by stacks.c through the attach layer) */
SEC("uprobe")
int stacks_uprobe(struct pt_regs *ctx)
{
	return count(ctx, 0, 0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig func: latency of kernel or user functions.  The same entry/return
 * pair is compiled for each way of attaching (fentry/fexit, kprobe, kprobe-
 * multi, uprobe); the user side loads only the pair it uses.  A function is
 * known by its cookie (its index in the user side's list), or, for fentry,
 * which attaches one program to one function, by targ_fentry_id.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "hist.bpf.h"
#include "events.bpf.h"
#include "func.h"
#include "ustack.bpf.h"

const volatile __u32 filter_pid = 0;
const volatile __u32 targ_fentry_id = 0;
const volatile bool targ_kstack = false;	/* -K */
const volatile bool targ_ustack = false;	/* -U */

__u32 epoch;
struct func_stats stats;

static struct func_stack stack_zero;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);	/* threads come and go: bounded */
	__uint(max_entries, 16384);
	__type(key, __u32);			/* tid */
	__type(value, struct func_stack);
} stacks SEC(".maps");

HIST_EPOCH_MAPS(hists, struct func_key, FUNC_KEYS);
STACK_MAP(stackmap, FUNC_STACKS, FUNC_STACK_DEPTH);
/* -U: user stacks walked by ustack.bpf.h where it can (else in stackmap) */
USTACK_MAP(ustackmap, FUNC_STACKS);
/* -K: kernel stacks by a hash of their frames where it can (kstack_take()) */
USTACK_MAP(kstackmap, FUNC_STACKS);
_Static_assert(FUNC_STACK_DEPTH == USTACK_DEPTH, "one depth for both maps");

/* The stack of the call being entered: its id, or -2 when none was taken
 * (-1: not asked).  A user stack that is not there (-EFAULT, a kernel
 * thread) is no loss; any other failure is counted in lost. */
static __always_inline __s32 stack_kept(long id, __u64 *lost)
{
	if (id < 0 && id != -14)
		__sync_fetch_and_add(lost, 1);
	return id < 0 ? -2 : id;
}

static __always_inline int on_entry(void *ctx, __u32 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, d;
	struct func_stack *st;

	if (filter_pid && (pid_tgid >> 32) != filter_pid)
		return 0;
	st = bpf_map_lookup_elem(&stacks, &tid);
	if (!st) {
		bpf_map_update_elem(&stacks, &tid, &stack_zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stacks, &tid);
		if (!st) {
			__sync_fetch_and_add(&stats.threads_full, 1);
			return 0;
		}
	}
	d = st->depth;
	if (d >= FUNC_MAX_DEPTH) {
		__sync_fetch_and_add(&stats.too_deep, 1);
	} else {
		st->f[d].id = id;
		st->f[d].kstack = !targ_kstack ? -1 : stack_kept(kstack_take(ctx, &kstackmap, &stackmap), &stats.kstack_lost);
		st->f[d].ustack = !targ_ustack ? -1 :
				  stack_kept(ustack_take(ctx, &ustackmap, &stackmap), &stats.ustack_lost);
		st->f[d].ts = bpf_ktime_get_ns();
	}
	st->depth = d + 1;
	return 0;
}

static __always_inline int on_return(__u32 id)
{
	__u64 now = bpf_ktime_get_ns(), pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, d, ep = epoch & 1;
	struct func_stack *st;
	struct func_key k;
	__u64 ts;

	if (filter_pid && (pid_tgid >> 32) != filter_pid)
		return 0;
	st = bpf_map_lookup_elem(&stacks, &tid);
	if (!st || !st->depth) {
		__sync_fetch_and_add(&stats.unmatched, 1);
		return 0;
	}
	d = st->depth - 1;
	st->depth = d;
	if (d >= FUNC_MAX_DEPTH)
		return 0;		/* counted as too deep at entry */
	if (st->f[d].id != id) {
		/* a return lost under us (kretprobe maxactive): drop the frame */
		__sync_fetch_and_add(&stats.unmatched, 1);
		return 0;
	}
	ts = st->f[d].ts;
	k.id = id;
	k.pid = targ_ustack ? pid_tgid >> 32 : 0;
	k.kstack = st->f[d].kstack;
	k.ustack = st->f[d].ustack;
	HIST_PUT(hists, ep, &k, now - ts, &stats.map_full);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(func_fentry) { return on_entry(ctx, targ_fentry_id); }

SEC("fexit/vfs_read")
int BPF_PROG(func_fexit) { return on_return(targ_fentry_id); }

SEC("kprobe")
int func_kprobe(struct pt_regs *ctx) { return on_entry(ctx, (__u32)bpf_get_attach_cookie(ctx)); }

SEC("kretprobe")
int func_kretprobe(struct pt_regs *ctx) { return on_return((__u32)bpf_get_attach_cookie(ctx)); }

SEC("kprobe.multi")
int func_kmulti(struct pt_regs *ctx) { return on_entry(ctx, (__u32)bpf_get_attach_cookie(ctx)); }

SEC("kretprobe.multi")
int func_kretmulti(struct pt_regs *ctx) { return on_return((__u32)bpf_get_attach_cookie(ctx)); }

SEC("uprobe")
int func_uprobe(struct pt_regs *ctx) { return on_entry(ctx, (__u32)bpf_get_attach_cookie(ctx)); }

SEC("uretprobe")
int func_uretprobe(struct pt_regs *ctx) { return on_return((__u32)bpf_get_attach_cookie(ctx)); }

char LICENSE[] SEC("license") = "GPL";

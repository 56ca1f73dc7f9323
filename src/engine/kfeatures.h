/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BPF features as iodig uses them: probed once, cached. */
#ifndef IODIG_KFEATURES_H
#define IODIG_KFEATURES_H

#include <stdbool.h>

struct features {
	bool btf, fentry, kprobe, kprobe_multi, uprobe, ringbuf, cookie, bpf_stats, tp_btf;
	bool atomic_fetch, task_storage, loop;
	char why_fentry[160], why_kprobe[160], why_kprobe_multi[160], why_uprobe[160];
};

/* Each mechanism tried for real (loads and attaches a tiny program), the
 * first time only: the answer is kept for the process. */
const struct features *features__get(void);

/* What some commands' BPF programs are made of and older kernels lack. */
enum kneed {
	NEED_ATOMIC_FETCH,	/* atomic fetch-and-add: the request engine's tag ring */
	NEED_TASK_STORAGE,	/* BPF task storage: why, cache, readahead */
	NEED_LOOP,		/* bpf_loop(): stacks, readahead */
	NEED_COOKIE,		/* BPF cookies: func */
	NEED_N
};
/* Has this kernel got it?  Tried for real (a map created, a program with
 * the instruction or the helper loaded), once. */
bool kfeatures__has(enum kneed n);
/* 0, or the one-line error "CMD needs WHAT (Linux V); this kernel (RELEASE)
 * has none: `iodig probe` says what works here", returned as fail() does. */
int kfeatures__need(enum kneed n, const char *cmd);

struct btf;
/*
 * Steal time, a vCPU's time the hypervisor gave to something else: kvm's
 * per-CPU steal_time.steal (ns).  A BPF program cannot name a per-CPU
 * variable on a kernel without CONFIG_KALLSYMS_ALL (the verifier looks its
 * address up in kallsyms: "ldimm64 failed to find the address"), this
 * project's 6.18 among them, so it gets there from one it can reach: this
 * CPU's run queue, the current task's se.cfs_rq->rq (with
 * CONFIG_FAIR_GROUP_SCHED), plus the distance this returns between the two
 * in .data..percpu (vmlinux BTF's DATASEC), plus .steal's offset (CO-RE);
 * 0 when any of them is missing (no CONFIG_KVM_GUEST: not a kvm guest).
 */
long long kfeatures__steal_off(const struct btf *vmlinux);

#endif

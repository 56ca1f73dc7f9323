/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user stack, walked here by its frame pointers, where the kernel's walk
 * (bpf_get_stackid(BPF_F_USER_STACK), perf_callchain_user()) costs a fault.
 *
 * Both follow the same chain: the user ip, then from the user bp, each
 * frame's {next frame, return address}.  Most of Debian is built without
 * frame pointers, and there bp holds whatever the code put in it: the
 * kernel's walk follows it until a read faults, and the fault and its
 * fix-up were about half of its cost (`stacks -U` beside fio: 1320 ns a
 * request, 687 with this walk; docs/PERFORMANCE.md "stacks: a user walk
 * without a fault").  It also keeps the garbage frames it read on the way,
 * which make every stack of one call site a different one (fio's one
 * submission path: 1905 distinct stacks for 20,000 reads, 1047 of them lost
 * to collisions in the stack map).
 *
 * This walk reads a frame only where a frame can be: 8-aligned, above the
 * last one, within USTACK_SPAN of the user sp (glibc's default thread stack
 * and the default stack rlimit).  A chain with frame pointers is all there,
 * and the walk gives what the kernel's gives (checked side by side on every
 * bio of fio, io_uring, ext4 and python: equal, or the kernel's with its
 * garbage tail cut; never another); without frame pointers it stops before
 * the garbage.  It leaves out a chain that leaves the stack (a signal
 * handler on sigaltstack, a stack deeper than 8 MiB).
 *
 * The kernel still walks (bpf_get_stack(), into the same map) where its
 * walk knows more: a 32-bit task (frames of another shape), and a task the
 * kernel's uprobes have touched (task->utask): in a uprobe at a function's
 * entry the kernel adds the caller from the stack ("perf,x86: avoid
 * missing caller address in stack traces captured in uprobe", 6.11), and
 * puts back the return addresses a uretprobe replaced with its trampoline.
 *
 * The stacks are kept by a 64-bit hash of their frames, in a hash map by
 * 31 bits of it, with the map shape of a stack map (the frames, 0 after the
 * last), so the user side reads either alike (frames__read()).  A stack
 * whose id names another is lost, as the stack map's collisions are.
 *
 * Needs bpf_task_pt_regs() (5.15), bpf_get_current_task_btf() (5.11) and
 * bpf_loop() (5.17); without them ustack_walk is false (the user side
 * decides: bpfenv__ustack_walk()) and the kernel walks.
 */
#ifndef IODIG_USTACK_BPF_H
#define IODIG_USTACK_BPF_H

#include <bpf/bpf_core_read.h>

#define USTACK_DEPTH 127
#define USTACK_SPAN (8ull << 20)
/* The x86-64 user code segment (GDT_ENTRY_DEFAULT_USER_CS * 8 + 3, the
 * ABI's, arch/x86/include/asm/segment.h): any other is a 32-bit task. */
#define USTACK_USER_CS 0x33

struct ustack_ips {
	__u64 ip[USTACK_DEPTH];
};

#define USTACK_MAP(name, max)				\
	struct {					\
		__uint(type, BPF_MAP_TYPE_HASH);	\
		__uint(max_entries, max);		\
		__type(key, __u32);			\
		__type(value, struct ustack_ips);	\
	} name SEC(".maps")

struct ustack_scratch {
	struct ustack_ips s;
	__u64 seq;		/* walks begun on this CPU */
	__u32 n;		/* frames the last walk left in s */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_scratch);
} ustack_scratch SEC(".maps");

const volatile bool ustack_walk = false;	/* set by the user side */
const volatile bool kstack_keep = false;	/* ... and this: kstack_take() keeps by a hash */

static __always_inline __u64 ustack_mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/* What the bpf_loop() callbacks below share (loops verified once, not 127
 * times for each program that walks: 360 ms of start-up before). */
struct ustack_loop {
	struct ustack_scratch *w;
	__u64 sp, lo, fp, h;
	__u32 n;
};

/* stack_keep()'s: a stack and the one the map holds under its id */
struct stack_cmp {
	const struct ustack_ips *old, *s;
	bool differ;
};

/* Frame j + 1: {next frame, return address} at fp, where a frame can be. */
static long ustack_step(__u64 j, void *arg)
{
	struct ustack_loop *c = arg;
	struct { __u64 next, ret; } f;
	__u64 i = j + 1;

	if (i >= USTACK_DEPTH)
		return 1;
	barrier_var(i);	/* (the bound kept on the register that indexes) */
	if (c->fp < c->lo || c->fp - c->sp >= USTACK_SPAN || (c->fp & 7))
		return 1;
	if (bpf_probe_read_user(&f, sizeof(f), (void *)c->fp) || !f.ret)
		return 1;
	c->w->s.ip[i] = f.ret;
	c->h = ustack_mix(c->h, f.ret);
	c->n = i + 1;
	c->lo = c->fp + sizeof(f);
	c->fp = f.next;
	return 0;
}

/* What the last walk on this CPU left past this one's end: 0. */
static long ustack_clear(__u64 j, void *arg)
{
	struct ustack_loop *c = arg;
	__u64 i = c->n + j;

	if (i >= USTACK_DEPTH)
		return 1;
	barrier_var(i);
	c->w->s.ip[i] = 0;
	return 0;
}

/* Frame j the same in the map's stack as in this walk (and the 0 after). */
static long stack_same(__u64 j, void *arg)
{
	struct stack_cmp *c = arg;

	if (j >= USTACK_DEPTH)
		return 1;
	barrier_var(j);
	if (c->old->ip[j] != c->s->ip[j]) {
		c->differ = true;
		return 1;
	}
	return 0;
}

/*
 * A stack of n frames (s, 0 after the last) hashed to h into map (a
 * USTACK_MAP): its id, or what bpf_get_stackid() would say: -EEXIST (17)
 * for a collision, -ENOMEM (12) for a full map.
 */
static __always_inline __s32 stack_keep(void *map, const struct ustack_ips *s, __u32 n, __u64 h)
{
	struct stack_cmp c = { .s = s };
	__u32 key = (__u32)(h >> 33);

	c.old = bpf_map_lookup_elem(map, &key);
	if (!c.old) {
		if (!bpf_map_update_elem(map, &key, s, BPF_NOEXIST))
			return key;
		c.old = bpf_map_lookup_elem(map, &key);	/* another CPU's, or full */
		if (!c.old)
			return -12;
	}
	bpf_loop(n + 1, stack_same, &c, 0);
	return c.differ ? -17 : key;
}

/* stack_hash()'s */
struct stack_sum {
	const struct ustack_ips *s;
	__u64 h;
};

/* Frame j into the hash (a walk of the kernel's, bpf_get_stack()) */
static long stack_hash(__u64 j, void *arg)
{
	struct stack_sum *c = arg;

	if (j >= USTACK_DEPTH)
		return 1;
	barrier_var(j);
	c->h = ustack_mix(c->h, c->s->ip[j]);
	return 0;
}

/* The hash of the n frames of s, as the user walk makes it */
static __always_inline __u64 stack_hash_of(const struct ustack_ips *s, __u32 n)
{
	struct stack_sum c = { .s = s };

	bpf_loop(n, stack_hash, &c, 0);
	return c.h;
}

/* Does the kernel's walk know more of this task's stack (above)? */
static __always_inline bool ustack_kernel_walks(struct task_struct *t, struct pt_regs *regs)
{
	if (BPF_CORE_READ(regs, cs) != USTACK_USER_CS)
		return true;
	return bpf_core_field_exists(t->utask) && t->utask;
}

/*
 * The current task's user stack into map (a USTACK_MAP): its id, or what
 * bpf_get_stackid() would say: -EFAULT (14) for none (a kernel thread),
 * -EEXIST (17) for a collision, -ENOMEM (12) for a full map or a walk
 * interrupted.  kfallback: the stack map bpf_get_stackid() uses where the
 * kernel has none of what this needs (!ustack_walk).
 */
static __always_inline __s32 ustack_take(void *ctx, void *map, void *kfallback)
{
	struct ustack_loop c = {};
	struct task_struct *t;
	struct pt_regs *regs;
	struct ustack_scratch *w;
	__u32 zero = 0, last;
	__u64 seq, ip;
	long r;

	if (!ustack_walk)
		return bpf_get_stackid(ctx, kfallback, BPF_F_USER_STACK);
	t = bpf_get_current_task_btf();
	if (!t->mm)
		return -14;	/* a kernel thread */
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	ip = BPF_CORE_READ(regs, ip);
	if (!ip)
		return -14;	/* an io_uring worker: no user registers */
	w = bpf_map_lookup_elem(&ustack_scratch, &zero);
	if (!w)
		return -12;
	seq = ++w->seq;
	c.w = w;
	if (ustack_kernel_walks(t, regs)) {
		/* (the rest of the buffer zeroed by the helper) */
		r = bpf_get_stack(ctx, &w->s, sizeof(w->s), BPF_F_USER_STACK);
		if (r <= 0)
			return r < 0 ? r : -14;
		c.n = r / sizeof(__u64);
		c.h = stack_hash_of(&w->s, c.n);
	} else {
		w->s.ip[0] = ip;
		c.h = ustack_mix(0, ip);
		c.sp = c.lo = BPF_CORE_READ(regs, sp);
		c.fp = BPF_CORE_READ(regs, bp);
		c.n = 1;
		bpf_loop(USTACK_DEPTH - 1, ustack_step, &c, 0);
		last = w->n;
		if (last > c.n)
			bpf_loop(last - c.n, ustack_clear, &c, 0);
	}
	w->n = c.n;
	/* (a walk interrupted by another on this CPU: lost) */
	if (w->seq != seq)
		return -12;
	return stack_keep(map, &w->s, c.n, c.h);
}

/*
 * The current kernel stack, less its first skip frames, walked into s and
 * kept in map (a USTACK_MAP) by a 64-bit hash of its frames: its id, or a
 * negative errno as bpf_get_stackid() gives; *n: the frames in s.
 */
static __always_inline __s32 kstack_walk_keep(void *ctx, struct ustack_ips *s, __u32 skip, void *map, __u32 *n)
{
	/* (the rest of the buffer zeroed by the helper) */
	long r = bpf_get_stack(ctx, s, sizeof(*s), skip);

	if (r <= 0)
		return r < 0 ? r : -14;
	*n = r / sizeof(__u64);
	return stack_keep(map, s, *n, stack_hash_of(s, *n));
}

/*
 * The current kernel stack, the frames bpf_get_stackid(ctx, kfallback, 0)
 * would keep, into map by a hash of them (kstack_walk_keep()).  A stack map
 * keeps one stack an id, jhash2 of the frames masked to its size, and loses
 * a second stack whose id meets the first's (-EEXIST; which stacks meet
 * changes with each load, docs/DESIGN.md); here two meet about once in
 * 2^31.  Without kstack_keep (no bpf_loop: before 5.17), into kfallback.
 */
static __always_inline __s32 kstack_take(void *ctx, void *map, void *kfallback)
{
	struct ustack_scratch *w;
	__u32 zero = 0, n = 0;
	__u64 seq;
	__s32 id;

	if (!kstack_keep)
		return bpf_get_stackid(ctx, kfallback, 0);
	w = bpf_map_lookup_elem(&ustack_scratch, &zero);
	if (!w)
		return -12;
	seq = ++w->seq;
	id = kstack_walk_keep(ctx, &w->s, 0, map, &n);
	w->n = n;
	/* (a walk interrupted by another on this CPU: lost) */
	return w->seq != seq ? -12 : id;
}

#endif

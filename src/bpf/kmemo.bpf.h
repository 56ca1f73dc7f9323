/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel stack walked once for each call path, not at each event.
 *
 * The kernel's walk (the ORC unwinder, about 120 ns a frame here) was about
 * 2000 of the 2600-2900 ns `stacks` paid for each bio (docs/PERFORMANCE.md,
 * "stacks: a walk for each path").  What the walk gives depends only on
 * what it reads: it starts at the same place below the program for every
 * event of one tracepoint, and from each frame it reads a return address at
 * a place that the frame's own address and the ORC table fix.  So where the
 * words the last walk of a path read as return addresses are the same words
 * at the same places again, the walk would give the same stack.
 *
 * A memo keeps a stack, its id and where each of its return addresses sat:
 * bytes above the program's context (the args array on the stack of the
 * kernel's bpf_trace_run*(), which runs the program), or, for the frame
 * that returns into the syscall entry, bytes below the task's user
 * registers at the top of its stack.  The two ends, because a syscall moves
 * everything below that frame by a random 0-1008 bytes
 * (CONFIG_RANDOMIZE_KSTACK_OFFSET, on here): the distances above the
 * context stay, the distance to the top does not.  An event copies its
 * task's stack from the context to the top (one helper call), and tries
 * the CPU's memos: each one's outermost frame, then every place it keeps.
 * The context, not the program's own stack: since 6.13 a tracing program's
 * frame may be in per-CPU memory ("bpf: Support private stack for bpf
 * progs"), off the task's stack.
 *
 * The places are found by looking for the walk's return addresses, in
 * order, above the context.  A copy of a return address kept by its callee
 * in the frame below (a spilled __builtin_return_address) would be found
 * first, and then a stale copy could pass for it; so every KMEMO_CHECK-th
 * use on a CPU walks again and compares, a memo that differs is forgotten,
 * and both are counted (struct kmemo_stats; the summary shows them).  A
 * return address the kernel rewrites (the function graph tracer's or a
 * kretprobe's trampoline) is not found as the walk gave it: that path gets
 * no memo.  So does a stack deeper than KMEMO_FRAMES or KMEMO_SPAN, and an
 * event on another stack than its task's (an interrupt's).
 *
 * The stacks go into a USTACK_MAP by a hash of their frames (stack_keep()),
 * as walked user stacks do: the user side reads both alike.  Needs what the
 * user walk needs (bpfenv__ustack_walk()): the user side sets kmemo_on.
 */
#ifndef IODIG_KMEMO_BPF_H
#define IODIG_KMEMO_BPF_H

#include "kmemo.h"
#include "ptr.bpf.h"
#include "ustack.bpf.h"

#define KMEMO_FRAMES	32	/* frames a memo holds; a deeper stack is walked each time */
#define KMEMO_SPAN	8192	/* bytes from the context to the top a memo may cover */
#define KMEMO_WAYS	8	/* memos per CPU */
#define KMEMO_CHECK	64	/* one use in this many on a CPU walked again */
#define KMEMO_SKIP	1	/* the frame in the program (a helper's return), not kept */
#define KMEMO_FIRST	3	/* frames below the context (the program's callers) at most */

struct kmemo {
	__u64 last;		/* kmemo_cpu.tick when last used or made: the oldest goes first */
	__u32 n;		/* frames (0: none) */
	__s32 id;
	__u16 top;		/* the last frame's place in bytes below the top, or 0: in pos */
	__u16 deep;		/* the last place in pos, + 8: the copy must reach it */
	__u64 top_ip;		/* the return address at top (0 with none) */
	/* where want[i] sat, bytes above the context; KMEMO_NONE for frames
	 * below the context (not compared) and after the last */
	__u16 pos[KMEMO_FRAMES];
	__u64 want[KMEMO_FRAMES];	/* the return addresses above the context (0 after) */
	__u64 ip[KMEMO_FRAMES];		/* the stack (0 after its last frame) */
};

/* A place past any copy, whose word stays 0 (span's second half). */
#define KMEMO_NONE	KMEMO_SPAN
#define KMEMO_WORD(at)	(((at) >> 3) & (2 * KMEMO_SPAN / 8 - 1))

struct kmemo_cpu {
	struct kmemo_stats st;
	/* kmemo_find()'s place, here and not on the stack: a number the
	 * verifier knows would have the callback verified once for each value
	 * (142,755 instructions and 185 ms at load; here, one) */
	__u32 k;		/* the next frame to find */
	__u32 started;		/* a frame found: the first above the context */
	/* a clock of memos made and used: a new memo's time is its own (with
	 * st.used, memos made before any use all had 0, and each new one
	 * took the first way: two paths in turn put out each other's memo
	 * and neither was ever used) */
	__u64 tick;
	struct kmemo m[KMEMO_WAYS];
	struct ustack_ips ips;			/* a walk (0 after its last frame) */
	/* the task's stack from the context to the top, and the word after
	 * it 0; the second half never written (KMEMO_NONE) */
	__u64 span[2 * KMEMO_SPAN / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kmemo_cpu);
} kmemo_cpu SEC(".maps");

const volatile bool kmemo_on = false;	/* set by the user side */
const volatile bool kmemo_each = false;	/* ... and this: walked at each event, no memo */

/* kmemo_find()'s: looking for frames c->k.. of the walk, in order */
struct kmemo_scan {
	struct kmemo_cpu *c;
	struct kmemo *m;
	__u32 n, len;
};

/* Word j of the span: the return address of frame k?  The first found
 * may be any of the first KMEMO_FIRST (those before it are below the
 * context); the last, right below the top, is placed from the top. */
static long kmemo_find(__u64 j, void *arg)
{
	struct kmemo_scan *s = arg;
	struct kmemo_cpu *c = s->c;
	__u32 k = c->k, pos = j * 8;
	__u64 word;

	if (j >= KMEMO_SPAN / 8 || k >= KMEMO_FRAMES)
		return 1;
	barrier_var(j);
	word = c->span[j];
	if (!c->started) {
		for (k = 0; k < KMEMO_FIRST && k < s->n; k++)
			if (word == c->ips.ip[k])
				break;
		if (k == KMEMO_FIRST || k == s->n)
			return 0;
		c->started = 1;
	} else if (word != c->ips.ip[k]) {
		return 0;
	}
	if (pos + 16 >= s->len) {
		if (k + 1 != s->n) {
			c->k = 0;	/* a frame right below the top that is not the last: no memo */
			return 1;
		}
		s->m->top = s->len - pos;
		s->m->top_ip = word;
	} else {
		s->m->pos[k] = pos;
		s->m->want[k] = word;
		s->m->deep = pos + 8;
	}
	c->k = k + 1;
	return c->k == s->n;
}

/* Memo m's stack is this one: its words where they sat (span: len
 * bytes): the outermost first, then all, without a branch (a loop of
 * early exits cost 30,000 instructions of verification). */
static __always_inline bool kmemo_same(const struct kmemo_cpu *c, const struct kmemo *m, __u32 len)
{
	__u64 d = 0;

	if (!m->n || m->deep > len || m->top > len || c->span[KMEMO_WORD(len - m->top)] != m->top_ip)
		return false;
	for (__u32 i = 0; i < KMEMO_FRAMES; i++)
		d |= c->span[KMEMO_WORD(m->pos[i])] ^ m->want[i];
	return !d;
}

/* kmemo_try()'s: the CPU's memos tried in turn */
struct kmemo_ways {
	struct kmemo_cpu *c;
	__u32 len;
	__s32 hit;	/* the memo that holds, or -1 */
	__u32 old;	/* else the one used longest ago */
};

/* Memo w: this stack's?  (a bpf_loop callback: verified once, not once
 * for each memo) */
static long kmemo_try(__u64 w, void *arg)
{
	struct kmemo_ways *t = arg;
	struct kmemo *m;

	if (w >= KMEMO_WAYS)
		return 1;
	barrier_var(w);
	m = &t->c->m[w];
	if (kmemo_same(t->c, m, t->len)) {
		t->hit = w;
		return 1;
	}
	if (m->last < t->c->m[t->old & (KMEMO_WAYS - 1)].last)
		t->old = w;
	return 0;
}

/* The walk in c->ips (n frames) gave memo m's stack. */
static __always_inline bool kmemo_walked(const struct kmemo_cpu *c, const struct kmemo *m, __u32 n)
{
	if (n != m->n)
		return false;
	for (__u32 i = 0; i < KMEMO_FRAMES; i++)
		if (c->ips.ip[i] != m->ip[i])
			return false;
	return true;
}

/* The walk in c->ips (n frames) into memo m, if each frame is found. */
static __always_inline void kmemo_make(struct kmemo_cpu *c, struct kmemo *m, __u32 n, __u32 len, __s32 id)
{
	struct kmemo_scan s = { .c = c, .m = m, .n = n, .len = len };

	m->n = 0;
	if (!n || n > KMEMO_FRAMES)
		return;
	m->top = m->deep = 0;
	m->top_ip = 0;
	for (__u32 i = 0; i < KMEMO_FRAMES; i++) {
		m->pos[i] = KMEMO_NONE;
		m->want[i] = 0;
	}
	c->k = c->started = 0;
	bpf_loop(len / 8, kmemo_find, &s, 0);
	if (c->k != n)
		return;
	for (__u32 i = 0; i < KMEMO_FRAMES; i++)
		m->ip[i] = c->ips.ip[i];
	m->id = id;
	m->n = n;
	m->last = ++c->tick;
	c->st.made++;
}

/*
 * The current kernel stack's id in map (a USTACK_MAP), from a memo of its
 * path where one holds, else walked; or as bpf_get_stackid() into kfallback
 * (a stack map) without kmemo_on.  ctx: a tp_btf or raw_tp program's
 * context (the args array on the stack of the kernel's bpf_trace_run*()).
 */
static __always_inline __s32 kmemo_stackid(void *ctx, void *map, void *kfallback)
{
	struct kmemo_ways ways = { .hit = -1 };
	struct task_struct *t;
	struct kmemo_cpu *c;
	struct kmemo *m = NULL;
	__u32 zero = 0, len = 0, n = 0;
	__u64 off;
	__s32 id;

	if (!kmemo_on)
		return bpf_get_stackid(ctx, kfallback, 0);
	c = bpf_map_lookup_elem(&kmemo_cpu, &zero);
	if (!c)
		return -12;
	if (!kmemo_each) {
		t = bpf_get_current_task_btf();
		off = ptr_val((struct pt_regs *)bpf_task_pt_regs(t)) - ptr_val(ctx);
		if (off > 16 && off < KMEMO_SPAN) {
			len = off & (KMEMO_SPAN - 8);
			barrier_var(len);
			if (len >= KMEMO_SPAN || bpf_probe_read_kernel(c->span, len, ctx))
				len = 0;
			c->span[KMEMO_WORD(len)] = 0;	/* (top: 0 in a memo without one) */
		}
		if (!len)
			c->st.offstack++;
	}
	if (len) {
		ways.c = c;
		ways.len = len;
		bpf_loop(KMEMO_WAYS, kmemo_try, &ways, 0);
		if (ways.hit >= 0) {
			m = &c->m[ways.hit & (KMEMO_WAYS - 1)];
			m->last = ++c->tick;
			if (++c->st.used % KMEMO_CHECK)
				return m->id;
		}
	}
	/* (one walk, for a path without a memo and for a check) */
	id = kstack_walk_keep(ctx, &c->ips, KMEMO_SKIP, map, &n);
	if (m) {
		c->st.checked++;
		if (!kmemo_walked(c, m, n)) {
			c->st.differed++;
			m->n = 0;
		}
		return id;
	}
	c->st.walked++;
	if (id >= 0 && len)
		kmemo_make(c, &c->m[ways.old & (KMEMO_WAYS - 1)], n, len, id);
	return id;
}

#endif

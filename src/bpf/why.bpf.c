// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why: each traced system call of each traced thread, split into
 * parts (why.h) by the tracepoints that change what the thread is doing:
 *
 *   sys_enter / sys_exit      the call: the raw syscall tracepoints, which
 *                             also watch queue-attribute writes (or, with
 *                             --syscall-events, syscalls:sys_enter_NAME for
 *                             the traced calls only; costs in
 *                             docs/PERFORMANCE.md)
 *   sched_switch              on CPU -> runnable (preempted) or a blocked
 *                             part, chosen from what the thread is in: a
 *                             lock wait, a dirty throttle, reclaim, block
 *                             submission before G, in_iowait; else sleep
 *   sched_wakeup              blocked -> runnable
 *   lock:contention_*         lock wait (5.19+), with its kind
 *   writeback:balance_dirty_pages   the next sleep is dirty throttling
 *   vmscan direct reclaim     reclaim
 *   block_bio_queue/getrq     in submission before a request exists (Q2G)
 *   page faults, page-cache adds, readahead   counted
 *
 * State lives in task storage, so a context switch of an untraced thread
 * costs two lookups that find nothing, and a thread's state dies with it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "why.h"
#include "compat.bpf.h"
#include "events.bpf.h"
#include "sysfs_watch.bpf.h"
#include "ustack.bpf.h"
#include "kmemo.bpf.h"

const volatile __u8 targ_args[WHY_SYSCALLS] = {};	/* enum why_args by syscall nr */
const volatile __u64 targ_min_ns = 10000000;
const volatile bool targ_kstack = false;	/* -K */
const volatile bool targ_ustack = false;	/* -U */
const volatile __u32 targ_self = 0;
const volatile __u32 filter_tgid[8] = {};
const volatile __u32 filter_ntgid = 0;
const volatile __u64 filter_cgroup = 0;
const volatile bool filter_comm_on = false;
const volatile char filter_comm[WHY_COMM_LEN] = {};
const volatile __u32 targ_depth = 1;		/* --depth: wakers' wakers followed */
const volatile __u64 targ_chain_ns = 1000000;	/* ... for their waits this long or more */

struct why_stats stats;
/* set by why.c at the end: the syscall links stay until after the summary
 * (detaching them takes seconds), and calls ending meanwhile are not taken */
volatile bool stopping;
/* set by why.c once every program is attached: a call begun while they were
 * being attached one by one (seconds for the per-syscall events) had parts
 * unseen, a wait whose switch out came before sched_switch's link among them */
volatile bool started;

enum { F_CALL = 1, F_LOCK = 2, F_THROTTLE = 4, F_RECLAIM = 8, F_SUBMIT = 16, F_OFF = 32, F_WOKEN = 64 };

struct why_task {
	__u64 since;		/* start of the current part */
	__u64 lock_since;
	__u32 state;		/* enum why_part being charged */
	__u32 flags;
	__u32 lock_flags;
	__u32 depth;		/* --call: TARGET's recursion depth */
	__u32 active[WHY_CHILDREN];	/* --into: each child's calls under way */
	__u64 child_since[WHY_CHILDREN];
	__u32 any;		/* children under way, all together */
	__u32 pad;
	__u64 any_since;
	__u64 off_since;	/* -K/-U: blocked since; 0: running */
	__s32 off_k, off_u;	/* the stacks it blocked with */
	__s32 wait_stack;	/* F_OFF: where it blocked (waitstacks), for its waits[] */
	__u32 pad2;
	__u64 off_at;		/* F_OFF: when it blocked */
	__u64 ran_at;		/* its CPU clock (se.sum_exec_runtime) at its last switch out */
	__u64 ran_in;		/* ... at its last switch in seen */
	__u64 rd_at;		/* WP_RUNQ: its run_delay() as it became runnable */
	struct why_waker wk;	/* F_WOKEN: who is waking it, for the wait it ends */
	struct why_waker up[WHY_CHAIN - 1];	/* ... and that one's chain */
	__u64 args[3];		/* the call's first three arguments, read if it is slow */
	__u32 kind;		/* enum why_args: how they read (WA_NONE: --call) */
	__u32 steal_cpu;	/* the CPU (+1) whose steal clock steal_at is */
	__u64 steal_at;		/* its steal clock at the last charge() */
	struct why_call rec;
};

/*
 * Steal: a thread on a vCPU the hypervisor has taken away is still current
 * in the guest, so the time would count as its running part, while its own
 * CPU clock (sum_exec_runtime, from rq_clock_task, which leaves steal out)
 * stands still.  kvm's per-CPU steal_time (arch/x86/kernel/kvm.c) has the
 * vCPU's stolen ns, added by the host whenever it runs the vCPU again;
 * kvm_steal_clock() reads it so, less its version loop (one 64-bit load).
 * Its address is this CPU's run queue's plus targ_steal_off
 * (kfeatures__steal_off: no per-CPU variable can be named here), found
 * once a CPU and kept where every CPU can read it: a spell's start reads
 * them all (spell_steal).  0 where the kernel has none, and where the host
 * keeps none.
 */
const volatile __s64 targ_steal_off = 0;
const volatile __u32 targ_ncpus = 0;	/* possible CPUs: steal_clocks[] used */
/* tests only (IODIG_TEST_UNSEEN=N): one switch into a traced thread in N
 * skipped whole, as this host's kernel skips one now and then, so that a
 * test can hold the mend to the thread's own clock; 0 (the verifier then
 * drops the test) otherwise */
const volatile __u32 targ_test_unseen = 0;
/* ... and IODIG_TEST_UNSEEN_OUT=N: one switch out of a traced thread in N
 * not seen, as when its task storage is busy on that CPU */
const volatile __u32 targ_test_unseen_out = 0;

#define WHY_STEAL_CPUS	1024
__u64 steal_clocks[WHY_STEAL_CPUS];	/* each CPU's steal clock's address, once found */

/* This CPU's steal clock's address, found if it is not yet; 0: none. */
static __always_inline __u64 steal_addr(__u32 cpu)
{
	__u64 a, i = cpu;

	/* the bound tested on the register that indexes, after a barrier:
	 * 6.1's verifier loses it on a copy made before the test */
	asm volatile("" : "+r"(i));
	if (!targ_steal_off || i >= WHY_STEAL_CPUS)
		return 0;
	a = steal_clocks[i];
	if (!a) {
		struct task_struct *t = bpf_get_current_task_btf();
		__u64 rq = (__u64)BPF_CORE_READ(t, se.cfs_rq, rq);

		if (!rq)
			return 0;
		a = rq + targ_steal_off + bpf_core_field_offset(struct kvm_steal_time, steal);
		steal_clocks[i] = a;
	}
	return a;
}

static __always_inline __u64 steal_read(__u64 a)
{
	__u64 v = 0;

	if (a)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)a);
	return v;
}

static __always_inline __u64 steal_now(void)
{
	return steal_read(steal_addr(bpf_get_smp_processor_id()));
}

/* What was stolen from a run of d ns that began with steal clock `had` on
 * CPU had_cpu1 - 1, now that CPU cpu1 - 1's clock reads st (0: not on a
 * CPU, or none read); at most d.  A running thread or task changes CPUs
 * only through a switch, so another CPU than its run's means none known. */
static __always_inline __u64 stolen_since(__u32 had_cpu1, __u64 had, __u32 cpu1, __u64 st, __u64 d)
{
	if (!cpu1 || had_cpu1 != cpu1 || st <= had)
		return 0;
	return st - had < d ? st - had : d;
}

/* Every task's time while why runs, for the wakers of traced calls: the
 * state it is in (enum why_wpart) since when, its time in each so far, and
 * its last WHY_WAKER_RING changes, to look back over a wait it ended.  A
 * change pushed out of that ring goes on to the coarse ring when it is
 * WHY_COARSE_NS or more after the coarse ring's newest: a task that changes
 * state often (preempted every few ms on a busy machine) is still followed
 * over a long wait, to within the gap between two coarse entries. */
struct why_snap {
	__u64 ts;
	__u64 cum[WW_NR];	/* its time in each state up to ts */
	__u32 state;		/* the state from ts on */
	__u32 pad;
};

/* --depth 2+: a task's wake out of a long wait, with who woke it (hop) and
 * who had woken that one last over the wait (sub, tid 0: none) */
struct why_link {
	struct why_waker hop, sub;
};

struct why_any {
	__u64 spell;		/* follow_since when this history began */
	__u64 since;
	__u32 state;
	__u32 n;		/* changes made: ring[n % WHY_WAKER_RING] is the next */
	__u64 cum[WW_NR];
	__u64 steal_at;		/* in WW_CPU: steal_cpu's steal clock when it began */
	__u32 steal_cpu;	/* that CPU + 1; 0: unknown, none carved out */
	__u32 pad0;
	__u64 rd_at;		/* in WW_RUNQ: its run_delay() when it began */
	struct why_snap ring[WHY_WAKER_RING];
	__u32 nc, pad;		/* coarse[nc % WHY_COARSE_RING] is the next */
	struct why_snap coarse[WHY_COARSE_RING];
	/* --depth 2+: its last wakes out of long waits, each with who woke it
	 * (hop) and who had woken that one last over the wait (sub) */
	__u32 nl, pad2;		/* links[nl % WHY_LINKS] is the next */
	struct why_link links[WHY_LINKS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct why_any);
} anys SEC(".maps");

/* Who each CPU switched in last, and when: a switch in that task storage
 * missed (bpf_task_storage_get gives nothing while storage is busy on the
 * CPU: a task freeing its storage at exit is preemptible there) is known
 * from here when the task is next switched out, or its call ends. */
struct oncpu {
	__u32 tid, pad;
	__u64 since;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu);
} oncpus SEC(".maps");

/* The kernel's count of t's time waiting for a CPU, grown at each switch
 * in by the wait it ends (sched_info_arrive(), in rq_clock: the same rate
 * as bpf_ktime_get_ns()); 0 where it keeps none (no CONFIG_SCHED_INFO),
 * and it stands still where that is off (5.10 without SCHEDSTATS keeps it
 * only with delay accounting on) */
static __always_inline __u64 run_delay(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info.run_delay))
		return 0;
	return t->sched_info.run_delay;	/* (t: a BTF pointer, a plain load) */
}

/* When t was last queued to run, in rq_clock() (sched_info_enqueue(): at
 * its wakeup, or at its switch out while runnable); 0 while it runs, and
 * where the kernel keeps none */
static __always_inline __u64 queued_at(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info.last_queued))
		return 0;
	return t->sched_info.last_queued;
}

/* When tid was switched in on this CPU, if it is the one running here, else 0. */
static __always_inline __u64 oncpu_since(__u32 tid)
{
	__u32 zero = 0;
	struct oncpu *o = bpf_map_lookup_elem(&oncpus, &zero);

	return o && o->tid == tid ? o->since : 0;
}

/*
 * Untraced tasks are followed only while a traced thread is off CPU in a
 * call: what they are for is a waker's time over such a wait.  sleepers
 * counts those threads; follow_since is when the count last rose from 0 (0
 * while it is 0).  A task's history from an earlier spell is stale: its
 * first change in this one starts it afresh, in the state it must have had
 * since follow_since (any change since then would have been seen).  While
 * no traced thread waits, a context switch only makes the storage of the
 * task it switches in (no history), and a wakeup does nothing.
 */
__s64 sleepers;
__u64 follow_since;
/* each CPU's steal clock as the spell began: where a task found running
 * then has run since, its steal is carved out from there */
__u64 spell_steal[WHY_STEAL_CPUS];

static __always_inline void sleeper_in(__u64 now)
{
	if (__sync_fetch_and_add(&sleepers, 1) == 0) {
		/* (before follow_since: no history starts from these unread) */
		if (targ_steal_off)
			for (__u32 i = 0; i < WHY_STEAL_CPUS && i < targ_ncpus; i++)
				spell_steal[i] = steal_read(steal_clocks[i]);
		follow_since = now;
	}
}

static __always_inline void sleeper_out(void)
{
	__u64 f = follow_since;	/* read first: a spell begun after the count
				 * falls to 0 must not be ended here */

	if (__sync_fetch_and_add(&sleepers, -1) == 1)
		__sync_val_compare_and_swap(&follow_since, f, 0);
}

/* What was stolen from a's running since it began (st: the steal clock of
 * cpu1 - 1, the CPU a runs on now; cpu1 0: a is not running here), at
 * most its time since. */
static __always_inline __u64 any_stolen(const struct why_any *a, __u64 now, __u64 st, __u32 cpu1)
{
	if (a->state != WW_CPU || now <= a->since)
		return 0;
	return stolen_since(a->steal_cpu, a->steal_at, cpu1, st, now - a->since);
}

/* A task's state changes to next at now; st and cpu1 as any_stolen's: the
 * steal clock of the CPU it runs on (left, or begun) at now. */
static __always_inline void any_move(struct why_any *a, __u64 now, __u32 next, __u64 st, __u32 cpu1)
{
	struct why_snap *s;
	__u32 at = a->state;

	if (a->since && at < WW_NR && now > a->since) {
		__u64 stolen = any_stolen(a, now, st, cpu1);

		a->cum[WW_STEAL] += stolen;
		asm volatile("" : "+r"(at));	/* (the bound, again where used) */
		if (at < WW_NR)
			a->cum[at] += now - a->since - stolen;
	}
	a->since = now;
	a->state = next;
	a->steal_at = st;
	a->steal_cpu = next == WW_CPU ? cpu1 : 0;
	s = &a->ring[a->n & (WHY_WAKER_RING - 1)];
	if (a->n >= WHY_WAKER_RING) {	/* s is the oldest: keep it coarsely */
		__u64 gap = WHY_COARSE_NS;

		/* once full, entries at least 1/16 of the span apart: the
		 * span then grows with the task's age, each look-back to
		 * within a fraction of its length */
		if (a->nc >= WHY_COARSE_RING) {
			const struct why_snap *o = &a->coarse[a->nc & (WHY_COARSE_RING - 1)];

			if (s->ts > o->ts && (s->ts - o->ts) / 16 > gap)
				gap = (s->ts - o->ts) / 16;
		}
		if (!a->nc || s->ts >= a->coarse[(a->nc - 1) & (WHY_COARSE_RING - 1)].ts + gap) {
			a->coarse[a->nc & (WHY_COARSE_RING - 1)] = *s;
			a->nc++;
		}
	}
	s->ts = now;
	for (int i = 0; i < WW_NR; i++)
		s->cum[i] = a->cum[i];
	s->state = next;
	a->n++;
}

/*
 * t's history in this spell, or NULL (nothing followed now, or no room:
 * counted).  A history from an earlier spell starts again: in state was
 * (what the event says t has been doing since the spell began) from then,
 * or from from (a task born in the spell).  Running (was WW_CPU: t is on
 * this CPU, cpu1 - 1), it has run here since the spell began: its steal
 * counts from this CPU's clock then.
 */
static __always_inline struct why_any *any_of(struct task_struct *t, __u32 was, __u64 from, __u32 cpu1)
{
	__u64 f = follow_since;
	struct why_any *a;

	if (!f)
		return NULL;
	a = bpf_task_storage_get(&anys, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!a) {
		__sync_fetch_and_add(&stats.any_missed, 1);
		return NULL;
	}
	if (a->spell != f) {
		a->spell = f;
		a->n = a->nc = a->nl = 0;
		a->rd_at = run_delay(t);
		a->since = 0;
		for (int i = 0; i < WW_NR; i++)
			a->cum[i] = 0;
		any_move(a, from ?: f, was, 0, 0);
		if (was == WW_CPU && cpu1 && cpu1 <= WHY_STEAL_CPUS && !from) {
			a->steal_at = spell_steal[(cpu1 - 1) & (WHY_STEAL_CPUS - 1)];
			a->steal_cpu = a->steal_at ? cpu1 : 0;
		}
	}
	return a;
}

/* The task's cumulative times now; cs: what was stolen from its running
 * since it began (0 unless it is running) */
static __always_inline __u64 any_now(const struct why_any *a, int i, __u64 now, __u64 cs)
{
	__u64 v = a->cum[i] + (a->state == (__u32)i && now > a->since ? now - a->since : 0);

	if (a->state == WW_CPU && i == WW_CPU)
		v -= cs;
	if (a->state == WW_CPU && i == WW_STEAL)
		v += cs;
	return v;
}

/* The task's time in each state over [t0, now] into out; false when its
 * rings no longer reach back to t0 (or it was first seen after t0).  From
 * the fine ring exactly, but for the steal of a run that t0 falls in: known
 * only as the run's whole, it is shared out by time; from the coarse ring
 * interpolated between the coarse entry before t0 and the next change
 * known, *res their gap.  cs: any_now's. */
static __always_inline bool any_span(const struct why_any *a, __u64 t0, __u64 now, __u64 cs,
				     __u64 *out, __u64 *res)
{
	const struct why_snap *b, *c;
	__u32 k = 0, oldest;
	bool found = false;

	*res = 0;
	/* newest first: the ring is written in time order */
	for (__u32 i = 0; i < WHY_WAKER_RING; i++) {
		if (i >= a->n)
			break;
		k = (a->n - 1 - i) & (WHY_WAKER_RING - 1);
		if (a->ring[k].ts <= t0) {
			found = true;
			break;
		}
	}
	if (found) {
		__u64 before = 0;	/* the steal of b's run before t0 */

		b = &a->ring[k & (WHY_WAKER_RING - 1)];
		if (b->state == WW_CPU && t0 > b->ts) {
			__u64 end = now, st = cs;

			if (k != ((a->n - 1) & (WHY_WAKER_RING - 1))) {
				c = &a->ring[(k + 1) & (WHY_WAKER_RING - 1)];
				end = c->ts;
				st = c->cum[WW_STEAL] - b->cum[WW_STEAL];
			}
			/* (in 2^-20ths of the run: no product overflows
			 * below 4 hours) */
			if (end > b->ts)
				before = st * (((t0 - b->ts) << 20) / (end - b->ts)) >> 20;
		}
		for (int i = 0; i < WW_NR; i++) {
			__u64 c1 = any_now(a, i, now, cs);
			__u64 c0 = b->cum[i] + (b->state == (__u32)i ? t0 - b->ts : 0);

			if (i == WW_CPU)
				c0 -= before;
			if (i == WW_STEAL)
				c0 += before;
			out[i] = c1 > c0 ? c1 - c0 : 0;
		}
		return true;
	}
	if (a->n < WHY_WAKER_RING)	/* nothing pushed out: first seen after t0 */
		return false;
	oldest = a->n & (WHY_WAKER_RING - 1);	/* the fine ring's oldest, after t0 */
	c = &a->ring[oldest];
	for (__u32 i = 0; i < WHY_COARSE_RING; i++) {
		if (i >= a->nc)
			break;
		k = (a->nc - 1 - i) & (WHY_COARSE_RING - 1);
		if (a->coarse[k].ts <= t0) {
			found = true;
			break;
		}
		c = &a->coarse[k];
	}
	if (!found)
		return false;
	b = &a->coarse[k & (WHY_COARSE_RING - 1)];
	if (c->ts <= b->ts)
		return false;
	*res = c->ts - b->ts;
	for (int i = 0; i < WW_NR; i++) {
		__u64 c1 = any_now(a, i, now, cs);
		__u64 d = c->cum[i] > b->cum[i] ? c->cum[i] - b->cum[i] : 0;
		__u64 c0 = b->cum[i] + d * (t0 - b->ts) / *res;

		out[i] = c1 > c0 ? c1 - c0 : 0;
	}
	return true;
}

/* -K/-U: the stacks at each block of a traced call (sized 1 by why.c otherwise) */
STACK_MAP(stacks, 16384, WHY_STACK_DEPTH);
/* ... the user ones walked by ustack.bpf.h where it can (else in stacks) */
USTACK_MAP(ustacks, 16384);
_Static_assert(WHY_STACK_DEPTH == USTACK_DEPTH, "one depth for both maps");
/* Where each block of a traced call happened (always: the waits' places) */
STACK_MAP(waitstacks, 8192, WHY_WAIT_DEPTH);
/* The waker's stack at each wake of a traced call (how it woke it) */
STACK_MAP(wakestacks, 8192, WHY_WAKE_DEPTH);
/* All three kept here instead where the kernel's stacks come from memos
 * of their paths (kmemo_on, kmemo.bpf.h), whole, by a hash of their
 * frames: a stack map has one bucket for each id and no second place, so
 * two stacks whose ids meet lose the second (-EEXIST).  That happened to
 * dd's journal wait in 4 loads of 12 (docs/PERFORMANCE.md).  The three
 * fallbacks above are sized 1 then (why.c), but -U's kernel walk.  -K's
 * is the wait's own.  (`why 1000` beside four test files' workloads for
 * 40 s kept 605 stacks: 8192 is room, about 9 MB of kernel memory.) */
USTACK_MAP(kstacks, 8192);
__u64 ptr_anchor;	/* ptr.bpf.h */

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct why_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} records SEC(".maps");

/* Traced calls under way: while 0, no task's state is looked up. */
__s64 in_calls;

static __always_inline struct why_task *in_call(struct task_struct *t)
{
	struct why_task *w;

	if (!in_calls)
		return NULL;
	w = bpf_task_storage_get(&tasks, t, 0, 0);

	return w && (w->flags & F_CALL) ? w : NULL;
}

static __always_inline struct why_task *current_call(void)
{
	return in_call(bpf_get_current_task_btf());
}

/* Blocked time at the place the thread blocked: the slot of that stack and
 * part, or the first free one; past WHY_WAITS places, waits_other. */
static __always_inline void wait_add(struct why_task *w, __u32 part, __u64 ns)
{
	for (int i = 0; i < WHY_WAITS; i++) {
		struct why_wait *x = &w->rec.waits[i];

		if (x->ns && (x->stack != w->wait_stack || x->part != part))
			continue;
		x->stack = w->wait_stack;
		x->part = part;
		x->ns += ns;
		/* the wait a wake ends: its waker, for the slot's longest */
		if ((w->flags & F_WOKEN) && w->wk.wait_ns >= x->waker.wait_ns) {
			x->waker = w->wk;
			x->up[0] = w->up[0];
			x->up[1] = w->up[1];
		}
		return;
	}
	w->rec.waits_other += ns;
}

/* On CPU, in a running part: not runnable, not blocked. */
static __always_inline bool on_cpu(const struct why_task *w)
{
	return !(w->flags & F_OFF) && w->state != WP_RUNQ;
}

/* Closes the current part at now, less what was stolen from it, and opens
 * `next`: cpu1 this CPU + 1 and st its steal clock now, or both 0 where
 * neither part is on CPU (a wakeup, from the waker's CPU): steal_cpu 0 says
 * there is none to go on from. */
static __always_inline void charge_st(struct why_task *w, __u64 now, __u32 next, __u32 cpu1, __u64 st)
{
	__u32 s = w->state;

	if (s < WP_NR && now > w->since) {
		__u64 d = now - w->since, stolen = 0;
		__u32 at = s;

		/* on CPU since the last charge, which read this CPU's clock */
		if (on_cpu(w)) {
			stolen = stolen_since(w->steal_cpu, w->steal_at, cpu1, st, d);
			w->rec.part[WP_STEAL] += stolen;
		}
		/* the bound tested again where it is used: 6.1's verifier
		 * loses that of an index spilled to the stack meanwhile */
		asm volatile("" : "+r"(at));
		if (at < WP_NR)
			w->rec.part[at] += d - stolen;
		/* off CPU and not yet runnable: a wait, at its place */
		if ((w->flags & F_OFF) && s != WP_RUNQ && s != WP_CPU)
			wait_add(w, s, d);
	}
	w->since = now;
	w->state = next;
	w->steal_at = st;
	w->steal_cpu = cpu1;
}

/* ... off: neither part is on CPU, so no steal clock is read */
static __always_inline void charge_at(struct why_task *w, __u64 now, __u32 next, bool off)
{
	if (off)
		charge_st(w, now, next, 0, 0);
	else
		charge_st(w, now, next, bpf_get_smp_processor_id() + 1, steal_now());
}

static __always_inline void charge(struct why_task *w, __u64 now, __u32 next)
{
	charge_at(w, now, next, false);
}

/* What the thread runs in, when it runs. */
static __always_inline __u32 running_part(struct why_task *w)
{
	if (w->flags & F_LOCK)
		return WP_LOCK;		/* spinning, or between wakeup and the lock */
	if (w->flags & F_RECLAIM)
		return WP_RECLAIM;
	return WP_CPU;
}

static __always_inline __u32 blocked_part(struct why_task *w, struct task_struct *t)
{
	if (w->flags & F_LOCK)
		return WP_LOCK;
	if (w->flags & F_THROTTLE)	/* balance_dirty_pages sleeps in io_schedule_timeout() */
		return WP_THROTTLE;
	if (w->flags & F_RECLAIM)
		return WP_RECLAIM;
	if (BPF_CORE_READ_BITFIELD(t, in_iowait) || (w->flags & F_SUBMIT))
		return WP_IO;
	return WP_SLEEP;
}

static __always_inline bool task_wanted(__u32 tgid)
{
	if (tgid == targ_self)
		return false;
	if (filter_ntgid) {
		bool found = false;

		for (int i = 0; i < 8; i++)
			if (i < filter_ntgid && filter_tgid[i] == tgid)
				found = true;
		if (!found)
			return false;
	}
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	if (filter_comm_on) {
		char comm[WHY_COMM_LEN];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < WHY_COMM_LEN; i++) {
			if (comm[i] != filter_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	return true;
}

/* A file's path, built here from its dentries and mounts up to the root of
 * all mounts (as /proc/PID/fd/N reads from iodig's side), written from the
 * end of a per-CPU scratch: right after the call, where user space's
 * readlink of /proc/PID/fd/N came a poll later, when a process that had
 * exited or closed the fd meanwhile had nothing left to read. */
#define WHY_PATH_DEPTH	32
struct path_scratch {
	char buf[2 * WHY_PATH_LEN];	/* (twice: each write's bound is masked) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_scratch);
} path_scratch SEC(".maps");

/* The path of a file (a kernel address) into this CPU's scratch, ending
 * at buf[WHY_PATH_LEN - 1]: where it starts there, or -1 where the name is
 * not the dentries' (a pipe's, a socket's: their d_dname makes it) or does
 * not fit; user space then reads the fd's link as before.  A global
 * function: the verifier walks its loop once, not in each caller's states. */
__noinline int path_walk(__u64 file_addr)
{
	struct file *file = (struct file *)file_addr;
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry), *up, *root;
	struct vfsmount *vm = BPF_CORE_READ(file, f_path.mnt);
	struct mount *m = container_of(vm, struct mount, mnt), *parent;
	struct path_scratch *s;
	__u32 zero = 0;
	__u64 pos = WHY_PATH_LEN - 1, len;

	if (!bpf_core_type_exists(struct mount) || BPF_CORE_READ(d, d_op, d_dname))
		return -1;
	s = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!s)
		return -1;
	s->buf[WHY_PATH_LEN - 1] = '\0';
	root = BPF_CORE_READ(vm, mnt_root);
	for (int i = 0; i < WHY_PATH_DEPTH; i++) {
		/* (a no-op: pos is within it; it makes each turn's states
		 * alike, so the verifier prunes them instead of keeping one
		 * for each way through the turns before) */
		pos &= WHY_PATH_LEN - 1;
		up = BPF_CORE_READ(d, d_parent);
		if (d == root || d == up) {	/* its mount's root: on to the mount point */
			parent = BPF_CORE_READ(m, mnt_parent);
			if (parent == m)	/* the root of all mounts */
				break;
			d = BPF_CORE_READ(m, mnt_mountpoint);
			m = parent;
			root = BPF_CORE_READ(m, mnt.mnt_root);
			continue;
		}
		len = BPF_CORE_READ(d, d_name.len);
		if (len + 1 >= pos)
			return -1;	/* too long */
		pos -= len;
		if (bpf_probe_read_kernel(&s->buf[pos & (WHY_PATH_LEN - 1)], len & (WHY_PATH_LEN - 1),
					  BPF_CORE_READ(d, d_name.name)))
			return -1;
		pos--;
		s->buf[pos & (WHY_PATH_LEN - 1)] = '/';
		d = up;
		if (i == WHY_PATH_DEPTH - 1)
			return -1;	/* too deep */
	}
	if (pos == WHY_PATH_LEN - 1)
		s->buf[--pos] = '/';	/* the root itself */
	return pos;
}

/* ... copied into out (WHY_PATH_LEN), or nothing */
static __always_inline void path_of(struct file *file, char *out)
{
	struct path_scratch *s;
	__u32 zero = 0;
	int pos = path_walk((__u64)file);

	if (pos <= 0 || pos >= WHY_PATH_LEN || !(s = bpf_map_lookup_elem(&path_scratch, &zero)))
		return;
	bpf_probe_read_kernel(out, (WHY_PATH_LEN - pos) & (WHY_PATH_LEN - 1), &s->buf[pos & (WHY_PATH_LEN - 1)]);
}

static __always_inline void file_of(struct task_struct *t, int fd, struct why_call *r)
{
	struct file **fds, *file = NULL;
	struct fdtable *fdt = t->files->fdt;
	struct inode *ino;

	if (fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return;
	fds = fdt->fd;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return;
	ino = BPF_CORE_READ(file, f_inode);
	r->ino = BPF_CORE_READ(ino, i_ino);
	r->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	r->unlinked = !BPF_CORE_READ(ino, i_nlink);
	path_of(file, r->path);
}

/* Bytes asked by a vector call: its first WHY_IOV_MAX iovecs (more are
 * rare in file I/O; the count is then a lower bound). */
#define WHY_IOV_MAX 8
static __always_inline __u64 iov_bytes(const struct iovec *iov, __u64 cnt)
{
	__u64 sum = 0;

	for (int i = 0; i < WHY_IOV_MAX; i++) {
		struct iovec v;

		if (i >= cnt || bpf_probe_read_user(&v, sizeof(v), &iov[i]))
			break;
		sum += v.iov_len;
	}
	return sum;
}

static __always_inline void begin(struct why_task *w, __u32 nr, __u64 id64)
{
	__u64 now = bpf_ktime_get_ns();

	__builtin_memset(&w->rec, 0, offsetof(struct why_call, waits));
	for (int i = 0; i < WHY_WAITS; i++) {
		w->rec.waits[i].ns = 0;
		w->rec.waits[i].waker.at = w->rec.waits[i].waker.wait_ns = 0;
		w->rec.waits[i].waker.tid = 0;
		w->rec.waits[i].up[0].at = w->rec.waits[i].up[1].at = 0;
	}
	w->rec.path[0] = '\0';
	__builtin_memset(w->active, 0, sizeof(w->active));
	w->any = 0;
	w->depth = 1;
	w->rec.type = REC_CALL;
	w->rec.nr = nr;
	w->rec.start = now;
	w->rec.pid = id64 >> 32;
	w->rec.tid = (__u32)id64;
	w->rec.fd = -1;
	w->rec.kstack = w->rec.ustack = -1;
	w->off_since = 0;
	w->since = now;
	w->state = WP_CPU;
	w->ran_at = bpf_get_current_task_btf()->se.sum_exec_runtime;
	w->steal_at = steal_now();
	w->steal_cpu = bpf_get_smp_processor_id() + 1;
	if (w->flags & F_OFF)	/* a call whose switch in was missed */
		sleeper_out();
	if (!(w->flags & F_CALL))	/* (set: the last one's exit was not seen) */
		__sync_fetch_and_add(&in_calls, 1);
	w->flags = F_CALL;
	w->kind = WA_NONE;	/* (enter() sets a system call's) */
}

/* A slow call's arguments, at its end (the thread is current): its fd's
 * file, the bytes asked, or the path given.  The fd and the caller's memory
 * are as at entry unless another of its threads changed them meanwhile. */
static __always_inline void args_read(struct why_task *w)
{
	__u8 kind = w->kind;
	__u64 a0 = w->args[0], a1 = w->args[1], a2 = w->args[2];

	if (kind == WA_FD || kind == WA_FD_COUNT || kind == WA_FD_IOV) {
		w->rec.fd = (int)a0;
		file_of(bpf_get_current_task_btf(), w->rec.fd, &w->rec);
		if (kind == WA_FD_COUNT)
			w->rec.asked = a2;
		else if (kind == WA_FD_IOV)
			w->rec.asked = iov_bytes((void *)a1, a2);
	} else if (kind == WA_PATH_AT) {
		bpf_probe_read_user_str(w->rec.path, sizeof(w->rec.path), (void *)a1);
	} else if (kind == WA_PATH) {
		bpf_probe_read_user_str(w->rec.path, sizeof(w->rec.path), (void *)a0);
	}
}

/* -K/-U: a time off CPU, blocked, ends at `at`; the longest keeps its stacks */
static __always_inline void off_end(struct why_task *w, __u64 at)
{
	if (w->off_since && at > w->off_since && at - w->off_since > w->rec.wait_max) {
		w->rec.wait_max = at - w->off_since;
		w->rec.kstack = w->off_k;
		w->rec.ustack = w->off_u;
	}
	w->off_since = 0;
}

/* A run whose switch in went unseen, ended at the thread's switch out, where
 * its CPU clock is current: the CPU's steal clock was read at its end only
 * (the charge at its start read it then), so what the host took meanwhile
 * would count as the thread's CPU.  The run's wall time beyond its CPU time
 * is that steal (the thread clock leaves it out), at most what this CPU's
 * steal clock grew by since the thread's last charge on it (had). */
static __always_inline void unseen_run_steal(struct why_task *w, __u32 had_cpu1, __u64 had, __u64 in,
					     __u64 now, __u64 ran)
{
	__u64 wall = now - in;

	if (!w->ran_at || ran <= w->ran_at || ran - w->ran_at >= wall)
		return;
	w->steal_at -= stolen_since(had_cpu1, had, w->steal_cpu, w->steal_at, wall - (ran - w->ran_at));
}

/* Running, yet thought runnable since w->since: its switch in was not seen
 * (this host's kernel skips a sched_switch into a preempted thread about
 * once in 300: bpftrace misses the same ones).  From when this CPU's entry
 * says it switched the thread in (in); else from the kernel's own count of
 * the thread's waits for a CPU (run_delay(), which that switch in grew by
 * the wait it ended); else by its CPU clock (se.sum_exec_runtime, less
 * steal where the kernel accounts it apart) since its last switch out: the
 * rest of the span is the wait for a CPU.  out: at t's switch out (its CPU
 * clock current), where the run's steal can be told (unseen_run_steal). */
static __always_inline void switched_in_unseen(struct why_task *w, __u64 in, __u64 now, struct task_struct *t,
					       bool out)
{
	__u64 ran = t->se.sum_exec_runtime, d = ran - w->ran_at, rd = run_delay(t), had = w->steal_at;
	__u32 had_cpu1 = w->steal_cpu;

	if (!(in > w->since && in < now)) {
		__sync_fetch_and_add(&stats.switch_in_unseen, 1);
		/* the wait the switch in ended, as the kernel counted it
		 * then: exact (the CPU clock below is as of the last tick
		 * where t is current) */
		if (!(rd > w->rd_at && rd - w->rd_at < now - w->since)) {
			if (w->ran_at && ran > w->ran_at && d < now - w->since) {
				charge(w, now - d, running_part(w));
				off_end(w, now - d);
			}
			return;
		}
		in = w->since + (rd - w->rd_at);
	}
	charge(w, in, running_part(w));
	off_end(w, in);
	if (out)
		unseen_run_steal(w, had_cpu1, had, in, now, ran);
}

/* Switched in while thought running: its switch out was not seen (its
 * task storage busy on that CPU, as while a task there frees its own at
 * exit), nor a wakeup, which would have told it (slept_unseen): it was
 * preempted, and runnable from when the kernel queued it again, in the
 * run queue's clock that __schedule() has just brought up to date (before,
 * its wait for a CPU counted as its time on it). */
static __always_inline void switched_out_unseen(struct why_task *w, __u64 now, struct task_struct *t,
						__u32 cpu1, __u64 st)
{
	__u64 q = queued_at(t), clk = 0, out, ran = t->se.sum_exec_runtime, lost = 0;

	__sync_fetch_and_add(&stats.switch_out_unseen, 1);
	w->rec.offcpu++;
	if (bpf_core_field_exists(t->se.cfs_rq))
		clk = BPF_CORE_READ(t, se.cfs_rq, rq, clock);
	if (!(q && clk >= q && clk - q < now - w->since))
		return;
	out = now - (clk - q);
	/* The run ended unseen, so the CPU's steal clock was not read at its
	 * end; its CPU clock, brought up to date there and read again at this
	 * switch in, says how long it ran (since its last switch in seen), and
	 * its wall time beyond that is what the host took, at most what the
	 * CPU's steal clock grew by since the run's last charge. */
	if (w->ran_in && ran > w->ran_in && ran - w->ran_in < out - w->since)
		lost = stolen_since(w->steal_cpu, w->steal_at, cpu1, st, out - w->since - (ran - w->ran_in));
	/* with lost 0 the charge takes no steal: the run queue's part,
	 * next, is off CPU and reads no steal clock */
	charge_st(w, out, WP_RUNQ, cpu1, w->steal_at + lost);
}

/* Woken off its CPU while thought running: it went to sleep with no switch
 * out seen.  Its CPU clock says when: it ran se.sum_exec_runtime -
 * se.prev_sum_exec_runtime (the clock at its last switch in) from that
 * switch in (sched_info.last_arrival), so it left its CPU then, in
 * rq_clock(); and its wakeup has just queued it (last_queued): that is now
 * in the same clock.  The CPU clock leaves out steal: a run the host
 * stole from ends that much early here, the rest counted as the wait.
 * The wait's place is unknown (its stack: WHY_WAIT_UNSEEN). */
static __always_inline void slept_unseen(struct why_task *w, struct task_struct *p, __u64 now)
{
	__u64 q = queued_at(p), out, back, at;

	__sync_fetch_and_add(&stats.switch_out_unseen, 1);
	w->rec.offcpu++;
	if (!q)
		return;
	out = p->sched_info.last_arrival + (p->se.sum_exec_runtime - p->se.prev_sum_exec_runtime);
	back = q > out ? q - out : 0;	/* how long ago it left its CPU */
	at = back < now - w->since ? now - back : w->since;
	charge_at(w, at, blocked_part(w, p), true);
	if (!(w->flags & F_OFF))
		sleeper_in(now);
	w->flags |= F_OFF;
	w->flags &= ~F_WOKEN;
	w->off_at = at;
	w->wait_stack = WHY_WAIT_UNSEEN;
}

/* The call returns: its last part closed, a record if it was slow. */
static __always_inline void finish(struct why_task *w, long ret)
{
	__u64 now = bpf_ktime_get_ns();

	/* running, yet thought runnable: its switch in was missed (its CPU
	 * clock here is the scheduler's as of its last tick) */
	if (w->state == WP_RUNQ)
		switched_in_unseen(w, oncpu_since(w->rec.tid), now, bpf_get_current_task_btf(), false);
	charge(w, now, WP_CPU);
	if (w->flags & F_OFF)	/* its switch in was missed */
		sleeper_out();
	if (w->off_since) {	/* -K/-U: a switch in missed, and not told above */
		__u64 in = oncpu_since(w->rec.tid);

		off_end(w, in > w->off_since && in < now ? in : now);
	}
	__sync_fetch_and_add(&in_calls, -1);	/* w is in_call's: F_CALL set */
	w->flags = 0;
	__sync_fetch_and_add(&stats.calls, 1);
	if (now - w->rec.start < targ_min_ns)
		return;
	args_read(w);
	w->rec.end = now;
	w->rec.ret = ret;
	w->rec.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(w->rec.comm, sizeof(w->rec.comm));
	__sync_fetch_and_add(&stats.slow, 1);
	/* the reader woken once a quarter of the ring waits (it polls every
	 * 100 ms): a wakeup from here cost the traced thread 20-250 us after
	 * its call, by its own clock (docs/PERFORMANCE.md) */
	if (bpf_ringbuf_output(&records, &w->rec, sizeof(w->rec), RB_WAKE_PAST(records, 1 << 20)))
		__sync_fetch_and_add(&stats.lost, 1);
}

/* A traced system call begins: nr and its first three arguments. */
static __always_inline int enter(long id, __u64 a0, __u64 a1, __u64 a2)
{
	struct task_struct *t;
	struct why_task *w;
	__u64 id64;
	__u8 kind;

	if (id < 0 || id >= WHY_SYSCALLS || stopping || !started)
		return 0;
	kind = targ_args[id & (WHY_SYSCALLS - 1)];
	if (kind == WA_NONE)
		return 0;
	id64 = bpf_get_current_pid_tgid();
	if (!task_wanted(id64 >> 32))
		return 0;
	t = bpf_get_current_task_btf();
	w = bpf_task_storage_get(&tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!w) {
		__sync_fetch_and_add(&stats.no_storage, 1);
		return 0;
	}
	begin(w, id, id64);
	/* the arguments are read at the end, and only for a slow call (most
	 * are not): the file, the bytes asked, the path (args_read) */
	w->kind = kind;
	w->args[0] = a0;
	w->args[1] = a1;
	w->args[2] = a2;
	return 0;
}

static __always_inline int leave(long id, long ret)
{
	struct why_task *w;

	if (id < 0 || id >= WHY_SYSCALLS || targ_args[id & (WHY_SYSCALLS - 1)] == WA_NONE || stopping)
		return 0;
	w = current_call();
	if (w)
		finish(w, ret);
	return 0;
}

/*
 * Two ways in.  The raw ones (below, the default): every system call on the
 * machine runs the program and leaves at the table lookup, and two links
 * detach at once.  The per-syscall tracepoints (syscalls:sys_enter_NAME,
 * --syscall-events), each attached by why_attach.c for the chosen calls
 * only: a call iodig does not trace runs no program at all, but each event
 * waits for grace periods as it detaches (docs/DESIGN.md).
 */
/*
 * One program per number of arguments read: the kernel refuses to attach a
 * program that reads past the event's record (fsync's has one argument), so
 * why.c attaches each call to the one its argument kind needs (why_arity).
 */
SEC("tracepoint")
int why_sc_enter0(struct sc_enter *ctx) { return enter(ctx->nr, 0, 0, 0); }

SEC("tracepoint")
int why_sc_enter1(struct sc_enter *ctx) { return enter(ctx->nr, ctx->args[0], 0, 0); }

SEC("tracepoint")
int why_sc_enter2(struct sc_enter *ctx) { return enter(ctx->nr, ctx->args[0], ctx->args[1], 0); }

SEC("tracepoint")
int why_sc_enter3(struct sc_enter *ctx)
{
	return enter(ctx->nr, ctx->args[0], ctx->args[1], ctx->args[2]);
}

SEC("tracepoint")
int why_sc_exit(struct sc_exit *ctx)
{
	return leave(ctx->nr, ctx->ret);
}

/*
 * The queue-attribute watcher (sysfs_watch.bpf.h) on the raw way in: the
 * write family's numbers from why.c, its records into the life engine's ring
 * (why.c gives this map the engine's fd), so a command that runs these
 * programs loads no syscall event for it.
 */
const volatile bool targ_qwrites = false;
const volatile long qw_nr[5] = {};	/* write, pwrite64, writev, pwritev, pwritev2 */
const volatile long qw_read_nr = -1;	/* read: iodig's own read of a sysfs file teaches */
__u64 qw_fops;				/* ... sysfs files' f_op (sysfs_learn) */
SYSFS_WRITES_MAP(qw_writes);
__s64 qw_pending = 0;
/*
 * The processes that may write a queue attribute: those that opened one for
 * writing while why ran (open, openat, openat2, creat), those found holding
 * one at start (why.c reads /proc/PID/fd), and their children, each until
 * its last thread exits.  A write of any other process is let go after one
 * load of qw_nprocs (0 but while such a process lives) and a hash lookup:
 * the fd walk to the file's f_op was paid by every write on the machine.
 * Not seen: an fd passed over a socket (SCM_RIGHTS) or by pidfd_getfd.
 */
const volatile long qw_open_nr[4] = { -1, -1, -1, -1 };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, __u8);
} qw_procs SEC(".maps");
__s64 qw_nprocs = 0;

static __always_inline void qw_proc_add(__u32 tgid)
{
	__u8 one = 1;

	if (!bpf_map_update_elem(&qw_procs, &tgid, &one, BPF_NOEXIST))
		__sync_fetch_and_add(&qw_nprocs, 1);
}

/* At an open's exit: a queue attribute opened for writing marks its process. */
static __always_inline void qw_opened(long id, long fd)
{
	struct dentry *de, *parent;
	struct file *file;

	if (fd < 0 || (id != qw_open_nr[0] && id != qw_open_nr[1] && id != qw_open_nr[2] && id != qw_open_nr[3]))
		return;
	file = sysfs_file_of((unsigned int)fd);
	/* O_WRONLY or O_RDWR (the user ABI's access mode bits, include/uapi) */
	if (!file || !(BPF_CORE_READ(file, f_flags) & 3))
		return;
	if (sysfs_queue_attr(file, &qw_fops, &de, &parent))
		qw_proc_add(bpf_get_current_pid_tgid() >> 32);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* the engine's ring, by its fd */
} life_records SEC(".maps");

static __always_inline void qw_enter(long id, __u64 a0, __u64 a1, __u64 a2)
{
	__u32 tgid;
	bool vec;

	if (id == qw_nr[0] || id == qw_nr[1])
		vec = false;
	else if (id == qw_nr[2] || id == qw_nr[3] || id == qw_nr[4])
		vec = true;
	else
		return;
	if (!qw_nprocs)		/* no process that may write one */
		return;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&qw_procs, &tgid))
		return;
	sysfs_enter(&qw_writes, &qw_pending, &life_records, &stats.qw_lost, &qw_fops, (unsigned int)a0, a1, a2, vec);
}

/* regs: a BTF pointer here, read with plain loads (x86_64 argument registers) */
SEC("tp_btf/sys_enter")
int BPF_PROG(why_enter, struct pt_regs *regs, long id)
{
	if (targ_qwrites) {
		if (!qw_fops && id == qw_read_nr && bpf_get_current_pid_tgid() >> 32 == targ_self)
			sysfs_learn(&qw_fops, (unsigned int)regs->di);
		qw_enter(id, regs->di, regs->si, regs->dx);
	}
	return enter(id, regs->di, regs->si, regs->dx);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(why_exit, struct pt_regs *regs, long ret)
{
	/* a thread's next exit after a queue write's entry is that write's */
	if (targ_qwrites) {
		sysfs_exit(&qw_writes, &qw_pending, &life_records, &stats.qw_lost, ret);
		qw_opened(regs->orig_ax, ret);
	}
	return leave(regs->orig_ax, ret);	/* untraced calls leave at the table */
}

SEC("tp_btf/sched_switch")
int BPF_PROG(why_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct why_task *w;
	struct why_any *a;
	struct oncpu *o;
	__u32 zero = 0, cpu;
	__u64 now, in, sa, st;
	bool following;

	if (targ_test_unseen && in_call(next) && bpf_get_prandom_u32() % targ_test_unseen == 0)
		return 0;	/* (tests: as if the kernel had skipped this switch) */
	/* no traced thread waiting: nobody's history is kept, but the task
	 * switched in gets its storage now, so that a spell finds it made
	 * (made during one, in a switch or wakeup with IRQs off, it is now and
	 * then refused for want of memory at hand: a waker unfollowed); with
	 * no traced call under way either, nothing else to do (this CPU's
	 * oncpus entry is needed only for a switch in during a call) */
	if (!follow_since) {
		bpf_task_storage_get(&anys, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!in_calls)
			return 0;
	}
	now = bpf_ktime_get_ns();
	in = oncpu_since(prev->pid);
	cpu = bpf_get_smp_processor_id();
	/* this CPU's steal clock (its address found in a call, for the
	 * spells to come), read while tasks are followed; the traced threads'
	 * charges below take the same reading (or read it, outside spells) */
	sa = steal_addr(cpu);
	following = follow_since;
	st = following ? steal_read(sa) : 0;

	/* every task's state while followed, for the wakers (prev blocks, is
	 * preempted, or yields; next runs) */
	if ((a = any_of(prev, WW_CPU, 0, cpu + 1))) {
		/* switched out while thought runnable: its switch in was not
		 * seen; it ran from when this CPU switched it in (its steal
		 * since then unknown) */
		__u64 rd = run_delay(prev);

		if (a->state == WW_RUNQ && in > a->since && in < now)
			any_move(a, in, WW_CPU, 0, 0);
		else if (a->state == WW_RUNQ && rd > a->rd_at && rd - a->rd_at < now - a->since)
			any_move(a, a->since + (rd - a->rd_at), WW_CPU, 0, 0);	/* (as a call's) */
		any_move(a, now, preempt || prev_state == 0 ? WW_RUNQ :
			 BPF_CORE_READ_BITFIELD(prev, in_iowait) ? WW_IO : WW_SLEEP, st, cpu + 1);
		a->rd_at = rd;
	}
	if ((a = any_of(next, WW_RUNQ, 0, 0)))
		any_move(a, now, WW_CPU, st, cpu + 1);
	if ((o = bpf_map_lookup_elem(&oncpus, &zero))) {
		o->tid = next->pid;
		o->since = now;
	}

	if ((w = in_call(prev)) &&
	    !(targ_test_unseen_out && bpf_get_prandom_u32() % targ_test_unseen_out == 0)) {
		/* the same for a traced thread: a missed switch in would put
		 * its CPU time in runq; where this CPU's entry is gone too (no
		 * sched_switch into it was seen at all), the kernel's count of
		 * its waits for a CPU says when it ran (switched_in_unseen) */
		if (w->state == WP_RUNQ)
			switched_in_unseen(w, in, now, prev, true);
		w->rec.offcpu++;
		/* prev_state, not prev->__state: that one can change under us */
		charge_st(w, now, preempt || prev_state == 0 ? WP_RUNQ : blocked_part(w, prev),
			  cpu + 1, following ? st : steal_read(sa));
		w->ran_at = prev->se.sum_exec_runtime;
		w->rd_at = run_delay(prev);
		if (!preempt && prev_state != 0) {	/* where it blocks: prev is current here */
			if (!(w->flags & F_OFF))
				sleeper_in(now);
			w->flags |= F_OFF;
			w->flags &= ~F_WOKEN;
			w->off_at = now;
			w->wait_stack = kmemo_stackid(ctx, &kstacks, &waitstacks);
		}
		/* -K/-U: prev is still current here, so these are its stacks */
		if ((targ_kstack || targ_ustack) && !preempt && prev_state != 0) {
			w->off_since = now;
			/* (with memos the wait's stack, in the same map, whole) */
			w->off_k = !targ_kstack ? -1 : kmemo_on ? w->wait_stack : kmemo_stackid(ctx, &kstacks, &stacks);
			w->off_u = targ_ustack ? ustack_take(ctx, &ustacks, &stacks) : -1;
		}
	}
	if ((w = in_call(next))) {
		w->flags &= ~F_THROTTLE;	/* its pause is over */
		__u64 st_in = following ? st : steal_read(sa);

		if (on_cpu(w))	/* thought running: its switch out went unseen */
			switched_out_unseen(w, now, next, cpu + 1, st_in);
		charge_st(w, now, running_part(w), cpu + 1, st_in);
		w->ran_in = next->se.sum_exec_runtime;
		if (w->flags & F_OFF)
			sleeper_out();
		w->flags &= ~(F_OFF | F_WOKEN);
		off_end(w, now);
	}
	return 0;
}

/* Blocked -> runnable; the time until it runs again is the CPU's. */
static __always_inline int woken(struct task_struct *p)
{
	struct why_task *w = in_call(p);

	if (!w)
		return 0;
	/* off its CPU (ttwu waited for that), yet thought running: it went to
	 * sleep unseen */
	if (on_cpu(w) && bpf_core_field_exists(p->on_cpu) && !p->on_cpu)
		slept_unseen(w, p, bpf_ktime_get_ns());
	/* Woken before it slept (ttwu_runnable(): it is still on its CPU),
	 * or runnable already.  Told by F_OFF, not by the part: reclaim and
	 * lock parts are run as well as slept in, and a charge from here on
	 * a thread that runs would race its own charges on its CPU (a part
	 * counted twice, "unaccounted" below 0). */
	if (!(w->flags & F_OFF) || w->state == WP_RUNQ || w->state == WP_CPU) {
		__sync_fetch_and_add(&stats.wake_running, 1);
		return 0;
	}
	if (w->state == WP_LOCK && (w->flags & F_LOCK))
		return 0;	/* lock handoff: still the lock's until contention_end */
	charge_at(w, bpf_ktime_get_ns(), WP_RUNQ, true);
	w->rd_at = run_delay(p);
	w->flags &= ~F_WOKEN;
	return 0;
}

/* A new task is waiting for a CPU from its fork: its state from then, so
 * that a child woken into its first wait's end is followed all through. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(why_fork, struct task_struct *parent, struct task_struct *child)
{
	/* the storage made here in any case: made later, in the context of
	 * a wakeup it gives (sched_waking, IRQs off), it is sometimes refused
	 * for want of memory at hand, and the waker goes unfollowed; in a
	 * spell, its history from now (a new task's storage is always fresh) */
	if (!follow_since)
		bpf_task_storage_get(&anys, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	else
		any_of(child, WW_RUNQ, bpf_ktime_get_ns(), 0);
	/* a new process inherits its parent's fds: a queue attribute among them */
	if (targ_qwrites && qw_nprocs && child->pid == child->tgid) {
		__u32 ptgid = parent->tgid;

		if (bpf_map_lookup_elem(&qw_procs, &ptgid))
			qw_proc_add(child->tgid);
	}
	return 0;
}

/* A process's last thread exits (signal->live is counted down before the
 * tracepoint): it writes no more. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(why_pexit, struct task_struct *p)
{
	__u32 tgid;

	if (!targ_qwrites || !qw_nprocs || BPF_CORE_READ(p, signal, live.counter))
		return 0;
	tgid = p->tgid;
	if (!bpf_map_delete_elem(&qw_procs, &tgid))
		__sync_fetch_and_add(&qw_nprocs, -1);
	return 0;
}

/* The link of t's history that ended its longest wait over [t0, now]
 * (woken after t0), or NULL. */
static __always_inline struct why_link *best_link(struct why_any *t, __u64 t0, __u64 now)
{
	struct why_link *best = NULL;

	for (int i = 0; i < WHY_LINKS; i++) {
		struct why_link *l = &t->links[i];

		if (i >= t->nl || l->hop.at <= t0 || l->hop.at > now ||
		    (best && l->hop.wait_ns <= best->hop.wait_ns))
			continue;
		best = l;
	}
	return best;
}

/* The waker (current) as a link: who, how (stack), and its time over the
 * wait [t0, now] from its history ca. */
static __always_inline void hop_fill(struct why_waker *h, struct task_struct *cur, struct why_any *ca,
				     __s32 stack, __u64 t0, __u64 now)
{
	h->at = now;
	h->wait_ns = now > t0 ? now - t0 : 0;
	h->stack = stack;
	h->pid = cur->tgid;
	h->tid = cur->pid;
	h->flags = 0;
	h->resolution_ns = 0;
	h->cpu = bpf_get_smp_processor_id() + 1;
	for (int i = 0; i < WW_NR; i++)
		h->part[i] = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	if (ca && any_span(ca, t0, now, any_stolen(ca, now, steal_now(), h->cpu), h->part, &h->resolution_ns))
		h->flags |= WHY_WAKER_FOLLOWED;
}

/* Who wakes a traced thread off CPU, and what the waker did over its wait:
 * sched_waking runs in the waker's context (sched_wakeup may run on the
 * wakee's CPU, from an IPI).  With --depth 2 or 3, also every followed
 * task's wake out of a long wait: a link of the chains. */
SEC("tp_btf/sched_waking")
int BPF_PROG(why_waking, struct task_struct *p)
{
	/* made here too: a thread asleep since the spell began (a journal
	 * thread) is then followed from its wake, not from its first run */
	struct task_struct *woken = p, *cur;
	struct why_task *w;
	struct why_any *a, *ca;
	__u64 now, slept = 0;
	__u32 was = WW_SLEEP;
	bool traced;
	__s32 stack;

	if (!follow_since)	/* no traced thread waits: nothing to follow */
		return 0;
	a = any_of(p, BPF_CORE_READ_BITFIELD(woken, in_iowait) ? WW_IO : WW_SLEEP, 0, 0);
	now = bpf_ktime_get_ns();
	if (a && a->state != WW_CPU && a->state != WW_RUNQ) {
		/* a wait long enough to be a link of a chain */
		if (targ_depth > 1 && a->since && now >= a->since + targ_chain_ns) {
			slept = a->since;
			was = a->state;
		}
		any_move(a, now, WW_RUNQ, 0, 0);
		a->rd_at = run_delay(p);
	}
	w = in_call(p);
	traced = w && (w->flags & F_OFF);	/* (w itself is never set NULL
						 * here: the verifier refuses the
						 * masking the compiler makes of it) */
	if (!traced && !slept)
		return 0;
	/* the waker's stack says how it woke the thread, and whether from an
	 * interrupt (user space reads it: preempt_count is a per-CPU variable
	 * BPF can name only on kernels with CONFIG_KALLSYMS_ALL) */
	stack = kmemo_stackid(ctx, &kstacks, &wakestacks);
	cur = bpf_get_current_task_btf();
	ca = any_of(cur, WW_CPU, 0, bpf_get_smp_processor_id() + 1);	/* running now: since the spell began, if not seen */
	if (slept && a) {
		__u32 k = a->nl & (WHY_LINKS - 1);
		struct why_waker *h = &a->links[k].hop;
		struct why_link *s;

		hop_fill(h, cur, ca, stack, slept, now);
		h->wpart = was;
		/* where p waited: its stack, as it sleeps still */
		h->nips = 0;
		long n = bpf_get_task_stack(p, h->place, sizeof(h->place), 0);
		if (n > 0)
			h->nips = n / sizeof(__u64);
		a->links[k].sub.at = 0;
		if (targ_depth > 2 && ca && (s = best_link(ca, slept, now)))
			a->links[k].sub = s->hop;
		a->nl++;
	}
	if (!traced || !w)
		return 0;
	hop_fill(&w->wk, cur, ca, stack, w->off_at, now);
	w->flags |= F_WOKEN;
	w->up[0].at = w->up[1].at = 0;
	if (ca) {
		struct why_link *l = best_link(ca, w->off_at, now);

		if (l) {
			w->up[0] = l->hop;
			w->up[1] = l->sub;
		}
	}
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(why_wakeup, struct task_struct *p)
{
	return woken(p);
}

SEC("tp_btf/contention_begin")
int BPF_PROG(why_lock_begin, void *lock, unsigned int flags)
{
	struct why_task *w = current_call();
	__u64 now;

	if (!w || (w->flags & F_LOCK))
		return 0;
	now = bpf_ktime_get_ns();
	charge(w, now, WP_LOCK);
	w->flags |= F_LOCK;
	w->lock_since = now;
	w->lock_flags = flags;
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(why_lock_end, void *lock, int ret)
{
	struct why_task *w = current_call();
	__u64 now;

	if (!w || !(w->flags & F_LOCK))
		return 0;
	now = bpf_ktime_get_ns();
	w->flags &= ~F_LOCK;
	charge(w, now, running_part(w));
	if (now - w->lock_since > w->rec.lock_max) {
		w->rec.lock_max = now - w->lock_since;
		w->rec.lock_flags = w->lock_flags;
	}
	return 0;
}

SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(why_throttle)
{
	struct why_task *w = current_call();

	if (w)
		w->flags |= F_THROTTLE;
	return 0;
}

static __always_inline int reclaim_begin(void)
{
	struct why_task *w = current_call();

	if (w) {
		w->flags |= F_RECLAIM;
		charge(w, bpf_ktime_get_ns(), running_part(w));
	}
	return 0;
}

static __always_inline int reclaim_end(void)
{
	struct why_task *w = current_call();

	if (w && (w->flags & F_RECLAIM)) {
		w->flags &= ~F_RECLAIM;
		charge(w, bpf_ktime_get_ns(), running_part(w));
	}
	return 0;
}

/* Direct reclaim: the machine is short of memory. */
SEC("tp_btf/mm_vmscan_direct_reclaim_begin")
int BPF_PROG(why_reclaim_begin)
{
	return reclaim_begin();
}

SEC("tp_btf/mm_vmscan_direct_reclaim_end")
int BPF_PROG(why_reclaim_end)
{
	return reclaim_end();
}

/* Reclaim inside a charge: the task's memory cgroup is at its limit
 * (try_to_free_mem_cgroup_pages()), which the direct-reclaim events do
 * not cover; a call reading files in a small cgroup spends its time here. */
SEC("tp_btf/mm_vmscan_memcg_reclaim_begin")
int BPF_PROG(why_memcg_reclaim_begin)
{
	return reclaim_begin();
}

SEC("tp_btf/mm_vmscan_memcg_reclaim_end")
int BPF_PROG(why_memcg_reclaim_end)
{
	return reclaim_end();
}

/* Q: from here until a request is allocated (or the bio merges), a sleep
 * is a wait to enter the block layer (frozen queue, no tag). */
SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(why_bio_queue, block_bio_queue, struct bio *bio)
{
	struct why_task *w = current_call();

	if (w)
		w->flags |= F_SUBMIT;
	return 0;
}

static __always_inline int submitted(void)
{
	struct why_task *w = current_call();

	if (w)
		w->flags &= ~F_SUBMIT;
	return 0;
}

SEC("tp_btf/block_getrq")
int BLOCK_PROG(why_getrq, block_getrq, struct bio *bio) { return submitted(); }

SEC("tp_btf/block_bio_backmerge")
int BLOCK_PROG(why_backmerge, block_bio_backmerge, struct bio *bio) { return submitted(); }

SEC("tp_btf/block_bio_frontmerge")
int BLOCK_PROG(why_frontmerge, block_bio_frontmerge, struct bio *bio) { return submitted(); }

static __always_inline int fault(void)
{
	struct why_task *w = current_call();

	if (w)
		w->rec.faults++;
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(why_fault_user) { return fault(); }

SEC("tp_btf/page_fault_kernel")
int BPF_PROG(why_fault_kernel) { return fault(); }

/* A page-cache miss: a folio added by this thread (read, readahead it
 * started, or a write to a page not cached). */
SEC("tp/filemap/mm_filemap_add_to_page_cache")
int why_cache_add(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
	struct why_task *w = current_call();
	__u32 order = 0;

	if (!w)
		return 0;
	if (bpf_core_field_exists(ctx->order))
		order = BPF_CORE_READ(ctx, order);
	w->rec.cache_added += 1ULL << (order & 31);
	return 0;
}

/* 6.18+: not loaded where the kernel lacks them (why.c). */
SEC("tp_btf/page_cache_sync_ra")
int BPF_PROG(why_ra_sync)
{
	struct why_task *w = current_call();

	if (w)
		w->rec.ra_sync++;
	return 0;
}

SEC("tp_btf/page_cache_async_ra")
int BPF_PROG(why_ra_async)
{
	struct why_task *w = current_call();

	if (w)
		w->rec.ra_async++;
	return 0;
}

/* ---- why --call TARGET --into CHILD,...: functions, by cookie ---- */

static __always_inline int fn_entry(__u64 cookie)
{
	struct task_struct *t;
	struct why_task *w;
	__u64 id64, now;
	__u32 c;

	if (cookie == 0) {	/* TARGET */
		t = bpf_get_current_task_btf();
		w = bpf_task_storage_get(&tasks, t, 0, 0);
		if (w && (w->flags & F_CALL)) {	/* recursion: the outermost call is the one */
			w->depth++;
			return 0;
		}
		if (!started)
			return 0;
		id64 = bpf_get_current_pid_tgid();
		if (!task_wanted(id64 >> 32))
			return 0;
		w = bpf_task_storage_get(&tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!w) {
			__sync_fetch_and_add(&stats.no_storage, 1);
			return 0;
		}
		begin(w, WHY_NR_FUNC, id64);
		return 0;
	}
	w = current_call();
	c = cookie - 1;
	if (!w || c >= WHY_CHILDREN)
		return 0;
	now = bpf_ktime_get_ns();
	if (w->active[c]++ == 0)	/* nested calls of one child: the outermost counts */
		w->child_since[c] = now;
	if (w->any++ == 0)
		w->any_since = now;
	return 0;
}

static __always_inline int fn_exit(__u64 cookie, long ret)
{
	struct why_task *w = current_call();
	__u64 now;
	__u32 c;

	if (!w)
		return 0;
	if (cookie == 0) {
		if (--w->depth == 0)
			finish(w, ret);
		return 0;
	}
	c = cookie - 1;
	if (c >= WHY_CHILDREN)
		return 0;
	if (!w->active[c]) {
		__sync_fetch_and_add(&stats.unmatched_child, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	w->rec.child_calls[c]++;
	if (--w->active[c] == 0)
		w->rec.child_ns[c] += now - w->child_since[c];
	if (w->any && --w->any == 0)
		w->rec.in_children += now - w->any_since;
	return 0;
}

SEC("uprobe")
int why_uentry(struct pt_regs *ctx) { return fn_entry(bpf_get_attach_cookie(ctx)); }

SEC("uretprobe")
int why_uexit(struct pt_regs *ctx) { return fn_exit(bpf_get_attach_cookie(ctx), PT_REGS_RC(ctx)); }

SEC("kprobe")
int why_kentry(struct pt_regs *ctx) { return fn_entry(bpf_get_attach_cookie(ctx)); }

SEC("kretprobe")
int why_kexit(struct pt_regs *ctx) { return fn_exit(bpf_get_attach_cookie(ctx), PT_REGS_RC(ctx)); }

SEC("kprobe.multi")
int why_kmentry(struct pt_regs *ctx) { return fn_entry(bpf_get_attach_cookie(ctx)); }

SEC("kretprobe.multi")
int why_kmexit(struct pt_regs *ctx) { return fn_exit(bpf_get_attach_cookie(ctx), PT_REGS_RC(ctx)); }

char LICENSE[] SEC("license") = "GPL";

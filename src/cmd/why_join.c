// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why: each slow call joined with the block requests its thread
 * submitted while in it (same tid, Q between the call's entry and exit),
 * its file named while the process lives, its stacks named on arrival,
 * and its parts added to the summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "bpfenv.h"
#include "disks.h"
#include "log.h"
#include "why_int.h"
#include "why.skel.h"

static const struct sysc *sysc_of(uint32_t nr)
{
	for (int i = 0; i < NSYSC; i++)
		if (why_syscalls[i].nr == (int)nr)
			return &why_syscalls[i];
	return NULL;
}

/* The devices of pipes' and sockets' inodes (pipefs, sockfs: one each),
 * from a pipe and a socket of iodig's own: their names are made from the
 * inode number ("pipe:[N]"), so they are known after the fd is gone. */
static void pseudo_devs(dev_t *pipe_dev, dev_t *sock_dev)
{
	static dev_t pd, sd;
	static bool done;
	struct stat st;
	int fds[2], s;

	if (!done) {
		done = true;
		if (!pipe(fds)) {
			if (!fstat(fds[0], &st))
				pd = st.st_dev;
			close(fds[0]);
			close(fds[1]);
		}
		if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0) {
			if (!fstat(s, &st))
				sd = st.st_dev;
			close(s);
		}
	}
	*pipe_dev = pd;
	*sock_dev = sd;
}

static void file_name(struct why_ctx *wc, const struct why_call *c, char *buf, size_t len)
{
	dev_t pd, sd, dev = makedev(c->dev >> 20, c->dev & 0xfffff);
	char link[64], target[512];
	struct stat st;
	ssize_t n;

	/* the bytes as they are: the text printer escapes them, JSON keeps them */
	if (c->path[0]) {	/* (an fd's as readlink says it, unlinked too) */
		snprintf(buf, len, "%.*s%s", WHY_PATH_LEN, c->path, c->fd >= 0 && c->unlinked ? " (deleted)" : "");
		return;
	}
	if (c->fd < 0) {
		buf[0] = '\0';
		return;
	}
	/* Resolved now, from the fd: right while the process keeps that fd
	 * open on the same file; checked against the kernel's dev and inode,
	 * else the numbers are shown. */
	snprintf(link, sizeof(link), "/proc/%u/fd/%d", c->pid, c->fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0 && !stat(link, &st) && st.st_ino == c->ino && st.st_dev == dev) {
		struct named *nm = &wc->names[wc->next_name++ % NAMES_MAX];

		target[n] = '\0';
		snprintf(buf, len, "%s", target);
		*nm = (struct named){ c->pid, c->dev, c->fd, c->ino };
		snprintf(nm->file, sizeof(nm->file), "%s", buf);
		return;
	}
	for (int i = 0; i < NAMES_MAX; i++) {
		const struct named *nm = &wc->names[i];

		if (nm->pid == c->pid && nm->fd == c->fd && nm->dev == c->dev && nm->ino == c->ino &&
		    nm->file[0]) {
			snprintf(buf, len, "%s", nm->file);
			return;
		}
	}
	pseudo_devs(&pd, &sd);
	if (c->dev && (dev == pd || dev == sd))
		snprintf(buf, len, "%s:[%llu]", dev == pd ? "pipe" : "socket", (unsigned long long)c->ino);
	else if (c->dev)
		snprintf(buf, len, "dev %u:%u ino %llu", c->dev >> 20, c->dev & 0xfffff,
			 (unsigned long long)c->ino);
	else
		snprintf(buf, len, "fd %d", c->fd);
}

/* A kernel stack of a wait, a waker or -K (ips: STACK_IPS): from kstacks
 * where memos are on, else from the site's own stack map (why.bpf.c). */
static int read_kstack(struct why_ctx *wc, struct bpf_map *site, int id, uint64_t *ips)
{
	const struct bpf_map *m = wc->skel->rodata->kmemo_on ? wc->skel->maps.kstacks : site;
	int n;

	_Static_assert(STACK_IPS >= WHY_WAKE_DEPTH && STACK_IPS >= WHY_WAIT_DEPTH, "room for any of them");
	n = frames__read(bpf_map__fd(m), id, ips, bpf_map__value_size(m) / sizeof(*ips));
	if (!n)
		wc->kstacks_lost++;
	return n;
}

static int read_stack(struct why_ctx *wc, int id, uint64_t *ips, bool user)
{
	if (!user)
		return read_kstack(wc, wc->skel->maps.stacks, id, ips);
	return frames__read(bpfenv__ustack_fd(wc->skel->rodata->ustack_walk, wc->skel->maps.ustacks,
					      wc->skel->maps.stacks), id, ips, STACK_IPS);
}

/* -K/-U: now, while the process lives (user frames need its mappings). */
static void name_stacks(struct why_ctx *wc, struct pending *p)
{
	uint64_t ips[STACK_IPS];

	memset(&p->kf, 0, sizeof(p->kf));
	memset(&p->uf, 0, sizeof(p->uf));
	if (wc->o->kstack)
		frames__kernel(&p->kf, &wc->ks, ips, read_stack(wc, p->c.kstack, ips, false));
	if (wc->o->ustack)
		frames__user(&p->uf, wc->us, p->c.pid, ips, read_stack(wc, p->c.ustack, ips, true));
}

/* The scheduler's own frames and the generic waits on top of it (a bit, a
 * completion), above the place a wait happened. */
static const char *const sched[] = { "__schedule", "schedule", "io_schedule", "preempt_schedule",
				     "__cond_resched", "_cond_resched", "bit_wait", "__wait_on_bit",
				     "out_of_line_wait_on_bit", "wait_for_completion", "__wait_for_common",
				     "do_wait_for_common" };

/* The wakeup's own frames, above what woke the thread (pipe_write, ...). */
static const char *const waking[] = { "try_to_wake_up", "wake_up", "__wake_up", "default_wake_function",
				      "autoremove_wake_function", "woken_wake_function", "wake_page_function",
				      "wake_bit_function", "var_wake_function", "folio_wake_bit", "complete",
				      "swake_up", "__swake_up", "ttwu_", "pollwake", "ep_poll_callback" };
/* Frames only an interrupt or softirq runs under (the CPU was lent to it). */
static const char *const interrupt[] = { "asm_sysvec_", "sysvec_", "__sysvec_", "asm_common_interrupt",
					 "common_interrupt", "handle_softirqs", "__do_softirq", "do_softirq",
					 "__irq_exit_rcu", "irq_exit", "run_ksoftirqd", "asm_exc_nmi", "default_do_nmi",
					 "handle_irq_event", "__handle_irq_event_percpu" };

/* How a waker woke its task (the first frame past the wakeup's own), and
 * whether from an interrupt: then no task did, whatever ran. */
static void name_wake(struct why_ctx *wc, const struct why_waker *k, struct hop_names *h)
{
	uint64_t ips[STACK_IPS];
	int n = read_kstack(wc, wc->skel->maps.wakestacks, k->stack, ips);

	for (int i = frames__kernel_skip(&wc->ks, ips, n); i < n; i++) {
		const struct ksym *s = ksyms__find(&wc->ks, ips[i]);

		if (!s)
			continue;
		if (!h->how[0] && !frames__prefixed(s->name, waking, sizeof(waking) / sizeof(waking[0])))
			snprintf(h->how, WHY_PLACE_LEN, "%s", s->name);
		if (frames__prefixed(s->name, interrupt, sizeof(interrupt) / sizeof(interrupt[0])))
			h->irq = true;
	}
}

/* A wait's place: the first frame past the scheduler, "(scheduler)" when
 * there is none, "(no stack)" without frames. */
static void name_place(struct why_ctx *wc, const uint64_t *ips, int n, char *place)
{
	int i;

	snprintf(place, WHY_PLACE_LEN, "(no stack)");
	for (i = frames__kernel_skip(&wc->ks, ips, n); i < n; i++) {
		const struct ksym *s = ksyms__find(&wc->ks, ips[i]);

		if (s && !frames__prefixed(s->name, sched, sizeof(sched) / sizeof(sched[0]))) {
			snprintf(place, WHY_PLACE_LEN, "%s", s->name);
			return;
		}
	}
	if (n)
		snprintf(place, WHY_PLACE_LEN, "(scheduler)");
}

/* Each wait's chain: how each waker woke, and where the deeper ones' tasks
 * waited (their stacks as they were woken). */
static void name_wakes(struct why_ctx *wc, struct pending *p)
{
	memset(p->hop, 0, sizeof(p->hop));
	for (int w = 0; w < WHY_WAITS; w++)
		for (int d = 0; d < WHY_CHAIN; d++) {
			const struct why_waker *k = why__hop(p, w, d);

			if (!k)
				break;
			name_wake(wc, k, &p->hop[w][d]);
			if (d)
				name_place(wc, (const uint64_t *)k->place, k->nips < WHY_HOP_IPS ? (int)k->nips : WHY_HOP_IPS,
					   p->hop[w][d].place);
		}
}

/* Each wait's place: the first frame of its stack past the tracepoint's
 * dispatch and the scheduler (pipe_read, jbd2_log_wait_commit, ...). */
static void name_places(struct why_ctx *wc, struct pending *p)
{
	uint64_t ips[STACK_IPS];

	for (int w = 0; w < WHY_WAITS; w++) {
		const struct why_wait *x = &p->c.waits[w];

		p->place[w][0] = '\0';
		if (x->ns && x->stack == WHY_WAIT_UNSEEN)
			snprintf(p->place[w], WHY_PLACE_LEN, "(switch out unseen)");
		else if (x->ns)
			name_place(wc, ips, read_kstack(wc, wc->skel->maps.waitstacks, x->stack, ips), p->place[w]);
	}
}

int why__on_call(void *ctx, void *data, size_t size)
{
	struct why_ctx *wc = ctx;

	if (size < sizeof(struct why_call))
		return 0;
	if (wc->ncalls == CALLS_MAX) {
		wc->calls_full++;
		return 0;
	}
	memcpy(&wc->calls[wc->ncalls].c, data, sizeof(struct why_call));
	file_name(wc, &wc->calls[wc->ncalls].c, wc->calls[wc->ncalls].file, sizeof(wc->calls[0].file));
	name_stacks(wc, &wc->calls[wc->ncalls]);
	name_places(wc, &wc->calls[wc->ncalls]);
	name_wakes(wc, &wc->calls[wc->ncalls]);
	wc->ncalls++;
	return 0;
}

int why__on_life(void *ctx, void *data, size_t size)
{
	struct why_ctx *wc = ctx;
	const struct life_req *r = data;

	if (wc->tee)
		wc->tee(wc->tee_ctx, data, size);
	if (size >= sizeof(struct life_sysfs) && (r->type == REC_SYSFS_START || r->type == REC_SYSFS_END)) {
		printer__remember(&wc->pr, data);
		return 0;
	}
	if (size < sizeof(*r) || r->type != REC_REQ || !(r->seen & SEEN_WHO))
		return 0;
	wc->reqs[wc->nreq++ % REQ_RING] = *r;
	return 0;
}

/* The requests tid submitted in [start, end], newest first; records come
 * in completion order, and a request that completed before start was
 * submitted before it too (a small margin covers CPUs racing for the ring). */
static int find_reqs(struct why_ctx *wc, const struct why_call *c, const struct life_req **out, int max,
		     int *total)
{
	uint64_t n = wc->nreq, lo = n > REQ_RING ? n - REQ_RING : 0;
	int k = 0;

	*total = 0;
	for (uint64_t i = n; i-- > lo;) {
		const struct life_req *r = &wc->reqs[i % REQ_RING];

		if (r->c + 1000000 < c->start)
			break;
		if (r->tid != c->tid || r->q < c->start || r->q > c->end)
			continue;
		if (k < max)
			out[k++] = r;
		(*total)++;
	}
	return k;
}

/* The name of the process whose data a write carried (life_req.wb_pid), as
 * the engine saw it dirty pages, or "?". */
static void owner_name(struct why_ctx *wc, uint32_t pid, char comm[WHY_COMM_LEN])
{
	if (!life__dirtier_comm(&wc->l, pid, comm, WHY_COMM_LEN))
		snprintf(comm, WHY_COMM_LEN, "?");
}

/* The requests a waker submitted that were in flight over the wait it
 * ended (its io over the wait is theirs, or another's it waited for in
 * turn), and whose data most of their bytes were. */
static void hop_reqs(struct why_ctx *wc, const struct why_waker *k, struct hop_names *h)
{
	uint64_t n = wc->nreq, lo = n > REQ_RING ? n - REQ_RING : 0;
	struct { uint32_t pid; uint64_t bytes; } own[4] = {};

	for (uint64_t i = n; i-- > lo;) {
		const struct life_req *r = &wc->reqs[i % REQ_RING];
		__u64 ph[PH_NR];

		if (r->c + 1000000 + k->wait_ns < k->at)	/* completion order: older ones too */
			break;
		/* submitted by the waker, and in flight during the wait */
		if (r->tid != k->tid || r->c + k->wait_ns < k->at || r->q > k->at)
			continue;
		if (!h->reqs.n++)
			h->reqs.dev = r->dev;
		h->reqs.bytes += r->bytes;
		life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
		if (ph[PH_Q2C] > h->reqs.q2c) {
			h->reqs.q2c = ph[PH_Q2C];
			h->reqs.d2c = ph[PH_D2C];
		}
		for (int o = 0; r->wb_pid && o < 4; o++)	/* a fifth owner goes uncounted */
			if (!own[o].pid || own[o].pid == r->wb_pid) {
				own[o].pid = r->wb_pid;
				own[o].bytes += r->bytes;
				break;
			}
	}
	for (int o = 0; o < 4; o++)
		if (own[o].bytes > h->reqs.owner_bytes) {
			h->reqs.owner = own[o].pid;
			h->reqs.owner_bytes = own[o].bytes;
		}
	if (h->reqs.owner)
		owner_name(wc, h->reqs.owner, h->reqs.owner_comm);
}

/* The request whose completion came last before the wake at `at`, within
 * WHY_ENDED_NS, on the CPU of the wake (a completion wakes its waiters right
 * after block_rq_complete, in the same interrupt or worker: another disk's
 * completions meanwhile run elsewhere, or before it). */
#define WHY_ENDED_NS 1000000ull
static void hop_ended(struct why_ctx *wc, uint64_t at, uint32_t cpu, struct hop_names *h)
{
	uint64_t n = wc->nreq, lo = n > REQ_RING ? n - REQ_RING : 0;
	const struct life_req *best = NULL;
	__u64 ph[PH_NR];

	for (uint64_t i = n; i-- > lo;) {
		const struct life_req *r = &wc->reqs[i % REQ_RING];

		if (r->c + 2 * WHY_ENDED_NS < at)	/* completion order, give or take */
			break;
		if (r->c <= at && at - r->c <= WHY_ENDED_NS && (!best || r->c > best->c) &&
		    (!cpu || !r->c_cpu || r->c_cpu == cpu))
			best = r;
	}
	if (!best)
		return;
	h->ended.found = true;
	h->ended.dev = best->dev;
	h->ended.pid = best->pid;
	h->ended.tid = best->tid;
	h->ended.bytes = best->bytes;
	memcpy(h->ended.comm, best->comm, WHY_COMM_LEN);
	h->ended.comm[WHY_COMM_LEN - 1] = '\0';
	{
		char ob[32];

		snprintf(h->ended.op, sizeof(h->ended.op), "%s", reqflags__op_name(&wc->pr.rf, best->cmd_flags, ob, sizeof(ob)));
	}
	if (life_phases(best->q, best->g, best->i, best->d, best->c, best->seen, ph)) {
		h->ended.q2c = ph[PH_Q2C];
		h->ended.d2c = ph[PH_D2C];
	}
	h->ended.owner = best->wb_pid;
	if (best->wb_pid)
		owner_name(wc, best->wb_pid, h->ended.owner_comm);
}

static void waker_reqs(struct why_ctx *wc, struct pending *p)
{
	for (int w = 0; w < WHY_WAITS; w++)
		for (int d = 0; d < WHY_CHAIN; d++) {
			const struct why_waker *k = why__hop(p, w, d);
			struct hop_names *h = &p->hop[w][d];

			if (!k)
				break;
			memset(&h->reqs, 0, sizeof(h->reqs));
			memset(&h->ended, 0, sizeof(h->ended));
			if (k->tid && !h->irq)
				hop_reqs(wc, k, h);
			/* an io wait no request of the waker's own explains */
			if (!h->reqs.n && (d ? k->wpart == WW_IO : p->c.waits[w].part == WP_IO))
				hop_ended(wc, k->at, k->cpu, h);
		}
}

/* A waker as the summary keys it: a pool's workers are one waker
 * ("kworker/u8:3" is "kworker/u8"); an interrupt is named so. */
static void waker_key(const struct why_waker *k, bool irq, char *out)
{
	if (irq) {
		snprintf(out, WHY_COMM_LEN, "an interrupt");
		return;
	}
	snprintf(out, WHY_COMM_LEN, "%.*s", WHY_COMM_LEN - 1, k->comm);
	if (!strncmp(out, "kworker/", 8) && strchr(out, ':'))
		*strchr(out, ':') = 0;
}

/* A call's waits into the summary's, by place, part and chain of wakers;
 * its wakers shown without their time counted. */
static void aggregate_waits(struct why_ctx *wc, struct sys_agg *a, const struct pending *p)
{
	a->wait_other += p->c.waits_other;
	for (int w = 0; w < WHY_WAITS; w++) {
		const struct why_wait *x = &p->c.waits[w];
		char waker[WHY_COMM_LEN] = "", up[WHY_CHAIN - 1][WHY_COMM_LEN] = {};
		const struct why_waker *h;
		int k;

		if (!x->ns)
			continue;
		if (x->waker.tid && !p->hop[w][0].irq && !(x->waker.flags & WHY_WAKER_FOLLOWED))
			wc->wakers_unfollowed++;
		if (!p->hop[w][0].irq && x->waker.tid)
			waker_key(&x->waker, false, waker);
		for (int d = 1; d < WHY_CHAIN && (h = why__hop(p, w, d)); d++)
			waker_key(h, p->hop[w][d].irq, up[d - 1]);

		for (k = 0; k < a->nwaits; k++)
			if (a->wait[k].part == x->part && !strcmp(a->wait[k].place, p->place[w]) &&
			    a->wait[k].irq == p->hop[w][0].irq && !strncmp(a->wait[k].waker, waker, WHY_COMM_LEN) &&
			    !memcmp(a->wait[k].up, up, sizeof(up)))
				break;
		if (k == a->nwaits) {
			if (k == WHY_AGG_WAITS) {
				a->wait_other += x->ns;
				continue;
			}
			a->nwaits++;
			a->wait[k].part = x->part;
			snprintf(a->wait[k].place, WHY_PLACE_LEN, "%s", p->place[w]);
			memcpy(a->wait[k].waker, waker, WHY_COMM_LEN);
			memcpy(a->wait[k].up, up, sizeof(up));
			a->wait[k].irq = p->hop[w][0].irq;
			a->wait[k].ns = a->wait[k].calls = 0;
		}
		a->wait[k].ns += x->ns;
		a->wait[k].calls++;
	}
}

static void aggregate(struct why_ctx *wc, const struct why_call *c, const struct life_req **rs, int nrs)
{
	const struct sysc *s = sysc_of(c->nr);
	struct sys_agg *a = &wc->agg[c->nr == WHY_NR_FUNC ? NSYSC : s ? s - why_syscalls : 0];

	aggregate_waits(wc, a, wc->cur);
	a->calls++;
	hist__add(&a->wall, c->end - c->start);
	for (int p = 0; p < WP_NR; p++)
		hist__add(&a->part[p], c->part[p]);
	if (c->nr == WHY_NR_FUNC) {
		for (int i = 0; i < wc->o->ninto; i++)
			hist__add(&a->child[i], c->child_ns[i]);
		hist__add(&a->self, c->end - c->start - c->in_children);
	}
	for (int i = 0; i < nrs; i++) {
		const struct life_req *r = rs[i];
		__u64 ph[PH_NR];
		int d;

		if (!life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph))
			continue;
		for (d = 0; d < a->ndisks && a->disk[d].dev != r->dev; d++)
			;
		if (d == a->ndisks) {
			if (d == 8)
				continue;
			a->disk[a->ndisks++].dev = r->dev;
		}
		a->reqs++;
		a->disk[d].n++;
		for (int p = 0; p < PH_NR; p++)
			a->disk[d].ph[p] += ph[p];
	}
}

static bool touches_disk(struct why_ctx *wc, const struct life_req **rs, int nrs)
{
	for (int i = 0; i < nrs; i++)
		if (rs[i]->dev == wc->sel.disk &&
		    (!wc->sel.part || wc->sel.part == rs[i]->dev))
			return true;
	return false;
}

/* The calls that were there before the last poll: their requests are in. */
void why__join_ready(struct why_ctx *wc)
{
	for (int i = 0; i < wc->ready; i++) {
		const struct why_call *c = &wc->calls[i].c;
		const char *file = wc->calls[i].file;
		const struct life_req *rs[256];
		int total, nrs = find_reqs(wc, c, rs, 256, &total);

		wc->cur = &wc->calls[i];
		if (wc->o->disk && !touches_disk(wc, rs, nrs)) {
			wc->disk_skipped++;
			continue;
		}
		waker_reqs(wc, &wc->calls[i]);
		wc->linked += total;
		if (c->part[WP_IO] && !total)
			wc->unlinked_io++;
		aggregate(wc, c, rs, nrs);
		if (wc->o->summary_only)
			continue;
		wc->shown++;
		why__print_call(wc, c, file, sysc_of(c->nr), rs, nrs < LINK_SHOWN ? nrs : LINK_SHOWN, total);
	}
	for (int i = 0; i < wc->ready; i++) {
		frames__free(&wc->calls[i].kf);
		frames__free(&wc->calls[i].uf);
	}
	memmove(wc->calls, wc->calls + wc->ready, (wc->ncalls - wc->ready) * sizeof(*wc->calls));
	wc->ncalls -= wc->ready;
	wc->ready = wc->ncalls;
}


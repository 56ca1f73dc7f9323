/* SPDX-License-Identifier: GPL-2.0 */
/* iodig why's own parts: the front end (why.c: options, attach, the join of
 * calls with their requests) and the printer (why_print.c: the call record
 * and the summary, through field tables). */
#ifndef IODIG_WHY_INT_H
#define IODIG_WHY_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "attach.h"
#include "cli.h"
#include "disks.h"
#include "frames.h"
#include "hist_user.h"
#include "json.h"
#include "ksyms.h"
#include "life_user.h"
#include "filter.h"
#include "records.h"
#include "usyms.h"
#include "why.h"

struct sysc {
	const char *name;
	int nr;
	enum why_args args;
	const char *event;	/* its syscalls:sys_enter_ event, where not NAME */
};


#define NSYSC 33	/* why_syscalls[]: checked where it is defined */
extern const struct sysc why_syscalls[NSYSC];

#define WHY_MAX_PIDS 8
#define REQ_RING (1 << 16)	/* recent requests kept for the join */
#define CALLS_MAX 4096		/* calls waiting for their join */
#define LINK_SHOWN 8

#define STACK_IPS WHY_STACK_DEPTH
#define WHY_PLACE_LEN 64	/* a wait's place: the kernel function it blocked in */
#define WHY_AGG_WAITS 32	/* places told apart in a summary */

struct why_opts {
	struct cli_common c;
	const char *pids[WHY_MAX_PIDS];
	int npids;
	const char *comm, *cgroup, *disk, *syscalls;
	bool summary_only, no_queue_writes, kstack, ustack;
	bool sc_events;		/* --syscall-events */
	bool walk_each;		/* --walk-each: no kernel stack memos */
	const char *call;		/* --call TARGET */
	char *into[WHY_CHILDREN];	/* --into CHILD,... */
	int ninto;
	char into_buf[1024];
	char into_spec[WHY_CHILDREN][512];	/* BINARY:SYMBOL, TARGET's binary by default */
	uint64_t min_ns;
	int interval_s;
	int depth;		/* --depth, 0: WHY_CHAIN */
};

/* Blocked time at one place (the kernel function a wait happened in) and part. */
struct agg_wait {		/* by (part, place, waker) */
	uint32_t part;
	char place[WHY_PLACE_LEN];
	char waker[WHY_COMM_LEN];	/* its task name; "": none seen (a timeout) */
	char up[WHY_CHAIN - 1][WHY_COMM_LEN];	/* the waker's own wakers ("": none) */
	bool irq;			/* woken from an interrupt */
	uint64_t ns, calls;
};

/* Per syscall, over the slow calls: wall and each part. */
struct sys_agg {
	uint64_t calls;
	struct hist wall, part[WP_NR];
	struct hist child[WHY_CHILDREN], self;	/* --into */
	uint64_t reqs;
	struct { uint32_t dev; uint64_t n, ph[PH_NR]; } disk[8];
	int ndisks;
	/* blocked time by where the calls blocked and in which part */
	struct agg_wait wait[WHY_AGG_WAITS];
	int nwaits;
	uint64_t wait_other;	/* past WHY_AGG_WAITS places, or past a call's WHY_WAITS */
};

/* A waker of a wait's chain, named on arrival: how it woke the task
 * (depth 1: the traced thread; deeper: the previous waker), whether from
 * an interrupt, where the task it woke had waited (depth 2+: depth 1's is
 * the call's place), and the requests it had in flight over that wait. */
struct hop_names {
	char how[WHY_PLACE_LEN];
	bool irq;
	char place[WHY_PLACE_LEN];
	struct {
		uint32_t n, dev;	/* dev: the first one's disk */
		uint64_t bytes;
		uint64_t q2c, d2c;	/* its longest one's (Q2C), and that one's D2C */
		uint32_t owner;		/* the process whose data most of their bytes were
					 * (life_req.wb_pid: a journal's ordered data) */
		uint64_t owner_bytes;
		char owner_comm[WHY_COMM_LEN];
	} reqs;
	/* an io wait whose waker had no request of its own over it (an
	 * interrupt, a completion worker): the request that completed just
	 * before the wake, whose end ended it (the page it waited for, and so
	 * who held its lock: the submitter) */
	struct {
		bool found;
		uint32_t dev, pid, tid, bytes;
		uint64_t q2c, d2c;
		char comm[WHY_COMM_LEN], op[32];
		uint32_t owner;		/* whose data it wrote (life_req.wb_pid), 0: its own */
		char owner_comm[WHY_COMM_LEN];
	} ended;
};

/* A call waiting for its join, with its file named when it arrived (the
 * process may be gone one poll later). */
struct pending {
	struct why_call c;
	char file[512];
	struct frames kf, uf;	/* -K/-U: the stacks of its longest wait, named on arrival */
	char place[WHY_WAITS][WHY_PLACE_LEN];	/* where each of c.waits[] blocked */
	struct hop_names hop[WHY_WAITS][WHY_CHAIN];	/* each wait's chain of wakers, named */
};

/* Files named before, by (pid, fd, dev, inode): a process that exits right
 * after its last call keeps the name its earlier calls had. */
#define NAMES_MAX 256
struct named {
	uint32_t pid, dev;
	int32_t fd;
	uint64_t ino;
	char file[512];
};

struct why_ctx {
	struct why_opts *o;
	struct why_bpf *skel;
	struct life l;
	struct req_printer pr;		/* op/flag names, queue-write windows: not printing */
	struct json j;
	struct life_req *reqs;		/* ring of recent requests */
	uint64_t nreq;			/* requests ever received */
	struct pending *calls;		/* waiting for the join */
	struct named names[NAMES_MAX];
	unsigned int next_name;
	int ncalls, ready;		/* ready: those there before the last poll */
	struct sys_agg agg[NSYSC + 1];	/* the last: --call's TARGET */
	struct attacher at;
	struct ksyms ks;		/* the waits' places, -K */
	struct usyms *us;		/* -U */
	const struct pending *cur;	/* the call being printed */
	uint64_t wakers_unfollowed;	/* wakers shown without their time over the wait */
	uint64_t kstacks_lost;		/* waits, wakers and -K shown without their kernel stack */
	struct bpf_link *sc_links[2 * NSYSC];	/* per-syscall tracepoints */
	int nsc_links;
	bool raw;			/* raw syscall tracepoints instead */
	struct disk_sel sel;
	uint64_t linked, unlinked_io, disk_skipped, calls_full, shown;
	uint64_t t0;
	life_record_fn tee;		/* also handed every life record (doctor), or NULL */
	void *tee_ctx;
};

/* Depth d (0: the waker) of wait x's chain, or NULL: none kept, or past
 * a waker that was an interrupt (the task it came upon has nothing to do
 * with the wait; p's names say which). */
static inline const struct why_waker *why__hop(const struct pending *p, int w, int d)
{
	const struct why_wait *x = &p->c.waits[w];

	for (int i = 0; i < d; i++)
		if (p->hop[w][i].irq)
			return NULL;
	if (!d)
		return x->waker.at ? &x->waker : NULL;
	return d < WHY_CHAIN && x->up[d - 1].at ? &x->up[d - 1] : NULL;
}

/* why.c: the engine, for why and doctor */
int why__start(struct why_ctx *wc, struct life_cfg *cfg);
int why__poll(struct why_ctx *wc, int ms);
void why__finish(struct why_ctx *wc);
void why__free(struct why_ctx *wc);

/* why_join.c */
int why__on_call(void *ctx, void *data, size_t size);	/* the call ring's callback */
int why__on_life(void *ctx, void *data, size_t size);	/* the request ring's */
void why__join_ready(struct why_ctx *wc);	/* the calls that arrived before the last poll */

/* why_attach.c */
struct why_bpf;
int why__set_syscalls(struct why_bpf *sk, const char *list);
void why__sc_choose(struct why_ctx *wc);
int why__sc_attach(struct why_ctx *wc);
void why__sc_detach(struct why_ctx *wc);
int why__fn_select(struct why_ctx *wc);
int why__fn_attach(struct why_ctx *wc, uint32_t pid);

/* why_print.c */
extern const char *const why_part_names[WP_NR];	/* cpu, runq, ... */
const char *why__target(const struct why_opts *o);	/* --call's function name */
void why__print_call(struct why_ctx *wc, const struct why_call *c, const char *file, const struct sysc *s,
		     const struct life_req **rs, int nrs, int total);
void why__summary(struct why_ctx *wc);	/* why_summary.c */

/* why_waits.c: where a call waited, who ended each wait */
extern const struct rec why_place_rec;
const void *why__each_wait(const struct pending *p, unsigned i, void *scratch);	/* the i-th, or NULL */

#endif

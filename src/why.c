// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why: for each system call slower than MIN_MS, where its time went,
 * from the call down to the device.
 *
 * Two engines run side by side: why.bpf.c splits each traced call into
 * parts (why.h), and the life engine (life.c, followed mode) reports every
 * block request with its submitter and phases, plus queue-attribute writes.
 * A call is joined here with the requests its thread submitted while in it
 * (same tid, Q between the call's entry and exit): those are the requests it
 * waited for, with their disk, phases and, for a stall before allocation,
 * the queue writer.  Both rings are read by one poll; a call is joined one
 * poll after it arrived, when every request that completed before it
 * returned has arrived too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "disks.h"
#include "filter.h"
#include "frames.h"
#include "ksyms.h"
#include "usyms.h"
#include "hist_user.h"
#include "json.h"
#include "life_user.h"
#include "log.h"
#include "records.h"
#include "run.h"
#include "text.h"
#include "why.h"
#include "why.skel.h"

struct sysc {
	const char *name;
	int nr;
	enum why_args args;
	const char *event;	/* its syscalls:sys_enter_ event, where not NAME */
};

/* The file-system calls why knows (x86_64 numbers from the C library). */
static const struct sysc syscalls[] = {
	{ "read", SYS_read, WA_FD_COUNT },
	{ "write", SYS_write, WA_FD_COUNT },
	{ "pread64", SYS_pread64, WA_FD_COUNT },
	{ "pwrite64", SYS_pwrite64, WA_FD_COUNT },
	{ "readv", SYS_readv, WA_FD_IOV },
	{ "writev", SYS_writev, WA_FD_IOV },
	{ "preadv", SYS_preadv, WA_FD_IOV },
	{ "pwritev", SYS_pwritev, WA_FD_IOV },
	{ "preadv2", SYS_preadv2, WA_FD_IOV },
	{ "pwritev2", SYS_pwritev2, WA_FD_IOV },
	{ "fsync", SYS_fsync, WA_FD },
	{ "fdatasync", SYS_fdatasync, WA_FD },
	{ "sync_file_range", SYS_sync_file_range, WA_FD },
	{ "syncfs", SYS_syncfs, WA_FD },
	{ "fallocate", SYS_fallocate, WA_FD },
	{ "ftruncate", SYS_ftruncate, WA_FD },
	{ "sendfile", SYS_sendfile, WA_FD, "sendfile64" },
	{ "copy_file_range", SYS_copy_file_range, WA_FD },
	{ "io_uring_enter", SYS_io_uring_enter, WA_FD },
	{ "open", SYS_open, WA_PATH },
	{ "creat", SYS_creat, WA_PATH },
	{ "openat", SYS_openat, WA_PATH_AT },
	{ "openat2", SYS_openat2, WA_PATH_AT },
	{ "truncate", SYS_truncate, WA_PATH },
	{ "rename", SYS_rename, WA_PATH },
	{ "renameat", SYS_renameat, WA_PATH_AT },
	{ "renameat2", SYS_renameat2, WA_PATH_AT },
	{ "unlink", SYS_unlink, WA_PATH },
	{ "unlinkat", SYS_unlinkat, WA_PATH_AT },
	{ "mkdir", SYS_mkdir, WA_PATH },
	{ "mkdirat", SYS_mkdirat, WA_PATH_AT },
	{ "rmdir", SYS_rmdir, WA_PATH },
	{ "sync", SYS_sync, WA_NOARGS },
};
#define NSYSC (int)(sizeof(syscalls) / sizeof(syscalls[0]))

static const char *const part_names[WP_NR] = {
	"cpu", "runq", "io", "lock", "throttle", "reclaim", "sleep",
};
static const char *const part_json[WP_NR] = {
	"on_cpu_ns", "runnable_ns", "block_io_ns", "lock_ns", "throttle_ns", "reclaim_ns", "sleep_ns",
};

#define WHY_MAX_PIDS 8
#define REQ_RING (1 << 16)	/* recent requests kept for the join */
#define CALLS_MAX 4096		/* calls waiting for their join */
#define LINK_SHOWN 8

enum { OPT_COMM = OPT_FIRST_CMD, OPT_SYSCALLS, OPT_SUMMARY, OPT_CALL, OPT_INTO, OPT_NO_QW };
#define STACK_IPS WHY_STACK_DEPTH

struct why_opts {
	struct cli_common c;
	const char *pids[WHY_MAX_PIDS];
	int npids;
	const char *comm, *cgroup, *disk, *syscalls;
	bool summary_only, no_queue_writes, kstack, ustack;
	const char *call;		/* --call TARGET */
	char *into[WHY_CHILDREN];	/* --into CHILD,... */
	int ninto;
	char into_buf[1024];
	char into_spec[WHY_CHILDREN][512];	/* BINARY:SYMBOL, TARGET's binary by default */
	uint64_t min_ns;
	int interval_s;
};

/* Per syscall, over the slow calls: wall and each part. */
struct sys_agg {
	uint64_t calls;
	struct hist wall, part[WP_NR];
	struct hist child[WHY_CHILDREN], self;	/* --into */
	uint64_t reqs;
	struct { uint32_t dev; uint64_t n, ph[PH_NR]; } disk[8];
	int ndisks;
};

/* A call waiting for its join, with its file named when it arrived (the
 * process may be gone one poll later). */
struct pending {
	struct why_call c;
	char file[512];
	struct frames kf, uf;	/* -K/-U: the stacks of its longest wait, named on arrival */
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
	struct ksyms ks;		/* -K */
	struct usyms *us;		/* -U */
	const struct pending *cur;	/* the call being printed */
	struct bpf_link *sc_links[2 * NSYSC];	/* per-syscall tracepoints */
	int nsc_links;
	bool raw;			/* raw syscall tracepoints instead */
	struct disk_sel sel;
	uint64_t linked, unlinked_io, disk_skipped, calls_full, shown;
	uint64_t t0;
};

static const char *target_name(const struct why_opts *o)
{
	const char *c = strrchr(o->call, ':');

	return c ? c + 1 : o->call;
}

static const struct sysc *sysc_of(uint32_t nr)
{
	for (int i = 0; i < NSYSC; i++)
		if (syscalls[i].nr == (int)nr)
			return &syscalls[i];
	return NULL;
}

static void file_name(struct why_ctx *wc, const struct why_call *c, char *buf, size_t len)
{
	char link[64], target[512];
	struct stat st;
	ssize_t n;

	/* the bytes as they are: the text printer escapes them, JSON keeps them */
	if (c->path[0]) {
		snprintf(buf, len, "%.*s", WHY_PATH_LEN, c->path);
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
	if (n > 0 && !stat(link, &st) && st.st_ino == c->ino &&
	    st.st_dev == makedev(c->dev >> 20, c->dev & 0xfffff)) {
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
	if (c->dev)
		snprintf(buf, len, "dev %u:%u ino %llu", c->dev >> 20, c->dev & 0xfffff,
			 (unsigned long long)c->ino);
	else
		snprintf(buf, len, "fd %d", c->fd);
}

static int read_stack(struct why_ctx *wc, int id, uint64_t *ips)
{
	return frames__read(bpf_map__fd(wc->skel->maps.stacks), id, ips, STACK_IPS);
}

/* -K/-U: now, while the process lives (user frames need its mappings). */
static void name_stacks(struct why_ctx *wc, struct pending *p)
{
	uint64_t ips[STACK_IPS];

	memset(&p->kf, 0, sizeof(p->kf));
	memset(&p->uf, 0, sizeof(p->uf));
	if (wc->o->kstack)
		frames__kernel(&p->kf, &wc->ks, ips, read_stack(wc, p->c.kstack, ips));
	if (wc->o->ustack)
		frames__user(&p->uf, wc->us, p->c.pid, ips, read_stack(wc, p->c.ustack, ips));
}

static int on_call(void *ctx, void *data, size_t size)
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
	wc->ncalls++;
	return 0;
}

static int on_life(void *ctx, void *data, size_t size)
{
	struct why_ctx *wc = ctx;
	const struct life_req *r = data;

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

static const char *lock_kind(uint32_t f)
{
	if (f & WHY_LCB_PERCPU)
		return f & WHY_LCB_WRITE ? "percpu-rwsem write" : "percpu-rwsem read";
	if (f & WHY_LCB_MUTEX)
		return f & WHY_LCB_SPIN ? "mutex (spinning)" : "mutex";
	if (f & WHY_LCB_RT)
		return "rt-mutex";
	if (f & (WHY_LCB_READ | WHY_LCB_WRITE)) {
		if (f & WHY_LCB_SPIN)
			return f & WHY_LCB_WRITE ? "rwlock write" : "rwlock read";
		return f & WHY_LCB_WRITE ? "rwsem write" : "rwsem read";
	}
	if (f & WHY_LCB_SPIN)
		return "spinlock";
	return "other";
}

static void print_call_json(struct why_ctx *wc, const struct why_call *c, const char *file,
			    const struct sysc *s, const struct life_req **rs, int nrs, int total)
{
	struct json *j = &wc->j;
	uint64_t sum = 0;

	json__obj_begin(j);
	json__kstr(j, "type", "call");
	json__ku64(j, "ts_ns", c->start);
	json__kstr(j, "comm", c->comm);
	json__ku64(j, "pid", c->pid);
	json__ku64(j, "tid", c->tid);
	if (c->nr == WHY_NR_FUNC) {
		json__knull(j, "syscall");
		json__kstr(j, "function", target_name(wc->o));
	} else {
		json__kstr(j, "syscall", s ? s->name : "?");
	}
	json__key(j, "fd");
	json__i64(j, c->fd);
	json__kstr(j, "file", file);
	json__ku64(j, "dev_major", c->dev >> 20);
	json__ku64(j, "dev_minor", c->dev & 0xfffff);
	json__ku64(j, "ino", c->ino);
	json__ku64(j, "asked", c->asked);
	json__key(j, "ret");
	json__i64(j, c->ret);
	if (c->ret < 0 && c->ret >= -4095) {
		char e[32];

		json__kstr(j, "error", text__ret(c->ret, e, sizeof(e)));
	} else {
		json__key(j, "error");
		json__null(j);
	}
	json__ku64(j, "wall_ns", c->end - c->start);
	json__key(j, "parts");
	json__obj_begin(j);
	for (int p = 0; p < WP_NR; p++) {
		json__ku64(j, part_json[p], c->part[p]);
		sum += c->part[p];
	}
	/* signed, never clamped: negative would mean time counted twice */
	json__key(j, "unaccounted_ns");
	json__i64(j, (int64_t)(c->end - c->start) - (int64_t)sum);
	json__obj_end(j);
	json__key(j, "lock");
	if (c->lock_max) {
		json__obj_begin(j);
		json__kstr(j, "kind", lock_kind(c->lock_flags));
		json__ku64(j, "longest_ns", c->lock_max);
		json__obj_end(j);
	} else {
		json__null(j);
	}
	json__ku64(j, "cache_added_pages", c->cache_added);
	json__ku64(j, "readahead_sync", c->ra_sync);
	json__ku64(j, "readahead_async", c->ra_async);
	json__ku64(j, "faults", c->faults);
	json__ku64(j, "offcpu", c->offcpu);
	if (c->nr == WHY_NR_FUNC) {
		json__key(j, "children");
		json__arr_begin(j);
		for (int i = 0; i < wc->o->ninto; i++) {
			json__obj_begin(j);
			json__kstr(j, "function", wc->o->into[i]);
			json__ku64(j, "ns", c->child_ns[i]);
			json__ku64(j, "calls", c->child_calls[i]);
			json__obj_end(j);
		}
		json__arr_end(j);
		json__ku64(j, "self_ns", c->end - c->start - c->in_children);
	}
	json__ku64(j, "requests_total", total);
	json__key(j, "requests");
	json__arr_begin(j);
	for (int i = 0; i < nrs; i++) {
		const struct life_req *r = rs[i];
		__u64 ph[PH_NR];
		int complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
		const struct life_sysfs *w = printer__culprit(&wc->pr, r, ph);
		char ob[16];

		json__obj_begin(j);
		json__kstr(j, "disk", disks__name(r->dev));
		json__kstr(j, "op", reqflags__op_name(&wc->pr.rf, r->cmd_flags, ob, sizeof(ob)));
		json__ku64(j, "sector", r->sector);
		json__ku64(j, "bytes", r->bytes);
		for (int p = 0; p < PH_NR; p++)
			json__ku64(j, life__phase_key(p), ph[p]);
		json__kbool(j, "partial", !complete);
		json__key(j, "queue_write");
		if (w) {
			json__obj_begin(j);
			json__kstr(j, "comm", w->comm);
			json__ku64(j, "pid", w->pid);
			json__kstr(j, "attr", w->attr);
			{
				char val[SYSFS_VALUE_LEN];

				printer__value(w->value, val, sizeof(val));
				json__kstr(j, "value", val);
			}
			json__obj_end(j);
		} else {
			json__null(j);
		}
		json__obj_end(j);
	}
	json__arr_end(j);
	if (wc->o->kstack || wc->o->ustack) {
		json__key(j, "longest_wait");
		if (c->wait_max) {
			json__obj_begin(j);
			json__ku64(j, "ns", c->wait_max);
			if (wc->o->kstack)
				frames__json(&wc->cur->kf, j, "kernel");
			if (wc->o->ustack) {
				frames__json(&wc->cur->uf, j, "user");
				json__kbool(j, "user_cut_short", wc->cur->uf.cut);
			}
			json__obj_end(j);
		} else {
			json__null(j);
		}
	}
	json__obj_end(j);
}

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.2f", ns / 1e6);
}

static void print_call_text(struct why_ctx *wc, const struct why_call *c, const char *file,
			    const struct sysc *s, const struct life_req **rs, int nrs, int total)
{
	uint64_t wall = c->end - c->start, sum = 0;
	char comm[TEXT_SAFE_LEN(WHY_COMM_LEN)], safe[TEXT_SAFE_LEN(sizeof(wc->calls[0].file))], rb[32], a[32];
	int order[WP_NR];

	printf("%-9.3f %s[%u/%u] %s(%s%s%s) = %s  %.2f ms\n", (c->start - wc->t0) / 1e9,
	       text__safe(c->comm, comm, sizeof(comm)), c->pid, c->tid,
	       c->nr == WHY_NR_FUNC ? target_name(wc->o) : s ? s->name : "?", text__safe(file, safe, sizeof(safe)),
	       c->asked ? ", " : "", c->asked ? (snprintf(a, sizeof(a), "%llu", (unsigned long long)c->asked), a) : "",
	       text__ret(c->ret, rb, sizeof(rb)), wall / 1e6);
	/* the parts, largest first */
	for (int p = 0; p < WP_NR; p++) {
		order[p] = p;
		sum += c->part[p];
	}
	for (int i = 1; i < WP_NR; i++)
		for (int k = i; k > 0 && c->part[order[k]] > c->part[order[k - 1]]; k--) {
			int t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	printf("   ");
	for (int i = 0; i < WP_NR; i++) {
		int p = order[i];
		char ms[32];

		if (!c->part[p] && i)
			continue;
		fmt_ms(ms, sizeof(ms), c->part[p]);
		printf(" %s %s ms (%.1f%%)", part_names[p], ms, wall ? 100.0 * c->part[p] / wall : 0);
		if (p == WP_LOCK && c->lock_max)
			printf(" [%s]", lock_kind(c->lock_flags));
	}
	if (wall != sum)	/* signed: negative is time counted twice, a bug */
		printf("  unaccounted %+.2f ms", ((int64_t)wall - (int64_t)sum) / 1e6);
	printf("\n");
	if (c->nr == WHY_NR_FUNC) {
		uint64_t self = wall - c->in_children;

		printf("   ");
		for (int i = 0; i < wc->o->ninto; i++)
			printf(" %s %.2f ms (%.1f%%, %u call%s)", wc->o->into[i], c->child_ns[i] / 1e6,
			       wall ? 100.0 * c->child_ns[i] / wall : 0, c->child_calls[i],
			       c->child_calls[i] == 1 ? "" : "s");
		printf("  self %.2f ms (%.1f%%)\n", self / 1e6, wall ? 100.0 * self / wall : 0);
	}
	for (int i = 0; i < nrs; i++) {
		const struct life_req *r = rs[i];
		__u64 ph[PH_NR];
		int complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
		const struct life_sysfs *w = printer__culprit(&wc->pr, r, ph);
		char ob[16];

		printf("    %s %s %u B:", disks__name(r->dev), reqflags__op_name(&wc->pr.rf, r->cmd_flags, ob, sizeof(ob)),
		       r->bytes);
		for (int p = 0; p < PH_NR; p++)
			printf(" %s %.2f", life__phase_name(p), ph[p] / 1e6);
		printf(" ms%s", complete ? "" : " (partial)");
		if (w) {
			char wcomm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], attr[TEXT_SAFE_LEN(SYSFS_NAME_LEN)],
			     val[SYSFS_VALUE_LEN], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

			printer__value(w->value, val, sizeof(val));
			printf("  stalled by %s[%u] writing queue/%s = \"%s\"",
			       text__safe(w->comm, wcomm, sizeof(wcomm)), w->pid,
			       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)));
		}
		printf("\n");
	}
	if (total > nrs)
		printf("    ... %d more requests\n", total - nrs);
	if (c->cache_added || c->ra_sync || c->ra_async || c->faults)
		printf("    page cache: %llu pages added (misses), readahead %u sync %u async; %llu faults\n",
		       (unsigned long long)c->cache_added, c->ra_sync, c->ra_async, (unsigned long long)c->faults);
	if ((wc->o->kstack || wc->o->ustack) && c->wait_max) {
		printf("    longest wait off CPU %.2f ms, blocked at:\n", c->wait_max / 1e6);
		frames__text(&wc->cur->kf, stdout, "      ");
		if (wc->cur->kf.n && wc->cur->uf.n)
			printf("      --\n");
		frames__text(&wc->cur->uf, stdout, "      ");
	}
}

static void aggregate(struct why_ctx *wc, const struct why_call *c, const struct life_req **rs, int nrs)
{
	const struct sysc *s = sysc_of(c->nr);
	struct sys_agg *a = &wc->agg[c->nr == WHY_NR_FUNC ? NSYSC : s ? s - syscalls : 0];

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
static void join_ready(struct why_ctx *wc)
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
		wc->linked += total;
		if (c->part[WP_IO] && !total)
			wc->unlinked_io++;
		aggregate(wc, c, rs, nrs);
		if (wc->o->summary_only)
			continue;
		wc->shown++;
		if (wc->o->c.json)
			print_call_json(wc, c, file, sysc_of(c->nr), rs, nrs < LINK_SHOWN ? nrs : LINK_SHOWN, total);
		else
			print_call_text(wc, c, file, sysc_of(c->nr), rs, nrs < LINK_SHOWN ? nrs : LINK_SHOWN, total);
	}
	for (int i = 0; i < wc->ready; i++) {
		frames__free(&wc->calls[i].kf);
		frames__free(&wc->calls[i].uf);
	}
	memmove(wc->calls, wc->calls + wc->ready, (wc->ncalls - wc->ready) * sizeof(*wc->calls));
	wc->ncalls -= wc->ready;
	wc->ready = wc->ncalls;
}

struct why_values {
	uint64_t calls, slow, shown, lost, no_storage, calls_full, linked, unlinked_io, disk_skipped,
		 life_lost, untracked, wake_running;
};

#define WV(f) offsetof(struct why_values, f)
static const struct counter why_counters[] = {
	{ "calls", WV(calls), NULL },
	{ "slow", WV(slow), NULL },
	{ "shown", WV(shown), NULL },
	{ "lost", WV(lost), "lost: %llu slow calls found the ring buffer full" },
	{ "no_storage", WV(no_storage), "not followed: %llu calls found no room for their thread's state" },
	{ "calls_full", WV(calls_full), "lost: %llu slow calls arrived faster than they could be joined" },
	{ "linked_requests", WV(linked), NULL },
	{ "unlinked_io", WV(unlinked_io), "unlinked: %llu calls waited for block I/O that their own "
	  "thread did not submit (writeback, journal, another thread's request)" },
	{ "other_disk", WV(disk_skipped), NULL },
	{ "requests_lost", WV(life_lost), "lost: %llu block request records (ring buffer full): "
	  "their calls show fewer requests" },
	{ "requests_untracked", WV(untracked), "untracked: %llu bios whose slot was taken: their "
	  "requests name no submitter, so no call" },
	{ "wake_running", WV(wake_running), NULL },
};

static void values(struct why_ctx *wc, struct why_values *v)
{
	struct why_stats *s = &wc->skel->bss->stats;
	struct life_stats ls;

	life__stats(&wc->l, &ls);
	*v = (struct why_values){ s->calls, s->slow, wc->shown, s->lost, s->no_storage, wc->calls_full,
				  wc->linked, wc->unlinked_io, wc->disk_skipped, ls.lost, ls.untracked,
				  s->wake_running };
}

/* One share of the slow calls' wall time: sum, share, p50 and p99 of h,
 * members of the object being written (JSON) or a table row (text). */
static void share_json(struct json *j, const struct hist *h, uint64_t wall)
{
	struct hist_summary s;

	hist__summary(h, &s);
	json__ku64(j, "sum_ns", s.sum);
	json__kdouble(j, "share", wall ? (double)s.sum / wall : 0);
	json__ku64(j, "p50_ns", s.p50);
	json__ku64(j, "p99_ns", s.p99);
}

static void share_row(const char *name, const struct hist *h, uint64_t wall, bool skip_zero)
{
	struct hist_summary s;
	char b1[32], b2[32], b3[32];

	hist__summary(h, &s);
	if (skip_zero && !s.sum)
		return;
	printf("  %-9s %6.1f%% %10s %10s %10s\n", name, wall ? 100.0 * s.sum / wall : 0,
	       fmt_ns(b1, sizeof(b1), s.sum), fmt_ns(b2, sizeof(b2), s.p50), fmt_ns(b3, sizeof(b3), s.p99));
}

static void summary_json(struct why_ctx *wc)
{
	struct json *j = &wc->j;
	struct why_values v;

	json__obj_begin(j);
	json__kstr(j, "type", "summary");
	json__ku64(j, "min_ns", wc->o->min_ns);
	json__key(j, "syscalls");
	json__arr_begin(j);
	for (int i = 0; i <= NSYSC; i++) {
		struct sys_agg *a = &wc->agg[i];
		struct hist_summary w;

		if (!a->calls)
			continue;
		hist__summary(&a->wall, &w);
		json__obj_begin(j);
		if (i == NSYSC) {
			json__knull(j, "syscall");
			json__kstr(j, "function", target_name(wc->o));
		} else {
			json__kstr(j, "syscall", syscalls[i].name);
		}
		json__ku64(j, "calls", a->calls);
		json__ku64(j, "wall_ns", w.sum);
		json__ku64(j, "wall_p50_ns", w.p50);
		json__ku64(j, "wall_p99_ns", w.p99);
		json__key(j, "parts");
		json__obj_begin(j);
		for (int p = 0; p < WP_NR; p++) {
			json__key(j, part_names[p]);
			json__obj_begin(j);
			share_json(j, &a->part[p], w.sum);
			json__obj_end(j);
		}
		json__obj_end(j);
		if (i == NSYSC) {
			json__key(j, "children");
			json__arr_begin(j);
			for (int c = 0; c <= wc->o->ninto; c++) {
				json__obj_begin(j);
				json__kstr(j, "function", c < wc->o->ninto ? wc->o->into[c] : "(self)");
				share_json(j, c < wc->o->ninto ? &a->child[c] : &a->self, w.sum);
				json__obj_end(j);
			}
			json__arr_end(j);
		}
		json__ku64(j, "requests", a->reqs);
		json__key(j, "disks");
		json__arr_begin(j);
		for (int d = 0; d < a->ndisks; d++) {
			json__obj_begin(j);
			json__kstr(j, "disk", disks__name(a->disk[d].dev));
			json__ku64(j, "requests", a->disk[d].n);
			for (int p = 0; p < PH_NR; p++)
				json__ku64(j, life__phase_key(p), a->disk[d].ph[p]);
			json__obj_end(j);
		}
		json__arr_end(j);
		json__obj_end(j);
	}
	json__arr_end(j);
	values(wc, &v);
	counters__json(j, why_counters, COUNTERS_N(why_counters), &v, 0);
	json__obj_end(j);
}

static void summary_text(struct why_ctx *wc)
{
	struct why_values v;
	bool any = false;

	printf("\nSlow calls (%.3g ms or more), where their time went:\n", wc->o->min_ns / 1e6);
	for (int i = 0; i <= NSYSC; i++) {
		struct sys_agg *a = &wc->agg[i];
		struct hist_summary w;
		char b1[32], b2[32], b3[32];

		if (!a->calls)
			continue;
		any = true;
		hist__summary(&a->wall, &w);
		printf("\n%s: %llu calls, %s in all, p50 %s, p99 %s\n",
		       i == NSYSC ? target_name(wc->o) : syscalls[i].name,
		       (unsigned long long)a->calls, fmt_ns(b1, sizeof(b1), w.sum),
		       fmt_ns(b2, sizeof(b2), w.p50), fmt_ns(b3, sizeof(b3), w.p99));
		printf("  %-9s %7s %10s %10s %10s\n", "part", "share", "total", "p50", "p99");
		for (int p = 0; p < WP_NR; p++)
			share_row(part_names[p], &a->part[p], w.sum, true);
		if (i == NSYSC) {
			printf("  %-9s %7s %10s %10s %10s\n", "inside", "share", "total", "p50", "p99");
			for (int c = 0; c <= wc->o->ninto; c++)
				share_row(c < wc->o->ninto ? wc->o->into[c] : "(self)",
					  c < wc->o->ninto ? &a->child[c] : &a->self, w.sum, false);
		}
		for (int d = 0; d < a->ndisks; d++) {
			uint64_t q2c = a->disk[d].ph[PH_Q2C];

			printf("  %s: %llu requests, of their time Q2G %.1f%%  G2I %.1f%%  I2D %.1f%%  D2C %.1f%%\n",
			       disks__name(a->disk[d].dev), (unsigned long long)a->disk[d].n,
			       q2c ? 100.0 * a->disk[d].ph[PH_Q2G] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_G2I] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_I2D] / q2c : 0,
			       q2c ? 100.0 * a->disk[d].ph[PH_D2C] / q2c : 0);
		}
	}
	if (!any)
		printf("none\n");
	values(wc, &v);
	printf("\n%llu calls traced, %llu slow, %llu shown; %llu block requests linked to them\n",
	       (unsigned long long)v.calls, (unsigned long long)v.slow, (unsigned long long)v.shown,
	       (unsigned long long)v.linked);
	counters__lines(stdout, why_counters, COUNTERS_N(why_counters), &v, 0);
}

static const struct cli_opt why_table[] = {
	{ "pid", 'p', "PID", "only calls of this process (repeat for up to 8)" },
	{ "comm", OPT_COMM, "NAME", "only calls of tasks with this name" },
	{ "cgroup", 'c', "PATH", "only calls of tasks in this cgroup (v2)" },
	{ "disk", 'd', "DISK", "only calls that waited for I/O on this disk" },
	{ "syscalls", OPT_SYSCALLS, "LIST", "comma-separated system calls to trace (default: all\n"
	  "the file-system calls above)" },
	{ "summary", OPT_SUMMARY, NULL, "no line per call: the summary only" },
	{ "call", OPT_CALL, "TARGET", "instead of system calls, calls of this function: a\n"
	  "kernel function (needs kprobes) or BINARY:SYMBOL" },
	{ "into", OPT_INTO, "LIST", "with --call: time inside each of these functions\n"
	  "(comma-separated, up to 8; SYMBOL alone: in TARGET's binary)" },
	{ "no-queue-writes", OPT_NO_QW, NULL, "do not watch queue-attribute writes (no writer named;\n"
	  "saves about 350 ns on every write(2) on the machine)" },
	{ "interval", 'i', "SECS", "a summary every SECS seconds, besides the last" },
	{ "kernel-stack", 'K', NULL, "the kernel stack at each call's longest wait off CPU" },
	{ "user-stack", 'U', NULL, "the user stack at each call's longest wait off CPU" },
	{}
};

static int why_opt(void *ctx, int opt, const char *arg)
{
	struct why_opts *o = ctx;
	unsigned long long v;

	switch (opt) {
	case 'p':
		if (o->npids == WHY_MAX_PIDS)
			return usage_error("at most %d processes (-p)", WHY_MAX_PIDS);
		o->pids[o->npids++] = arg;
		break;
	case OPT_COMM:
		if (strlen(arg) >= WHY_COMM_LEN)
			return usage_error("--comm '%s': a task name has at most %d characters", arg,
					   WHY_COMM_LEN - 1);
		o->comm = arg;
		break;
	case 'c': o->cgroup = arg; break;
	case 'd': o->disk = arg; break;
	case OPT_SYSCALLS: o->syscalls = arg; break;
	case OPT_SUMMARY: o->summary_only = true; break;
	case OPT_NO_QW: o->no_queue_writes = true; break;
	case 'K': o->kstack = true; break;
	case 'U': o->ustack = true; break;
	case OPT_CALL: o->call = arg; break;
	case OPT_INTO: {
		char *save, *name;

		snprintf(o->into_buf, sizeof(o->into_buf), "%s", arg);
		for (name = strtok_r(o->into_buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
			if (o->ninto == WHY_CHILDREN)
				return usage_error("--into: at most %d functions", WHY_CHILDREN);
			o->into[o->ninto++] = name;
		}
		break;
	}
	case 'i':
		if (!cli__uint(arg, 1, 86400, &v))
			return usage_error("--interval '%s': seconds, 1 or more", arg);
		o->interval_s = (int)v;
		break;
	default: return -1;
	}
	return 0;
}

static int why_args_cb(void *ctx, int argc, char **argv, int optind)
{
	struct why_opts *o = ctx;

	int err;

	o->min_ns = 10 * 1000000ULL;
	if ((err = cli__min_ms(argc, argv, &optind, &o->min_ns)))
		return err;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->ninto && !o->call)
		return usage_error("--into needs --call TARGET");
	if (o->call && o->syscalls)
		return usage_error("--call traces a function, not system calls: drop --syscalls");
	if (o->call) {
		const char *colon = strrchr(o->call, ':');

		for (int i = 0; i < o->ninto; i++) {
			bool has = strchr(o->into[i], ':');

			if (has && !colon)
				return usage_error("--into '%s': TARGET is a kernel function, so are its "
						   "children", o->into[i]);
			if (colon && !has)	/* a symbol of TARGET's binary */
				snprintf(o->into_spec[i], sizeof(o->into_spec[i]), "%.*s:%s",
					 (int)(colon - o->call), o->call, o->into[i]);
			else
				snprintf(o->into_spec[i], sizeof(o->into_spec[i]), "%s", o->into[i]);
			if ((colon = strrchr(o->call, ':')) && strrchr(o->into[i], ':'))
				o->into[i] = strrchr(o->into[i], ':') + 1;	/* shown by symbol */
		}
	}
	return 0;
}

/* --syscalls LIST into the kernel side's table. */
static int set_syscalls(struct why_bpf *sk, const char *list)
{
	char buf[1024], *save, *name;

	if (!list) {
		for (int i = 0; i < NSYSC; i++)
			sk->rodata->targ_args[syscalls[i].nr] = syscalls[i].args;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < NSYSC && strcmp(syscalls[i].name, name); i++)
			;
		if (i == NSYSC)
			return usage_error("--syscalls: '%s' is not a file-system call iodig knows "
					   "(see iodig why --help)", name);
		sk->rodata->targ_args[syscalls[i].nr] = syscalls[i].args;
	}
	return 0;
}

static const char *sc_event(const struct sysc *c)
{
	return c->event ? c->event : c->name;
}

/* The arguments each kind reads: fd, count or iov; the path after a dirfd */
static const int arity[] = {
	[WA_NONE] = 0, [WA_NOARGS] = 0, [WA_FD] = 1, [WA_PATH] = 1, [WA_PATH_AT] = 2,
	[WA_FD_COUNT] = 3, [WA_FD_IOV] = 3,
};

static struct bpf_program *sc_enter_prog(struct why_bpf *sk, int args)
{
	struct bpf_program *p[] = { sk->progs.why_sc_enter0, sk->progs.why_sc_enter1,
				    sk->progs.why_sc_enter2, sk->progs.why_sc_enter3 };

	return p[args];
}

static bool sc_event_exists(const char *name)
{
	char event[64], path[160];

	snprintf(event, sizeof(event), "sys_enter_%s", name);
	return bpfenv__tp_dir("syscalls", event, path, sizeof(path)) == 0;
}

/*
 * Before load: the way into the chosen calls.  Their own tracepoints where
 * the kernel has them all (a call iodig does not trace then runs no BPF),
 * else the raw sys_enter/sys_exit (every call on the machine runs a program
 * that leaves at the table).  --call uses neither.
 */
static void sc_choose(struct why_ctx *wc)
{
	struct why_bpf *sk = wc->skel;

	wc->raw = false;
	if (!wc->o->call) {
		bpfenv__tracefs();
		for (int i = 0; i < NSYSC; i++)
			if (sk->rodata->targ_args[syscalls[i].nr] != WA_NONE && !sc_event_exists(sc_event(&syscalls[i]))) {
				debugf("no syscalls:sys_enter_%s event: raw syscall tracepoints", sc_event(&syscalls[i]));
				wc->raw = true;
				break;
			}
	}
	for (int a = 0; a < 4; a++)
		bpf_program__set_autoload(sc_enter_prog(sk, a), !wc->o->call && !wc->raw);
	bpf_program__set_autoload(sk->progs.why_sc_exit, !wc->o->call && !wc->raw);
	bpf_program__set_autoload(sk->progs.why_enter, !wc->o->call && wc->raw);
	bpf_program__set_autoload(sk->progs.why_exit, !wc->o->call && wc->raw);
}

/* After load: one enter and one exit link per chosen call; the enter program
 * reads as many arguments as the call's kind needs, and no more. */
static int sc_attach(struct why_ctx *wc)
{
	struct why_bpf *sk = wc->skel;
	char event[64];

	if (wc->o->call || wc->raw)
		return 0;
	for (int i = 0; i < NSYSC; i++) {
		if (sk->rodata->targ_args[syscalls[i].nr] == WA_NONE)
			continue;
		for (int exit = 0; exit < 2; exit++) {
			struct bpf_link *l;

			snprintf(event, sizeof(event), "sys_%s_%s", exit ? "exit" : "enter", sc_event(&syscalls[i]));
			l = bpf_program__attach_tracepoint(exit ? sk->progs.why_sc_exit
								: sc_enter_prog(sk, arity[syscalls[i].args]),
							   "syscalls", event);
			if (!l) {
				int err = -errno;
				char what[96];

				snprintf(what, sizeof(what), "attaching to syscalls:%s", event);
				return bpfenv__fail(what, err);
			}
			wc->sc_links[wc->nsc_links++] = l;
		}
	}
	debugf("attached to %d syscall tracepoints", wc->nsc_links);
	return 0;
}

static void *destroy_link(void *l)
{
	bpf_link__destroy(l);
	return NULL;
}

/*
 * Detach from the syscall tracepoints.  Each detach waits in the kernel
 * (6.18: 66 links took 5.2 s one after another, 2.9 s side by side), so it
 * happens after the summary is out, the programs stopped by a flag before.
 */
static void sc_detach(struct why_ctx *wc)
{
	pthread_t th[2 * NSYSC];
	bool started[2 * NSYSC];

	for (int i = 0; i < wc->nsc_links; i++)
		started[i] = !pthread_create(&th[i], NULL, destroy_link, wc->sc_links[i]);
	for (int i = 0; i < wc->nsc_links; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			bpf_link__destroy(wc->sc_links[i]);
	}
	wc->nsc_links = 0;
}

static struct attach_progs fn_progs(struct why_bpf *sk)
{
	return (struct attach_progs){
		.entry = { [ATTACH_KPROBE] = sk->progs.why_kentry, [ATTACH_KPROBE_MULTI] = sk->progs.why_kmentry,
			   [ATTACH_UPROBE] = sk->progs.why_uentry },
		.exit = { [ATTACH_KPROBE] = sk->progs.why_kexit, [ATTACH_KPROBE_MULTI] = sk->progs.why_kmexit,
			  [ATTACH_UPROBE] = sk->progs.why_uexit },
	};
}

/* Before load: with --call, the function pair of the chosen mode and no
 * system-call programs; without, no function programs. */
static int fn_select(struct why_ctx *wc)
{
	struct why_bpf *sk = wc->skel;
	struct attach_progs p = fn_progs(sk);
	const struct features *f;
	int err;

	if (!wc->o->call) {
		for (int m = 0; m < ATTACH_NMODES; m++) {
			if (p.entry[m])
				bpf_program__set_autoload(p.entry[m], false);
			if (p.exit[m])
				bpf_program__set_autoload(p.exit[m], false);
		}
		return 0;
	}
	if (strchr(wc->o->call, ':')) {
		err = attacher__choose(&wc->at, ATTACH_UPROBE, 1 + wc->o->ninto, true);
	} else {	/* one program pair for several functions: no fentry */
		f = features__get();
		err = attacher__choose(&wc->at, f->kprobe_multi ? ATTACH_KPROBE_MULTI : ATTACH_KPROBE,
				       1 + wc->o->ninto, false);
	}
	if (!err)
		attacher__select(&wc->at, sk->obj, &p, NULL);
	return err;
}

/* After load: TARGET is cookie 0, the children 1.. */
static int fn_attach(struct why_ctx *wc, uint32_t pid)
{
	struct attach_progs p = fn_progs(wc->skel);
	struct why_opts *o = wc->o;
	char *names[1 + WHY_CHILDREN];
	int err;

	if (strchr(o->call, ':')) {
		if ((err = attacher__user(&wc->at, &p, o->call, pid, 0)))
			return err;
		for (int i = 0; i < o->ninto; i++)
			if ((err = attacher__user(&wc->at, &p, o->into_spec[i], pid, 1 + i)))
				return err;
		return 0;
	}
	names[0] = (char *)o->call;
	for (int i = 0; i < o->ninto; i++)
		names[1 + i] = o->into_spec[i];
	{	/* each must be one traceable function: no globs here */
		char **found;
		int n;

		if ((err = attach__resolve_kernel(names, 1 + o->ninto, &found, &n)))
			return err;
		attach__free_names(found, n);
		if (n != 1 + o->ninto)
			return fail("--call/--into", "give function names, not patterns (%d functions match)", n);
	}
	return attacher__kernel(&wc->at, &p, names, 1 + o->ninto);
}

static int why_wait(struct why_ctx *wc, int ms)
{
	int err = life__poll(&wc->l, ms);

	if (err > 0)
		return err;
	if (err < 0)
		return fail("reading records", "%s", strerror(-err));
	join_ready(wc);
	return run__flush() ? 1 : 0;
}

int cmd_why(int argc, char **argv)
{
	static char about[2048];
	const struct cli_cmd cmd = {
		.name = "why", .synopsis = "[options] [MIN_MS]", .about = about, .opts = why_table,
		.notes = "Parts: cpu (running), runq (runnable, waiting for a CPU), io (blocked on block\n"
			 "I/O, or waiting to get a request: a frozen queue), lock (lock:contention_*,\n"
			 "with its kind), throttle (dirty-page throttling), reclaim (direct reclaim),\n"
			 "sleep (any other wait).  They add up to the wall time.  Each call lists the\n"
			 "block requests its thread submitted during it, with their phases (see iodig\n"
			 "slow) and, for a request stalled by a queue-attribute write, the writer.\n"
			 "Ctrl-C prints the summary gathered so far.\n",
		.opt = why_opt, .args = why_args_cb, .tracing = true };
	struct why_opts o = {};
	struct why_ctx wc = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_SNOOP };
	struct btf *vmlinux = NULL;
	uint64_t cgid = 0, next_report;
	bool cg_bios = false;
	int err, off;

	off = snprintf(about, sizeof(about),
		       "For each file-system call slower than MIN_MS (default 10), where its time went:\n"
		       "on CPU, runnable, blocked on block I/O (with the requests it waited for and\n"
		       "their phases), locks, dirty throttling, reclaim, other sleep; and page-cache\n"
		       "misses, readahead and faults during the call.  System calls:\n ");
	for (int i = 0; i < NSYSC; i++)
		off += snprintf(about + off, sizeof(about) - off, " %s%s", syscalls[i].name,
				(i + 1) % 8 || i == NSYSC - 1 ? "" : "\n ");
	snprintf(about + off, sizeof(about) - off, "\n");
	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	cfg.sysfs = !o.no_queue_writes;
	if (o.disk && (err = filter__disk(o.disk, &wc.sel)))
		return err;
	if (o.cgroup && (err = filter__task_cgroup(o.cgroup, &cgid, &cg_bios)))
		return err;
	wc.reqs = calloc(REQ_RING, sizeof(*wc.reqs));
	wc.calls = calloc(CALLS_MAX, sizeof(*wc.calls));
	if (!wc.reqs || !wc.calls) {
		err = fail("starting", "out of memory");
		goto out;
	}
	json__init(&wc.j, stdout);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = fail("reading kernel BTF", "%s", strerror(errno));
		goto out;
	}
	cfg.kernel_q = life__kernel_q(vmlinux);
	if ((err = reqflags__load(&wc.pr.rf, vmlinux))) {
		err = fail("decoding request flags from kernel BTF", "%s", strerror(-err));
		goto out;
	}

	wc.skel = why_bpf__open();
	if (!wc.skel) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	for (int i = 0; i < o.npids; i++) {
		uint32_t pid;

		if ((err = filter__pid(o.pids[i], &pid)))
			goto out;
		wc.skel->rodata->filter_tgid[i] = pid;
	}
	wc.skel->rodata->filter_ntgid = o.npids;
	if (o.npids == 1)
		cfg.pid = wc.skel->rodata->filter_tgid[0];
	wc.skel->rodata->filter_cgroup = cgid;
	/* the requests follow the calls' threads; the engine's own filter on
	 * bios only where bios carry the group's id */
	cfg.cgroup = cg_bios ? cgid : 0;
	if (o.comm) {
		wc.skel->rodata->filter_comm_on = true;
		strncpy((char *)wc.skel->rodata->filter_comm, o.comm, WHY_COMM_LEN - 1);
		cfg.comm = o.comm;
	}
	if ((err = fn_select(&wc)))
		goto out;
	wc.skel->rodata->targ_min_ns = o.min_ns;
	wc.skel->rodata->targ_self = getpid();	/* iodig's own calls are not the user's */
	wc.skel->rodata->targ_kstack = o.kstack;
	wc.skel->rodata->targ_ustack = o.ustack;
	if (!o.kstack && !o.ustack)
		bpf_map__set_max_entries(wc.skel->maps.stacks, 1);
	if (o.kstack && (err = ksyms__load(&wc.ks, NULL))) {
		err = fail("reading /proc/kallsyms", "%s", strerror(-err));
		goto out;
	}
	if (o.ustack && !(wc.us = usyms__new())) {
		err = fail("symbols", "out of memory");
		goto out;
	}
	if (!o.call && (err = set_syscalls(wc.skel, o.syscalls)))
		goto out;
	sc_choose(&wc);
	/* tracepoints this kernel may not have: the part or count stays 0, and it says so */
	{
		static const struct bpfenv_optional_tp optional[] = {
			{ "contention_begin", "lock waits (5.19+) are" },
			{ "contention_end", NULL },
			{ "page_cache_sync_ra", "readahead (6.18+) is" },
			{ "page_cache_async_ra", NULL },
			{ "page_fault_user", "page faults (x86) are" },
			{ "page_fault_kernel", NULL },
			{ "mm_vmscan_memcg_reclaim_begin", "reclaim in a memory cgroup at its limit is" },
			{ "mm_vmscan_memcg_reclaim_end", NULL },
		};

		bpfenv__drop_missing_tps(wc.skel->obj, vmlinux, optional, sizeof(optional) / sizeof(optional[0]));
	}
	if ((err = why_bpf__load(wc.skel))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = life__start(&wc.l, &cfg, on_life, &wc)))
		goto out;
	wc.l.us = wc.us;	/* its mapping records taken at each poll */
	if (cfg.sysfs && !wc.l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", wc.l.sysfs_why);
	if (ring_buffer__add(wc.l.rb, bpf_map__fd(wc.skel->maps.records), on_call, &wc)) {
		err = fail("reading records", "%s", strerror(errno));
		goto out;
	}
	if (o.call && (err = fn_attach(&wc, cfg.pid)))
		goto out;
	if ((err = why_bpf__attach(wc.skel))) {
		err = bpfenv__fail("attaching to system call and scheduler tracepoints", err);
		goto out;
	}
	if ((err = sc_attach(&wc)))
		goto out;
	wc.t0 = run__mono_ns();
	run__signals();
	if ((err = run__ready(o.c.ready_file, o.call ? "Tracing slow calls of the function... Hit Ctrl-C to end."
							 : "Tracing slow file-system calls... Hit Ctrl-C to end.")))
		goto out;
	next_report = o.interval_s ? run__mono_ns() + o.interval_s * 1000000000ULL : 0;
	while (!run__stopping()) {
		if ((err = why_wait(&wc, LIFE_DRAIN_MS)))
			goto out;
		if (next_report && run__mono_ns() >= next_report) {
			if (o.c.json)
				summary_json(&wc);
			else
				summary_text(&wc);
			memset(wc.agg, 0, sizeof(wc.agg));
			next_report += o.interval_s * 1000000000ULL;
		}
	}
	wc.skel->bss->stopping = true;	/* the syscall links go after the summary */
	why_bpf__detach(wc.skel);
	life__detach(&wc.l);
	life__drain(&wc.l);
	join_ready(&wc);	/* those before the last poll */
	wc.ready = wc.ncalls;
	join_ready(&wc);	/* and the rest: every request is in now */
	if (o.c.json)
		summary_json(&wc);
	else
		summary_text(&wc);
	err = run__flush() ? 1 : 0;
out:
	life__stop(&wc.l);
	attacher__destroy(&wc.at);
	sc_detach(&wc);
	why_bpf__destroy(wc.skel);
	ksyms__free(&wc.ks);
	usyms__free(wc.us);
	reqflags__free(&wc.pr.rf);
	btf__free(vmlinux);
	free(wc.reqs);
	free(wc.calls);
	return err;
}

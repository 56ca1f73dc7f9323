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
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "procfiles.h"
#include "kfeatures.h"
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
#include "why_int.h"
#include "why.skel.h"

/* The file-system calls why knows (x86_64 numbers from the C library). */
const struct sysc why_syscalls[NSYSC] = {
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
_Static_assert(sizeof(why_syscalls) / sizeof(why_syscalls[0]) == NSYSC, "NSYSC: why_int.h");

enum { OPT_COMM = OPT_FIRST_CMD, OPT_SYSCALLS, OPT_SUMMARY, OPT_CALL, OPT_INTO, OPT_NO_QW, OPT_SC_EVENTS, OPT_DEPTH, OPT_WALK_EACH };

static const struct cli_opt why_table[] = {
	{ "pid", 'p', "PID", "only calls of this process (repeat for up to 8)" },
	{ "comm", OPT_COMM, "NAME", "only calls of tasks with this name", CLI_COMM_AT(struct why_opts, comm) },
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
	  "saves about 110 ns on every write(2) on the machine)" },
	{ "syscall-events", OPT_SC_EVENTS, NULL, "each call's own tracepoint instead of the raw ones:\n"
	  "calls not traced run no program, traced ones cost more,\n"
	  "and detaching takes seconds (docs/PERFORMANCE.md)" },
	{ "depth", OPT_DEPTH, "N", "wakers followed per wait: 1 the waker, 2 its waker\n"
	  "too, 3 (default) that one's as well" },
	{ "interval", 'i', "SECS", "a summary every SECS seconds, besides the last" },
	{ "kernel-stack", 'K', NULL, "the kernel stack at each call's longest wait off CPU" },
	{ "user-stack", 'U', NULL, "the user stack at each call's longest wait off CPU" },
	{ "walk-each", OPT_WALK_EACH, NULL, "walk the kernel stack at every block and wake (default:\n"
	  "once for each call path, then taken from a memo while its\n"
	  "return addresses match; one use in 64 walked again to check)",
	  CLI_FLAG_AT(struct why_opts, walk_each) },
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
	case 'c': o->cgroup = arg; break;
	case 'd': o->disk = arg; break;
	case OPT_SYSCALLS: o->syscalls = arg; break;
	case OPT_SUMMARY: o->summary_only = true; break;
	case OPT_NO_QW: o->no_queue_writes = true; break;
	case OPT_SC_EVENTS: o->sc_events = true; break;
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
	case OPT_DEPTH:
		if (!cli__uint(arg, 1, WHY_CHAIN, &v))
			return usage_error("--depth '%s': 1 to %d", arg, WHY_CHAIN);
		o->depth = (int)v;
		break;
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


/* The queue-write watcher learns sysfs files' f_op from a read of one by
 * iodig (sysfs_watch.bpf.h): one that exists on every kernel. */
static void teach_sysfs(void)
{
	static const char *const files[] = { "/sys/devices/system/cpu/online", "/sys/kernel/uevent_seqnum",
					     "/sys/power/state" };
	char b[64];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (read(fd, b, sizeof(b)) < 0)
			b[0] = 0;
		close(fd);
		return;
	}
}

/* One of a process's fds: a queue attribute open for writing? Then the
 * process goes into qw_procs. */
static int qw_holder(void *ctx, unsigned tgid, int dfd, const char *name)
{
	struct why_ctx *wc = ctx;
	char link[256], flags[32];
	ssize_t n = readlinkat(dfd, name, link, sizeof(link) - 1);
	__u8 one = 1;

	if (n <= 0)
		return PROCFILES_NEXT;
	link[n] = 0;
	if (strncmp(link, "/sys/", 5) || !strstr(link, "/queue/") ||
	    !procfiles__fdinfo(tgid, name, "flags", flags, sizeof(flags)) ||
	    (strtoul(flags, NULL, 8) & O_ACCMODE) == O_RDONLY)
		return PROCFILES_NEXT;
	if (!bpf_map_update_elem(bpf_map__fd(wc->skel->maps.qw_procs), &tgid, &one, BPF_NOEXIST))
		__atomic_fetch_add(&wc->skel->bss->qw_nprocs, 1, __ATOMIC_SEQ_CST);
	return PROCFILES_NEXT_PROC;
}

/* The processes holding a queue attribute open for writing as why starts
 * (opened before it, so not seen by its open hook): into qw_procs, after
 * the programs are attached (a process that opens one meanwhile is taken
 * by both, once). */
static void qw_holders(struct why_ctx *wc)
{
	static const char *const fd[] = { "fd" };

	procfiles__walk(fd, 1, qw_holder, wc);
}

/*
 * The engine, for why and for doctor: its BPF object and the life engine
 * loaded and attached with wc->o's filters (the caller frees wc with
 * why__free, also after a failure); 0 or the exit status, said.
 */
int why__start(struct why_ctx *wc, struct life_cfg *cfg)
{
	struct why_opts *o = wc->o;
	const struct btf *vmlinux;
	const char *env;
	uint64_t cgid = 0;
	bool cg_bios = false, qw;
	int err, ncpus = libbpf_num_possible_cpus();

	if (o->disk && (err = filter__disk(o->disk, &wc->sel)))
		return err;
	if (o->cgroup && (err = filter__task_cgroup(o->cgroup, &cgid, &cg_bios)))
		return err;
	wc->reqs = calloc(REQ_RING, sizeof(*wc->reqs));
	wc->calls = calloc(CALLS_MAX, sizeof(*wc->calls));
	if (!wc->reqs || !wc->calls)
		return fail("starting", "out of memory");
	json__init(&wc->j, stdout);
	vmlinux = bpfenv__vmlinux();
	if (!vmlinux)
		return fail("reading kernel BTF", "%s", strerror(errno));
	cfg->kernel_q = life__kernel_q(vmlinux);
	if ((err = reqflags__load(&wc->pr.rf, vmlinux)))
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));

	if ((err = kfeatures__need(NEED_TASK_STORAGE, "why")))
		return err;
	wc->skel = why_bpf__open_opts(bpfenv__open_opts());
	if (!wc->skel)
		return bpfenv__fail("opening BPF object", -errno);
	for (int i = 0; i < o->npids; i++) {
		uint32_t pid;

		if ((err = filter__pid(o->pids[i], &pid)))
			return err;
		wc->skel->rodata->filter_tgid[i] = pid;
	}
	wc->skel->rodata->filter_ntgid = o->npids;
	/* the requests of every process: a wait's waker (a journal thread, a
	 * flusher) is seldom the traced one */
	wc->skel->rodata->filter_cgroup = cgid;
	/* the requests follow the calls' threads; the engine's own filter on
	 * bios only where bios carry the group's id */
	cfg->cgroup = cg_bios ? cgid : 0;
	if (o->comm) {
		wc->skel->rodata->filter_comm_on = true;
		strncpy((char *)wc->skel->rodata->filter_comm, o->comm, WHY_COMM_LEN - 1);
	}
	if ((err = why__fn_select(wc)))
		return err;
	wc->skel->rodata->targ_min_ns = o->min_ns;
	/* a waker's own waits followed (links) when a tenth of a slow call or more */
	wc->skel->rodata->targ_depth = o->depth ? o->depth : WHY_CHAIN;
	wc->skel->rodata->targ_chain_ns = o->min_ns / 10 > 100000 ? o->min_ns / 10 : 100000;
	wc->skel->rodata->targ_self = getpid();	/* iodig's own calls are not the user's */
	wc->skel->rodata->targ_kstack = o->kstack;
	wc->skel->rodata->targ_ustack = o->ustack;
	/* stolen time, a part of its own (a kvm guest's steal clock) */
	wc->skel->rodata->targ_steal_off = kfeatures__steal_off(vmlinux);
	wc->skel->rodata->targ_ncpus = ncpus > 0 ? ncpus : 0;	/* whose steal clocks a spell reads */
	if ((env = getenv("IODIG_TEST_UNSEEN")))	/* tests: switches in skipped (why.bpf.c) */
		wc->skel->rodata->targ_test_unseen = strtoul(env, NULL, 10);
	if ((env = getenv("IODIG_TEST_UNSEEN_OUT")))	/* ... and switches out */
		wc->skel->rodata->targ_test_unseen_out = strtoul(env, NULL, 10);
	bpfenv__ustack_setup(&wc->skel->rodata->ustack_walk, o->ustack, wc->skel->maps.ustacks);
	/* the waits', wakers' and -K's kernel stacks: a walk for each path
	 * (kmemo.bpf.h), kept whole in kstacks; --walk-each walks at each
	 * event, into the same map */
	if (bpfenv__ustack_setup(&wc->skel->rodata->kmemo_on, true, wc->skel->maps.kstacks)) {
		wc->skel->rodata->kmemo_each = o->walk_each;
		bpf_map__set_max_entries(wc->skel->maps.waitstacks, 1);
		bpf_map__set_max_entries(wc->skel->maps.wakestacks, 1);
	}
	/* the stack map: -K's without memos, -U's where the kernel walks */
	bpfenv__stackmap_trim(wc->skel->maps.stacks, o->kstack, wc->skel->rodata->kmemo_on, o->ustack,
			      wc->skel->rodata->ustack_walk);
	if ((err = ksyms__load(&wc->ks, NULL))) {	/* the waits' places */
		err = fail("reading /proc/kallsyms", "%s", strerror(-err));
		return err;
	}
	if (o->ustack && !(wc->us = usyms__new()))
		return fail("symbols", "out of memory");
	if (!o->call && (err = why__set_syscalls(wc->skel, o->syscalls)))
		return err;
	why__sc_choose(wc);
	/* queue writes: from the raw way in where why takes it (no syscall
	 * event to detach, no second program on the write family), else the
	 * engine's own events */
	qw = wc->raw && !o->no_queue_writes;
	cfg->sysfs = !o->no_queue_writes && !qw;
	wc->skel->rodata->targ_qwrites = qw;
	wc->skel->rodata->qw_nr[0] = SYS_write;
	wc->skel->rodata->qw_nr[1] = SYS_pwrite64;
	wc->skel->rodata->qw_nr[2] = SYS_writev;
	wc->skel->rodata->qw_nr[3] = SYS_pwritev;
	wc->skel->rodata->qw_nr[4] = SYS_pwritev2;
	wc->skel->rodata->qw_read_nr = SYS_read;
	wc->skel->rodata->qw_open_nr[0] = SYS_open;
	wc->skel->rodata->qw_open_nr[1] = SYS_openat;
	wc->skel->rodata->qw_open_nr[2] = SYS_openat2;
	wc->skel->rodata->qw_open_nr[3] = SYS_creat;
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

		bpfenv__drop_missing_tps(wc->skel->obj, vmlinux, optional, sizeof(optional) / sizeof(optional[0]));
		bpfenv__set_tp_leads(wc->skel->obj, vmlinux);
	}
	/* the engine first: its ring takes why's queue-write records */
	if ((err = life__start(&wc->l, cfg, why__on_life, wc)))
		return err;
	wc->l.us = wc->us;	/* its mapping records taken at each poll */
	if (cfg->sysfs && !wc->l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", wc->l.sysfs_why);
	if (qw) {
		if ((err = bpf_map__reuse_fd(wc->skel->maps.life_records, life__ring_fd(&wc->l))))
			return bpfenv__fail("sharing the request engine's ring", err);
		wc->l.sysfs_on = true;
	}
	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
	if ((err = why_bpf__load(wc->skel)))
		return bpfenv__fail("loading BPF programs", err);
	if (ring_buffer__add(wc->l.rb, bpf_map__fd(wc->skel->maps.records), why__on_call, wc))
		return fail("reading records", "%s", strerror(errno));
	if (o->call && (err = why__fn_attach(wc, o->npids == 1 ? wc->skel->rodata->filter_tgid[0] : 0)))
		return err;
	if ((err = bpfenv__attach(wc->skel->skeleton)))
		return bpfenv__fail("attaching to system call and scheduler tracepoints", err);
	if ((err = why__sc_attach(wc)))
		return err;
	wc->skel->bss->started = true;	/* calls are taken from now, whole */
	if (qw) {
		teach_sysfs();
		qw_holders(wc);
	}
	wc->t0 = run__mono_ns();
	return 0;
}

/* One poll of both rings and the calls ready joined; 0 or the exit status. */
int why__poll(struct why_ctx *wc, int ms)
{
	int err = life__poll(&wc->l, ms);

	if (err > 0)
		return err;
	if (err < 0)
		return fail("reading records", "%s", strerror(-err));
	why__join_ready(wc);
	return run__flush() ? 1 : 0;
}

/* Detached, drained, and every call joined with its requests. */
void why__finish(struct why_ctx *wc)
{
	wc->skel->bss->stopping = true;	/* the syscall links go after the summary */
	attach__detach_skeleton(wc->skel->skeleton);
	life__detach(&wc->l);
	life__drain(&wc->l);
	why__join_ready(wc);	/* those before the last poll */
	wc->ready = wc->ncalls;
	why__join_ready(wc);	/* and the rest: every request is in now */
}

void why__free(struct why_ctx *wc)
{
	life__stop(&wc->l);
	attacher__destroy(&wc->at);
	why__sc_detach(wc);
	why_bpf__destroy(wc->skel);
	ksyms__free(&wc->ks);
	usyms__free(wc->us);
	reqflags__free(&wc->pr.rf);
	free(wc->reqs);
	free(wc->calls);
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
		.opt = why_opt, .args = why_args_cb, .tracing = true,
		.privileges = "Needs CAP_DAC_READ_SEARCH where tracefs is root's alone (its system-call and\n"
			 "page-cache tracepoints are found there).\n" };
	struct why_opts o = {};
	struct why_ctx wc = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_SNOOP, .owners = true };
	uint64_t next_report;
	int err, off;

	off = snprintf(about, sizeof(about),
		       "For each file-system call slower than MIN_MS (default 10), where its time went:\n"
		       "on CPU, runnable, blocked on block I/O (with the requests it waited for and\n"
		       "their phases), locks, dirty throttling, reclaim, other sleep, CPU stolen by\n"
		       "the hypervisor; and page-cache misses, readahead and faults during the call.\n"
		       "System calls:\n ");
	for (int i = 0; i < NSYSC; i++)
		off += snprintf(about + off, sizeof(about) - off, " %s%s", why_syscalls[i].name,
				(i + 1) % 8 || i == NSYSC - 1 ? "" : "\n ");
	snprintf(about + off, sizeof(about) - off, "\n");
	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if ((err = why__start(&wc, &cfg)))
		goto out;
	run__signals();
	if ((err = run__ready(o.c.ready_file, o.call ? "Tracing slow calls of the function... Hit Ctrl-C to end."
							 : "Tracing slow file-system calls... Hit Ctrl-C to end.")))
		goto out;
	next_report = o.interval_s ? run__mono_ns() + o.interval_s * 1000000000ULL : 0;
	while (!run__stopping()) {
		if ((err = why__poll(&wc, LIFE_DRAIN_MS)))
			goto out;
		if (next_report && run__mono_ns() >= next_report) {
			why__summary(&wc);
			memset(wc.agg, 0, sizeof(wc.agg));
			next_report += o.interval_s * 1000000000ULL;
		}
	}
	why__finish(&wc);
	why__summary(&wc);
	err = run__flush() ? 1 : 0;
out:
	why__free(&wc);
	return err;
}

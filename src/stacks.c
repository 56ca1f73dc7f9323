// SPDX-License-Identifier: GPL-2.0
/*
 * iodig stacks: which code paths issue the I/O (biostacks, stackcount,
 * trace -K -U).  Kernel and user stacks are counted in BPF at each event;
 * user frames are symbolized while their process is alive (a scan of new
 * stacks every 100 ms), kernel frames at the end from /proc/kallsyms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "disks.h"
#include "filter.h"
#include "json.h"
#include "ksyms.h"
#include "log.h"
#include "run.h"
#include "stacks.h"
#include "stacks.skel.h"
#include "text.h"
#include "usyms.h"

enum { OPT_TP = OPT_FIRST_CMD, OPT_UPROBE, OPT_FOLDED };

struct stacks_opts {
	struct cli_common c;
	bool kernel_only, user_only, folded;
	const char *tp, *uprobe, *disk, *cgroup;
	unsigned long long pid, top, duration;
	struct disk_sel sel;
};

/* A user frame, named once (while its process lived). */
struct uframe {
	uint32_t pid;
	uint64_t addr;
	char *name;		/* "func", or "[module+0xoff]", or "[0xaddr]" */
	char *where;		/* "module file:line", for the long forms */
};

struct stacks_ctx {
	struct stacks_opts *o;
	struct stacks_bpf *sk;
	struct usyms *us;
	struct ksyms ks;
	struct uframe *uf;
	size_t nuf, capuf;
	struct json j;
	uint64_t unresolved;	/* user frames whose process was gone before a lookup */
};

static int cmp_uf(const void *a, const void *b)
{
	const struct uframe *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct uframe *uf_find(struct stacks_ctx *sc, uint32_t pid, uint64_t addr)
{
	struct uframe k = { .pid = pid, .addr = addr };

	return sc->nuf ? bsearch(&k, sc->uf, sc->nuf, sizeof(k), cmp_uf) : NULL;
}

/* Names a user frame now, if it has not been. */
static void uf_name(struct stacks_ctx *sc, uint32_t pid, uint64_t addr, bool ret_addr)
{
	struct uframe f = { .pid = pid, .addr = addr };
	struct usym s;
	char buf[512];
	const char *mod;

	if (uf_find(sc, pid, addr))
		return;
	if (usyms__resolve(sc->us, pid, ret_addr ? addr - 1 : addr, &s) < 0) {
		sc->unresolved++;	/* gone before its first lookup: kept as an address */
		s.name = NULL;
		s.module = NULL;
	}
	mod = s.module ? strrchr(s.module, '/') : NULL;
	mod = mod ? mod + 1 : s.module;
	if (s.name)
		f.name = strdup(s.name);
	else if (mod)
		f.name = (snprintf(buf, sizeof(buf), "[%s]", mod), strdup(buf));
	else
		f.name = (snprintf(buf, sizeof(buf), "[0x%llx]", (unsigned long long)addr), strdup(buf));
	if (!s.name && !mod)
		buf[0] = '\0';
	else if (s.file)
		snprintf(buf, sizeof(buf), "+0x%llx [%s] %s:%d", (unsigned long long)s.offset + ret_addr,
			 mod ? mod : "?", s.file, s.line);
	else
		snprintf(buf, sizeof(buf), "+0x%llx [%s]", (unsigned long long)s.offset + ret_addr, mod ? mod : "?");
	f.where = buf[0] ? strdup(buf) : NULL;
	if (sc->nuf == sc->capuf) {
		void *p = realloc(sc->uf, (sc->capuf = sc->capuf ? 2 * sc->capuf : 256) * sizeof(f));

		if (!p)
			return;
		sc->uf = p;
	}
	/* kept sorted: insertion (new frames are few after the first seconds) */
	{
		size_t i = sc->nuf;

		while (i > 0 && cmp_uf(&sc->uf[i - 1], &f) > 0) {
			sc->uf[i] = sc->uf[i - 1];
			i--;
		}
		sc->uf[i] = f;
		sc->nuf++;
	}
}

static int read_stack(struct stacks_ctx *sc, int id, uint64_t *ips)
{
	int n = 0;

	if (id < 0 || bpf_map_lookup_elem(bpf_map__fd(sc->sk->maps.stackmap), &id, ips))
		return 0;
	while (n < STACKS_DEPTH && ips[n])
		n++;
	return n;
}

/* New user stacks named while their processes live. */
static void scan(struct stacks_ctx *sc)
{
	int fd = bpf_map__fd(sc->sk->maps.counts);
	struct stacks_key k, next, *prev = NULL;
	uint64_t ips[STACKS_DEPTH];

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (k.ustack < 0 || !k.pid)
			continue;
		int n = read_stack(sc, k.ustack, ips);

		for (int i = 0; i < n; i++)
			uf_name(sc, k.pid, ips[i], i > 0);
	}
}

struct entry {
	struct stacks_key k;
	struct stacks_val v;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->v.count != y->v.count ? (x->v.count > y->v.count ? -1 : 1)
					: (x->v.bytes > y->v.bytes ? -1 : x->v.bytes < y->v.bytes);
}

/* Debian's user space has no frame pointers: a walk that does not reach the
 * process's entry (or a thread's) was probably cut short. */
static bool user_complete(struct stacks_ctx *sc, uint32_t pid, const uint64_t *ips, int n)
{
	static const char *const roots[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					     "clone", "clone3", "start_thread", "__clone", "__clone3" };

	for (int f = 0; f < n; f++) {
		const struct uframe *u = uf_find(sc, pid, ips[f]);

		for (size_t i = 0; u && i < sizeof(roots) / sizeof(roots[0]); i++)
			if (!strcmp(u->name, roots[i]))
				return true;
	}
	return false;
}

/* The first kernel frames are the BPF program and the tracepoint's
 * dispatch (JIT code has no kallsyms entry unless bpf_jit_kallsyms is on):
 * the stack shown starts at the code that hit the event. */
static int kernel_skip(struct stacks_ctx *sc, const uint64_t *ips, int n)
{
	int i = 0;

	for (; i < n; i++) {
		const struct ksym *s = ksyms__find(&sc->ks, ips[i]);

		if (s && ips[i] - s->addr < (1 << 20) && strncmp(s->name, "bpf_", 4) &&
		    strncmp(s->name, "__bpf_", 6) && strncmp(s->name, "trace_call_bpf", 14) &&
		    strncmp(s->name, "perf_trace_", 11) && strncmp(s->name, "__traceiter_", 12))
			break;
	}
	return i < n ? i : 0;
}

static const char *kname(struct stacks_ctx *sc, uint64_t addr, char *buf, size_t len, bool full)
{
	const struct ksym *s = ksyms__find(&sc->ks, addr);

	if (!s)
		snprintf(buf, len, "[0x%llx]", (unsigned long long)addr);
	else if (full)
		snprintf(buf, len, "%s+0x%llx%s%s%s", s->name, (unsigned long long)(addr - s->addr),
			 s->module ? " [" : "", s->module ? s->module : "", s->module ? "]" : "");
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

static const char *uname_of(struct stacks_ctx *sc, uint32_t pid, uint64_t addr, char *buf, size_t len,
			    bool full)
{
	const struct uframe *f = uf_find(sc, pid, addr);

	if (!f)
		snprintf(buf, len, "[0x%llx]", (unsigned long long)addr);
	else
		snprintf(buf, len, "%s%s", f->name, full && f->where ? f->where : "");
	return buf;
}

static void print_folded(struct stacks_ctx *sc, const struct entry *e, const uint64_t *kips, int nk,
			 const uint64_t *uips, int nu)
{
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)], buf[512];

	/* root first: the process, its user frames outermost first, then the kernel's */
	text__safe(e->k.comm, comm, sizeof(comm));
	for (char *p = comm; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	printf("%s", comm);
	for (int i = nu - 1; i >= 0; i--)
		printf(";%s", uname_of(sc, e->k.pid, uips[i], buf, sizeof(buf), false));
	for (int i = nk - 1; i >= 0; i--)
		printf(";%s_[k]", kname(sc, kips[i], buf, sizeof(buf), false));
	printf(" %llu\n", (unsigned long long)e->v.count);
}

static void json_frames(struct stacks_ctx *sc, const char *key, const uint64_t *ips, int n, uint32_t pid)
{
	struct json *j = &sc->j;

	json__key(j, key);
	json__arr_begin(j);
	for (int i = 0; i < n; i++) {
		json__obj_begin(j);
		json__ku64(j, "addr", ips[i]);
		if (pid) {
			const struct uframe *f = uf_find(sc, pid, ips[i]);

			if (f)
				json__kstr(j, "sym", f->name);
			else
				json__knull(j, "sym");
			if (f && f->where)
				json__kstr(j, "where", f->where);
		} else {
			const struct ksym *s = ksyms__find(&sc->ks, ips[i]);

			if (s) {
				json__kstr(j, "sym", s->name);
				json__ku64(j, "offset", ips[i] - s->addr);
				if (s->module)
					json__kstr(j, "module", s->module);
			} else {
				json__knull(j, "sym");
			}
		}
		json__obj_end(j);
	}
	json__arr_end(j);
}

static void print_entry(struct stacks_ctx *sc, const struct entry *e, const uint64_t *kips, int nk,
			const uint64_t *uips, int nu)
{
	const struct stacks_opts *o = sc->o;
	bool cut = nu && !user_complete(sc, e->k.pid, uips, nu);
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)], buf[600];

	if (o->c.json) {
		json__obj_begin(&sc->j);
		json__kstr(&sc->j, "type", "stack");
		json__ku64(&sc->j, "count", e->v.count);
		json__ku64(&sc->j, "bytes", e->v.bytes);
		json__ku64(&sc->j, "pid", e->k.pid);
		json__kstr(&sc->j, "comm", e->k.comm);
		if (e->k.dev)
			json__kstr(&sc->j, "disk", disks__name(e->k.dev));
		else
			json__knull(&sc->j, "disk");
		json_frames(sc, "kernel", kips, nk, 0);
		json_frames(sc, "user", uips, nu, e->k.pid);
		json__kbool(&sc->j, "user_cut_short", cut);
		json__obj_end(&sc->j);
		return;
	}
	for (int i = 0; i < nk; i++)
		printf("    %s\n", kname(sc, kips[i], buf, sizeof(buf), true));
	if (nk && nu)
		printf("    --\n");
	for (int i = 0; i < nu; i++)
		printf("    %s\n", text__safe(uname_of(sc, e->k.pid, uips[i], buf, sizeof(buf), true),
					     (char[TEXT_SAFE_LEN(600)]){ 0 }, TEXT_SAFE_LEN(600)));
	if (cut)
		printf("    [the user stack stops here: probably cut short, the binary has no frame pointers]\n");
	printf("  %s [%u]%s%s: %llu", text__safe(e->k.comm, comm, sizeof(comm)), e->k.pid,
	       e->k.dev ? " on " : "", e->k.dev ? disks__name(e->k.dev) : "", (unsigned long long)e->v.count);
	if (o->tp || o->uprobe)
		printf(" events\n\n");
	else
		printf(" bios, %llu bytes\n\n", (unsigned long long)e->v.bytes);
}

static int report(struct stacks_ctx *sc)
{
	int fd = bpf_map__fd(sc->sk->maps.counts);
	struct stacks_key k, next, *prev = NULL;
	struct entry *es = NULL;
	size_t n = 0, cap = 0, shown;
	uint64_t kips[STACKS_DEPTH], uips[STACKS_DEPTH];
	struct stacks_stats st = sc->sk->bss->stats;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (n == cap) {
			void *p = realloc(es, (cap = cap ? 2 * cap : 256) * sizeof(*es));

			if (!p) {
				free(es);
				return fail("reading stacks", "out of memory");
			}
			es = p;
		}
		es[n].k = k;
		if (bpf_map_lookup_elem(fd, &k, &es[n].v))
			continue;
		n++;
	}
	qsort(es, n, sizeof(*es), cmp_entry);
	shown = sc->o->top && sc->o->top < n ? sc->o->top : n;
	if (sc->o->folded)
		shown = n;
	/* text: the largest last, nearest the prompt, as stackcount does */
	for (size_t x = 0; x < shown; x++) {
		size_t i = sc->o->folded || sc->o->c.json ? x : shown - 1 - x;
		int nk = read_stack(sc, es[i].k.kstack, kips);
		int nu = read_stack(sc, es[i].k.ustack, uips);
		int skip = kernel_skip(sc, kips, nk);

		if (sc->o->folded)
			print_folded(sc, &es[i], kips + skip, nk - skip, uips, nu);
		else
			print_entry(sc, &es[i], kips + skip, nk - skip, uips, nu);
	}
	if (sc->o->c.json) {
		json__obj_begin(&sc->j);
		json__kstr(&sc->j, "type", "summary");
		json__ku64(&sc->j, "events", st.events);
		json__ku64(&sc->j, "stacks", n);
		json__ku64(&sc->j, "shown", shown);
		json__ku64(&sc->j, "kstack_lost", st.kstack_lost);
		json__ku64(&sc->j, "ustack_lost", st.ustack_lost);
		json__ku64(&sc->j, "map_full", st.map_full);
		json__ku64(&sc->j, "user_unresolved", sc->unresolved);
		json__obj_end(&sc->j);
	} else {
		fprintf(stderr, "%llu events, %zu distinct stacks (%zu shown); lost: %llu kernel stacks, "
			"%llu user stacks, %llu events (table full); %llu user frames unresolved (process gone)\n",
			(unsigned long long)st.events, n, shown, (unsigned long long)st.kstack_lost,
			(unsigned long long)st.ustack_lost, (unsigned long long)st.map_full,
			(unsigned long long)sc->unresolved);
	}
	free(es);
	return 0;
}

static int stacks_opt(void *ctx, int opt, const char *arg)
{
	struct stacks_opts *o = ctx;

	switch (opt) {
	case 'K': o->kernel_only = true; return 0;
	case 'U': o->user_only = true; return 0;
	case 'd': o->disk = arg; return 0;
	case 'c': o->cgroup = arg; return 0;
	case OPT_FOLDED: o->folded = true; return 0;
	case OPT_TP: o->tp = arg; return 0;
	case OPT_UPROBE: o->uprobe = arg; return 0;
	case 'p':
		if (!cli__uint(arg, 1, 0x7fffffff, &o->pid))
			return usage_error("-p '%s': a process id", arg);
		return 0;
	case 'n':
		if (!cli__uint(arg, 0, 1000000, &o->top))
			return usage_error("-n '%s': a number of stacks (0: all)", arg);
		return 0;
	}
	return -1;
}

static int stacks_args(void *ctx, int argc, char **argv, int optind)
{
	struct stacks_opts *o = ctx;

	if (optind < argc && !cli__uint(argv[optind++], 1, 86400, &o->duration))
		return usage_error("'%s': a duration in seconds", argv[optind - 1]);
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* "block:block_rq_issue" or "block_rq_issue": the raw tracepoint's name */
static const char *tp_name(const char *tp)
{
	const char *c = strchr(tp, ':');

	return c ? c + 1 : tp;
}

int cmd_stacks(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "kernel", 'K', NULL, "kernel stacks only" },
		{ "user", 'U', NULL, "user stacks only" },
		{ "tracepoint", OPT_TP, "CAT:NAME", "count at this tracepoint instead of block I/O submission" },
		{ "uprobe", OPT_UPROBE, "BINARY:SYMBOL", "count at this user function instead" },
		{ "pid", 'p', "PID", "only this process" },
		{ "disk", 'd', "DISK", "block I/O: only this disk (or partition)" },
		{ "cgroup", 'c', "CGROUP", "block I/O: only I/O charged to this cgroup" },
		{ "top", 'n', "N", "text: the N most frequent stacks (default 20; 0: all)" },
		{ "folded", OPT_FOLDED, NULL, "one line per stack, frame;frame;... count, root first (flame graph input)" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "stacks",
		.synopsis = "[options] [seconds]",
		.about = "Kernel and user stacks counted where block I/O is submitted (biostacks): which\n"
			 "code paths issue the I/O, with each stack's bios and bytes.  --tracepoint or\n"
			 "--uprobe count at another event (stackcount, trace -K -U).  Runs for the seconds\n"
			 "given, or until Ctrl-C.  User frames are named while their process lives;\n"
			 "stacks of binaries without frame pointers (most of Debian) are marked when\n"
			 "they stop before the program's entry.\n",
		.opts = opts, .opt = stacks_opt, .args = stacks_args, .tracing = true };
	struct stacks_opts o = { .top = 20 };
	struct stacks_ctx sc = { .o = &o };
	struct bpf_link *link = NULL;
	uint64_t cgid = 0, end;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.kernel_only && o.user_only)
		return usage_error("-K and -U together: leave both out for both stacks");
	if (o.tp && o.uprobe)
		return usage_error("--tracepoint or --uprobe, not both");
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cgid)))
		return err;
	json__init(&sc.j, stdout);
	if (!o.user_only && (err = ksyms__load(&sc.ks, NULL)))
		return fail("reading /proc/kallsyms", "%s", strerror(-err));
	sc.us = usyms__new();
	sc.sk = stacks_bpf__open();
	if (!sc.us || !sc.sk) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	sc.sk->rodata->targ_kernel = !o.user_only;
	sc.sk->rodata->targ_user = !o.kernel_only;
	sc.sk->rodata->filter_pid = o.pid;
	sc.sk->rodata->filter_dev = o.sel.disk;
	sc.sk->rodata->filter_part = o.sel.part;
	sc.sk->rodata->filter_cgroup = cgid;
	bpf_program__set_autoload(sc.sk->progs.stacks_bio, !o.tp && !o.uprobe);
	bpf_program__set_autoload(sc.sk->progs.stacks_tp, !!o.tp);
	bpf_program__set_autoload(sc.sk->progs.stacks_uprobe, !!o.uprobe);
	if ((err = stacks_bpf__load(sc.sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if (o.tp) {
		link = bpf_program__attach_raw_tracepoint(sc.sk->progs.stacks_tp, tp_name(o.tp));
		if (!link) {
			err = fail(NULL, "no tracepoint '%s' on this kernel (see /sys/kernel/tracing/events)", o.tp);
			goto out;
		}
	} else if (o.uprobe) {
		char path[4096], sym[256];
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = sym);

		if ((err = attach__resolve_user(o.uprobe, o.pid, path, sizeof(path), sym, sizeof(sym))))
			goto out;
		link = bpf_program__attach_uprobe_opts(sc.sk->progs.stacks_uprobe, o.pid ? (pid_t)o.pid : -1,
						       path, 0, &uo);
		if (!link) {
			err = bpfenv__fail(o.uprobe, -errno);
			goto out;
		}
	} else if ((err = stacks_bpf__attach(sc.sk))) {
		err = bpfenv__fail("attaching to block_bio_queue", err);
		goto out;
	}
	run__signals();
	if ((err = run__ready(o.c.ready_file, "Counting stacks... Hit Ctrl-C to end.")))
		goto out;
	end = o.duration ? run__mono_ns() + o.duration * 1000000000ULL : 0;
	while (!run__stopping() && (!end || run__mono_ns() < end)) {
		struct timespec ts = { 0, 100 * 1000000 };

		nanosleep(&ts, NULL);
		if (!o.kernel_only)
			scan(&sc);
	}
	bpf_link__destroy(link);
	link = NULL;
	stacks_bpf__detach(sc.sk);
	bpfenv__wait_programs();
	if (!o.kernel_only)
		scan(&sc);
	err = report(&sc);
	if (!err)
		err = run__flush() ? 1 : 0;
out:
	bpf_link__destroy(link);
	stacks_bpf__destroy(sc.sk);
	usyms__free(sc.us);
	ksyms__free(&sc.ks);
	for (size_t i = 0; i < sc.nuf; i++) {
		free(sc.uf[i].name);
		free(sc.uf[i].where);
	}
	free(sc.uf);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* iodig func: latency histograms of kernel or user functions. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "kfeatures.h"
#include "bpfenv.h"
#include "cli.h"
#include "filter.h"
#include "counters.h"
#include "frames.h"
#include "func.h"
#include "histmap.h"
#include "hist_user.h"
#include "ksyms.h"
#include "log.h"
#include "report.h"
#include "run.h"
#include "usyms.h"
#include "func.skel.h"
#include "sort.h"

enum { OPT_MODE = OPT_FIRST_CMD };

struct func_opts {
	struct cli_common c;
	const char *pid;
	bool ms;
	bool kstack, ustack;
	enum attach_mode mode;
	char **patterns;
	int npat;
	struct run_loop loop;
};

static const struct cli_opt func_opts_table[] = {
	{ "pid", 'p', "PID", "only calls made by this process", CLI_STR_AT(struct func_opts, pid) },
	{ "ms", 'm', NULL, "histogram rows in milliseconds", CLI_FLAG_AT(struct func_opts, ms) },
	{ "us", 'u', NULL, "histogram rows in microseconds (default)" },
	{ "timestamp", 'T', NULL, "a time line before each interval", CLI_FLAG_AT(struct func_opts, loop.timestamp) },
	{ "mode", OPT_MODE, "MODE", "auto (default), fentry, kprobe or kprobe-multi" },
	{ "kernel-stack", 'K', NULL, "a histogram per kernel stack at the call", CLI_FLAG_AT(struct func_opts, kstack) },
	{ "user-stack", 'U', NULL, "a histogram per process and user stack at the call", CLI_FLAG_AT(struct func_opts, ustack) },
	{}
};

struct func_ctx {
	struct func_opts *o;
	struct func_bpf *skel;
	char **names;		/* by id (the cookie) */
	int n;
	/* this interval's histograms, one per key (function, and with -K/-U
	 * process and stacks), with the stacks named */
	struct func_series {
		struct func_key k;
		struct hist h;
		struct frames kf, uf;
	} *s;
	int ns, scap;
	struct ksyms ks;
	struct usyms *us;
	struct ustacks ust;	/* -U: named while their processes live */
	uint64_t unresolved;	/* -U: this interval's series whose stack is addresses */
	uint64_t mmap_lost;	/* -U: mapping records the kernel dropped, until the last report */
	struct func_stats last;
	enum attach_mode mode;
	struct json j;
	struct report r;
	struct attacher at;
	uint32_t pid;		/* -p: stop when it exits */
};

/* Gone, or a zombie its parent has not reaped yet: it runs nothing more. */
static bool process_alive(uint32_t pid)
{
	char path[32], buf[256], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (!(f = fopen(path, "r")))
		return errno != ENOENT && errno != ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

static bool key_ustack(const void *key, uint32_t *pid, int32_t *id)
{
	const struct func_key *k = key;

	*pid = k->pid;
	*id = k->ustack;
	return true;
}

/* The map the user stacks' ids name (ustack.bpf.h's, or the stack map) */
static int func_ustack_fd(struct func_bpf *sk)
{
	return bpfenv__ustack_fd(sk->rodata->ustack_walk, sk->maps.ustackmap, sk->maps.stackmap);
}

/* -U: name the user stacks of both halves' keys while their processes live. */
static void scan_ustacks(struct func_ctx *fc)
{
	struct func_bpf *sk = fc->skel;

	if (!fc->o->ustack)
		return;
	for (int i = 0; i < 2; i++)
		ustacks__scan(&fc->ust, fc->us, bpf_map__fd(i ? sk->maps.hists1 : sk->maps.hists0),
			      sizeof(struct func_key), key_ustack, func_ustack_fd(sk), FUNC_STACK_DEPTH);
}

static int func_wait(void *ctx, int ms)
{
	struct func_ctx *fc = ctx;

	run__sleep_ms(ctx, ms > 100 ? 100 : ms);
	scan_ustacks(fc);
	if (fc->pid && !process_alive(fc->pid)) {
		warnf("process %u exited: stopping", fc->pid);
		run__stop();
	}
	return 0;
}

static bool numeric(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int func_opt(void *ctx, int opt, const char *arg)
{
	struct func_opts *o = ctx;

	switch (opt) {
	case 'u': o->ms = false; break;
	case OPT_MODE:
		if (!strcmp(arg, "auto")) o->mode = ATTACH_AUTO;
		else if (!strcmp(arg, "fentry")) o->mode = ATTACH_FENTRY;
		else if (!strcmp(arg, "kprobe")) o->mode = ATTACH_KPROBE;
		else if (!strcmp(arg, "kprobe-multi")) o->mode = ATTACH_KPROBE_MULTI;
		else return usage_error("--mode '%s': auto, fentry, kprobe or kprobe-multi", arg);
		break;
	default: return -1;
	}
	return 0;
}

/* PATTERN... [interval [count]]: the patterns end at the first number. */
static int func_args(void *ctx, int argc, char **argv, int optind)
{
	struct func_opts *o = ctx;
	int first = optind;

	while (optind < argc && !numeric(argv[optind]))
		optind++;
	o->patterns = argv + first;
	o->npat = optind - first;
	if (!o->npat)
		return usage_error("no function given");
	if (o->npat > FUNC_MAX)
		return usage_error("at most %d patterns", FUNC_MAX);
	return run__parse_interval(argc, argv, optind, &o->loop);
}

/* A key comes once from a drain (its CPUs' values already merged). */
static int take(void *ctx, const void *key, const struct hist *h)
{
	struct func_ctx *fc = ctx;
	const struct func_key *k = key;

	if (k->id >= (__u32)fc->n)
		return 0;
	if (fc->ns == fc->scap) {
		int cap = fc->scap ? 2 * fc->scap : 16;
		struct func_series *n = realloc(fc->s, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		fc->s = n;
		fc->scap = cap;
	}
	fc->s[fc->ns] = (struct func_series){ .k = *k };
	hist__merge(&fc->s[fc->ns++].h, h);
	return 0;
}

/* By function (the order given), then the most called stack first. */
static int series_cmp(const void *a, const void *b)
{
	const struct func_series *x = a, *y = b;

	if (x->k.id != y->k.id)
		return x->k.id < y->k.id ? -1 : 1;
	return x->h.count > y->h.count ? -1 : x->h.count < y->h.count;
}

/* The series' stacks: kernel named now, user from the cache (named while
 * the process lived), else now (addresses, if it is gone). */
static const struct frames *name_stacks(struct func_ctx *fc, struct func_series *s)
{
	int fd = bpfenv__ustack_fd(fc->skel->rodata->kstack_keep, fc->skel->maps.kstackmap, fc->skel->maps.stackmap);
	uint64_t ips[FUNC_STACK_DEPTH];
	const struct frames *u;

	if (fc->o->kstack)
		frames__kernel(&s->kf, &fc->ks, ips, frames__read(fd, s->k.kstack, ips, FUNC_STACK_DEPTH));
	if (!fc->o->ustack)
		return NULL;
	if (!(u = ustacks__find(&fc->ust, s->k.pid, s->k.ustack))) {
		frames__user(&s->uf, fc->us, s->k.pid, ips,
			     frames__read(func_ustack_fd(fc->skel), s->k.ustack, ips, FUNC_STACK_DEPTH));
		u = &s->uf;
	}
	if (u->n && !u->f[0].sym && !u->f[0].where)
		fc->unresolved++;	/* gone before it was named: addresses */
	return u;
}

static void free_series(struct func_ctx *fc)
{
	for (int i = 0; i < fc->ns; i++) {
		frames__free(&fc->s[i].kf);
		frames__free(&fc->s[i].uf);
	}
	fc->ns = 0;
}

struct func_values {
	struct func_stats d;
	uint64_t user_unresolved, mmap_lost, missed, bpf_run_ns, bpf_run_cnt;
};

_Static_assert(FUNC_MAX_DEPTH == 32, "func_counters' text says 32");

#define FV(f) offsetof(struct func_values, f)
static const struct counter func_counters[] = {
	{ "too_deep", FV(d.too_deep), "not timed: %llu calls deeper than 32 (FUNC_MAX_DEPTH)" },
	{ "unmatched", FV(d.unmatched), "not timed: %llu returns without their entry" },
	{ "map_full", FV(d.map_full), "not timed: %llu calls found the histogram map full" },
	{ "threads_full", FV(d.threads_full), "not timed: %llu calls found no room for their thread" },
	{ "kstack_lost", FV(d.kstack_lost), "no kernel stack: %llu calls (stack map full or a collision)" },
	{ "ustack_lost", FV(d.ustack_lost), "no user stack: %llu calls (stack map full or a collision)" },
	{ "user_unresolved", FV(user_unresolved), "user stacks: %llu shown as addresses (the process was gone before they were named)" },
	{ "mmap_lost", FV(mmap_lost), "lost: %llu mapping records (some processes gone before their stacks were named stay addresses)" },
	{ "missed", FV(missed), "missed: %llu calls found a program already running on the CPU" },
	{ "bpf_run_ns", FV(bpf_run_ns), NULL },
	{ "bpf_run_cnt", FV(bpf_run_cnt), NULL },
};

static int func_report(void *ctx, bool last)
{
	struct func_ctx *fc = ctx;
	struct func_bpf *sk = fc->skel;
	__u32 old = histmap__flip(&sk->bss->epoch);
	struct func_stats s = sk->bss->stats;
	struct func_values v = { .missed = bpfenv__recursion_misses(sk->obj) };
	unsigned long long ns, cnt;
	char pid[16];
	int err;

	free_series(fc);
	fc->unresolved = 0;
	scan_ustacks(fc);
	err = histmap__drain(bpf_map__fd(old ? sk->maps.hists1 : sk->maps.hists0),
			     bpf_map__fd(sk->maps.hists_spill), old, sizeof(struct func_key), take, fc);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	sort__any(fc->s, fc->ns, sizeof(*fc->s), series_cmp);
	counters__delta(&v.d, &s, &fc->last, sizeof(v.d));
	bpfenv__run_stats(sk->obj, &ns, &cnt);
	v.bpf_run_ns = ns;
	v.bpf_run_cnt = cnt;
	report__begin(&fc->r, last);
	for (int i = 0; i < fc->ns; i++) {
		struct func_series *fs = &fc->s[i];

		snprintf(pid, sizeof(pid), "%u", fs->k.pid);
		if (fc->o->ustack)
			err = report__add(&fc->r, &fs->h, 3, "function", LABEL_STR, fc->names[fs->k.id],
					  "pid", LABEL_STR, pid, "mode", LABEL_JSON_ONLY, attach__mode_name(fc->mode));
		else
			err = report__add(&fc->r, &fs->h, 2, "function", LABEL_STR, fc->names[fs->k.id],
					  "mode", LABEL_JSON_ONLY, attach__mode_name(fc->mode));
		if (err)
			return fail("reporting", "%s", strerror(-err));
		if (fc->o->kstack || fc->o->ustack) {
			const struct frames *u = name_stacks(fc, fs);

			report__stacks(&fc->r, fc->o->kstack ? &fs->kf : NULL, u);
		}
	}
	v.user_unresolved = fc->unresolved;
	if (fc->us) {
		struct usyms_stats us;

		usyms__stats(fc->us, &us);
		v.mmap_lost = us.maps_lost - fc->mmap_lost;
		fc->mmap_lost = us.maps_lost;
	}
	report__emit(&fc->r, &v);
	return 0;
}

int cmd_func(int argc, char **argv)
{
	struct func_opts o = {};
	struct func_ctx fc = { .o = &o };
	struct attach_progs progs;
	uint32_t pid = 0;
	int nuser = 0, err;
	char msg[160];

	static const struct cli_cmd cmd = {
		.name = "func", .synopsis = "[options] PATTERN... [interval [count]]",
		.about = "Latency histograms of functions, one per function:\n"
			 "  a kernel function or glob (submit_bio, 'blk_mq_*'), or BINARY:SYMBOL for user\n"
			 "  space (a path, or with -p a library name looked up in that process's maps).\n"
			 "Nested and recursive calls are timed right: each thread keeps a stack of entry\n"
			 "times (up to 32 deep; deeper calls are counted, not timed).\n",
		.opts = func_opts_table,
		.notes = "Kernel functions need fentry (BPF trampolines) or kprobes; `iodig probe` tells\n"
			 "which this kernel has.  At most 4096 functions at once.\n"
			 "-K/-U split each function's histogram by the stack at its entry (at most 16384\n"
			 "histograms, 8192 stacks); user stacks are named while their process lives\n"
			 "(checked every 100 ms), and need frame pointers to go past the first frame.\n",
		.opt = func_opt, .args = func_args, .tracing = true,
		.privileges = "BINARY:SYMBOL (uprobes) needs CAP_SYS_ADMIN; KERNEL_FUNCTION needs CAP_BPF and\n"
			 "CAP_PERFMON alone.\n" };

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.pid && (err = filter__pid(o.pid, &pid)))
		return err;
	for (int i = 0; i < o.npat; i++)
		nuser += strchr(o.patterns[i], ':') != NULL;
	if (nuser && nuser != o.npat)
		return usage_error("kernel and user functions cannot be mixed in one run");
	if (nuser && o.kstack)
		return usage_error("-K: a call of a user function has no kernel stack (-U takes its user stack)");
	if (nuser) {
		fc.n = o.npat;
		fc.names = calloc(fc.n, sizeof(char *));
		for (int i = 0; i < fc.n; i++)
			fc.names[i] = strdup(o.patterns[i]);
	} else {
		if ((err = attach__resolve_kernel(o.patterns, o.npat, &fc.names, &fc.n)))
			return err;
		if (fc.n > FUNC_MAX) {
			err = fail("functions", "%d match; at most %d at once", fc.n, FUNC_MAX);
			goto out;
		}
	}
	if ((err = attacher__choose(&fc.at, o.mode, fc.n, nuser)))
		goto out;
	fc.mode = fc.at.mode;
	if (o.kstack && (err = ksyms__load(&fc.ks, NULL))) {
		err = fail("reading /proc/kallsyms", "%s", strerror(-err));
		goto out;
	}
	if (o.ustack && !(fc.us = usyms__new())) {
		err = fail("user symbols", "%s", strerror(ENOMEM));
		goto out;
	}
	json__init(&fc.j, stdout);
	fc.r = (struct report){ .empty = "no calls", .ms = o.ms, .timestamp = o.loop.timestamp,
			       .per_interval = o.loop.interval_ms, .json = o.c.json, .j = &fc.j, .out = stdout,
			       .counters = func_counters, .ncounters = COUNTERS_N(func_counters) };

	if ((err = kfeatures__need(NEED_COOKIE, "func")))
		goto out;
	fc.skel = func_bpf__open_opts(bpfenv__open_opts());
	if (!fc.skel) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	fc.skel->rodata->filter_pid = pid;
	fc.skel->rodata->targ_kstack = o.kstack;
	fc.skel->rodata->targ_ustack = o.ustack;
	/* stacks kept by a hash of their frames where the kernel can (ustack.bpf.h), else in the stack map */
	bpfenv__ustack_setup(&fc.skel->rodata->ustack_walk, o.ustack, fc.skel->maps.ustackmap);
	bpfenv__ustack_setup(&fc.skel->rodata->kstack_keep, o.kstack, fc.skel->maps.kstackmap);
	bpfenv__stackmap_trim(fc.skel->maps.stackmap, o.kstack, fc.skel->rodata->kstack_keep, o.ustack,
			      fc.skel->rodata->ustack_walk);
	progs = (struct attach_progs){
		.entry = { [ATTACH_FENTRY] = fc.skel->progs.func_fentry,
			   [ATTACH_KPROBE] = fc.skel->progs.func_kprobe,
			   [ATTACH_KPROBE_MULTI] = fc.skel->progs.func_kmulti,
			   [ATTACH_UPROBE] = fc.skel->progs.func_uprobe },
		.exit = { [ATTACH_FENTRY] = fc.skel->progs.func_fexit,
			  [ATTACH_KPROBE] = fc.skel->progs.func_kretprobe,
			  [ATTACH_KPROBE_MULTI] = fc.skel->progs.func_kretmulti,
			  [ATTACH_UPROBE] = fc.skel->progs.func_uretprobe },
	};
	attacher__select(&fc.at, fc.skel->obj, &progs, fc.names[0]);
	if ((err = func_bpf__load(fc.skel))) {
		err = bpfenv__fail(fc.mode == ATTACH_FENTRY ? "loading fentry/fexit" : "loading BPF programs", err);
		goto out;
	}
	if (nuser) {
		for (int i = 0; i < fc.n && !err; i++)
			err = attacher__user(&fc.at, &progs, fc.names[i], pid, i);
	} else {
		err = attacher__kernel(&fc.at, &progs, fc.names, fc.n);
	}
	if (err)
		goto out;
	run__signals();
	snprintf(msg, sizeof(msg), "Tracing %d function%s (%s, attached in %.1f ms)... Hit Ctrl-C to end.",
		 fc.n, fc.n == 1 ? "" : "s", attach__mode_name(fc.mode), fc.at.ms);
	if ((err = run__ready(o.c.ready_file, msg)))
		goto out;
	o.loop.report = func_report;
	o.loop.wait = func_wait;
	o.loop.ctx = &fc;
	fc.pid = pid;
	err = run__loop(&o.loop);
out:
	attacher__destroy(&fc.at);
	func_bpf__destroy(fc.skel);
	attach__free_names(fc.names, fc.n);
	free_series(&fc);
	free(fc.s);
	ksyms__free(&fc.ks);
	ustacks__free(&fc.ust);
	usyms__free(fc.us);
	report__free(&fc.r);
	return err;
}

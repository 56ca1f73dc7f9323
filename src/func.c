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
#include "bpfenv.h"
#include "cli.h"
#include "filter.h"
#include "counters.h"
#include "func.h"
#include "histmap.h"
#include "hist_user.h"
#include "log.h"
#include "report.h"
#include "run.h"
#include "func.skel.h"

enum { OPT_MODE = OPT_FIRST_CMD };

static const struct cli_opt func_opts_table[] = {
	{ "pid", 'p', "PID", "only calls made by this process" },
	{ "ms", 'm', NULL, "histogram rows in milliseconds" },
	{ "us", 'u', NULL, "histogram rows in microseconds (default)" },
	{ "timestamp", 'T', NULL, "a time line before each interval" },
	{ "mode", OPT_MODE, "MODE", "auto (default), fentry, kprobe or kprobe-multi" },
	{}
};

struct func_opts {
	struct cli_common c;
	const char *pid;
	bool ms;
	enum attach_mode mode;
	char **patterns;
	int npat;
	struct run_loop loop;
};

struct func_ctx {
	struct func_opts *o;
	struct func_bpf *skel;
	char **names;		/* by id (the cookie) */
	int n;
	struct hist *h;		/* by id, this interval */
	bool *seen;
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

static int func_wait(void *ctx, int ms)
{
	struct func_ctx *fc = ctx;

	run__sleep_ms(ctx, ms);
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
	case 'p': o->pid = arg; break;
	case 'm': o->ms = true; break;
	case 'u': o->ms = false; break;
	case 'T': o->loop.timestamp = true; break;
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

static int take(void *ctx, const void *key, const struct hist *h)
{
	struct func_ctx *fc = ctx;
	__u32 id = *(const __u32 *)key;

	if (id < (__u32)fc->n) {
		hist__merge(&fc->h[id], h);
		fc->seen[id] = true;
	}
	return 0;
}

struct func_values {
	struct func_stats d;
	uint64_t missed, bpf_run_ns, bpf_run_cnt;
};

_Static_assert(FUNC_MAX_DEPTH == 32, "func_counters' text says 32");

#define FV(f) offsetof(struct func_values, f)
static const struct counter func_counters[] = {
	{ "too_deep", FV(d.too_deep), "not timed: %llu calls deeper than 32 (FUNC_MAX_DEPTH)" },
	{ "unmatched", FV(d.unmatched), "not timed: %llu returns without their entry" },
	{ "map_full", FV(d.map_full), "not timed: %llu calls found the histogram map full" },
	{ "threads_full", FV(d.threads_full), "not timed: %llu calls found no room for their thread" },
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
	int err;

	memset(fc->h, 0, fc->n * sizeof(*fc->h));
	memset(fc->seen, 0, fc->n * sizeof(*fc->seen));
	err = histmap__drain(bpf_map__fd(old ? sk->maps.hists1 : sk->maps.hists0), sizeof(__u32), take, fc);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	counters__delta(&v.d, &s, &fc->last, sizeof(v.d));
	bpfenv__run_stats(sk->obj, &ns, &cnt);
	v.bpf_run_ns = ns;
	v.bpf_run_cnt = cnt;
	report__begin(&fc->r, last);
	for (int i = 0; i < fc->n; i++)
		if (fc->seen[i] && (err = report__add(&fc->r, &fc->h[i], 2, "function", LABEL_STR, fc->names[i],
						      "mode", LABEL_JSON_ONLY, attach__mode_name(fc->mode))))
			return fail("reporting", "%s", strerror(-err));
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
			 "which this kernel has.  At most 4096 functions at once.\n",
		.opt = func_opt, .args = func_args, .tracing = true };

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.pid && (err = filter__pid(o.pid, &pid)))
		return err;
	for (int i = 0; i < o.npat; i++)
		nuser += strchr(o.patterns[i], ':') != NULL;
	if (nuser && nuser != o.npat)
		return usage_error("kernel and user functions cannot be mixed in one run");
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
	fc.h = calloc(fc.n, sizeof(*fc.h));
	fc.seen = calloc(fc.n, sizeof(*fc.seen));
	json__init(&fc.j, stdout);
	fc.r = (struct report){ .empty = "no calls", .ms = o.ms, .timestamp = o.loop.timestamp,
			       .per_interval = o.loop.interval_ms, .json = o.c.json, .j = &fc.j, .out = stdout,
			       .counters = func_counters, .ncounters = COUNTERS_N(func_counters) };

	fc.skel = func_bpf__open();
	if (!fc.skel) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	fc.skel->rodata->filter_pid = pid;
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
	free(fc.h);
	free(fc.seen);
	report__free(&fc.r);
	return err;
}

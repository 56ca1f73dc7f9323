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
#include "bpfx.h"
#include "cli.h"
#include "filter.h"
#include "counters.h"
#include "func.h"
#include "histmap.h"
#include "hist_user.h"
#include "log.h"
#include "run.h"
#include "func.skel.h"

static const char func_usage[] =
"Usage: iodig func [options] PATTERN... [interval [count]]\n"
"Latency histograms of functions, one per function:\n"
"  a kernel function or glob (submit_bio, 'blk_mq_*'), or BINARY:SYMBOL for user\n"
"  space (a path, or with -p a library name looked up in that process's maps).\n"
"Nested and recursive calls are timed right: each thread keeps a stack of entry\n"
"times (up to 32 deep; deeper calls are counted, not timed).\n"
"\n"
"  -p, --pid PID        only calls made by this process\n"
"  -m, --ms             histogram rows in milliseconds\n"
"  -u, --us             histogram rows in microseconds (default)\n"
"  -T, --timestamp      a time line before each interval\n"
"      --mode MODE      auto (default), fentry, kprobe or kprobe-multi\n"
CLI_COMMON_HELP
"\n"
"Kernel functions need fentry (BPF trampolines) or kprobes; `iodig probe` tells\n"
"which this kernel has.  At most 4096 functions at once.\n";

enum { OPT_MODE = OPT_FIRST_CMD };

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
	int interval_no;
	struct json j;
	struct bpf_link **links;
	int nlinks;
	double attach_ms;
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
	struct func_ctx *x = ctx;

	run__sleep_ms(ctx, ms);
	if (x->pid && !process_alive(x->pid)) {
		warnf("process %u exited: stopping", x->pid);
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

static const struct option func_longs[] = {
	{ "pid", required_argument, 0, 'p' },
	{ "ms", no_argument, 0, 'm' },
	{ "us", no_argument, 0, 'u' },
	{ "timestamp", no_argument, 0, 'T' },
	{ "mode", required_argument, 0, OPT_MODE },
	{}
};

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
	struct func_ctx *x = ctx;
	__u32 id = *(const __u32 *)key;

	if (id < (__u32)x->n) {
		hist__merge(&x->h[id], h);
		x->seen[id] = true;
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
	struct func_ctx *x = ctx;
	struct func_bpf *sk = x->skel;
	__u32 old = histmap__flip(&sk->bss->epoch);
	struct func_stats s = sk->bss->stats;
	struct func_values v = { .missed = bpfx__recursion_misses(sk->obj) };
	unsigned long long ns, cnt;
	int err, shown = 0;

	memset(x->h, 0, x->n * sizeof(*x->h));
	memset(x->seen, 0, x->n * sizeof(*x->seen));
	err = histmap__drain(bpf_map__fd(old ? sk->maps.hists1 : sk->maps.hists0), sizeof(__u32), take, x);
	if (err)
		return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
	counters__delta(&v.d, &s, &x->last, sizeof(v.d));
	bpfx__run_stats(sk->obj, &ns, &cnt);
	v.bpf_run_ns = ns;
	v.bpf_run_cnt = cnt;
	x->interval_no++;
	if (x->o->c.json) {
		for (int i = 0; i < x->n; i++) {
			if (!x->seen[i])
				continue;
			json__obj_begin(&x->j);
			json__kstr(&x->j, "type", "hist");
			json__ku64(&x->j, "interval", x->interval_no);
			json__kstr(&x->j, "function", x->names[i]);
			json__kstr(&x->j, "mode", attach__mode_name(x->mode));
			hist__json(&x->h[i], &x->j);
			json__obj_end(&x->j);
		}
		json__obj_begin(&x->j);
		json__kstr(&x->j, "type", "interval_end");
		json__ku64(&x->j, "interval", x->interval_no);
		counters__json(&x->j, func_counters, COUNTERS_N(func_counters), &v, 0);
		json__kbool(&x->j, "last", last);
		json__obj_end(&x->j);
		return 0;
	}
	if (x->o->loop.timestamp)
		run__print_time(stdout);
	for (int i = 0; i < x->n; i++) {
		if (!x->seen[i])
			continue;
		shown++;
		printf("\nfunction = %s\n", x->names[i]);
		hist__print(&x->h[i], stdout, x->o->ms ? 1000000 : 1000, x->o->ms ? "msecs" : "usecs");
	}
	if (!shown)
		printf("no calls%s\n", x->o->loop.interval_ms ? " in this interval" : "");
	counters__lines(stdout, func_counters, COUNTERS_N(func_counters), &v, 0);
	return 0;
}

static int add_link(struct func_ctx *x, struct bpf_link *l, const char *what, const char *name)
{
	if (!l) {
		char w[160];

		snprintf(w, sizeof(w), "%s (%s)", what, name);
		return bpfx__fail(w, -errno);
	}
	x->links[x->nlinks++] = l;
	return 0;
}

/* Picks how to attach n kernel functions, or says why nothing can. */
static int choose_kernel_mode(struct func_ctx *x, const struct features *f)
{
	enum attach_mode m = x->o->mode;

	if (m == ATTACH_FENTRY && !f->fentry)
		return fail("fentry", "not available on this kernel: %s", f->why_fentry);
	if (m == ATTACH_KPROBE && !f->kprobe)
		return fail("kprobe", "not available on this kernel: %s", f->why_kprobe);
	if (m == ATTACH_KPROBE_MULTI && !f->kprobe_multi)
		return fail("kprobe-multi", "not available on this kernel: %s", f->why_kprobe_multi);
	if (m == ATTACH_FENTRY && x->n > 1)
		return fail("fentry", "%d functions match: fentry attaches one function per program; "
			    "give one, or use --mode kprobe", x->n);
	if (m == ATTACH_AUTO) {
		if (x->n == 1 && f->fentry)
			m = ATTACH_FENTRY;
		else if (x->n > 1 && f->kprobe_multi)
			m = ATTACH_KPROBE_MULTI;
		else if (f->kprobe)
			m = ATTACH_KPROBE;
		else if (f->fentry)
			return fail("functions", "%d match, and without kprobes only one function can be "
				    "traced (fentry); kprobe: %s", x->n, f->why_kprobe);
		else
			return fail("tracing kernel functions", "this kernel has neither kprobes (%s) nor "
				    "fentry (%s); block I/O commands (lat, slow, snoop) work from tracepoints",
				    f->why_kprobe, f->why_fentry);
	}
	x->mode = m;
	return 0;
}

static int attach_kernel(struct func_ctx *x)
{
	struct func_bpf *sk = x->skel;
	unsigned long long t0 = run__mono_ns();
	int err;

	if (x->mode == ATTACH_FENTRY) {
		if ((err = func_bpf__attach(sk)))
			return bpfx__fail("attaching fentry/fexit", err);
	} else if (x->mode == ATTACH_KPROBE_MULTI) {
		__u64 *cookies = calloc(x->n, sizeof(*cookies));
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)x->names, .cnt = x->n,
			    .cookies = cookies);

		for (int i = 0; i < x->n; i++)
			cookies[i] = i;
		err = add_link(x, bpf_program__attach_kprobe_multi_opts(sk->progs.func_kmulti, NULL, &o),
			       "attaching kprobe-multi", "entries");
		o.retprobe = true;
		if (!err)
			err = add_link(x, bpf_program__attach_kprobe_multi_opts(sk->progs.func_kretmulti,
										 NULL, &o),
				       "attaching kretprobe-multi", "returns");
		free(cookies);
		if (err)
			return err;
	} else {
		for (int i = 0; i < x->n; i++) {
			LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = i);

			if ((err = add_link(x, bpf_program__attach_kprobe_opts(sk->progs.func_kprobe,
									       x->names[i], &o),
					    "attaching kprobe", x->names[i])))
				return err;
			o.retprobe = true;
			if ((err = add_link(x, bpf_program__attach_kprobe_opts(sk->progs.func_kretprobe,
									       x->names[i], &o),
					    "attaching kretprobe", x->names[i])))
				return err;
		}
	}
	x->attach_ms = (run__mono_ns() - t0) / 1e6;
	return 0;
}

static int attach_user(struct func_ctx *x, uint32_t pid)
{
	unsigned long long t0 = run__mono_ns();

	for (int i = 0; i < x->o->npat; i++) {
		char path[512], sym[256];
		int err = attach__resolve_user(x->o->patterns[i], pid, path, sizeof(path), sym, sizeof(sym));
		LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = sym, .bpf_cookie = i);
		struct bpf_link *l;

		if (err)
			return err;
		l = bpf_program__attach_uprobe_opts(x->skel->progs.func_uprobe, pid ? (int)pid : -1, path, 0, &o);
		if (!l && errno == ENOENT)
			return fail("function", "'%s': no such symbol in %s", sym, path);
		if (!l)
			return fail("function", "'%s' in %s: cannot attach a uprobe: %s", sym, path, strerror(errno));
		x->links[x->nlinks++] = l;
		o.retprobe = true;
		l = bpf_program__attach_uprobe_opts(x->skel->progs.func_uretprobe, pid ? (int)pid : -1, path, 0, &o);
		if (!l)
			return fail("function", "'%s' in %s: cannot attach a uretprobe: %s", sym, path, strerror(errno));
		x->links[x->nlinks++] = l;
	}
	x->attach_ms = (run__mono_ns() - t0) / 1e6;
	return 0;
}

int cmd_func(int argc, char **argv)
{
	struct func_opts o = {};
	struct func_ctx x = { .o = &o };
	const struct features *f;
	uint32_t pid = 0;
	int nuser = 0, err;
	char msg[160];

	static const struct cli_cmd cmd = { .name = "func", .usage = func_usage, .shortopts = "p:muT",
					    .longs = func_longs, .opt = func_opt, .args = func_args,
					    .tracing = true };

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.pid && (err = filter__pid(o.pid, &pid)))
		return err;
	for (int i = 0; i < o.npat; i++)
		nuser += strchr(o.patterns[i], ':') != NULL;
	if (nuser && nuser != o.npat)
		return usage_error("kernel and user functions cannot be mixed in one run");
	if (nuser) {
		x.mode = ATTACH_UPROBE;
		x.n = o.npat;
		x.names = calloc(x.n, sizeof(char *));
		for (int i = 0; i < x.n; i++)
			x.names[i] = strdup(o.patterns[i]);
	} else {
		if ((err = attach__resolve_kernel(o.patterns, o.npat, &x.names, &x.n)))
			return err;
		if (x.n > FUNC_MAX) {
			err = fail("functions", "%d match; at most %d at once", x.n, FUNC_MAX);
			goto out;
		}
		f = features__get();
		if ((err = choose_kernel_mode(&x, f)))
			goto out;
	}
	x.h = calloc(x.n, sizeof(*x.h));
	x.seen = calloc(x.n, sizeof(*x.seen));
	x.links = calloc(2 * x.n + 2, sizeof(*x.links));
	json__init(&x.j, stdout);

	x.skel = func_bpf__open();
	if (!x.skel) {
		err = bpfx__fail("opening BPF object", -errno);
		goto out;
	}
	x.skel->rodata->filter_pid = pid;
	{
		struct bpf_program *p;
		struct bpf_program *a = NULL, *b = NULL;

		switch (x.mode) {
		case ATTACH_FENTRY: a = x.skel->progs.func_fentry; b = x.skel->progs.func_fexit; break;
		case ATTACH_KPROBE: a = x.skel->progs.func_kprobe; b = x.skel->progs.func_kretprobe; break;
		case ATTACH_KPROBE_MULTI: a = x.skel->progs.func_kmulti; b = x.skel->progs.func_kretmulti; break;
		default: a = x.skel->progs.func_uprobe; b = x.skel->progs.func_uretprobe; break;
		}
		bpf_object__for_each_program(p, x.skel->obj) {
			bpf_program__set_autoload(p, p == a || p == b);
			bpf_program__set_autoattach(p, x.mode == ATTACH_FENTRY && (p == a || p == b));
		}
		if (x.mode == ATTACH_FENTRY) {
			bpf_program__set_attach_target(a, 0, x.names[0]);
			bpf_program__set_attach_target(b, 0, x.names[0]);
		}
	}
	if ((err = func_bpf__load(x.skel))) {
		err = bpfx__fail(x.mode == ATTACH_FENTRY ? "loading fentry/fexit" : "loading BPF programs", err);
		goto out;
	}
	err = x.mode == ATTACH_UPROBE ? attach_user(&x, pid) : attach_kernel(&x);
	if (err)
		goto out;
	run__signals();
	snprintf(msg, sizeof(msg), "Tracing %d function%s (%s, attached in %.1f ms)... Hit Ctrl-C to end.",
		 x.n, x.n == 1 ? "" : "s", attach__mode_name(x.mode), x.attach_ms);
	if ((err = run__ready(o.c.ready_file, msg)))
		goto out;
	o.loop.report = func_report;
	o.loop.wait = func_wait;
	o.loop.ctx = &x;
	x.pid = pid;
	err = run__loop(&o.loop);
out:
	for (int i = 0; i < x.nlinks; i++)
		bpf_link__destroy(x.links[i]);
	func_bpf__destroy(x.skel);
	attach__free_names(x.names, x.n);
	free(x.h);
	free(x.seen);
	free(x.links);
	return err;
}

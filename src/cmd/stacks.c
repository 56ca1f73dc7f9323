// SPDX-License-Identifier: GPL-2.0
/*
 * iodig stacks: which code paths issue the I/O (biostacks, stackcount,
 * trace -K -U).  Kernel and user stacks are counted in BPF at each event;
 * user frames are symbolized while their process is alive (a scan of new
 * stacks every 100 ms), kernel frames at the end from /proc/kallsyms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
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
#include "flame.h"
#include "frames.h"
#include "hist_user.h"
#include "filter.h"
#include "fields.h"
#include "json.h"
#include "ksyms.h"
#include "log.h"
#include "recs.h"
#include "run.h"
#include "stacks.h"
#include "stacks.skel.h"
#include "text.h"
#include "usyms.h"

enum { OPT_TP = OPT_FIRST_CMD, OPT_UPROBE, OPT_KFUNC, OPT_FOLDED, OPT_SVG };

struct stacks_opts {
	struct cli_common c;
	bool kernel_only, user_only, folded;
	const char *tp, *uprobe, *kfunc, *disk, *cgroup, *svg;
	unsigned long long pid, top, duration;
	struct disk_sel sel;
};

/* counting at another event than block I/O submission */
static bool event_mode(const struct stacks_opts *o)
{
	return o->tp || o->uprobe || o->kfunc;
}

struct stacks_ctx {
	struct stacks_opts *o;
	struct stacks_bpf *sk;
	struct usyms *us;
	struct ksyms ks;
	struct ustacks ust;
	struct json j;
};

static int read_stack(struct stacks_ctx *sc, int id, uint64_t *ips)
{
	return frames__read(bpf_map__fd(sc->sk->maps.stackmap), id, ips, STACKS_DEPTH);
}

static bool key_ustack(const void *key, uint32_t *pid, int32_t *id)
{
	const struct stacks_key *k = key;

	*pid = k->pid;
	*id = k->ustack;
	return true;
}

/* New user stacks named while their processes live. */
static void scan(struct stacks_ctx *sc)
{
	ustacks__scan(&sc->ust, sc->us, bpf_map__fd(sc->sk->maps.counts), sizeof(struct stacks_key), key_ustack,
		      bpf_map__fd(sc->sk->maps.stackmap), STACKS_DEPTH);
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

static void print_folded(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
			 const struct frames *uf)
{
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)];

	/* root first: the process, its user frames outermost first, then the kernel's */
	text__safe(e->k.comm, comm, sizeof(comm));
	for (char *p = comm; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	printf("%s", comm);
	for (int i = uf ? uf->n - 1 : -1; i >= 0; i--)
		uf->f[i].sym ? printf(";%s", uf->f[i].sym) : printf(";[0x%llx]", (unsigned long long)uf->f[i].addr);
	for (int i = kf->n - 1; i >= 0; i--)
		kf->f[i].sym ? printf(";%s_[k]", kf->f[i].sym) : printf(";[0x%llx]_[k]", (unsigned long long)kf->f[i].addr);
	printf(" %llu\n", (unsigned long long)e->v.count);
}

/* The stack into the flame graph: process, user frames, kernel frames, root first. */
static int flame_add(struct flame *fl, const struct entry *e, const struct frames *kf, const struct frames *uf)
{
	int n = 1 + (uf ? uf->n : 0) + kf->n, k = 0, err;
	const char **names = calloc(n, sizeof(*names));
	unsigned char *kernel = calloc(n, 1);
	char **own = calloc(n, sizeof(*own));

	if (!names || !kernel || !own) {
		err = -ENOMEM;
		goto out;
	}
	names[k++] = e->k.comm;
	for (int i = uf ? uf->n - 1 : -1; i >= 0; i--, k++)
		if (!(names[k] = uf->f[i].sym)) {
			if (asprintf(&own[k], "[0x%llx]", (unsigned long long)uf->f[i].addr) < 0)
				own[k] = NULL;
			names[k] = own[k] ? own[k] : "?";
		}
	for (int i = kf->n - 1; i >= 0; i--, k++) {
		kernel[k] = 1;
		if (!(names[k] = kf->f[i].sym)) {
			if (asprintf(&own[k], "[0x%llx]", (unsigned long long)kf->f[i].addr) < 0)
				own[k] = NULL;
			names[k] = own[k] ? own[k] : "?";
		}
	}
	err = flame__add(fl, names, kernel, k, e->v.count);
out:
	for (int i = 0; own && i < n; i++)
		free(own[i]);
	free(own);
	free(names);
	free(kernel);
	return err;
}

/* ---- a stack's row, declared once (fields.h): block submission or any event ---- */

enum { M_EVENT = 1, M_BLOCK = 2 };

struct stack_view {
	const struct entry *e;
	const struct frames *kf, *uf;
};

#define STV(row) ((const struct stack_view *)(row))

static void g_count(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->v.count;
}

static void g_bytes(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->v.bytes;
}

static void g_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->k.pid;
}

static void g_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = STV(row)->e->k.comm;
}

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (STV(row)->e->k.dev) {
		v->k = V_STR;
		v->s = disks__name(STV(row)->e->k.dev);
	}
}

static void j_kernel(struct json *j, const void *row, const struct fctx *c)
{
	frames__json_array(STV(row)->kf, j);
}

static void j_user(struct json *j, const void *row, const struct fctx *c)
{
	frames__json_array(STV(row)->uf, j);
}

static void g_cut(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = STV(row)->uf->cut;
}

static void j_q2c(struct json *j, const void *row, const struct fctx *c)
{
	json__obj_begin(j);
	hist__json(&STV(row)->e->v.lat, j);
	json__obj_end(j);
}

static const struct field stack_fields[] = {
	{ "count", FS_GET, .get = g_count, .flags = FL_INT },
	{ "bytes", FS_GET, .get = g_bytes, .flags = FL_INT },
	{ "pid", FS_GET, .get = g_pid, .flags = FL_INT },
	{ "comm", FS_GET, .get = g_comm, .flags = FL_STR },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR | FL_NULLABLE },
	{ "kernel", FS_JSON, .jput = j_kernel, .flags = FL_ARRAY },
	{ "user", FS_JSON, .jput = j_user, .flags = FL_ARRAY },
	{ "user_cut_short", FS_GET, .get = g_cut, .flags = FL_BOOL },
	/* block: each bio from submission to its end */
	{ "q2c", FS_JSON, .jput = j_q2c, .flags = FL_OBJECT, .only = M_BLOCK },
};

const struct rec stack_rec = REC("stack", "stack", "stacks: one (process, kernel stack, user stack, disk) and what was "
				 "counted at it; q2c for block submission: its bios' time from submission to their end "
				 "(a histogram's fields)", stack_fields);

static void print_entry(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
			const struct frames *uf)
{
	static const struct frames none = { .user = true };
	const struct stacks_opts *o = sc->o;
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)];

	if (!uf)
		uf = &none;
	if (o->c.json) {
		struct stack_view v = { e, kf, uf };
		struct fctx c = { .mode = event_mode(o) ? M_EVENT : M_BLOCK };

		fields__json(&sc->j, &stack_rec, &v, &c);
		return;
	}
	frames__text(kf, stdout, "    ");
	if (kf->n && uf->n)
		printf("    --\n");
	frames__text(uf, stdout, "    ");
	printf("  %s [%u]%s%s: %llu", text__safe(e->k.comm, comm, sizeof(comm)), e->k.pid,
	       e->k.dev ? " on " : "", e->k.dev ? disks__name(e->k.dev) : "", (unsigned long long)e->v.count);
	if (event_mode(o)) {
		printf(" events\n\n");
	} else {
		char p50[32], p99[32], max[32];

		printf(" bios, %llu bytes", (unsigned long long)e->v.bytes);
		if (e->v.lat.count)
			printf("; Q2C p50 %s p99 %s max %s", fmt_ns(p50, sizeof(p50), hist__percentile(&e->v.lat, 0.5)),
			       fmt_ns(p99, sizeof(p99), hist__percentile(&e->v.lat, 0.99)),
			       fmt_ns(max, sizeof(max), e->v.lat.max));
		printf("\n\n");
	}
}

struct stacks_values {
	struct stacks_stats st;
	uint64_t stacks, shown, user_unresolved, untimed, user_after_exit, mmap_lost;
};

#define SV(f) offsetof(struct stacks_values, f)
/* mode 1: any event; 2: block submission (bios are timed to their end) */
static const struct counter stacks_counters[] = {
	{ "events", SV(st.events), "%llu events" },
	{ "stacks", SV(stacks), "%llu distinct stacks" },
	{ "shown", SV(shown), "%llu shown" },
	{ "kstack_lost", SV(st.kstack_lost), "lost: %llu kernel stacks" },
	{ "ustack_lost", SV(st.ustack_lost), "%llu user stacks" },
	{ "map_full", SV(st.map_full), "%llu events (table full)" },
	{ "user_unresolved", SV(user_unresolved), "%llu user stacks unresolved (process gone)" },
	{ "user_after_exit", SV(user_after_exit), "%llu processes gone before their first stack scan, "
						  "named from the mappings the kernel reported" },
	{ "mmap_lost", SV(mmap_lost), "lost: %llu mapping records (some gone processes stay unnamed)" },
	{ "untimed", SV(untimed), "%llu bios not timed (their end not seen: still in flight, or a completion "
				  "the kernel ran no program for)", 2 },
	{ "inflight_full", SV(st.inflight_full), "%llu of them for want of room", 2 },
	{ "unmatched", SV(st.unmatched), "%llu bio ends whose submission was before the start", 2 },
};

static const struct field summary_fields[] = {
	{ "counters", FS_COUNTERS, 0, .sub = stacks_counters, .nsub = COUNTERS_N(stacks_counters) },
};

const struct rec stacks_summary_rec = REC("summary", "stacks.summary", "stacks: the counters of a run (untimed, "
					  "inflight_full and unmatched: block submission only, else null)", summary_fields);

static int report(struct stacks_ctx *sc)
{
	int fd = bpf_map__fd(sc->sk->maps.counts);
	struct stacks_key k, next, *prev = NULL;
	struct entry *es = NULL;
	size_t n = 0, cap = 0, shown;
	uint64_t kips[STACKS_DEPTH];
	struct stacks_stats st = sc->sk->bss->stats;
	struct stacks_values v;
	bool block = !event_mode(sc->o);

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
	if (sc->o->svg) {	/* every stack, whatever -n says */
		struct flame fl;
		FILE *f;
		int err = flame__init(&fl);
		char title[256];

		for (size_t i = 0; !err && i < n; i++) {
			const struct frames *u = ustacks__find(&sc->ust, es[i].k.pid, es[i].k.ustack);
			struct frames kf;

			frames__kernel(&kf, &sc->ks, kips, read_stack(sc, es[i].k.kstack, kips));
			err = flame_add(&fl, &es[i], &kf, u);
			frames__free(&kf);
		}
		snprintf(title, sizeof(title), "iodig stacks: %s", sc->o->tp ? sc->o->tp : sc->o->uprobe ? sc->o->uprobe : sc->o->kfunc ? sc->o->kfunc
			 : "block I/O submission");
		if (!err && (f = fopen(sc->o->svg, "w"))) {
			err = flame__svg(&fl, f, title, event_mode(sc->o) ? "events" : "bios", 1200);
			if (fclose(f) && !err)
				err = -errno;
		} else if (!err) {
			err = -errno;
		}
		flame__free(&fl);
		if (err) {
			free(es);
			return fail(sc->o->svg, "%s", strerror(-err));
		}
	}
	shown = sc->o->top && sc->o->top < n ? sc->o->top : n;
	if (sc->o->folded)
		shown = n;
	/* text: the largest last, nearest the prompt, as stackcount does */
	for (size_t x = 0; x < shown; x++) {
		size_t i = sc->o->folded || sc->o->c.json ? x : shown - 1 - x;
		const struct frames *u = ustacks__find(&sc->ust, es[i].k.pid, es[i].k.ustack);
		struct frames kf;

		frames__kernel(&kf, &sc->ks, kips, read_stack(sc, es[i].k.kstack, kips));
		if (sc->o->folded)
			print_folded(sc, &es[i], &kf, u);
		else
			print_entry(sc, &es[i], &kf, u);
		frames__free(&kf);
	}
	v = (struct stacks_values){ .st = st, .stacks = n, .shown = shown, .user_unresolved = sc->ust.unresolved };
	if (sc->us) {
		struct usyms_stats us;

		usyms__stats(sc->us, &us);
		v.user_after_exit = us.from_maps;
		v.mmap_lost = us.maps_lost;
	}
	for (size_t i = 0; i < n; i++)
		v.untimed += es[i].v.count - es[i].v.lat.count;
	if (sc->o->c.json) {
		struct fctx c = { .mode = block ? 2 : 1 };

		fields__json(&sc->j, &stacks_summary_rec, &v, &c);
	} else {
		counters__sentence(stderr, stacks_counters, COUNTERS_N(stacks_counters), &v, block ? 2 : 1);
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
	case OPT_SVG: o->svg = arg; return 0;
	case OPT_TP: o->tp = arg; return 0;
	case OPT_UPROBE: o->uprobe = arg; return 0;
	case OPT_KFUNC: o->kfunc = arg; return 0;
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
		{ "kfunc", OPT_KFUNC, "FUNC", "count at this kernel function (or glob) instead, where the kernel\n"
					      "allows (fentry or kprobes: `iodig probe` says)" },
		{ "pid", 'p', "PID", "only this process" },
		{ "disk", 'd', "DISK", "block I/O: only this disk (or partition)" },
		{ "cgroup", 'c', "CGROUP", "block I/O: only I/O charged to this cgroup" },
		{ "top", 'n', "N", "the N most frequent stacks, text and JSON (default 20; 0: all)" },
		{ "folded", OPT_FOLDED, NULL, "one line per stack, frame;frame;... count, root first (flame graph input)" },
		{ "svg", OPT_SVG, "FILE", "also write a flame graph: one self-contained, interactive SVG" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "stacks",
		.synopsis = "[options] [seconds]",
		.about = "Kernel and user stacks counted where block I/O is submitted (biostacks): which\n"
			 "code paths issue the I/O, with each stack's bios and bytes.  --tracepoint,\n"
			 "--uprobe or --kfunc count at another event (stackcount, trace -K -U).  Runs for the seconds\n"
			 "given, or until Ctrl-C.  User frames are named while their process lives;\n"
			 "stacks of binaries without frame pointers (most of Debian) are marked when\n"
			 "they stop before the program's entry.\n",
		.opts = opts, .opt = stacks_opt, .args = stacks_args, .tracing = true };
	struct stacks_opts o = { .top = 20 };
	struct stacks_ctx sc = { .o = &o };
	struct bpf_link *link = NULL;
	struct attacher at = {};
	struct attach_progs kprogs;
	char **knames = NULL;
	int nk = 0;
	uint64_t cgid = 0, end;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.kernel_only && o.user_only)
		return usage_error("-K and -U together: leave both out for both stacks");
	if (!!o.tp + !!o.uprobe + !!o.kfunc > 1)
		return usage_error("one of --tracepoint, --uprobe and --kfunc");
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
	bpf_program__set_autoload(sc.sk->progs.stacks_bio, !event_mode(&o));
	bpf_program__set_autoload(sc.sk->progs.stacks_rq_done, !event_mode(&o));
	bpf_program__set_autoload(sc.sk->progs.stacks_tp, !!o.tp);
	bpf_program__set_autoload(sc.sk->progs.stacks_uprobe, !!o.uprobe);
	kprogs = (struct attach_progs){ .entry = { [ATTACH_FENTRY] = sc.sk->progs.stacks_fentry,
						   [ATTACH_KPROBE] = sc.sk->progs.stacks_kprobe,
						   [ATTACH_KPROBE_MULTI] = sc.sk->progs.stacks_kmulti } };
	if (o.kfunc) {
		char *pat = (char *)o.kfunc;

		if ((err = attach__resolve_kernel(&pat, 1, &knames, &nk)) ||
		    (err = attacher__choose(&at, ATTACH_AUTO, nk, false)))
			goto out;
		attacher__select(&at, sc.sk->obj, &kprogs, knames[0]);	/* only its program loads */
	} else {
		bpf_program__set_autoload(sc.sk->progs.stacks_fentry, false);
		bpf_program__set_autoload(sc.sk->progs.stacks_kprobe, false);
		bpf_program__set_autoload(sc.sk->progs.stacks_kmulti, false);
	}
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
	} else if (o.kfunc) {
		if ((err = attacher__kernel(&at, &kprogs, knames, nk)))
			goto out;
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
	attacher__destroy(&at);
	stacks_bpf__detach(sc.sk);
	bpfenv__wait_programs();
	if (!o.kernel_only)
		scan(&sc);
	err = report(&sc);
	if (!err)
		err = run__flush() ? 1 : 0;
out:
	bpf_link__destroy(link);
	attacher__destroy(&at);
	attach__free_names(knames, nk);
	stacks_bpf__destroy(sc.sk);
	usyms__free(sc.us);
	ksyms__free(&sc.ks);
	ustacks__free(&sc.ust);
	return err;
}

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
#include "flame.h"
#include "frames.h"
#include "filter.h"
#include "json.h"
#include "ksyms.h"
#include "log.h"
#include "run.h"
#include "stacks.h"
#include "stacks.skel.h"
#include "text.h"
#include "usyms.h"

enum { OPT_TP = OPT_FIRST_CMD, OPT_UPROBE, OPT_FOLDED, OPT_SVG };

struct stacks_opts {
	struct cli_common c;
	bool kernel_only, user_only, folded;
	const char *tp, *uprobe, *disk, *cgroup, *svg;
	unsigned long long pid, top, duration;
	struct disk_sel sel;
};

/* A user stack, named once (while its process lived). */
struct ustack {
	uint32_t pid;
	int32_t id;
	struct frames fr;
};

struct stacks_ctx {
	struct stacks_opts *o;
	struct stacks_bpf *sk;
	struct usyms *us;
	struct ksyms ks;
	struct ustack *ust;
	size_t nust, capust;
	struct json j;
	uint64_t unresolved;	/* user stacks whose process was gone before a lookup */
};

static int cmp_ust(const void *a, const void *b)
{
	const struct ustack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* In the first `sorted` entries by bisection, in the rest one by one. */
static struct ustack *ust_find_in(struct stacks_ctx *sc, size_t sorted, uint32_t pid, int32_t id)
{
	struct ustack k = { .pid = pid, .id = id }, *u;

	if (sorted && (u = bsearch(&k, sc->ust, sorted, sizeof(k), cmp_ust)))
		return u;
	for (size_t i = sorted; i < sc->nust; i++)
		if (!cmp_ust(&sc->ust[i], &k))
			return &sc->ust[i];
	return NULL;
}

static struct ustack *ust_find(struct stacks_ctx *sc, uint32_t pid, int32_t id)
{
	return ust_find_in(sc, sc->nust, pid, id);
}

static int read_stack(struct stacks_ctx *sc, int id, uint64_t *ips)
{
	return frames__read(bpf_map__fd(sc->sk->maps.stackmap), id, ips, STACKS_DEPTH);
}

/* New user stacks named while their processes live. */
static void scan(struct stacks_ctx *sc)
{
	int fd = bpf_map__fd(sc->sk->maps.counts);
	struct stacks_key k, next, *prev = NULL;
	uint64_t ips[STACKS_DEPTH];
	size_t sorted = sc->nust;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct ustack u;
		int n;

		k = next;
		prev = &k;
		if (k.ustack < 0 || !k.pid || ust_find_in(sc, sorted, k.pid, k.ustack))
			continue;
		n = read_stack(sc, k.ustack, ips);
		u = (struct ustack){ .pid = k.pid, .id = k.ustack };
		frames__user(&u.fr, sc->us, k.pid, ips, n);
		if (n && !u.fr.f[0].sym && !u.fr.f[0].where)
			sc->unresolved++;	/* gone before its first lookup: addresses */
		if (sc->nust == sc->capust) {
			void *p = realloc(sc->ust, (sc->capust = sc->capust ? 2 * sc->capust : 64) * sizeof(u));

			if (!p) {
				frames__free(&u.fr);
				break;
			}
			sc->ust = p;
		}
		sc->ust[sc->nust++] = u;
	}
	if (sc->nust > sorted)
		qsort(sc->ust, sc->nust, sizeof(*sc->ust), cmp_ust);
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

static void print_entry(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
			const struct frames *uf)
{
	static const struct frames none = { .user = true };
	const struct stacks_opts *o = sc->o;
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)];

	if (!uf)
		uf = &none;
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
		frames__json(kf, &sc->j, "kernel");
		frames__json(uf, &sc->j, "user");
		json__kbool(&sc->j, "user_cut_short", uf->cut);
		json__obj_end(&sc->j);
		return;
	}
	frames__text(kf, stdout, "    ");
	if (kf->n && uf->n)
		printf("    --\n");
	frames__text(uf, stdout, "    ");
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
	uint64_t kips[STACKS_DEPTH];
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
	if (sc->o->svg) {	/* every stack, whatever -n says */
		struct flame fl;
		FILE *f;
		int err = flame__init(&fl);
		char title[256];

		for (size_t i = 0; !err && i < n; i++) {
			const struct ustack *u = ust_find(sc, es[i].k.pid, es[i].k.ustack);
			struct frames kf;

			frames__kernel(&kf, &sc->ks, kips, read_stack(sc, es[i].k.kstack, kips));
			err = flame_add(&fl, &es[i], &kf, u ? &u->fr : NULL);
			frames__free(&kf);
		}
		snprintf(title, sizeof(title), "iodig stacks: %s", sc->o->tp ? sc->o->tp : sc->o->uprobe ? sc->o->uprobe
			 : "block I/O submission");
		if (!err && (f = fopen(sc->o->svg, "w"))) {
			err = flame__svg(&fl, f, title, sc->o->tp || sc->o->uprobe ? "events" : "bios", 1200);
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
		const struct ustack *u = ust_find(sc, es[i].k.pid, es[i].k.ustack);
		struct frames kf;

		frames__kernel(&kf, &sc->ks, kips, read_stack(sc, es[i].k.kstack, kips));
		if (sc->o->folded)
			print_folded(sc, &es[i], &kf, u ? &u->fr : NULL);
		else
			print_entry(sc, &es[i], &kf, u ? &u->fr : NULL);
		frames__free(&kf);
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
			"%llu user stacks, %llu events (table full); %llu user stacks unresolved (process gone)\n",
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
	case OPT_SVG: o->svg = arg; return 0;
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
		{ "svg", OPT_SVG, "FILE", "also write a flame graph: one self-contained, interactive SVG" },
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
	for (size_t i = 0; i < sc.nust; i++)
		frames__free(&sc.ust[i].fr);
	free(sc.ust);
	return err;
}

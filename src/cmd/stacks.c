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
#include "kfeatures.h"
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
#include "stacks_int.h"
#include "stacks.skel.h"
#include "text.h"
#include "usyms.h"
#include "sort.h"

enum { OPT_TP = OPT_FIRST_CMD, OPT_UPROBE, OPT_KFUNC, OPT_FOLDED, OPT_SVG, OPT_WALK_EACH };

static int read_stack(struct stacks_ctx *sc, int id, uint64_t *ips)
{
	return frames__read(bpfenv__ustack_fd(sc->sk->rodata->kstack_keep, sc->sk->maps.kstackmap, sc->sk->maps.stackmap),
			    id, ips, STACKS_DEPTH);
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
		      bpfenv__ustack_fd(sc->sk->rodata->ustack_walk, sc->sk->maps.ustackmap, sc->sk->maps.stackmap),
		      STACKS_DEPTH);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->v.count != y->v.count ? (x->v.count > y->v.count ? -1 : 1)
					: (x->v.bytes > y->v.bytes ? -1 : x->v.bytes < y->v.bytes);
}

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
	unsigned mode;

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
	sort__any(es, n, sizeof(*es), cmp_entry);
	if (sc->o->svg) {	/* every stack, whatever -n says */
		struct flame fl;
		FILE *f;
		int err = flame__init(&fl);
		char title[256];

		for (size_t i = 0; !err && i < n; i++) {
			const struct frames *u = ustacks__find(&sc->ust, es[i].k.pid, es[i].k.ustack);
			struct frames kf;

			frames__kernel(&kf, &sc->ks, kips, read_stack(sc, es[i].k.kstack, kips));
			err = stacks__flame_add(&fl, &es[i], &kf, u);
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
		stacks__entry(sc, &es[i], &kf, u, sc->o->folded);
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
	mode = (block ? 2 : 1) | (sc->sk->rodata->kmemo_on && !bpfenv__kmemo_stats(sc->sk->maps.kmemo_cpu, &v.km) ? 4 : 0);
	if (sc->o->c.json) {
		struct fctx c = { .mode = mode };

		fields__json(&sc->j, &stacks_summary_rec, &v, &c);
	} else {
		counters__sentence(stderr, stacks_counters, COUNTERS_N(stacks_counters), &v, mode);
	}
	free(es);
	return 0;
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
		{ "kernel", 'K', NULL, "kernel stacks only", CLI_FLAG_AT(struct stacks_opts, kernel_only) },
		{ "user", 'U', NULL, "user stacks only", CLI_FLAG_AT(struct stacks_opts, user_only) },
		{ "tracepoint", OPT_TP, "CAT:NAME", "count at this tracepoint instead of block I/O submission", CLI_STR_AT(struct stacks_opts, tp) },
		{ "uprobe", OPT_UPROBE, "BINARY:SYMBOL", "count at this user function instead", CLI_STR_AT(struct stacks_opts, uprobe) },
		{ "kfunc", OPT_KFUNC, "FUNC", "count at this kernel function (or glob) instead, where the kernel\n"
					      "allows (fentry or kprobes: `iodig probe` says)", CLI_STR_AT(struct stacks_opts, kfunc) },
		{ "pid", 'p', "PID", "only this process", CLI_UINT_AT(struct stacks_opts, pid, 1, 0x7fffffff, "a process id") },
		{ "disk", 'd', "DISK", "block I/O: only this disk (or partition)", CLI_STR_AT(struct stacks_opts, disk) },
		{ "cgroup", 'c', "CGROUP", "block I/O: only I/O charged to this cgroup", CLI_STR_AT(struct stacks_opts, cgroup) },
		{ "top", 'n', "N", "the N most frequent stacks, text and JSON (default 20; 0: all)", CLI_UINT_AT(struct stacks_opts, top, 0, 1000000, "a number of stacks (0: all)") },
		{ "folded", OPT_FOLDED, NULL, "one line per stack, frame;frame;... count, root first (flame graph input)", CLI_FLAG_AT(struct stacks_opts, folded) },
		{ "walk-each", OPT_WALK_EACH, NULL, "walk the kernel stack at every event (default, at block I/O and\n"
						      "--tracepoint: once for each call path, then taken from a memo while its\n"
						      "return addresses match; one use in 64 walked again to check)",
		  CLI_FLAG_AT(struct stacks_opts, walk_each) },
		{ "svg", OPT_SVG, "FILE", "also write a flame graph: one self-contained, interactive SVG", CLI_STR_AT(struct stacks_opts, svg) },
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
		.opts = opts, .args = stacks_args, .tracing = true,
		.privileges = "User frames of other users' processes are named only with CAP_SYS_PTRACE (their\n"
			 "/proc/PID/maps); without it they are counted as unresolved.\n" };
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
	if ((err = filter__io(o.pid, o.disk, &o.sel, o.cgroup, &cgid)))
		return err;
	json__init(&sc.j, stdout);
	if (!o.user_only && (err = ksyms__load(&sc.ks, NULL)))
		return fail("reading /proc/kallsyms", "%s", strerror(-err));
	sc.us = usyms__new();
	if ((err = kfeatures__need(NEED_LOOP, "stacks")))
		goto out;
	sc.sk = stacks_bpf__open_opts(bpfenv__open_opts());
	if (!sc.us || !sc.sk) {
		err = bpfenv__fail("opening BPF object", -errno);
		goto out;
	}
	sc.sk->rodata->targ_kernel = !o.user_only;
	sc.sk->rodata->targ_user = !o.kernel_only;
	bpfenv__grow_as_used(sc.sk->maps.counts);	/* a key a new path or process */
	/* user stacks walked by the program where it can (ustack.bpf.h), in
	 * their own map; else in the stack map with the kernel's */
	bpfenv__ustack_setup(&sc.sk->rodata->ustack_walk, !o.kernel_only, sc.sk->maps.ustackmap);
	/* kernel stacks kept by a hash of their frames where it can
	 * (ustack.bpf.h); at block submission and --tracepoint a walk for each
	 * path (kmemo.bpf.h), and with --walk-each at each event, into the
	 * same map */
	bpfenv__ustack_setup(&sc.sk->rodata->kstack_keep, !o.user_only, sc.sk->maps.kstackmap);
	sc.sk->rodata->kmemo_on = sc.sk->rodata->kstack_keep && !o.uprobe && !o.kfunc;
	sc.sk->rodata->kmemo_each = o.walk_each;
	bpfenv__stackmap_trim(sc.sk->maps.stackmap, !o.user_only, sc.sk->rodata->kstack_keep, !o.kernel_only,
			      sc.sk->rodata->ustack_walk);
	sc.sk->rodata->filter_pid = o.pid;
	sc.sk->rodata->filter_dev = o.sel.disk;
	sc.sk->rodata->filter_part = o.sel.part;
	sc.sk->rodata->filter_cgroup = cgid;
	bpfenv__set_tp_leads(sc.sk->obj, NULL);
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
	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
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
	} else if ((err = bpfenv__attach(sc.sk->skeleton))) {
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
	attach__detach_skeleton(sc.sk->skeleton);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig why: attaching to the system calls asked for (the raw sys_enter and
 * sys_exit, or with --syscall-events one tracepoint pair each where the
 * kernel has them all), or to --call's function and --into's children
 * through the attach layer.
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
#include "disks.h"
#include "log.h"
#include "why_int.h"
#include "why.skel.h"

int why__set_syscalls(struct why_bpf *sk, const char *list)
{
	char buf[1024], *save, *name;

	if (!list) {
		for (int i = 0; i < NSYSC; i++)
			sk->rodata->targ_args[why_syscalls[i].nr] = why_syscalls[i].args;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < NSYSC && strcmp(why_syscalls[i].name, name); i++)
			;
		if (i == NSYSC)
			return usage_error("--syscalls: '%s' is not a file-system call iodig knows "
					   "(see iodig why --help)", name);
		sk->rodata->targ_args[why_syscalls[i].nr] = why_syscalls[i].args;
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
 * Before load: the way into the chosen calls.  The raw sys_enter/sys_exit:
 * every call on the machine runs a program that leaves at the table (+90 ns
 * a getppid(2) on 6.18), a traced call's costs less than through its event,
 * and two links detach at once.  With --syscall-events, each call's own
 * tracepoints where the kernel has them all: a call iodig does not trace runs
 * no BPF (+40 ns), but each of the 66 events waits for grace periods under
 * the kernel's event_mutex as it goes (3 s on 6.18).  --call uses neither.
 */
void why__sc_choose(struct why_ctx *wc)
{
	struct why_bpf *sk = wc->skel;

	wc->raw = !wc->o->sc_events;
	if (!wc->o->call && !wc->raw) {
		bpfenv__tracefs();
		for (int i = 0; i < NSYSC; i++)
			if (sk->rodata->targ_args[why_syscalls[i].nr] != WA_NONE && !sc_event_exists(sc_event(&why_syscalls[i]))) {
				debugf("no syscalls:sys_enter_%s event: raw syscall tracepoints", sc_event(&why_syscalls[i]));
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
int why__sc_attach(struct why_ctx *wc)
{
	struct why_bpf *sk = wc->skel;
	char event[64];

	if (wc->o->call || wc->raw)
		return 0;
	for (int i = 0; i < NSYSC; i++) {
		if (sk->rodata->targ_args[why_syscalls[i].nr] == WA_NONE)
			continue;
		for (int exit = 0; exit < 2; exit++) {
			struct bpf_link *l;

			snprintf(event, sizeof(event), "sys_%s_%s", exit ? "exit" : "enter", sc_event(&why_syscalls[i]));
			l = bpf_program__attach_tracepoint(exit ? sk->progs.why_sc_exit
								: sc_enter_prog(sk, arity[why_syscalls[i].args]),
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
 * Detach from the syscall events (--syscall-events).  Each detach waits for
 * grace periods under the kernel's event_mutex (6.18: 66 links took 5.2 s one
 * after another, 2.9 s side by side), so it happens after the summary is
 * out, the programs stopped by a flag before.
 */
void why__sc_detach(struct why_ctx *wc)
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
int why__fn_select(struct why_ctx *wc)
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
int why__fn_attach(struct why_ctx *wc, uint32_t pid)
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


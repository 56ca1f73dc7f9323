// SPDX-License-Identifier: GPL-2.0
/* What this kernel lets iodig attach with, each mechanism tried for real
 * (a tiny program loaded and attached), once per process. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "log.h"
#include "kfeatures.h"
#include "func.h"
#include "func.skel.h"

static void load_only(struct func_bpf *sk, struct bpf_program *a, struct bpf_program *b)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, sk->obj)
		bpf_program__set_autoload(p, p == a || p == b);
}

/* Why a feature is missing, as probe and func errors say it. */
static void say_why(char *buf, size_t len, const char *what, int err)
{
	if (err < 0)
		err = -err;
	snprintf(buf, len, "%s: %s", what, strerror(err));
}

/* A well-known, always-present kernel function to try attaching to. */
#define PROBE_FUNC "vfs_read"

static bool try_fentry(char *w, size_t len)
{
	struct func_bpf *sk = func_bpf__open_opts(bpfenv__open_opts());
	int err;

	if (!sk)
		return say_why(w, len, "open", -errno), false;
	load_only(sk, sk->progs.func_fentry, NULL);
	err = func_bpf__load(sk);
	if (err)
		say_why(w, len, "BPF trampolines refused at load", err);
	else if ((err = bpfenv__attach(sk->skeleton)))
		say_why(w, len, "BPF trampolines refused at attach", err);
	func_bpf__destroy(sk);
	return !err;
}

static bool try_kprobe(bool multi, char *w, size_t len)
{
	struct func_bpf *sk = func_bpf__open_opts(bpfenv__open_opts());
	struct bpf_program *p;
	struct bpf_link *link = NULL;
	int err;

	if (!sk)
		return say_why(w, len, "open", -errno), false;
	p = multi ? sk->progs.func_kmulti : sk->progs.func_kprobe;
	load_only(sk, p, NULL);
	err = func_bpf__load(sk);
	if (err) {
		say_why(w, len, "load", err);
		goto out;
	}
	if (multi) {
		const char *syms[] = { PROBE_FUNC };
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cnt = 1);

		link = bpf_program__attach_kprobe_multi_opts(p, NULL, &o);
	} else {
		link = bpf_program__attach_kprobe(p, false, PROBE_FUNC);
	}
	if (!link) {
		err = -errno;
		if (!multi && access("/sys/bus/event_source/devices/kprobe", F_OK))
			snprintf(w, len, "no kprobe PMU (kernel built without CONFIG_KPROBES)");
		else
			say_why(w, len, multi ? "kprobe-multi attach" : "kprobe attach", err);
	}
out:
	bpf_link__destroy(link);
	func_bpf__destroy(sk);
	return link != NULL;
}

/* What try_uprobe attaches to: a function of iodig itself. */
__attribute__((noinline, used)) int iodig_uprobe_target(void)
{
	asm volatile("");
	return 0;
}

static bool try_uprobe(char *w, size_t len)
{
	struct func_bpf *sk = func_bpf__open_opts(bpfenv__open_opts());
	struct bpf_link *link = NULL;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = "iodig_uprobe_target");
	int err;

	if (!sk)
		return say_why(w, len, "open", -errno), false;
	load_only(sk, sk->progs.func_uprobe, NULL);
	err = func_bpf__load(sk);
	if (err)
		say_why(w, len, "load", err);
	else if (!(link = bpf_program__attach_uprobe_opts(sk->progs.func_uprobe, getpid(),
							  "/proc/self/exe", 0, &o)))
		say_why(w, len, "uprobe attach", -errno);
	bpf_link__destroy(link);
	func_bpf__destroy(sk);
	(void)iodig_uprobe_target();
	return link != NULL;
}

/* atomic_fetch_add on the stack (BPF_ATOMIC | BPF_FETCH, 5.12): older
 * verifiers refuse the instruction wherever it is, even where not reached */
static bool try_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_0, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static const struct {
	const char *what, *since;
} needs[NEED_N] = {
	[NEED_ATOMIC_FETCH] = { "BPF atomic fetch instructions", "5.12" },
	[NEED_TASK_STORAGE] = { "BPF task storage", "5.11" },
	[NEED_LOOP] = { "bpf_loop()", "5.17" },
	[NEED_COOKIE] = { "BPF cookies", "5.15" },
};

bool kfeatures__has(enum kneed n)
{
	static signed char known[NEED_N];	/* 0 not tried, 1 yes, -1 no */

	if (!known[n]) {
		bool y = false;

		switch (n) {
		case NEED_ATOMIC_FETCH: y = try_atomic_fetch(); break;
		case NEED_TASK_STORAGE: y = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1; break;
		case NEED_LOOP: y = libbpf_probe_bpf_helper(BPF_PROG_TYPE_SOCKET_FILTER, BPF_FUNC_loop, NULL) == 1; break;
		case NEED_COOKIE:
			y = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL) == 1;
			break;
		default: break;
		}
		known[n] = y ? 1 : -1;
		bpfenv__forget_msg();
	}
	return known[n] > 0;
}

int kfeatures__need(enum kneed n, const char *cmd)
{
	struct utsname u;

	if (kfeatures__has(n))
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return fail("kernel", "%s needs %s (Linux %s); this kernel (%s) has none: `iodig probe` says what works here",
		    cmd, needs[n].what, needs[n].since, u.release);
}

static void probe_all(struct features *f)
{
	memset(f, 0, sizeof(*f));
	f->btf = bpfenv__have_btf();
	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	f->cookie = kfeatures__has(NEED_COOKIE);
	f->atomic_fetch = kfeatures__has(NEED_ATOMIC_FETCH);
	f->task_storage = kfeatures__has(NEED_TASK_STORAGE);
	f->loop = kfeatures__has(NEED_LOOP);
	f->bpf_stats = access("/proc/sys/kernel/bpf_stats_enabled", F_OK) == 0;
	f->tp_btf = f->btf;	/* iodig's block commands load tp_btf; they fail loudly if not */
	if (!f->btf) {
		snprintf(f->why_fentry, sizeof(f->why_fentry), "no kernel BTF");
		return;
	}
	f->fentry = try_fentry(f->why_fentry, sizeof(f->why_fentry));
	f->kprobe = try_kprobe(false, f->why_kprobe, sizeof(f->why_kprobe));
	f->kprobe_multi = try_kprobe(true, f->why_kprobe_multi, sizeof(f->why_kprobe_multi));
	f->uprobe = try_uprobe(f->why_uprobe, sizeof(f->why_uprobe));
	bpfenv__forget_msg();	/* refusals expected here are no later failure's reason */
}

const struct features *features__get(void)
{
	static struct features f;
	static bool probed;

	if (!probed) {
		probe_all(&f);
		probed = true;
	}
	return &f;
}

long long kfeatures__steal_off(const struct btf *vmlinux)
{
	static const char *const vars[] = { "steal_time", "runqueues" };
	long long off[2];

	if (!vmlinux || !bpfenv__has_member(vmlinux, "sched_entity", "cfs_rq") ||
	    !bpfenv__has_member(vmlinux, "cfs_rq", "rq") || !bpfenv__has_member(vmlinux, "kvm_steal_time", "steal") ||
	    bpfenv__percpu_offs(vars, 2, off) || off[0] < 0 || off[1] < 0)
		return 0;
	return off[0] - off[1];
}

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig exec: execve and execveat, at their own syscall tracepoints.  The
 * arguments are read at entry (the old image's memory is gone at a
 * successful return), kept per thread, and sent with the return value, the
 * new comm and the parent at exit, so failed execs are shown too.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "exec.h"
#include "events.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_max_args = 20;
const volatile bool filter_uid_on = false;
const volatile __u32 filter_uid = 0;
const volatile __u64 filter_cgroup = 0;

struct exec_stats stats;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);			/* tid of the caller */
	__type(value, struct exec_event);
} starts SEC(".maps");

/* the event is 4.4 KB: built here, not on the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_event);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} records SEC(".maps");

static __always_inline bool wanted(void)
{
	if (filter_uid_on && (__u32)bpf_get_current_uid_gid() != filter_uid)
		return false;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	return true;
}

static __always_inline int enter(const char *path, const char *const *argv)
{
	__u32 zero = 0, tid = (__u32)bpf_get_current_pid_tgid();
	struct exec_event *e;
	const char *arg;
	__u32 i;

	if (!wanted())
		return 0;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 0;
	e->start = bpf_ktime_get_ns();
	e->tid = tid;
	e->nargs = 0;
	e->args_len = 0;
	e->truncated = 0;
	bpf_probe_read_user_str(e->path, sizeof(e->path), path);
	for (i = 0; i < EXEC_ARGS_MAX && i < targ_max_args; i++) {
		__u32 off = e->args_len;
		long n;

		if (bpf_probe_read_user(&arg, sizeof(arg), &argv[i]) || !arg)
			break;
		if (off > EXEC_ARGS_LEN - EXEC_ARG_LEN) {
			e->truncated = 1;
			break;
		}
		n = bpf_probe_read_user_str(&e->args[off], EXEC_ARG_LEN, arg);
		if (n <= 0)
			break;
		if (n == EXEC_ARG_LEN)
			e->truncated = 1;	/* possibly longer: cut */
		e->args_len = off + n;
		e->nargs++;
	}
	/* one more argument than read: there were more */
	if (i == targ_max_args && !bpf_probe_read_user(&arg, sizeof(arg), &argv[i]) && arg)
		e->truncated = 1;
	if (bpf_map_update_elem(&starts, &tid, e, BPF_ANY))
		__sync_fetch_and_add(&stats.no_entry, 1);
	return 0;
}

static __always_inline int leave(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct task_struct *t;
	struct exec_event *e;

	__sync_fetch_and_add(&stats.seen, 1);
	/* a thread other than the leader that execs returns as the leader */
	e = bpf_map_lookup_elem(&starts, &tid);
	if (!e) {
		if (wanted())
			__sync_fetch_and_add(&stats.no_entry, 1);
		return 0;
	}
	e->type = REC_EXEC;
	e->size = sizeof(*e);
	e->ts = bpf_ktime_get_ns();
	e->ret = ret;
	e->pid = id >> 32;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->cgroup = bpf_get_current_cgroup_id();
	t = (struct task_struct *)bpf_get_current_task();	/* any kernel: probe reads */
	e->ppid = BPF_CORE_READ(t, real_parent, tgid);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	/* the reader is woken only once a quarter of the ring waits: it
	 * takes the rest every 100 ms (a wakeup from here cost the exec'ing
	 * task up to 0.3 ms in a VM, as why's records did) */
	if (bpf_ringbuf_output(&records, e, sizeof(*e), RB_WAKE_PAST(records, 1 << 18)))
		__sync_fetch_and_add(&stats.lost, 1);
	bpf_map_delete_elem(&starts, &tid);
	return 0;
}

SEC("tp/syscalls/sys_enter_execve")
int exec_enter(struct sc_enter *ctx)
{
	return enter((const char *)ctx->args[0], (const char *const *)ctx->args[1]);
}

SEC("tp/syscalls/sys_enter_execveat")
int exec_enter_at(struct sc_enter *ctx)
{
	return enter((const char *)ctx->args[1], (const char *const *)ctx->args[2]);
}

SEC("tp/syscalls/sys_exit_execve")
int exec_exit(struct sc_exit *ctx)
{
	return leave(ctx->ret);
}

SEC("tp/syscalls/sys_exit_execveat")
int exec_exit_at(struct sc_exit *ctx)
{
	return leave(ctx->ret);
}

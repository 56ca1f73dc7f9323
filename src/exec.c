// SPDX-License-Identifier: GPL-2.0
/* iodig exec: every exec on the machine (execsnoop), failures too, with its
 * parent, uid, cgroup and arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "exec.h"
#include "exec.skel.h"
#include "filter.h"
#include "json.h"
#include "log.h"
#include "run.h"
#include "text.h"

enum { OPT_MAX_ARGS = OPT_FIRST_CMD, OPT_NAME };

struct exec_opts {
	struct cli_common c;
	const char *name, *cgroup;
	unsigned long long uid, max_args;
	bool uid_on, failed, timestamp;
};

struct exec_ctx {
	struct exec_opts *o;
	struct json j;
	uint64_t t0;
	struct {
		uint64_t shown, failed, truncated;
	} n;
};

/* What the summary counts; the kernel side's, then the printer's. */
struct exec_counts {
	uint64_t seen, shown, failed, truncated, lost, no_entry;
};

static const struct counter exec_counters[] = {
	{ "seen", offsetof(struct exec_counts, seen), "%llu execs returned", 0 },
	{ "shown", offsetof(struct exec_counts, shown), "%llu shown", 0 },
	{ "failed", offsetof(struct exec_counts, failed), "%llu of them failed", 0 },
	{ "truncated", offsetof(struct exec_counts, truncated), "%llu with arguments cut short", 0 },
	{ "lost", offsetof(struct exec_counts, lost), "%llu lost (ring buffer full)", 0 },
	{ "no_entry", offsetof(struct exec_counts, no_entry), "%llu whose call was not seen (started before tracing, or table full)", 0 },
};

/* The name filter: the new program's comm, or the file asked for (its last
 * component), contains NAME. */
static bool name_wanted(const struct exec_opts *o, const struct exec_event *e)
{
	const char *base;

	if (!o->name)
		return true;
	if (strstr(e->comm, o->name))
		return true;
	base = strrchr(e->path, '/');
	return strstr(base ? base + 1 : e->path, o->name) != NULL;
}

static void print_json(struct exec_ctx *x, const struct exec_event *e)
{
	struct json *j = &x->j;
	char buf[16];
	uint32_t off = 0;

	json__obj_begin(j);
	json__kstr(j, "type", "exec");
	json__ku64(j, "ts_ns", e->ts);
	json__kstr(j, "comm", e->comm);
	json__ku64(j, "pid", e->pid);
	json__ku64(j, "ppid", e->ppid);
	json__ku64(j, "tid", e->tid);
	json__ku64(j, "uid", e->uid);
	json__ku64(j, "cgroup", e->cgroup);
	json__key(j, "ret");
	json__i64(j, e->ret);
	if (e->ret < 0)
		json__kstr(j, "error", text__ret(e->ret, buf, sizeof(buf)));
	else
		json__knull(j, "error");
	json__ku64(j, "latency_ns", e->ts - e->start);
	json__kstr(j, "path", e->path);
	json__key(j, "args");
	json__arr_begin(j);
	for (uint32_t i = 0; i < e->nargs && off < e->args_len && off < EXEC_ARGS_LEN; i++) {
		json__str(j, &e->args[off]);
		off += strnlen(&e->args[off], EXEC_ARGS_LEN - off) + 1;
	}
	json__arr_end(j);
	json__kbool(j, "truncated", e->truncated);
	json__obj_end(j);
}

static void print_text(struct exec_ctx *x, const struct exec_event *e)
{
	char comm[TEXT_SAFE_LEN(EXEC_COMM_LEN)], arg[TEXT_SAFE_LEN(EXEC_ARG_LEN)], buf[16];
	uint32_t off = 0;

	if (x->o->timestamp) {
		time_t now = time(NULL);
		struct tm tm;
		char ts[16];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime_r(&now, &tm));
		printf("%-8s ", ts);
	}
	printf("%-9.3f %-16s %7u %7u %5u %4s ", (e->ts - x->t0) / 1e9, text__safe(e->comm, comm, sizeof(comm)),
	       e->pid, e->ppid, e->uid, text__ret(e->ret, buf, sizeof(buf)));
	if (e->nargs == 0)	/* no argv (allowed, if odd): the file asked for */
		fputs(text__safe(e->path, arg, sizeof(arg)), stdout);
	for (uint32_t i = 0; i < e->nargs && off < e->args_len && off < EXEC_ARGS_LEN; i++) {
		/* an argument with blanks is quoted, so the line reads back */
		const char *a = text__safe(&e->args[off], arg, sizeof(arg));

		printf(i ? " %s%s%s" : "%s%s%s", strpbrk(a, " \t") || !*a ? "\"" : "", a,
		       strpbrk(a, " \t") || !*a ? "\"" : "");
		off += strnlen(&e->args[off], EXEC_ARGS_LEN - off) + 1;
	}
	printf("%s\n", e->truncated ? " ..." : "");
}

static int on_exec(void *ctx, void *data, size_t size)
{
	struct exec_ctx *x = ctx;
	const struct exec_event *e = data;

	if (size < sizeof(*e) || e->type != REC_EXEC)
		return 0;
	if ((x->o->failed && e->ret >= 0) || !name_wanted(x->o, e))
		return 0;
	x->n.shown++;
	x->n.failed += e->ret < 0;
	x->n.truncated += !!e->truncated;
	if (x->o->c.json)
		print_json(x, e);
	else
		print_text(x, e);
	return 0;
}

static int exec_opt(void *ctx, int opt, const char *arg)
{
	struct exec_opts *o = ctx;

	switch (opt) {
	case 'u':
		if (!cli__uint(arg, 0, 0xfffffffeULL, &o->uid))
			return usage_error("-u '%s': a numeric user id", arg);
		o->uid_on = true;
		return 0;
	case 'c':
		o->cgroup = arg;
		return 0;
	case 'x':
		o->failed = true;
		return 0;
	case 'T':
		o->timestamp = true;
		return 0;
	case OPT_NAME:
		if (!*arg)
			return usage_error("--name: an empty name");
		o->name = arg;
		return 0;
	case OPT_MAX_ARGS:
		if (!cli__uint(arg, 1, EXEC_ARGS_MAX, &o->max_args))
			return usage_error("--max-args '%s': a number from 1 to %d", arg, EXEC_ARGS_MAX);
		return 0;
	}
	return -1;
}

static void summary(struct exec_ctx *x, struct exec_bpf *sk)
{
	struct exec_counts v = {
		.seen = sk->bss->stats.seen, .shown = x->n.shown, .failed = x->n.failed,
		.truncated = x->n.truncated, .lost = sk->bss->stats.lost, .no_entry = sk->bss->stats.no_entry,
	};

	if (x->o->c.json) {
		json__obj_begin(&x->j);
		json__kstr(&x->j, "type", "summary");
		counters__json(&x->j, exec_counters, COUNTERS_N(exec_counters), &v, 0);
		json__obj_end(&x->j);
	} else {
		fputc('\n', stderr);
		counters__sentence(stderr, exec_counters, COUNTERS_N(exec_counters), &v, 0);
		fputc('\n', stderr);
	}
}

int cmd_exec(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "name", OPT_NAME, "NAME", "only execs whose new comm or file name contains NAME" },
		{ "uid", 'u', "UID", "only execs by this user id" },
		{ "cgroup", 'c', "CGROUP", "only execs in this cgroup (a directory of the cgroup file system)" },
		{ "failed", 'x', NULL, "only execs that failed" },
		{ "time", 'T', NULL, "a wall-clock time (HH:MM:SS) first on each line" },
		{ "max-args", OPT_MAX_ARGS, "N", "arguments read per exec (default 20, at most 64); more are marked ..." },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "exec",
		.about = "Each exec on the machine (execve, execveat), as it returns: the new program's\n"
			 "name, pid, parent pid, user id, the return value (failed execs too: ENOENT,\n"
			 "EACCES, ...) and its arguments (the first 20, each up to 255 bytes; more is\n"
			 "marked \"...\").  Short-lived processes that do the damage show up here.\n",
		.opts = opts, .opt = exec_opt, .tracing = true };
	struct exec_opts o = { .max_args = 20 };
	struct exec_ctx x = { .o = &o };
	struct ring_buffer *rb = NULL;
	struct exec_bpf *sk = NULL;
	uint64_t cg = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cg)))
		return err;
	json__init(&x.j, stdout);
	sk = exec_bpf__open();
	if (!sk)
		return bpfenv__fail("opening BPF object", -errno);
	sk->rodata->targ_max_args = o.max_args;
	sk->rodata->filter_uid_on = o.uid_on;
	sk->rodata->filter_uid = o.uid;
	sk->rodata->filter_cgroup = cg;
	if ((err = exec_bpf__load(sk))) {
		err = bpfenv__fail("loading BPF programs", err);
		goto out;
	}
	if ((err = exec_bpf__attach(sk))) {
		err = bpfenv__fail("attaching to the execve and execveat tracepoints", err);
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(sk->maps.records), on_exec, &x, NULL);
	if (!rb) {
		err = fail("reading records", "%s", strerror(errno));
		goto out;
	}
	x.t0 = run__mono_ns();
	run__signals();
	if (!o.c.json)
		printf("%s%-9s %-16s %7s %7s %5s %4s %s\n", o.timestamp ? "TIME     " : "", "T(s)", "COMM", "PID",
		       "PPID", "UID", "RET", "ARGS");
	if ((err = run__ready(o.c.ready_file, "Tracing execs... Hit Ctrl-C to end.")))
		goto out;
	while (!run__stopping()) {
		int n = ring_buffer__poll(rb, 100);

		if (n < 0 && n != -EINTR) {
			err = fail("reading records", "%s", strerror(-n));
			goto out;
		}
		if (run__flush()) {
			err = 1;
			goto out;
		}
	}
	exec_bpf__detach(sk);
	bpfenv__wait_programs();
	ring_buffer__consume(rb);
	summary(&x, sk);
	err = run__flush() ? 1 : 0;
out:
	ring_buffer__free(rb);
	exec_bpf__destroy(sk);
	return err;
}

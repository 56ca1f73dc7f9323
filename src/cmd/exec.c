// SPDX-License-Identifier: GPL-2.0
/* iodig exec: every exec on the machine (execsnoop), failures too, with its
 * parent, uid, cgroup and arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "exec.h"
#include "exec.skel.h"
#include "fields.h"
#include "filter.h"
#include "json.h"
#include "log.h"
#include "recs.h"
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
	struct fctx fc;
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

/* ---- the record, declared once (fields.h); mode bit 1: -T ---- */

#define EV(f) offsetof(struct exec_event, f)
#define M_TIME 1u

static void t_clock(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	strftime(b, n, "%H:%M:%S", localtime_r(&now, &tm));
	v->k = V_STR;
	v->s = b;
}

static void t_secs(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = (((const struct exec_event *)row)->ts - ((const struct exec_ctx *)c->user)->t0) / 1e9;
}

static void t_ret(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = text__ret(((const struct exec_event *)row)->ret, b, n);
}

static void g_error(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct exec_event *)row)->ret < 0)
		t_ret(row, c, v, b, n);
}

static void g_latency(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct exec_event *e = row;

	v->k = V_U64;
	v->u = e->ts - e->start;
}

static void g_truncated(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = ((const struct exec_event *)row)->truncated;
}

/* The arguments one by one: the next after off, or NULL. */
static const char *next_arg(const struct exec_event *e, uint32_t i, uint32_t *off)
{
	const char *a;

	if (i >= e->nargs || *off >= e->args_len || *off >= EXEC_ARGS_LEN)
		return NULL;
	a = &e->args[*off];
	*off += strnlen(a, EXEC_ARGS_LEN - *off) + 1;
	return a;
}

/* argument i, the offset of the next kept in scratch from one to the next */
static const void *e_args(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	uint32_t *off = scratch;

	if (i == 0)
		*off = 0;
	return next_arg(row, i, off);
}

/* The command line, escaped: an argument with blanks quoted, so the line
 * reads back; no argv (allowed, if odd): the file asked for. */
static void t_args(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct exec_event *e = row;
	char arg[TEXT_SAFE_LEN(EXEC_ARG_LEN)];
	uint32_t off = 0;
	size_t len = 0;
	const char *a;

	b[0] = '\0';
	if (e->nargs == 0)
		len = snprintf(b, n, "%s", text__safe(e->path, arg, sizeof(arg)));
	for (uint32_t i = 0; (a = next_arg(e, i, &off)) && len < n; i++) {
		const char *q;

		a = text__safe(a, arg, sizeof(arg));
		q = strpbrk(a, " \t") || !*a ? "\"" : "";
		len += snprintf(b + len, n - len, "%s%s%s%s", i ? " " : "", q, a, q);
	}
	if (e->truncated && len < n)
		snprintf(b + len, n - len, " ...");
	v->k = V_STR;
	v->s = b;
}

static const struct field exec_fields[] = {
	{ NULL, FS_GET, .only = M_TIME, .head = "TIME", .fmt = "%-8s", .tget = t_clock },
	{ NULL, FS_GET, .head = "T(s)", .fmt = "%-9.3f", .tget = t_secs },
	{ "ts_ns", FS_U64, EV(ts) },
	{ "comm", FS_CHARS, EV(comm), .head = "COMM", .fmt = "%-16s" },
	{ "pid", FS_U32, EV(pid), .head = "PID", .fmt = "%7u" },
	{ "ppid", FS_U32, EV(ppid), .head = "PPID", .fmt = "%7u" },
	{ "tid", FS_U32, EV(tid) },
	{ "uid", FS_U32, EV(uid), .head = "UID", .fmt = "%5u" },
	{ "cgroup", FS_U64, EV(cgroup) },
	{ "ret", FS_I32, EV(ret), .head = "RET", .fmt = "%4s", .tget = t_ret },
	{ "error", FS_GET, .get = g_error, .flags = FL_STR | FL_NULLABLE },
	{ "latency_ns", FS_GET, .get = g_latency, .flags = FL_INT },
	{ "path", FS_CHARS, EV(path) },
	{ "args", FS_LIST, .each = e_args, .flags = FL_STR | FL_SAFE, .head = "ARGS", .fmt = "%s", .tget = t_args },
	{ "truncated", FS_GET, .get = g_truncated, .flags = FL_BOOL },
};

const struct rec exec_rec = REC("exec", "exec", "exec: one exec as it returned", exec_fields);

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
		fields__json(&x->j, &exec_rec, e, &x->fc);
	else
		fields__text(stdout, &exec_rec, e, &x->fc);
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
	case OPT_NAME:
		if (!*arg)
			return usage_error("--name: an empty name");
		o->name = arg;
		return 0;
	}
	return -1;
}

static const struct field summary_fields[] = {
	{ "counters", FS_COUNTERS, 0, .sub = exec_counters, .nsub = COUNTERS_N(exec_counters) },
};

const struct rec exec_summary_rec = REC("summary", "exec.summary", "exec: the counters at the end", summary_fields);

static void summary(struct exec_ctx *x, struct exec_bpf *sk)
{
	struct exec_counts v = {
		.seen = sk->bss->stats.seen, .shown = x->n.shown, .failed = x->n.failed,
		.truncated = x->n.truncated, .lost = sk->bss->stats.lost, .no_entry = sk->bss->stats.no_entry,
	};

	if (x->o->c.json) {
		fields__json(&x->j, &exec_summary_rec, &v, &x->fc);
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
		{ "cgroup", 'c', "CGROUP", "only execs in this cgroup (a directory of the cgroup file system)", CLI_STR_AT(struct exec_opts, cgroup) },
		{ "failed", 'x', NULL, "only execs that failed", CLI_FLAG_AT(struct exec_opts, failed) },
		{ "time", 'T', NULL, "a wall-clock time (HH:MM:SS) first on each line", CLI_FLAG_AT(struct exec_opts, timestamp) },
		{ "max-args", OPT_MAX_ARGS, "N", "arguments read per exec (default 20, at most 64); more are marked ...", CLI_UINT_AT(struct exec_opts, max_args, 1, EXEC_ARGS_MAX, "a number from 1 to 64") },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "exec",
		.about = "Each exec on the machine (execve, execveat), as it returns: the new program's\n"
			 "name, pid, parent pid, user id, the return value (failed execs too: ENOENT,\n"
			 "EACCES, ...) and its arguments (the first 20, each up to 255 bytes; more is\n"
			 "marked \"...\").  Short-lived processes that do the damage show up here.\n",
		.opts = opts, .opt = exec_opt, .tracing = true,
		.privileges = "Needs CAP_DAC_READ_SEARCH where tracefs is root's alone (the execve tracepoints\n"
			 "are found there).\n" };
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
	sk = exec_bpf__open_opts(bpfenv__open_opts());
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
	if ((err = bpfenv__attach(sk->skeleton))) {
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
	x.fc = (struct fctx){ .mode = o.timestamp ? M_TIME : 0, .user = &x };
	if (!o.c.json)
		fields__head(stdout, &exec_rec, &x.fc);
	if ((err = run__ready(o.c.ready_file, "Tracing execs... Hit Ctrl-C to end.")))
		goto out;
	while (!run__stopping()) {
		int n = ring_buffer__poll(rb, 100);	/* (a timer too: records seldom wake it) */

		if (n >= 0 || n == -EINTR)
			n = ring_buffer__consume(rb);
		if (n < 0 && n != -EINTR) {
			err = fail("reading records", "%s", strerror(-n));
			goto out;
		}
		if (run__flush()) {
			err = 1;
			goto out;
		}
	}
	attach__detach_skeleton(sk->skeleton);
	bpfenv__wait_programs();
	ring_buffer__consume(rb);
	summary(&x, sk);
	err = run__flush() ? 1 : 0;
out:
	ring_buffer__free(rb);
	exec_bpf__destroy(sk);
	return err;
}

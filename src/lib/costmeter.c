// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "costmeter.h"
#include "fields.h"
#include "json.h"
#include "log.h"
#include "procfiles.h"

#define METER_PROGS 128

static struct {
	bool on, json;
	int stats_fd;
	int n, fd[METER_PROGS];
	uint64_t t0;
} m = { .stats_fd = -1 };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int costmeter__start(bool json)
{
	m.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (m.stats_fd < 0)
		return fail("--stats", "the kernel's BPF run-time statistics could not be turned on (%s): they need "
			    "CAP_SYS_ADMIN", strerror(errno));
	m.on = true;
	m.json = json;
	return 0;
}

/* A BPF program's fd says its prog_type in fdinfo (maps and links say other things). */
static bool is_prog(int fd)
{
	char name[16], v[64];

	snprintf(name, sizeof(name), "%d", fd);
	return procfiles__fdinfo(0, name, "prog_type", v, sizeof(v));
}

void costmeter__ready(void)
{
	DIR *d;
	struct dirent *e;

	if (!m.on || m.n)
		return;
	m.t0 = mono_ns();
	if (!(d = opendir("/proc/self/fd")))
		return;
	while ((e = readdir(d)) && m.n < METER_PROGS) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) || !is_prog(fd))
			continue;
		if ((fd = dup(fd)) >= 0)
			m.fd[m.n++] = fd;
	}
	closedir(d);
}

struct prog_view {
	char name[BPF_OBJ_NAME_LEN];
	uint64_t runs, run_ns;
};

struct meter_view {
	double secs;
	uint64_t runs, run_ns;
	uint32_t progs;
	struct prog_view p[METER_PROGS];
};

#define MV(f) offsetof(struct meter_view, f)
#define PV(f) offsetof(struct prog_view, f)

static void g_per_run(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct meter_view *x = row;

	v->k = V_DBL;
	v->d = x->runs ? (double)x->run_ns / x->runs : 0;
}

static void g_per_sec(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct meter_view *x = row;

	v->k = V_DBL;
	v->d = x->secs > 0 ? x->runs / x->secs : 0;
}

static void g_cpu(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct meter_view *x = row;

	v->k = V_DBL;
	v->d = x->secs > 0 ? x->run_ns / 1e9 / x->secs : 0;
}

static void g_pper_run(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct prog_view *p = row;

	v->k = V_DBL;
	v->d = p->runs ? (double)p->run_ns / p->runs : 0;
}

static const void *e_progs(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct meter_view *x = row;

	return i < x->progs ? &x->p[i] : NULL;
}

static const struct field prog_fields[] = {	/* "  life_complete: 40120 runs, 312 ns a run" */
	{ "name", FS_CHARS, PV(name), .fmt = "  %s" },
	{ "runs", FS_U64, PV(runs), .fmt = ": %llu runs" },
	{ "run_time_ns", FS_U64, PV(run_ns) },
	{ "ns_per_run", FS_GET, .get = g_pper_run, .flags = FL_NUMBER, .fmt = ", %.0f ns a run\n" },
};
static const struct rec prog_rec = REC_LINES(NULL, NULL, NULL, prog_fields);

static const struct field meter_fields[] = {
	{ "seconds", FS_DBL, MV(secs) },
	{ "programs", FS_U32, MV(progs), .fmt = "BPF (--stats): %u programs ran" },
	{ "runs", FS_U64, MV(runs), .fmt = " %llu times" },
	{ "runs_per_second", FS_GET, .get = g_per_sec, .flags = FL_NUMBER, .fmt = " (%.0f a second)" },
	{ "run_time_ns", FS_U64, MV(run_ns), .fmt = ", %.1f ms in all", .tdiv = 1e6 },
	{ "ns_per_run", FS_GET, .get = g_per_run, .flags = FL_NUMBER, .fmt = ", %.0f ns a run" },
	{ "cpu_share", FS_GET, .get = g_cpu, .flags = FL_NUMBER, .fmt = ": %.3f%% of a CPU", .tdiv = 0.01 },
	{ NULL, FS_DBL, MV(secs), .fmt = " over %.1f s\n" },
	{ "by_program", FS_LIST, .each = e_progs, .sub = &prog_rec, .fmt = "" },
};
const struct rec bpf_stats_rec = REC_LINES("bpf_stats", "bpf_stats", "--stats: what iodig's BPF programs cost, from the "
					   "kernel's run count and run time of each (bpf_stats), since tracing went live",
					   meter_fields);

void costmeter__print(void)
{
	static struct meter_view x;
	struct fctx c = {};

	if (!m.on || !m.t0)
		return;
	memset(&x, 0, sizeof(x));
	x.secs = (mono_ns() - m.t0) / 1e9;
	for (int i = 0; i < m.n; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(m.fd[i], &info, &len))
			continue;
		snprintf(x.p[x.progs].name, sizeof(x.p[0].name), "%s", info.name);
		x.p[x.progs].runs = info.run_cnt;
		x.p[x.progs].run_ns = info.run_time_ns;
		x.runs += info.run_cnt;
		x.run_ns += info.run_time_ns;
		x.progs++;
		close(m.fd[i]);
	}
	m.n = 0;
	if (m.json) {
		struct json j;

		json__init(&j, stdout);
		fields__json(&j, &bpf_stats_rec, &x, &c);
	} else {
		fields__lines(stdout, &bpf_stats_rec, &x, &c);
	}
	if (m.stats_fd >= 0)
		close(m.stats_fd);
}

// SPDX-License-Identifier: GPL-2.0
/* iodig top's rows and interval ends, declared once (fields.h). */
#include <stddef.h>
#include <stdio.h>
#include "top_int.h"
#include "text.h"

const char *const top_by_names[3] = { "process", "cgroup", "disk" };

#define TV(f) offsetof(struct top_values, f)
const struct counter top_counters[5] = {
	{ "completed", TV(completed), NULL },
	{ "unattributed", TV(unattributed), "unattributed: %llu requests not seen at submission "
	  "(started before tracing, a flush, or a slot another bio in flight took): pid 0" },
	{ "map_full", TV(map_full), "lost: %llu requests with no room for their row (the table full, or the kernel could not allocate one)" },
	{ "missed", TV(missed), "missed: %llu events the kernel ran no program for, one being already on "
	  "that CPU (a completion nested in another): their requests may be in no row" },
	{ "skipped", TV(skipped), "skipped: %lld requests completed that the kernel ran no BPF "
	  "program for (/proc/diskstats counted them): in no row", 0, 1 },
};

static const char *row_disk(const struct top_opts *o, const struct top_row *r, char *buf, size_t len)
{
	const char *name = o->sel.part ? o->sel.name : disks__name(r->dev);

	if (r->ndisks)
		snprintf(buf, len, "%s+%u", name, r->ndisks);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* ---- the row, declared once (fields.h): modes are 1 << by ---- */

#define ROW(f) offsetof(struct top_row, f)

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = row_disk(((const struct top_ctx *)c->user)->o, row, b, n);
}

static void g_writeback(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	if (r->wb_pid) {
		v->k = V_STR;
		snprintf(b, n, "%.*s[%u]", LIFE_COMM_LEN, r->wb_comm, r->wb_pid);
		v->s = b;
	}
}

static void g_wb_obj(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (((const struct top_row *)row)->wb_pid)
		v->k = V_BOOL;
}

static void g_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_STR;
	v->s = r->pid ? r->comm : "[not seen at Q]";
}

static void g_secs(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = c->secs;
}

static void g_avg(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_U64;
	v->u = r->q2c.count ? r->q2c.sum / r->q2c.count : 0;
}

static void t_avg_ms(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_DBL;
	v->d = r->q2c.count ? r->q2c.sum / 1e6 / r->q2c.count : 0;
}

static void g_p99(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = hist__percentile(&((const struct top_row *)row)->q2c, 0.99);
}

static void t_q2g_share(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	const struct top_row *r = row;

	v->k = V_DBL;
	v->d = r->q2c.sum ? 100.0 * r->q2g_ns / r->q2c.sum : 0;
}

static void g_proc(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n, bool w)
{
	const struct top_row *r = row;

	if (((const struct top_ctx *)c->user)->o->by == BY_PROCESS && r->proc_read >= 0) {
		v->k = V_U64;
		v->u = w ? r->proc_write : r->proc_read;
	}
}

static void g_proc_r(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_proc(row, c, v, b, n, false);
}

static void g_proc_w(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	g_proc(row, c, v, b, n, true);
}

static const struct field wb_fields[] = {
	{ "pid", FS_U32, ROW(wb_pid) },
	{ "comm", FS_CHARS, ROW(wb_comm) },
};
static const struct rec wb_rec = REC(NULL, NULL, NULL, wb_fields);

static const struct field top_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "by", FS_BY },
	{ "pid", FS_U32, ROW(pid), .only = M(BY_PROCESS), .head = "PID", .fmt = "%7u" },
	{ "comm", FS_CHARS, ROW(comm), .only = M(BY_PROCESS), .head = "COMM", .fmt = "%-16s", .tget = g_comm },
	{ "writeback_for", FS_OBJ, .get = g_wb_obj, .only = M(BY_PROCESS), .sub = &wb_rec },
	{ "cgroup", FS_U64, ROW(cgroup), .only = M(BY_CGROUP), .head = "CGROUP", .fmt = "%24llu" },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR, .only = M(BY_PROCESS) | M(BY_DISK) },
	{ NULL, FS_GET, .get = g_disk, .only = M(BY_DISK), .head = "DISK", .fmt = "%-24s" },
	{ "reads", FS_U64, ROW(ios[0]), .head = "R/s", .fmt = "%8.0f", .flags = FL_RATE },
	{ "writes", FS_U64, ROW(ios[1]), .head = "W/s", .fmt = "%8.0f", .flags = FL_RATE },
	{ "others", FS_U64, ROW(ios[2]) },
	{ "read_bytes", FS_U64, ROW(bytes[0]), .head = "RKB/s", .fmt = "%9.0f", .flags = FL_RATE, .tdiv = 1024 },
	{ "write_bytes", FS_U64, ROW(bytes[1]), .head = "WKB/s", .fmt = "%9.0f", .flags = FL_RATE, .tdiv = 1024 },
	{ "seconds", FS_GET, .get = g_secs, .flags = FL_NUMBER },
	{ "avg_ns", FS_GET, .get = g_avg, .flags = FL_INT, .head = "AVG_ms", .fmt = "%8.2f", .tget = t_avg_ms },
	{ "p99_ns", FS_GET, .get = g_p99, .flags = FL_INT, .head = "P99_ms", .fmt = "%8.2f", .tdiv = 1e6 },
	{ "max_ns", FS_U64, ROW(q2c.max) },
	{ "q2g_ns", FS_U64, ROW(q2g_ns) },
	{ NULL, FS_GET, .head = "Q2G", .fmt = "%5.1f%%", .hw = 6, .tget = t_q2g_share },
	{ "q2c_ns", FS_U64, ROW(q2c.sum) },
	{ NULL, FS_GET, .get = g_disk, .only = M(BY_PROCESS), .head = "DISK", .fmt = "%-10s" },
	{ "proc_read_bytes", FS_GET, .get = g_proc_r, .flags = FL_INT | FL_NULLABLE },
	{ "proc_write_bytes", FS_GET, .get = g_proc_w, .flags = FL_INT | FL_NULLABLE },
	{ NULL, FS_GET, .get = g_proc_r, .flags = FL_RATE, .only = M(BY_PROCESS),
	  .head = "IO_RKB/s", .fmt = "%9.0f", .tdiv = 1024 },
	{ NULL, FS_GET, .get = g_proc_w, .flags = FL_RATE, .only = M(BY_PROCESS),
	  .head = "IO_WKB/s", .fmt = "%9.0f", .tdiv = 1024 },
	{ NULL, FS_GET, .tget = g_writeback, .flags = FL_TAIL, .fmt = "  writeback for %s" },
};

const struct rec top_rec = REC("top", "top", "top: one row (process, cgroup or disk) of one interval", top_fields);

#define END(f) offsetof(struct top_end, f)
static const struct field top_end_fields[] = {
	{ "interval", FS_U64, END(interval) },
	{ "ts_ns", FS_U64, END(ts_ns) },
	{ "time", FS_U64, END(time) },
	{ "rows", FS_U64, END(rows) },
	{ "counters", FS_COUNTERS, END(v), .sub = top_counters, .nsub = COUNTERS_N(top_counters) },
};

const struct rec top_end_rec = REC("interval_end", "top.interval_end", "top: the end of an interval, with its counters",
				   top_end_fields);


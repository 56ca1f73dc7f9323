// SPDX-License-Identifier: GPL-2.0
/*
 * iodig doctor: the request engine for SECONDS (every request with its
 * phases, the queue-attribute writes, the tag holders of requests that
 * waited for a tag, stacked disks' bios), or a recording, then the findings
 * diagnose.c's rules make of them, ranked by what they cost the requests,
 * each with its evidence, what to run next and a confidence.
 */
#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "diagnose.h"
#include "hist_user.h"
#include "json.h"
#include "log.h"
#include "recfile.h"
#include "doctor_int.h"
#include "records.h"
#include "recs.h"
#include "report_int.h"
#include "run.h"


enum { OPT_COMM = OPT_FIRST_CMD, OPT_FROM, OPT_BUFFER, OPT_HTML, OPT_RECORD, OPT_NO_CALLS };

/* ---- a finding, declared once (fields.h) ---- */

#define FD(f) offsetof(struct dx_finding, f)
#define FIND(row) ((const struct dx_finding *)(row))

/* null for lost events (not a time) and for "nothing wrong" */
static void g_cost(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = FIND(row)->cost_ns == UINT64_MAX || !FIND(row)->cost_ns ? V_NULL : V_U64;
	v->u = FIND(row)->cost_ns;
}

static void g_share(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = FIND(row)->share < 0 ? V_NULL : V_DBL;
	v->d = FIND(row)->share;
}

static void t_cost(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	char a[32];

	v->k = FIND(row)->cost_ns ? V_STR : V_NULL;
	v->s = b;
	if (FIND(row)->cost_ns == UINT64_MAX)
		snprintf(b, n, "it qualifies every figure below");
	else
		snprintf(b, n, "%s, %.1f%% of the time seen", fmt_ns(a, sizeof(a), FIND(row)->cost_ns),
			 FIND(row)->share < 0 ? 0 : FIND(row)->share);
}

static void g_str0(struct fval *v, const char *s)
{
	v->k = *s ? V_STR : V_NULL;
	v->s = s;
}

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) { g_str0(v, FIND(row)->disk); }
static void g_attr(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) { g_str0(v, FIND(row)->attr); }

/* the culprit: a process (pid and name), or a thread named by a wait's waker */
static void g_has_culprit(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = FIND(row)->pid || FIND(row)->comm[0] ? V_BOOL : V_NULL;
	v->b = true;
}

static void g_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = FIND(row)->pid ? V_U64 : V_NULL;
	v->u = FIND(row)->pid;
}

static const struct field culprit_fields[] = {
	{ "pid", FS_GET, .get = g_pid, .flags = FL_INT | FL_NULLABLE },
	{ "comm", FS_CHARS, FD(comm) },
	{ "attr", FS_GET, .get = g_attr, .flags = FL_STR | FL_NULLABLE },
};
static const struct rec culprit_rec = REC(NULL, NULL, NULL, culprit_fields);

static const void *e_ev(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return i < FIND(row)->nev ? FIND(row)->ev[i] : NULL;
}

static const void *e_next(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return i < FIND(row)->nnext ? FIND(row)->next[i] : NULL;
}

static const struct field ev_line[] = { { NULL, FS_CHARS, 0, .fmt = "   - %s\n" } };
static const struct rec ev_line_rec = REC_LINES(NULL, NULL, NULL, ev_line);
static const struct field next_line[] = { { NULL, FS_CHARS, 0, .fmt = "   next: %s\n" } };
static const struct rec next_line_rec = REC_LINES(NULL, NULL, NULL, next_line);

static const struct field finding_fields[] = {
	{ "rank", FS_U32, FD(rank), .fmt = "%u. " },
	{ "kind", FS_PSTR, FD(kind) },
	{ "title", FS_CHARS, FD(title), .fmt = "%s\n" },
	{ "cost_ns", FS_GET, .get = g_cost, .flags = FL_INT | FL_NULLABLE, .fmt = "   cost: %s\n", .tget = t_cost },
	{ "share", FS_GET, .get = g_share, .flags = FL_NUMBER | FL_NULLABLE },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR | FL_NULLABLE },
	{ "culprit", FS_OBJ, .get = g_has_culprit, .sub = &culprit_rec, .flags = FL_NULLABLE },
	{ "evidence", FS_LIST, .each = e_ev, .flags = FL_STR, .sub = &ev_line_rec, .fmt = "" },
	{ "next", FS_LIST, .each = e_next, .flags = FL_STR, .sub = &next_line_rec, .fmt = "" },
	{ "confidence", FS_PSTR, FD(confidence), .fmt = "   confidence: %s" },
	{ "confidence_why", FS_CHARS, FD(why), .fmt = " (%s)\n" },
};
const struct rec finding_rec = REC_LINES("finding", "finding", "doctor: one finding, the most costly first",
					 finding_fields);

/* ---- the run ---- */

static int doc_args(void *ctx, int argc, char **argv, int optind)
{
	struct doc_opts *o = ctx;

	o->secs = 10;
	if (optind < argc && o->from)
		return usage_error("--from reads a recording, whole: no SECONDS ('%s')", argv[optind]);
	if (optind < argc && !cli__uint(argv[optind++], 1, 86400, &o->secs))
		return usage_error("SECONDS '%s': 1 to 86400", argv[optind - 1]);
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->from && (o->disk || o->cgroup || o->pid || o->comm || o->rb_bytes || o->record))
		return usage_error("--from reads a recording: -d, -c, -p, --comm, --buffer-size and --record are for a "
				   "live run");
	o->cmd->tracing = !o->from;
	return 0;
}

struct found {
	struct dx_finding f[DX_FINDINGS];
	unsigned n;
};

/* --html: the findings above the report's sections */
static void html_findings(struct rep *p, void *ctx)
{
	const struct found *x = ctx;

	report__put(p, "<h2>Findings, the most costly first</h2>\n<ol id=\"findings\">\n");
	for (unsigned i = 0; i < x->n; i++) {
		const struct dx_finding *f = &x->f[i];

		report__put(p, "<li class=\"finding\" data-kind=\"%s\" data-rank=\"%u\" data-pid=\"%u\" "
			    "data-cost-ns=\"%llu\"><b>", f->kind, f->rank, f->pid,
			    f->cost_ns == UINT64_MAX ? 0ULL : (unsigned long long)f->cost_ns);
		report__esc(p, f->title);
		report__put(p, "</b>");
		if (f->cost_ns && f->cost_ns != UINT64_MAX)
			report__put(p, "<br>cost: %s, %.1f%% of the time seen", report__fmt(f->cost_ns),
				    f->share < 0 ? 0 : f->share);
		report__put(p, "<ul>");
		for (unsigned k = 0; k < f->nev; k++) {
			report__put(p, "<li>");
			report__esc(p, f->ev[k]);
			report__put(p, "</li>");
		}
		report__put(p, "</ul>next:");
		for (unsigned k = 0; k < f->nnext; k++) {
			report__put(p, " <code>");
			report__esc(p, f->next[k]);
			report__put(p, "</code>");
		}
		report__put(p, "<br>confidence: %s (", f->confidence);
		report__esc(p, f->why);
		report__put(p, ")</li>\n");
	}
	report__put(p, "</ol>\n");
}

static void print_findings(const struct found *x, const struct diagnose *d, bool json, double secs, const char *what)
{
	const struct dx_finding *f = x->f;
	unsigned n = x->n;
	struct fctx c = { .mode = 1 };
	struct json j;

	if (json) {
		json__init(&j, stdout);
		for (unsigned i = 0; i < n; i++)
			fields__json(&j, &finding_rec, &f[i], &c);
		return;
	}
	printf("iodig doctor: %s: %llu request%s on %u disk%s in %.*f s; %u finding%s, the most costly first\n\n",
	       what, (unsigned long long)d->requests, d->requests == 1 ? "" : "s", d->ndisk, d->ndisk == 1 ? "" : "s",
	       secs < 10 ? 3 : 1, secs, n, n == 1 ? "" : "s");
	for (unsigned i = 0; i < n; i++) {
		fields__lines(stdout, &finding_rec, &f[i], &c);
		putchar('\n');
	}
}

/* queue/rotational of a disk now present (the live run's disks) */
static bool rotational(uint32_t dev)
{
	char path[128], c = '0';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/rotational", dev >> 20, dev & 0xfffff);
	if ((f = fopen(path, "r"))) {
		c = fgetc(f);
		fclose(f);
	}
	return c == '1';
}

/* --from FILE: the records of a recording, through the same rules. */
static int from_file(struct doc_opts *o, struct diagnose *d, struct req_printer *pr)
{
	struct recfile r;
	struct req_summary sum;
	bool tables = false;
	int err = recfile__open(&r, o->from);
	char why[96];

	if (err == -EINVAL)
		err = fail("recording", "%s: not an iodig recording (or one from another version of iodig)", o->from);
	else if (err)
		err = fail("recording", "%s: %s", o->from, strerror(-err));
	if (err) {
		recfile__close(&r);
		return err;
	}
	for (;;) {
		const void *data;
		uint32_t type, size;

		if ((err = recfile__next(&r, &type, &data, &size)) <= 0)
			break;
		if (type == RECF_META)
			tables = true;
		else if (type == RECF_REQFLAGS)
			reqflags__from_text(&pr->rf, data, size);
		else if (type == RECF_DISKS)
			disks__from_text(data, size);
		else if (type == RECF_SUMMARY && req_summary__of(data, size, &sum))
			diagnose__summary(d, &sum);
		else if (tables && type < RECF_META)
			printer__record(pr, data, size);
	}
	recfile__close(&r);
	if (err < 0)
		return fail("recording", "%s: %s: the findings would be of part of it", o->from,
			    recfile__why(&r, err, why, sizeof(why)));
	if (!tables)
		return fail("recording", "%s: no records", o->from);
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "disk", 'd', "DISK", "only this disk (a partition counts as its disk)", CLI_STR_AT(struct doc_opts, disk) },
		{ "pid", 'p', "PID", "only I/O and calls of this process (who held the tags it\n"
				     "waited for is still named)", CLI_STR_AT(struct doc_opts, pid) },
		{ "comm", OPT_COMM, "NAME", "only I/O and calls of tasks with this name", CLI_COMM_AT(struct doc_opts, comm) },
		{ "cgroup", 'c', "PATH", "only I/O charged to this cgroup", CLI_STR_AT(struct doc_opts, cgroup) },
		{ "from", OPT_FROM, "FILE.rec", "the findings of a recording (iodig record, slow --record)\n"
						"instead of a live run", CLI_STR_AT(struct doc_opts, from) },
		{ "buffer-size", OPT_BUFFER, "N", "ring buffer bytes, a power of 2 (default 2097152)", CLI_RINGBUF_AT(struct doc_opts, rb_bytes) },
		{ "html", OPT_HTML, "FILE.html", "also the report page (iodig report) with the findings on top",
		  CLI_STR_AT(struct doc_opts, html) },
		{ "no-calls", OPT_NO_CALLS, NULL, "the request engine alone: no file-system call is traced\n"
						  "(journal waits, CPU starvation, reclaim and locks are\n"
						  "then not looked for)", CLI_FLAG_AT(struct doc_opts, no_calls) },
		{ "record", OPT_RECORD, "FILE.rec", "also keep what a live run saw: doctor --from, replay and\n"
						    "report read it", CLI_STR_AT(struct doc_opts, record) },
		{}
	};
	struct cli_cmd cmd = {
		.name = "doctor", .synopsis = "[-d DISK] [-p PID|--comm NAME|-c CGROUP] [SECONDS] | --from FILE.rec",
		.about = "Watches every block request, dirty throttling, readahead, the page cache's\n"
			 "refaults and file-system calls slower than 1 ms for SECONDS (default 10), or\n"
			 "reads a recording, and says what is wrong, the most costly first: a queue frozen\n"
			 "by a queue-attribute writer, tag starvation and who held the tags, a slow device,\n"
			 "a slow layer of a stacked disk, writers throttled for dirtying pages, readahead\n"
			 "never used, page-cache thrash, calls waiting on the journal, for a CPU, in direct\n"
			 "reclaim or on locks, events lost.  Each finding has its cost (the time it took),\n"
			 "the evidence, what to run next and a confidence; \"nothing wrong\" says what was\n"
			 "checked.  A recording holds the request findings alone.\n",
		.notes = "Thresholds: a finding of 1 ms in all (readahead and thrash: by pages); a D2C\n"
			 "p99 of 5 ms (50 ms rotational) with 3 requests over it; a layer's own p99 of 5\n"
			 "ms; runnable 10 ms and a quarter of the calls' time; half of 1 MiB read ahead\n"
			 "unused; 1 MiB refaulted; events lost 1 in 100 and 10.\n",
		.opts = opts, .args = doc_args,
		.privileges = "A live run needs what slow needs; --from needs nothing.\n" };
	struct doc_opts o = { .cmd = &cmd };
	struct req_printer pr = {};
	struct printer_sink sink;
	struct diagnose d;
	static struct found x;
	char tmp[] = "/tmp/iodig-doctor-XXXXXX";
	double secs = 0;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (diagnose__init(&d))
		return fail("doctor", "out of memory");
	printer__init(&pr, false, false);
	diagnose__sink(&d, &sink);
	pr.sink = &sink;
	if (o.html && !o.from && !o.record) {	/* the page is made from a recording: a passing one */
		int fd = mkstemp(tmp);

		if (fd < 0) {
			err = fail("doctor", "a temporary recording %s: %s", tmp, strerror(errno));
			goto out;
		}
		close(fd);
		o.record = tmp;
	}
	if (!o.from)
		d.rotational = rotational;
	if (o.from) {
		if (!(err = from_file(&o, &d, &pr)))
			secs = d.last_ns > d.first_ns ? (d.last_ns - d.first_ns) / 1e9 : 0;
	} else if (!(err = doctor__live(&o, &d, &pr, o.record))) {
		secs = (run__mono_ns() - pr.t0) / 1e9;
	}
	if (!err) {
		x.n = diagnose__findings(&d, x.f, DX_FINDINGS);
		print_findings(&x, &d, o.c.json, secs, o.from ? o.from : "live");
		if (o.html)
			err = report__file(o.from ? o.from : o.record, o.html, html_findings, &x);
	}
	if (!err && run__flush())
		err = 1;
out:
	if (o.record == tmp)
		unlink(tmp);
	printer__free(&pr);
	diagnose__free(&d);
	return err;
}

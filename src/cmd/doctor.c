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
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "diagnose.h"
#include "disks.h"
#include "filter.h"
#include "hist_user.h"
#include "json.h"
#include "kfeatures.h"
#include "life.skel.h"
#include "throttle.skel.h"
#include "life_user.h"
#include "log.h"
#include "recfile.h"
#include "records.h"
#include "recs.h"
#include "report_int.h"
#include "run.h"
#include "why_int.h"

struct doc_opts {
	struct cli_common c;
	struct cli_cmd *cmd;
	const char *disk, *cgroup, *pid, *comm, *from, *html, *record;
	unsigned long long secs, rb_bytes;
	bool no_calls;
};

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
		else if (type == RECF_SUMMARY && size >= sizeof(struct req_summary))
			diagnose__summary(d, data);
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

/* Dirty throttling beside the request engine: its totals at the end.  A
 * kernel without the tracepoint's fields loses this finding, said once. */
static struct throttle_bpf *throttle_start(const struct disk_sel *sel, uint32_t pid)
{
	struct throttle_bpf *sk = throttle_bpf__open_opts(bpfenv__open_opts());
	int err;

	if (!sk) {
		warnf("dirty throttling is not watched: opening its BPF object: %s", strerror(errno));
		return NULL;
	}
	sk->rodata->filter_pid = pid;
	if (sel->disk)
		snprintf((char *)sk->rodata->filter_bdi, THROTTLE_BDI_LEN, "%u:%u", sel->disk >> 20,
			 sel->disk & 0xfffff);
	if ((err = throttle_bpf__load(sk)) || (err = throttle_bpf__attach(sk))) {
		warnf("dirty throttling is not watched: writeback:balance_dirty_pages: %s", strerror(-err));
		throttle_bpf__destroy(sk);
		return NULL;
	}
	return sk;
}

static void throttle_collect(struct throttle_bpf *sk, struct diagnose *d, const char *comm)
{
	struct throttle_key k, *prev = NULL;
	struct throttle_val v;
	int fd = bpf_map__fd(sk->maps.throttles);

	d->throttle_on = true;
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		if (comm && strncmp(k.comm, comm, THROTTLE_COMM_LEN))
			continue;
		diagnose__throttle(d, &k, &v);
	}
	d->full += sk->bss->stats.map_full;
}

/* Every request of the disks, processes or cgroup asked for reaches the
 * rules (why's engine follows every process's requests: a wait's waker is
 * seldom the traced one). */
struct doc_filter {
	struct disk_sel sel;
	uint32_t pid;
	uint64_t cgroup;
	const char *comm;
	struct diagnose *d;
};

static bool wanted(const struct doc_filter *x, uint32_t dev, uint32_t pid, const char *comm, uint64_t cgroup)
{
	return (!x->sel.disk || dev == x->sel.disk) && (!x->pid || pid == x->pid) &&
	       (!x->comm || !strncmp(comm, x->comm, LIFE_COMM_LEN)) && (!x->cgroup || cgroup == x->cgroup);
}

static void f_req(void *ctx, const struct req_seen *s)
{
	struct doc_filter *x = ctx;

	if (wanted(x, s->r->dev, s->r->pid, s->r->comm, s->r->cgroup))
		diagnose__request(x->d, s);
}

static void f_upper(void *ctx, const struct life_upper *u)
{
	struct doc_filter *x = ctx;

	if (wanted(x, u->dev, u->pid, u->comm, x->cgroup))
		diagnose__upper(x->d, u);
}

static void f_write(void *ctx, const struct life_sysfs *w)
{
	diagnose__write(((struct doc_filter *)ctx)->d, w);
}

/* why's summary of the slow calls, by system call, into the rules */
static void calls_collect(struct why_ctx *wc, struct diagnose *d)
{
	d->calls_on = true;
	d->call_min_ns = wc->o->min_ns;
	for (int i = 0; i < NSYSC; i++) {
		const struct sys_agg *a = &wc->agg[i];
		struct dx_calls c = { .calls = a->calls, .wall_ns = a->wall.sum };

		if (!a->calls)
			continue;
		snprintf(c.name, sizeof(c.name), "%s", why_syscalls[i].name);
		for (int p = 0; p < WP_NR; p++)
			c.part_ns[p] = a->part[p].sum;
		for (int k = 0; k < a->nwaits && k < DX_WAITS; k++) {
			c.wait[k].part = a->wait[k].part;
			snprintf(c.wait[k].place, DX_PLACE_LEN, "%s", a->wait[k].place);
			snprintf(c.wait[k].waker, sizeof(c.wait[k].waker), "%s", a->wait[k].waker);
			c.wait[k].irq = a->wait[k].irq;
			c.wait[k].ns = a->wait[k].ns;
			c.wait[k].calls = a->wait[k].calls;
			c.nwait++;
		}
		diagnose__calls(d, &c);
	}
}

#define DOC_CALL_MIN_NS 1000000ull	/* slow calls: from 1 ms */

static int live(struct doc_opts *o, struct diagnose *d, struct req_printer *pr, const char *rec)
{
	static struct why_ctx wc;	/* large: its rings and summaries */
	struct why_opts wo = { .min_ns = DOC_CALL_MIN_NS, .summary_only = true, .comm = o->comm,
			       .cgroup = o->cgroup, .disk = o->disk };
	struct life_cfg cfg = { .mode = LIFE_SNOOP, .rb_bytes = o->rb_bytes, .tags = true };
	static struct printer_sink sink;
	static struct doc_filter x;
	struct req_summary sum;
	struct life l = {}, *lp = &wc.l;
	struct throttle_bpf *tsk = NULL;
	const struct btf *vmlinux;
	uint64_t end;
	char msg[160];
	int err;

	x.d = d;
	x.comm = o->comm;
	if (o->disk && (err = filter__disk(o->disk, &x.sel)))
		return err;
	if (o->cgroup && o->no_calls && (err = filter__cgroup(o->cgroup, &x.cgroup)))
		return err;
	if (o->cgroup && !o->no_calls) {	/* the calls by their tasks' group; the requests by
						 * their bios' where bios carry its id */
		bool bios = false;

		if ((err = filter__task_cgroup(o->cgroup, &x.cgroup, &bios)))
			return err;
		if (!bios) {
			x.cgroup = 0;
			warnf("-c %s: the io controller is off for this group, so its bios carry no id of it: "
			      "its calls are judged, the requests of every process", o->cgroup);
		}
	}
	if (o->pid && (err = filter__pid(o->pid, &x.pid)))
		return err;
	sink = (struct printer_sink){ .req = f_req, .upper = f_upper, .write = f_write, .ctx = &x };
	pr->sink = &sink;
	if (!(vmlinux = bpfenv__vmlinux()))
		return fail("reading kernel BTF", "%s", strerror(errno));
	if ((err = reqflags__load(&pr->rf, vmlinux)))
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	/* what each engine needs, said as doctor's before either loads */
	if ((err = kfeatures__need(NEED_ATOMIC_FETCH, "doctor (the request engine)")) ||
	    (!o->no_calls && (err = kfeatures__need(NEED_TASK_STORAGE, "doctor's slow calls (--no-calls goes without them)"))))
		return err;
	if (rec && (err = recfile__create(&pr->rec, rec)))
		return fail("writing the recording", "%s: %s", rec, strerror(-err));
	if (o->no_calls) {	/* the request engine alone: every request, watched */
		cfg = (struct life_cfg){ .mode = LIFE_SLOW, .min_ns = 0, .sysfs = true, .comm = o->comm,
					 .rb_bytes = o->rb_bytes, .dev = x.sel.disk, .part = x.sel.part,
					 .pid = x.pid, .cgroup = x.cgroup, .kernel_q = life__kernel_q(vmlinux) };
		lp = &l;
		err = life__start(&l, &cfg, printer__on_record, pr);
	} else {
		if (o->pid) {
			wo.pids[0] = o->pid;
			wo.npids = 1;
		}
		wc = (struct why_ctx){ .o = &wo, .tee = printer__on_record, .tee_ctx = pr };
		err = why__start(&wc, &cfg);
	}
	if (err)
		goto out;
	/* the throttle program has no cgroup filter: with -c it is left out */
	if (!o->cgroup)
		tsk = throttle_start(&x.sel, x.pid);
	if (!lp->sysfs_on && o->no_calls)
		warnf("queue attribute writes are not watched: %s", lp->sysfs_why);
	pr->t0 = run__mono_ns();
	printer__widths(pr);
	if (rec && (err = printer__record_tables(pr, rec)))
		goto out;
	run__signals();
	snprintf(msg, sizeof(msg), "Watching block I/O%s for %llu s (Ctrl-C ends it sooner), then the findings...",
		 o->no_calls ? "" : " and slow file-system calls", o->secs);
	if ((err = run__ready(o->c.ready_file, msg)))
		goto out;
	end = run__mono_ns() + o->secs * 1000000000ull;
	while (!run__stopping() && run__mono_ns() < end) {
		if (!o->no_calls) {
			if ((err = why__poll(&wc, LIFE_DRAIN_MS)))
				goto out;
			continue;
		}
		if ((err = life__poll(&l, LIFE_DRAIN_MS)) > 0)
			goto out;
		if (err < 0) {
			err = fail("reading records", "%s", strerror(-err));
			goto out;
		}
	}
	if (o->no_calls) {
		life__detach(&l);
		life__drain(&l);
	} else {
		why__finish(&wc);
		calls_collect(&wc, d);
	}
	if (tsk)
		throttle_collect(tsk, d, o->comm);
	printer__summary_of(lp, &sum);
	diagnose__summary(d, &sum);
	if (rec) {
		if (!pr->rec_err)
			pr->rec_err = recfile__write(&pr->rec, RECF_SUMMARY, &sum, sizeof(sum));
		if (recfile__close(&pr->rec) || pr->rec_err) {
			err = fail("writing the recording", "%s: %s", rec, strerror(EIO));
			goto out;
		}
	}
	if (lp->stack)
		diagnose__stack(d, &lp->skel->bss->stack_stats);
	err = 0;
out:
	if (pr->rec.f)
		recfile__close(&pr->rec);
	throttle_bpf__destroy(tsk);
	if (o->no_calls)
		life__stop(&l);
	else
		why__free(&wc);
	return err;
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
		{ "buffer-size", OPT_BUFFER, "N", "ring buffer bytes, a power of 2 (default 8388608)", CLI_RINGBUF_AT(struct doc_opts, rb_bytes) },
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
		.about = "Watches every block request, dirty throttling and file-system calls slower than\n"
			 "1 ms for SECONDS (default 10), or reads a recording, and says what is wrong, the\n"
			 "most costly first: a queue frozen by a queue-attribute writer, tag starvation\n"
			 "and who held the tags, a slow device, a slow layer of a stacked disk, writers\n"
			 "throttled for dirtying pages, calls waiting on the journal, for a CPU, in direct\n"
			 "reclaim or on locks, events lost.  Each finding has its cost (the time it took),\n"
			 "the evidence, what to run next and a confidence; \"nothing wrong\" says what was\n"
			 "checked.  A recording holds the request findings alone.\n",
		.notes = "Thresholds: a stall of 1 ms in all, a D2C p99 of 5 ms, a layer's own p99 of 5 ms,\n"
			 "events lost 1 in 100.\n",
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
	} else if (!(err = live(&o, &d, &pr, o.record))) {
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

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig report FILE.rec -o report.html: one self-contained HTML page (no
 * script, no network) from a recording of snoop or slow: a latency heatmap
 * (time x Q2C, colour = requests), p50 and p99 over time per disk, the
 * phase breakdown per disk, the top processes, the slowest requests with
 * their phases and the queue writer that froze them, and what iodig lost.
 * Every heatmap cell carries its count (data-count), so a browser test can
 * add them up against the recording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "hist_user.h"
#include "log.h"
#include "recfile.h"
#include "records.h"
#include "text.h"

#define COLS	60		/* heatmap time columns at most */
#define ROWS	32		/* log2 of Q2C in us: row k holds [2^(k-1), 2^k) us, row 0 under 1 us */
#define SLOWEST	50
#define TOPPROC	15

struct rq {
	uint64_t t;		/* completion, ns since the first record */
	__u64 ph[PH_NR];
	uint32_t dev, bytes, cmd_flags, pid, seen;
	int32_t kstack, ustack;	/* -K/-U recordings: ids of stacks the recording names */
	char comm[LIFE_COMM_LEN];
	int culprit;		/* index in writes, or -1 */
};

struct proc {
	uint32_t pid;
	char comm[LIFE_COMM_LEN];
	uint64_t n, bytes, q2c_sum, q2c_max;
};

struct rep {
	struct rq *r;
	size_t n, cap;
	struct life_sysfs *w;	/* queue writes, as recorded (ends) */
	size_t nw, capw;
	struct req_printer pr;	/* op names and the culprit windows of the recording */
	struct req_summary sum;
	bool have_sum;
	char command[16];
	bool stacks;		/* the recording names stacks (-K/-U) */
	uint64_t first_c;
	FILE *out;
};

static void put(struct rep *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
}

/* Text into HTML: & < > " escaped, control bytes and invalid UTF-8 as \xNN. */
static void esc(struct rep *p, const char *s)
{
	char safe[TEXT_SAFE_LEN(256)];

	for (const char *c = text__safe(s, safe, sizeof(safe)); *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", p->out); break;
		case '<': fputs("&lt;", p->out); break;
		case '>': fputs("&gt;", p->out); break;
		case '"': fputs("&quot;", p->out); break;
		default: fputc(*c, p->out);
		}
	}
}

static int add_rq(struct rep *p, const struct life_req *r)
{
	struct rq *q;

	if (p->n == p->cap) {
		void *n = realloc(p->r, (p->cap = p->cap ? 2 * p->cap : 4096) * sizeof(*p->r));

		if (!n)
			return -ENOMEM;
		p->r = n;
	}
	q = &p->r[p->n++];
	memset(q, 0, sizeof(*q));
	life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, q->ph);
	if (!p->first_c || r->c < p->first_c)
		p->first_c = r->c;
	q->t = r->c;
	q->dev = r->dev;
	q->bytes = r->bytes;
	q->cmd_flags = r->cmd_flags;
	q->pid = r->pid;
	q->seen = r->seen;
	q->kstack = r->kstack;
	q->ustack = r->ustack;
	memcpy(q->comm, r->comm, sizeof(q->comm));
	q->culprit = -1;
	{
		const struct life_sysfs *w = printer__culprit(&p->pr, r, q->ph);

		if (w) {
			if (p->nw == p->capw) {
				void *n = realloc(p->w, (p->capw = p->capw ? 2 * p->capw : 64) * sizeof(*p->w));

				if (!n)
					return -ENOMEM;
				p->w = n;
			}
			p->w[p->nw] = *w;
			q->culprit = p->nw++;
		}
	}
	return 0;
}

static int row_of(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int k = 0;

	while (us && k < ROWS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

static const char *fmt(uint64_t ns)
{
	static char b[4][32];
	static int i;

	i = (i + 1) % 4;
	return fmt_ns(b[i], sizeof(b[i]), ns);
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(disks__name(*(const uint32_t *)a), disks__name(*(const uint32_t *)b));
}

static int cmp_q2c(const void *a, const void *b)
{
	const struct rq *x = *(struct rq *const *)a, *y = *(struct rq *const *)b;

	return x->ph[PH_Q2C] > y->ph[PH_Q2C] ? -1 : x->ph[PH_Q2C] < y->ph[PH_Q2C];
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return x->n > y->n ? -1 : x->n < y->n;
}

static void heatmap(struct rep *p, uint64_t span, int cols)
{
	static uint64_t cell[COLS][ROWS];
	uint64_t most = 0, drawn = 0;
	int top = 0;

	memset(cell, 0, sizeof(cell));
	for (size_t i = 0; i < p->n; i++) {
		int c = (int)((p->r[i].t - p->first_c) * cols / (span + 1)), r = row_of(p->r[i].ph[PH_Q2C]);

		cell[c][r]++;
		if (cell[c][r] > most)
			most = cell[c][r];
		if (r > top)
			top = r;
	}
	put(p, "<h2>Latency heatmap: Q2C (bio submission to completion) over time</h2>\n"
	       "<p>Each column is %s of the recording, each row a power of two of latency; the darker, the more "
	       "requests.  Hover a cell for its count.</p>\n", fmt(span / cols + 1));
	put(p, "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" data-requests=\"%zu\">\n",
	    80 + cols * 14, 30 + (top + 1) * 14, p->n);
	for (int r = 0; r <= top; r++) {
		int y = 10 + (top - r) * 14;

		put(p, "<text x=\"0\" y=\"%d\" font-size=\"10\">%s</text>\n", y + 11,
		    r ? fmt(1000ULL << (r - 1)) : "<1us");
		for (int c = 0; c < cols; c++) {
			double f;

			if (!cell[c][r])
				continue;
			f = log1p((double)cell[c][r]) / log1p((double)most);
			put(p, "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"13\" height=\"13\" data-count=\"%llu\" "
			       "fill=\"rgb(%d,%d,%d)\"><title>%s to %s, %s: %llu requests</title></rect>\n",
			    70 + c * 14, y, (unsigned long long)cell[c][r], 255 - (int)(f * 40), 230 - (int)(f * 170),
			    200 - (int)(f * 190), fmt(span / cols * c), fmt(span / cols * (c + 1)),
			    r ? fmt(1000ULL << (r - 1)) : "<1us", (unsigned long long)cell[c][r]);
			drawn += cell[c][r];
		}
	}
	put(p, "<text x=\"70\" y=\"%d\" font-size=\"10\">0 s</text><text x=\"%d\" y=\"%d\" font-size=\"10\" "
	       "text-anchor=\"end\">%s</text>\n</svg>\n<p>%llu requests drawn.</p>\n", 24 + (top + 1) * 14,
	    70 + cols * 14, 24 + (top + 1) * 14, fmt(span), (unsigned long long)drawn);
}

/* p50 and p99 of Q2C per disk and column, as lines. */
static void percentiles(struct rep *p, const uint32_t *devs, int nd, uint64_t span, int cols)
{
	static const char *const colour[] = { "#c0392b", "#2471a3", "#1e8449", "#7d3c98", "#b9770e", "#566573" };
	struct hist *h = calloc((size_t)nd * cols, sizeof(*h));
	uint64_t top = 1;

	if (!h)
		return;
	for (size_t i = 0; i < p->n; i++) {
		int c = (int)((p->r[i].t - p->first_c) * cols / (span + 1)), d = 0;

		while (d < nd && devs[d] != p->r[i].dev)
			d++;
		hist__add(&h[d * cols + c], p->r[i].ph[PH_Q2C]);
	}
	for (int i = 0; i < nd * cols; i++)
		if (h[i].count && hist__percentile(&h[i], 0.99) > top)
			top = hist__percentile(&h[i], 0.99);
	put(p, "<h2>p50 and p99 of Q2C over time, by disk</h2>\n<svg id=\"percentiles\" xmlns=\"http://www.w3.org/2000/svg\" "
	       "width=\"%d\" height=\"220\">\n<text x=\"0\" y=\"12\" font-size=\"10\">%s</text>"
	       "<text x=\"0\" y=\"205\" font-size=\"10\">0</text>\n", 80 + cols * 14, fmt(top));
	for (int d = 0; d < nd; d++)
		for (int q = 0; q < 2; q++) {
			put(p, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" %s points=\"", colour[d % 6],
			    q ? 2 : 1, q ? "" : "stroke-dasharray=\"4 2\"");
			for (int c = 0; c < cols; c++)
				if (h[d * cols + c].count)
					put(p, "%d,%d ", 76 + c * 14,
					    200 - (int)(190.0 * hist__percentile(&h[d * cols + c], q ? 0.99 : 0.5) / top));
			put(p, "\"><title>%s p%s</title></polyline>\n", disks__name(devs[d]), q ? "99" : "50");
		}
	put(p, "</svg>\n<p>");
	for (int d = 0; d < nd; d++)
		put(p, "<span style=\"color:%s\">&#9632; %s</span> ", colour[d % 6], disks__name(devs[d]));
	put(p, "(solid p99, dashed p50)</p>\n");
	free(h);
}

static void phases(struct rep *p, const uint32_t *devs, int nd)
{
	static const char *const colour[] = { "#e74c3c", "#f39c12", "#f1c40f", "#3498db" };

	put(p, "<h2>Where the time went, by disk</h2>\n<table id=\"phases\"><tr><th>disk</th><th>requests</th>"
	       "<th><span style=\"color:%s\">&#9632;</span> Q2G (before a request)</th>"
	       "<th><span style=\"color:%s\">&#9632;</span> G2I</th>"
	       "<th><span style=\"color:%s\">&#9632;</span> I2D (scheduler)</th>"
	       "<th><span style=\"color:%s\">&#9632;</span> D2C (device)</th><th>mean Q2C</th><th></th></tr>\n",
	    colour[0], colour[1], colour[2], colour[3]);
	for (int d = 0; d < nd; d++) {
		uint64_t s[PH_NR] = { 0 }, n = 0, all;

		for (size_t i = 0; i < p->n; i++)
			if (p->r[i].dev == devs[d]) {
				for (int k = 0; k < PH_NR; k++)
					s[k] += p->r[i].ph[k];
				n++;
			}
		all = s[PH_Q2G] + s[PH_G2I] + s[PH_I2D] + s[PH_D2C];
		put(p, "<tr><td>%s</td><td>%llu</td>", disks__name(devs[d]), (unsigned long long)n);
		for (int k = PH_Q2G; k <= PH_D2C; k++)
			put(p, "<td>%.1f%%</td>", all ? 100.0 * s[k] / all : 0.0);
		put(p, "<td>%s</td><td><svg width=\"200\" height=\"12\">", fmt(n ? s[PH_Q2C] / n : 0));
		for (int k = PH_Q2G, x = 0; k <= PH_D2C; k++) {
			int w = all ? (int)(200.0 * s[k] / all) : 0;

			put(p, "<rect x=\"%d\" width=\"%d\" height=\"12\" fill=\"%s\"/>", x, w, colour[k]);
			x += w;
		}
		put(p, "</svg></td></tr>\n");
	}
	put(p, "</table>\n");
}

static void procs(struct rep *p)
{
	struct proc *t = calloc(p->n ? p->n : 1, sizeof(*t));
	size_t n = 0;

	if (!t)
		return;
	for (size_t i = 0; i < p->n; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (t[k].pid == p->r[i].pid && !strncmp(t[k].comm, p->r[i].comm, LIFE_COMM_LEN))
				break;
		if (k == n) {
			t[n].pid = p->r[i].pid;
			memcpy(t[n++].comm, p->r[i].comm, LIFE_COMM_LEN);
		}
		t[k].n++;
		t[k].bytes += p->r[i].bytes;
		t[k].q2c_sum += p->r[i].ph[PH_Q2C];
		if (p->r[i].ph[PH_Q2C] > t[k].q2c_max)
			t[k].q2c_max = p->r[i].ph[PH_Q2C];
	}
	qsort(t, n, sizeof(*t), cmp_proc);
	put(p, "<h2>Top processes (the submitter, at Q)</h2>\n<table id=\"procs\"><tr><th>pid</th><th>comm</th>"
	       "<th>requests</th><th>bytes</th><th>mean Q2C</th><th>max Q2C</th></tr>\n");
	for (size_t i = 0; i < n && i < TOPPROC; i++) {
		put(p, "<tr><td>%u</td><td>", t[i].pid);
		esc(p, t[i].comm[0] ? t[i].comm : "?");
		put(p, "</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n", (unsigned long long)t[i].n,
		    (unsigned long long)t[i].bytes, fmt(t[i].q2c_sum / t[i].n), fmt(t[i].q2c_max));
	}
	put(p, "</table>\n");
	free(t);
}

/* -K/-U: the submitter's stacks at Q, as the recording named them: the
 * innermost named frame of the program, the whole of both when opened. */
static void stack_cell(struct rep *p, const struct rq *r)
{
	const struct frames *u = r->ustack >= 0 ? ustacks__find(&p->pr.ucache, r->pid, r->ustack) : NULL,
			    *k = r->kstack >= 0 ? ustacks__find(&p->pr.kcache, 0, r->kstack) : NULL;
	const char *label = NULL;
	char *buf = NULL, *line, *save = NULL;
	size_t len;
	FILE *f;

	put(p, "<td class=\"stack\">");
	for (int i = 0; u && !label && i < u->n; i++)
		label = u->f[i].sym;
	for (int i = 0; k && !label && i < k->n; i++)
		label = k->f[i].sym;
	if ((u && u->n) || (k && k->n)) {
		if ((f = open_memstream(&buf, &len))) {
			if (u)
				frames__text(u, f, "");
			if (u && u->n && k && k->n)
				fputs("--\n", f);
			if (k)
				frames__text(k, f, "");
			fclose(f);
		}
		put(p, "<details><summary>");
		esc(p, label ? label : "?");
		put(p, "</summary><pre>");
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
			esc(p, line);
			put(p, "\n");
		}
		put(p, "</pre></details>");
		free(buf);
	}
	put(p, "</td>");
}

static void slowest(struct rep *p)
{
	struct rq **s = malloc((p->n ? p->n : 1) * sizeof(*s));
	char op[32], value[SYSFS_VALUE_LEN];

	if (!s)
		return;
	for (size_t i = 0; i < p->n; i++)
		s[i] = &p->r[i];
	qsort(s, p->n, sizeof(*s), cmp_q2c);
	put(p, "<h2>The slowest requests</h2>\n<table id=\"slowest\"><tr><th>at</th><th>disk</th><th>op</th>"
	       "<th>bytes</th><th>pid</th><th>comm</th><th>Q2G</th><th>G2I</th><th>I2D</th><th>D2C</th><th>Q2C</th>"
	       "<th>dominant</th><th>queue writer</th>%s</tr>\n",
	    p->stacks ? "<th>code path (at submission)</th>" : "");
	for (size_t i = 0; i < p->n && i < SLOWEST; i++) {
		const struct rq *r = s[i];
		const char *dom = life__dominant(r->ph, (r->seen & (SEEN_Q | SEEN_G | SEEN_D)) ==
							 (SEEN_Q | SEEN_G | SEEN_D));

		put(p, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%u</td><td>%u</td><td>", fmt(r->t - p->first_c),
		    disks__name(r->dev), reqflags__op_name(&p->pr.rf, r->cmd_flags, op, sizeof(op)), r->bytes, r->pid);
		esc(p, r->comm[0] ? r->comm : "?");
		put(p, "</td>");
		for (int k = PH_Q2G; k <= PH_Q2C; k++)
			put(p, "<td>%s</td>", fmt(r->ph[k]));
		put(p, "<td>%s</td><td>", dom ? dom : "-");
		if (r->culprit >= 0) {
			const struct life_sysfs *w = &p->w[r->culprit];

			esc(p, w->comm);
			printer__value(w->value, value, sizeof(value));
			put(p, " [%u] wrote ", w->pid);
			esc(p, value);
			put(p, " to queue/");
			esc(p, w->attr);
		}
		put(p, "</td>");
		if (p->stacks)
			stack_cell(p, r);
		put(p, "</tr>\n");
	}
	put(p, "</table>\n");
	free(s);
}

static void overhead(struct rep *p)
{
	const struct life_stats *s = &p->sum.s;

	put(p, "<h2>What iodig saw and lost</h2>\n<table id=\"overhead\">\n");
	put(p, "<tr><td>requests recorded</td><td>%zu</td></tr>\n", p->n);
	if (p->have_sum) {
		put(p, "<tr><td>completions seen</td><td>%llu</td></tr>\n", (unsigned long long)s->completed);
		put(p, "<tr><td>records lost (ring buffer full)</td><td>%llu</td></tr>\n", (unsigned long long)s->lost);
		put(p, "<tr><td>partial (Q, G or D not seen)</td><td>%llu</td></tr>\n", (unsigned long long)s->partial);
		put(p, "<tr><td>untracked (slot taken)</td><td>%llu</td></tr>\n", (unsigned long long)s->untracked);
		put(p, "<tr><td>skipped (the kernel ran no program)</td><td>%lld</td></tr>\n",
		    (long long)p->sum.skipped);
		put(p, "<tr><td>missed (a program already running)</td><td>%llu</td></tr>\n",
		    (unsigned long long)p->sum.missed);
	} else {
		put(p, "<tr><td>summary</td><td>none: the recording was cut short</td></tr>\n");
	}
	put(p, "</table>\n");
}

static int write_html(struct rep *p, const char *src)
{
	uint32_t devs[64];
	int nd = 0, cols;
	uint64_t span = 0;

	for (size_t i = 0; i < p->n; i++) {
		int d;

		if (p->r[i].t - p->first_c > span)
			span = p->r[i].t - p->first_c;
		for (d = 0; d < nd && devs[d] != p->r[i].dev; d++)
			;
		if (d == nd && nd < 64)
			devs[nd++] = p->r[i].dev;
	}
	qsort(devs, nd, sizeof(devs[0]), cmp_dev);
	/* 60 columns, none shorter than 10 ms (a short recording gets fewer) */
	cols = span / 10000000ULL + 1 < COLS ? (int)(span / 10000000ULL + 1) : COLS;
	put(p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>iodig report</title>\n"
	       "<style>body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px 0}"
	       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f4f4f4}"
	       "svg{background:#fcfcfc;border:1px solid #eee}td.stack{text-align:left}"
	       "td.stack pre{margin:2px 0;font-size:12px}</style></head><body>\n"
	       "<h1>iodig report</h1>\n<p>From <code>");
	esc(p, src);
	put(p, "</code>, a recording of <code>iodig %s</code>: %zu requests over %s on %d disk%s.</p>\n", p->command,
	    p->n, fmt(span), nd, nd == 1 ? "" : "s");
	if (!p->n) {
		put(p, "<p>No request in the recording.</p>\n");
	} else {
		heatmap(p, span, cols);
		percentiles(p, devs, nd, span, cols);
		phases(p, devs, nd);
		procs(p);
		slowest(p);
	}
	overhead(p);
	put(p, "</body></html>\n");
	return 0;
}

static const char *out_path;

static int report_opt(void *ctx, int opt, const char *arg)
{
	if (opt != 'o')
		return -1;
	out_path = arg;
	return 0;
}

static int report_args(void *ctx, int argc, char **argv, int optind)
{
	if (optind == argc)
		return usage_error("which recording?");
	if (optind < argc - 1)
		return usage_error("unexpected argument '%s'", argv[optind + 1]);
	if (!out_path)
		return usage_error("-o FILE.html: where to write the report");
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "output", 'o', "FILE", "the HTML file to write" },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "report", .synopsis = "FILE.rec -o FILE.html",
		.about = "One self-contained HTML page (no script, no network) from a recording of iodig\n"
			 "snoop or slow --record: a latency heatmap, p50/p99 over time per disk, where the\n"
			 "time went (phases), top processes, the slowest requests and the queue writer\n"
			 "that froze them, and what iodig lost.\n",
		.opts = opts, .opt = report_opt, .args = report_args };
	struct cli_common c = {};
	struct rep p = { 0 };
	struct recfile r;
	bool tables = false;
	int err = cli__prologue(&cmd, argc, argv, &c, NULL);
	const char *src;
	off_t total = 0;

	if (err >= 0)
		return err;
	src = argv[optind];
	err = recfile__open(&r, src);
	if (err) {
		recfile__close(&r);
		return err == -EINVAL ? fail("recording", "%s: not an iodig recording (or one from another version)", src)
				      : fail("recording", "%s: %s", src, strerror(-err));
	}
	printer__init(&p.pr, false, false);
	snprintf(p.command, sizeof(p.command), "?");
	{
		struct stat st;

		/* a long recording: progress on a terminal, every 2^16 frames */
		if (isatty(STDERR_FILENO) && !fstat(fileno(r.f), &st))
			total = st.st_size;
	}
	for (uint64_t frames = 0;; frames++) {
		const void *data;
		uint32_t type, size;

		if (total && !(frames & 0xffff))
			fprintf(stderr, "\riodig report: reading %s: %3.0f%%", src, 100.0 * ftell(r.f) / total);
		if ((err = recfile__next(&r, &type, &data, &size)) <= 0)
			break;
		if (type == RECF_META) {
			const char *cmdline = memmem(data, size, "command ", 8);

			if (cmdline)
				sscanf(cmdline + 8, "%15s", p.command);
			tables = true;
		} else if (type == RECF_REQFLAGS) {
			if (reqflags__from_text(&p.pr.rf, data, size))
				break;
		} else if (type == RECF_DISKS) {
			disks__from_text(data, size);
		} else if (type == RECF_STACK) {
			if ((err = frames__from_text(&p.pr.kcache, &p.pr.ucache, data, size)))
				break;
			p.stacks = true;
		} else if (type == RECF_SUMMARY && size == sizeof(p.sum)) {
			memcpy(&p.sum, data, sizeof(p.sum));
			p.have_sum = true;
		} else if ((type == REC_SYSFS_START || type == REC_SYSFS_END) && size >= sizeof(struct life_sysfs)) {
			printer__remember(&p.pr, data);
		} else if (type == REC_REQ && size >= sizeof(struct life_req)) {
			if ((err = add_rq(&p, data)))
				break;
		}
	}
	if (total)
		fprintf(stderr, "\r\033[K");	/* the progress line erased */
	recfile__close(&r);
	if (err < 0 && err != -EIO) {
		err = fail("recording", "%s: %s", src, strerror(-err));
		goto out;
	}
	if (!tables) {
		err = fail("recording", "%s: no tables before the records: not a recording iodig wrote", src);
		goto out;
	}
	if (err == -EIO)
		warnf("%s: cut short after %zu requests: reporting those", src, p.n);
	if (!(p.out = fopen(out_path, "w"))) {
		err = fail(out_path, "%s", strerror(errno));
		goto out;
	}
	write_html(&p, src);
	err = fclose(p.out) ? fail(out_path, "%s", strerror(errno)) : 0;
	if (!err)
		fprintf(stderr, "iodig report: %zu requests from %s into %s\n", p.n, src, out_path);
out:
	printer__free(&p.pr);
	free(p.r);
	free(p.w);
	return err;
}

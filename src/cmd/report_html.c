// SPDX-License-Identifier: GPL-2.0
/* iodig report's page: the latency heatmap, percentiles over time, phases
 * per disk, processes, the slowest requests (with the queue write behind a
 * stall) and what the recording itself counted, in one HTML file. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "disks.h"
#include "hist_user.h"
#include "report_int.h"
#include "text.h"
#include "sort.h"

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
		int c = (int)((p->r[i].t - p->first_c) * cols / (span + 1)), r = report__row_of(p->r[i].ph[PH_Q2C]);

		cell[c][r]++;
		if (cell[c][r] > most)
			most = cell[c][r];
		if (r > top)
			top = r;
	}
	report__put(p, "<h2>Latency heatmap: Q2C (bio submission to completion) over time</h2>\n"
	       "<p>Each column is %s of the recording, each row a power of two of latency; the darker, the more "
	       "requests.  Hover a cell for its count.</p>\n", report__fmt(span / cols + 1));
	report__put(p, "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" data-requests=\"%zu\">\n",
	    80 + cols * 14, 30 + (top + 1) * 14, p->n);
	for (int r = 0; r <= top; r++) {
		int y = 10 + (top - r) * 14;

		report__put(p, "<text x=\"0\" y=\"%d\" font-size=\"10\">%s</text>\n", y + 11,
		    r ? report__fmt(1000ULL << (r - 1)) : "<1us");
		for (int c = 0; c < cols; c++) {
			double f;

			if (!cell[c][r])
				continue;
			f = log1p((double)cell[c][r]) / log1p((double)most);
			report__put(p, "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"13\" height=\"13\" data-count=\"%llu\" "
			       "fill=\"rgb(%d,%d,%d)\"><title>%s to %s, %s: %llu requests</title></rect>\n",
			    70 + c * 14, y, (unsigned long long)cell[c][r], 255 - (int)(f * 40), 230 - (int)(f * 170),
			    200 - (int)(f * 190), report__fmt(span / cols * c), report__fmt(span / cols * (c + 1)),
			    r ? report__fmt(1000ULL << (r - 1)) : "<1us", (unsigned long long)cell[c][r]);
			drawn += cell[c][r];
		}
	}
	report__put(p, "<text x=\"70\" y=\"%d\" font-size=\"10\">0 s</text><text x=\"%d\" y=\"%d\" font-size=\"10\" "
	       "text-anchor=\"end\">%s</text>\n</svg>\n<p>%llu requests drawn.</p>\n", 24 + (top + 1) * 14,
	    70 + cols * 14, 24 + (top + 1) * 14, report__fmt(span), (unsigned long long)drawn);
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
	report__put(p, "<h2>p50 and p99 of Q2C over time, by disk</h2>\n<svg id=\"percentiles\" xmlns=\"http://www.w3.org/2000/svg\" "
	       "width=\"%d\" height=\"220\">\n<text x=\"0\" y=\"12\" font-size=\"10\">%s</text>"
	       "<text x=\"0\" y=\"205\" font-size=\"10\">0</text>\n", 80 + cols * 14, report__fmt(top));
	for (int d = 0; d < nd; d++)
		for (int q = 0; q < 2; q++) {
			report__put(p, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" %s points=\"", colour[d % 6],
			    q ? 2 : 1, q ? "" : "stroke-dasharray=\"4 2\"");
			for (int c = 0; c < cols; c++)
				if (h[d * cols + c].count)
					report__put(p, "%d,%d ", 76 + c * 14,
					    200 - (int)(190.0 * hist__percentile(&h[d * cols + c], q ? 0.99 : 0.5) / top));
			report__put(p, "\"><title>%s p%s</title></polyline>\n", disks__name(devs[d]), q ? "99" : "50");
		}
	report__put(p, "</svg>\n<p>");
	for (int d = 0; d < nd; d++)
		report__put(p, "<span style=\"color:%s\">&#9632; %s</span> ", colour[d % 6], disks__name(devs[d]));
	report__put(p, "(solid p99, dashed p50)</p>\n");
	free(h);
}

static void phases(struct rep *p, const uint32_t *devs, int nd)
{
	static const char *const colour[] = { "#e74c3c", "#f39c12", "#f1c40f", "#3498db" };

	report__put(p, "<h2>Where the time went, by disk</h2>\n<table id=\"phases\"><tr><th>disk</th><th>requests</th>"
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
		report__put(p, "<tr><td>%s</td><td>%llu</td>", disks__name(devs[d]), (unsigned long long)n);
		for (int k = PH_Q2G; k <= PH_D2C; k++)
			report__put(p, "<td>%.1f%%</td>", all ? 100.0 * s[k] / all : 0.0);
		report__put(p, "<td>%s</td><td><svg width=\"200\" height=\"12\">", report__fmt(n ? s[PH_Q2C] / n : 0));
		for (int k = PH_Q2G, x = 0; k <= PH_D2C; k++) {
			int w = all ? (int)(200.0 * s[k] / all) : 0;

			report__put(p, "<rect x=\"%d\" width=\"%d\" height=\"12\" fill=\"%s\"/>", x, w, colour[k]);
			x += w;
		}
		report__put(p, "</svg></td></tr>\n");
	}
	report__put(p, "</table>\n");
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
	sort__any(t, n, sizeof(*t), cmp_proc);
	report__put(p, "<h2>Top processes (the submitter, at Q)</h2>\n<table id=\"procs\"><tr><th>pid</th><th>comm</th>"
	       "<th>requests</th><th>bytes</th><th>mean Q2C</th><th>max Q2C</th></tr>\n");
	for (size_t i = 0; i < n && i < TOPPROC; i++) {
		report__put(p, "<tr><td>%u</td><td>", t[i].pid);
		report__esc(p, t[i].comm[0] ? t[i].comm : "?");
		report__put(p, "</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n", (unsigned long long)t[i].n,
		    (unsigned long long)t[i].bytes, report__fmt(t[i].q2c_sum / t[i].n), report__fmt(t[i].q2c_max));
	}
	report__put(p, "</table>\n");
	free(t);
}

static int cmp_holder(const void *a, const void *b)
{
	const struct tag_holder *x = a, *y = b;

	return x->wait_ns > y->wait_ns ? -1 : x->wait_ns < y->wait_ns;
}

/* who held the tags requests waited for (slow and record name them) */
static void holders(struct rep *p)
{
	if (!p->tag_waits)
		return;
	sort__any(p->holder, p->nholder, sizeof(p->holder[0]), cmp_holder);
	report__put(p, "<h2>Who held the tags requests waited for</h2>\n<p>%llu requests waited %s or more for a tag; "
		    "each is counted under the process that held the most of its disk's tags when it began to "
		    "wait, or was given the most while it waited.</p>\n<table id=\"tagholders\"><tr><th>disk</th>"
		    "<th>pid</th><th>comm</th><th>waits</th><th>their Q2G</th><th>its tags at their starts</th>"
		    "<th>given it meanwhile</th></tr>\n", (unsigned long long)p->tag_waits, report__fmt(LIFE_TAG_MIN_NS));
	for (unsigned i = 0; i < p->nholder; i++) {
		const struct tag_holder *h = &p->holder[i];

		report__put(p, "<tr><td>");
		report__esc(p, disks__name(h->dev));
		report__put(p, "</td><td>%u</td><td>", h->pid);
		report__esc(p, h->comm[0] ? h->comm : "?");
		report__put(p, "</td><td>%llu</td><td>%s</td><td>%llu</td><td>%llu</td></tr>\n", (unsigned long long)h->waits,
			    report__fmt(h->wait_ns), (unsigned long long)h->held, (unsigned long long)h->given);
	}
	if (p->tag_waits_other)
		report__put(p, "<tr><td colspan=\"3\">others</td><td>%llu</td><td></td><td></td><td></td></tr>\n",
			    (unsigned long long)p->tag_waits_other);
	report__put(p, "</table>\n");
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

	report__put(p, "<td class=\"stack\">");
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
		report__put(p, "<details><summary>");
		report__esc(p, label ? label : "?");
		report__put(p, "</summary><pre>");
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
			report__esc(p, line);
			report__put(p, "\n");
		}
		report__put(p, "</pre></details>");
		free(buf);
	}
	report__put(p, "</td>");
}

static void slowest(struct rep *p)
{
	struct rq **s = malloc((p->n ? p->n : 1) * sizeof(*s));
	char op[32], value[SYSFS_VALUE_LEN];

	if (!s)
		return;
	for (size_t i = 0; i < p->n; i++)
		s[i] = &p->r[i];
	sort__any(s, p->n, sizeof(*s), cmp_q2c);
	report__put(p, "<h2>The slowest requests</h2>\n<table id=\"slowest\"><tr><th>at</th><th>disk</th><th>op</th>"
	       "<th>bytes</th><th>pid</th><th>comm</th><th>Q2G</th><th>G2I</th><th>I2D</th><th>D2C</th><th>Q2C</th>"
	       "<th>dominant</th><th>queue writer</th>%s</tr>\n",
	    p->stacks ? "<th>code path (at submission)</th>" : "");
	for (size_t i = 0; i < p->n && i < SLOWEST; i++) {
		const struct rq *r = s[i];
		const char *dom = life__dominant(r->ph, (r->seen & (SEEN_Q | SEEN_G | SEEN_D)) ==
							 (SEEN_Q | SEEN_G | SEEN_D));

		report__put(p, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%u</td><td>%u</td><td>", report__fmt(r->t - p->first_c),
		    disks__name(r->dev), reqflags__op_name(&p->pr.rf, r->cmd_flags, op, sizeof(op)), r->bytes, r->pid);
		report__esc(p, r->comm[0] ? r->comm : "?");
		report__put(p, "</td>");
		for (int k = PH_Q2G; k <= PH_Q2C; k++)
			report__put(p, "<td>%s</td>", report__fmt(r->ph[k]));
		report__put(p, "<td>%s</td><td>", dom ? dom : "-");
		if (r->culprit >= 0) {
			const struct life_sysfs *w = &p->w[r->culprit];

			report__esc(p, w->comm);
			printer__value(w->value, value, sizeof(value));
			report__put(p, " [%u] wrote ", w->pid);
			report__esc(p, value);
			report__put(p, " to queue/");
			report__esc(p, w->attr);
		}
		report__put(p, "</td>");
		if (p->stacks)
			stack_cell(p, r);
		report__put(p, "</tr>\n");
	}
	report__put(p, "</table>\n");
	free(s);
}

static void overhead(struct rep *p)
{
	const struct life_stats *s = &p->sum.s;

	report__put(p, "<h2>What iodig saw and lost</h2>\n<table id=\"overhead\">\n");
	report__put(p, "<tr><td>requests recorded</td><td>%zu</td></tr>\n", p->n);
	if (p->have_sum) {
		report__put(p, "<tr><td>completions seen</td><td>%llu</td></tr>\n", (unsigned long long)s->completed);
		report__put(p, "<tr><td>records lost (ring buffer full)</td><td>%llu</td></tr>\n", (unsigned long long)s->lost);
		report__put(p, "<tr><td>partial (Q, G or D not seen)</td><td>%llu</td></tr>\n", (unsigned long long)s->partial);
		report__put(p, "<tr><td>untracked (slot taken)</td><td>%llu</td></tr>\n", (unsigned long long)s->untracked);
		report__put(p, "<tr><td>skipped (the kernel ran no program)</td><td>%lld</td></tr>\n",
		    (long long)p->sum.skipped);
		report__put(p, "<tr><td>missed (a program already running)</td><td>%llu</td></tr>\n",
		    (unsigned long long)p->sum.missed);
	} else {
		report__put(p, "<tr><td>summary</td><td>none: the recording was cut short</td></tr>\n");
	}
	report__put(p, "</table>\n");
}

int report__write_html(struct rep *p, const char *src)
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
	sort__any(devs, nd, sizeof(devs[0]), cmp_dev);
	/* 60 columns, none shorter than 10 ms (a short recording gets fewer) */
	cols = span / 10000000ULL + 1 < COLS ? (int)(span / 10000000ULL + 1) : COLS;
	report__put(p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>iodig report</title>\n"
	       "<style>body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse;margin:8px 0}"
	       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f4f4f4}"
	       "svg{background:#fcfcfc;border:1px solid #eee}td.stack{text-align:left}"
	       "td.stack pre{margin:2px 0;font-size:12px}</style></head><body>\n"
	       "<h1>iodig report</h1>\n<p>From <code>");
	report__esc(p, src);
	report__put(p, "</code>, a recording of <code>iodig %s</code>: %zu requests over %s on %d disk%s.</p>\n", p->command,
	    p->n, report__fmt(span), nd, nd == 1 ? "" : "s");
	if (p->top)
		p->top(p, p->top_ctx);
	if (!p->n) {
		report__put(p, "<p>No request in the recording.</p>\n");
	} else {
		heatmap(p, span, cols);
		percentiles(p, devs, nd, span, cols);
		phases(p, devs, nd);
		procs(p);
		holders(p);
		slowest(p);
	}
	overhead(p);
	report__put(p, "</body></html>\n");
	return 0;
}


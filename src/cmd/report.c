// SPDX-License-Identifier: GPL-2.0
/*
 * iodig report FILE.rec -o report.html: one self-contained HTML page (no
 * script, no network) from a recording of snoop or slow: a latency heatmap
 * (time x Q2C, colour = requests), p50 and p99 over time per disk, the
 * phase breakdown per disk, the top processes, who held the tags requests
 * waited for (slow and record name them), the slowest requests with
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

#include "report_int.h"

void report__put(struct rep *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
}

/* Text into HTML: & < > " escaped, control bytes and invalid UTF-8 as \xNN. */
void report__esc(struct rep *p, const char *s)
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

/* a request that waited for a tag: its holders' first, by disk and process */
static void add_holder(struct rep *p, const struct life_req *r, const __u64 *ph)
{
	struct tag_sum t;
	unsigned k;

	if (!printer__tags_of(&p->pr, r, &t) || !(t.held + t.given) || ph[PH_Q2G] < LIFE_TAG_MIN_NS)
		return;
	p->tag_waits++;
	for (k = 0; k < p->nholder; k++)
		if (p->holder[k].dev == r->dev && p->holder[k].pid == t.top[0].pid)
			break;
	if (k == p->nholder) {
		if (k == TAGHOLDERS) {
			p->tag_waits_other++;
			return;
		}
		p->nholder++;
		p->holder[k].dev = r->dev;
		p->holder[k].pid = t.top[0].pid;
		memcpy(p->holder[k].comm, t.top[0].comm, LIFE_COMM_LEN);
	}
	p->holder[k].waits++;
	p->holder[k].wait_ns += ph[PH_Q2G];
	p->holder[k].held += t.top[0].held;
	p->holder[k].given += t.top[0].given;
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
	add_holder(p, r, q->ph);
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

int report__row_of(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int k = 0;

	while (us && k < ROWS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

const char *report__fmt(uint64_t ns)
{
	static char b[4][32];
	static int i;

	i = (i + 1) % 4;
	return fmt_ns(b[i], sizeof(b[i]), ns);
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
			 "time went (phases), top processes, who held the tags requests waited for, the\n"
			 "slowest requests and the queue writer that froze them, and what iodig lost.\n",
		.opts = opts, .opt = report_opt, .args = report_args };
	struct cli_common c = {};
	int err = cli__prologue(&cmd, argc, argv, &c, NULL);

	if (err >= 0)
		return err;
	return report__file(argv[optind], out_path, NULL, NULL);
}

int report__file(const char *src, const char *out_path, void (*top)(struct rep *p, void *ctx), void *top_ctx)
{
	struct rep p = { .top = top, .top_ctx = top_ctx };
	struct recfile r;
	char why[96];
	bool damaged;
	bool tables = false;
	off_t total = 0;
	int err;

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
		const struct life_req *rq;
		struct life_req old;
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
		} else if (type == RECF_SUMMARY && req_summary__of(data, size, &p.sum)) {
			p.have_sum = true;
		} else if ((type == REC_SYSFS_START || type == REC_SYSFS_END) && size >= sizeof(struct life_sysfs)) {
			printer__remember(&p.pr, data);
		} else if (type == REC_TAGS) {
			printer__record(&p.pr, data, size);	/* kept for its request */
		} else if (type == REC_REQ && (rq = life_req__of(data, size, &old))) {
			if ((err = add_rq(&p, rq)))
				break;
		}
	}
	if (total)
		fprintf(stderr, "\r\033[K");	/* the progress line erased */
	/* a damaged or cut frame: the page of what came before, and exit 1,
	 * as replay prints what came before and exits 1 */
	damaged = err == -EIO || err == -EBADMSG;
	recfile__why(&r, err, why, sizeof(why));
	recfile__close(&r);
	if (err < 0 && !damaged) {
		err = fail("recording", "%s: %s", src, why);
		goto out;
	}
	if (!tables) {
		err = fail("recording", "%s: %s", src, damaged ? why : "no tables before the records: not a "
			   "recording iodig wrote");
		goto out;
	}
	if (!(p.out = fopen(out_path, "w"))) {
		err = fail(out_path, "%s", strerror(errno));
		goto out;
	}
	report__write_html(&p, src);
	err = fclose(p.out) ? fail(out_path, "%s", strerror(errno)) : 0;
	if (!err && damaged)
		err = fail("recording", "%s: %s: %s holds the %zu requests before", src, why, out_path, p.n);
	else if (!err && !p.have_sum)
		err = fail("recording", "%s: ends after %zu requests without a summary: the recording iodig was "
			   "stopped before it ended (SIGKILL, a crash); %s holds them", src, p.n, out_path);
	else if (!err)
		fprintf(stderr, "iodig report: %zu requests from %s into %s\n", p.n, src, out_path);
out:
	printer__free(&p.pr);
	free(p.r);
	free(p.w);
	return err;
}

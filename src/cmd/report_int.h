/* SPDX-License-Identifier: GPL-2.0 */
/* iodig report's own parts: reading the recording (report.c) and writing the
 * page (report_html.c). */
#ifndef IODIG_REPORT_INT_H
#define IODIG_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "life_user.h"
#include "records.h"

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

/* who held the tags requests waited for (REC_TAGS): the first named of
 * each wait's holders, by disk and process */
#define TAGHOLDERS 32
struct tag_holder {
	uint32_t dev, pid;
	char comm[LIFE_COMM_LEN];
	uint64_t waits, wait_ns;	/* the waits it headed, their Q2G */
	uint64_t held, given;		/* its tags at those waits' starts, given meanwhile */
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
	struct tag_holder holder[TAGHOLDERS];
	unsigned nholder;
	uint64_t tag_waits, tag_waits_other;	/* waits with holders named; of holders beyond the table */
	FILE *out;
	void (*top)(struct rep *p, void *ctx);	/* a section above the rest (doctor's findings) */
	void *top_ctx;
};

void report__put(struct rep *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report__esc(struct rep *p, const char *s);	/* s as HTML text */
int report__row_of(uint64_t ns);	/* the heatmap row of a Q2C */
const char *report__fmt(uint64_t ns);	/* "812ns", "1.25ms": in a static buffer */
int report__write_html(struct rep *p, const char *src);
/* The page of recording src into out_path, with top's section first (or
 * NULL); 0 or the exit status, said. */
int report__file(const char *src, const char *out_path, void (*top)(struct rep *p, void *ctx), void *top_ctx);

#endif

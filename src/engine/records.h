/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request printer: block requests and queue-attribute writes from the
 * life engine's ring buffer (or a recording), as text or JSON, with the
 * end-of-run summary.  slow, snoop, sysfs and replay print through it, so a
 * replay prints what the live command printed.
 */
#ifndef IODIG_RECORDS_H
#define IODIG_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fields.h"
#include "frames.h"
#include "json.h"
#include "kmemo.h"
#include "life_user.h"
#include "recfile.h"
#include "reqflags.h"

#define MAX_WINDOWS 256

/* What the summary says at the end of a run: from the engine live, from the
 * recording in a replay. */
struct req_summary {
	uint32_t followed;	/* requests followed from Q (snoop), or watched (slow) */
	uint32_t kernel_q;	/* Q stamps are the kernel's */
	uint32_t sysfs_on;	/* queue writes were watched */
	uint32_t owners;	/* writes carry their data's dirtier (life_req.wb_pid);
				 * 0 in recordings made before it */
	struct life_stats s;
	uint64_t in_flight, missed;
	int64_t skipped;	/* signed: skipped.h */
};
_Static_assert(offsetof(struct req_summary, s) + sizeof(struct life_stats) ==
	       offsetof(struct req_summary, in_flight), "req_summary__of: the stats end where the tail begins");
/* a RECF_SUMMARY's bytes, of this build or an older one; false: neither */
bool req_summary__of(const void *data, size_t size, struct req_summary *sum);

/* A REC_TAGS added up by process: who held the disk's tags when a request
 * began to wait, who was given tags while it waited, the most first. */
#define TAG_TOP 4
struct tag_sum {
	bool valid, cut;
	uint32_t dev;
	uint64_t c;
	uint32_t held, given, others_held, others_given;
	uint32_t not_seen_to_end;	/* unended beyond the queue's tags: left out */
	struct {
		uint32_t pid, held, given;
		char comm[LIFE_COMM_LEN];
	} top[TAG_TOP];
};

/* A REC_TAGS added up by process, the most tags first (at most TAG_TOP
 * named, the rest in others_*); tags beyond the queue's depth left out. */
void records__tags_sum(struct tag_sum *s, const struct life_tags *t);

/* What a request's record says once it is decoded: its phases, the queue
 * write that froze it, who held the tags it waited for.  A printer with a
 * sink hands each record to it instead of printing it (iodig doctor). */
struct req_seen {
	const struct life_req *r;
	const __u64 *ph;		/* PH_NR phases */
	bool complete;			/* Q, G and D seen */
	const struct life_sysfs *w;	/* the write its Q2G overlapped, or NULL */
	const struct tag_sum *tags;	/* who held tags when it began to wait, or NULL */
	bool read, write;		/* REQ_OP_READ, REQ_OP_WRITE (by their names in BTF) */
};

struct printer_sink {
	void (*req)(void *ctx, const struct req_seen *s);
	void (*upper)(void *ctx, const struct life_upper *u);
	void (*write)(void *ctx, const struct life_sysfs *w);	/* a write's end */
	void *ctx;
};

struct req_printer {
	bool json, snoop;	/* snoop: queue writes matched, not printed */
	struct reqflags rf;
	struct json j;
	uint64_t t0;		/* CLOCK_MONOTONIC at start, ns: bpf_ktime_get_ns()'s clock */
	struct life_sysfs win[MAX_WINDOWS];	/* recent queue attribute writes */
	int nwin, next;
	uint64_t attributed, shown;
	int disk_w, sector_w;	/* text columns, sized to the disks present */
	struct recfile rec;	/* --record: every record, as it came */
	int rec_err;
	bool kstack, ustack;	/* -K/-U: each request's stacks at Q */
	int stack_fd;		/* its kernel stacks' map (life__kstack_fd()); -1 in a replay */
	bool kmemo;		/* -K: kernel stacks from memos; km says how they were taken */
	struct kmemo_stats km;
	int ustack_fd;		/* ... its user stacks' (life__ustack_fd()) */
	struct ustacks kcache, ucache;	/* stacks named, by id (user: and pid); a
					 * replay's come from the recording */
	struct ksyms *ks;
	struct usyms *us;
	struct tag_sum tags[8];		/* REC_TAGS waiting for their request's record */
	unsigned ntags;
	uint64_t tag_waits;		/* requests shown with who was given tags */
	const struct printer_sink *sink;	/* not NULL: records go there, not out */
};

/* JSON or text to stdout, default column widths. */
void printer__init(struct req_printer *p, bool json, bool snoop);
/* -K/-U: symbols loaded to name each request's stacks (stack_fd set once the
 * engine runs).  0 or the exit status. */
int printer__stacks(struct req_printer *p, bool kernel, bool user);
void printer__free(struct req_printer *p);
/* Text columns wide enough for every disk now present. */
void printer__widths(struct req_printer *p);
void printer__header(struct req_printer *p);
/* One record (REC_REQ, REC_SYSFS_*) printed, or remembered (a write's start). */
void printer__record(struct req_printer *p, const void *data, size_t size);
void printer__sysfs(struct req_printer *p, const struct life_sysfs *w);
/* A queue write's value as written, up to its first newline. */
void printer__value(const char *in, char *out, size_t len);
/* Text: who wrote a queue attribute, escaped: 'udevadm[414]: sdb/queue/scheduler
 * = "none"' (val: the value up to its first newline).  What snprintf returns. */
size_t printer__writer(char *b, size_t n, const struct life_sysfs *w, const char *disk, const char *val);
/* A queue write's start or end kept (not printed), for printer__culprit. */
void printer__remember(struct req_printer *p, const struct life_sysfs *w);
/* The queue-attribute write on r's disk that overlapped r's wait before
 * allocation (Q2G; ph: r's phases), or NULL. */
const struct life_sysfs *printer__culprit(struct req_printer *p, const struct life_req *r, const __u64 *ph);
/* Who held the tags r waited for: the REC_TAGS printer__record kept for it
 * (it comes just before its request), taken.  False: none came. */
bool printer__tags_of(struct req_printer *p, const struct life_req *r, struct tag_sum *out);
/* The ring buffer's callback: into the recording, if any, then printed. */
int printer__on_record(void *ctx, void *data, size_t size);
void printer__summary_of(struct life *l, struct req_summary *sum);
void printer__summary(struct req_printer *p, const struct req_summary *sum);
/* The tables a replay needs, first in the recording (created already). */
int printer__record_tables(struct req_printer *p, const char *path);

/* A REC_UPPER: a bio of a bio-based disk and its lowers (records_stack.c). */
void printer__upper(struct req_printer *p, const struct life_upper *u);
void printer__stack_summary(struct req_printer *p, const struct life_stack_stats *s);
/* The text columns' widths for a DISK and a SECTOR (fields.h's width()):
 * fctx.user is the printer. */
int printer__w_disk(const struct fctx *c);
int printer__w_sector(const struct fctx *c);

/* Its records, declared once (fields.h): for iodig schema. */
extern const struct rec request_rec, queue_write_rec, summary_rec, bio_rec, stack_summary_rec;

#endif

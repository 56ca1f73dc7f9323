// SPDX-License-Identifier: GPL-2.0
/*
 * iodig record: a flight recorder.  Every request's record (slow 0: every
 * request, watched, with queue-attribute writes) is kept in memory for the
 * last --keep seconds, at most --max-mb; when the trigger fires (the p99 or
 * the max of Q2C over the last second past a bound) or on SIGUSR1, what is
 * kept goes to PREFIX-N.rec, a recording replay, report and --perfetto
 * read, and the recorder goes on.  What was dropped for room is counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "filter.h"
#include "hist_user.h"
#include "life_user.h"
#include "log.h"
#include "recfile.h"
#include "records.h"
#include "run.h"

enum { OPT_KEEP = OPT_FIRST_CMD, OPT_TRIGGER, OPT_MAX_MB, OPT_MAX_FILES };

/* one record as it came, kept */
struct kept {
	uint64_t at;		/* when it arrived, CLOCK_MONOTONIC ns */
	uint32_t size;
	unsigned char data[];
};

/* A kept record's bytes in the ring, header included, 8-aligned. */
static size_t kept_len(uint32_t size)
{
	return (sizeof(struct kept) + size + 7) & ~(size_t)7;
}

struct rec_opts {
	struct cli_common c;
	const char *prefix, *disk;
	unsigned long long keep_s, max_mb, max_files;
	double pct;		/* 0.99 for p99, 1 for max; 0: no trigger */
	uint64_t bound_ns;
	struct disk_sel sel;
};

struct rec_ctx {
	struct rec_opts *o;
	struct life *l;
	struct req_printer pr;	/* tables for the files */
	/* The records kept: one ring of --max-mb bytes (its pages touched as
	 * they fill), each record after the last, oldest at head.  One that
	 * does not fit before the end starts again at 0; wrap then marks where
	 * the part before it ends (0: not wrapped).  A malloc'd record each,
	 * and an array of pointers, made 64 MiB of records 79 MB of RSS. */
	unsigned char *ring;
	size_t cap, head, tail, wrap, n;
	uint64_t last_at;	/* the newest record's */
	uint64_t bytes, dropped, dumps, written;
	struct hist second;	/* Q2C of this second's requests */
};

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	usr1 = 1;
}

static struct kept *oldest(struct rec_ctx *rc)
{
	return (struct kept *)(rc->ring + rc->head);
}

static void drop_oldest(struct rec_ctx *rc)
{
	size_t len = kept_len(oldest(rc)->size);

	rc->bytes -= len;
	rc->head += len;
	if (rc->wrap && rc->head >= rc->wrap)
		rc->head = rc->wrap = 0;
	if (!--rc->n)
		rc->head = rc->tail = rc->wrap = 0;
}

/* Room for len bytes at the end of what is kept, or NULL when even an empty
 * ring has none. */
static struct kept *room(struct rec_ctx *rc, size_t len)
{
	for (;;) {
		size_t at = rc->tail;

		if (!rc->wrap && rc->tail + len <= rc->cap) {
			rc->tail += len;
		} else if (!rc->wrap && len <= rc->head) {
			rc->wrap = rc->tail;	/* (head > 0: n > 0) */
			at = 0;
			rc->tail = len;
		} else if (rc->wrap && rc->tail + len <= rc->head) {
			rc->tail += len;
		} else if (rc->n) {
			drop_oldest(rc);
			rc->dropped++;
			continue;
		} else {
			return NULL;
		}
		return (struct kept *)(rc->ring + at);
	}
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rec_ctx *rc = ctx;
	const struct life_req *r = data;
	uint64_t now;
	struct kept *k;

	/* kept from its completion (the kernel's CLOCK_MONOTONIC, as
	 * run__mono_ns()): no clock read for a request's record */
	if (size >= sizeof(*r) && r->type == REC_REQ) {
		__u64 ph[PH_NR];

		life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
		hist__add(&rc->second, ph[PH_Q2C]);
		now = r->c;
	} else if (size >= sizeof(struct life_upper) && r->type == REC_UPPER) {
		/* a bio-based disk's bio: submission to its end */
		const struct life_upper *u = data;

		hist__add(&rc->second, u->c > u->q ? u->c - u->q : 0);
		now = u->c;
	} else {
		now = run__mono_ns();
	}
	if (!(k = room(rc, kept_len(size)))) {
		rc->dropped++;	/* bigger than --max-mb */
		return 0;
	}
	k->at = now;
	k->size = size;
	memcpy(k->data, data, size);
	rc->n++;
	rc->bytes += kept_len(size);
	rc->last_at = now;
	return 0;
}

/* PREFIX's directory, with its '/' ("./" for none); PREFIX's last part. */
static const char *prefix_dir(const char *prefix, char *dir, size_t len)
{
	const char *base = strrchr(prefix, '/');

	snprintf(dir, len, "%.*s", base ? (int)(base - prefix) + 1 : 2, base ? prefix : "./");
	return base ? base + 1 : prefix;
}

/* The recordings PREFIX-N.rec there are: the highest N, and those at or
 * below drop_upto removed (the oldest, past --max-files). */
static unsigned long long recordings(const char *prefix, unsigned long long drop_upto)
{
	char dir[4096], path[4096 + 256];
	const char *base = prefix_dir(prefix, dir, sizeof(dir));
	unsigned long long max = 0, n;
	struct dirent *e;
	size_t blen;
	DIR *d;
	int end;

	blen = strlen(base);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, blen) || e->d_name[blen] != '-' ||
		    sscanf(e->d_name + blen + 1, "%llu.rec%n", &n, &end) != 1 || e->d_name[blen + 1 + end])
			continue;
		if (n <= drop_upto) {
			snprintf(path, sizeof(path), "%s%s", dir, e->d_name);
			unlink(path);
		} else if (n > max) {
			max = n;
		}
	}
	closedir(d);
	return max;
}

/* Everything kept into PREFIX-N.rec, then forgotten: the next file starts
 * where this one ended. */
static int dump(struct rec_ctx *rc, const char *why)
{
	char path[4096];
	struct req_summary sum;
	uint64_t n = rc->n, span = n ? rc->last_at - oldest(rc)->at : 0;
	int err;

	snprintf(path, sizeof(path), "%s-%llu.rec", rc->o->prefix, (unsigned long long)++rc->dumps);
	if ((err = recfile__create(&rc->pr.rec, path)))
		return fail("writing the recording", "%s: %s", path, strerror(-err));
	err = printer__record_tables(&rc->pr, path);
	while (!err && rc->n) {
		struct kept *k = oldest(rc);

		err = recfile__write(&rc->pr.rec, *(uint32_t *)k->data, k->data, k->size);
		drop_oldest(rc);
	}
	printer__summary_of(rc->l, &sum);
	if (!err)
		err = recfile__write(&rc->pr.rec, RECF_SUMMARY, &sum, sizeof(sum));
	if (recfile__close(&rc->pr.rec) || err)
		return fail("writing the recording", "%s: %s", path, strerror(EIO));
	rc->written += n;
	if (rc->o->max_files && rc->dumps > rc->o->max_files)
		recordings(rc->o->prefix, rc->dumps - rc->o->max_files);
	fprintf(stderr, "%siodig record: %s: %llu records over %.1f s (%s)\n", isatty(STDERR_FILENO) ? "\r\033[K" : "",
		path, (unsigned long long)n, span / 1e9, why);
	return 0;
}

static int rec_opt(void *ctx, int opt, const char *arg)
{
	struct rec_opts *o = ctx;
	char what[8];
	double ms;
	int used = 0;

	switch (opt) {
	case OPT_TRIGGER:
		if (sscanf(arg, "%7[a-z0-9]>%lfms%n", what, &ms, &used) != 2 || used != (int)strlen(arg) || ms <= 0 ||
		    (strcmp(what, "p99") && strcmp(what, "p90") && strcmp(what, "p50") && strcmp(what, "max")))
			return usage_error("--trigger '%s': p50, p90, p99 or max of Q2C over a second, as "
					   "'p99>20ms'", arg);
		o->pct = !strcmp(what, "max") ? 1.0 : atoi(what + 1) / 100.0;
		o->bound_ns = (uint64_t)(ms * 1e6);
		return 0;
	}
	return -1;
}

static int rec_args(void *ctx, int argc, char **argv, int optind)
{
	struct rec_opts *o = ctx;

	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return o->prefix ? 0 : usage_error("-o PREFIX: where the recordings go (PREFIX-1.rec, ...)");
}

int cmd_record(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "output", 'o', "PREFIX", "write recordings to PREFIX-1.rec, PREFIX-2.rec, ...", CLI_STR_AT(struct rec_opts, prefix) },
		{ "keep", OPT_KEEP, "SECONDS", "keep the last SECONDS of records (default 30)", CLI_UINT_AT(struct rec_opts, keep_s, 1, 86400, "seconds, 1 to 86400") },
		{ "max-mb", OPT_MAX_MB, "MIB", "keep at most MIB MiB of records (default 64)", CLI_UINT_AT(struct rec_opts, max_mb, 1, 65536, "MiB, 1 to 65536") },
		{ "trigger", OPT_TRIGGER, "STAT>MS", "write what is kept when p50, p90, p99 or max of Q2C over\n"
						      "the last second passes MS: 'p99>20ms'" },
		{ "max-files", OPT_MAX_FILES, "N", "keep the newest N recordings, removing older PREFIX-N.rec\n"
						   "(default: every one)", CLI_UINT_AT(struct rec_opts, max_files, 1, 1000000, "recordings, 1 or more") },
		{ "disk", 'd', "DISK", "only this disk (or partition)", CLI_STR_AT(struct rec_opts, disk) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "record", .synopsis = "-o PREFIX [--keep S] [--trigger 'p99>20ms'] [options]",
		.about = "A flight recorder: the last --keep seconds of block requests (every one, with its\n"
			 "phases, and the queue-attribute writes) kept in memory; when the trigger fires or\n"
			 "on SIGUSR1, written to PREFIX-N.rec (for replay, report and --perfetto), and the\n"
			 "recording goes on.  N goes on from the highest PREFIX-N.rec already there.\n",
		.notes = "A request takes 128 bytes kept: 64 MiB hold 524,288 requests (the last ones).\n",
		.opts = opts, .opt = rec_opt, .args = rec_args, .tracing = true, .slim_btf = true,
		.privileges = "Without CAP_DAC_READ_SEARCH (tracefs root's alone), queue attribute writes are not\n"
			 "watched, said once.  iodig-record.service runs\n"
			 "it as a dynamic user with CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH alone.\n" };
	struct rec_opts o = { .keep_s = 30, .max_mb = 64 };
	struct rec_ctx rc = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_SLOW, .min_ns = 0, .sysfs = true, .lazy_grants = true };
	struct life l = {};
	const struct btf *vmlinux;
	char dir[4096];
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t next_second;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	cfg.dev = o.sel.disk;
	cfg.part = o.sel.part;
	rc.l = &l;
	/* said now, not when the incident comes and nothing can be written */
	prefix_dir(o.prefix, dir, sizeof(dir));
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		return fail("writing recordings", "%s: %s", dir, strerror(errno));
	rc.dumps = recordings(o.prefix, 0);	/* a restart overwrites nothing */
	rc.cap = o.max_mb << 20;
	if (!(rc.ring = malloc(rc.cap)))	/* (mapped: its pages count as they fill) */
		return fail("keeping records", "out of memory for --max-mb %llu", o.max_mb);
	if (!(vmlinux = bpfenv__vmlinux())) {
		free(rc.ring);
		return fail("reading kernel BTF", "%s", strerror(errno));
	}
	cfg.kernel_q = life__kernel_q(vmlinux);
	err = reqflags__load(&rc.pr.rf, vmlinux);
	if (err) {
		free(rc.ring);
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	}
	printer__init(&rc.pr, false, false);
	if ((err = life__start(&l, &cfg, on_record, &rc)))
		goto out;
	if (!l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", l.sysfs_why);
	rc.pr.t0 = run__mono_ns();
	printer__widths(&rc.pr);
	sigaction(SIGUSR1, &sa, NULL);
	run__signals();
	{
		char msg[256];

		snprintf(msg, sizeof(msg), "Recording block I/O: the last %llu s kept, at most %llu MiB; written to "
			 "%s-N.rec on SIGUSR1%s%s... Hit Ctrl-C to end.", o.keep_s, o.max_mb, o.prefix,
			 o.pct ? " or when Q2C's " : "", o.pct ? (o.pct >= 1 ? "max passes the bound" : "percentile "
								     "passes the bound") : "");
		if ((err = run__ready(o.c.ready_file, msg)))
			goto out;
	}
	next_second = run__mono_ns() + 1000000000ULL;
	while (!run__stopping()) {
		uint64_t now;

		if ((err = life__poll(&l, LIFE_DRAIN_MS)) > 0)
			goto out;
		if (err < 0) {
			err = fail("reading records", "%s", strerror(-err));
			goto out;
		}
		now = run__mono_ns();
		while (rc.n && oldest(&rc)->at + o.keep_s * 1000000000ULL < now)
			drop_oldest(&rc);	/* older than the window: not a loss */
		if (usr1) {
			usr1 = 0;
			if ((err = dump(&rc, "SIGUSR1")))
				goto out;
		}
		if (now >= next_second) {
			if (o.pct && rc.second.count) {
				uint64_t v = o.pct >= 1 ? rc.second.max : hist__percentile(&rc.second, o.pct);

				if (v > o.bound_ns) {
					char why[96], a[32], b[32];

					snprintf(why, sizeof(why), "Q2C %s %s > %s", o.pct >= 1 ? "max" : o.pct > 0.95 ?
						 "p99" : o.pct > 0.85 ? "p90" : "p50", fmt_ns(a, sizeof(a), v),
						 fmt_ns(b, sizeof(b), o.bound_ns));
					if ((err = dump(&rc, why)))
						goto out;
				}
			}
			memset(&rc.second, 0, sizeof(rc.second));
			next_second = now + 1000000000ULL;
			if (isatty(STDERR_FILENO))	/* a status line, rewritten each second */
				fprintf(stderr, "\r\033[Kkept %zu records (%.1f MiB of %llu), %llu written to %llu files, "
					"%llu dropped for room", rc.n, rc.bytes / 1048576.0, o.max_mb,
					(unsigned long long)rc.written, (unsigned long long)rc.dumps,
					(unsigned long long)rc.dropped);
		}
	}
	err = 0;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	{
		struct life_stats st;

		life__stats(&l, &st);
		fprintf(stderr, "iodig record: %llu recordings written; %llu records kept at the end (not written), "
			"%llu dropped for room (--max-mb), %llu lost (ring buffer full), %lld skipped (the kernel "
			"ran no program for them)\n", (unsigned long long)rc.dumps,
			(unsigned long long)rc.n, (unsigned long long)rc.dropped, (unsigned long long)st.lost,
			(long long)life__skipped(&l));
	}
out:
	life__stop(&l);
	free(rc.ring);
	reqflags__free(&rc.pr.rf);
	return err;
}

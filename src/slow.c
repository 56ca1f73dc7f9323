// SPDX-License-Identifier: GPL-2.0
/*
 * iodig slow / iodig snoop: one line per block request, its phases, and for
 * a request stalled before allocation (Q2G) the queue attribute write that
 * froze the queue, when there was one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "bpfx.h"
#include "cli.h"
#include "disks.h"
#include "filter.h"
#include "json.h"
#include "life_user.h"
#include "log.h"
#include "reqflags.h"
#include "life.skel.h"
#include "run.h"
#include "recfile.h"
#include "text.h"

#define MAX_WINDOWS 256

struct slow_opts {
	struct cli_common c;
	const char *disk, *cgroup, *pid, *comm;
	bool own_clock, no_queue_writes;
	uint64_t min_ns, rb_bytes;
	const char *record;	/* --record FILE */
};

/* What the summary says at the end of a run: from the engine live, from the
 * recording in a replay. */
struct slow_summary {
	uint32_t followed;	/* requests followed from Q (snoop), or watched (slow) */
	uint32_t kernel_q;	/* Q stamps are the kernel's */
	uint32_t sysfs_on;	/* queue writes were watched */
	uint32_t pad;
	struct life_stats s;
	uint64_t in_flight, missed, skipped;
};

struct slow_ctx {
	struct slow_opts *o;
	bool snoop;
	struct reqflags rf;
	struct json j;
	uint64_t t0;		/* CLOCK_MONOTONIC at start, ns: bpf_ktime_get_ns()'s clock */
	struct life_sysfs win[MAX_WINDOWS];	/* recent queue attribute writes */
	int nwin, next;
	uint64_t attributed, shown;
	int disk_w, sector_w;	/* text columns, sized to the disks present */
	struct recfile rec;	/* --record: every record, as it came */
	int rec_err;
};

/* A write is remembered at its start (a stalled request can complete before
 * the write returns) and completed by its end record. */
static void window_add(struct slow_ctx *x, const struct life_sysfs *w)
{
	for (int i = 0; i < x->nwin; i++) {
		if (x->win[i].tid == w->tid && x->win[i].start == w->start) {
			x->win[i] = *w;
			return;
		}
	}
	x->win[x->next] = *w;
	x->next = (x->next + 1) % MAX_WINDOWS;
	if (x->nwin < MAX_WINDOWS)
		x->nwin++;
}

/* The write to this disk's queue attributes that overlapped [from, to]. */
static const struct life_sysfs *window_find(struct slow_ctx *x, const char *disk, uint64_t from, uint64_t to)
{
	const struct life_sysfs *best = NULL;

	for (int i = 0; i < x->nwin; i++) {
		const struct life_sysfs *w = &x->win[i];

		if (strcmp(w->disk, disk) || w->start > to || (w->end && w->end < from))
			continue;
		if (!best || w->start > best->start)
			best = w;
	}
	return best;
}

static void value_clean(const char *in, char *out, size_t len)
{
	snprintf(out, len, "%s", in);
	out[strcspn(out, "\n")] = '\0';
}

static void print_sysfs(struct slow_ctx *x, const struct life_sysfs *w)
{
	char val[SYSFS_VALUE_LEN];

	value_clean(w->value, val, sizeof(val));
	if (x->o->c.json) {
		json__obj_begin(&x->j);
		json__kstr(&x->j, "type", "queue_write");
		json__ku64(&x->j, "ts_ns", w->start);
		json__kstr(&x->j, "comm", w->comm);
		json__ku64(&x->j, "pid", w->pid);
		json__ku64(&x->j, "ppid", w->ppid);
		json__kstr(&x->j, "disk", w->disk);
		json__kstr(&x->j, "attr", w->attr);
		json__kstr(&x->j, "value", val);
		json__ku64(&x->j, "duration_ns", w->end - w->start);
		json__key(&x->j, "ret");
		json__i64(&x->j, w->ret);
		json__obj_end(&x->j);
		return;
	}
	{
		char comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], disk[TEXT_SAFE_LEN(sizeof(w->disk))],
		     attr[TEXT_SAFE_LEN(sizeof(w->attr))], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

		printf("%-9.3f # queue write: %s[%u] (ppid %u) %s/queue/%s = \"%s\" took %.3f ms%s\n",
		       (w->start - x->t0) / 1e9, text__safe(w->comm, comm, sizeof(comm)), w->pid,
		       w->ppid, text__safe(w->disk, disk, sizeof(disk)),
		       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)),
		       (w->end - w->start) / 1e6, w->ret < 0 ? " (failed)" : "");
	}
}

static void print_req(struct slow_ctx *x, const struct life_req *r)
{
	__u64 ph[PH_NR];
	int complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
	const char *dom = life__dominant(ph, complete), *disk = disks__name(r->dev), *op;
	const struct life_sysfs *w = NULL;
	char ob[16], flags[200], seen[8], comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], sb[16];

	/* stalled before allocation while this disk's queue attributes were
	 * being written: name the writer */
	if ((r->seen & SEEN_Q) && (r->seen & SEEN_G) && ph[PH_Q2G] > 0)
		w = window_find(x, disk, r->q, r->q + ph[PH_Q2G]);
	if (w)
		x->attributed++;
	x->shown++;
	op = reqflags__op_name(&x->rf, r->cmd_flags, ob, sizeof(ob));
	reqflags__flags_str(&x->rf, r->cmd_flags, flags, sizeof(flags));
	life__seen_str(r->seen, seen);

	if (x->o->c.json) {
		struct json *j = &x->j;

		json__obj_begin(j);
		json__kstr(j, "type", "request");
		json__ku64(j, "ts_ns", r->c);
		if (r->seen & SEEN_WHO) {
			json__kstr(j, "comm", r->comm);
			json__ku64(j, "pid", r->pid);
			json__ku64(j, "tid", r->tid);
		} else {	/* who submitted it was not seen */
			json__knull(j, "comm");
			json__knull(j, "pid");
			json__knull(j, "tid");
		}
		json__kstr(j, "disk", disk);
		json__kstr(j, "op", op);
		json__kwords(j, "flags", flags);
		json__ku64(j, "sector", r->sector);
		json__ku64(j, "bytes", r->bytes);
		json__ku64(j, "q2g_ns", ph[PH_Q2G]);
		json__ku64(j, "g2i_ns", ph[PH_G2I]);
		json__ku64(j, "i2d_ns", ph[PH_I2D]);
		json__ku64(j, "d2c_ns", ph[PH_D2C]);
		json__ku64(j, "q2c_ns", ph[PH_Q2C]);
		if (dom)
			json__kstr(j, "dominant", dom);
		else
			json__knull(j, "dominant");
		json__kbool(j, "partial", !complete);
		json__kstr(j, "seen", seen);
		json__kbool(j, "inserted", r->seen & SEEN_I);
		json__kbool(j, "issued", r->seen & SEEN_D);
		json__kbool(j, "split", r->seen & SEEN_SPLIT);
		json__ku64(j, "requeues", r->requeues);
		json__ku64(j, "cgroup", r->cgroup);
		json__key(j, "error");
		json__i64(j, r->error);
		json__kstr(j, "status", reqflags__status(r->error, sb, sizeof(sb)));
		if (w) {
			char val[SYSFS_VALUE_LEN];

			value_clean(w->value, val, sizeof(val));
			json__key(j, "queue_write");
			json__obj_begin(j);
			json__kstr(j, "comm", w->comm);
			json__ku64(j, "pid", w->pid);
			json__kstr(j, "attr", w->attr);
			json__kstr(j, "value", val);
			json__obj_end(j);
		}
		json__obj_end(j);
		return;
	}
	printf("%-9.3f %-15s %-7u %-*s %-7s %-*llu %-8u %8.3f %8.3f %8.3f %8.3f %9.3f %s",
	       (r->c - x->t0) / 1e9,
	       (r->seen & SEEN_WHO) ? text__safe(r->comm, comm, sizeof(comm)) : "?", r->pid,
	       x->disk_w, disk, op, x->sector_w, (unsigned long long)r->sector, r->bytes,
	       ph[PH_Q2G] / 1e6, ph[PH_G2I] / 1e6, ph[PH_I2D] / 1e6, ph[PH_D2C] / 1e6,
	       ph[PH_Q2C] / 1e6, dom ? dom : "partial");
	if (!complete)
		printf(" (seen %s)", seen);
	if (r->error)
		printf(" error=%s", reqflags__status(r->error, sb, sizeof(sb)));
	if (w) {
		char val[SYSFS_VALUE_LEN];

		value_clean(w->value, val, sizeof(val));
		char attr[TEXT_SAFE_LEN(sizeof(w->attr))], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

		printf("  <- queue frozen by %s[%u]: %s/queue/%s = \"%s\"",
		       text__safe(w->comm, comm, sizeof(comm)), w->pid, disk,
		       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)));
	}
	putchar('\n');
}

static void show_record(struct slow_ctx *x, const void *data, size_t size)
{
	uint32_t type = size >= sizeof(uint32_t) ? *(const uint32_t *)data : 0;

	if (type == REC_REQ && size >= sizeof(struct life_req))
		print_req(x, data);
	else if (type == REC_SYSFS_START && size >= sizeof(struct life_sysfs))
		window_add(x, data);
	else if (type == REC_SYSFS_END && size >= sizeof(struct life_sysfs)) {
		window_add(x, data);
		if (!x->snoop)
			print_sysfs(x, data);
	}
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct slow_ctx *x = ctx;

	if (x->rec.f && !x->rec_err)
		x->rec_err = recfile__write(&x->rec, *(uint32_t *)data, data, size);
	show_record(x, data, size);
	return 0;
}

/* A count this run keeps, or JSON null for one it cannot (watched: no
 * table of requests in flight; back merges are not seen). */
static void json_count(struct json *j, const char *key, bool kept, __u64 v)
{
	if (kept)
		json__ku64(j, key, v);
	else
		json__knull(j, key);
}

static void summary_of(struct life *l, struct slow_summary *sum)
{
	*sum = (struct slow_summary){ .followed = !l->watch, .kernel_q = l->kernel_q,
				      .sysfs_on = l->sysfs_on };
	life__stats(l, &sum->s);
	sum->in_flight = life__in_flight(l);
	sum->missed = bpfx__recursion_misses(l->skel->obj);
	sum->skipped = life__skipped(l);
}

static void print_summary(struct slow_ctx *x, const struct slow_summary *sum)
{
	const struct life_stats *sp = &sum->s;
	bool followed = sum->followed;

	if (x->o->c.json) {
		struct json *j = &x->j;

		json__obj_begin(j);
		json__kstr(j, "type", "summary");
		json__kstr(j, "tracking", followed ? "followed" : "watched");
		json__kstr(j, "q_stamp", sum->kernel_q ? "kernel" : "iodig");
		json__ku64(j, "completed", sp->completed);
		json__ku64(j, "records", sp->records);
		json__ku64(j, "lost", sp->lost);
		json__ku64(j, "partial", sp->partial);
		json__ku64(j, "untracked", sp->untracked);
		json__ku64(j, "not_issued", sp->not_issued);
		json_count(j, "merges", followed, sp->merges);
		json__ku64(j, "splits", sp->splits);
		json__ku64(j, "requeues", sp->requeues);
		json_count(j, "abandoned", followed, sp->abandoned);
		json_count(j, "in_flight", followed, sum->in_flight);
		json_count(j, "unseen_end", followed, sp->unseen_end);
		json_count(j, "unstamped", !followed, sp->unstamped);
		json_count(j, "watch_full", !followed, sp->watch_full);
		json__ku64(j, "missed", sum->missed);
		json__ku64(j, "skipped", sum->skipped);
		json__ku64(j, "queue_write_stalls", x->attributed);
		json__kbool(j, "queue_writes_watched", sum->sysfs_on);
		json__obj_end(j);
		return;
	}
	fflush(stdout);
	fprintf(stderr, "\n%llu requests completed, %llu records shown, %llu lost (ring buffer full), "
		"%llu partial (Q, G or D not seen), %llu with the submitter lost (slot taken), ",
		(unsigned long long)sp->completed, (unsigned long long)x->shown,
		(unsigned long long)sp->lost, (unsigned long long)sp->partial,
		(unsigned long long)sp->untracked);
	if (followed)
		fprintf(stderr, "%llu merges, %llu splits, %llu requeues, %llu abandoned in flight, "
			"%llu ended unseen (no program ran at their completion), ",
			(unsigned long long)sp->merges, (unsigned long long)sp->splits,
			(unsigned long long)sp->requeues, (unsigned long long)sp->abandoned,
			(unsigned long long)sp->unseen_end);
	else
		fprintf(stderr, "%llu splits, %llu requeues, %llu requests without a Q stamp, "
			"%llu watch list full, ",
			(unsigned long long)sp->splits, (unsigned long long)sp->requeues,
			(unsigned long long)sp->unstamped, (unsigned long long)sp->watch_full);
	fprintf(stderr, "%llu stalls named a queue write\n", (unsigned long long)x->attributed);
	if (sum->skipped)
		fprintf(stderr, "skipped: %llu requests completed (the kernel counted them in "
			"/sys/block/*/stat) but the kernel ran no BPF program for them: not shown\n",
			(unsigned long long)sum->skipped);
}

enum { OPT_COMM = OPT_FIRST_CMD, OPT_OWN_CLOCK, OPT_BUFFER, OPT_NO_QW, OPT_RECORD };

static const char slow_usage[] =
"Usage: iodig slow [options] [MIN_MS]\n"
"One line per block request slower than MIN_MS (default 10) from bio submission\n"
"(Q) to completion (C), decided in the kernel, split into phases:\n"
"  Q2G submit wait (frozen queue, tag starvation, throttling)  G2I  I2D scheduler\n"
"  D2C device  Q2C total.  The dominant phase is named, and a request stalled while\n"
"  its disk's queue attributes were being written names the writer.\n"
"\n"
"      --no-queue-writes  do not watch writes to queue attributes (the watcher\n"
"                       adds about 350 ns to every write(2), pwrite(2) and\n"
"                       writev(2) on the machine, 45 ns to other system calls)\n";
static const char snoop_usage[] =
"Usage: iodig snoop [options]\n"
"One line per block request (like bcc's biosnoop), with the submitter, taken when\n"
"the bio was queued, and the phases of the request's life (see iodig slow --help).\n";
static const char common_usage[] =
"\n"
"  -d, --disk DISK      only this disk (a partition counts toward its disk)\n"
"  -c, --cgroup PATH    only I/O charged to this cgroup\n"
"  -p, --pid PID        only I/O submitted by this process\n"
"      --comm NAME      only I/O submitted by tasks with this name\n"
"      --own-clock      stamp allocation and issue in BPF, not from struct request\n"
"      --buffer-size N  ring buffer bytes, a power of 2 (default 8388608)\n"
"      --record FILE    also write every record to FILE, with what decoding it\n"
"                       needs elsewhere: iodig replay FILE prints it again\n"
CLI_COMMON_HELP
"\nLost records are counted and shown, never dropped silently.\n";

static int slow_parse(int argc, char **argv, struct slow_opts *o, bool snoop)
{
	static const struct option longs[] = {
		{ "disk", required_argument, 0, 'd' },
		{ "cgroup", required_argument, 0, 'c' },
		{ "pid", required_argument, 0, 'p' },
		{ "comm", required_argument, 0, OPT_COMM },
		{ "own-clock", no_argument, 0, OPT_OWN_CLOCK },
		{ "buffer-size", required_argument, 0, OPT_BUFFER },
		{ "no-queue-writes", no_argument, 0, OPT_NO_QW },
		{ "record", required_argument, 0, OPT_RECORD },
		CLI_COMMON_LONG,
		{}
	};
	unsigned long long v;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:c:p:vh", longs, NULL)) != -1) {
		if (cli__common(opt, &o->c))
			continue;
		switch (opt) {
		case 'd': o->disk = optarg; break;
		case 'c': o->cgroup = optarg; break;
		case 'p': o->pid = optarg; break;
		case OPT_COMM:
			if (strlen(optarg) >= LIFE_COMM_LEN)
				return usage_error("--comm '%s': a task name has at most %d characters", optarg,
						   LIFE_COMM_LEN - 1);
			o->comm = optarg;
			break;
		case OPT_OWN_CLOCK: o->own_clock = true; break;
		case OPT_NO_QW:
			if (snoop)	/* snoop never watches them */
				return usage_error("unknown option '--no-queue-writes'");
			o->no_queue_writes = true;
			break;
		case OPT_RECORD: o->record = optarg; break;
		case OPT_BUFFER:
			if (!cli__uint(optarg, 4096, 1ULL << 30, &v) || (v & (v - 1)))
				return usage_error("--buffer-size '%s': a power of 2 from 4096 to 1073741824", optarg);
			o->rb_bytes = v;
			break;
		default: return cli__bad_option(opt, argv);
		}
	}
	if (o->c.help)
		return 0;
	o->min_ns = 10 * 1000000ULL;
	if (!snoop && optind < argc) {
		char *end;
		double ms = strtod(argv[optind], &end);

		if (!cli__is_decimal(argv[optind], true) || *end || ms > 3600e3)
			return usage_error("invalid MIN_MS '%s': milliseconds, 0 or more", argv[optind]);
		o->min_ns = (uint64_t)(ms * 1e6);
		optind++;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static void print_header(struct slow_ctx *x)
{
	if (!x->o->c.json)
		printf("%-9s %-15s %-7s %-*s %-7s %-*s %-8s %8s %8s %8s %8s %9s %s\n", "TIME(s)", "COMM",
		       "PID", x->disk_w, "DISK", "OP", x->sector_w, "SECTOR", "BYTES", "Q2G(ms)", "G2I(ms)",
		       "I2D(ms)", "D2C(ms)", "Q2C(ms)", "DOMINANT");
}

/* The tables a replay needs, first in the file: what the printer reads
 * besides the records themselves. */
static int record_start(struct slow_ctx *x, bool snoop)
{
	char meta[512], *flags = reqflags__to_text(&x->rf), *disks = disks__to_text();
	struct timespec wall, mono;
	struct utsname u;
	int err, n;

	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	uname(&u);
	n = snprintf(meta, sizeof(meta),
		     "command %s\nt0_ns %llu\nboot_wall_ns %llu\ndisk_w %d\nsector_w %d\nkernel %s\nhost %s\n",
		     snoop ? "snoop" : "slow", (unsigned long long)x->t0,
		     (unsigned long long)((wall.tv_sec - mono.tv_sec) * 1000000000LL + wall.tv_nsec - mono.tv_nsec),
		     x->disk_w, x->sector_w, u.release, u.nodename);
	if (!flags || !disks)
		err = -ENOMEM;
	else
		err = 0;
	if (!err)
		err = recfile__write(&x->rec, RECF_META, meta, n);
	if (!err)
		err = recfile__write(&x->rec, RECF_REQFLAGS, flags, strlen(flags));
	if (!err)
		err = recfile__write(&x->rec, RECF_DISKS, disks, strlen(disks));
	free(flags);
	free(disks);
	if (err)
		return fail("writing the recording", "%s: %s", x->o->record, strerror(-err));
	return 0;
}

static int slow_main(int argc, char **argv, bool snoop)
{
	const char *name = snoop ? "snoop" : "slow";
	struct slow_opts o = {};
	struct slow_ctx x = {};
	struct life_cfg cfg = {};
	struct disk_sel sel = {};
	struct slow_summary sum;
	struct life l = {};
	struct btf *vmlinux;
	int err;

	log__init(name, false, false);
	err = slow_parse(argc, argv, &o, snoop);
	log__init(name, o.c.json, o.c.verbose);
	if (err)
		return err;
	if (o.c.help) {
		fputs(snoop ? snoop_usage : slow_usage, stdout);
		fputs(common_usage, stdout);
		return 0;
	}
	if ((err = bpfx__setup(o.c.ready_file)))
		return err;
	if (o.disk && (err = filter__disk(o.disk, &sel)))
		return err;
	cfg.dev = sel.disk;
	cfg.part = sel.part;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cfg.cgroup)))
		return err;
	if (o.pid && (err = filter__pid(o.pid, &cfg.pid)))
		return err;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return fail("reading kernel BTF", "%s", strerror(errno));
	cfg.kernel_q = life__kernel_q(vmlinux);
	err = reqflags__load(&x.rf, vmlinux);
	btf__free(vmlinux);
	if (err)
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	cfg.mode = snoop ? LIFE_SNOOP : LIFE_SLOW;
	cfg.min_ns = o.min_ns;
	cfg.own_clock = o.own_clock;
	cfg.sysfs = !snoop && !o.no_queue_writes;
	cfg.comm = o.comm;
	cfg.rb_bytes = o.rb_bytes;
	x.o = &o;
	x.snoop = snoop;
	json__init(&x.j, stdout);
	/* a file that cannot be written is said before anything is attached */
	if (o.record && (err = recfile__create(&x.rec, o.record)))
		return fail("writing the recording", "%s: %s", o.record, strerror(-err));
	err = life__start(&l, &cfg, on_record, &x);
	if (err)
		goto out;
	if (cfg.sysfs && !l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", l.sysfs_why);
	x.t0 = run__mono_ns();
	x.disk_w = 7;
	x.sector_w = 11;
	disks__widths(&x.disk_w, &x.sector_w);
	if (o.record && (err = record_start(&x, snoop)))
		goto out;
	print_header(&x);
	if ((err = life__run(&l, o.c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	summary_of(&l, &sum);
	print_summary(&x, &sum);
	if (o.record) {
		if (!x.rec_err)
			x.rec_err = recfile__write(&x.rec, RECF_SUMMARY, &sum, sizeof(sum));
		if (recfile__close(&x.rec) || x.rec_err)
			err = fail("writing the recording", "%s: %s", o.record, strerror(EIO));
	}
out:
	if (x.rec.f)
		recfile__close(&x.rec);
	life__stop(&l);
	reqflags__free(&x.rf);
	return err;
}

static const char sysfs_usage[] =
"Usage: iodig sysfs [options]\n"
"Each write to a block queue attribute in sysfs (/sys/block/DISK/queue/*:\n"
"scheduler, nr_requests, read_ahead_kb, max_sectors_kb, wbt_lat_usec, ...):\n"
"who (comm, pid, ppid), which disk and attribute, the value written, and how\n"
"long the write took.  Changing some of them freezes the queue: every bio\n"
"submitted meanwhile waits (iodig slow names such a writer).\n"
"\n"
"  -d, --disk DISK      only writes to this disk's attributes\n"
CLI_COMMON_HELP;

static int on_sysfs(void *ctx, void *data, size_t size)
{
	struct slow_ctx *x = ctx;
	const struct life_sysfs *w = data;

	if (size < sizeof(*w) || w->type != REC_SYSFS_END)
		return 0;
	if (x->o->disk && strcmp(x->o->disk, w->disk))
		return 0;
	x->shown++;
	print_sysfs(x, w);
	return 0;
}

int cmd_sysfs(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "disk", required_argument, 0, 'd' },
		CLI_COMMON_LONG,
		{}
	};
	struct slow_opts o = {};
	struct slow_ctx x = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_SYSFS, .sysfs = true };
	struct life l = {};
	int opt, err;

	log__init("sysfs", false, false);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:vh", longs, NULL)) != -1) {
		if (cli__common(opt, &o.c))
			continue;
		if (opt == 'd')
			o.disk = optarg;
		else
			return cli__bad_option(opt, argv);
	}
	log__init("sysfs", o.c.json, o.c.verbose);
	if (o.c.help) {
		fputs(sysfs_usage, stdout);
		return 0;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if ((err = bpfx__setup(o.c.ready_file)))
		return err;
	if (o.disk) {
		struct disk_sel sel;

		/* queue attributes are the whole disk's: compare by its name */
		if ((err = filter__disk(o.disk, &sel)))
			return err;
		o.disk = strdup(sel.disk_name);
	}
	json__init(&x.j, stdout);
	if ((err = life__start(&l, &cfg, on_sysfs, &x)))
		goto out;
	x.t0 = run__mono_ns();
	if ((err = life__run(&l, o.c.ready_file, "Tracing queue attribute writes... Hit Ctrl-C to end.")))
		goto out;
	if (!o.c.json)
		fprintf(stderr, "\n%llu queue attribute writes\n", (unsigned long long)x.shown);
out:
	life__stop(&l);
	return err;
}

int cmd_slow(int argc, char **argv) { return slow_main(argc, argv, false); }
int cmd_snoop(int argc, char **argv) { return slow_main(argc, argv, true); }

static const char replay_usage[] =
"Usage: iodig replay [--json] FILE\n"
"Prints a recording made by iodig slow|snoop --record FILE, on this machine or\n"
"another, exactly as the command printed it live: the same lines, or with\n"
"--json the same JSON.  Disk, op and flag names come from the recording.\n"
CLI_COMMON_HELP;

/* "key value" from a META frame's text, or NULL. */
static const char *meta_get(const char *meta, uint32_t len, const char *key, char *buf, size_t blen)
{
	size_t kl = strlen(key);

	for (const char *l = meta; l < meta + len;) {
		const char *nl = memchr(l, '\n', meta + len - l);
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(meta + len - l);

		if (ll > kl && !strncmp(l, key, kl) && l[kl] == ' ') {
			snprintf(buf, blen, "%.*s", (int)(ll - kl - 1), l + kl + 1);
			return buf;
		}
		l += ll + 1;
	}
	return NULL;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longs[] = { CLI_COMMON_LONG, {} };
	struct slow_opts o = {};
	struct slow_ctx x = { .o = &o };
	struct recfile r;
	bool tables = false, header = false, summary = false;
	uint64_t records = 0;
	int opt, err;

	log__init("replay", false, false);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":vh", longs, NULL)) != -1)
		if (!cli__common(opt, &o.c))
			return cli__bad_option(opt, argv);
	log__init("replay", o.c.json, o.c.verbose);
	if (o.c.help) {
		fputs(replay_usage, stdout);
		return 0;
	}
	if (optind != argc - 1)
		return usage_error(optind < argc ? "unexpected argument '%s'" : "which recording?%s",
				   optind < argc ? argv[optind + 1] : "");
	err = recfile__open(&r, argv[optind]);
	if (err == -EINVAL)
		err = fail("recording", "%s: not an iodig recording (or one from another version of iodig)",
			   argv[optind]);
	else if (err)
		err = fail("recording", "%s: %s", argv[optind], strerror(-err));
	if (err) {
		recfile__close(&r);
		return err;
	}
	json__init(&x.j, stdout);
	for (;;) {
		const void *data;
		uint32_t type, size;
		char v[64];

		err = recfile__next(&r, &type, &data, &size);
		if (err <= 0)
			break;
		if (type == RECF_META) {
			x.snoop = meta_get(data, size, "command", v, sizeof(v)) && !strcmp(v, "snoop");
			x.t0 = meta_get(data, size, "t0_ns", v, sizeof(v)) ? strtoull(v, NULL, 10) : 0;
			x.disk_w = meta_get(data, size, "disk_w", v, sizeof(v)) ? atoi(v) : 7;
			x.sector_w = meta_get(data, size, "sector_w", v, sizeof(v)) ? atoi(v) : 11;
			tables = true;
		} else if (type == RECF_REQFLAGS) {
			if (reqflags__from_text(&x.rf, data, size))
				break;
		} else if (type == RECF_DISKS) {
			disks__from_text(data, size);
		} else {
			if (!tables)
				break;
			if (!header) {
				print_header(&x);
				header = true;
			}
			if (type == RECF_SUMMARY && size == sizeof(struct slow_summary)) {
				print_summary(&x, data);
				summary = true;
			} else if (type < RECF_META) {
				show_record(&x, data, size);
				records++;
			}
		}
		if ((err = run__flush()))
			break;
	}
	recfile__close(&r);
	reqflags__free(&x.rf);
	if (err == -EIO && run__stopping())	/* the output failed: said */
		return 1;
	if (err < 0)
		return fail("recording", "%s: cut short after %llu records (%s)", argv[optind],
			    (unsigned long long)records, strerror(-err));
	if (!tables)
		return fail("recording", "%s: no tables before the records: not a recording iodig wrote",
			    argv[optind]);
	if (!summary)
		return fail("recording", "%s: ends after %llu records without a summary: the recording "
			    "iodig was stopped before it ended (SIGKILL, a crash)", argv[optind],
			    (unsigned long long)records);
	return 0;
}

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
#include "bpfenv.h"
#include "cli.h"
#include "disks.h"
#include "filter.h"
#include "json.h"
#include "life_user.h"
#include "log.h"
#include "reqflags.h"
#include "life.skel.h"
#include "run.h"
#include "records.h"
#include "slow.h"
#include "cmds.h"

struct slow_opts {
	struct cli_common c;
	const char *disk, *cgroup, *pid, *comm;
	bool snoop, own_clock, no_queue_writes, kstack, ustack;
	uint64_t min_ns;
	unsigned long long rb_bytes;
	const char *record;	/* --record FILE */
};

enum { OPT_COMM = OPT_FIRST_CMD, OPT_OWN_CLOCK, OPT_BUFFER, OPT_NO_QW, OPT_RECORD };

/* The options slow and snoop share; slow has one more of its own. */
static const struct cli_opt slow_shared[] = {
	{ "disk", 'd', "DISK", "only this disk, or only this partition", CLI_STR_AT(struct slow_opts, disk) },
	{ "cgroup", 'c', "PATH", "only I/O charged to this cgroup", CLI_STR_AT(struct slow_opts, cgroup) },
	{ "pid", 'p', "PID", "only I/O submitted by this process", CLI_STR_AT(struct slow_opts, pid) },
	{ "comm", OPT_COMM, "NAME", "only I/O submitted by tasks with this name", CLI_COMM_AT(struct slow_opts, comm) },
	{ "own-clock", OPT_OWN_CLOCK, NULL, "stamp allocation and issue in BPF, not from struct request", CLI_FLAG_AT(struct slow_opts, own_clock) },
	{ "buffer-size", OPT_BUFFER, "N", "ring buffer bytes, a power of 2 (default 2097152 for snoop, 1048576 for slow)", CLI_RINGBUF_AT(struct slow_opts, rb_bytes) },
	{ "record", OPT_RECORD, "FILE", "also write every record to FILE, with what decoding it\n"
	  "needs elsewhere: iodig replay FILE prints it again", CLI_STR_AT(struct slow_opts, record) },
	{ "kernel-stack", 'K', NULL, "the submitter's kernel stack at Q, with each request", CLI_FLAG_AT(struct slow_opts, kstack) },
	{ "user-stack", 'U', NULL, "the submitter's user stack at Q, with each request", CLI_FLAG_AT(struct slow_opts, ustack) },
	{}
};

static const struct cli_opt slow_own[] = {
	{ "no-queue-writes", OPT_NO_QW, NULL, "do not watch writes to queue attributes (the watcher\n"
	  "adds about 350 ns to every write(2), pwrite(2) and\n"
	  "writev(2) on the machine, 45 ns to other system calls)", CLI_FLAG_AT(struct slow_opts, no_queue_writes) },
	{}
};

/* slow's MIN_MS; snoop takes nothing. */
static int slow_args(void *ctx, int argc, char **argv, int optind)
{
	struct slow_opts *o = ctx;

	int err;

	o->min_ns = 10 * 1000000ULL;
	if (!o->snoop && (err = cli__min_ms(argc, argv, &optind, &o->min_ns)))
		return err;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_slow(int argc, char **argv)
{
	return slow__main(argc, argv, false, "[options] [MIN_MS]",
		"One line per block request slower than MIN_MS (default 10) from bio submission\n"
		"(Q) to completion (C), decided in the kernel, split into phases:\n"
		"  Q2G submit wait (frozen queue, tag starvation, throttling)  G2I  I2D scheduler\n"
		"  D2C device  Q2C total.  The dominant phase is named, and a request stalled while\n"
		"  its disk's queue attributes were being written names the writer.\n");
}

int slow__main(int argc, char **argv, bool snoop, const char *synopsis, const char *about)
{
	const struct cli_cmd cmd = { .name = snoop ? "snoop" : "slow", .synopsis = synopsis,
				     .about = about, .opts = snoop ? NULL : slow_own, .more = slow_shared,
				     .notes = "Lost records are counted and shown, never dropped silently.\n",
				     .args = slow_args, .tracing = true, .slim_btf = true,
		.privileges = "Without CAP_DAC_READ_SEARCH (tracefs root's alone), queue attribute writes are not\n"
			 "watched, said once.  -U names the user frames of other users' processes only\n"
			 "with CAP_SYS_PTRACE (their /proc/PID/maps).\n" };
	struct slow_opts o = { .snoop = snoop };
	struct req_printer pr = {};
	struct life_cfg cfg = {};
	struct disk_sel sel = {};
	struct req_summary sum;
	struct life l = {};
	const struct btf *vmlinux;
	int err;

	if ((err = cli__prologue(&cmd, argc, argv, &o.c, &o)) >= 0)
		return err;
	if (o.disk && (err = filter__disk(o.disk, &sel)))
		return err;
	cfg.dev = sel.disk;
	cfg.part = sel.part;
	if (o.cgroup && (err = filter__cgroup(o.cgroup, &cfg.cgroup)))
		return err;
	if (o.pid && (err = filter__pid(o.pid, &cfg.pid)))
		return err;
	vmlinux = bpfenv__vmlinux();
	if (!vmlinux)
		return fail("reading kernel BTF", "%s", strerror(errno));
	cfg.kernel_q = life__kernel_q(vmlinux);
	err = reqflags__load(&pr.rf, vmlinux);
	if (err)
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	cfg.mode = snoop ? LIFE_SNOOP : LIFE_SLOW;
	cfg.min_ns = o.min_ns;
	cfg.own_clock = o.own_clock;
	cfg.sysfs = !snoop && !o.no_queue_writes;
	/* left running for the next stall: G only while a disk is armed */
	cfg.lazy_grants = !snoop;
	cfg.comm = o.comm;
	cfg.rb_bytes = o.rb_bytes;
	cfg.kstack = o.kstack;
	cfg.ustack = o.ustack;
	printer__init(&pr, o.c.json, snoop);
	run__buffer_output();
	if (cfg.kernel_q && (o.kstack || o.ustack))
		warnf("this kernel stamps bios at Q itself and iodig does not run there: no stacks (-K/-U)");
	if ((err = printer__stacks(&pr, o.kstack, o.ustack)))
		goto out;
	/* a file that cannot be written is said before anything is attached */
	if (o.record && (err = recfile__create(&pr.rec, o.record))) {
		err = fail("writing the recording", "%s: %s", o.record, strerror(-err));
		goto out;
	}
	err = life__start(&l, &cfg, printer__on_record, &pr);
	if (err)
		goto out;
	pr.stack_fd = life__kstack_fd(&l);
	pr.ustack_fd = life__ustack_fd(&l);
	l.us = pr.us;
	if (cfg.sysfs && !l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", l.sysfs_why);
	pr.t0 = run__mono_ns();
	printer__widths(&pr);
	if (o.record && (err = printer__record_tables(&pr, o.record)))
		goto out;
	printer__header(&pr);
	if ((err = life__run(&l, o.c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	printer__summary_of(&l, &sum);
	pr.kmemo = l.skel->rodata->kmemo_on && !bpfenv__kmemo_stats(l.skel->maps.kmemo_cpu, &pr.km);
	printer__summary(&pr, &sum);
	if (l.stack)
		printer__stack_summary(&pr, &l.skel->bss->stack_stats);
	if (o.record) {
		if (!pr.rec_err && pr.kmemo)
			pr.rec_err = recfile__write(&pr.rec, RECF_KMEMO, &pr.km, sizeof(pr.km));
		if (!pr.rec_err)
			pr.rec_err = recfile__write(&pr.rec, RECF_SUMMARY, &sum, sizeof(sum));
		if (recfile__close(&pr.rec) || pr.rec_err)
			err = fail("writing the recording", "%s: %s", o.record, strerror(EIO));
	}
out:
	if (pr.rec.f)
		recfile__close(&pr.rec);
	life__stop(&l);
	printer__free(&pr);
	return err;
}



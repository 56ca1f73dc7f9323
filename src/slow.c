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
#include "records.h"
#include "slow.h"

struct slow_opts {
	struct cli_common c;
	const char *disk, *cgroup, *pid, *comm;
	bool own_clock, no_queue_writes;
	uint64_t min_ns, rb_bytes;
	const char *record;	/* --record FILE */
};

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

int slow__main(int argc, char **argv, bool snoop, const char *usage)
{
	const char *name = snoop ? "snoop" : "slow";
	struct slow_opts o = {};
	struct req_printer x = {};
	struct life_cfg cfg = {};
	struct disk_sel sel = {};
	struct req_summary sum;
	struct life l = {};
	struct btf *vmlinux;
	int err;

	log__init(name, false, false);
	err = slow_parse(argc, argv, &o, snoop);
	log__init(name, o.c.json, o.c.verbose);
	if (err)
		return err;
	if (o.c.help) {
		fputs(usage, stdout);
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
	x.json = o.c.json;
	x.snoop = snoop;
	json__init(&x.j, stdout);
	/* a file that cannot be written is said before anything is attached */
	if (o.record && (err = recfile__create(&x.rec, o.record)))
		return fail("writing the recording", "%s: %s", o.record, strerror(-err));
	err = life__start(&l, &cfg, printer__on_record, &x);
	if (err)
		goto out;
	if (cfg.sysfs && !l.sysfs_on)
		warnf("queue attribute writes are not watched: %s", l.sysfs_why);
	x.t0 = run__mono_ns();
	printer__widths(&x);
	if (o.record && (err = printer__record_tables(&x, o.record, snoop)))
		goto out;
	printer__header(&x);
	if ((err = life__run(&l, o.c.ready_file, "Tracing block I/O... Hit Ctrl-C to end.")))
		goto out;
	printer__summary_of(&l, &sum);
	printer__summary(&x, &sum);
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

int cmd_slow(int argc, char **argv) { return slow__main(argc, argv, false, slow_usage); }


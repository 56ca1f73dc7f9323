// SPDX-License-Identifier: GPL-2.0
/* iodig: why is storage I/O slow?  One binary, a table of commands. */
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "log.h"
#include "run.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "lat", cmd_lat, "block I/O latency histograms per disk and operation, with percentiles" },
	{ "slow", cmd_slow, "block requests slower than a threshold, split into phases, stalls named" },
	{ "snoop", cmd_snoop, "every block request with its submitter and phases (biosnoop)" },
	{ "why", cmd_why, "slow file-system calls, and where their time went: CPU, runqueue, block I/O (with its requests), locks, throttling" },
	{ "top", cmd_top, "block I/O per process, cgroup or disk every interval (biotop, iotop), by the submitter" },
	{ "stacks", cmd_stacks, "kernel and user stacks where block I/O is submitted, or at any tracepoint or user function; --folded" },
	{ "iostat", cmd_iostat, "iostat -x from /proc/diskstats, with p50/p99 from BPF beside the means" },
	{ "cache", cmd_cache, "page-cache accesses, hits, misses, dirtied, written back and evicted (cachestat)" },
	{ "readahead", cmd_readahead, "readahead efficiency: pages read ahead, used, wasted, time to use, windows" },
	{ "export", cmd_export, "a Prometheus exporter: request phases per disk and op, slow requests, losses" },
	{ "size", cmd_size, "I/O sizes per process, disk and op (bitesize), with the sequential share (biopattern)" },
	{ "exec", cmd_exec, "every exec (execsnoop), failed ones too: parent, user, cgroup, arguments" },
	{ "sysfs", cmd_sysfs, "writes to block queue attributes (scheduler, nr_requests, ...): who, what, how long" },
	{ "record", cmd_record, "a flight recorder: the last seconds of requests, written when a trigger fires" },
	{ "report", cmd_report, "an HTML report from a recording: latency heatmap, phases, processes, slowest" },
	{ "replay", cmd_replay, "print a recording made with slow|snoop --record FILE, as it was printed live" },
	{ "func", cmd_func, "latency histograms of kernel or user functions (nesting-safe)" },
	{ "probe", cmd_probe, "what this kernel offers iodig, and what each command will use" },
	{ "schema", cmd_schema, "the JSON schema of each record type (from the tables that print them)" },
	{ "help", cmd_help, "this list, or 'iodig help COMMAND' for one command" },
	{ "version", cmd_version, "print the version" },
};

#define NR_CMDS (int)(sizeof(cmds) / sizeof(cmds[0]))

static const struct cmd *find_cmd(const char *name)
{
	for (int i = 0; i < NR_CMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: iodig COMMAND [options]   (iodig COMMAND --help for one)\n\n"
		"Tells why storage I/O is slow, from the system call down to the device.\n\n"
		"Commands:\n");
	for (int i = 0; i < NR_CMDS; i++)
		fprintf(out, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c || c->run == cmd_help) {
		log__init("help", false, false);
		if (c)
			return usage(stdout), 0;
		return usage_error("unknown command '%s'", argv[1]);
	}
	args[0] = (char *)c->name;
	return c->run(2, args);
}

static int cmd_version(int argc, char **argv)
{
	printf("iodig %s\n", IODIG_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(0, NULL);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "iodig: unknown command '%s' (see 'iodig help')\n", argv[1]);
		return EXIT_USAGE;
	}
	log__init(c->name, false, false);
	rc = c->run(argc - 1, argv + 1);
	/* Output that did not reach its file (a full disk, /dev/full) is a
	 * failure, said once, whatever the command printed. */
	if (rc == 0 && run__flush())
		rc = 1;
	return rc;
}

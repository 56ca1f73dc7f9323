// SPDX-License-Identifier: GPL-2.0
/* The table of commands: main dispatches through it, help lists it, and the
 * man pages and shell completion are made from it. */
#include <string.h>
#include "cmds.h"

const struct cmd cmds__all[] = {
	{ "doctor", cmd_doctor, "what is wrong, the most costly first: each finding with its cost, evidence and next step" },
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
	{ "layers", cmd_layers, "the device tree (dm, md, bcache over their disks): each layer's I/O, latency and what it adds" },
	{ "throttle", cmd_throttle, "dirty throttling per process and device: pauses, time asleep, dirty pages and limits" },
	{ "exec", cmd_exec, "every exec (execsnoop), failed ones too: parent, user, cgroup, arguments" },
	{ "sysfs", cmd_sysfs, "writes to block queue attributes (scheduler, nr_requests, ...): who, what, how long" },
	{ "record", cmd_record, "a flight recorder: the last seconds of requests, written when a trigger fires" },
	{ "report", cmd_report, "an HTML report from a recording: latency heatmap, phases, processes, slowest" },
	{ "replay", cmd_replay, "print a recording made with slow|snoop --record FILE, as it was printed live" },
	{ "func", cmd_func, "latency histograms of kernel or user functions (nesting-safe)" },
	{ "probe", cmd_probe, "what this kernel offers iodig, and what each command will use" },
	{ "schema", cmd_schema, "the JSON schema of each record type (from the tables that print them)" },
	{ "help", cmd_help, "this list, or 'iodig help COMMAND' for one command" },
	{ "version", cmd_version, "the version, the libbpf it was built with, what it needs of the kernel" },
	{}
};

const struct cmd *cmds__find(const char *name)
{
	for (const struct cmd *c = cmds__all; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cmds__usage(FILE *out)
{
	fprintf(out, "Usage: iodig COMMAND [options]   (iodig COMMAND --help for one)\n\n"
		"Tells why storage I/O is slow, from the system call down to the device.\n\n"
		"Commands:\n");
	for (const struct cmd *c = cmds__all; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
}

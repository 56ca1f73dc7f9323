/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_SLOW_H
#define IODIG_SLOW_H

#include <stdbool.h>
#include "cli.h"

/* The options slow and snoop share, for their help texts. */
#define SLOW_COMMON_USAGE \
	"\n" \
	"  -d, --disk DISK      only this disk, or only this partition\n" \
	"  -c, --cgroup PATH    only I/O charged to this cgroup\n" \
	"  -p, --pid PID        only I/O submitted by this process\n" \
	"      --comm NAME      only I/O submitted by tasks with this name\n" \
	"      --own-clock      stamp allocation and issue in BPF, not from struct request\n" \
	"      --buffer-size N  ring buffer bytes, a power of 2 (default 8388608)\n" \
	"      --record FILE    also write every record to FILE, with what decoding it\n" \
	"                       needs elsewhere: iodig replay FILE prints it again\n" \
	CLI_COMMON_HELP \
	"\nLost records are counted and shown, never dropped silently.\n"

/* slow and snoop: the same options and engine, in the watched or the
 * followed mode (src/life.c); usage is the command's own help text. */
int slow__main(int argc, char **argv, bool snoop, const char *usage);

#endif

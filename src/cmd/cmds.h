/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_CMDS_H
#define IODIG_CMDS_H

#include <stdio.h>

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_doctor(int argc, char **argv);
int cmd_lat(int argc, char **argv);
int cmd_slow(int argc, char **argv);
int cmd_snoop(int argc, char **argv);
int cmd_sysfs(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_stacks(int argc, char **argv);
int cmd_iostat(int argc, char **argv);
int cmd_size(int argc, char **argv);
int cmd_throttle(int argc, char **argv);
int cmd_layers(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_readahead(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_func(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* Every command, ending with {}. */
extern const struct cmd cmds__all[];
const struct cmd *cmds__find(const char *name);
/* The list of commands, as `iodig help` prints it. */
void cmds__usage(FILE *out);

#endif

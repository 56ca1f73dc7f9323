/* SPDX-License-Identifier: GPL-2.0 */
/* Options every command takes, and getopt error reporting in iodig's words. */
#ifndef IODIG_CLI_H
#define IODIG_CLI_H

#include <getopt.h>
#include <stdbool.h>

enum {
	OPT_JSON = 0x1000,
	OPT_READY_FILE,
	OPT_FIRST_CMD,	/* commands number their own long options from here */
};

struct cli_common {
	bool json;
	bool verbose;
	bool help;
	const char *ready_file;
};

#define CLI_COMMON_LONG							\
	{ "json", no_argument, 0, OPT_JSON },				\
	{ "ready-file", required_argument, 0, OPT_READY_FILE },		\
	{ "verbose", no_argument, 0, 'v' },				\
	{ "help", no_argument, 0, 'h' }

#define CLI_COMMON_HELP							\
	"      --json           one JSON object per line\n"			\
	"      --ready-file PATH  write PATH once tracing is live\n"	\
	"  -v, --verbose        show libbpf's log\n"			\
	"  -h, --help           this help\n"

/*
 * A command's prologue, written once: log set up for the command, the common
 * options and the command's own parsed, -h answered with its usage, the
 * positional arguments handed over, and for a tracing command what loading
 * needs checked (capabilities, the ready file, BTF) before anything is.
 */
struct cli_cmd {
	const char *name;		/* "lat" */
	const char *usage;		/* printed as it is by -h */
	const char *shortopts;		/* the command's own ("DFd:c:"), or NULL */
	const struct option *longs;	/* the command's own, ending with {}, or NULL */
	/* One of the command's options: 0, an exit status, or -1: not one. */
	int (*opt)(void *ctx, int opt, const char *arg);
	/* What follows the options (argv[optind..]): 0 or an exit status. */
	int (*args)(void *ctx, int argc, char **argv, int optind);
	bool tracing;			/* loads BPF: check before anything is loaded */
};

/* -1 to go on, or the exit status to return (0 after -h). */
int cli__prologue(const struct cli_cmd *cmd, int argc, char **argv, struct cli_common *c, void *ctx);

/* Handles a common option; returns 1 if opt was one. */
int cli__common(int opt, struct cli_common *c);
/* For getopt's '?' and ':' results: prints the usage error, returns 2.
 * optstring must start with ':' so missing values are told apart. */
int cli__bad_option(int opt, char **argv);
/* Digits only ("12"), or with fraction also "12.5": no sign, no blanks,
 * no hex, no exponent, no nan. */
bool cli__is_decimal(const char *s, bool fraction);
/* Parses a whole number in [min, max] or returns false. */
bool cli__uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out);

#endif

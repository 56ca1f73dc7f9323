/* SPDX-License-Identifier: GPL-2.0 */
/* Options every command takes, and getopt error reporting in iodig's words. */
#ifndef IODIG_CLI_H
#define IODIG_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
	OPT_JSON = 0x1000,
	OPT_READY_FILE,
	OPT_STATS,
	OPT_FIRST_CMD,	/* commands number their own long options from here */
};

struct cli_common {
	bool json;
	bool verbose;
	bool help;
	const char *ready_file;
	bool stats;		/* --stats: what the BPF programs cost, at the end */
};

/* How an option's value is parsed, when the table says it (else: the
 * command's opt callback). */
enum cli_kind {
	CLI_CB,		/* the command's callback */
	CLI_FLAG,	/* bool at off: true */
	CLI_STR,	/* const char * at off: the value as given (max: its length at most) */
	CLI_UINT,	/* unsigned long long at off, in [min, max] */
	CLI_PICK,	/* int at off: the value's index in names (nnames of them) */
	CLI_POW2,	/* unsigned long long at off, a power of 2 in [min, max] */
};

/*
 * One option of a command, described once: getopt's tables, the help text
 * and, for the kinds above, the parser are all made from it.  key is the
 * short letter, or an OPT_ value from OPT_FIRST_CMD on for a long-only
 * option.  arg names the value ("DISK"), or is NULL for a flag.  help may
 * run over several lines ("\n").  what: the value's kind in a usage error
 * ("-p 'x': a process id").
 */
struct cli_opt {
	const char *name;
	int key;
	const char *arg;
	const char *help;
	enum cli_kind kind;
	size_t off;
	unsigned long long min, max;
	const char *const *names;
	int nnames;
	const char *what;
};

#define CLI_FLAG_AT(type, f) .kind = CLI_FLAG, .off = offsetof(type, f)
#define CLI_STR_AT(type, f) .kind = CLI_STR, .off = offsetof(type, f)
#define CLI_UINT_AT(type, f, lo, hi, w) .kind = CLI_UINT, .off = offsetof(type, f), .min = lo, .max = hi, .what = w
#define CLI_PICK_AT(type, f, list, n) .kind = CLI_PICK, .off = offsetof(type, f), .names = list, .nnames = n
#define CLI_STR_MAX_AT(type, f, n, w) .kind = CLI_STR, .off = offsetof(type, f), .max = n, .what = w
#define CLI_POW2_AT(type, f, lo, hi, w) .kind = CLI_POW2, .off = offsetof(type, f), .min = lo, .max = hi, .what = w
/* --comm NAME: a task name (TASK_COMM_LEN 16, with its NUL) */
#define CLI_COMM_AT(type, f) CLI_STR_MAX_AT(type, f, 15, "a task name has at most 15 characters")
/* --buffer-size N: a BPF ring buffer's bytes */
#define CLI_RINGBUF_AT(type, f) CLI_POW2_AT(type, f, 4096, 1ULL << 30, "a power of 2 from 4096 to 1073741824")

/*
 * A command's prologue, written once: log set up for the command, the common
 * options and the command's own parsed, -h answered with its usage, the
 * positional arguments handed over, and for a tracing command what loading
 * needs checked (capabilities, the ready file, BTF) before anything is.
 */
struct cli_cmd {
	const char *name;		/* "lat" */
	const char *synopsis;		/* "[options] [interval [count]]" */
	const char *about;		/* what it does: lines after the usage line */
	const struct cli_opt *opts;	/* the command's own, ending with {}, or NULL */
	const struct cli_opt *more;	/* a second table (options shared by commands) */
	const char *notes;		/* after the options, or NULL */
	/* One of the command's options: 0, an exit status, or -1: not one. */
	int (*opt)(void *ctx, int opt, const char *arg);
	/* What follows the options (argv[optind..]): 0 or an exit status. */
	int (*args)(void *ctx, int argc, char **argv, int optind);
	bool tracing;			/* loads BPF: check before anything is loaded */
	bool slim_btf;			/* its objects' CO-RE and tp_btf only: btfslim.c */
	/* What it needs beyond CAP_BPF and CAP_PERFMON, and what for (the
	 * PRIVILEGES of its man page), or NULL. */
	const char *privileges;
};

/* -1 to go on, or the exit status to return (0 after -h). */
int cli__prologue(const struct cli_cmd *cmd, int argc, char **argv, struct cli_common *c, void *ctx);

/* Set by `iodig help --man` and `--completion`: what -h does instead of
 * printing the help text (it is handed the command's table). */
void cli__on_help(void (*fn)(const struct cli_cmd *cmd));
/* The options every command takes, ending with {}. */
const struct cli_opt *cli__common_opts(void);

/* The help text, made from the tables: usage, about, options, notes. */
void cli__help(const struct cli_cmd *cmd, FILE *out);
/* Handles a common option; returns 1 if opt was one. */
int cli__common(int opt, struct cli_common *c);
/* For getopt's '?' and ':' results: prints the usage error, returns 2.
 * optstring must start with ':' so missing values are told apart. */
int cli__bad_option(int opt, char **argv);
/* An optional positional MIN_MS (milliseconds, fractions allowed, at most an
 * hour) at argv[*optind], consumed if there: min_ns keeps its default
 * otherwise.  0 or the usage exit status. */
int cli__min_ms(int argc, char **argv, int *optind, uint64_t *min_ns);
/* Parses a whole number in [min, max] or returns false. */
/* An option's value among names[0..n): its index, or, after a usage error
 * that lists them ("--by 'x': one of process, cgroup, disk"), -EXIT_USAGE. */
int cli__pick(const char *opt, const char *arg, const char *const *names, int n);
bool cli__uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Errors and logging.  Every failure is one line on stderr:
 *   iodig <cmd>: <what failed>: <why>
 * or, in --json mode, one JSON object {"error": ..., "command": ..., "what": ...}.
 * Usage errors exit 2, runtime failures exit 1.
 */
#ifndef IODIG_LOG_H
#define IODIG_LOG_H

#include <stdbool.h>

#define EXIT_USAGE 2

void log__init(const char *cmd, bool json, bool verbose);
bool log__verbose(void);
/* Prints the failure and returns 1 (the exit status), so: return fail(...). */
int fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a usage error (with a pointer to --help) and returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debugf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *log__cmd(void);

#endif

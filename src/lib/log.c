// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "json.h"
#include "log.h"

static const char *log_cmd = "iodig";
static bool log_json, log_verbose;

void log__init(const char *cmd, bool json, bool verbose)
{
	log_cmd = cmd;
	log_json = json;
	log_verbose = verbose;
}

bool log__verbose(void) { return log_verbose; }
const char *log__cmd(void) { return log_cmd; }

static void emit(const char *kind, const char *what, const char *fmt, va_list ap)
{
	char why[512];

	vsnprintf(why, sizeof(why), fmt, ap);
	if (log_json) {
		struct json j;

		json__init(&j, stderr);
		json__obj_begin(&j);
		json__kstr(&j, kind, why);
		json__kstr(&j, "command", log_cmd);
		if (what)
			json__kstr(&j, "what", what);
		json__obj_end(&j);
		return;
	}
	if (what)
		fprintf(stderr, "iodig %s: %s: %s\n", log_cmd, what, why);
	else
		fprintf(stderr, "iodig %s: %s\n", log_cmd, why);
}

int fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("error", what, fmt, ap);
	va_end(ap);
	return 1;
}

int usage_error(const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(NULL, "%s (see 'iodig %s --help')", msg, log_cmd) ? EXIT_USAGE : EXIT_USAGE;
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning", NULL, fmt, ap);
	va_end(ap);
}

void debugf(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "iodig %s: ", log_cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

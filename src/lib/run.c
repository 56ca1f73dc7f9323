// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "bpfenv.h"
#include "costmeter.h"
#include "run.h"
#include "text.h"

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	stopping = 1;
}

/* SIGINT and SIGTERM, where they were ignored at start (run__hold_signals) */
static sigset_t held;

/*
 * A shell with no job control starts a background job with SIGINT ignored,
 * and a signal that comes while it is ignored is gone; iodig's handler
 * comes only once tracing is live, so a SIGINT sent during the set-up was
 * lost and the run went on until the next one (seen: `iodig slow 10 &`,
 * then kill -INT).  Blocked, it waits instead (a blocked signal is never
 * taken for ignored), and run__signals() lets it in: the run ends as soon
 * as it is live.  Where SIGINT has its default action (a terminal's
 * Ctrl-C) nothing changes: it ends the set-up at once, as before.
 */
void run__hold_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa;

	sigemptyset(&held);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler == SIG_IGN)
			sigaddset(&held, sigs[i]);
	sigprocmask(SIG_BLOCK, &held, NULL);
}

void run__signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: waits return EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* a closed terminal: the summary too */
	sigprocmask(SIG_UNBLOCK, &held, NULL);	/* one sent meanwhile: now */
	/* a reader gone (iodig exec | head): the write fails with EPIPE and the
	 * run ends as at Ctrl-C, its exit handlers run (tracefs unmounted),
	 * where SIGPIPE would have killed it */
	signal(SIGPIPE, SIG_IGN);
}

/* Files written beside stdout (a recording), flushed with it. */
#define MAX_OUTPUTS 4
static struct { FILE *f; const char *name; } outputs[MAX_OUTPUTS];

void run__add_output(FILE *f, const char *name)
{
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (!outputs[i].f) {
			outputs[i].f = f;
			outputs[i].name = name;
			return;
		}
}

void run__remove_output(FILE *f)
{
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (outputs[i].f == f)
			outputs[i].f = NULL;
}

int run__flush(void)
{
	static bool stdout_failed;

	if (stdout_failed)
		return -EIO;
	/* errno from the failed write: a stream's error flag may date from an
	 * earlier write (a full buffer written out by printf) */
	if (fflush(stdout) || ferror(stdout)) {
		stdout_failed = true;
		if (errno != EPIPE)	/* the reader left: it wants no more, nor a word */
			fail("writing output", "%s", strerror(errno ? errno : EIO));
		goto failed;
	}
	for (int i = 0; i < MAX_OUTPUTS; i++) {
		if (!outputs[i].f)
			continue;
		if (fflush(outputs[i].f) || ferror(outputs[i].f)) {
			fail("writing output", "%s: %s", outputs[i].name, strerror(errno ? errno : EIO));
			outputs[i].f = NULL;
			goto failed;
		}
	}
	return 0;
failed:
	/* once: later flushes of the same stream would say it again */
	stopping = 1;
	return -EIO;
}

void run__buffer_output(void)
{
	/* a line a write(2) cost more than the line (snoop at 150k a second) */
	setvbuf(stdout, NULL, _IOFBF, 64 << 10);
}

int run__check_ready_file(const char *ready_file)
{
	FILE *f;

	if (!ready_file)
		return 0;
	f = fopen(ready_file, "w");
	if (!f)
		return fail("writing the ready file", "%s: %s", ready_file, strerror(errno));
	fclose(f);
	unlink(ready_file);	/* it appears only once tracing is live */
	return 0;
}

void run__stop(void)
{
	stopping = 1;
}

int run__sleep_ms(void *ctx, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* EINTR on a signal is what we want */
	return 0;
}

bool run__stopping(void)
{
	return stopping;
}

int run__ready(const char *ready_file, const char *msg)
{
	FILE *f;

	costmeter__ready();
	bpfenv__vmlinux_drop();	/* set-up is over */

	if (msg)
		fprintf(stderr, "%s\n", msg);
	if (!ready_file)
		return 0;
	f = fopen(ready_file, "w");
	if (!f)
		return fail("writing the ready file", "%s: %s", ready_file, strerror(errno));
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	return 0;
}

unsigned long long run__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long now_ms(void)
{
	return (long long)(run__mono_ns() / 1000000);
}

void run__print_time(FILE *out)
{
	char buf[32];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
	fprintf(out, "%s\n", buf);
}

int run__loop(struct run_loop *l)
{
	int (*wait)(void *, int) = l->wait ? l->wait : run__sleep_ms;
	long long next = now_ms() + l->interval_ms;
	int done = 0, err;

	for (;;) {
		long long left;

		if (stopping) {
			err = l->report(l->ctx, true);
			return err ? err : (run__flush() ? 1 : 0);
		}
		left = l->interval_ms ? next - now_ms() : 200;
		if (l->interval_ms && left <= 0) {
			done++;
			err = l->report(l->ctx, l->count && done >= l->count);
			if (!err && run__flush())
				return 1;
			if (err || (l->count && done >= l->count))
				return err;
			next += l->interval_ms;
			continue;
		}
		err = wait(l->ctx, left > 200 ? 200 : (int)left);
		if (err > 0)	/* an exit status: the wait said what went wrong */
			return err;
		if (err < 0 && err != -EINTR)
			return fail("waiting for events", "%s", strerror(-err));
	}
}

static int parse_pos(const char *s, const char *what, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!text__is_decimal(s, false) || errno || *end || v <= 0 || v > 1000000)
		return usage_error("invalid %s '%s': a positive whole number", what, s);
	*out = (int)v;
	return 0;
}

int run__parse_interval(int argc, char **argv, int optind, struct run_loop *l)
{
	int interval = 0, err;

	if (optind < argc && (err = parse_pos(argv[optind++], "interval", &interval)))
		return err;
	if (optind < argc && (err = parse_pos(argv[optind++], "count", &l->count)))
		return err;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	l->interval_ms = interval * 1000;
	return 0;
}

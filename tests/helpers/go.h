/* SPDX-License-Identifier: GPL-2.0 */
/* The test helpers' start: wait for the test's go file, and give up when
 * the directory it would appear in is gone (the test that started the
 * helper ended early: nothing is left running, as whyload.py does). */
#ifndef IODIG_HELPER_GO_H
#define IODIG_HELPER_GO_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void wait_go(const char *go)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", go);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	while (access(go, F_OK)) {
		if (access(dir, F_OK)) {
			fprintf(stderr, "helper: %s is gone: the test that started it has ended\n", dir);
			exit(3);
		}
		usleep(10000);
	}
}
#endif

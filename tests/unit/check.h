/* SPDX-License-Identifier: GPL-2.0 */
/* The smallest test harness that says where it failed. */
#ifndef IODIG_CHECK_H
#define IODIG_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures, check_count;

#define CHECK(cond, ...)							\
	do {								\
		check_count++;						\
		if (!(cond)) {						\
			check_failures++;				\
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define CHECK_DONE()							\
	do {								\
		printf("%s: %d checks, %d failed\n", __FILE__, check_count, check_failures); \
		return check_failures ? 1 : 0;				\
	} while (0)

#endif

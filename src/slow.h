/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_SLOW_H
#define IODIG_SLOW_H

#include <stdbool.h>

/* slow and snoop: the same options and engine, in the watched or the
 * followed mode (src/life.c); usage is the command's own help text. */
int slow__main(int argc, char **argv, bool snoop, const char *usage);

#endif

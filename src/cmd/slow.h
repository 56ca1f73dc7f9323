/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_SLOW_H
#define IODIG_SLOW_H

#include <stdbool.h>
#include "cli.h"

/* slow and snoop: the same options and engine, in the watched or the
 * followed mode (src/engine/life.c); synopsis and about are the command's own
 * lines of help, before the options they share. */
int slow__main(int argc, char **argv, bool snoop, const char *synopsis, const char *about);

#endif

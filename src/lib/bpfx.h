/* SPDX-License-Identifier: GPL-2.0 */
/* libbpf set-up and the one place that turns a libbpf failure into a reason. */
#ifndef IODIG_BPFX_H
#define IODIG_BPFX_H

#include <stdbool.h>

/* Routes libbpf's log through iodig's (shown with -v); checks kernel BTF.
 * Returns 0, or the exit status after printing why. */
int bpfx__setup(void);
/* Prints "iodig <cmd>: <what>: <reason>" for a libbpf error and returns 1. */
int bpfx__fail(const char *what, int err);
bool bpfx__have_btf(void);

#endif

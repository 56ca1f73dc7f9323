/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What func attaches to, resolved before anything is loaded: kernel
 * functions by name or glob (available_filter_functions, else kallsyms),
 * user functions as BINARY:SYMBOL (a library found by name in a process's
 * maps or the system's library directories).  How to attach is chosen from
 * kfeatures.h (fentry/fexit, kprobe-multi, kprobe, uprobe); where nothing
 * works, the reason names exactly what is missing.
 */
#ifndef IODIG_ATTACH_H
#define IODIG_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include "kfeatures.h"

enum attach_mode { ATTACH_AUTO, ATTACH_FENTRY, ATTACH_KPROBE, ATTACH_KPROBE_MULTI, ATTACH_UPROBE };

const char *attach__mode_name(enum attach_mode m);

/* Kernel functions matching patterns (names or globs), from
 * available_filter_functions, else /proc/kallsyms.  On failure returns the
 * exit status after printing which pattern matched nothing and why. */
int attach__resolve_kernel(char **patterns, int n, char ***names, int *count);
void attach__free_names(char **names, int count);

/* "BINARY:SYMBOL": binary path (a library name is looked up in the pid's
 * maps when pid is given) and symbol.  Returns 0 or the exit status. */
int attach__resolve_user(const char *spec, uint32_t pid, char *path, size_t plen,
			 char *sym, size_t slen);

#endif

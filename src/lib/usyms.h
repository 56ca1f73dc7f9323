/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space symbols: an address in a live process to function, offset,
 * file and line, with libdwfl (elfutils, linked statically).  Binaries are
 * found through /proc/PID/maps and opened by libdwfl's process callbacks
 * (/proc/PID/root for containers); symbols from .symtab, .dynsym or
 * MiniDebugInfo (.gnu_debugdata), and from separate debug files found by
 * build-id (/usr/lib/debug/.build-id) or debuglink.  One session per process,
 * kept until usyms__free, so a process that has exited since its first
 * lookup still resolves.  One that exited before it is named from the
 * mappings the kernel reported as they were made (umaps.h): each file found
 * by build-id (where it was, or its debug file), at the address it was at.
 */
#ifndef IODIG_USYMS_H
#define IODIG_USYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct usyms;

struct usym {
	const char *name;	/* NULL: not found */
	uint64_t offset;	/* from the symbol's start */
	const char *module;	/* the binary or library, NULL if unknown */
	const char *file;	/* source file, NULL without line info */
	int line;
	bool inlined;		/* a function inlined here (usyms__resolve_inline) */
};

struct usyms_stats {
	bool watched;		/* mappings are watched (else: why, watch_err) */
	int watch_err;
	uint64_t maps_lost;	/* mapping records the kernel dropped */
	uint64_t from_maps;	/* processes gone before their first lookup, named */
};

/* Mappings are watched from now on: create it before what it will name runs. */
struct usyms *usyms__new(void);
/* Take the kernel's new mapping records: often (a full buffer drops them). */
void usyms__poll(struct usyms *u);
void usyms__stats(const struct usyms *u, struct usyms_stats *st);
/* 0, or -ESRCH: the process is gone and was never seen.  For a return
 * address (every frame but the innermost) pass addr - 1: the call, not the
 * instruction after it, which may belong to the next line or function. */
int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out);
/* The frames at addr, innermost first: each function inlined there (named
 * from DWARF, at the line it is at), then the function that holds them, at
 * the line of the outermost inlined call.  How many (1 without DWARF or
 * inlining, at most max), or -ESRCH as above. */
int usyms__resolve_inline(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out, int max);
void usyms__free(struct usyms *u);

#endif

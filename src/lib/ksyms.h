/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's symbols, from /proc/kallsyms (modules included): loaded once,
 * sorted by address, an address turned into symbol + offset by binary
 * search.  For stacks (issue #11) and anything else that shows a kernel
 * address.  Addresses read as 0 without CAP_SYSLOG (kptr_restrict): then the
 * table is empty and every lookup misses.
 */
#ifndef IODIG_KSYMS_H
#define IODIG_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for the kernel itself */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *strs;		/* every name and module, back to back */
	size_t slen, scap;
};

/* path NULL: /proc/kallsyms.  0 or -errno. */
int ksyms__load(struct ksyms *k, const char *path);
/* The symbol addr falls in (the last one at or below it), or NULL. */
const struct ksym *ksyms__find(const struct ksyms *k, uint64_t addr);
/* The address of a symbol by name (the first of that name), or 0. */
uint64_t ksyms__addr(const struct ksyms *k, const char *name);
void ksyms__free(struct ksyms *k);

#endif

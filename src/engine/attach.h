/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach layer, for any skeleton.
 *
 * Names first, before anything is loaded: kernel functions by name or glob
 * (available_filter_functions, else kallsyms), user functions as
 * BINARY:SYMBOL (a library found by name in a process's maps or the system's
 * library directories).
 *
 * Then an attacher, whose lifecycle is: choose (the mode, from the probed
 * features of kfeatures.h: fentry/fexit, kprobe-multi, kprobe, uprobe) ->
 * select (before load: only the chosen entry/exit pair of the skeleton
 * loads) -> kernel / user / program (attach; every link kept) -> destroy
 * (every link detached, in one place).  A command hands it its skeleton's
 * programs in a struct attach_progs and never calls libbpf's attach itself.
 * Where nothing works, the reason names exactly what is missing.
 */
#ifndef IODIG_ATTACH_H
#define IODIG_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include "kfeatures.h"

enum attach_mode { ATTACH_AUTO, ATTACH_FENTRY, ATTACH_KPROBE, ATTACH_KPROBE_MULTI, ATTACH_UPROBE,
		   ATTACH_NMODES };

struct bpf_object;
struct bpf_program;
struct bpf_link;

/* A skeleton's entry and exit programs, one pair per mode it has (a pair it
 * lacks stays NULL; a command that counts at entry only has no exits).  The kernel programs take the function's index from
 * the BPF cookie (fentry: from a constant the command sets). */
struct attach_progs {
	struct bpf_program *entry[ATTACH_NMODES], *exit[ATTACH_NMODES];
};

struct attacher {
	enum attach_mode mode;
	struct bpf_link **links;
	int nlinks, cap;
	double ms;		/* spent attaching */
};

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

/* How to trace nfuncs kernel functions (user: uprobes) given what was
 * asked (ATTACH_AUTO: the cheapest that works).  0, or the exit status
 * after one line saying what is missing. */
int attacher__choose(struct attacher *a, enum attach_mode want, int nfuncs, bool user);
/* Before load: only the chosen pair loads (and, for fentry, autoattaches
 * to fentry_target); every other program of obj is left out. */
void attacher__select(const struct attacher *a, struct bpf_object *obj,
		      const struct attach_progs *p, const char *fentry_target);
/* Attach the chosen pair to names[0..n) (cookie = index; fentry: the one
 * target given to select). */
int attacher__kernel(struct attacher *a, const struct attach_progs *p, char **names, int n);
/* Attach the uprobe pair to BINARY:SYMBOL (resolved as above) with cookie. */
int attacher__user(struct attacher *a, const struct attach_progs *p, const char *spec,
		   uint32_t pid, uint64_t cookie);
/* Attach one program where its section says (tracepoints, tp_btf, raw_tp),
 * after checking the kernel can. */
int attacher__program(struct attacher *a, struct bpf_program *prog, const char *what);
void attacher__destroy(struct attacher *a);

/* Links destroyed together, from up to DETACH_THREADS threads: a link on
 * a perf event waits for grace periods as it goes, and the first of its two
 * waits overlaps the other links' (attach.c says which). */
#define DETACH_THREADS 15
struct bpf_object_skeleton;
void attach__destroy_links(struct bpf_link **links, int n);
/* What <skel>__detach() does, with the links together; each is NULL after. */
void attach__detach_skeleton(struct bpf_object_skeleton *s);

#endif

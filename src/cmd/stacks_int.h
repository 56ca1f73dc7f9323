/* SPDX-License-Identifier: GPL-2.0 */
/* iodig stacks' own parts: the front end (stacks.c) and its printers
 * (stacks_print.c: folded lines, the flame graph, rows and the summary). */
#ifndef IODIG_STACKS_INT_H
#define IODIG_STACKS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "cli.h"
#include "counters.h"
#include "disks.h"
#include "flame.h"
#include "frames.h"
#include "json.h"
#include "kmemo.h"
#include "ksyms.h"
#include "stacks.h"
#include "usyms.h"

struct stacks_opts {
	struct cli_common c;
	bool kernel_only, user_only, folded, walk_each;
	const char *tp, *uprobe, *kfunc, *disk, *cgroup, *svg;
	unsigned long long pid, top, duration;
	struct disk_sel sel;
};

/* counting at another event than block I/O submission */
static inline bool event_mode(const struct stacks_opts *o)
{
	return o->tp || o->uprobe || o->kfunc;
}

struct stacks_ctx {
	struct stacks_opts *o;
	struct stacks_bpf *sk;
	struct usyms *us;
	struct ksyms ks;
	struct ustacks ust;
	struct json j;
};

struct entry {
	struct stacks_key k;
	struct stacks_val v;
};

struct stacks_values {
	struct stacks_stats st;
	struct kmemo_stats km;	/* block submission's kernel stacks (kmemo.bpf.h), all CPUs */
	uint64_t stacks, shown, user_unresolved, untimed, user_after_exit, mmap_lost;
};

#define STACKS_NCOUNTERS 17
/* mode 1: any event; 2: block submission; 4: its kernel stacks from memos (kmemo.bpf.h) */
extern const struct counter stacks_counters[STACKS_NCOUNTERS];

int stacks__flame_add(struct flame *fl, const struct entry *e, const struct frames *kf, const struct frames *uf);
void stacks__entry(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf, const struct frames *uf,
		   bool folded);

#endif

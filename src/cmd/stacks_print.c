// SPDX-License-Identifier: GPL-2.0
/* iodig stacks' printers: folded lines, the flame graph's input, each
 * stack's row (fields.h) and the summary's record. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fields.h"
#include "hist_user.h"
#include "recs.h"
#include "stacks_int.h"
#include "text.h"

void stacks__folded(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
			 const struct frames *uf)
{
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)];

	/* root first: the process, its user frames outermost first, then the kernel's */
	text__safe(e->k.comm, comm, sizeof(comm));
	for (char *p = comm; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	printf("%s", comm);
	for (int i = uf ? uf->n - 1 : -1; i >= 0; i--)
		uf->f[i].sym ? printf(";%s", uf->f[i].sym) : printf(";[0x%llx]", (unsigned long long)uf->f[i].addr);
	for (int i = kf->n - 1; i >= 0; i--)
		kf->f[i].sym ? printf(";%s_[k]", kf->f[i].sym) : printf(";[0x%llx]_[k]", (unsigned long long)kf->f[i].addr);
	printf(" %llu\n", (unsigned long long)e->v.count);
}

/* The stack into the flame graph: process, user frames, kernel frames, root first. */
int stacks__flame_add(struct flame *fl, const struct entry *e, const struct frames *kf, const struct frames *uf)
{
	int n = 1 + (uf ? uf->n : 0) + kf->n, k = 0, err;
	const char **names = calloc(n, sizeof(*names));
	unsigned char *kernel = calloc(n, 1);
	char **own = calloc(n, sizeof(*own));

	if (!names || !kernel || !own) {
		err = -ENOMEM;
		goto out;
	}
	names[k++] = e->k.comm;
	for (int i = uf ? uf->n - 1 : -1; i >= 0; i--, k++)
		if (!(names[k] = uf->f[i].sym)) {
			if (asprintf(&own[k], "[0x%llx]", (unsigned long long)uf->f[i].addr) < 0)
				own[k] = NULL;
			names[k] = own[k] ? own[k] : "?";
		}
	for (int i = kf->n - 1; i >= 0; i--, k++) {
		kernel[k] = 1;
		if (!(names[k] = kf->f[i].sym)) {
			if (asprintf(&own[k], "[0x%llx]", (unsigned long long)kf->f[i].addr) < 0)
				own[k] = NULL;
			names[k] = own[k] ? own[k] : "?";
		}
	}
	err = flame__add(fl, names, kernel, k, e->v.count);
out:
	for (int i = 0; own && i < n; i++)
		free(own[i]);
	free(own);
	free(names);
	free(kernel);
	return err;
}

/* ---- a stack's row, declared once (fields.h): block submission or any event ---- */

enum { M_EVENT = 1, M_BLOCK = 2 };

struct stack_view {
	const struct entry *e;
	const struct frames *kf, *uf;
};

#define STV(row) ((const struct stack_view *)(row))

static void g_count(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->v.count;
}

static void g_bytes(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->v.bytes;
}

static void g_pid(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->k.pid;
}

static void g_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = STV(row)->e->k.comm;
}

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (STV(row)->e->k.dev) {
		v->k = V_STR;
		v->s = disks__name(STV(row)->e->k.dev);
	}
}

static const void *e_kernel(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return STV(row)->kf;
}

static const void *e_user(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return STV(row)->uf;
}

static void g_cut(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_BOOL;
	v->b = STV(row)->uf->cut;
}

static const void *e_q2c(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	return &STV(row)->e->v.lat;
}

static const struct field stack_fields[] = {
	{ "count", FS_GET, .get = g_count, .flags = FL_INT },
	{ "bytes", FS_GET, .get = g_bytes, .flags = FL_INT },
	{ "pid", FS_GET, .get = g_pid, .flags = FL_INT },
	{ "comm", FS_GET, .get = g_comm, .flags = FL_STR },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR | FL_NULLABLE },
	{ "kernel", FS_FRAMES, .each = e_kernel },
	{ "user", FS_FRAMES, .each = e_user },
	{ "user_cut_short", FS_GET, .get = g_cut, .flags = FL_BOOL },
	/* block: each bio from submission to its end */
	{ "q2c", FS_HIST, .each = e_q2c, .only = M_BLOCK },
};

const struct rec stack_rec = REC("stack", "stack", "stacks: one (process, kernel stack, user stack, disk) and what was "
				 "counted at it; q2c for block submission: its bios' time from submission to their end "
				 "(a histogram's fields)", stack_fields);

void stacks__entry(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
			const struct frames *uf)
{
	static const struct frames none = { .user = true };
	const struct stacks_opts *o = sc->o;
	char comm[TEXT_SAFE_LEN(STACKS_COMM_LEN)];

	if (!uf)
		uf = &none;
	if (o->c.json) {
		struct stack_view v = { e, kf, uf };
		struct fctx c = { .mode = event_mode(o) ? M_EVENT : M_BLOCK };

		fields__json(&sc->j, &stack_rec, &v, &c);
		return;
	}
	frames__text(kf, stdout, "    ");
	if (kf->n && uf->n)
		printf("    --\n");
	frames__text(uf, stdout, "    ");
	printf("  %s [%u]%s%s: %llu", text__safe(e->k.comm, comm, sizeof(comm)), e->k.pid,
	       e->k.dev ? " on " : "", e->k.dev ? disks__name(e->k.dev) : "", (unsigned long long)e->v.count);
	if (event_mode(o)) {
		printf(" events\n\n");
	} else {
		char p50[32], p99[32], max[32];

		printf(" bios, %llu bytes", (unsigned long long)e->v.bytes);
		if (e->v.lat.count)
			printf("; Q2C p50 %s p99 %s max %s", fmt_ns(p50, sizeof(p50), hist__percentile(&e->v.lat, 0.5)),
			       fmt_ns(p99, sizeof(p99), hist__percentile(&e->v.lat, 0.99)),
			       fmt_ns(max, sizeof(max), e->v.lat.max));
		printf("\n\n");
	}
}

#define SV(f) offsetof(struct stacks_values, f)
/* mode 1: any event; 2: block submission (bios are timed to their end) */
const struct counter stacks_counters[STACKS_NCOUNTERS] = {
	{ "events", SV(st.events), "%llu events" },
	{ "stacks", SV(stacks), "%llu distinct stacks" },
	{ "shown", SV(shown), "%llu shown" },
	{ "kstack_lost", SV(st.kstack_lost), "lost: %llu kernel stacks" },
	{ "ustack_lost", SV(st.ustack_lost), "%llu user stacks" },
	{ "map_full", SV(st.map_full), "%llu events (table full)" },
	{ "user_unresolved", SV(user_unresolved), "%llu user stacks unresolved (process gone)" },
	{ "user_after_exit", SV(user_after_exit), "%llu processes gone before their first stack scan, "
						  "named from the mappings the kernel reported" },
	{ "mmap_lost", SV(mmap_lost), "lost: %llu mapping records (some gone processes stay unnamed)" },
	{ "untimed", SV(untimed), "%llu bios not timed (their end not seen: still in flight, or a completion "
				  "the kernel ran no program for)", 2 },
	{ "inflight_full", SV(st.inflight_full), "%llu of them for want of room", 2 },
	{ "unmatched", SV(st.unmatched), "%llu bio ends whose submission was before the start", 2 },
};

static const struct field summary_fields[] = {
	{ "counters", FS_COUNTERS, 0, .sub = stacks_counters, .nsub = COUNTERS_N(stacks_counters) },
};

const struct rec stacks_summary_rec = REC("summary", "stacks.summary", "stacks: the counters of a run (untimed, "
					  "inflight_full and unmatched: block submission only, else null)", summary_fields);


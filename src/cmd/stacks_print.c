// SPDX-License-Identifier: GPL-2.0
/* iodig stacks' printers: folded lines, the flame graph's input, each
 * stack's row (fields.h) and the summary's record. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpfenv.h"
#include "fields.h"
#include "hist_user.h"
#include "recs.h"
#include "stacks_int.h"
#include "text.h"

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

static void t_has_both(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (STV(row)->kf->n && STV(row)->uf->n)
		v->k = V_BOOL;
}

static void t_lat(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (STV(row)->e->v.lat.count)
		v->k = V_BOOL;
}

static void t_p50(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = hist__percentile(&STV(row)->e->v.lat, 0.5);
}

static void t_p99(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = hist__percentile(&STV(row)->e->v.lat, 0.99);
}

static void t_max(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_U64;
	v->u = STV(row)->e->v.lat.max;
}

static const struct field q2c_text[] = {	/* "; Q2C p50 38.2us p99 1.02ms max 1.10ms" */
	{ NULL, FS_GET, .tget = t_p50, .flags = FL_DUR, .fmt = "; Q2C p50 %s" },
	{ NULL, FS_GET, .tget = t_p99, .flags = FL_DUR, .fmt = " p99 %s" },
	{ NULL, FS_GET, .tget = t_max, .flags = FL_DUR, .fmt = " max %s" },
};
static const struct rec q2c_text_rec = REC_LINES(NULL, NULL, NULL, q2c_text);

/* Text: the stack, innermost frame first, then "  dd [301] on loop0: 512
 * bios, 2097152 bytes; Q2C p50 .. p99 .. max .." (or ": 12 events"). */
static const struct field stack_fields[] = {
	{ NULL, FS_FRAMES, .each = e_kernel, .fmt = "    " },
	{ NULL, FS_GET, .tget = t_has_both, .fmt = "    --\n" },
	{ NULL, FS_FRAMES, .each = e_user, .fmt = "    " },
	{ NULL, FS_GET, .tget = g_comm, .fmt = "  %s" },
	{ NULL, FS_GET, .tget = g_pid, .fmt = " [%u]" },
	{ NULL, FS_GET, .tget = g_disk, .fmt = " on %s" },
	{ NULL, FS_GET, .tget = g_count, .fmt = ": %llu" },
	{ NULL, FS_TEXT, .only = M_EVENT, .fmt = " events\n\n" },
	{ NULL, FS_GET, .tget = g_bytes, .only = M_BLOCK, .fmt = " bios, %llu bytes" },
	{ NULL, FS_OBJ, .get = t_lat, .only = M_BLOCK, .sub = &q2c_text_rec, .fmt = "" },
	{ NULL, FS_TEXT, .only = M_BLOCK, .fmt = "\n\n" },
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

const struct rec stack_rec = REC_LINES("stack", "stack", "stacks: one (process, kernel stack, user stack, disk) and what was "
				 "counted at it; q2c for block submission: its bios' time from submission to their end "
				 "(a histogram's fields)", stack_fields);

/* Folded, the flame graph's input: "dd;main;..;vfs_write_[k];.. 12", the
 * process first (';' and ' ' in its name made '_'), then the user frames
 * outermost first, then the kernel's. */
static void t_folded_comm(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	text__safe(STV(row)->e->k.comm, b, n);
	for (char *p = b; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	v->k = V_STR;
	v->s = b;
}

static const struct field folded_fields[] = {
	{ NULL, FS_GET, .tget = t_folded_comm, .flags = FL_SAFE, .fmt = "%s" },
	{ NULL, FS_FRAMES, .each = e_user, .flags = FL_FOLDED, .fmt = "" },
	{ NULL, FS_FRAMES, .each = e_kernel, .flags = FL_FOLDED, .fmt = "_[k]" },
	{ NULL, FS_GET, .tget = g_count, .fmt = " %llu\n" },
};
static const struct rec folded_rec = REC_LINES(NULL, NULL, NULL, folded_fields);

void stacks__entry(struct stacks_ctx *sc, const struct entry *e, const struct frames *kf,
		   const struct frames *uf, bool folded)
{
	static const struct frames none = { .user = true };
	struct stack_view v = { e, kf, uf ? uf : &none };
	struct fctx c = { .mode = event_mode(sc->o) ? M_EVENT : M_BLOCK };

	if (folded)
		fields__lines(stdout, &folded_rec, &v, &c);
	else if (sc->o->c.json)
		fields__json(&sc->j, &stack_rec, &v, &c);
	else
		fields__lines(stdout, &stack_rec, &v, &c);
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
	{ "inflight_full", SV(st.inflight_full), "%llu of them, their slot taken by another bio", 2 },
	{ "unmatched", SV(st.unmatched), "%llu bio ends whose submission was before the start", 2 },
	BPFENV_KMEMO_COUNTERS(SV(km), 4),
};

static const struct field summary_fields[] = {
	{ "counters", FS_COUNTERS, 0, .sub = stacks_counters, .nsub = COUNTERS_N(stacks_counters) },
};

const struct rec stacks_summary_rec = REC("summary", "stacks.summary", "stacks: the counters of a run (untimed, "
					  "inflight_full and unmatched: block submission only, else null; kstack_*: "
					  "kernel stacks from memos, each walked with --walk-each, null with -U, --kfunc, "
					  "--uprobe or where the kernel lacks what memos need)", summary_fields);


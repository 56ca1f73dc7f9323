// SPDX-License-Identifier: GPL-2.0
/*
 * iodig layers: the block device tree (/sys/block/X/slaves: dm, md, bcache
 * over their disks), each layer's I/O per interval with its latency, and the
 * time each bio-based layer adds over what it became below (its bios' Q2C
 * less their longest lower's, signed: life_stack.bpf.c).  The request-life
 * engine in snoop mode: its records added up here, none printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "cmds.h"
#include "disks.h"
#include "fields.h"
#include "hist_user.h"
#include "json.h"
#include "life_user.h"
#include "life.skel.h"
#include "log.h"
#include "recs.h"
#include "run.h"
#include "sort.h"

#define LAYERS_MAX 256

struct layer {
	uint32_t dev, parent;	/* parent: the disk above (0: none) */
	int depth;
	bool shown;
	uint64_t ios, layer_n;
	int64_t layer_sum;	/* signed: a bio a little shorter than its lower (clocks) */
	struct hist q2c, layer;	/* layer: the positive ones */
	double secs;
};

struct layers_ctx {
	struct cli_common c;
	struct run_loop loop;
	struct life l;
	struct layer d[LAYERS_MAX];
	int nd;
	uint64_t t0, interval;
	struct json j;
};

static struct layer *layer_of(struct layers_ctx *lc, uint32_t dev)
{
	for (int i = 0; i < lc->nd; i++)
		if (lc->d[i].dev == dev)
			return &lc->d[i];
	if (lc->nd == LAYERS_MAX)
		return NULL;
	memset(&lc->d[lc->nd], 0, sizeof(lc->d[0]));
	lc->d[lc->nd].dev = dev;
	return &lc->d[lc->nd++];
}

static void on_pair(uint32_t upper, uint32_t lower, void *ctx)
{
	struct layer *l = layer_of(ctx, lower);

	layer_of(ctx, upper);
	if (l)
		l->parent = upper;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct layers_ctx *lc = ctx;
	uint32_t type = *(uint32_t *)data;
	struct layer *l;

	if (type == REC_REQ && size >= sizeof(struct life_req)) {
		const struct life_req *r = data;
		__u64 ph[PH_NR];

		if ((l = layer_of(lc, r->dev))) {
			life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
			hist__add(&l->q2c, ph[PH_Q2C]);
			l->ios++;
		}
	} else if (type == REC_UPPER && size >= sizeof(struct life_upper)) {
		const struct life_upper *u = data;

		if (!(l = layer_of(lc, u->dev)))
			return 0;
		hist__add(&l->q2c, u->c - u->q);
		l->ios++;
		if (u->nlower) {
			int64_t layer = (int64_t)(u->c - u->q) - (int64_t)life_upper_below(u);

			l->layer_sum += layer;
			l->layer_n++;
			hist__add(&l->layer, layer > 0 ? layer : 0);
		}
	}
	return 0;
}

#define LY(f) offsetof(struct layer, f)
#define L(row) ((const struct layer *)(row))

static void g_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = disks__name(L(row)->dev);
}

static void t_disk(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	snprintf(b, n, "%*s%s", 2 * L(row)->depth, "", disks__name(L(row)->dev));
	v->k = V_STR;
	v->s = b;
}

static void g_parent(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (L(row)->parent) {
		v->k = V_STR;
		v->s = disks__name(L(row)->parent);
	}
}

#define PCT(fn, h, p) static void fn(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n) \
	{ if (L(row)->h.count) { v->k = V_U64; v->u = hist__percentile(&L(row)->h, p); } }
PCT(g_p50, q2c, 0.5)
PCT(g_p99, q2c, 0.99)
PCT(g_layer_p99, layer, 0.99)

static void g_layer_mean(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	if (L(row)->layer_n) {
		v->k = V_I64;
		v->i = L(row)->layer_sum / (int64_t)L(row)->layer_n;
	}
}

static void g_iops(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_DBL;
	v->d = c->secs > 0 ? L(row)->ios / c->secs : 0;
}

static const struct field layer_fields[] = {
	{ "interval", FS_INTERVAL },
	{ "disk", FS_GET, .get = g_disk, .flags = FL_STR, .head = "DISK", .fmt = "%-16s", .tget = t_disk },
	{ "parent", FS_GET, .get = g_parent, .flags = FL_STR | FL_NULLABLE },
	{ "depth", FS_I32, LY(depth) },
	{ "ios", FS_U64, LY(ios) },
	{ "iops", FS_GET, .get = g_iops, .flags = FL_NUMBER, .head = "IOPS", .fmt = "%9.1f" },
	{ "p50_ns", FS_GET, .get = g_p50, .flags = FL_INT | FL_NULLABLE, .head = "P50(ms)", .fmt = "%9.3f", .tdiv = 1e6 },
	{ "p99_ns", FS_GET, .get = g_p99, .flags = FL_INT | FL_NULLABLE, .head = "P99(ms)", .fmt = "%9.3f", .tdiv = 1e6 },
	{ "layer_mean_ns", FS_GET, .get = g_layer_mean, .flags = FL_INT | FL_NULLABLE, .head = "ADDS(ms)",
	  .fmt = "%9.3f", .tdiv = 1e6 },
	{ "layer_p99_ns", FS_GET, .get = g_layer_p99, .flags = FL_INT | FL_NULLABLE, .head = "ADDS_P99(ms)",
	  .fmt = "%13.3f", .tdiv = 1e6 },
};
const struct rec layer_rec = REC("layer", "layer", "layers: one block device over one report: its I/O, "
				 "latency, and what a bio-based layer adds over the disks below", layer_fields);

/* depth-first from the roots, by name: a disk shown if it or one below did I/O */
static bool mark(struct layers_ctx *lc, struct layer *l, int depth)
{
	bool any = l->ios > 0;

	l->depth = depth;
	for (int i = 0; i < lc->nd; i++)
		if (lc->d[i].parent == l->dev && &lc->d[i] != l)
			any |= mark(lc, &lc->d[i], depth + 1);
	return l->shown = any;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(disks__name(((const struct layer *)a)->dev), disks__name(((const struct layer *)b)->dev));
}

static void print_tree(struct layers_ctx *lc, const struct layer *l, const struct fctx *c)
{
	if (!l->shown)
		return;
	if (lc->c.json)
		fields__json(&lc->j, &layer_rec, l, c);
	else
		fields__text(stdout, &layer_rec, l, c);
	for (int i = 0; i < lc->nd; i++)
		if (lc->d[i].parent == l->dev && &lc->d[i] != l)
			print_tree(lc, &lc->d[i], c);
}

static int layers_report(void *ctx, bool last)
{
	struct layers_ctx *lc = ctx;
	uint64_t now = run__mono_ns();
	struct fctx c = { .mode = 1, .secs = (now - lc->t0) / 1e9, .interval = ++lc->interval };

	lc->t0 = now;
	sort__any(lc->d, lc->nd, sizeof(lc->d[0]), by_name);
	for (int i = 0; i < lc->nd; i++)
		if (!lc->d[i].parent)
			mark(lc, &lc->d[i], 0);
	if (!lc->c.json) {
		if (lc->loop.timestamp)
			run__print_time(stdout);
		fields__head(stdout, &layer_rec, &c);
	}
	for (int i = 0; i < lc->nd; i++)
		if (!lc->d[i].parent)
			print_tree(lc, &lc->d[i], &c);
	if (!lc->c.json)
		printf("\n");
	for (int i = 0; i < lc->nd; i++) {	/* the tree stays, the figures start again */
		struct layer *l = &lc->d[i];

		l->ios = l->layer_n = 0;
		l->layer_sum = 0;
		memset(&l->q2c, 0, sizeof(l->q2c));
		memset(&l->layer, 0, sizeof(l->layer));
	}
	return run__flush();
}

static int layers_wait(void *ctx, int ms)
{
	return life__poll(&((struct layers_ctx *)ctx)->l, ms);
}

static int layers_args(void *ctx, int argc, char **argv, int optind)
{
	return run__parse_interval(argc, argv, optind, &((struct layers_ctx *)ctx)->loop);
}

int cmd_layers(int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.name = "layers", .synopsis = "[interval [count]]",
		.about = "The block device tree (dm, md, bcache over their disks, from sysfs), each layer's\n"
			 "IOPS and latency per interval (requests: Q2C; bios of a bio-based disk: submission\n"
			 "to end), and what a bio-based layer adds over the longest of what each bio\n"
			 "became below (ADDS: its mean, signed; and p99).\n",
		.notes = "Example: iodig layers 2  (a report every 2 s)\n", .args = layers_args, .tracing = true, .slim_btf = true };
	struct layers_ctx *lc = calloc(1, sizeof(*lc));
	struct life_cfg cfg = { .mode = LIFE_SNOOP };
	int err;

	if (!lc)
		return fail("starting", "out of memory");
	if ((err = cli__prologue(&cmd, argc, argv, &lc->c, lc)) >= 0)
		goto done;
	if (!lc->loop.interval_ms)
		lc->loop.interval_ms = 1000;
	json__init(&lc->j, stdout);
	disks__stacked(on_pair, lc);
	if ((err = life__start(&lc->l, &cfg, on_record, lc)))
		goto out;
	run__signals();
	if ((err = run__ready(lc->c.ready_file, "Tracing block I/O by layer... Hit Ctrl-C to end.")))
		goto out;
	lc->t0 = run__mono_ns();
	lc->loop.wait = layers_wait;
	lc->loop.report = layers_report;
	lc->loop.ctx = lc;
	err = run__loop(&lc->loop);
out:
	life__stop(&lc->l);
done:
	free(lc);
	return err;
}

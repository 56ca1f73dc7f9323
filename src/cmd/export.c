// SPDX-License-Identifier: GPL-2.0
/*
 * iodig export: a Prometheus exporter.  The request-life engine in
 * histogram mode (the phases of every request, from bio submission), kept
 * cumulative per disk, op and phase; slow requests by dominant phase;
 * queue-attribute writes; the kernel's own request and byte counts; what
 * was lost; iodig's own BPF cost.  The main thread folds the BPF maps into
 * the model every second; the HTTP thread renders it under a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "cli.h"
#include "cmds.h"
#include "counters.h"
#include "disks.h"
#include "diskstats.h"
#include "filter.h"
#include "histmap.h"
#include "hist_user.h"
#include "http.h"
#include "life_user.h"
#include "log.h"
#include "prom.h"
#include "records.h"
#include "reqflags.h"
#include "run.h"
#include "life.skel.h"

#define EXPORT_SERIES	1024	/* (disk, op, phase) histograms kept; more are dropped, counted */
#define EXPORT_QW	256	/* (disk, attribute) of queue-attribute writes */
#define EXPORT_TAGS	256	/* (disk, holder) of --tag-holders */

enum { OPT_LISTEN = OPT_FIRST_CMD, OPT_SLOW_MS, OPT_ALLOW_REMOTE, OPT_TAG_HOLDERS };

struct series {
	struct life_phase_key k;
	struct hist h;			/* since the start */
};

struct qwrite {
	char disk[SYSFS_NAME_LEN], attr[SYSFS_NAME_LEN];
	uint64_t n, ns;
};

/* --tag-holders: requests that waited for a tag, by disk (holder ""), and
 * the process names that held the tags then */
struct tagrow {
	char disk[32], holder[LIFE_COMM_LEN];
	uint64_t waits;		/* waits (holder ""), or those it held the most tags in */
	uint64_t held;		/* tags it held, summed over the waits */
};

struct export_opts {
	struct cli_common c;
	const char *listen, *disk;
	bool allow_remote;	/* --listen beyond loopback, on purpose */
	bool tag_holders;
	unsigned long long slow_ms;
	struct disk_sel sel;
};

struct export_ctx {
	struct export_opts *o;
	struct life l;
	struct reqflags rf;
	pthread_mutex_t lock;		/* the model below */
	struct series *s;
	int n;
	uint64_t dropped;		/* histogram samples of series beyond EXPORT_SERIES */
	struct life_phase_key *slow_k;	/* slow requests: running totals from BPF */
	uint64_t *slow_v;
	int nslow;
	struct qwrite qw[EXPORT_QW];
	int nqw;
	uint64_t qw_dropped;
	struct tagrow tags[EXPORT_TAGS];
	int ntags;
	uint64_t tags_dropped;		/* (disk, holder) rows beyond EXPORT_TAGS */
	struct life_stats st;
	uint64_t skipped;	/* the highest skipped seen: a counter may only rise,
				 * and skipped can read a request low for an instant */
	uint64_t missed, bpf_ns, bpf_runs, scrapes;
	int ncpus;
	struct http_server *http;
};

static struct series *series_of(struct export_ctx *ec, const struct life_phase_key *k)
{
	for (int i = 0; i < ec->n; i++)
		if (!memcmp(&ec->s[i].k, k, sizeof(*k)))
			return &ec->s[i];
	if (ec->n == EXPORT_SERIES)
		return NULL;
	memset(&ec->s[ec->n], 0, sizeof(ec->s[0]));
	ec->s[ec->n].k = *k;
	return &ec->s[ec->n++];
}

static int take(void *ctx, const void *key, const struct hist *h)
{
	struct export_ctx *ec = ctx;
	struct series *s = series_of(ec, key);

	if (s)
		hist__merge(&s->h, h);
	else
		ec->dropped += h->count;
	return 0;
}

/* The slow-request counters, summed over CPUs: running totals. */
static void read_slows(struct export_ctx *ec)
{
	int fd = bpf_map__fd(ec->l.skel->maps.slows);
	struct life_phase_key k, next, *prev = NULL;
	uint64_t v[ec->ncpus];
	int n = 0;

	while (!bpf_map_get_next_key(fd, prev, &next) && n < EXPORT_SERIES) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		ec->slow_k[n] = k;
		counters__sum_cpus(&ec->slow_v[n++], v, ec->ncpus, sizeof(uint64_t));
	}
	ec->nslow = n;
}

static struct tagrow *tagrow_of(struct export_ctx *ec, const char *disk, const char *holder)
{
	for (int i = 0; i < ec->ntags; i++)
		if (!strcmp(ec->tags[i].disk, disk) && !strcmp(ec->tags[i].holder, holder))
			return &ec->tags[i];
	if (ec->ntags == EXPORT_TAGS) {
		ec->tags_dropped++;
		return NULL;
	}
	memset(&ec->tags[ec->ntags], 0, sizeof(ec->tags[0]));
	snprintf(ec->tags[ec->ntags].disk, sizeof(ec->tags[0].disk), "%s", disk);
	snprintf(ec->tags[ec->ntags].holder, sizeof(ec->tags[0].holder), "%s", holder);
	return &ec->tags[ec->ntags++];
}

/* --tag-holders: a request that waited for a tag, and who held them. */
static void on_tags(struct export_ctx *ec, const struct life_tags *t)
{
	const char *disk = disks__name(t->dev);
	struct tag_sum s;
	struct tagrow *r;

	records__tags_sum(&s, t);
	if (!s.held)		/* only given tags while it waited: none held at its start */
		return;
	pthread_mutex_lock(&ec->lock);
	if ((r = tagrow_of(ec, disk, "")))
		r->waits++;
	for (int k = 0; k < TAG_TOP; k++) {
		if (!s.top[k].held)
			continue;
		/* the sum is sorted by held and given together: the most held is
		 * the first of the largest held */
		/* ("" is the disk's own row: a nameless holder is "?") */
		if ((r = tagrow_of(ec, disk, s.top[k].comm[0] ? s.top[k].comm : "?"))) {
			r->held += s.top[k].held;
			bool most = true;

			for (int o = 0; o < TAG_TOP; o++)
				if (s.top[o].held > s.top[k].held || (s.top[o].held == s.top[k].held && o < k))
					most = false;
			r->waits += most;
		}
	}
	pthread_mutex_unlock(&ec->lock);
}

/* A queue-attribute write ended: counted by disk and attribute. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct export_ctx *ec = ctx;
	const struct life_sysfs *w = data;
	int i;

	if (size >= sizeof(struct life_tags) && w->type == REC_TAGS) {
		on_tags(ec, data);
		return 0;
	}
	if (size < sizeof(*w) || w->type != REC_SYSFS_END)
		return 0;
	pthread_mutex_lock(&ec->lock);
	for (i = 0; i < ec->nqw; i++)
		if (!strncmp(ec->qw[i].disk, w->disk, SYSFS_NAME_LEN) && !strncmp(ec->qw[i].attr, w->attr, SYSFS_NAME_LEN))
			break;
	if (i == ec->nqw && ec->nqw < EXPORT_QW) {
		memset(&ec->qw[i], 0, sizeof(ec->qw[i]));
		memcpy(ec->qw[i].disk, w->disk, SYSFS_NAME_LEN - 1);
		memcpy(ec->qw[i].attr, w->attr, SYSFS_NAME_LEN - 1);
		ec->nqw++;
	}
	if (i < ec->nqw) {
		ec->qw[i].n++;
		ec->qw[i].ns += w->end > w->start ? w->end - w->start : 0;
	} else {
		ec->qw_dropped++;
	}
	pthread_mutex_unlock(&ec->lock);
	return 0;
}

/* Folds what the BPF side gathered since the last time into the model. */
static int collect(struct export_ctx *ec)
{
	struct life_bpf *sk = ec->l.skel;
	unsigned long long ns, runs;
	int err;

	pthread_mutex_lock(&ec->lock);
	err = life__drain_phases(&ec->l, take, ec);
	read_slows(ec);
	life__stats(&ec->l, &ec->st);
	{
		int64_t sk = life__skipped(&ec->l);

		if (sk > 0 && (uint64_t)sk > ec->skipped)
			ec->skipped = sk;
	}
	ec->missed = bpfenv__recursion_misses(sk->obj);
	bpfenv__run_stats(sk->obj, &ns, &runs);
	ec->bpf_ns = ns;
	ec->bpf_runs = runs;
	pthread_mutex_unlock(&ec->lock);
	return err < 0 ? fail("collecting histograms", "%s", strerror(-err)) : err;
}

static void labels_dop(struct export_ctx *ec, char *lb, size_t len, uint32_t dev, uint32_t op, const char *phase)
{
	char name[64];

	lb[0] = '\0';
	prom__label(lb, len, "disk", disks__name(dev));
	prom__label(lb, len, "op", reqflags__op_name(&ec->rf, op, name, sizeof(name)));
	if (phase)
		prom__label(lb, len, "phase", phase);
}

/* The kernel's own counts, per disk: /proc/diskstats, each op the kernel
 * counts (discards 4.18+, flushes 5.5+; flushes carry no sectors). */
static void diskstats(struct prom *p)
{
	static const struct {
		const char *op;
		size_t ios, sectors;	/* offsets in struct dstat; sectors 0: none */
		int fields;		/* the kernel has it with this many fields */
	} f[] = {
		{ "read", offsetof(struct dstat, rd), offsetof(struct dstat, rd_sec), 11 },
		{ "write", offsetof(struct dstat, wr), offsetof(struct dstat, wr_sec), 11 },
		{ "discard", offsetof(struct dstat, dc), offsetof(struct dstat, dc_sec), 15 },
		{ "flush", offsetof(struct dstat, fl), 0, 17 },
	};
	struct dstat d[256];	/* (43 KB: render runs on the server thread) */
	char lb[256];
	int nd = diskstats__read(d, 256), n = 0;

	/* disks that never completed a read or a write are left out */
	for (int i = 0; i < nd; i++)
		if (d[i].rd | d[i].wr)
			d[n++] = d[i];
#define DS(i, off) (*(const unsigned long long *)((const char *)&d[i] + (off)))
	prom__family(p, "iodig_disk_requests_total", "counter",
		     "Requests completed, by disk and op, as the kernel counts them (/proc/diskstats).");
	for (int i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			if (d[i].fields >= f[k].fields) {
				lb[0] = '\0';
				prom__label(lb, sizeof(lb), "disk", d[i].name);
				prom__label(lb, sizeof(lb), "op", f[k].op);
				prom__sample_u64(p, "iodig_disk_requests_total", lb, DS(i, f[k].ios));
			}
	prom__family(p, "iodig_disk_bytes_total", "counter",
		     "Bytes of the requests completed, by disk and op, as the kernel counts them (/proc/diskstats).");
	for (int i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			if (f[k].sectors && d[i].fields >= f[k].fields) {
				lb[0] = '\0';
				prom__label(lb, sizeof(lb), "disk", d[i].name);
				prom__label(lb, sizeof(lb), "op", f[k].op);
				prom__sample_u64(p, "iodig_disk_bytes_total", lb, DS(i, f[k].sectors) * 512);
			}
#undef DS
}

static void render(struct export_ctx *ec, struct prom *p)
{
	char lb[512];

	prom__family(p, "iodig_request_seconds", "histogram",
		     "Block request time by phase: Q2G (submission to a request), G2I, I2D (scheduler), "
		     "D2C (device), Q2C (all), for requests whose every stamp was seen; a bio-based disk's "
		     "(dm, md, bcache, zram) bios have Q2C alone, submission to end.");
	for (int i = 0; i < ec->n; i++) {
		labels_dop(ec, lb, sizeof(lb), ec->s[i].k.dev, ec->s[i].k.op, life__phase_name(ec->s[i].k.phase));
		prom__hist(p, "iodig_request_seconds", lb, &ec->s[i].h);
	}
	prom__family(p, "iodig_slow_requests_total", "counter",
		     "Requests whose Q2C reached --slow-ms, by disk, op and dominant phase.");
	for (int i = 0; i < ec->nslow; i++) {
		labels_dop(ec, lb, sizeof(lb), ec->slow_k[i].dev, ec->slow_k[i].op, life__phase_name(ec->slow_k[i].phase));
		prom__sample_u64(p, "iodig_slow_requests_total", lb, ec->slow_v[i]);
	}
	prom__family(p, "iodig_queue_attribute_writes_total", "counter",
		     "Writes to /sys/block/DISK/queue attributes (they can freeze the queue: seed 000).");
	prom__family(p, "iodig_queue_attribute_write_seconds_total", "counter",
		     "Time the queue-attribute writes took.");
	for (int i = 0; i < ec->nqw; i++) {
		lb[0] = '\0';
		prom__label(lb, sizeof(lb), "disk", ec->qw[i].disk);
		prom__label(lb, sizeof(lb), "attr", ec->qw[i].attr);
		prom__sample_u64(p, "iodig_queue_attribute_writes_total", lb, ec->qw[i].n);
		prom__sample(p, "iodig_queue_attribute_write_seconds_total", lb, ec->qw[i].ns / 1e9);
	}
	if (ec->o->tag_holders) {
		prom__family(p, "iodig_tag_waits_total", "counter",
			     "Requests that waited 1 ms or more for a tag (Q2G) while other requests held "
			     "tags, by disk (--tag-holders).");
		for (int i = 0; i < ec->ntags; i++)
			if (!ec->tags[i].holder[0]) {
				lb[0] = '\0';
				prom__label(lb, sizeof(lb), "disk", ec->tags[i].disk);
				prom__sample_u64(p, "iodig_tag_waits_total", lb, ec->tags[i].waits);
			}
		prom__family(p, "iodig_tag_holder_waits_total", "counter",
			     "Of those waits, the ones in which this process name held the most tags.");
		prom__family(p, "iodig_tag_held_total", "counter",
			     "Tags this process name held as such a request began to wait, summed over the waits "
			     "(divided by the waits: the tags it held in each, on average).");
		for (int i = 0; i < ec->ntags; i++)
			if (ec->tags[i].holder[0]) {
				lb[0] = '\0';
				prom__label(lb, sizeof(lb), "disk", ec->tags[i].disk);
				prom__label(lb, sizeof(lb), "holder", ec->tags[i].holder);
				prom__sample_u64(p, "iodig_tag_holder_waits_total", lb, ec->tags[i].waits);
				prom__sample_u64(p, "iodig_tag_held_total", lb, ec->tags[i].held);
			}
	}
	diskstats(p);
	prom__family(p, "iodig_lost_total", "counter",
		     "What iodig did not put in a histogram or counter, by cause (docs: README, Errors).");
	{
		static const char *const what[] = { "partial", "untracked", "map_full", "unseen_end", "skipped",
						    "missed", "series_dropped", "records_lost", "queue_writes_dropped" };
		uint64_t v[] = { ec->st.partial, ec->st.untracked, ec->st.map_full, ec->st.unseen_end, ec->skipped,
				 ec->missed, ec->dropped, ec->st.lost, ec->qw_dropped };

		for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			lb[0] = '\0';
			prom__label(lb, sizeof(lb), "what", what[i]);
			prom__sample_u64(p, "iodig_lost_total", lb, v[i]);
		}
		if (ec->o->tag_holders) {
			lb[0] = '\0';
			prom__label(lb, sizeof(lb), "what", "tag_holders_dropped");
			prom__sample_u64(p, "iodig_lost_total", lb, ec->tags_dropped);
		}
	}
	prom__family(p, "iodig_requests_completed_total", "counter", "Requests whose completion iodig saw.");
	prom__sample_u64(p, "iodig_requests_completed_total", "", ec->st.completed);
	prom__family(p, "iodig_bpf_run_seconds_total", "counter",
		     "CPU time of iodig's BPF programs (counted while kernel.bpf_stats_enabled=1).");
	prom__sample(p, "iodig_bpf_run_seconds_total", "", ec->bpf_ns / 1e9);
	prom__family(p, "iodig_bpf_runs_total", "counter", "Runs of iodig's BPF programs (with bpf_stats_enabled).");
	prom__sample_u64(p, "iodig_bpf_runs_total", "", ec->bpf_runs);
	prom__family(p, "iodig_scrapes_total", "counter", "Scrapes of /metrics served, this one included.");
	prom__sample_u64(p, "iodig_scrapes_total", "", ec->scrapes);
}

static void handle(void *ctx, const struct http_req *r, struct http_resp *out)
{
	struct export_ctx *ec = ctx;
	struct prom p = { 0 };
	static const char index[] = "<html><head><title>iodig</title></head><body><h1>iodig export</h1>"
				    "<p><a href=\"/metrics\">/metrics</a></p></body></html>\n";

	if (!strcmp(r->path, "/")) {
		*out = (struct http_resp){ 200, "text/html; charset=utf-8", strdup(index), sizeof(index) - 1 };
		return;
	}
	if (strcmp(r->path, "/metrics")) {
		*out = (struct http_resp){ 404, NULL, strdup("404 Not Found: try /metrics\n"), 28 };
		return;
	}
	pthread_mutex_lock(&ec->lock);
	ec->scrapes++;
	render(ec, &p);
	pthread_mutex_unlock(&ec->lock);
	if (p.oom) {
		prom__free(&p);
		*out = (struct http_resp){ 500, NULL, strdup("500 out of memory\n"), 18 };
		return;
	}
	*out = (struct http_resp){ 200, "text/plain; version=0.0.4; charset=utf-8", p.buf, p.len };
}

static int export_args(void *ctx, int argc, char **argv, int optind)
{
	return optind < argc ? usage_error("unexpected argument '%s'", argv[optind]) : 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "listen", OPT_LISTEN, "ADDR:PORT", "where to serve /metrics (default 127.0.0.1:9436)", CLI_STR_AT(struct export_opts, listen) },
		{ "slow-ms", OPT_SLOW_MS, "MS", "a request this slow (Q2C) or slower is counted as slow (default 10)", CLI_UINT_AT(struct export_opts, slow_ms, 1, 3600000, "milliseconds, 1 or more") },
		{ "disk", 'd', "DISK", "only this disk (or partition)", CLI_STR_AT(struct export_opts, disk) },
		{ "tag-holders", OPT_TAG_HOLDERS, NULL, "count requests that waited for a tag, and the process\n"
			"names that held the tags then (costs about 150 ns a request)", CLI_FLAG_AT(struct export_opts, tag_holders) },
		{ "allow-remote", OPT_ALLOW_REMOTE, NULL, "--listen on an address other machines reach (not loopback):\n"
			"what is served names processes, disks and cgroups", CLI_FLAG_AT(struct export_opts, allow_remote) },
		{}
	};
	static const struct cli_cmd cmd = {
		.name = "export",
		.synopsis = "[options]",
		.about = "A Prometheus exporter: GET /metrics serves, per disk and op, histograms of each\n"
			 "request phase from bio submission (Q2G, G2I, I2D, D2C, Q2C; buckets log2 with 2\n"
			 "sub-buckets, 1 us to 17 s), slow requests by dominant phase, queue-attribute\n"
			 "writes, the kernel's request and byte counts, what was lost, iodig's BPF cost.\n",
		.notes = "Port 9436 by default, on loopback: --listen :9436 --allow-remote serves every\n"
			 "address (put TLS and authentication in front: a reverse proxy, README).  Runs until\n"
			 "SIGINT or SIGTERM.\n",
		.opts = opts, .args = export_args, .tracing = true, .slim_btf = true,
		.privileges = "Without CAP_DAC_READ_SEARCH (tracefs root's alone), queue attribute writes are not\n"
			 "watched, said once.  iodig-export.service runs\n"
			 "it as a dynamic user with CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH alone.\n" };
	struct export_opts o = { .listen = "127.0.0.1:9436", .slow_ms = 10 };
	struct export_ctx ec = { .o = &o };
	struct life_cfg cfg = { .mode = LIFE_PHASES, .sysfs = true, .lazy_grants = true };
	const struct btf *vmlinux = NULL;
	int err = cli__prologue(&cmd, argc, argv, &o.c, &o);

	if (err >= 0)
		return err;
	if (http__remote(o.listen) && !o.allow_remote)	/* before anything loads */
		return usage_error("--listen '%s' is reachable from other machines, and the metrics name this "
				   "one's processes, disks and cgroups: add --allow-remote if that is meant", o.listen);
	if (o.disk && (err = filter__disk(o.disk, &o.sel)))
		return err;
	cfg.dev = o.sel.disk;
	cfg.part = o.sel.part;
	cfg.min_ns = o.slow_ms * 1000000ULL;
	cfg.tags = o.tag_holders;
	pthread_mutex_init(&ec.lock, NULL);
	ec.ncpus = libbpf_num_possible_cpus();
	ec.s = calloc(EXPORT_SERIES, sizeof(*ec.s));
	ec.slow_k = calloc(EXPORT_SERIES, sizeof(*ec.slow_k));
	ec.slow_v = calloc(EXPORT_SERIES, sizeof(*ec.slow_v));
	if (ec.ncpus <= 0 || !ec.s || !ec.slow_k || !ec.slow_v) {
		err = fail("starting", "out of memory");
		goto out;
	}
	if (!(vmlinux = bpfenv__vmlinux()) || reqflags__load(&ec.rf, vmlinux)) {
		err = fail("reading request ops from kernel BTF", "%s", strerror(errno));
		goto out;
	}
	if ((err = life__start(&ec.l, &cfg, on_record, &ec)))
		goto out;
	if (!ec.l.sysfs_on)
		warnf("queue-attribute writes are not counted: %s", ec.l.sysfs_why);
	if (http__remote(o.listen))
		warnf("serving %s beyond loopback, without TLS or authentication: anyone who reaches it reads "
		      "this machine's processes, disks and cgroups", o.listen);
	if ((err = http__start(&ec.http, o.listen, handle, &ec)))
		goto out;
	run__signals();
	{
		char msg[160];

		snprintf(msg, sizeof(msg), "Serving http://%s/metrics ... Hit Ctrl-C to end.", o.listen);
		if ((err = run__ready(o.c.ready_file, msg)))
			goto out;
	}
	while (!run__stopping()) {
		for (int i = 0; i < 1000 / LIFE_DRAIN_MS && !run__stopping(); i++)
			if ((err = life__poll(&ec.l, LIFE_DRAIN_MS)) > 0)
				goto out;
		if ((err = collect(&ec)))
			goto out;
	}
	err = 0;
out:
	http__stop(ec.http);
	life__stop(&ec.l);
	reqflags__free(&ec.rf);
	free(ec.s);
	free(ec.slow_k);
	free(ec.slow_v);
	pthread_mutex_destroy(&ec.lock);
	return err;
}

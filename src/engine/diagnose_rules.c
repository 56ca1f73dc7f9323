// SPDX-License-Identifier: GPL-2.0
/*
 * iodig doctor's rules (diagnose.h): one small rule per kind of finding over
 * what diagnose.c added up, each finding's cost a sum of time the rule
 * names, so that findings of different kinds rank against each other.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diagnose.h"
#include "disks.h"
#include "hist_user.h"
#include "sort.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void ms(char *b, size_t n, uint64_t ns)
{
	fmt_ns(b, n, ns);
}

/* A line into one of a finding's lists (its evidence, its next steps). */
static void addf(char (*list)[DX_LINE], unsigned *n, unsigned max, const char *fmt, va_list ap)
{
	if (*n < max)
		vsnprintf(list[(*n)++], DX_LINE, fmt, ap);
}

static void ev(struct dx_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct dx_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	addf(f->ev, &f->nev, DX_EVIDENCE, fmt, ap);
	va_end(ap);
}

/* The finding's one line (cut at its size, as evidence lines are) */
static void title(struct dx_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void title(struct dx_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->title, sizeof(f->title), fmt, ap);
	va_end(ap);
}

static void next(struct dx_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void next(struct dx_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	addf(f->next, &f->nnext, 2, fmt, ap);
	va_end(ap);
}

#define PL(n) ((n) == 1 ? "" : "s")

/* The next finding, its kind and cost, its disk and culprit (NULL, 0: none). */
static struct dx_finding *finding(struct dx_finding *out, unsigned *n, const char *kind, uint64_t cost,
				  const char *disk, uint32_t pid, const char *comm)
{
	struct dx_finding *f = &out[(*n)++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->cost_ns = cost;
	snprintf(f->disk, sizeof(f->disk), "%s", disk ? disk : "");
	f->pid = pid;
	snprintf(f->comm, sizeof(f->comm), "%s", comm ? comm : "");
	return f;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

static void rule_writers(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	for (unsigned i = 0; i < d->nwriter && *n < max; i++) {
		const struct dx_writer *x = &d->writer[i];
		struct dx_finding *f;
		char a[32], b[32], c[32];

		if (x->stalled_ns < DX_MIN_COST_NS)
			continue;
		f = finding(out, n, "queue_frozen", x->stalled_ns, x->disk, x->pid, x->comm);
		snprintf(f->attr, sizeof(f->attr), "%s", x->attr);
		ms(a, sizeof(a), x->stalled_ns);
		title(f, "%s: queue frozen by %s[%u] writing queue/%s: %llu request%s stalled %s",
			 x->disk, x->comm, x->pid, x->attr, (unsigned long long)x->stalled, PL(x->stalled), a);
		ms(b, sizeof(b), x->stalled_max_ns);
		ev(f, "%llu request%s waited before allocation (Q2G) while the writes ran: %s in all, the longest %s",
		   (unsigned long long)x->stalled, PL(x->stalled), a, b);
		if (x->writes) {
			ms(b, sizeof(b), x->write_ns / x->writes);
			ms(c, sizeof(c), x->write_max_ns);
			ev(f, "%s[%u] wrote queue/%s %u time%s (the last value \"%s\"), each write %s on average, the longest %s",
			   x->comm, x->pid, x->attr, x->writes, PL(x->writes), x->value, b, c);
		}
		next(f, "iodig slow -d %s 1", x->disk);
		next(f, "iodig sysfs -d %s", x->disk);
		f->confidence = x->stalled >= 3 ? "high" : "medium";
		snprintf(f->why, sizeof(f->why), "%s overlapped one of its writes, on the same disk%s",
			 x->stalled == 1 ? "the stall" : "each stall", x->stalled >= 3 ? "" : "; few requests");
	}
}

static void rule_holders(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	for (unsigned i = 0; i < d->nholder && *n < max; i++) {
		const struct dx_holder *h = &d->holder[i];
		const struct dx_disk *x;
		const char *disk = disks__name(h->dev);
		double share = pct(h->held, h->held_all);
		struct dx_finding *f;
		char a[32], b[32], c[32];

		if (h->wait_ns < DX_MIN_COST_NS)
			continue;
		f = finding(out, n, "tag_starvation", h->wait_ns, disk, h->pid, h->comm);
		ms(a, sizeof(a), h->wait_ns);
		title(f, "%s: tag starvation: %llu requests waited %s for tags held by %s[%u]",
			 disk, (unsigned long long)h->waits, a, h->comm, h->pid);
		ms(b, sizeof(b), h->wait_ns / h->waits);
		ms(c, sizeof(c), h->wait_max_ns);
		ev(f, "%llu requests waited 1 ms or more for a tag (Q2G): %s on average, the longest %s",
		   (unsigned long long)h->waits, b, c);
		ev(f, "of the tags held when each began to wait, and given while it waited, %s[%u] had %.1f%% "
		   "(%llu of %llu)", h->comm, h->pid, share, (unsigned long long)h->held, (unsigned long long)h->held_all);
		if (h->waiters_self)
			ev(f, "%llu of those requests were %s[%u]'s own: it queues more than the disk takes",
			   (unsigned long long)h->waiters_self, h->comm, h->pid);
		if ((x = diagnose__disk(d, h->dev)) && x->unnamed) {
			ms(b, sizeof(b), x->unnamed_ns);
			ev(f, "%llu more requests on %s waited 1 ms or more (%s in all) with no holder of a tag noted: "
			   "not counted here", (unsigned long long)x->unnamed, disk, b);
		}
		next(f, "iodig slow -d %s 1", disk);
		next(f, "iodig top -d %s", disk);
		f->confidence = share >= 75 ? "high" : share >= 50 ? "medium" : "low";
		snprintf(f->why, sizeof(f->why), "%s[%u] had %.0f%% of the tags the waits were behind",
			 h->comm, h->pid, share);
	}
}

/* how many of h's values are at or over v (by the buckets: within 1/32) */
static uint64_t over(const struct hist *h, uint64_t v)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_SLOTS; i++)
		if (hist__slot_hi(i) > v)
			n += h->slots[i];
	return n;
}

static void rule_devices(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	for (unsigned i = 0; i < d->ndisk && *n < max; i++) {
		struct dx_disk *k = &d->disk[i];
		const char *disk = disks__name(k->dev);
		bool rot = d->rotational && d->rotational(k->dev);
		uint64_t p50, p99, mx, bound = rot ? DX_SLOW_D2C_ROT_NS : DX_SLOW_D2C_NS;
		double share;
		struct dx_finding *f;
		char a[32], b[32], c[32], e[32];

		if (!k->small)
			continue;
		diagnose__second_end(k);
		p99 = hist__percentile(&k->d2c, 0.99);
		if (p99 < bound || over(&k->d2c, bound) < DX_SLOW_MIN)
			continue;
		p50 = hist__percentile(&k->d2c, 0.5);
		mx = k->d2c.max;
		share = pct(k->small_d2c_ns, k->small_q2c_ns);
		f = finding(out, n, "slow_device", k->small_d2c_ns, disk, 0, NULL);
		ms(a, sizeof(a), p99);
		ms(b, sizeof(b), p50);
		title(f, "%s: a slow %sdevice: D2C p99 %s, p50 %s", disk,
			 rot ? "rotational " : "", a, b);
		ms(c, sizeof(c), mx);
		ev(f, "%llu requests of %u KiB or less: D2C (in the device) p50 %s, p99 %s, max %s",
		   (unsigned long long)k->small, DX_SMALL_BYTES >> 10, b, a, c);
		ev(f, "D2C is %.1f%% of its requests' time from submission to completion (Q2C)", share);
		if (k->nsec >= 2) {
			uint32_t *s = malloc(k->nsec * sizeof(*s));

			if (s) {
				memcpy(s, k->sec_p99_us, k->nsec * sizeof(*s));
				sort__any(s, k->nsec, sizeof(*s), cmp_u32);
				ms(a, sizeof(a), s[0] * 1000ull);
				ms(c, sizeof(c), s[k->nsec - 1] * 1000ull);
				ms(e, sizeof(e), s[k->nsec / 2] * 1000ull);
				ev(f, "over its %u seconds, each second's D2C p99 went from %s to %s (median %s)",
				   k->nsec, a, c, e);
				free(s);
			}
		}
		ev(f, "a %s device is slow from a D2C p99 of %llu ms", rot ? "rotational" : "solid-state",
		   (unsigned long long)(bound / 1000000));
		next(f, "iodig lat -d %s --phases", disk);
		next(f, "iodig slow -d %s", disk);
		f->confidence = share >= 50 ? "high" : "medium";
		snprintf(f->why, sizeof(f->why), share >= 50 ? "the device's own time (D2C) is most of the requests' time"
			 : "the requests also waited before the device: see the other findings");
	}
}

static void rule_layers(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	for (unsigned i = 0; i < d->nlayer && *n < max; i++) {
		const struct dx_layer *l = &d->layer[i];
		const char *disk = disks__name(l->dev);
		uint64_t p99 = l->own.count ? hist__percentile(&l->own, 0.99) : 0;
		struct dx_finding *f;
		char a[32], b[32];

		if (!l->linked || p99 < DX_SLOW_LAYER_NS || l->own_ns <= 0)
			continue;
		f = finding(out, n, "slow_layer", (uint64_t)l->own_ns, disk, 0, NULL);
		ms(a, sizeof(a), p99);
		title(f, "%s: the layer itself is slow: its own time p99 %s a bio, above %s",
			 disk, a, disks__name(l->lower_dev));
		ms(b, sizeof(b), (uint64_t)l->own_ns / l->linked);
		ev(f, "%llu bios linked to what they became below: each spent %s on average in %s itself (its Q2C less its longest lower's)",
		   (unsigned long long)l->linked, b, disk);
		ev(f, "that is %.1f%% of those bios' time", pct((uint64_t)l->own_ns, l->q2c_ns));
		next(f, "iodig snoop -d %s", disk);
		next(f, "iodig layers 1");
		f->confidence = pct((uint64_t)l->own_ns, l->q2c_ns) >= 50 ? "high" : "medium";
		snprintf(f->why, sizeof(f->why), "measured between each bio and the requests it became below");
	}
}

/* The device time of PAGES pages, estimated at the run's reads' own D2C a
 * byte (the caller checked there were reads), and the evidence line that
 * says so. */
static uint64_t estimate(struct dx_finding *f, const struct diagnose *d, uint64_t pages)
{
	uint64_t cost = (uint64_t)((double)pages * sysconf(_SC_PAGESIZE) * d->read_d2c_ns / d->read_bytes);
	char a[32];

	ev(f, "their device time, %s, is estimated at the run's reads' own: %.1f us a MiB (%llu MiB read)",
	   fmt_ns(a, sizeof(a), cost), d->read_d2c_ns / 1e3 / (d->read_bytes / 1048576.0),
	   (unsigned long long)(d->read_bytes >> 20));
	return cost;
}

/* Pages read ahead and never used: evicted unused, or still cached unused
 * at the end.  Their device time is estimated at the run's reads' own:
 * their D2C over their bytes. */
static void rule_readahead(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	for (unsigned i = 0; i < d->nra && *n < max; i++) {
		const struct dx_readahead *x = &d->ra[i];
		uint64_t unused = x->pages > x->used ? x->pages - x->used : 0;
		struct dx_finding *f;

		if (x->pages < DX_RA_MIN_PAGES || unused * 100 < x->pages * DX_RA_WASTE_PCT || !d->read_bytes)
			continue;
		/* judged by pages (on a fast device their time is small, the
		 * bandwidth is not), ranked by their estimated time */
		f = finding(out, n, "readahead_waste", 0, NULL, x->pid, x->comm);
		title(f, "%s[%u]: %llu of %llu pages read ahead never used (%.0f%%)", x->comm,
			 x->pid, (unsigned long long)unused, (unsigned long long)x->pages, pct(unused, x->pages));
		ev(f, "readahead added %llu pages beyond what %llu calls asked for: %llu used, %llu evicted unused, "
		   "%llu still cached unused at the end", (unsigned long long)x->pages, (unsigned long long)x->calls,
		   (unsigned long long)x->used, (unsigned long long)x->wasted,
		   (unsigned long long)(unused - (x->wasted < unused ? x->wasted : unused)));
		f->cost_ns = estimate(f, d, unused);
		if (x->random)
			ev(f, "%llu of its calls were on files it opened or advised for random access", (unsigned long long)x->random);
		next(f, "iodig readahead --by file 1 (which files)");
		next(f, "posix_fadvise(POSIX_FADV_RANDOM) on files read at random, or a smaller read_ahead_kb");
		f->confidence = "medium";
		snprintf(f->why, sizeof(f->why), "the pages are counted by the kernel's own events, their time is an estimate");
	}
}

/* File pages read again soon after their eviction: the kernel's workingset
 * refaults, machine-wide; their device time estimated as readahead's is. */
static void rule_thrash(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	long page = sysconf(_SC_PAGESIZE);
	struct dx_finding *f;

	if (!d->refaults_on || d->refaults < DX_THRASH_PAGES || !d->read_bytes || *n >= max)
		return;
	/* judged by pages, ranked by their estimated time (readahead's) */
	f = finding(out, n, "cache_thrash", 0, NULL, 0, NULL);
	title(f, "page cache thrash: %llu file pages (%.1f MiB) read again soon after "
		 "their eviction (machine-wide)", (unsigned long long)d->refaults, d->refaults * page / 1048576.0);
	ev(f, "the kernel's workingset_refault_file rose by %llu, workingset_activate_file by %llu (/proc/vmstat): "
	   "the cache is smaller than what is read again", (unsigned long long)d->refaults,
	   (unsigned long long)d->activations);
	f->cost_ns = estimate(f, d, d->refaults);
	next(f, "iodig cache --by file 1 (which files miss)");
	next(f, "the memory of the cgroup or machine against the files' working set (memory.stat)");
	f->confidence = "medium";
	snprintf(f->why, sizeof(f->why), "the refaults are the kernel's count, machine-wide; their time is an estimate");
}

static const char *bdi_name(const char *bdi)
{
	unsigned maj, min;

	return sscanf(bdi, "%u:%u", &maj, &min) == 2 ? disks__name(maj << 20 | min) : bdi;
}

static void rule_throttled(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	long page = sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < d->nthrottled && *n < max; i++) {
		const struct dx_throttled *t = &d->throttled[i];
		const char *disk = bdi_name(t->k.bdi);
		uint64_t ns = t->v.paused_ms * 1000000ull;
		struct dx_finding *f;
		char a[32];

		if (ns < DX_MIN_COST_NS)
			continue;
		f = finding(out, n, "dirty_throttled", ns, disk, t->k.pid, t->k.comm);
		fmt_ns(a, sizeof(a), ns);
		title(f, "%s[%u] throttled for dirtying pages of %s: %s asleep in %llu pauses",
			 t->k.comm, t->k.pid, disk, a, (unsigned long long)t->v.pauses);
		ev(f, "balance_dirty_pages() judged it %llu times and put it to sleep %llu times, %llu ms in all",
		   (unsigned long long)t->v.calls, (unsigned long long)t->v.pauses, (unsigned long long)t->v.paused_ms);
		ev(f, "at its last call: %.1f MiB dirty of a %.1f MiB limit; %s's own %.1f MiB against its share %.1f MiB",
		   t->v.dirty * page / 1048576.0, t->v.limit * page / 1048576.0, disk,
		   t->v.wb_dirty * page / 1048576.0, t->v.wb_setpoint * page / 1048576.0);
		next(f, "iodig throttle -p %u 1", t->k.pid);
		next(f, "iodig why -p %u", t->k.pid);
		f->confidence = "high";
		snprintf(f->why, sizeof(f->why), "the pauses are the kernel's own (writeback:balance_dirty_pages)");
	}
}

/* Over every system call's slow calls: what they spent in part p, the
 * calls with any, the syscalls' names ("fdatasync 12, write 3"). */
static uint64_t part_total(const struct diagnose *d, int p, uint64_t *calls, char *names, size_t n)
{
	uint64_t ns = 0;
	size_t off = 0;

	*calls = 0;
	names[0] = '\0';
	for (unsigned i = 0; i < d->ncalls; i++) {
		const struct dx_calls *c = &d->calls[i];

		if (!c->part_ns[p])
			continue;
		ns += c->part_ns[p];
		*calls += c->calls;
		if (off < n)
			off += snprintf(names + off, n - off, "%s%s %llu", off ? ", " : "", c->name,
					(unsigned long long)c->calls);
	}
	return ns;
}

/* The place where most of part p's blocked time was spent, with its waker. */
static const typeof(((struct dx_calls *)0)->wait[0]) *top_wait(const struct diagnose *d, int p, const char *prefix)
{
	const typeof(((struct dx_calls *)0)->wait[0]) *best = NULL;

	for (unsigned i = 0; i < d->ncalls; i++)
		for (unsigned k = 0; k < d->calls[i].nwait; k++) {
			const typeof(d->calls[i].wait[0]) *w = &d->calls[i].wait[k];

			if ((p >= 0 && (int)w->part != p) || (prefix && strncmp(w->place, prefix, strlen(prefix))))
				continue;
			if (!best || w->ns > best->ns)
				best = w;
		}
	return best;
}

static void waker_str(char *b, size_t n, const typeof(((struct dx_calls *)0)->wait[0]) *w)
{
	if (w->irq)
		snprintf(b, n, "an interrupt");
	else if (w->waker[0])
		snprintf(b, n, "%s", w->waker);
	else
		snprintf(b, n, "no waker seen (a timeout)");
}


/* What a submitter (by name) wrote over the run, and whose data most of it was */
struct data_of {
	uint64_t requests, bytes, own;
	const struct dx_owner *top;
};

static struct data_of data_of(const struct diagnose *d, const char *by)
{
	struct data_of o = {};

	for (unsigned i = 0; i < d->nowner; i++) {
		const struct dx_owner *x = &d->owner[i];

		if (strncmp(x->by, by, sizeof(x->by)))
			continue;
		o.requests += x->requests;
		o.bytes += x->bytes;
		if (!x->pid)
			o.own += x->bytes;
		else if (!o.top || x->bytes > o.top->bytes)
			o.top = x;
	}
	return o;
}

static void owner_str(char *b, size_t n, const struct dx_owner *o)
{
	snprintf(b, n, "%s[%u]", o->comm[0] ? o->comm : "pid", o->pid);
}

static void rule_calls(struct diagnose *d, struct dx_finding *out, unsigned *n, unsigned max)
{
	char names[160], a[32], b[32], wk[40];
	uint64_t calls, wall = 0, ns;
	const typeof(d->calls[0].wait[0]) *w;
	struct dx_finding *f;

	for (unsigned i = 0; i < d->ncalls; i++)
		wall += d->calls[i].wall_ns;
	fmt_ns(b, sizeof(b), d->call_min_ns);
	/* sync calls waiting on the journal: their waits in jbd2's functions */
	ns = 0;
	calls = 0;
	for (unsigned i = 0; i < d->ncalls; i++)
		for (unsigned k = 0; k < d->calls[i].nwait; k++)
			if (!strncmp(d->calls[i].wait[k].place, "jbd2_", 5)) {
				ns += d->calls[i].wait[k].ns;
				calls += d->calls[i].wait[k].calls;
			}
	if (ns >= DX_MIN_COST_NS && *n < max && (w = top_wait(d, -1, "jbd2_"))) {
		struct data_of o = data_of(d, w->waker);
		char who[40] = "";

		if (o.top)
			owner_str(who, sizeof(who), o.top);
		/* the commit's own writes mostly another's data: that process
		 * is what the journal waited for */
		if (o.top && o.top->bytes * 2 >= o.bytes)
			f = finding(out, n, "journal_wait", ns, NULL, o.top->pid, o.top->comm[0] ? o.top->comm : who);
		else
			f = finding(out, n, "journal_wait", ns, NULL, 0, w->waker);
		fmt_ns(a, sizeof(a), ns);
		waker_str(wk, sizeof(wk), w);
		if (f->pid)
			title(f, "calls waited %s for the journal (%s), woken by %s, "
				 "which was writing the data of %s", a, w->place, wk, who);
		else
			title(f, "calls waited %s for the journal (%s), woken by %s",
				 a, w->place, wk);
		ev(f, "%llu wait%s of calls slower than %s were in jbd2: %s in all, %.1f%% of those calls' time",
		   (unsigned long long)calls, PL(calls), b, a, pct(ns, wall));
		ev(f, "the most in %s, woken by %s: %llu wait%s, %s", w->place, wk, (unsigned long long)w->calls,
		   PL(w->calls), fmt_ns(a, sizeof(a), w->ns));
		if (o.requests && o.top)
			ev(f, "%s wrote %llu request%s, %.1f MiB: %.0f%% of the bytes data %s dirtied (%llu request%s), "
			   "%.0f%% its own or no one's", wk, (unsigned long long)o.requests, PL(o.requests),
			   o.bytes / 1048576.0, pct(o.top->bytes, o.bytes), who, (unsigned long long)o.top->requests,
			   PL(o.top->requests), pct(o.own, o.bytes));
		else if (o.requests)
			ev(f, "%s wrote %llu request%s, %.1f MiB, none of another process's data", wk,
			   (unsigned long long)o.requests, PL(o.requests), o.bytes / 1048576.0);
		else if (!d->owners_on)
			ev(f, "whose data the commit wrote is not known (it needs writeback_dirty_folio, 5.18, "
			   "and a live run or a recording made by doctor)");
		if (d->owners_dropped)
			ev(f, "%llu writes of more submitters than doctor's table holds (%u) were not added up by owner",
			   (unsigned long long)d->owners_dropped, DX_OWNERS);
		next(f, "iodig why 5 (each slow call, its waits and their wakers)");
		next(f, "iodig slow 5 (the journal's own requests)");
		f->confidence = "high";
		snprintf(f->why, sizeof(f->why), "each wait's place is the kernel function it slept in, its waker who ended it");
	}
	/* The CPU withheld from the calls, a quarter of their time or more:
	 * runnable, waiting for one (starved), or on a vCPU the hypervisor
	 * took away (stolen) */
	for (int k = 0; k < 2; k++) {
		static const struct {
			int part;
			const char *kind, *title, *evidence, *where, *why;
		} cpu[2] = {
			{ WP_RUNQ, "cpu_starved", "calls waited %s runnable for a CPU: %.0f%% of their time",
			  "runnable, not running", "the CPUs' other work: top, perf sched",
			  "from the scheduler's own switch and wakeup events" },
			{ WP_STEAL, "cpu_stolen", "the hypervisor took %s of the calls' CPU: %.0f%% of their time",
			  "stolen (the vCPU's steal clock while they ran)",
			  "the host's load, or a larger CPU share for this guest",
			  "from kvm's per-CPU steal clock, read at each switch and call end" },
		};

		ns = part_total(d, cpu[k].part, &calls, names, sizeof(names));
		if (ns < DX_RUNQ_MIN_NS || pct(ns, wall) < 25 || *n >= max)
			continue;
		f = finding(out, n, cpu[k].kind, ns, NULL, 0, NULL);
		fmt_ns(a, sizeof(a), ns);
		title(f, cpu[k].title, a, pct(ns, wall));
		ev(f, "slow calls (from %s): %s", b, names);
		ev(f, "%s: %s of their %s", cpu[k].evidence, a, fmt_ns(wk, sizeof(wk), wall));
		next(f, "iodig why 5");
		next(f, "%s", cpu[k].where);
		/* steal is read from the host's own count: as sure at any share */
		f->confidence = cpu[k].part == WP_STEAL || pct(ns, wall) >= 50 ? "high" : "medium";
		snprintf(f->why, sizeof(f->why), "%s", cpu[k].why);
	}
	/* direct reclaim inside the calls */
	ns = part_total(d, WP_RECLAIM, &calls, names, sizeof(names));
	if (ns >= DX_MIN_COST_NS && *n < max) {
		f = finding(out, n, "reclaim", ns, NULL, 0, NULL);
		fmt_ns(a, sizeof(a), ns);
		title(f, "calls spent %s in direct reclaim: memory ran short under them", a);
		ev(f, "slow calls (from %s): %s", b, names);
		ev(f, "in direct reclaim (mm_vmscan_*_reclaim_begin to _end): %s, %.1f%% of their time", a, pct(ns, wall));
		next(f, "iodig why 5");
		next(f, "iodig cache 1 (what the page cache did meanwhile)");
		f->confidence = "high";
		snprintf(f->why, sizeof(f->why), "from the kernel's reclaim tracepoints around each call's own time");
	}
	/* lock contention, with who released the lock (the waker) */
	ns = part_total(d, WP_LOCK, &calls, names, sizeof(names));
	if (ns >= DX_MIN_COST_NS && *n < max) {
		w = top_wait(d, WP_LOCK, NULL);
		f = finding(out, n, "lock_contention", ns, NULL, 0, w ? w->waker : NULL);
		fmt_ns(a, sizeof(a), ns);
		if (w)
			waker_str(wk, sizeof(wk), w);
		title(f, "calls waited %s on kernel locks%s%s%s%s", a, w ? " in " : "",
			 w ? w->place : "", w ? ", released by " : "", w ? wk : "");
		ev(f, "slow calls (from %s): %s", b, names);
		ev(f, "between lock:contention_begin and _end: %s, %.1f%% of their time", a, pct(ns, wall));
		next(f, "iodig why 5");
		f->confidence = "medium";
		snprintf(f->why, sizeof(f->why), "the holder is named by who woke the waiter");
	}
}

static bool rule_lost(struct diagnose *d, struct dx_finding *f)
{
	const struct req_summary *s = &d->sum;
	uint64_t skipped = s->skipped > 0 ? (uint64_t)s->skipped : 0;
	uint64_t lost = s->s.lost + skipped + s->s.untracked + s->missed + d->stack.lost + d->full;
	/* the base in the scope of what is lost: skipped is of every
	 * completion on the disks (the kernel's count less the programs'),
	 * where completed is what the pid and cgroup filters let by, so the
	 * kernel's own count (the programs' hits and the skipped) is one */
	uint64_t kernel = s->s.ran + skipped;
	uint64_t base = s->s.completed > d->requests ? s->s.completed : d->requests;

	if (kernel > base)
		base = kernel;

	if (!d->have_summary || lost < DX_LOST_MIN || lost * DX_LOST_PER < base)
		return false;
	memset(f, 0, sizeof(*f));
	f->kind = "lost_events";
	f->cost_ns = UINT64_MAX;
	title(f, "%llu events were lost of %llu requests: the figures here are short by them",
		 (unsigned long long)lost, (unsigned long long)base);
	ev(f, "%llu requests completed on the disks the engine followed (every disk with the calls traced; "
	   "the kernel's count), %llu of them let by the filters, %llu judged here", (unsigned long long)kernel,
	   (unsigned long long)s->s.completed, (unsigned long long)d->requests);
	if (s->s.lost)
		ev(f, "%llu request records found the ring buffer full", (unsigned long long)s->s.lost);
	if (skipped)
		ev(f, "%llu completions ran no program (skipped, the kernel's count less iodig's)",
		   (unsigned long long)skipped);
	if (s->s.untracked)
		ev(f, "%llu requests lost their submitter (untracked)", (unsigned long long)s->s.untracked);
	if (s->missed)
		ev(f, "%llu program runs missed (recursion)", (unsigned long long)s->missed);
	if (d->stack.lost)
		ev(f, "%llu bio records found the ring buffer full", (unsigned long long)d->stack.lost);
	if (d->full)
		ev(f, "%llu records found doctor's own tables full", (unsigned long long)d->full);
	next(f, "iodig doctor --buffer-size 67108864 (a larger ring buffer)");
	next(f, "a narrower scope: -d DISK, -p PID or --comm NAME");
	f->confidence = "high";
	snprintf(f->why, sizeof(f->why), "counted by the engine as they happened");
	return true;
}

static void nothing(struct diagnose *d, struct dx_finding *f)
{
	uint64_t writes = 0, worst = 0;
	const char *wdisk = NULL;
	char a[32];

	memset(f, 0, sizeof(*f));
	f->kind = "nothing_wrong";
	f->cost_ns = 0;
	title(f, "nothing wrong found in %llu request%s on %u disk%s",
		 (unsigned long long)d->requests, PL(d->requests), d->ndisk, PL(d->ndisk));
	for (unsigned i = 0; i < d->nwriter; i++)
		writes += d->writer[i].writes;
	ev(f, "no request stalled 1 ms in all behind a queue-attribute write (%llu writes seen)",
	   (unsigned long long)writes);
	ev(f, "no process starved others of tags for 1 ms in all");
	for (unsigned i = 0; i < d->ndisk; i++) {
		uint64_t p = d->disk[i].small ? hist__percentile(&d->disk[i].d2c, 0.99) : 0;

		if (p >= worst) {
			worst = p;
			wdisk = disks__name(d->disk[i].dev);
		}
	}
	if (wdisk) {
		ms(a, sizeof(a), worst);
		ev(f, "no device slow: the highest D2C p99 of requests of %u KiB or less was %s (%s), below 5 ms "
		   "(50 ms if rotational)", DX_SMALL_BYTES >> 10, a, wdisk);
	}
	if (d->throttle_on)
		ev(f, "no writer slept 1 ms in all in dirty throttling");
	if (d->ra_on)
		ev(f, "no process left half of 1 MiB or more it read ahead unused");
	if (d->refaults_on)
		ev(f, "%llu file pages read again soon after eviction (machine-wide), under 1 MiB",
		   (unsigned long long)d->refaults);
	if (d->calls_on) {
		uint64_t calls = 0;

		for (unsigned i = 0; i < d->ncalls; i++)
			calls += d->calls[i].calls;
		ms(a, sizeof(a), d->call_min_ns);
		ev(f, "%llu file-system calls slower than %s: none waited 1 ms in all on the journal, in reclaim, "
		   "on locks, or a quarter of their time (10 ms in all) for a CPU", (unsigned long long)calls, a);
	}
	if (d->nlayer)
		ev(f, "no stacked layer's own time had a p99 of 5 ms (%u bio-based disks)", d->nlayer);
	if (d->have_summary)
		ev(f, "events lost: %llu (lost, skipped, untracked, missed), fewer than 1 in %d or than 10",
		   (unsigned long long)(d->sum.s.lost + (d->sum.skipped > 0 ? (uint64_t)d->sum.skipped : 0) +
					d->sum.s.untracked + d->sum.missed + d->stack.lost + d->full), DX_LOST_PER);
	else
		ev(f, "events lost: not known (no summary: a recording cut short)");
	next(f, "iodig lat -D 1 (each disk's latency)");
	f->confidence = d->requests ? "medium" : "low";
	snprintf(f->why, sizeof(f->why), d->requests ? "only what the request engine sees was checked"
		 : "no request was seen: nothing to judge");
}

static int by_cost(const void *a, const void *b)
{
	const struct dx_finding *x = a, *y = b;

	return x->cost_ns > y->cost_ns ? -1 : x->cost_ns < y->cost_ns;
}

unsigned diagnose__findings(struct diagnose *d, struct dx_finding *f, unsigned max)
{
	unsigned n = 0;
	uint64_t total = d->q2c_ns;

	if (max < 2)
		return 0;
	if (rule_lost(d, &f[n]))
		n++;
	rule_writers(d, f, &n, max);
	rule_holders(d, f, &n, max);
	rule_devices(d, f, &n, max);
	rule_layers(d, f, &n, max);
	rule_throttled(d, f, &n, max);
	rule_readahead(d, f, &n, max);
	rule_thrash(d, f, &n, max);
	rule_calls(d, f, &n, max);
	/* the time seen: requests' Q2C, layers' own time, writers' throttled
	 * sleep, slow calls' wall time (which holds their own I/O too: a share
	 * is of all of it, not of one kind) */
	for (unsigned i = 0; i < d->ncalls; i++)
		total += d->calls[i].wall_ns;
	for (unsigned i = 0; i < d->nlayer; i++)
		total += d->layer[i].own_ns > 0 ? (uint64_t)d->layer[i].own_ns : 0;
	for (unsigned i = 0; i < d->nthrottled; i++)
		total += d->throttled[i].v.paused_ms * 1000000ull;
	sort__any(f, n, sizeof(*f), by_cost);	/* lost events' cost is all ones: first */
	if (!n)
		nothing(d, &f[n++]);
	for (unsigned i = 0; i < n; i++) {
		f[i].rank = i + 1;
		f[i].share = f[i].cost_ns == UINT64_MAX || !f[i].cost_ns || !total ? -1 : pct(f[i].cost_ns, total);
	}
	return n;
}

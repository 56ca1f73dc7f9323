// SPDX-License-Identifier: GPL-2.0
/*
 * iodig doctor's data (diagnose.h): each record added up where it belongs,
 * by disk, queue-attribute writer, tag holder and stacked layer, and the
 * engines' totals kept (throttling, readahead, refaults, slow calls), for
 * the rules (diagnose_rules.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diagnose.h"
#include "disks.h"
#include "hist_user.h"

int diagnose__init(struct diagnose *d)
{
	memset(d, 0, sizeof(*d));
	d->disk = calloc(DX_DISKS, sizeof(*d->disk));
	d->layer = calloc(DX_DISKS, sizeof(*d->layer));
	return d->disk && d->layer ? 0 : -1;
}

void diagnose__free(struct diagnose *d)
{
	free(d->disk);
	free(d->layer);
	d->disk = NULL;
	d->layer = NULL;
}

static void on_req(void *ctx, const struct req_seen *s)
{
	diagnose__owner(ctx, s);
	diagnose__request(ctx, s);
}
static void on_upper(void *ctx, const struct life_upper *u) { diagnose__upper(ctx, u); }
static void on_write(void *ctx, const struct life_sysfs *w) { diagnose__write(ctx, w); }

void diagnose__sink(struct diagnose *d, struct printer_sink *s)
{
	*s = (struct printer_sink){ .req = on_req, .upper = on_upper, .write = on_write, .ctx = d };
}

struct dx_disk *diagnose__disk(const struct diagnose *d, uint32_t dev)
{
	for (unsigned i = 0; i < d->ndisk; i++)
		if (d->disk[i].dev == dev)
			return &d->disk[i];
	return NULL;
}

static struct dx_disk *disk_of(struct diagnose *d, uint32_t dev)
{
	struct dx_disk *k = diagnose__disk(d, dev);

	if (k)
		return k;
	if (d->ndisk == DX_DISKS) {
		d->full++;
		return NULL;
	}
	d->disk[d->ndisk].dev = dev;
	return &d->disk[d->ndisk++];
}

/* The second sec_d2c held is over: its p99 joins the disk's history. */
void diagnose__second_end(struct dx_disk *k)
{
	if (!k->sec_d2c.count)
		return;
	if (k->nsec < DX_SECONDS)
		k->sec_p99_us[k->nsec++] = (uint32_t)(hist__percentile(&k->sec_d2c, 0.99) / 1000);
	memset(&k->sec_d2c, 0, sizeof(k->sec_d2c));
}

static struct dx_writer *writer_of(struct diagnose *d, const struct life_sysfs *w)
{
	for (unsigned i = 0; i < d->nwriter; i++) {
		struct dx_writer *x = &d->writer[i];

		if (x->pid == w->pid && !strncmp(x->disk, w->disk, sizeof(x->disk)) &&
		    !strncmp(x->attr, w->attr, sizeof(x->attr)))
			return x;
	}
	if (d->nwriter == DX_WRITERS) {
		d->full++;
		return NULL;
	}
	struct dx_writer *x = &d->writer[d->nwriter++];

	x->pid = w->pid;
	memcpy(x->comm, w->comm, sizeof(x->comm));
	x->comm[LIFE_COMM_LEN - 1] = '\0';
	memcpy(x->disk, w->disk, sizeof(x->disk));
	x->disk[sizeof(x->disk) - 1] = '\0';
	memcpy(x->attr, w->attr, sizeof(x->attr));
	x->attr[sizeof(x->attr) - 1] = '\0';
	return x;
}

static struct dx_holder *holder_of(struct diagnose *d, uint32_t dev, uint32_t pid, const char *comm)
{
	for (unsigned i = 0; i < d->nholder; i++)
		if (d->holder[i].dev == dev && d->holder[i].pid == pid)
			return &d->holder[i];
	if (d->nholder == DX_HOLDERS) {
		d->full++;
		return NULL;
	}
	struct dx_holder *h = &d->holder[d->nholder++];

	h->dev = dev;
	h->pid = pid;
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	return h;
}

void diagnose__owner(struct diagnose *d, const struct req_seen *s)
{
	const struct life_req *r = s->r;
	struct dx_owner *o = NULL;

	if (!s->write)
		return;
	for (unsigned i = 0; i < d->nowner; i++) {
		struct dx_owner *x = &d->owner[i];

		/* a request of the data's owner names it */
		if (x->pid && x->pid == r->pid && !x->comm[0])
			snprintf(x->comm, sizeof(x->comm), "%s", r->comm);
		if (x->pid == r->wb_pid && !strncmp(x->by, r->comm, sizeof(x->by)))
			o = x;
	}
	if (!o) {
		if (d->nowner == DX_OWNERS) {	/* said where used, not a loss of requests */
			d->owners_dropped++;
			return;
		}
		o = &d->owner[d->nowner++];
		snprintf(o->by, sizeof(o->by), "%s", r->comm);
		o->pid = r->wb_pid;
		if (o->pid && d->comm_of && !d->comm_of(o->pid, o->comm, sizeof(o->comm)))
			o->comm[0] = '\0';
	}
	o->requests++;
	o->bytes += r->bytes;
}

void diagnose__request(struct diagnose *d, const struct req_seen *s)
{
	const struct life_req *r = s->r;
	const __u64 *ph = s->ph;
	struct dx_disk *k = disk_of(d, r->dev);
	uint64_t t0 = r->q ? r->q : r->c;

	d->requests++;
	if (t0 && (!d->first_ns || t0 < d->first_ns))
		d->first_ns = t0;
	if (r->c > d->last_ns)
		d->last_ns = r->c;
	if (!k)
		return;
	k->requests++;
	if (s->complete) {
		uint64_t sec = r->c / 1000000000ull;

		k->complete++;
		d->complete++;
		for (int p = 0; p < PH_NR; p++)
			k->ph[p] += ph[p];
		d->q2c_ns += ph[PH_Q2C];
		hist__add(&k->q2c, ph[PH_Q2C]);
		if (s->read) {
			d->read_bytes += r->bytes;
			d->read_d2c_ns += ph[PH_D2C];
		}
		/* the device is judged on requests of DX_SMALL_BYTES or less:
		 * a large transfer takes the time its size takes */
		if (r->bytes <= DX_SMALL_BYTES) {
			k->small++;
			k->small_d2c_ns += ph[PH_D2C];
			k->small_q2c_ns += ph[PH_Q2C];
			hist__add(&k->d2c, ph[PH_D2C]);
			if (sec != k->sec) {
				diagnose__second_end(k);
				k->sec = sec;
			}
			hist__add(&k->sec_d2c, ph[PH_D2C]);
		}
	}
	if (s->w && ph[PH_Q2G]) {
		struct dx_writer *x = writer_of(d, s->w);

		if (x) {
			x->stalled++;
			x->stalled_ns += ph[PH_Q2G];
			if (ph[PH_Q2G] > x->stalled_max_ns)
				x->stalled_max_ns = ph[PH_Q2G];
		}
	} else if (s->tags && s->tags->held + s->tags->given && ph[PH_Q2G] >= LIFE_TAG_MIN_NS) {
		/* the culprit: who held the tags when it began to wait and who
		 * was given them while it waited, the most first (tags_sum's
		 * order); a wait that began as holders' entries left the ring
		 * names only the latter */
		const struct tag_sum *t = s->tags;
		struct dx_holder *h;

		if (!(h = holder_of(d, r->dev, t->top[0].pid, t->top[0].comm)))
			return;
		h->waits++;
		h->wait_ns += ph[PH_Q2G];
		if (ph[PH_Q2G] > h->wait_max_ns)
			h->wait_max_ns = ph[PH_Q2G];
		h->held += t->top[0].held + t->top[0].given;
		h->held_all += t->held + t->given;
		h->waiters_self += r->pid == h->pid;
	} else if (!s->w && ph[PH_Q2G] >= LIFE_TAG_MIN_NS) {
		k->unnamed++;
		k->unnamed_ns += ph[PH_Q2G];
	}
}

void diagnose__write(struct diagnose *d, const struct life_sysfs *w)
{
	struct dx_writer *x = writer_of(d, w);
	uint64_t ns = w->end > w->start ? w->end - w->start : 0;

	if (!x)
		return;
	x->writes++;
	x->write_ns += ns;
	if (ns > x->write_max_ns)
		x->write_max_ns = ns;
	/* the value as written, up to its first newline */
	snprintf(x->value, sizeof(x->value), "%.*s", (int)strcspn(w->value, "\n"), w->value);
}

void diagnose__upper(struct diagnose *d, const struct life_upper *u)
{
	struct dx_layer *l = NULL;
	uint64_t q2c = u->c > u->q ? u->c - u->q : 0;
	int64_t own;

	for (unsigned i = 0; i < d->nlayer; i++)
		if (d->layer[i].dev == u->dev)
			l = &d->layer[i];
	if (!l) {
		if (d->nlayer == DX_DISKS) {
			d->full++;
			return;
		}
		l = &d->layer[d->nlayer++];
		l->dev = u->dev;
	}
	l->bios++;
	if (!u->nlower)		/* nothing below it was seen: no layer time to tell */
		return;
	l->linked++;
	own = (int64_t)q2c - (int64_t)life_upper_below(u);
	l->own_ns += own;
	l->q2c_ns += q2c;
	if (own > 0)
		hist__add(&l->own, (uint64_t)own);
	l->lower_dev = u->lower[0].dev;
}

void diagnose__summary(struct diagnose *d, const struct req_summary *sum)
{
	d->sum = *sum;
	d->have_summary = true;
	d->owners_on = sum->owners;
}

void diagnose__stack(struct diagnose *d, const struct life_stack_stats *s)
{
	d->stack = *s;
	d->have_stack = true;
}

void diagnose__throttle(struct diagnose *d, const struct throttle_key *k, const struct throttle_val *v)
{
	if (d->nthrottled == DX_WRITERS) {
		d->full++;
		return;
	}
	d->throttled[d->nthrottled].k = *k;
	d->throttled[d->nthrottled].k.comm[THROTTLE_COMM_LEN - 1] = '\0';
	d->throttled[d->nthrottled].k.bdi[THROTTLE_BDI_LEN - 1] = '\0';
	d->throttled[d->nthrottled++].v = *v;
}

void diagnose__readahead(struct diagnose *d, uint32_t pid, const char *comm, const struct ra_val *v)
{
	struct dx_readahead *x;

	if (d->nra == DX_WRITERS) {
		d->full++;
		return;
	}
	x = &d->ra[d->nra++];
	x->pid = pid;
	snprintf(x->comm, sizeof(x->comm), "%.*s", LIFE_COMM_LEN - 1, comm);
	x->calls = v->calls[RA_SYNC] + v->calls[RA_ASYNC];
	x->random = v->random;
	x->pages = v->pages[RA_SYNC] + v->pages[RA_ASYNC];
	x->used = v->used;
	x->wasted = v->wasted;
}

void diagnose__refaults(struct diagnose *d, uint64_t refaults, uint64_t activations)
{
	d->refaults_on = true;
	d->refaults = refaults;
	d->activations = activations;
}

void diagnose__calls(struct diagnose *d, const struct dx_calls *c)
{
	if (d->ncalls == DX_SYSCALLS) {
		d->full++;
		return;
	}
	d->calls[d->ncalls++] = *c;
}

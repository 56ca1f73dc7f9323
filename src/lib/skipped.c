// SPDX-License-Identifier: GPL-2.0
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "disks.h"
#include "diskstats.h"
#include "run.h"
#include "seen.h"
#include "skipped.h"

/* One read of one of the two counts: a count for each disk. */
struct reading {
	uint32_t dev[SEEN_DISKS];
	uint64_t n[SEEN_DISKS];
	int len;
	uint64_t unplaced;	/* the programs': seen on a disk with no slot */
};

static uint64_t *reading_at(struct reading *r, uint32_t dev, bool add)
{
	for (int i = 0; i < r->len; i++)
		if (r->dev[i] == dev)
			return &r->n[i];
	if (!add || r->len == SEEN_DISKS)
		return NULL;
	r->dev[r->len] = dev;
	r->n[r->len] = 0;
	return &r->n[r->len++];
}

static struct skipped_disk *find(struct skipped *s, uint32_t dev)
{
	for (int i = 0; i < s->n; i++)
		if (s->d[i].dev == dev)
			return &s->d[i];
	return NULL;
}

/* The kernel's count of each disk followed: -d's, or any; with a request
 * queue either way (a bio-based disk's line counts its bios, and no
 * block_rq_complete fires for it; sysfs is asked only about a disk not
 * already followed). */
static int read_diskstats(struct skipped *s, struct reading *r)
{
	struct dstat *d = malloc(SEEN_DISKS * sizeof(*d));
	int n = d ? diskstats__read(d, SEEN_DISKS) : -ENOMEM;

	r->len = 0;
	for (int i = 0; i < n; i++) {
		uint32_t dev = KDEV(d[i].major, d[i].minor);
		uint64_t *c;

		if ((s->disk && dev != s->disk) || (!find(s, dev) && !disks__request_based(dev)))
			continue;
		if ((c = reading_at(r, dev, true)))
			*c = dstat_done(&d[i]);
	}
	free(d);
	return n < 0 ? n : 0;
}

/* Slot k of every CPU into r, by disk.  *last is false when dev may also be
 * in a later slot: some CPU has another disk in this one, so that CPU
 * placed dev further on, if anywhere (a slot, once taken, is never freed;
 * an empty one means dev was never placed past it). */
static int read_slot(struct skipped *s, struct reading *r, uint32_t k, uint32_t dev, bool *last)
{
	struct seen_slot v[s->ncpu];

	if (bpf_map_lookup_elem(s->fd, &k, v))
		return -errno;
	*last = true;
	for (int c = 0; c < s->ncpu; c++) {
		uint64_t *n;

		if (k == SEEN_DISKS)
			r->unplaced += v[c].n;
		else if (v[c].dev && (n = reading_at(r, v[c].dev, true)))
			*n += v[c].n;
		if (v[c].dev && v[c].dev != dev)
			*last = false;
	}
	return 0;
}

/*
 * The programs' count of the disks in ds, by disk: only the slots each may
 * have taken (seen_key), each slot once, and the slot of disks with none.
 * Read right after diskstats, so the two reads are microseconds apart, not
 * the 200 us that reading all 257 slots took (at 290k completions a second,
 * up to 60 completions in between, which skipped showed as -35 in one
 * second and +35 in the next).
 */
static int read_seen(struct skipped *s, struct reading *r, const struct reading *ds)
{
	uint64_t done[SEEN_DISKS / 64] = { 0 };
	bool last;
	int err;

	r->len = 0;
	r->unplaced = 0;
	for (int i = 0; i < ds->len; i++)
		for (uint32_t p = 0; p < SEEN_PROBES; p++) {
			uint32_t k = seen_key(ds->dev[i], p);

			if (done[k / 64] & (1ULL << (k % 64)))
				continue;	/* another disk's probe read it */
			done[k / 64] |= 1ULL << (k % 64);
			if ((err = read_slot(s, r, k, ds->dev[i], &last)))
				return err;
			if (last)
				break;
		}
	return read_slot(s, r, SEEN_DISKS, 0, &last);
}

static void fold(struct skipped *s, struct skipped_disk *d)
{
	s->frozen += (int64_t)(d->ds - d->ds0) - (int64_t)(d->seen - d->seen0);
	d->ds0 = 0;		/* a disk made again counts from 0 */
	d->seen0 = d->seen;	/* the programs' slot carries on */
}

/*
 * The programs count a completion before the kernel adds it to diskstats
 * (block_rq_complete fires in blk_update_request(), the accounting follows
 * in __blk_mq_end_request()).  At the start the programs' counts are read
 * first, at each update diskstats first: a completion between the two
 * reads can make skipped low for an instant, never high.  The programs'
 * slots to read are those of the disks diskstats lists, so the start reads
 * diskstats once before them to learn the disks.
 */
static int reread(struct skipped *s, bool first)
{
	struct reading *ds = malloc(sizeof(*ds)), *seen = malloc(sizeof(*seen));
	int err = -ENOMEM;

	if (!ds || !seen)
		goto out;
	if ((err = read_diskstats(s, ds)) || (err = read_seen(s, seen, ds)) ||
	    (first && (err = read_diskstats(s, ds))))
		goto out;
	s->gen++;
	s->read_ns = run__mono_ns();
	for (int i = 0; i < ds->len; i++) {
		uint64_t *sp = reading_at(seen, ds->dev[i], false), sn = sp ? *sp : 0;
		struct skipped_disk *d = find(s, ds->dev[i]);

		if (!d) {
			if (s->n == s->cap) {
				int cap = s->cap ? 2 * s->cap : 16;
				struct skipped_disk *nd = realloc(s->d, cap * sizeof(*nd));

				if (!nd) {
					err = -ENOMEM;
					goto out;
				}
				s->d = nd;
				s->cap = cap;
			}
			d = &s->d[s->n++];
			/* a disk there from the start counts from its counts
			 * then; one made since, from 0 */
			*d = (struct skipped_disk){ .dev = ds->dev[i],
						    .ds0 = first ? ds->n[i] : 0, .seen0 = first ? sn : 0 };
		} else if (d->present && ds->n[i] < d->ds) {
			fold(s, d);	/* made again since the last read */
		}
		d->gen = s->gen;
		d->present = true;
		d->ds = ds->n[i];
		d->seen = sn;
	}
	for (int i = 0; i < s->n; i++)
		if (s->d[i].present && s->d[i].gen != s->gen) {
			fold(s, &s->d[i]);	/* gone: its share as of the last read */
			s->d[i].present = false;
		}
	if (first)
		s->unplaced0 = seen->unplaced;
	s->unplaced = seen->unplaced;
	err = 0;
out:
	free(ds);
	free(seen);
	return err;
}

static int64_t sum(const struct skipped *s)
{
	int64_t t = s->frozen - (int64_t)(s->unplaced - s->unplaced0);

	for (int i = 0; i < s->n; i++)
		if (s->d[i].present)
			t += (int64_t)(s->d[i].ds - s->d[i].ds0) - (int64_t)(s->d[i].seen - s->d[i].seen0);
	return t;
}

int skipped__start(struct skipped *s, uint32_t disk, int fd)
{
	int err;

	*s = (struct skipped){ .disk = disk, .fd = fd, .ncpu = libbpf_num_possible_cpus() };
	if (s->ncpu <= 0)
		return s->ncpu ? s->ncpu : -EINVAL;
	if ((err = reread(s, true))) {
		free(s->d);
		s->d = NULL;
		return err;
	}
	s->on = true;
	return 0;
}

int64_t skipped__update(struct skipped *s)
{
	if (s->on && !reread(s, false))
		s->total = sum(s);
	return s->total;
}

void skipped__poll(struct skipped *s)
{
	if (s->on && run__mono_ns() - s->read_ns >= 1000000000ULL)
		skipped__update(s);
}

int64_t skipped__interval(struct skipped *s)
{
	int64_t n = skipped__update(s) - s->taken;

	s->taken += n;
	return n;
}

void skipped__stop(struct skipped *s)
{
	skipped__update(s);
	s->on = false;
	free(s->d);
	s->d = NULL;
	s->n = s->cap = 0;
}

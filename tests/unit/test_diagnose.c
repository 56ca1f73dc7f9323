// SPDX-License-Identifier: GPL-2.0
/*
 * doctor's rules on records whose answer is known: each fault's cost is the
 * sum of the phases the test gave its requests, the findings come out in
 * the order of those sums, the culprit is the one the records name, and
 * what is below a threshold is no finding.
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "diagnose.h"

#define MS 1000000ull

static struct diagnose d;
static struct dx_finding f[DX_FINDINGS];
static uint32_t req_bytes = 4096;

/* A complete request on dev: Q at q, with these phases. */
static void req(uint32_t dev, uint32_t pid, uint64_t q, uint64_t q2g, uint64_t d2c,
		const struct life_sysfs *w, const struct tag_sum *t)
{
	struct life_req r = { .type = REC_REQ, .dev = dev, .pid = pid, .bytes = req_bytes, .q = q, .g = q + q2g,
			      .d = q + q2g + 1000, .c = q + q2g + 1000 + d2c,
			      .seen = SEEN_Q | SEEN_G | SEEN_D };
	__u64 ph[PH_NR] = { [PH_Q2G] = q2g, [PH_G2I] = 1000, [PH_D2C] = d2c, [PH_Q2C] = q2g + 1000 + d2c };
	struct req_seen s = { .r = &r, .ph = ph, .complete = true, .w = w, .tags = t, .read = true };

	diagnose__request(&d, &s);
}

static const struct dx_finding *find(unsigned n, const char *kind)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(f[i].kind, kind))
			return &f[i];
	return NULL;
}

static void quiet(void)
{
	unsigned n;

	diagnose__init(&d);
	for (int i = 0; i < 1000; i++)
		req(7 << 20 | 1, 50, 1000 * MS + i * MS / 10, 2000, 100000, NULL, NULL);
	/* 1 MiB requests of 10 ms: a large transfer is not a slow device */
	req_bytes = 1 << 20;
	for (int i = 0; i < 100; i++)
		req(7 << 20 | 1, 50, 2000 * MS + i * 11 * MS, 2000, 10 * MS, NULL, NULL);
	req_bytes = 4096;
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 1100 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "nothing_wrong"), "a quiet disk: %u findings, first %s", n, f[0].kind);
	CHECK(f[0].share < 0, "nothing wrong has no share: %f", f[0].share);
	/* 9 lost of 1000: below 1 in 100, still nothing wrong */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 1000, .s.lost = 9 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "nothing_wrong"), "9 lost in 1000: %s", f[0].kind);
	diagnose__free(&d);

	/* 48 fast requests and 2 of 8 ms: the p99 is 8 ms, but two requests
	 * are not a slow device (DX_SLOW_MIN); a third makes one */
	diagnose__init(&d);
	for (int i = 0; i < 48; i++)
		req(7 << 20 | 2, 50, 1000 * MS + i * MS, 2000, 100000, NULL, NULL);
	req(7 << 20 | 2, 50, 2000 * MS, 2000, 8 * MS, NULL, NULL);
	req(7 << 20 | 2, 50, 2010 * MS, 2000, 8 * MS, NULL, NULL);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "nothing_wrong"), "2 slow of 50: %s", f[0].kind);
	req(7 << 20 | 2, 50, 2020 * MS, 2000, 8 * MS, NULL, NULL);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "slow_device"), "3 slow of 51: %s", f[0].kind);
	diagnose__free(&d);
}

static void three_faults(void)
{
	struct life_sysfs w = { .type = REC_SYSFS_END, .pid = 100, .tid = 100, .start = 1000 * MS,
				.end = 1030 * MS, .comm = "udevadm", .disk = "loop3", .attr = "scheduler",
				.value = "none\n" };
	/* as the printer adds a REC_TAGS up (tags_sum): the most first */
	struct tag_sum t = { .valid = true, .dev = 7 << 20 | 4, .held = 4,
			     .top = { { .pid = 200, .held = 3, .comm = "fio" }, { .pid = 300, .held = 1, .comm = "reader" } } };
	/* a wait whose holders had left the ring: who was given tags meanwhile */
	struct tag_sum t2 = { .valid = true, .dev = 7 << 20 | 4, .given = 6,
			      .top = { { .pid = 200, .given = 6, .comm = "fio" } } };
	struct life_sysfs small = w;
	unsigned n;
	const struct dx_finding *x;

	diagnose__init(&d);
	diagnose__write(&d, &w);
	/* 5 requests on loop3 stalled 20 ms each behind udevadm: 100 ms */
	for (int i = 0; i < 5; i++)
		req(7 << 20 | 3, 60, 1001 * MS + i * MS, 20 * MS, 50000, &w, NULL);
	/* a write that stalled 0.5 ms in all: no finding */
	small.pid = 101;
	small.attr[0] = 'x';
	req(7 << 20 | 3, 60, 1010 * MS, MS / 2, 50000, &small, NULL);
	/* 10 requests on loop4 waited 30 ms each for tags fio held: 300 ms */
	for (int i = 0; i < 10; i++)
		req(7 << 20 | 4, 300, 2000 * MS + i * 40 * MS, 30 * MS, 6 * MS, NULL, i < 8 ? &t : &t2);
	/* 2 more waited 5 ms with no holder noted (the ring had gone past):
	 * said beside the finding, not in its cost */
	for (int i = 0; i < 2; i++)
		req(7 << 20 | 4, 300, 2500 * MS + i * 10 * MS, 5 * MS, 0, NULL, NULL);
	/* loop4's device: 100 requests of 6 ms D2C: 600 ms, with the 10 above 660 */
	for (int i = 0; i < 100; i++)
		req(7 << 20 | 4, 200, 3000 * MS + i * 7 * MS, 10000, 6 * MS, NULL, NULL);
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 3, "3 findings, not %u", n);
	CHECK(n >= 3 && !strcmp(f[0].kind, "slow_device") && !strcmp(f[1].kind, "tag_starvation") &&
	      !strcmp(f[2].kind, "queue_frozen"), "ranked by cost: %s %s %s", f[0].kind, n > 1 ? f[1].kind : "",
	      n > 2 ? f[2].kind : "");
	if ((x = find(n, "slow_device")))
		CHECK(x->cost_ns == 660 * MS && x->rank == 1, "slow device cost %llu rank %u",
		      (unsigned long long)x->cost_ns, x->rank);
	if ((x = find(n, "tag_starvation"))) {
		CHECK(x->cost_ns == 300 * MS && x->pid == 200 && !strcmp(x->comm, "fio"),
		      "tags: cost %llu culprit %s[%u]", (unsigned long long)x->cost_ns, x->comm, x->pid);
		/* 8 x 3 of 4 held, 2 x 6 of 6 given: 36 of 44 */
		CHECK(!strcmp(x->confidence, "high"), "fio had 36 of 44: %s", x->confidence);
		CHECK(x->nev >= 3 && strstr(x->ev[x->nev - 1], "2 more requests on loop4 waited 1 ms or more (10.00ms in all)"),
		      "the waits with no holder said: %s", x->nev ? x->ev[x->nev - 1] : "");
	}
	if ((x = find(n, "queue_frozen"))) {
		CHECK(x->cost_ns == 100 * MS && x->pid == 100 && !strcmp(x->attr, "scheduler") &&
		      !strcmp(x->disk, "loop3"), "frozen: cost %llu by %s[%u] %s/%s", (unsigned long long)x->cost_ns,
		      x->comm, x->pid, x->disk, x->attr);
		CHECK(strstr(x->ev[1], "\"none\"") != NULL, "the value up to its newline: %s", x->ev[1]);
		/* of every request's Q2C: 5 x 20.051 ms + 0.551 ms + 10 x 36.001 ms + 2 x 5.001 ms
		 * + 100 x 6.011 ms */
		double want = 100.0 * 100 / (5 * 20.051 + 0.551 + 10 * 36.001 + 2 * 5.001 + 100 * 6.011);

		CHECK(x->share > want - 1e-6 && x->share < want + 1e-6, "frozen's share %.6f%%, not %.6f%%", x->share, want);
	}
	/* lost events from 1 in 100 (and 10) come first, whatever the costs */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116, .s.lost = 9, .skipped = 1 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 4 && !strcmp(f[0].kind, "lost_events") && f[0].share < 0, "lost first: %s of %u", f[0].kind, n);
	/* 9 of 116: more than 1 in 100, fewer than 10: no finding */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116, .s.lost = 9 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 3 && strcmp(f[0].kind, "lost_events"), "9 lost: %s of %u", f[0].kind, n);
	/* skipped is signed: -3 is no loss */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116, .skipped = -3 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 3 && strcmp(f[0].kind, "lost_events"), "skipped -3: %s of %u", f[0].kind, n);
	/* skipped is of every completion on the disks, completed of the
	 * filtered ones (-p): 12 skipped of the kernel's 5012 is no loss */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116, .s.ran = 5000, .skipped = 12 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 3 && strcmp(f[0].kind, "lost_events"), "12 skipped of 5012: %s of %u", f[0].kind, n);
	/* ... and of the kernel's 512, it is */
	diagnose__summary(&d, &(struct req_summary){ .s.completed = 116, .s.ran = 500, .skipped = 12 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 4 && !strcmp(f[0].kind, "lost_events") && strstr(f[0].title, "of 512 requests"),
	      "12 skipped of 512: %s of %u (%s)", f[0].kind, n, f[0].title);
	diagnose__free(&d);
}

static void layers(void)
{
	struct life_upper u = { .type = REC_UPPER, .dev = 253 << 20, .nlower = 1,
				.lower = { { .dev = 7 << 20 | 5, .g = 1, .d = 2 } } };
	unsigned n;

	diagnose__init(&d);
	/* dm-0 over loop5: 50 bios of 12 ms, their requests 2 ms: 10 ms each its own */
	for (int i = 0; i < 50; i++) {
		u.q = 1000 * MS + i * 20 * MS;
		u.c = u.q + 12 * MS;
		u.lower[0].q = u.q + 9 * MS;
		u.lower[0].g = u.lower[0].q + 1000;
		u.lower[0].d = u.lower[0].g + 1000;
		u.lower[0].c = u.lower[0].q + 2 * MS;
		diagnose__upper(&d, &u);
	}
	/* a bio with nothing below is not a layer's time */
	u.nlower = 0;
	u.c = u.q + 500 * MS;
	diagnose__upper(&d, &u);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "slow_layer") && f[0].cost_ns == 500 * MS,
	      "slow layer: %u findings, %s, cost %llu", n, f[0].kind, (unsigned long long)f[0].cost_ns);
	diagnose__free(&d);

	/* lowers longer than their upper (an upper stamped late): the own time
	 * is negative, summed signed, and no finding */
	diagnose__init(&d);
	u.nlower = 1;
	for (int i = 0; i < 50; i++) {
		u.q = 1000 * MS + i * 20 * MS;
		u.c = u.q + 2 * MS;
		u.lower[0].q = u.q - MS;
		u.lower[0].g = u.lower[0].q + 1000;
		u.lower[0].d = u.lower[0].g + 1000;
		u.lower[0].c = u.q + 2 * MS;
		diagnose__upper(&d, &u);
	}
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(d.layer[0].own_ns == -50 * (int64_t)MS, "signed own time: %lld", (long long)d.layer[0].own_ns);
	CHECK(n == 1 && !strcmp(f[0].kind, "nothing_wrong"), "negative own time: %s", f[0].kind);
	diagnose__free(&d);
}

static void throttled(void)
{
	struct throttle_key k = { .pid = 400, .comm = "dirtier", .bdi = "7:6" };
	struct throttle_val v = { .calls = 90, .pauses = 30, .paused_ms = 240, .dirty = 300, .limit = 256 };
	unsigned n;

	diagnose__init(&d);
	for (int i = 0; i < 100; i++)
		req(7 << 20 | 6, 400, 1000 * MS + i * MS, 2000, 100000, NULL, NULL);
	diagnose__throttle(&d, &k, &v);
	k.pid = 401;
	v.paused_ms = 0;	/* judged, never put to sleep: no finding */
	diagnose__throttle(&d, &k, &v);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1 && !strcmp(f[0].kind, "dirty_throttled") && f[0].cost_ns == 240 * MS && f[0].pid == 400,
	      "throttled: %u findings, %s, cost %llu, pid %u", n, f[0].kind, (unsigned long long)f[0].cost_ns, f[0].pid);
	/* its share: of the requests' Q2C and the sleep */
	CHECK(f[0].share > 240 / (240 + 100 * 0.103) * 100 - 1e-6 && f[0].share < 240 / (240 + 100 * 0.103) * 100 + 1e-6,
	      "throttled share %.6f", f[0].share);
	diagnose__free(&d);
}

static void readahead(void)
{
	struct ra_val v = { .calls = { 30, 10 }, .pages = { 600, 400 }, .used = 200, .wasted = 300 };
	struct ra_val small = { .calls = { 3 }, .pages = { 200 }, .used = 0 };
	unsigned n;

	diagnose__init(&d);
	/* 100 reads of 4 KiB, 100 us each in the device: 24.4 ns a byte */
	for (int i = 0; i < 100; i++)
		req(7 << 20 | 3, 500, 1000 * MS + i * MS, 2000, 100000, NULL, NULL);
	diagnose__readahead(&d, 500, "rnd", &v);
	diagnose__readahead(&d, 501, "small", &small);	/* under 256 pages: no finding */
	n = diagnose__findings(&d, f, DX_FINDINGS);
	/* 1000 read ahead, 200 used: 800 unused, at 100 us a page: 80 ms */
	CHECK(n == 1 && !strcmp(f[0].kind, "readahead_waste") && f[0].pid == 500 && f[0].cost_ns == 80 * MS,
	      "readahead: %u findings, %s, pid %u, cost %llu", n, f[0].kind, f[0].pid, (unsigned long long)f[0].cost_ns);
	CHECK(strstr(f[0].ev[0], "200 used, 300 evicted unused, 500 still cached unused") != NULL, "%s", f[0].ev[0]);
	/* 1000 pages refaulted at 100 us a page: 100 ms, ahead of readahead's 80;
	 * 255 are under DX_THRASH_PAGES */
	diagnose__refaults(&d, 255, 0);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 1, "255 refaults: %u findings", n);
	diagnose__refaults(&d, 1000, 100);
	n = diagnose__findings(&d, f, DX_FINDINGS);
	CHECK(n == 2 && !strcmp(f[0].kind, "cache_thrash") && f[0].cost_ns == 100 * MS &&
	      !strcmp(f[1].kind, "readahead_waste"), "thrash: %u findings, %s %llu, %s", n, f[0].kind,
	      (unsigned long long)f[0].cost_ns, n > 1 ? f[1].kind : "");
	diagnose__free(&d);
}

/* A write by comm (pid), of data wb_pid dirtied (0: its own). */
static void write_req(uint32_t pid, const char *comm, uint32_t wb_pid, uint32_t bytes)
{
	struct life_req r = { .type = REC_REQ, .dev = 7 << 20 | 1, .pid = pid, .bytes = bytes, .wb_pid = wb_pid };
	struct req_seen s = { .r = &r, .write = true };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	diagnose__owner(&d, &s);
}

/* fdatasync calls asleep in jbd2_log_wait_commit, woken by the journal
 * thread, which wrote 3 MiB of bulk's data and 1 MiB of its own: bulk is
 * the culprit, the journal thread in the title; without the owners, the
 * journal thread is. */
static void journal(void)
{
	struct dx_calls c = { .name = "fdatasync", .calls = 40, .wall_ns = 400 * MS, .nwait = 1 };
	const struct dx_finding *j;
	unsigned n;

	c.part_ns[WP_SLEEP] = 300 * MS;
	c.wait[0].part = WP_SLEEP;
	snprintf(c.wait[0].place, sizeof(c.wait[0].place), "jbd2_log_wait_commit");
	snprintf(c.wait[0].waker, sizeof(c.wait[0].waker), "jbd2/loop0-8");
	c.wait[0].ns = 300 * MS;
	c.wait[0].calls = 40;
	for (int k = 0; k < 2; k++) {
		diagnose__init(&d);
		d.calls_on = true;
		d.call_min_ns = MS;
		diagnose__calls(&d, &c);
		if (k) {
			for (int i = 0; i < 3; i++)
				write_req(123, "jbd2/loop0-8", 4321, 1 << 20);
			write_req(123, "jbd2/loop0-8", 0, 1 << 20);
			write_req(4321, "bulk", 0, 4096);	/* bulk's own: names it */
			write_req(55, "other", 0, 4096);
		}
		diagnose__summary(&d, &(struct req_summary){ .owners = 1 });
		n = diagnose__findings(&d, f, DX_FINDINGS);
		j = find(n, "journal_wait");
		CHECK(j && j->rank == 1 && j->cost_ns == 300 * MS, "journal: ranked first, 300 ms (%s)",
		      j ? j->title : "none");
		if (!j)
			continue;
		if (k) {
			CHECK(j->pid == 4321 && !strcmp(j->comm, "bulk"), "journal: the data's owner the culprit: %s[%u]",
			      j->comm, j->pid);
			CHECK(strstr(j->title, "jbd2/loop0-8") && strstr(j->title, "data of bulk[4321]"),
			      "journal: waker and owner in the title: %s", j->title);
			CHECK(j->nev >= 3 && strstr(j->ev[2], "4 requests, 4.0 MiB: 75% of the bytes"),
			      "journal: what the journal thread wrote: %s", j->nev >= 3 ? j->ev[2] : "");
		} else {
			CHECK(!j->pid && !strcmp(j->comm, "jbd2/loop0-8"), "journal, no writes seen: the waker: %s[%u]",
			      j->comm, j->pid);
		}
		diagnose__free(&d);
	}
	/* more submitters than the owners' table: said in the finding, and no
	 * loss of requests (no lost_events) */
	diagnose__init(&d);
	d.calls_on = true;
	d.call_min_ns = MS;
	diagnose__calls(&d, &c);
	for (int i = 0; i < DX_OWNERS + 5; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "w%d", i);
		write_req(1000 + i, comm, 0, 4096);
	}
	diagnose__summary(&d, &(struct req_summary){ .owners = 1, .s.completed = 1000 });
	n = diagnose__findings(&d, f, DX_FINDINGS);
	j = find(n, "journal_wait");
	CHECK(!find(n, "lost_events") && j && j->rank == 1 && strstr(j->ev[j->nev - 1], "5 writes of more submitters"),
	      "owners' table full: said (%s), not lost", j ? j->ev[j->nev - 1] : "no journal finding");
	diagnose__free(&d);
}

int main(void)
{
	journal();
	readahead();
	throttled();
	quiet();
	three_faults();
	layers();
	CHECK_DONE();
}

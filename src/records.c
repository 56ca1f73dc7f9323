// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <stddef.h>
#include "bpfenv.h"
#include "counters.h"
#include "disks.h"
#include "log.h"
#include "records.h"
#include "frames.h"
#include "ksyms.h"
#include "usyms.h"
#include "life.skel.h"
#include "text.h"

void printer__init(struct req_printer *p, bool json, bool snoop)
{
	p->json = json;
	p->snoop = snoop;
	p->disk_w = 7;
	p->sector_w = 11;
	json__init(&p->j, stdout);
}

void printer__widths(struct req_printer *p)
{
	disks__widths(&p->disk_w, &p->sector_w);
}

/* A write is remembered at its start (a stalled request can complete before
 * the write returns) and completed by its end record. */
static void window_add(struct req_printer *p, const struct life_sysfs *w)
{
	for (int i = 0; i < p->nwin; i++) {
		if (p->win[i].tid == w->tid && p->win[i].start == w->start) {
			p->win[i] = *w;
			return;
		}
	}
	p->win[p->next] = *w;
	p->next = (p->next + 1) % MAX_WINDOWS;
	if (p->nwin < MAX_WINDOWS)
		p->nwin++;
}

/* The write to this disk's queue attributes that overlapped [from, to]. */
static const struct life_sysfs *window_find(struct req_printer *p, const char *disk, uint64_t from, uint64_t to)
{
	const struct life_sysfs *best = NULL;

	for (int i = 0; i < p->nwin; i++) {
		const struct life_sysfs *w = &p->win[i];

		if (strcmp(w->disk, disk) || w->start > to || (w->end && w->end < from))
			continue;
		if (!best || w->start > best->start)
			best = w;
	}
	return best;
}

void printer__remember(struct req_printer *p, const struct life_sysfs *w)
{
	window_add(p, w);
}

const struct life_sysfs *printer__culprit(struct req_printer *p, const struct life_req *r, const __u64 *ph)
{
	if (!(r->seen & SEEN_Q) || !(r->seen & SEEN_G) || !ph[PH_Q2G])
		return NULL;
	return window_find(p, disks__name(r->dev), r->q, r->q + ph[PH_Q2G]);
}

void printer__value(const char *in, char *out, size_t len)
{
	snprintf(out, len, "%s", in);
	out[strcspn(out, "\n")] = '\0';
}

void printer__sysfs(struct req_printer *p, const struct life_sysfs *w)
{
	char val[SYSFS_VALUE_LEN];

	printer__value(w->value, val, sizeof(val));
	if (p->json) {
		json__obj_begin(&p->j);
		json__kstr(&p->j, "type", "queue_write");
		json__ku64(&p->j, "ts_ns", w->start);
		json__kstr(&p->j, "comm", w->comm);
		json__ku64(&p->j, "pid", w->pid);
		json__ku64(&p->j, "ppid", w->ppid);
		json__kstr(&p->j, "disk", w->disk);
		json__kstr(&p->j, "attr", w->attr);
		json__kstr(&p->j, "value", val);
		json__ku64(&p->j, "duration_ns", w->end - w->start);
		json__key(&p->j, "ret");
		json__i64(&p->j, w->ret);
		json__obj_end(&p->j);
		return;
	}
	{
		char comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], disk[TEXT_SAFE_LEN(sizeof(w->disk))],
		     attr[TEXT_SAFE_LEN(sizeof(w->attr))], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

		printf("%-9.3f # queue write: %s[%u] (ppid %u) %s/queue/%s = \"%s\" took %.3f ms%s\n",
		       (w->start - p->t0) / 1e9, text__safe(w->comm, comm, sizeof(comm)), w->pid,
		       w->ppid, text__safe(w->disk, disk, sizeof(disk)),
		       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)),
		       (w->end - w->start) / 1e6, w->ret < 0 ? " (failed)" : "");
	}
}

int printer__stacks(struct req_printer *p, bool kernel, bool user)
{
	int err;

	p->kstack = kernel;
	p->ustack = user;
	p->stack_fd = -1;
	if (kernel) {
		if (!(p->ks = calloc(1, sizeof(*p->ks))))
			return fail("symbols", "out of memory");
		if ((err = ksyms__load(p->ks, NULL)))
			return fail("reading /proc/kallsyms", "%s", strerror(-err));
	}
	if (user && !(p->us = usyms__new()))
		return fail("symbols", "out of memory");
	return 0;
}

void printer__free(struct req_printer *p)
{
	if (p->ks) {
		ksyms__free(p->ks);
		free(p->ks);
	}
	usyms__free(p->us);
	ustacks__free(&p->kcache);
	ustacks__free(&p->ucache);
	reqflags__free(&p->rf);
}

/*
 * -K/-U: one of a request's stacks at Q, named once (the submitter may exit
 * soon) and kept by id; with --record, written into the recording the first
 * time, so a replay elsewhere names it as it was named here.
 */
static const struct frames *req_stack(struct req_printer *p, const struct life_req *r, bool user)
{
	static const struct frames none_k, none_u = { .user = true };
	struct ustacks *c = user ? &p->ucache : &p->kcache;
	uint32_t pid = user ? r->pid : 0;
	int32_t id = user ? r->ustack : r->kstack;
	uint64_t ips[LIFE_STACK_DEPTH];
	const struct frames *kept;
	struct frames fr;
	size_t len;
	char *text;
	int n;

	if (id < 0 || (user && !(r->seen & SEEN_WHO)))
		return user ? &none_u : &none_k;
	if ((kept = ustacks__find(c, pid, id)) || p->stack_fd < 0)
		return kept ? kept : user ? &none_u : &none_k;
	n = frames__read(p->stack_fd, id, ips, LIFE_STACK_DEPTH);
	if (user)
		frames__user(&fr, p->us, pid, ips, n);
	else
		frames__kernel(&fr, p->ks, ips, n);
	if (!(kept = ustacks__put(c, pid, id, &fr)))
		return user ? &none_u : &none_k;
	if (p->rec.f && !p->rec_err) {
		if (!(text = frames__to_text(kept, pid, id, &len)))
			p->rec_err = -ENOMEM;
		else
			p->rec_err = recfile__write(&p->rec, RECF_STACK, text, len);
		free(text);
	}
	return kept;
}

static void print_req(struct req_printer *p, const struct life_req *r)
{
	__u64 ph[PH_NR];
	int complete = life_phases(r->q, r->g, r->i, r->d, r->c, r->seen, ph);
	const char *dom = life__dominant(ph, complete), *disk = disks__name(r->dev), *op;
	const struct life_sysfs *w;
	char ob[16], flags[200], seen[8], comm[TEXT_SAFE_LEN(LIFE_COMM_LEN)], sb[16];

	/* stalled before allocation while this disk's queue attributes were
	 * being written: name the writer */
	if ((w = printer__culprit(p, r, ph)))
		p->attributed++;
	p->shown++;
	op = reqflags__op_name(&p->rf, r->cmd_flags, ob, sizeof(ob));
	reqflags__flags_str(&p->rf, r->cmd_flags, flags, sizeof(flags));
	life__seen_str(r->seen, seen);

	if (p->json) {
		struct json *j = &p->j;

		json__obj_begin(j);
		json__kstr(j, "type", "request");
		json__ku64(j, "ts_ns", r->c);
		if (r->seen & SEEN_WHO) {
			json__kstr(j, "comm", r->comm);
			json__ku64(j, "pid", r->pid);
			json__ku64(j, "tid", r->tid);
		} else {	/* who submitted it was not seen */
			json__knull(j, "comm");
			json__knull(j, "pid");
			json__knull(j, "tid");
		}
		json__kstr(j, "disk", disk);
		json__kstr(j, "op", op);
		json__kwords(j, "flags", flags);
		json__ku64(j, "sector", r->sector);
		json__ku64(j, "bytes", r->bytes);
		for (int p = 0; p < PH_NR; p++)
			json__ku64(j, life__phase_key(p), ph[p]);
		if (dom)
			json__kstr(j, "dominant", dom);
		else
			json__knull(j, "dominant");
		json__kbool(j, "partial", !complete);
		json__kstr(j, "seen", seen);
		json__kbool(j, "inserted", r->seen & SEEN_I);
		json__kbool(j, "issued", r->seen & SEEN_D);
		json__kbool(j, "split", r->seen & SEEN_SPLIT);
		json__ku64(j, "requeues", r->requeues);
		json__ku64(j, "cgroup", r->cgroup);
		json__key(j, "error");
		json__i64(j, r->error);
		json__kstr(j, "status", reqflags__status(r->error, sb, sizeof(sb)));
		if (w) {
			char val[SYSFS_VALUE_LEN];

			printer__value(w->value, val, sizeof(val));
			json__key(j, "queue_write");
			json__obj_begin(j);
			json__kstr(j, "comm", w->comm);
			json__ku64(j, "pid", w->pid);
			json__kstr(j, "attr", w->attr);
			json__kstr(j, "value", val);
			json__obj_end(j);
		}
		if (p->kstack || p->ustack) {
			json__key(j, "stack");
			json__obj_begin(j);
			if (p->kstack)
				frames__json(req_stack(p, r, false), j, "kernel");
			if (p->ustack) {
				const struct frames *uf = req_stack(p, r, true);

				frames__json(uf, j, "user");
				json__kbool(j, "user_cut_short", uf->cut);
			}
			json__obj_end(j);
		}
		json__obj_end(j);
		return;
	}
	printf("%-9.3f %-15s %-7u %-*s %-7s %-*llu %-8u %8.3f %8.3f %8.3f %8.3f %9.3f %s",
	       (r->c - p->t0) / 1e9,
	       (r->seen & SEEN_WHO) ? text__safe(r->comm, comm, sizeof(comm)) : "?", r->pid,
	       p->disk_w, disk, op, p->sector_w, (unsigned long long)r->sector, r->bytes,
	       ph[PH_Q2G] / 1e6, ph[PH_G2I] / 1e6, ph[PH_I2D] / 1e6, ph[PH_D2C] / 1e6,
	       ph[PH_Q2C] / 1e6, dom ? dom : "partial");
	if (!complete)
		printf(" (seen %s)", seen);
	if (r->error)
		printf(" error=%s", reqflags__status(r->error, sb, sizeof(sb)));
	if (w) {
		char val[SYSFS_VALUE_LEN];

		printer__value(w->value, val, sizeof(val));
		char attr[TEXT_SAFE_LEN(sizeof(w->attr))], value[TEXT_SAFE_LEN(SYSFS_VALUE_LEN)];

		printf("  <- queue frozen by %s[%u]: %s/queue/%s = \"%s\"",
		       text__safe(w->comm, comm, sizeof(comm)), w->pid, disk,
		       text__safe(w->attr, attr, sizeof(attr)), text__safe(val, value, sizeof(value)));
	}
	putchar('\n');
	if (p->kstack || p->ustack) {
		static const struct frames none;
		const struct frames *kf = p->kstack ? req_stack(p, r, false) : &none,
				    *uf = p->ustack ? req_stack(p, r, true) : &none;

		frames__text(kf, stdout, "      ");
		if (kf->n && uf->n)
			printf("      --\n");
		frames__text(uf, stdout, "      ");
	}
}

void printer__record(struct req_printer *p, const void *data, size_t size)
{
	uint32_t type = size >= sizeof(uint32_t) ? *(const uint32_t *)data : 0;

	if (type == REC_REQ && size >= sizeof(struct life_req))
		print_req(p, data);
	else if (type == REC_SYSFS_START && size >= sizeof(struct life_sysfs))
		window_add(p, data);
	else if (type == REC_SYSFS_END && size >= sizeof(struct life_sysfs)) {
		window_add(p, data);
		if (!p->snoop)
			printer__sysfs(p, data);
	}
}

int printer__on_record(void *ctx, void *data, size_t size)
{
	struct req_printer *p = ctx;
	const struct life_req *r = data;

	if (p->rec.f && !p->rec_err) {
		/* a request's stacks go first, the first time they are seen */
		if (*(uint32_t *)data == REC_REQ && size >= sizeof(*r)) {
			if (p->kstack)
				req_stack(p, r, false);
			if (p->ustack)
				req_stack(p, r, true);
		}
		if (!p->rec_err)
			p->rec_err = recfile__write(&p->rec, *(uint32_t *)data, data, size);
	}
	printer__record(p, data, size);
	return 0;
}

void printer__summary_of(struct life *l, struct req_summary *sum)
{
	*sum = (struct req_summary){ .followed = !l->watch, .kernel_q = l->kernel_q,
				      .sysfs_on = l->sysfs_on };
	life__stats(l, &sum->s);
	sum->in_flight = life__in_flight(l);
	sum->missed = bpfenv__recursion_misses(l->skel->obj);
	sum->skipped = life__skipped(l);
}

/* The summary's counters, in the order JSON and text give them. */
struct summary_values {
	uint64_t completed, records, lost, partial, untracked, not_issued, merges, splits,
		 requeues, abandoned, in_flight, unseen_end, unstamped, watch_full, missed,
		 queue_write_stalls;
	int64_t skipped;
};

enum { FOLLOWED = 1, WATCHED = 2 };	/* what a run keeps (struct counter.only) */

#define SV(f) offsetof(struct summary_values, f)
static const struct counter summary_counters[] = {
	{ "completed", SV(completed), "%llu requests completed" },
	{ "records", SV(records), "%llu records" },
	{ "lost", SV(lost), "%llu lost (ring buffer full)" },
	{ "partial", SV(partial), "%llu partial (Q, G or D not seen)" },
	{ "untracked", SV(untracked), "%llu with the submitter lost (slot taken)" },
	{ "not_issued", SV(not_issued), "%llu never issued" },
	/* watched: back merges are not seen, and no table of requests in flight */
	{ "merges", SV(merges), "%llu merges", FOLLOWED },
	{ "splits", SV(splits), "%llu splits" },
	{ "requeues", SV(requeues), "%llu requeues" },
	{ "abandoned", SV(abandoned), "%llu abandoned in flight", FOLLOWED },
	{ "in_flight", SV(in_flight), "%llu still in flight", FOLLOWED },
	{ "unseen_end", SV(unseen_end), "%llu ended unseen (no program ran at their completion)", FOLLOWED },
	{ "unstamped", SV(unstamped), "%llu without a Q stamp", WATCHED },
	{ "watch_full", SV(watch_full), "%llu with the watch list full", WATCHED },
	{ "missed", SV(missed), "%llu missed (a program already running on the CPU)" },
	{ "skipped", SV(skipped), "%lld skipped (completed, but the kernel ran no BPF program for them)", 0, 1 },
	{ "queue_write_stalls", SV(queue_write_stalls), "%llu stalls named a queue write" },
};

void printer__summary(struct req_printer *p, const struct req_summary *sum)
{
	const struct life_stats *s = &sum->s;
	struct summary_values v = {
		s->completed, s->records, s->lost, s->partial, s->untracked, s->not_issued,
		s->merges, s->splits, s->requeues, s->abandoned, sum->in_flight, s->unseen_end,
		s->unstamped, s->watch_full, sum->missed, p->attributed, sum->skipped,
	};
	unsigned mode = sum->followed ? FOLLOWED : WATCHED;

	if (p->json) {
		json__obj_begin(&p->j);
		json__kstr(&p->j, "type", "summary");
		json__kstr(&p->j, "tracking", sum->followed ? "followed" : "watched");
		json__kstr(&p->j, "q_stamp", sum->kernel_q ? "kernel" : "iodig");
		counters__json(&p->j, summary_counters, COUNTERS_N(summary_counters), &v, mode);
		json__kbool(&p->j, "queue_writes_watched", sum->sysfs_on);
		json__obj_end(&p->j);
		return;
	}
	fflush(stdout);
	fputc('\n', stderr);
	counters__sentence(stderr, summary_counters, COUNTERS_N(summary_counters), &v, mode);
}

void printer__header(struct req_printer *p)
{
	if (!p->json)
		printf("%-9s %-15s %-7s %-*s %-7s %-*s %-8s %8s %8s %8s %8s %9s %s\n", "TIME(s)", "COMM",
		       "PID", p->disk_w, "DISK", "OP", p->sector_w, "SECTOR", "BYTES", "Q2G(ms)", "G2I(ms)",
		       "I2D(ms)", "D2C(ms)", "Q2C(ms)", "DOMINANT");
}

/* The tables a replay needs, first in the file: what the printer reads
 * besides the records themselves. */
int printer__record_tables(struct req_printer *p, const char *path)
{
	char meta[512], *flags = reqflags__to_text(&p->rf), *disks = disks__to_text();
	struct timespec wall, mono;
	struct utsname u;
	int err, n;

	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	uname(&u);
	n = snprintf(meta, sizeof(meta),
		     "command %s\nt0_ns %llu\nboot_wall_ns %llu\ndisk_w %d\nsector_w %d\nkernel %s\nhost %s\n"
		     "kstack %d\nustack %d\n",
		     p->snoop ? "snoop" : "slow", (unsigned long long)p->t0,
		     (unsigned long long)((wall.tv_sec - mono.tv_sec) * 1000000000LL + wall.tv_nsec - mono.tv_nsec),
		     p->disk_w, p->sector_w, u.release, u.nodename, p->kstack, p->ustack);
	err = flags && disks ? 0 : -ENOMEM;
	if (!err)
		err = recfile__write(&p->rec, RECF_META, meta, n);
	if (!err)
		err = recfile__write(&p->rec, RECF_REQFLAGS, flags, strlen(flags));
	if (!err)
		err = recfile__write(&p->rec, RECF_DISKS, disks, strlen(disks));
	free(flags);
	free(disks);
	if (err)
		return fail("writing the recording", "%s: %s", path, strerror(-err));
	return 0;
}


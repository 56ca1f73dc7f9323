// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "umaps.h"
#include "sort.h"

#define BUCKETS 4096
#define PAGES 32	/* per CPU: 128 KiB, some 1,000 mmap records; taken every 100 ms */

struct pmaps {
	struct pmaps *next;
	pid_t pid;
	uint64_t exited_ns;	/* 0: alive */
	struct umap *m;
	int n, cap;
};

/* A record taken from a CPU's buffer, applied in time order with the
 * other CPUs': a fork seen on one CPU and the child's exec on another. */
struct pending {
	uint64_t time, seq;	/* seq: arrival, for records of one time */
	struct perf_event_header *h;
};

struct umaps {
	struct perf_buffer *pb;
	int map_fd;
	struct pmaps *b[BUCKETS];
	uint64_t lost, last_gc;
	struct pending *q;
	size_t nq, capq;
};

/* PERF_RECORD_MMAP2; the sample_id (its time) follows the padded filename */
struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, res1;
			uint16_t res2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct task_rec {	/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct pmaps **slot(struct umaps *m, pid_t pid)
{
	struct pmaps **p = &m->b[(uint32_t)pid % BUCKETS];

	while (*p && (*p)->pid != pid)
		p = &(*p)->next;
	return p;
}

static void pmaps_clear(struct pmaps *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->m[i].path);
	p->n = 0;
}

static void pmaps_free(struct pmaps *p)
{
	pmaps_clear(p);
	free(p->m);
	free(p);
}

static struct pmaps *pmaps_get(struct umaps *m, pid_t pid)
{
	struct pmaps **p = slot(m, pid);

	if (!*p && (*p = calloc(1, sizeof(**p))))
		(*p)->pid = pid;
	return *p;
}

static void pmaps_add(struct pmaps *p, const struct umap *u)
{
	if (p->n == p->cap) {
		void *x = realloc(p->m, (p->cap ? 2 * p->cap : 16) * sizeof(*p->m));

		if (!x)
			return;
		p->m = x;
		p->cap = p->cap ? 2 * p->cap : 16;
	}
	p->m[p->n] = *u;
	if (!(p->m[p->n].path = strdup(u->path ? u->path : "")))
		return;
	p->n++;
}

/* A parent iodig never saw map (it started before): its maps now. */
static void load_proc_maps(struct pmaps *p, pid_t pid)
{
	char path[64], line[4096 + 128], file[4096], perms[8];
	unsigned long long start, end, off;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		struct umap u = {};

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off, file) != 5 ||
		    perms[2] != 'x' || file[0] != '/')
			continue;
		u = (struct umap){ .start = start, .end = end, .pgoff = off, .path = file };
		pmaps_add(p, &u);
	}
	fclose(f);
}

static void apply(struct umaps *m, const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		const struct mmap2_rec *r = (const void *)h;
		struct pmaps *p;
		struct umap u = { .start = r->addr, .end = r->addr + r->len, .pgoff = r->pgoff,
				  .path = (char *)r->filename };

		if (!(r->prot & 4) || r->filename[0] != '/' || !(p = pmaps_get(m, r->pid)))	/* PROT_EXEC */
			break;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			u.build_id_len = r->build_id_size <= 20 ? r->build_id_size : 20;
			memcpy(u.build_id, r->build_id, u.build_id_len);
		}
		pmaps_add(p, &u);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct task_rec *r = (const void *)h;
		struct pmaps *c, *p;

		if (r->pid == r->ppid || !(c = pmaps_get(m, r->pid)))	/* a thread */
			break;
		pmaps_clear(c);
		c->exited_ns = 0;
		p = *slot(m, r->ppid);
		if (!p)
			load_proc_maps(c, r->ppid);
		for (int i = 0; p && i < p->n; i++)
			pmaps_add(c, &p->m[i]);
		break;
	}
	case PERF_RECORD_COMM: {
		const struct comm_rec *r = (const void *)h;
		struct pmaps *p;

		/* an exec: the old image's mappings are gone (the new one's follow) */
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && (p = *slot(m, r->pid)))
			pmaps_clear(p);
		break;
	}
	case PERF_RECORD_EXIT: {
		const struct task_rec *r = (const void *)h;
		struct pmaps *p;

		if (r->pid == r->tid && (p = *slot(m, r->pid)))
			p->exited_ns = mono_ns();
		break;
	}
	}
}

/* Every record ends with its time (sample_id_all, PERF_SAMPLE_TIME). */
static enum bpf_perf_event_ret on_record(void *ctx, int cpu, struct perf_event_header *h)
{
	struct umaps *m = ctx;
	struct pending p;

	if (h->type == PERF_RECORD_LOST) {
		m->lost += ((const struct lost_rec *)h)->lost;
		return LIBBPF_PERF_EVENT_CONT;
	}
	if (h->size < sizeof(*h) + 8 || !(p.h = malloc(h->size)))
		return LIBBPF_PERF_EVENT_CONT;
	memcpy(p.h, h, h->size);
	memcpy(&p.time, (char *)h + h->size - 8, 8);
	p.seq = m->nq;
	if (m->nq == m->capq) {
		void *x = realloc(m->q, (m->capq ? 2 * m->capq : 256) * sizeof(*m->q));

		if (!x) {
			free(p.h);
			m->lost++;
			return LIBBPF_PERF_EVENT_CONT;
		}
		m->q = x;
		m->capq = m->capq ? 2 * m->capq : 256;
	}
	m->q[m->nq++] = p;
	return LIBBPF_PERF_EVENT_CONT;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct umaps *umaps__new(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.mmap = 1, .mmap2 = 1, .build_id = 1,	/* executable mappings, with build-ids */
		.comm = 1, .comm_exec = 1, .task = 1,	/* exec, fork, exit */
		.sample_id_all = 1, .sample_type = PERF_SAMPLE_TIME,	/* each record's time */
		.wakeup_events = 1000000,	/* never woken: polled */
	};
	struct umaps *m = calloc(1, sizeof(*m));
	int ncpu = libbpf_num_possible_cpus(), err;

	if (!m)
		return NULL;
	m->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "iodig_umaps", sizeof(int), sizeof(int),
				   ncpu > 0 ? ncpu : 1, NULL);
	if (m->map_fd < 0) {
		err = -errno;
		free(m);
		errno = -err;
		return NULL;
	}
	m->pb = perf_buffer__new_raw(m->map_fd, PAGES, &attr, on_record, m, NULL);
	if (!m->pb) {
		err = errno;
		close(m->map_fd);
		free(m);
		errno = err;
		return NULL;
	}
	m->last_gc = mono_ns();
	return m;
}

void umaps__poll(struct umaps *m)
{
	uint64_t now;

	if (!m)
		return;
	perf_buffer__consume(m->pb);
	/* the CPUs' records in the order they happened */
	sort__any(m->q, m->nq, sizeof(*m->q), cmp_pending);
	for (size_t i = 0; i < m->nq; i++) {
		apply(m, m->q[i].h);
		free(m->q[i].h);
	}
	m->nq = 0;
	now = mono_ns();
	if (now - m->last_gc < 1000000000ULL)
		return;
	m->last_gc = now;
	for (int i = 0; i < BUCKETS; i++) {
		struct pmaps **p = &m->b[i];

		while (*p) {
			struct pmaps *x = *p;

			if (x->exited_ns && now - x->exited_ns > UMAPS_KEEP_NS) {
				*p = x->next;
				pmaps_free(x);
			} else {
				p = &x->next;
			}
		}
	}
}

const struct umap *umaps__of(struct umaps *m, pid_t pid, int *n)
{
	struct pmaps *p = m ? *slot(m, pid) : NULL;

	*n = p ? p->n : 0;
	return p && p->n ? p->m : NULL;
}

uint64_t umaps__lost(const struct umaps *m)
{
	return m ? m->lost : 0;
}

void umaps__free(struct umaps *m)
{
	if (!m)
		return;
	perf_buffer__free(m->pb);
	close(m->map_fd);
	for (size_t i = 0; i < m->nq; i++)
		free(m->q[i].h);
	free(m->q);
	for (int i = 0; i < BUCKETS; i++)
		while (m->b[i]) {
			struct pmaps *x = m->b[i];

			m->b[i] = x->next;
			pmaps_free(x);
		}
	free(m);
}

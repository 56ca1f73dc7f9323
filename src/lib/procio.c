// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include "procio.h"
#include "text.h"
#include "sort.h"

static int cmp_io(const void *a, const void *b)
{
	uint32_t x = ((const struct proc_io *)a)->pid, y = ((const struct proc_io *)b)->pid;

	return x < y ? -1 : x > y;
}

/* Every process's read_bytes and write_bytes now, sorted by pid: a
 * process's row is its delta since the last scan (0 before, if it did not
 * exist then: its counters started at 0). */
static const struct proc_io *io_find(const struct proc_io *t, int n, uint32_t pid)
{
	struct proc_io k = { .pid = pid };

	return n ? bsearch(&k, t, n, sizeof(*t), cmp_io) : NULL;
}

void procio__scan(struct procio *tc)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	{	/* this scan's table becomes the last one */
		struct proc_io *p = tc->last;
		int c = tc->caplast;

		tc->last = tc->now;
		tc->nlast = tc->nnow;
		tc->caplast = tc->capnow;
		tc->now = p;
		tc->capnow = c;
		tc->nnow = 0;
	}
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[512];
		struct proc_io io = {};
		FILE *f;

		if (!text__is_decimal(e->d_name, false))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/io", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		io.pid = strtoul(e->d_name, NULL, 10);
		/* another user's process: the open may pass (CAP_DAC_READ_SEARCH)
		 * and the read fail (ptrace access): unknown, not 0 */
		int got = 0;

		while (fgets(buf, sizeof(buf), f)) {
			unsigned long long v;

			if (sscanf(buf, "read_bytes: %llu", &v) == 1)
				io.read = v, got++;
			else if (sscanf(buf, "write_bytes: %llu", &v) == 1)
				io.write = v, got++;
		}
		fclose(f);
		if (got != 2)
			continue;
		if (tc->nnow == tc->capnow) {
			void *p = realloc(tc->now, (tc->capnow = tc->capnow ? 2 * tc->capnow : 512) * sizeof(*tc->now));

			if (!p)
				break;
			tc->now = p;
		}
		tc->now[tc->nnow++] = io;
	}
	closedir(d);
	sort__any(tc->now, tc->nnow, sizeof(*tc->now), cmp_io);
	{	/* processes gone: their last shown counts with them */
		int k = 0;

		for (int i = 0; i < tc->nshown; i++)
			if (io_find(tc->now, tc->nnow, tc->shown[i].pid))
				tc->shown[k++] = tc->shown[i];
		tc->nshown = k;
	}
}


/* The values when pid's count was last shown, else at the scan before. */
static const struct proc_io *base_of(const struct procio *p, uint32_t pid)
{
	const struct proc_io *b = io_find(p->shown, p->nshown, pid);

	return b ? b : io_find(p->last, p->nlast, pid);
}

bool procio__delta(const struct procio *p, uint32_t pid, int64_t *read, int64_t *write)
{
	const struct proc_io *now = io_find(p->now, p->nnow, pid), *was = base_of(p, pid);

	if (!now)
		return false;
	if (was && (was->read > now->read || was->write > now->write))
		was = NULL;	/* counts that went back: the pid is another process's now */
	*read = now->read - (was ? was->read : 0);
	*write = now->write - (was ? was->write : 0);
	return true;
}

void procio__shown(struct procio *p, uint32_t pid)
{
	const struct proc_io *now = io_find(p->now, p->nnow, pid);
	struct proc_io *b = (struct proc_io *)io_find(p->shown, p->nshown, pid);

	if (!now)
		return;
	if (b) {
		*b = *now;
		return;
	}
	if (p->nshown == p->capshown) {
		void *q = realloc(p->shown, (p->capshown = p->capshown ? 2 * p->capshown : 64) * sizeof(*p->shown));

		if (!q)
			return;
		p->shown = q;
	}
	p->shown[p->nshown++] = *now;
	sort__any(p->shown, p->nshown, sizeof(*p->shown), cmp_io);
}

void procio__free(struct procio *p)
{
	free(p->now);
	free(p->last);
	free(p->shown);
	*p = (struct procio){};
}

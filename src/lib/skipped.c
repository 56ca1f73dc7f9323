// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "disks.h"
#include "skipped.h"

/* Fields 1, 5, 12 and 16 of the stat file (Documentation/block/stat.rst):
 * read, write, discard and flush I/Os completed. */
static int read_stat(const char *path, uint64_t *n)
{
	unsigned long long v[17] = { 0 };
	FILE *f = fopen(path, "r");
	int got;

	if (!f)
		return -errno;
	got = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		     &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
		     &v[11], &v[12], &v[13], &v[14], &v[15], &v[16]);
	fclose(f);
	if (got < 11)
		return -EINVAL;
	*n = v[0] + v[4] + v[11] + v[15];
	return 0;
}

int skipped__disk_completions(uint32_t dev, uint64_t *n)
{
	char path[PATH_MAX];
	struct dirent *de;
	uint64_t one;
	DIR *d;

	if (dev) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		return read_stat(path, n);
	}
	/* Only request-based (blk-mq) disks have requests, and block_rq_complete;
	 * a bio-based one (dm, md) counts bios.  Partitions are in their disk. */
	d = opendir("/sys/block");
	if (!d)
		return -errno;
	*n = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/mq", de->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/stat", de->d_name);
		if (!read_stat(path, &one))
			*n += one;
	}
	closedir(d);
	return 0;
}

/*
 * A request runs block_rq_complete before the kernel accounts it, so BPF's
 * count can run ahead of the kernel's for an instant, never behind.  Read
 * BPF's first at the start and the kernel's first after: either way a
 * request caught between the two reads makes the count smaller, never
 * larger, and nothing is reported skipped that was not.
 */
void skipped__start(struct skipped *s, uint32_t dev, skipped_seen_fn seen, void *ctx)
{
	*s = (struct skipped){ .dev = dev, .seen0 = seen(ctx) };
	s->on = skipped__disk_completions(dev, &s->disk0) == 0;
}

uint64_t skipped__update(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	uint64_t disk, kernel, bpf;

	if (!s->on || skipped__disk_completions(s->dev, &disk))
		return s->total;
	bpf = seen(ctx) - s->seen0;
	kernel = disk - s->disk0;
	if (kernel > bpf && kernel - bpf > s->total)
		s->total = kernel - bpf;
	return s->total;
}

uint64_t skipped__interval(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	uint64_t n = skipped__update(s, seen, ctx) - s->taken;

	s->taken += n;
	return n;
}

void skipped__stop(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	skipped__update(s, seen, ctx);
	s->on = false;
}

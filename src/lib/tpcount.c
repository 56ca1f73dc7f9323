// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "bpfenv.h"
#include "tpcount.h"

static int tp_id(const char *sys, const char *event, __u64 *id)
{
	char dir[256], path[264];
	unsigned long long v;
	FILE *f;

	if (bpfenv__tp_dir(sys, event, dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/id", dir);
	if (!(f = fopen(path, "r")))
		return -errno;
	if (fscanf(f, "%llu", &v) != 1) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	*id = v;
	return 0;
}

int tpcount__probe(const char *sys, const char *event)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	int err, fd;

	if ((err = tp_id(sys, event, &a.config)))
		return err;
	fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int tpcount__open(struct tpcount *t, const char *sys, const char *event, const char *filter)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	*t = (struct tpcount){ 0 };
	if ((err = tp_id(sys, event, &a.config)))
		return err;
	if (ncpu < 1)
		return -EINVAL;
	t->fd = calloc(ncpu, sizeof(*t->fd));
	if (!t->fd)
		return -ENOMEM;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		int fd = syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV)	/* an offline CPU counts nothing */
				continue;
			err = -errno;
			goto fail;
		}
		t->fd[t->nfd++] = fd;
		if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
			err = -errno;
			goto fail;
		}
	}
	return 0;
fail:
	tpcount__close(t);
	return err;
}

int tpcount__read(const struct tpcount *t, uint64_t *n)
{
	*n = 0;
	for (int i = 0; i < t->nfd; i++) {
		uint64_t v;

		if (read(t->fd[i], &v, sizeof(v)) != sizeof(v))
			return -EIO;
		*n += v;
	}
	return 0;
}

void tpcount__close(struct tpcount *t)
{
	for (int i = 0; i < t->nfd; i++)
		close(t->fd[i]);
	free(t->fd);
	*t = (struct tpcount){ 0 };
}

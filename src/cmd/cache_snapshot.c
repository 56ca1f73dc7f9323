// SPDX-License-Identifier: GPL-2.0
/* iodig cache --snapshot FILE...: cachestat(2) of each file, now. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "fields.h"
#include "json.h"
#include "log.h"
#include "recs.h"
#include "run.h"

/* cachestat(2), 6.5+: the kernel's own count of a file's pages. */
struct cachestat_range {
	uint64_t off, len;
};

struct cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct snap_row {
	const char *path;
	struct cachestat cs;
};

#define SR(f) offsetof(struct snap_row, f)
static const struct field snap_fields[] = {
	{ "path", FS_PSTR, SR(path) },
	{ "cached", FS_U64, SR(cs.nr_cache), .head = "CACHED", .fmt = "%10llu" },
	{ "dirty", FS_U64, SR(cs.nr_dirty), .head = "DIRTY", .fmt = "%10llu" },
	{ "writeback", FS_U64, SR(cs.nr_writeback), .head = "WRITEBACK", .fmt = "%10llu" },
	{ "evicted", FS_U64, SR(cs.nr_evicted), .head = "EVICTED", .fmt = "%10llu" },
	{ "recently_evicted", FS_U64, SR(cs.nr_recently_evicted), .head = "RECENT_EV", .fmt = "%10llu" },
	{ NULL, FS_PSTR, SR(path), .head = " FILE", .fmt = " %s", .hw = -5 },
};

const struct rec snap_rec = REC("snapshot", "cache.snapshot", "cache --snapshot: cachestat(2) of one file, in pages",
				snap_fields);

int cache__snapshot(char **files, int nfiles, bool json)
{
	struct fctx fc = {};
	struct snap_row sr;
	struct json j;
	int err = 0;

	json__init(&j, stdout);
	if (!json)
		fields__head(stdout, &snap_rec, &fc);
	for (int i = 0; i < nfiles; i++) {
		struct cachestat_range range = { 0, 0 };	/* len 0: to the end */
		struct cachestat cs;
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			err = fail(files[i], "%s", strerror(errno));
			continue;
		}
		if (syscall(__NR_cachestat, fd, &range, &cs, 0)) {
			int e = errno;

			close(fd);
			if (e == ENOSYS)
				return fail("cachestat(2)", "this kernel has none (6.5+): use fincore(1)");
			err = fail(files[i], "cachestat: %s", strerror(e));
			continue;
		}
		close(fd);
		sr = (struct snap_row){ files[i], cs };
		if (json)
			fields__json(&j, &snap_rec, &sr, &fc);
		else
			fields__text(stdout, &snap_rec, &sr, &fc);
	}
	return run__flush() ? 1 : err;
}


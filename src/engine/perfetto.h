/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay --perfetto FILE: the Chrome trace-event JSON that the Perfetto UI (and
 * chrome://tracing) opens.  Requests overlap, so each is an async slice
 * (ph b/e, its own id) on its disk's track, with its phases nested in it,
 * and again on its submitter's track; tracks are named by M events.  ts is
 * in microseconds from the recording's first request.
 */
#ifndef IODIG_PERFETTO_H
#define IODIG_PERFETTO_H

#include <stdint.h>
#include <stdio.h>
#include "json.h"
#include "records.h"

struct perfetto {
	FILE *f;
	uint64_t t0, id;
	struct json j;
	uint32_t *pids;		/* processes named already */
	size_t npids, cap;
	uint32_t devs[256];
	int ndevs;
};

/* Open path and begin the trace: 0, or -errno. */
int perfetto__open(struct perfetto *pf, const char *path);
/* One request: its slices on its disk's and its submitter's tracks. */
void perfetto__request(struct perfetto *pf, const struct req_printer *pr, const struct life_req *r);
/* End the trace and close it: 0, or -errno when the file could not be written. */
int perfetto__close(struct perfetto *pf);

#endif

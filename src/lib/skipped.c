// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "bpfenv.h"
#include "skipped.h"

int skipped__start(struct skipped *s, uint32_t disk, skipped_seen_fn seen, void *ctx)
{
	char filter[64], *f = NULL;

	*s = (struct skipped){ 0 };
	if ((s->err = bpfenv__tracefs()))
		return s->err;
	/* the tracepoint's dev is the whole disk, in the kernel's encoding
	 * (major << 20 | minor), as iodig keeps it */
	if (disk) {
		snprintf(filter, sizeof(filter), "dev == %u", disk);
		f = filter;
	}
	if ((s->err = tpcount__open(&s->fired, "block", "block_rq_complete", f)))
		return s->err;
	/*
	 * The programs were attached before the counter was opened, so each
	 * hit runs them first and the counter after.  Read the programs first
	 * here and the kernel first at each update: a hit caught between the
	 * two probes is then never counted by the kernel alone.
	 */
	s->ran0 = seen(ctx);
	if ((s->err = tpcount__read(&s->fired, &s->fired0))) {
		tpcount__close(&s->fired);
		return s->err;
	}
	s->on = true;
	return 0;
}

int64_t skipped__update(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	uint64_t fired;

	if (!s->on || tpcount__read(&s->fired, &fired))
		return s->total;
	s->total = (int64_t)(fired - s->fired0) - (int64_t)(seen(ctx) - s->ran0);
	return s->total;
}

int64_t skipped__interval(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	int64_t n = skipped__update(s, seen, ctx) - s->taken;

	s->taken += n;
	return n;
}

void skipped__stop(struct skipped *s, skipped_seen_fn seen, void *ctx)
{
	skipped__update(s, seen, ctx);
	if (s->on)
		tpcount__close(&s->fired);
	s->on = false;
}

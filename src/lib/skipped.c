// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "bpfenv.h"
#include "skipped.h"

int skipped__start(struct skipped *s, uint32_t disk, skipped_seen_fn seen, void *ctx)
{
	char filter[64], *f = NULL;
	int err;

	*s = (struct skipped){ 0 };
	if ((err = bpfenv__tracefs()))
		return err;
	/* the tracepoint's dev is the whole disk, in the kernel's encoding
	 * (major << 20 | minor), as iodig keeps it */
	if (disk) {
		snprintf(filter, sizeof(filter), "dev == %u", disk);
		f = filter;
	}
	if ((err = tpcount__open(&s->fired, "block", "block_rq_complete", f)))
		return err;
	/*
	 * The programs were attached before the counter was opened, so each
	 * hit runs them first and the counter after.  Here the programs' count
	 * is read first: only a hit whose two probes straddle both reads (a
	 * few us apart) can be counted by the kernel alone.  At each update
	 * the kernel's is read first: a hit between the probes then makes
	 * skipped low, never high.
	 */
	s->ran0 = seen(ctx);
	if ((err = tpcount__read(&s->fired, &s->fired0))) {
		tpcount__close(&s->fired);
		return err;
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

/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/diskstats, the kernel's own counts of each block device. */
#ifndef IODIG_DISKSTATS_H
#define IODIG_DISKSTATS_H

/* One line (Documentation/admin-guide/iostats.rst): discards since 4.18,
 * flushes since 5.5, 0 where the kernel has no such fields. */
struct dstat {
	char name[32];
	unsigned major, minor;
	unsigned long long rd, rd_m, rd_sec, rd_t, wr, wr_m, wr_sec, wr_t, inflight, io_t, q_t,
		dc, dc_m, dc_sec, dc_t, fl, fl_t;
	int fields;	/* after the name: 11, 15 with discards, 17 with flushes */
};

/* Up to max lines into d: how many, or -errno. */
int diskstats__read(struct dstat *d, int max);

/* Requests completed: reads, writes, discards and flushes. */
static inline unsigned long long dstat_done(const struct dstat *s)
{
	return s->rd + s->wr + s->dc + s->fl;
}

#endif

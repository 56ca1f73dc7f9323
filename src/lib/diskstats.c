// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include "diskstats.h"

int diskstats__read(struct dstat *d, int max)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct dstat s = {};

		if ((s.fields = sscanf(line, "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu"
			   " %llu %llu %llu %llu %llu %llu", &s.major, &s.minor, s.name, &s.rd, &s.rd_m,
			   &s.rd_sec, &s.rd_t, &s.wr, &s.wr_m, &s.wr_sec, &s.wr_t, &s.inflight, &s.io_t,
			   &s.q_t, &s.dc, &s.dc_m, &s.dc_sec, &s.dc_t, &s.fl, &s.fl_t)) < 14)
			continue;
		s.fields -= 3;
		d[n++] = s;
	}
	fclose(f);
	return n;
}

// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <time.h>
#include "check.h"
#include "disks.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	double t0;

	/* a number no device has: named major:minor */
	CHECK(!strcmp(disks__name(KDEV(4095, 1048575)), "4095:1048575"), "%s", disks__name(KDEV(4095, 1048575)));
	/* ... and not looked for in /sys again on every call (a rescan is
	 * ~150 us: 20000 of them would take seconds) */
	t0 = now_ms();
	for (int i = 0; i < 20000; i++)
		disks__name(0);
	CHECK(now_ms() - t0 < 200, "20000 lookups of an unknown device took %.0f ms", now_ms() - t0);
	CHECK_DONE();
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Every process's /proc/PID/io read_bytes and write_bytes, scanned once an
 * interval and kept from one scan to the next (top shows each process's
 * own count beside the block I/O it submitted). */
#ifndef IODIG_PROCIO_H
#define IODIG_PROCIO_H

#include <stdbool.h>
#include <stdint.h>

struct proc_io {
	uint32_t pid;
	uint64_t read, write;
};

struct procio {
	struct proc_io *now, *last;	/* sorted by pid */
	int nnow, nlast, capnow, caplast;
	struct proc_io *shown;		/* each pid's counts when last shown */
	int nshown, capshown;
};

/* The scan before becomes the last; a new one is read. */
void procio__scan(struct procio *p);
/* pid's bytes read and written since they were last shown (procio__shown),
 * or else since the scan before (from 0 if it began after it): so the
 * deltas shown add up to all it did, also across intervals in which it had
 * no row.  false when it is not in the latest scan. */
bool procio__delta(const struct procio *p, uint32_t pid, int64_t *read, int64_t *write);
/* pid's delta was shown: the next one counts from the latest scan. */
void procio__shown(struct procio *p, uint32_t pid);
void procio__free(struct procio *p);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every process's executable mappings as the kernel reports them when they
 * are made (perf's PERF_RECORD_MMAP2, with the file's build-id since Linux
 * 5.12, 88a16a130933 "perf: Add build id data in mmap2 event"), so that a
 * user address of a process that has exited since can still be named:
 * /proc/PID/maps is gone with it.  Forks copy their parent's table, an exec
 * empties it; an exited process's table is kept UMAPS_KEEP_NS.
 */
#ifndef IODIG_UMAPS_H
#define IODIG_UMAPS_H

#include <stdint.h>
#include <sys/types.h>

#define UMAPS_KEEP_NS (5ULL * 1000000000ULL)	/* names are asked within 1 s */

struct umap {
	uint64_t start, end, pgoff;
	uint8_t build_id[20];
	uint8_t build_id_len;	/* 0: the kernel gave none (then path alone) */
	char *path;
};

struct umaps;

/* Watching starts now; NULL and errno if the kernel refuses (no perf
 * events, or perf_event_paranoid without CAP_PERFMON). */
struct umaps *umaps__new(void);
/* Take what the kernel has reported since the last call.  Cheap when
 * nothing waits; call it often (the kernel drops records a full buffer has
 * no room for, and counts them). */
void umaps__poll(struct umaps *m);
/* pid's executable mappings (n of them), or NULL: none seen. */
const struct umap *umaps__of(struct umaps *m, pid_t pid, int *n);
/* Records the kernel dropped (buffer full): a process may lack mappings. */
uint64_t umaps__lost(const struct umaps *m);
void umaps__free(struct umaps *m);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The record types commands print through field tables (fields.h), for
 * `iodig schema`: each is defined in its command's file. */
#ifndef IODIG_RECS_H
#define IODIG_RECS_H

#include <stdbool.h>
#include "fields.h"

extern const struct rec top_rec, top_end_rec;
#define TOP_MODES 7u	/* by process, cgroup, disk */
extern const struct rec exec_rec, exec_summary_rec, iostat_rec;
extern const struct rec ra_rec, ra_end_rec;
#define RA_MODES 3u	/* by file, process */
extern const struct rec cache_rec, cache_end_rec, snap_rec;
int cache__snapshot(char **files, int nfiles, bool json);	/* cache_snapshot.c */
#define CACHE_MODES 15u	/* by all, process, cgroup, file */
extern const struct rec size_rec, size_end_rec;
extern const struct rec throttle_rec, throttle_end_rec;
extern const struct rec layer_rec;
extern const struct rec bpf_stats_rec;	/* src/lib/costmeter.c */
#include "records.h"	/* request_rec, queue_write_rec, summary_rec */
#define SUMMARY_MODES 3u	/* followed, watched */
extern const struct rec why_call_rec, why_summary_rec;
extern const struct rec probe_rec;
extern const struct rec finding_rec;	/* doctor.c */
extern const struct rec stack_rec, stacks_summary_rec;
#define STACKS_MODES 3u	/* any event, block submission */
#define WHY_CALL_MODES 15u	/* a system call or --call, -K, -U */
#define REQUEST_MODES 3u	/* without, with -K/-U */

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* lat's options, shared by its two front ends: lat.c (device or queue time,
 * one BPF program) and phases.c (lat --phases, the request-life engine). */
#ifndef IODIG_LAT_CMD_H
#define IODIG_LAT_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include "cli.h"
#include "disks.h"
#include "run.h"

struct lat_opts {
	struct cli_common c;
	bool per_disk, per_flags, queued, ms, own_clock, phases;
	const char *disk, *cgroup;
	struct disk_sel sel;	/* -d, resolved */
	struct run_loop loop;
};

/* A histogram's disk label: with a partition asked for, only its I/O is
 * counted, and it is named; else the disk the request went to. */
static inline const char *disk_label(const struct lat_opts *o, uint32_t dev)
{
	return o->sel.part ? o->sel.name : disks__name(dev);
}

struct lat_bpf;
/* Before load, for lat and iostat (lat's object): what this kernel needs
 * read from its BTF (the flush-sequence bit), and the bio-based disks' two
 * programs loaded only when one is in view: disk, or (per_disk) any
 * present.  Returns whether they are. */
bool lat__prepare(struct lat_bpf *sk, uint32_t disk, bool per_disk);

/* lat --phases: histograms per disk and phase.  Returns the exit status. */
int lat__phases(struct lat_opts *o, uint64_t cgid);

#endif

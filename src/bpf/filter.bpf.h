/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The disk, partition and cgroup filters (-d, -c) that lat and the life
 * engine share: set by the user side before load, as read-only data, so
 * the verifier drops what is not asked for.
 */
#ifndef IODIG_FILTER_BPF_H
#define IODIG_FILTER_BPF_H

#include "compat.bpf.h"

const volatile __u32 filter_dev = 0;	/* a whole disk's dev_t, or 0: all */
const volatile __u32 filter_part = 0;	/* a partition of filter_dev, or 0 */
const volatile __u64 filter_cgroup = 0;	/* a cgroup id, or 0: all */

/* A request on the disk (and partition) asked for; disk: its whole disk. */
static __always_inline bool rq_wanted(struct request *rq, __u32 disk)
{
	if (filter_dev && disk != filter_dev)
		return false;
	return !filter_part || rq_part_dev(rq) == filter_part;
}

static __always_inline bool bio_wanted(struct bio *bio)
{
	if (filter_dev && bio_dev(bio) != filter_dev)
		return false;
	return !filter_part || bio_part_dev(bio) == filter_part;
}

/* I/O charged to the cgroup asked for (a bio-less flush is charged to none). */
static __always_inline bool cgroup_wanted(struct bio *bio)
{
	return !filter_cgroup || bio_cgroup_id(bio) == filter_cgroup;
}

#endif

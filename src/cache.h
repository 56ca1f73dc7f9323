/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodig cache: page-cache accesses, additions (misses), dirtied, written
 * back and evicted pages, per row (all, process, cgroup or file).  Shared by
 * src/bpf/cache.bpf.c and src/cmd/cache.c.
 */
#ifndef IODIG_CACHE_H
#define IODIG_CACHE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define CACHE_COMM_LEN	16
#define CACHE_ROWS	16384

enum cache_by {
	CACHE_BY_ALL,
	CACHE_BY_PROCESS,
	CACHE_BY_CGROUP,
	CACHE_BY_FILE,
};

struct cache_key {
	__u64 id;		/* process: tgid; cgroup: its id; file: inode number */
	__u32 dev;		/* file: the file system's device (kernel dev_t) */
	__u32 pad;
	char comm[CACHE_COMM_LEN];	/* process */
};

/* Running totals in pages (a large folio counts its pages), per CPU: the
 * user side sums the CPUs and reports the difference from the last report.
 * accesses may be lowered on another CPU than raised it (see the BPF side):
 * one CPU's value can wrap, the sum is right. */
struct cache_val {
	__u64 accesses;		/* pages read(2)-family calls asked the cache for */
	__u64 added;		/* pages added to the cache: the misses */
	__u64 dirtied;
	__u64 written;		/* written back by the flusher or sync(2) (not by fsync) */
	__u64 evicted;		/* removed: reclaim, truncation, invalidation */
	__u64 faults;		/* page faults on file mappings (mmap) */
};

struct cache_stats {
	__u64 map_full;		/* events whose row found no room */
};

/* A file's name as its dentries said when its row was made (--by file):
 * the components from the file up to its file system's root, innermost
 * first, each cut at CACHE_NAME_LEN - 1 bytes; the user side joins them
 * under the file system's mount point.  So a file closed or deleted since
 * keeps the name it had, as filetop and cachetop show it. */
#define CACHE_NAME_DEPTH	12
#define CACHE_NAME_LEN		64

struct cache_name {
	char comp[CACHE_NAME_DEPTH][CACHE_NAME_LEN];
	__u32 depth;		/* components filled */
	__u32 cut;		/* more components above the last (too deep) */
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Resolve what users filter on (cgroup path, pid) to what BPF compares. */
#ifndef IODIG_FILTER_H
#define IODIG_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* A cgroup directory (v2, or the v1 blkio hierarchy) to its id.
 * Returns 0, or the exit status after printing why. */
int filter__cgroup(const char *path, uint64_t *id);
/* A cgroup v2 group for filtering tasks (bpf_get_current_cgroup_id()), any
 * controllers; *bios is set when bios carry its id too (io enabled). */
int filter__task_cgroup(const char *path, uint64_t *id, bool *bios);
/* A pid that must exist. Returns 0, or the exit status after printing why. */
int filter__pid(const char *arg, uint32_t *pid);
/* -p parsed as a number elsewhere: 0 (none) or a live process, else the
 * error line (exit 1) */
int filter__pid_alive(unsigned long long pid);
struct disk_sel;
/* -d DISK: a disk, or a partition (then only its I/O).  Returns 0 or the
 * exit status. */
int filter__disk(const char *arg, struct disk_sel *sel);
/* -p, -d and -c as size, stacks and top take them (each may be unset: 0,
 * NULL): the checks above in that order.  Returns 0 or the exit status. */
int filter__io(unsigned long long pid, const char *disk, struct disk_sel *sel,
	       const char *cgroup, uint64_t *cgid);

#endif

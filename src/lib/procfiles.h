/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file's path from its (device, inode), as lsof finds it: among the files
 * processes hold open or mapped now (/proc/PID/fd, /proc/PID/map_files).
 * The kernel side of iodig keeps no names; a file nobody holds stays unnamed.
 */
#ifndef IODIG_PROCFILES_H
#define IODIG_PROCFILES_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

struct procfile {
	uint32_t dev;		/* the kernel's dev_t (major << 20 | minor) */
	uint64_t ino;
	char *path;		/* set (malloc'd) when found; left as it is otherwise */
	bool looked;		/* a path was looked for (not looked for again) */
};

/* Where the file system on dev (the kernel's dev_t) is mounted, as
 * /proc/self/mountinfo says (a mount of its root preferred); 0, or -1 when
 * it is mounted nowhere this process can see. */
int procfiles__mount_point(uint32_t dev, char *buf, size_t len);
/* path = the mount point of dev, then comps[depth-1] / ... / comps[0] (the
 * names a file's dentries had, innermost first; "..." where cut short).
 * Returns a malloc'd string, or NULL when dev is mounted nowhere. */
char *procfiles__join(uint32_t dev, const char *const *comps, int depth, bool cut);

/* fn(ctx, pid, dfd, name) for each entry (not . or ..) of each process's
 * /proc/PID/DIR, for each DIR of dirs (fd, map_files), dfd that directory
 * open; fn returns what to do next. */
enum { PROCFILES_NEXT, PROCFILES_NEXT_PROC, PROCFILES_STOP };
typedef int (*procfiles_fn)(void *ctx, unsigned pid, int dfd, const char *name);
void procfiles__walk(const char *const *dirs, int ndirs, procfiles_fn fn, void *ctx);
/* The value of key ("flags", "prog_type") in /proc/PID/fdinfo/FD (pid 0:
 * this process's), without the key, its colon and blanks; false if the fd
 * or the key is not there. */
bool procfiles__fdinfo(unsigned pid, const char *fd, const char *key, char *val, size_t len);

/* One walk of /proc for every entry whose path is NULL. */
void procfiles__name(struct procfile *f, size_t n);
/* The same for rows[0..n), each `stride` bytes with a struct procfile at
 * `off`: those not looked for yet are, once (a file nobody holds now stays
 * unnamed, as "dev:ino"). */
void procfiles__name_rows(void *rows, size_t n, size_t stride, size_t off);

#endif

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "cli.h"
#include "disks.h"
#include "filter.h"
#include "log.h"

#define CGROUP2_SUPER_MAGIC 0x63677270
#define CGROUP_SUPER_MAGIC 0x27e0eb

static bool has_file(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

int filter__cgroup(const char *path, uint64_t *id)
{
	struct statfs sf;
	struct stat st;

	if (statfs(path, &sf) || stat(path, &st))
		return fail("cgroup", "%s: %s", path, strerror(errno));
	/* bio->bi_blkg points into whichever hierarchy holds the io controller:
	 * v2 where io is enabled for this group (it then has io.stat), or v1
	 * blkio (blkio.reset_stats).  Anywhere else no bio ever carries the
	 * group's id and the filter would silently show nothing. */
	if ((sf.f_type != CGROUP2_SUPER_MAGIC && sf.f_type != CGROUP_SUPER_MAGIC) || !S_ISDIR(st.st_mode))
		return fail("cgroup", "%s is not a cgroup directory (v2, or v1 blkio)", path);
	if (sf.f_type == CGROUP_SUPER_MAGIC && !has_file(path, "blkio.reset_stats"))
		return fail("cgroup", "%s is in a cgroup v1 hierarchy without the blkio controller: "
			    "I/O is charged in the blkio hierarchy (e.g. /sys/fs/cgroup/blkio/...)", path);
	if (sf.f_type == CGROUP2_SUPER_MAGIC && !has_file(path, "io.stat"))
		return fail("cgroup", "%s: the io controller is not enabled for this cgroup v2 group "
			    "(no io.stat): enable it in the parent (echo +io > cgroup.subtree_control), "
			    "or use the v1 blkio hierarchy if io is bound there", path);
	*id = st.st_ino;	/* kernfs: the inode number is the cgroup id */
	return 0;
}

int filter__task_cgroup(const char *path, uint64_t *id, bool *bios)
{
	struct statfs sf;
	struct stat st;

	if (statfs(path, &sf) || stat(path, &st))
		return fail("cgroup", "%s: %s", path, strerror(errno));
	/* a task's cgroup id is its group in the v2 hierarchy, whatever the
	 * controllers: a v1 group never matches */
	if (sf.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode))
		return fail("cgroup", "%s is not a cgroup v2 directory (tasks are matched by their v2 group)",
			    path);
	*bios = has_file(path, "io.stat");
	*id = st.st_ino;
	return 0;
}

int filter__pid(const char *arg, uint32_t *pid)
{
	unsigned long long v;
	int err;

	if (!cli__uint(arg, 1, 0x7fffffff, &v))
		return usage_error("invalid pid '%s'", arg);
	if ((err = filter__pid_alive(v)))
		return err;
	*pid = (uint32_t)v;
	return 0;
}

int filter__pid_alive(unsigned long long pid)
{
	if (pid && kill((pid_t)pid, 0) && errno == ESRCH)
		return fail("pid", "%llu: no such process", pid);
	return 0;
}

int filter__disk(const char *arg, struct disk_sel *sel)
{
	if (disks__resolve(arg, sel))
		return fail("disk", "'%s': no such block device (see /proc/partitions)", arg);
	return 0;
}

int filter__io(unsigned long long pid, const char *disk, struct disk_sel *sel,
	       const char *cgroup, uint64_t *cgid)
{
	int err;

	if ((err = filter__pid_alive(pid)))
		return err;
	if (disk && (err = filter__disk(disk, sel)))
		return err;
	if (cgroup && (err = filter__cgroup(cgroup, cgid)))
		return err;
	return 0;
}

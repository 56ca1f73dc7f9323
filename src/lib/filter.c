// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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

int filter__cgroup(const char *path, uint64_t *id)
{
	struct statfs sf;
	struct stat st;

	if (statfs(path, &sf) || stat(path, &st))
		return fail("cgroup", "%s: %s", path, strerror(errno));
	/* v2, or the v1 blkio hierarchy where that is where blkio lives:
	 * bio->bi_blkg points into whichever hierarchy holds the io controller. */
	if ((sf.f_type != CGROUP2_SUPER_MAGIC && sf.f_type != CGROUP_SUPER_MAGIC) || !S_ISDIR(st.st_mode))
		return fail("cgroup", "%s is not a cgroup directory (v2, or v1 blkio)", path);
	*id = st.st_ino;	/* kernfs: the inode number is the cgroup id */
	return 0;
}

int filter__pid(const char *arg, uint32_t *pid)
{
	unsigned long long v;

	if (!cli__uint(arg, 1, 0x7fffffff, &v))
		return usage_error("invalid pid '%s'", arg);
	if (kill((pid_t)v, 0) && errno == ESRCH)
		return fail("pid", "%llu: no such process", v);
	*pid = (uint32_t)v;
	return 0;
}

int filter__disk(const char *arg, uint32_t *dev)
{
	char name[32];

	if (disks__resolve(arg, dev, name, sizeof(name)))
		return fail("disk", "'%s': no such block device (see /proc/partitions)", arg);
	return 0;
}

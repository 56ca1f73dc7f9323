// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "disks.h"

#define MAX_DISKS 1024

static struct disk disks[MAX_DISKS];
static int nr_disks;
static bool loaded;

static int read_dev(const char *dir, const char *name, uint32_t *dev)
{
	char path[PATH_MAX];
	unsigned int ma, mi;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/%s/dev", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", &ma, &mi);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*dev = KDEV(ma, mi);
	return 0;
}

int disks__load(void)
{
	const char *dir = "/sys/class/block";
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	nr_disks = 0;
	while ((de = readdir(d)) && nr_disks < MAX_DISKS) {
		struct disk *k = &disks[nr_disks];
		char path[PATH_MAX], real[PATH_MAX], *slash;

		if (de->d_name[0] == '.')
			continue;
		if (read_dev(dir, de->d_name, &k->dev))
			continue;
		snprintf(k->name, sizeof(k->name), "%.31s", de->d_name);
		k->disk_dev = k->dev;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
		if (access(path, F_OK) == 0) {
			/* .../block/sda/sda1: the parent directory is the disk */
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (realpath(path, real) && (slash = strrchr(real, '/'))) {
				*slash = '\0';
				read_dev("", real, &k->disk_dev);
			}
		}
		nr_disks++;
	}
	closedir(d);
	loaded = true;
	return 0;
}

static struct disk *find_dev(uint32_t dev)
{
	for (int i = 0; i < nr_disks; i++)
		if (disks[i].dev == dev)
			return &disks[i];
	return NULL;
}

const char *disks__name(uint32_t dev)
{
	static char buf[4][24];
	static int next;
	struct disk *k;

	if (!loaded)
		disks__load();
	k = find_dev(dev);
	if (!k) {	/* a device that appeared since: look again once */
		disks__load();
		k = find_dev(dev);
	}
	if (k)
		return k->name;
	next = (next + 1) % 4;
	snprintf(buf[next], sizeof(buf[next]), "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf[next];
}

int disks__resolve(const char *arg, uint32_t *disk_dev, char *name, int name_len)
{
	const char *base = arg;
	struct disk *k = NULL, *whole;
	struct stat st;

	if (!loaded)
		disks__load();
	if (strchr(arg, '/')) {
		if (stat(arg, &st) || !S_ISBLK(st.st_mode))
			return -ENOENT;
		k = find_dev(KDEV(major(st.st_rdev), minor(st.st_rdev)));
	} else {
		for (int i = 0; i < nr_disks && !k; i++)
			if (!strcmp(disks[i].name, base))
				k = &disks[i];
	}
	if (!k)
		return -ENOENT;
	whole = find_dev(k->disk_dev);
	*disk_dev = k->disk_dev;
	snprintf(name, name_len, "%s", whole ? whole->name : k->name);
	return 0;
}

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
#include <time.h>
#include <unistd.h>
#include <unistd.h>
#include "disks.h"

#define MAX_DISKS 1024

static struct disk disks[MAX_DISKS];
static int nr_disks;
static bool loaded;
static bool frozen;	/* a recording's table: /sys is another machine's */

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
	if (frozen)
		return 0;
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

void disks__widths(int *name_w, int *sector_w)
{
	struct dirent *de;
	DIR *d = opendir("/sys/block");

	while (d && (de = readdir(d))) {
		char path[PATH_MAX], num[32];
		unsigned long long size = 0;
		FILE *f;
		int n;

		if (de->d_name[0] == '.')
			continue;
		if ((int)strlen(de->d_name) > *name_w)
			*name_w = strlen(de->d_name);
		snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%llu", &size) != 1)
				size = 0;
			fclose(f);
		}
		n = snprintf(num, sizeof(num), "%llu", size);
		if (n > *sector_w)
			*sector_w = n;
	}
	if (d)
		closedir(d);
}

#define MAX_MISSING 64
/* Numbers looked for and not found, and when: looked for again after a
 * second, in case a device took the number since. */
static struct { uint32_t dev; time_t when; } missing[MAX_MISSING];
static unsigned int nr_missing;

bool disks__request_based(uint32_t dev)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/mq", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return access(path, F_OK) == 0;
}

bool disks__bio_based(uint32_t dev)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (stat(path, &st))
		return false;
	if (disks__request_based(dev))
		return false;
	/* one with no size yet (an unset zram) does no I/O: nothing to attach for */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	{
		FILE *f = fopen(path, "r");
		unsigned long long size = 0;

		if (f) {
			if (fscanf(f, "%llu", &size) != 1)
				size = 0;
			fclose(f);
		}
		return size > 0;
	}
}

bool disks__any_bio_based(void)
{
	if (disks__load())
		return false;
	for (int i = 0; i < nr_disks; i++)
		if (disks[i].dev == disks[i].disk_dev && disks__bio_based(disks[i].dev))
			return true;
	return false;
}

int disks__stacked(void (*fn)(uint32_t upper, uint32_t lower, void *ctx), void *ctx)
{
	int n = 0;

	if (disks__load())
		return 0;
	for (int i = 0; i < nr_disks; i++) {
		char path[96];
		struct dirent *de;
		DIR *d;

		if (disks[i].dev != disks[i].disk_dev)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%.32s/slaves", disks[i].name);
		if (!(d = opendir(path)))
			continue;
		while ((de = readdir(d))) {
			struct disk_sel sel;

			if (de->d_name[0] == '.' || disks__resolve(de->d_name, &sel))
				continue;
			fn(disks[i].dev, sel.disk, ctx);
			n++;
		}
		closedir(d);
	}
	return n;
}

static bool known_missing(uint32_t dev)
{
	time_t now = time(NULL);

	for (unsigned int i = 0; i < nr_missing && i < MAX_MISSING; i++)
		if (missing[i].dev == dev && now - missing[i].when < 1)
			return true;
	return false;
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
	if (!k && !known_missing(dev)) {
		/* a device that appeared since: look again, once per number
		 * (a rescan is ~150 us; dev 0 of a flush came every request) */
		disks__load();
		k = find_dev(dev);
		if (!k) {
			unsigned int i = nr_missing++ % MAX_MISSING;

			missing[i].dev = dev;
			missing[i].when = time(NULL);
		}
	}
	if (k)
		return k->name;
	next = (next + 1) % 4;
	snprintf(buf[next], sizeof(buf[next]), "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf[next];
}

int disks__resolve(const char *arg, struct disk_sel *sel)
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
	sel->disk = k->disk_dev;
	sel->part = k->dev != k->disk_dev ? k->dev : 0;
	snprintf(sel->name, sizeof(sel->name), "%s", k->name);
	snprintf(sel->disk_name, sizeof(sel->disk_name), "%s", whole ? whole->name : k->name);
	return 0;
}

char *disks__to_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (!loaded)
		disks__load();
	for (int i = 0; i < nr_disks; i++)
		fprintf(f, "%u %u %s\n", disks[i].dev, disks[i].disk_dev, disks[i].name);
	fclose(f);
	return buf;
}

int disks__from_text(const char *text, size_t len)
{
	char *copy = strndup(text, len), *save = NULL;

	if (!copy)
		return -ENOMEM;
	nr_disks = 0;
	for (char *l = strtok_r(copy, "\n", &save); l && nr_disks < MAX_DISKS; l = strtok_r(NULL, "\n", &save)) {
		struct disk *k = &disks[nr_disks];

		if (sscanf(l, "%u %u %31s", &k->dev, &k->disk_dev, k->name) == 3)
			nr_disks++;
	}
	free(copy);
	loaded = frozen = true;
	return 0;
}

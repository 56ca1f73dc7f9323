// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "procfiles.h"

int procfiles__mount_point(uint32_t dev, char *buf, size_t len)
{
	char line[8192], root[4096], mp[4096];
	unsigned maj, min;
	int found = -1;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return -1;
	/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw" */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &maj, &min, root, mp) != 4)
			continue;
		if (maj != dev >> 20 || min != (dev & 0xfffff))
			continue;
		if (found < 0 || !strcmp(root, "/")) {
			snprintf(buf, len, "%s", mp);
			found = 0;
			if (!strcmp(root, "/"))
				break;
		}
	}
	fclose(f);
	return found;
}

char *procfiles__join(uint32_t dev, const char *const *comps, int depth, bool cut)
{
	char mp[4096], path[8192];
	size_t at;

	if (procfiles__mount_point(dev, mp, sizeof(mp)))
		return NULL;
	at = snprintf(path, sizeof(path), "%s", strcmp(mp, "/") ? mp : "");
	if (cut && at < sizeof(path))
		at += snprintf(path + at, sizeof(path) - at, "/...");
	for (int i = depth - 1; i >= 0 && at < sizeof(path); i--)
		at += snprintf(path + at, sizeof(path) - at, "/%s", comps[i]);
	return strdup(path);
}

void procfiles__name(struct procfile *f, size_t n)
{
	static const char *const dirs[] = { "fd", "map_files" };
	size_t want = 0;
	struct dirent *p;
	DIR *proc;

	for (size_t i = 0; i < n; i++)
		want += !f[i].path;
	if (!want || !(proc = opendir("/proc")))
		return;
	while (want && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		for (int d = 0; d < 2 && want; d++) {
			char dir[300], link[600], path[4096];
			struct dirent *e;
			DIR *fds;

			snprintf(dir, sizeof(dir), "/proc/%s/%s", p->d_name, dirs[d]);
			if (!(fds = opendir(dir)))
				continue;
			while (want && (e = readdir(fds))) {
				struct stat st;
				ssize_t len;

				if (e->d_name[0] == '.' || fstatat(dirfd(fds), e->d_name, &st, 0))
					continue;
				for (size_t i = 0; i < n; i++) {
					if (f[i].path || st.st_ino != f[i].ino ||
					    st.st_dev != makedev(f[i].dev >> 20, f[i].dev & 0xfffff))
						continue;
					snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
					len = readlink(link, path, sizeof(path) - 1);
					if (len > 0) {
						path[len] = '\0';
						f[i].path = strdup(path);
						want--;
					}
				}
			}
			closedir(fds);
		}
	}
	closedir(proc);
}

void procfiles__name_rows(void *rows, size_t n, size_t stride, size_t off)
{
	struct procfile **want = calloc(n ? n : 1, sizeof(*want)), *f = calloc(n ? n : 1, sizeof(*f));
	size_t k = 0;

	for (size_t i = 0; want && f && i < n; i++) {
		struct procfile *pf = (void *)((char *)rows + i * stride + off);

		if (!pf->looked) {
			want[k] = pf;
			f[k++] = (struct procfile){ pf->dev, pf->ino, NULL, false };
		}
	}
	procfiles__name(f, k);
	for (size_t i = 0; i < k; i++) {
		want[i]->path = f[i].path;
		want[i]->looked = true;
	}
	free(want);
	free(f);
}

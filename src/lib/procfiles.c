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

void procfiles__walk(const char *const *dirs, int ndirs, procfiles_fn fn, void *ctx)
{
	struct dirent *p;
	DIR *proc = opendir("/proc");
	int r = PROCFILES_NEXT;

	if (!proc)
		return;
	while (r != PROCFILES_STOP && (p = readdir(proc))) {
		char *end;
		unsigned pid = strtoul(p->d_name, &end, 10);

		if (*end || !pid)
			continue;
		r = PROCFILES_NEXT;
		for (int d = 0; d < ndirs && r == PROCFILES_NEXT; d++) {
			char dir[300];
			struct dirent *e;
			DIR *fds;

			snprintf(dir, sizeof(dir), "/proc/%u/%s", pid, dirs[d]);
			if (!(fds = opendir(dir)))
				continue;
			while (r == PROCFILES_NEXT && (e = readdir(fds)))
				if (e->d_name[0] != '.')
					r = fn(ctx, pid, dirfd(fds), e->d_name);
			closedir(fds);
		}
	}
	closedir(proc);
}

bool procfiles__fdinfo(unsigned pid, const char *fd, const char *key, char *val, size_t len)
{
	char path[300], line[256];
	size_t kl = strlen(key);
	bool found = false;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/fdinfo/%s", pid, fd);
	else
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", fd);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *v = line + kl;

		if (strncmp(line, key, kl) || *v != ':')
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		snprintf(val, len, "%.*s", (int)strcspn(v, "\n"), v);
		found = true;
	}
	fclose(f);
	return found;
}

struct name_walk {
	struct procfile *f;
	size_t n, want;
};

static int name_one(void *ctx, unsigned pid, int dfd, const char *name)
{
	struct name_walk *w = ctx;
	char path[4096];
	struct stat st;
	ssize_t len;

	if (fstatat(dfd, name, &st, 0))
		return PROCFILES_NEXT;
	for (size_t i = 0; i < w->n; i++) {
		struct procfile *f = &w->f[i];

		if (f->path || st.st_ino != f->ino || st.st_dev != makedev(f->dev >> 20, f->dev & 0xfffff))
			continue;
		len = readlinkat(dfd, name, path, sizeof(path) - 1);
		if (len > 0) {
			path[len] = '\0';
			f->path = strdup(path);
			w->want--;
		}
	}
	return w->want ? PROCFILES_NEXT : PROCFILES_STOP;
}

void procfiles__name(struct procfile *f, size_t n)
{
	static const char *const dirs[] = { "fd", "map_files" };
	struct name_walk w = { f, n, 0 };

	for (size_t i = 0; i < n; i++)
		w.want += !f[i].path;
	if (w.want)
		procfiles__walk(dirs, 2, name_one, &w);
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

// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attach.h"
#include "bpfx.h"
#include "log.h"

const char *attach__mode_name(enum attach_mode m)
{
	static const char *n[] = { "auto", "fentry", "kprobe", "kprobe-multi", "uprobe" };

	return n[m];
}

/* A feature probe loads only the program(s) it tries (b may be NULL). */
/* ---- resolving names ---- */

static FILE *open_func_list(const char **src)
{
	static const char *paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	FILE *f;

	bpfx__tracefs();	/* else /proc/kallsyms, below */
	for (unsigned int i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if ((f = fopen(paths[i], "r"))) {
			*src = "available_filter_functions";
			return f;
		}
	*src = "/proc/kallsyms";
	return fopen("/proc/kallsyms", "r");
}

/* One symbol name from a line of either file, or NULL. */
static char *line_name(char *line, bool kallsyms)
{
	char *name = line, *sp;

	if (kallsyms) {		/* "ffffffff81234567 T name [module]" */
		char type;

		if (sscanf(line, "%*s %c", &type) != 1 || (type != 't' && type != 'T'))
			return NULL;
		name = strchr(line, ' ');
		name = name ? strchr(name + 1, ' ') : NULL;
		if (!name)
			return NULL;
		name++;
	}
	sp = strpbrk(name, " \t\n");
	if (sp)
		*sp = '\0';
	return *name ? name : NULL;
}

static bool in_kallsyms(const char *fn)
{
	char line[512], *n;
	FILE *f = fopen("/proc/kallsyms", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = (n = line_name(line, true)) && !strcmp(n, fn);
	fclose(f);
	return found;
}

int attach__resolve_kernel(char **patterns, int n, char ***names, int *count)
{
	const char *src;
	FILE *f = open_func_list(&src);
	bool kallsyms = !strcmp(src, "/proc/kallsyms");
	char line[512], *name, **out = NULL;
	int nout = 0, cap = 0, *hits = calloc(n, sizeof(int));

	if (!f || !hits)
		return fail("listing kernel functions", "%s: %s", src, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!(name = line_name(line, kallsyms)))
			continue;
		for (int i = 0; i < n; i++) {
			if (fnmatch(patterns[i], name, 0))
				continue;
			hits[i]++;
			/* the same name can be listed twice (static functions) */
			bool dup = false;
			for (int k = nout - 1; k >= 0 && k >= nout - 4 && !dup; k--)
				dup = !strcmp(out[k], name);
			if (dup)
				break;
			if (nout == cap) {
				cap = cap ? 2 * cap : 64;
				out = realloc(out, cap * sizeof(*out));
			}
			out[nout++] = strdup(name);
			break;
		}
	}
	fclose(f);
	for (int i = 0; i < n; i++) {
		if (hits[i])
			continue;
		free(hits);
		attach__free_names(out, nout);
		if (!kallsyms && !strpbrk(patterns[i], "*?[") && in_kallsyms(patterns[i]))
			return fail("function", "'%s' exists but cannot be traced (not in "
				    "available_filter_functions: notrace, inlined or blacklisted)", patterns[i]);
		return fail("function", "'%s': no such kernel function (searched %s)", patterns[i], src);
	}
	free(hits);
	*names = out;
	*count = nout;
	return 0;
}

void attach__free_names(char **names, int count)
{
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

static bool is_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	bool ok = f && fread(m, 1, 4, f) == 4 && !memcmp(m, "\x7f" "ELF", 4);

	if (f)
		fclose(f);
	return ok;
}

/* base is want, or want followed by ".so..." or "-2.31.so": "libc" is
 * libc.so.6 or libc-2.31.so, never libcrypto.so.3. */
static bool name_matches(const char *base, const char *want)
{
	size_t n = strlen(want);

	if (strncmp(base, want, n))
		return false;
	return !base[n] || base[n] == '.' ||
	       (base[n] == '-' && base[n + 1] >= '0' && base[n + 1] <= '9');
}

/* ... and "c" is libc too, as in bcc. */
static bool lib_matches(const char *base, const char *want)
{
	return name_matches(base, want) ||
	       (strncmp(want, "lib", 3) && !strncmp(base, "lib", 3) && name_matches(base + 3, want));
}

/* A program in PATH by its exact name, else a library by lib_matches() in
 * the directories the dynamic loader searches on Debian. */
static int find_binary(const char *bin, char *path, size_t plen)
{
	static const char *const libdirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/usr/local/lib", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	const char *env = getenv("PATH");
	char dirs[4096], *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s", env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, plen, "%s/%s", d, bin);
		if (!access(path, X_OK) && is_elf(path))
			return 0;
	}
	for (size_t i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		DIR *dir = opendir(libdirs[i]);
		struct dirent *de;
		bool found = false;

		if (!dir)
			continue;
		while (!found && (de = readdir(dir))) {
			if (!strstr(de->d_name, ".so") || !lib_matches(de->d_name, bin))
				continue;
			snprintf(path, plen, "%s/%s", libdirs[i], de->d_name);
			found = is_elf(path);
		}
		closedir(dir);
		if (found)
			return 0;
	}
	return -ENOENT;
}

int attach__resolve_user(const char *spec, uint32_t pid, char *path, size_t plen,
			 char *sym, size_t slen)
{
	const char *colon = strrchr(spec, ':');
	char bin[512];

	if (!colon || colon == spec || !colon[1])
		return usage_error("'%s': a user function is BINARY:SYMBOL", spec);
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - spec), spec);
	snprintf(sym, slen, "%s", colon + 1);
	if (strchr(bin, '/')) {
		if (access(bin, R_OK))
			return fail("binary", "%s: %s", bin, strerror(errno));
		if (!is_elf(bin))
			return fail("binary", "%s: not an ELF file (an executable or a shared library)", bin);
		snprintf(path, plen, "%s", bin);
		return 0;
	}
	if (pid) {	/* a library of that process: find it in its maps */
		char maps[64], line[1024];
		FILE *f;

		snprintf(maps, sizeof(maps), "/proc/%u/maps", pid);
		if (!(f = fopen(maps, "r")))
			return fail("pid", "%u: %s", pid, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			char *p = strchr(line, '/'), *base;

			if (!p)
				continue;
			p[strcspn(p, "\n")] = '\0';
			base = strrchr(p, '/') + 1;
			if (lib_matches(base, bin)) {
				snprintf(path, plen, "%s", p);
				fclose(f);
				return 0;
			}
		}
		fclose(f);
		return fail("binary", "'%s' is not mapped in process %u", bin, pid);
	}
	if (find_binary(bin, path, plen))
		return fail("binary", "'%s': no such program in PATH, nor library in the "
			    "system library directories (give a path)", bin);
	return 0;
}

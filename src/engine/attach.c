// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "attach.h"
#include "bpfenv.h"
#include "log.h"
#include "run.h"
#include <bpf/libbpf.h>

const char *attach__mode_name(enum attach_mode m)
{
	static const char *n[] = { "auto", "fentry", "kprobe", "kprobe-multi", "uprobe" };

	return n[m];
}

/* ---- resolving names ---- */

static FILE *open_func_list(const char **src)
{
	static const char *paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	FILE *f;

	bpfenv__tracefs();	/* else /proc/kallsyms, below */
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
		if (!faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) && is_elf(path))
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
		if (faccessat(AT_FDCWD, bin, R_OK, AT_EACCESS))
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

/* ---- attaching ---- */

static int keep(struct attacher *a, struct bpf_link *l, const char *what, const char *name)
{
	if (!l) {
		char w[200];

		snprintf(w, sizeof(w), "%s (%s)", what, name);
		return bpfenv__fail(w, -errno);
	}
	if (a->nlinks == a->cap) {
		int cap = a->cap ? 2 * a->cap : 8;
		struct bpf_link **n = realloc(a->links, cap * sizeof(*n));

		if (!n) {
			bpf_link__destroy(l);
			return fail(what, "out of memory");
		}
		a->links = n;
		a->cap = cap;
	}
	a->links[a->nlinks++] = l;
	return 0;
}

int attacher__choose(struct attacher *a, enum attach_mode m, int n, bool user)
{
	const struct features *f;

	if (user) {	/* no probing: attaching says what is wrong, as well */
		a->mode = ATTACH_UPROBE;
		return 0;
	}
	f = features__get();
	if (m == ATTACH_FENTRY && !f->fentry)
		return fail("fentry", "not available on this kernel: %s", f->why_fentry);
	if (m == ATTACH_KPROBE && !f->kprobe)
		return fail("kprobe", "not available on this kernel: %s", f->why_kprobe);
	if (m == ATTACH_KPROBE_MULTI && !f->kprobe_multi)
		return fail("kprobe-multi", "not available on this kernel: %s", f->why_kprobe_multi);
	if (m == ATTACH_FENTRY && n > 1)
		return fail("fentry", "%d functions match: fentry attaches one function per program; "
			    "give one, or use --mode kprobe", n);
	if (m == ATTACH_AUTO) {
		if (n == 1 && f->fentry)
			m = ATTACH_FENTRY;
		else if (n > 1 && f->kprobe_multi)
			m = ATTACH_KPROBE_MULTI;
		else if (f->kprobe)
			m = ATTACH_KPROBE;
		else if (f->fentry)
			return fail("functions", "%d match, and without kprobes only one function can be "
				    "traced (fentry); kprobe: %s", n, f->why_kprobe);
		else
			return fail("tracing kernel functions", "this kernel has neither kprobes (%s) nor "
				    "fentry (%s); block I/O commands (lat, slow, snoop) work from tracepoints",
				    f->why_kprobe, f->why_fentry);
	}
	a->mode = m;
	return 0;
}

void attacher__select(const struct attacher *a, struct bpf_object *obj,
		      const struct attach_progs *p, const char *fentry_target)
{
	struct bpf_program *en = p->entry[a->mode], *ex = p->exit[a->mode], *prog;

	bpf_object__for_each_program(prog, obj) {
		bool mine = prog == en || prog == ex;

		/* programs of other modes are left out; anything else is the command's */
		for (int m = 0; m < ATTACH_NMODES; m++)
			if (prog == p->entry[m] || prog == p->exit[m]) {
				bpf_program__set_autoload(prog, mine);
				bpf_program__set_autoattach(prog, false);
			}
	}
	if (a->mode == ATTACH_FENTRY && fentry_target) {
		bpf_program__set_attach_target(en, 0, fentry_target);
		bpf_program__set_attach_target(ex, 0, fentry_target);
	}
}

int attacher__kernel(struct attacher *a, const struct attach_progs *p, char **names, int n)
{
	struct bpf_program *en = p->entry[a->mode], *ex = p->exit[a->mode];
	unsigned long long t0 = run__mono_ns();
	int err = 0;

	/* ex is NULL for a command that counts at entry only (stacks) */
	if (a->mode == ATTACH_FENTRY) {
		if (!(err = keep(a, bpf_program__attach(en), "attaching fentry", names[0])) && ex)
			err = keep(a, bpf_program__attach(ex), "attaching fexit", names[0]);
	} else if (a->mode == ATTACH_KPROBE_MULTI) {
		__u64 *cookies = calloc(n, sizeof(*cookies));
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = (const char **)names, .cnt = n,
			    .cookies = cookies);

		if (!cookies)
			return fail("attaching kprobe-multi", "out of memory");
		for (int i = 0; i < n; i++)
			cookies[i] = i;
		err = keep(a, bpf_program__attach_kprobe_multi_opts(en, NULL, &o),
			   "attaching kprobe-multi", "entries");
		o.retprobe = true;
		if (!err && ex)
			err = keep(a, bpf_program__attach_kprobe_multi_opts(ex, NULL, &o),
				   "attaching kretprobe-multi", "returns");
		free(cookies);
	} else {
		for (int i = 0; i < n && !err; i++) {
			LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = i);

			err = keep(a, bpf_program__attach_kprobe_opts(en, names[i], &o),
				   "attaching kprobe", names[i]);
			o.retprobe = true;
			if (!err && ex)
				err = keep(a, bpf_program__attach_kprobe_opts(ex, names[i], &o),
					   "attaching kretprobe", names[i]);
		}
	}
	a->ms += (run__mono_ns() - t0) / 1e6;
	return err;
}

int attacher__user(struct attacher *a, const struct attach_progs *p, const char *spec,
		   uint32_t pid, uint64_t cookie)
{
	unsigned long long t0 = run__mono_ns();
	char path[512], sym[256];
	int err = attach__resolve_user(spec, pid, path, sizeof(path), sym, sizeof(sym));
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = sym, .bpf_cookie = cookie);
	struct bpf_link *l;

	if (err)
		return err;
	l = bpf_program__attach_uprobe_opts(p->entry[ATTACH_UPROBE], pid ? (int)pid : -1, path, 0, &o);
	if (!l && errno == ENOENT)
		return fail("function", "'%s': no such symbol in %s", sym, path);
	if (!l)
		return fail("function", "'%s' in %s: cannot attach a uprobe: %s", sym, path,
			    (errno == EACCES || errno == EPERM) && !bpfenv__has_cap(21) ?
			    "uprobes need CAP_SYS_ADMIN (run iodig as root, or grant it)" : strerror(errno));
	if ((err = keep(a, l, "attaching uprobe", sym)))
		return err;
	o.retprobe = true;
	l = bpf_program__attach_uprobe_opts(p->exit[ATTACH_UPROBE], pid ? (int)pid : -1, path, 0, &o);
	if (!l)
		return fail("function", "'%s' in %s: cannot attach a uretprobe: %s", sym, path, strerror(errno));
	err = keep(a, l, "attaching uretprobe", sym);
	a->ms += (run__mono_ns() - t0) / 1e6;
	return err;
}

int attacher__program(struct attacher *a, struct bpf_program *prog, const char *what)
{
	const struct features *f = features__get();
	enum bpf_attach_type t = bpf_program__expected_attach_type(prog);

	if (bpf_program__type(prog) == BPF_PROG_TYPE_TRACING && t == BPF_TRACE_RAW_TP && !f->tp_btf)
		return fail(what, "this kernel cannot attach BTF tracepoints (tp_btf): it needs BTF "
			    "(CONFIG_DEBUG_INFO_BTF) and kernel 5.5 or later");
	return keep(a, bpf_program__attach(prog), what, bpf_program__name(prog));
}

/* ---- detaching ---- */

struct detach_work {
	struct bpf_link **links;
	int n, next;
};

static void *detach_some(void *arg)
{
	struct detach_work *w = arg;
	int i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n)
		bpf_link__destroy(w->links[i]);
	return NULL;
}

/*
 * A link on a perf event (a syscall tracepoint, a kprobe, a uprobe) waits
 * for grace periods as it goes, twice: perf_event_detach_bpf_prog()
 * (kernel/trace/bpf_trace.c) calls synchronize_rcu_tasks_trace() once it
 * has dropped bpf_event_mutex, then the event's release waits in
 * perf_trace_event_unreg() (kernel/trace/trace_event_perf.c) for
 * tracepoint_synchronize_unregister() under event_mutex.  About 70 ms a
 * link on 6.18, one after another: slow's ten syscall links took 0.7 s.
 * From threads the first waits overlap and only the second stay in line
 * (about 30 ms each): 0.40-0.46 s (tests/live/engine_detach.sh).  Where a
 * thread cannot start, the caller's own loop does the rest.
 */
void attach__destroy_links(struct bpf_link **links, int n)
{
	struct detach_work w = { .links = links, .n = n };
	pthread_t t[DETACH_THREADS];
	int nt = 0;

	while (nt < DETACH_THREADS && nt < n - 1 && !pthread_create(&t[nt], NULL, detach_some, &w))
		nt++;
	detach_some(&w);
	while (nt--)
		pthread_join(t[nt], NULL);
}

void attach__detach_skeleton(struct bpf_object_skeleton *s)
{
	struct bpf_link *links[s->prog_cnt + 1];
	int n = 0;

	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_link **l = ((struct bpf_prog_skeleton *)((char *)s->progs + i * s->prog_skel_sz))->link;

		if (l && *l) {
			links[n++] = *l;
			*l = NULL;
		}
	}
	attach__destroy_links(links, n);
}

void attacher__destroy(struct attacher *a)
{
	attach__destroy_links(a->links, a->nlinks);
	free(a->links);
	a->links = NULL;
	a->nlinks = a->cap = 0;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdwelf.h>
#include "log.h"
#include "umaps.h"
#include "usyms.h"
#include "sort.h"

#define USYMS_PROCS 256

/* A JIT's symbol from /tmp/perf-PID.map ("START SIZE name", hex). */
struct jit_sym {
	uint64_t start, size;
	char *name;
};

/* A function symbol of a module; name points into libelf's string table,
 * alive as long as the session. */
struct msym {
	uint64_t lo, hi;	/* hi == lo: a symbol without a size */
	const char *name;
	int global;
};

/*
 * A module's function symbols, sorted once.  dwfl_module_addrinfo() scans
 * every symbol of the module at each lookup: 5.6 ms an address in libLLVM
 * (100k symbols), 0.2 ms in libc (bench/symbench.c); bisecting a sorted copy
 * is what makes 10,000 addresses a matter of milliseconds.
 */
struct mod_syms {
	Dwfl_Module *m;
	struct msym *s;
	int n;
};

struct proc_syms {
	pid_t pid;
	Dwfl *dwfl;		/* NULL: could not be reported (gone) */
	struct jit_sym *jit;	/* sorted by start */
	int njit;
	struct mod_syms *mods;
	int nmods;
};

/* A build-id's file, as found once: path NULL if none was. */
struct bid_file {
	uint8_t id[20];
	uint8_t len;
	char *path;
};

struct usyms {
	struct proc_syms p[USYMS_PROCS];
	int n, next;
	struct umaps *maps;	/* NULL: not watched (the kernel refused) */
	int maps_err;
	struct bid_file *bids;
	int nbids;
	uint64_t from_maps;	/* processes named from watched mappings, gone */
};

static char *debuginfo_path = NULL;	/* libdwfl's default: .debug, /usr/lib/debug */

static pid_t reporting;	/* the process whose session is being made or read */

/* /proc/PID/map_files/START-END of the mapping that starts at lo: the file
 * the process mapped, whichever mount namespace it is in and even if it
 * was deleted since.  -1 if there is none. */
static int open_map_file(pid_t pid, uint64_t lo)
{
	char path[64], line[512];
	unsigned long long start, end;
	int fd = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 && start == lo) {
			snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid, start, end);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			break;
		}
	fclose(f);
	return fd;
}

/*
 * libdwfl's own callback opens the path in /proc/PID/maps as the tracer
 * sees it: wrong for a process in another mount namespace (a container), and
 * no file at all once the binary is deleted (bcc issues 1366 and 3487).
 * The process's own view first: its map_files entry, then /proc/PID/root.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	Dwarf_Addr lo = 0;
	char path[4096];
	size_t n;
	int fd;

	dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
	if (reporting > 0 && name[0] == '/') {
		fd = open_map_file(reporting, lo);
		if (fd < 0) {
			snprintf(path, sizeof(path), "/proc/%d/root%s", reporting, name);
			n = strlen(path);
			if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
				path[n - 10] = '\0';
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (fd >= 0) {
			/* the name as the process knows it: debuglink files are looked up beside it */
			*file_name = strdup(name);
			*elfp = NULL;
			return fd;
		}
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(struct usyms));

	if (u && !(u->maps = umaps__new())) {
		u->maps_err = errno;
		warnf("user stacks of processes that exit before they are named (100 ms) will be addresses: "
		      "the kernel refused to report mappings (perf events): %s", strerror(errno));
	}
	return u;
}

void usyms__poll(struct usyms *u)
{
	if (u)
		umaps__poll(u->maps);
}

void usyms__stats(const struct usyms *u, struct usyms_stats *st)
{
	*st = (struct usyms_stats){ .watched = u && u->maps, .watch_err = u ? u->maps_err : 0,
				    .maps_lost = u ? umaps__lost(u->maps) : 0, .from_maps = u ? u->from_maps : 0 };
}

static int cmp_jit(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* /tmp/perf-PID.map, as JITs (V8, the JVM with perf-map-agent, Python 3.12
 * -X perf, LuaJIT, ...) write it for perf: read once, at the first lookup. */
static void jit_load(struct proc_syms *s)
{
	char path[64], line[1024], name[900];
	unsigned long long start, size;
	int cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", s->pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %899[^\n]", &start, &size, name) != 3)
			continue;
		if (s->njit == cap) {
			void *p = realloc(s->jit, (cap = cap ? 2 * cap : 64) * sizeof(*s->jit));

			if (!p)
				break;
			s->jit = p;
		}
		s->jit[s->njit++] = (struct jit_sym){ start, size, strdup(name) };
	}
	fclose(f);
	sort__any(s->jit, s->njit, sizeof(*s->jit), cmp_jit);
}

/* The last of n entries (stride bytes each, sorted by the uint64_t start
 * each begins with) that starts at or below addr, or -1. */
static int last_at_or_below(const void *v, int n, size_t stride, uint64_t addr)
{
	int lo = 0, hi = n - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (*(const uint64_t *)((const char *)v + (size_t)mid * stride) <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

static const struct jit_sym *jit_find(const struct proc_syms *s, uint64_t addr)
{
	int best = last_at_or_below(s->jit, s->njit, sizeof(*s->jit), addr);

	return best >= 0 && addr < s->jit[best].start + s->jit[best].size ? &s->jit[best] : NULL;
}

static int cmp_msym(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return y->global - x->global;	/* of aliases, the global name first */
}

static struct mod_syms *mod_syms(struct proc_syms *ps, Dwfl_Module *m)
{
	struct mod_syms *ms;
	void *p;
	int n;

	for (int i = 0; i < ps->nmods; i++)
		if (ps->mods[i].m == m)
			return &ps->mods[i];
	if (!(p = realloc(ps->mods, (ps->nmods + 1) * sizeof(*ps->mods))))
		return NULL;
	ps->mods = p;
	ms = &ps->mods[ps->nmods++];
	*ms = (struct mod_syms){ .m = m };
	n = dwfl_module_getsymtab(m);
	if (n <= 0 || !(ms->s = malloc(n * sizeof(*ms->s))))
		return ms;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || !addr ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		ms->s[ms->n++] = (struct msym){ addr, addr + sym.st_size, name,
						GELF_ST_BIND(sym.st_info) == STB_GLOBAL };
	}
	sort__any(ms->s, ms->n, sizeof(*ms->s), cmp_msym);
	return ms;
}

/* The function at addr: the last one starting at or below it that holds
 * it, or a size-less one right before it. */
static const struct msym *msym_find(const struct mod_syms *ms, uint64_t addr)
{
	int best = last_at_or_below(ms->s, ms->n, sizeof(*ms->s), addr);

	if (best < 0)
		return NULL;
	/* the first of the aliases at that address (the global one) */
	while (best > 0 && ms->s[best - 1].lo == ms->s[best].lo)
		best--;
	/* nested or overlapping symbols: look back a little for one holding addr */
	for (int i = best, k = 0; i >= 0 && k < 8; i--, k++)
		if (addr < ms->s[i].hi)
			return &ms->s[i];
	return ms->s[best].hi == ms->s[best].lo ? &ms->s[best] : NULL;
}

static void proc_free(struct proc_syms *s)
{
	for (int i = 0; i < s->nmods; i++)
		free(s->mods[i].s);
	free(s->mods);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (int i = 0; i < s->njit; i++)
		free(s->jit[i].name);
	free(s->jit);
	memset(s, 0, sizeof(*s));
}

/* fd's ELF has this build-id (or there is none to check). */
static bool build_id_is(int fd, const struct umap *m)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
	bool same = !m->build_id_len || (n == m->build_id_len && !memcmp(id, m->build_id, n));

	if (e)
		elf_end(e);
	return e && same;
}

/*
 * The file of a mapping of a process that is gone: the one this build-id
 * was found in before, or the path through the process's root, or in ours,
 * or the debug file of the build-id (it keeps the program headers), each
 * checked against the build-id.  -1 if none.
 */
/* What was found for m's build-id, path NULL for nothing: kept, so each
 * build-id is looked for once. */
static void bid_remember(struct usyms *u, const struct umap *m, const char *path)
{
	struct bid_file *b;

	if (!m->build_id_len || !(b = realloc(u->bids, (u->nbids + 1) * sizeof(*b))))
		return;
	u->bids = b;
	b = &u->bids[u->nbids++];
	*b = (struct bid_file){ .len = m->build_id_len, .path = path ? strdup(path) : NULL };
	memcpy(b->id, m->build_id, m->build_id_len);
}

static int open_mapped(struct usyms *u, pid_t pid, const struct umap *m, char **name)
{
	char cand[4][4200];
	int nc = 0, fd;
	struct bid_file *b = NULL;

	for (int i = 0; m->build_id_len && i < u->nbids; i++)
		if (u->bids[i].len == m->build_id_len && !memcmp(u->bids[i].id, m->build_id, m->build_id_len))
			b = &u->bids[i];
	if (b && !b->path)
		return -1;
	if (b) {
		snprintf(cand[nc++], sizeof(cand[0]), "%s", b->path);
	} else {
		snprintf(cand[nc++], sizeof(cand[0]), "/proc/%d/root%s", pid, m->path);
		snprintf(cand[nc++], sizeof(cand[0]), "%s", m->path);
		if (m->build_id_len > 1) {
			int k = snprintf(cand[nc], sizeof(cand[0]), "/usr/lib/debug/.build-id/%02x/", m->build_id[0]);

			for (int i = 1; i < m->build_id_len; i++)
				k += snprintf(cand[nc] + k, sizeof(cand[0]) - k, "%02x", m->build_id[i]);
			snprintf(cand[nc] + k, sizeof(cand[0]) - k, ".debug");
			nc++;
		}
	}
	for (int i = 0; i < nc; i++) {
		if ((fd = open(cand[i], O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (build_id_is(fd, m)) {
			*name = strdup(cand[i]);
			if (!b)
				bid_remember(u, m, cand[i]);
			return fd;
		}
		close(fd);
	}
	if (!b)
		bid_remember(u, m, NULL);
	return -1;
}

/*
 * The load bias of a mapping: start less the page its segment starts in.
 * An ELF with one executable segment (the usual) is placed by its address
 * alone, which a separate debug file keeps (its file offsets are not the
 * binary's); with several, the mapping's file offset picks the segment.
 * 0 and the bias, or -1.
 */
static int mapping_bias(int fd, const struct umap *m, uint64_t *bias)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0;
	int nx = 0, ret = -1;
	GElf_Phdr x = {}, ph;

	if (!e || elf_getphdrnum(e, &n))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !nx++)
			x = ph;
	if (nx == 1) {
		*bias = m->start - (x.p_vaddr & ~0xfffULL);
		ret = 0;
	}
	for (size_t i = 0; nx > 1 && i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		/* mmap's offset is the segment's, rounded down to a page */
		if (m->pgoff == (ph.p_offset & ~0xfffULL)) {
			*bias = m->start - (ph.p_vaddr & ~0xfffULL);
			ret = 0;
			break;
		}
	}
out:
	if (e)
		elf_end(e);
	return ret;
}

/* A process gone before its first lookup: its modules from the mappings
 * the kernel reported when they were made.  NULL if none. */
static Dwfl *report_from_maps(struct usyms *u, pid_t pid)
{
	int n, reported = 0;
	const struct umap *m;
	Dwfl *d;

	umaps__poll(u->maps);
	if (!(m = umaps__of(u->maps, pid, &n)) || !(d = dwfl_begin(&proc_callbacks)))
		return NULL;
	dwfl_report_begin(d);
	/* newest first: a range mapped again (dlclose, dlopen) is the later file's */
	for (int i = n - 1; i >= 0; i--) {
		char *name = NULL;
		uint64_t bias;
		int fd = open_mapped(u, pid, &m[i], &name);

		if (fd < 0)
			continue;
		/* libdwfl takes the fd when it reports the module */
		if (!mapping_bias(fd, &m[i], &bias) && dwfl_report_elf(d, m[i].path, name, fd, bias, false))
			reported++;
		else
			close(fd);
		free(name);
	}
	if (dwfl_report_end(d, NULL, NULL) || !reported) {
		dwfl_end(d);
		return NULL;
	}
	u->from_maps++;
	return d;
}

static int count_module(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr a, void *arg)
{
	++*(int *)arg;
	return DWARF_CB_OK;
}

static struct proc_syms *session(struct usyms *u, pid_t pid)
{
	struct proc_syms *s;
	Dwfl *d;

	for (int i = 0; i < u->n; i++)
		if (u->p[i].pid == pid)
			return &u->p[i];
	d = dwfl_begin(&proc_callbacks);
	if (d && (dwfl_linux_proc_report(d, pid) || dwfl_report_end(d, NULL, NULL))) {
		dwfl_end(d);
		d = NULL;
	}
	if (d) {	/* a zombie has a /proc/PID/maps, empty */
		int mods = 0;

		dwfl_getmodules(d, count_module, &mods, 0);
		if (!mods) {
			dwfl_end(d);
			d = NULL;
		}
	}
	if (!d && u->maps)
		d = report_from_maps(u, pid);
	/* a full table reuses its oldest entry */
	if (u->n < USYMS_PROCS) {
		s = &u->p[u->n++];
	} else {
		s = &u->p[u->next];
		u->next = (u->next + 1) % USYMS_PROCS;
		proc_free(s);
	}
	s->pid = pid;
	s->dwfl = d;
	jit_load(s);
	return s;
}

/* usyms__resolve, and the module found (NULL: none, or JIT code) */
static int resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out, Dwfl_Module **mod)
{
	struct proc_syms *ps;
	const struct jit_sym *j;
	Dwfl_Module *m;
	Dwfl_Line *l;
	const struct mod_syms *ms;
	const struct msym *sym;

	memset(out, 0, sizeof(*out));
	reporting = pid;
	ps = session(u, pid);
	*mod = m = ps->dwfl ? dwfl_addrmodule(ps->dwfl, addr) : NULL;
	if (!m) {
		reporting = 0;
		/* no file maps it: JIT code, if the process said so */
		if ((j = jit_find(ps, addr))) {
			out->name = j->name;
			out->offset = addr - j->start;
			out->module = "perf-map";
			return 0;
		}
		return ps->dwfl ? 0 : -ESRCH;
	}
	out->module = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if ((ms = mod_syms(ps, m)) && (sym = msym_find(ms, addr))) {
		out->name = sym->name;
		out->offset = addr - sym->lo;
	}
	if ((l = dwfl_module_getsrc(m, addr)))
		out->file = dwfl_lineinfo(l, NULL, &out->line, NULL, NULL, NULL);
	reporting = 0;
	return 0;
}

int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out)
{
	Dwfl_Module *m;

	return resolve(u, pid, addr, out, &m);
}

int usyms__resolve_inline(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out, int max)
{
	Dwfl_Module *m;
	int err = resolve(u, pid, addr, &out[0], &m), n, k = 0;
	struct usym base = out[0];
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias = 0;
	const char *file = base.file;
	int line = base.line;

	if (err < 0 || max < 2 || !base.file || !m || !(cu = dwfl_module_addrdie(m, addr, &bias)))
		return err < 0 ? err : 1;
	/* scopes[0] is the innermost: inlined subroutines, then their subprogram */
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && k < max - 1; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute a;
		Dwarf_Word v;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		out[k] = (struct usym){ .name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &a)),
					.module = base.module, .file = file, .line = line, .inlined = true };
		k++;
		/* where it was inlined: the next frame out is there */
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &v))
			line = (int)v;
		if (!dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &v)) {
			Dwarf_Files *files;
			size_t nf;

			if (!dwarf_getsrcfiles(cu, &files, &nf) && v < nf)
				file = dwarf_filesrc(files, v, NULL, NULL);
		}
	}
	free(scopes);
	out[k] = base;
	out[k].file = file;
	out[k].line = line;
	return k + 1;
}

void usyms__free(struct usyms *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->n; i++)
		proc_free(&u->p[i]);
	for (int i = 0; i < u->nbids; i++)
		free(u->bids[i].path);
	free(u->bids);
	umaps__free(u->maps);
	free(u);
}

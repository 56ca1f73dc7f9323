// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "btfslim.h"
#include "counters.h"
#include "kmemo.h"
#include "log.h"

static char last_msg[256];
enum { TRACEFS_OK, TRACEFS_SHUT, TRACEFS_NONE };
static int tracefs_state(void);
static bool perf_paranoid_blocks(void);

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;

	if (level == LIBBPF_DEBUG && !log__verbose())
		return 0;
	/* Keep the last warning: it often says what the kernel refused. */
	va_copy(copy, ap);
	if (level == LIBBPF_WARN) {
		vsnprintf(last_msg, sizeof(last_msg), fmt, copy);
		last_msg[strcspn(last_msg, "\n")] = '\0';
	}
	va_end(copy);
	if (log__verbose())
		return vfprintf(stderr, fmt, ap);
	return 0;
}

bool bpfenv__have_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* Effective capabilities, from /proc/self/status (CapEff, hex). */
static unsigned long long cap_eff(void)
{
	char line[128];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

#define CAP_SYS_ADMIN_ 21
#define CAP_PERFMON_ 38
#define CAP_BPF_ 39

bool bpfenv__has_cap(int cap)
{
	return cap_eff() & (1ULL << cap);
}

int bpfenv__check_caps(void)
{
	unsigned long long c = cap_eff();
	bool admin = c & (1ULL << CAP_SYS_ADMIN_);

	if (admin || ((c & (1ULL << CAP_BPF_)) && (c & (1ULL << CAP_PERFMON_))))
		return 0;
	return fail("permissions", "missing %s%s%s: run iodig as root (it needs CAP_BPF and CAP_PERFMON, "
		    "or CAP_SYS_ADMIN)", c & (1ULL << CAP_BPF_) ? "" : "CAP_BPF",
		    !(c & (1ULL << CAP_BPF_)) && !(c & (1ULL << CAP_PERFMON_)) ? " and " : "",
		    c & (1ULL << CAP_PERFMON_) ? "" : "CAP_PERFMON");
}

const struct bpf_object_open_opts *bpfenv__open_opts(void)
{
	static struct bpf_object_open_opts o = { .sz = sizeof(o) };

	o.btf_custom_path = bpfenv__has_cap(CAP_SYS_ADMIN_) ? NULL : "/sys/kernel/btf/vmlinux";
	return &o;
}

int bpfenv__setup(void)
{
	int err;

	libbpf_set_print(print_fn);
	/* Blocks of 64 KiB and more (vmlinux BTF, and the arrays libbpf grows
	 * as it parses it) are mapped, grown in place (mremap) and unmapped
	 * when freed.  Left to itself glibc raises this threshold to the size
	 * of the first such block freed, and the next copy then comes from the
	 * heap and stays there, beside the ring, until malloc_trim: +5.7 MB of
	 * peak for snoop; a heap for growing arrays keeps their old copies. */
	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	if ((err = bpfenv__check_caps()))
		return err;
	if (!bpfenv__have_btf())
		return fail("kernel BTF", "/sys/kernel/btf/vmlinux is missing: this kernel was built "
			    "without CONFIG_DEBUG_INFO_BTF; iodig needs a kernel with BTF (5.10 or later built with it; the request engine needs 5.12)");
	return 0;
}

int bpfenv__fail(const char *what, int err)
{
	if (err < 0)
		err = -err;
	if ((err == EACCES || err == EPERM) && (tracefs_state() != TRACEFS_OK || perf_paranoid_blocks()))
		return fail(what, "%s", bpfenv__strerror(err));
	/* EPERM is privilege; EACCES from a load is the verifier saying no */
	if (err == EPERM)
		return fail(what, "permission denied: run iodig as root (it needs CAP_BPF and "
			    "CAP_PERFMON, or CAP_SYS_ADMIN)");
	if (err == EACCES)
		return fail(what, "the kernel's verifier rejected a program (run with -v for its log)%s%s",
			    last_msg[0] ? ": " : "", last_msg);
	if (last_msg[0])
		return fail(what, "%s (%s)", strerror(err), last_msg);
	return fail(what, "%s", strerror(err));
}

static void prog_infos(struct bpf_object *obj, unsigned long long *misses,
		       unsigned long long *ns, unsigned long long *cnt)
{
	struct bpf_program *prog;

	*misses = *ns = *cnt = 0;
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
			*misses += info.recursion_misses;
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
	}
}

unsigned long long bpfenv__recursion_misses(struct bpf_object *obj)
{
	unsigned long long m, ns, cnt;

	prog_infos(obj, &m, &ns, &cnt);
	return m;
}

void bpfenv__run_stats(struct bpf_object *obj, unsigned long long *ns, unsigned long long *cnt)
{
	unsigned long long m;

	prog_infos(obj, &m, ns, cnt);
}

void bpfenv__wait_programs(void)
{
	/* Tracing programs run inside RCU read-side sections; MEMBARRIER_CMD_GLOBAL
	 * returns after synchronize_rcu().  A fixed sleep is not enough: a vCPU
	 * can be descheduled by its host for longer than any sleep we would pick. */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	struct timespec ts = { 0, 50000000 };
	nanosleep(&ts, NULL);
}

void bpfenv__forget_msg(void)
{
	last_msg[0] = '\0';
}

/* With the effective credentials: access() checks the real user's, and
 * drops every capability for a user other than root, so iodig run as a
 * service user with CAP_DAC_READ_SEARCH would think tracefs (mode 0700)
 * absent. */
static bool can_see(const char *path)
{
	return faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
}

/* Can tracefs be read: yes, it is mounted but root's alone (mode 0700, the
 * default, and no CAP_DAC_READ_SEARCH), or it is not mounted and iodig may
 * not mount it (no CAP_SYS_ADMIN).  Not mounted where iodig may mount it
 * (bpfenv__tracefs(), at attach) is no reason for a failure: a program the
 * verifier refused, loaded before that mount on a machine that mounts no
 * tracefs at boot (this project's), was blamed on tracefs. */
static int tracefs_state(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct statfs sf;

	for (size_t i = 0; i < 2; i++) {
		char ev[64];

		snprintf(ev, sizeof(ev), "%s/events", roots[i]);
		if (can_see(ev))
			return TRACEFS_OK;
		if (!statfs(roots[i], &sf) && sf.f_type == TRACEFS_MAGIC)
			return TRACEFS_SHUT;
	}
	return bpfenv__has_cap(CAP_SYS_ADMIN_) ? TRACEFS_OK : TRACEFS_NONE;
}

/* Debian's kernels (6.1 at least) add kernel.perf_event_paranoid = 3, their
 * default: perf_event_open, through which tracepoint programs attach and
 * tracepoints are counted, then needs CAP_SYS_ADMIN (CAP_PERFMON is not
 * enough; raw and BTF tracepoints do not go through it). */
static bool perf_paranoid_blocks(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v >= 3 && !bpfenv__has_cap(CAP_SYS_ADMIN_);
}

const char *bpfenv__strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err != EACCES && err != EPERM)
		return strerror(err);
	if (tracefs_state() == TRACEFS_OK && perf_paranoid_blocks())
		return "kernel.perf_event_paranoid is 3 (Debian's default): perf events, which tracepoints "
		       "attach through, need CAP_SYS_ADMIN; set it to 2 (sysctl kernel.perf_event_paranoid=2) "
		       "or run iodig as root";
	switch (tracefs_state()) {
	case TRACEFS_SHUT:
		return "tracefs (/sys/kernel/tracing) is root's alone and CAP_DAC_READ_SEARCH is missing: "
		       "run iodig as root, or grant it that capability";
	case TRACEFS_NONE:
		return "tracefs is not mounted, and mounting it needs CAP_SYS_ADMIN: mount it "
		       "(mount -t tracefs nodev /sys/kernel/tracing) or run iodig as root";
	}
	return strerror(err);
}

static void unmount_tracefs(void)
{
	/* lazily: an fd libbpf left open must not keep it from going */
	umount2("/sys/kernel/tracing", MNT_DETACH);
}

int bpfenv__tracefs(void)
{
	static bool mounted;

	if (mounted || can_see("/sys/kernel/tracing/events") || can_see("/sys/kernel/debug/tracing/events"))
		return 0;
	if (tracefs_state() == TRACEFS_SHUT)
		return -EACCES;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	mounted = true;
	atexit(unmount_tracefs);	/* leave the system as it was found */
	return 0;
}

int bpfenv__attach(struct bpf_object_skeleton *s)
{
	struct bpf_program *p;
	int err;

	bpf_object__for_each_program(p, *s->obj)
		if (bpf_program__autoload(p) && bpf_program__type(p) == BPF_PROG_TYPE_TRACEPOINT) {
			if ((err = bpfenv__tracefs()))
				return err;
			break;
		}
	return bpf_object__attach_skeleton(s);
}

int bpfenv__tp_dir(const char *sys, const char *event, char *buf, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(buf, len, "%s/events/%s/%s", roots[i], sys, event);
		if (can_see(buf))
			return 0;
	}
	return -ENOENT;
}

int bpfenv__tp_perf_probe(const char *sys, const char *event)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	char dir[256], path[264];
	unsigned long long id;
	int fd;
	FILE *f;

	if (bpfenv__tp_dir(sys, event, dir, sizeof(dir)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/id", dir);
	if (!(f = fopen(path, "r")))
		return -errno;
	fd = fscanf(f, "%llu", &id);
	fclose(f);
	if (fd != 1)
		return -EINVAL;
	a.config = id;
	fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * vmlinux BTF, for libbpf and for iodig's own set-up.  libbpf 1.1 reads the
 * file into one buffer and btf__new() copies it into another (btf.c,
 * btf_parse_raw): 2 x 5.5 MB at once on 6.18, most of lat's peak RSS.  The
 * build links with --wrap=btf__load_vmlinux_btf, so libbpf's calls and ours
 * come here.  Since 6.16 (Lorenz Bauer's "btf: allow mmap of vmlinux btf",
 * bpf-next, May 2025) the sysfs file maps, read-only, onto the kernel's own
 * pages (remap_pfn_range: nothing in our RSS).  A command that asked
 * (cli_cmd.slim_btf) gets btfslim's cut of it, 2.3 MB where the whole is
 * 5.5 on 6.18, made from the mapping or from the file read in pieces
 * (IODIG_VMLINUX_BTF=full: the whole, to compare); the others one copy of
 * the whole, read once where it cannot be mapped.  If all that fails,
 * libbpf's own way.
 */
static const char *const *slim_roots;
static unsigned int slim_nroots;
static bool slim_on;

void bpfenv__btf_roots(const char *const *roots, unsigned int n)
{
	slim_roots = roots;
	slim_nroots = n;
}

void bpfenv__slim_vmlinux(bool on)
{
	const char *e = getenv("IODIG_VMLINUX_BTF");

	slim_on = on && slim_roots && !(e && !strcmp(e, "full"));
}

/* The whole of it, from the file mapped (map) or else read from fd. */
static struct btf *vmlinux_whole(const void *map, int fd, size_t size)
{
	struct btf *b;
	char *p;
	size_t got = 0;
	ssize_t n;

	if (map)
		return libbpf_get_error(b = btf__new(map, size)) ? NULL : b;
	if (!(p = malloc(size)))
		return NULL;
	while (got < size && (n = pread(fd, p + got, size - got, got)) > 0)
		got += n;
	b = got == size ? btf__new(p, size) : NULL;
	free(p);
	return libbpf_get_error(b) ? NULL : b;
}

/* The sysfs file open in *fd (-1: not), mapped where it maps (else
 * MAP_FAILED); its size, 0 when it cannot be read. */
static size_t vmlinux_open(int *fd, void **map)
{
	struct stat st;

	*map = MAP_FAILED;
	*fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st) || st.st_size <= 0)
		return 0;
	*map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, *fd, 0);
	return st.st_size;
}

static void vmlinux_close(int fd, void *map, size_t size)
{
	if (map != MAP_FAILED)
		munmap(map, size);
	if (fd >= 0)
		close(fd);
}

struct btf *__real_btf__load_vmlinux_btf(void);

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	int fd;
	void *map;
	struct btf *b = NULL;
	size_t size = vmlinux_open(&fd, &map);

	if (size) {
		if (slim_on) {
			struct btfslim_stats bs = {};

			b = btfslim__new(map != MAP_FAILED ? map : NULL, fd, size, slim_roots, slim_nroots, &bs);
			if (b)
				debugf("vmlinux BTF (%s, %zu bytes): %u types of %u kept whole (%zu bytes), "
				       "the others to ID %u 12-byte placeholders: %zu bytes", map != MAP_FAILED ? "mapped" : "read",
				       size, bs.kept, bs.types, bs.kept_bytes, bs.ids, bs.bytes);
			else
				debugf("vmlinux BTF: not cut (%s), used whole", strerror(errno));
		}
		if (!b)
			b = vmlinux_whole(map != MAP_FAILED ? map : NULL, fd, size);
	}
	vmlinux_close(fd, map, size);
	return b ? b : __real_btf__load_vmlinux_btf();
}

/* Without CAP_SYS_ADMIN skeletons name vmlinux as btf_custom_path
 * (bpfenv__open_opts), which libbpf parses with btf__parse() for CO-RE: the
 * same file, the same way (also --wrap). */
struct btf *__real_btf__parse(const char *path, struct btf_ext **ext);

struct btf *__wrap_btf__parse(const char *path, struct btf_ext **ext)
{
	if (path && !ext && !strcmp(path, "/sys/kernel/btf/vmlinux"))
		return __wrap_btf__load_vmlinux_btf();
	return __real_btf__parse(path, ext);
}

static struct btf *vmlinux_copy;

const struct btf *bpfenv__vmlinux(void)
{
	if (!vmlinux_copy)
		vmlinux_copy = btf__load_vmlinux_btf();
	return vmlinux_copy;
}

void bpfenv__vmlinux_drop(void)
{
	btf__free(vmlinux_copy);
	vmlinux_copy = NULL;
	malloc_trim(0);	/* its pages back to the system: they are most of set-up's heap */
}

static bool enumerator_find(const struct btf *btf, const char *name, long long *v)
{
	for (__u32 id = 1; btf && id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (int i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*v = e[i].val;
					return true;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (int i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*v = (long long)btf_enum64_value(e + i);
					return true;
				}
		}
	}
	return false;
}

/* (-v says each answer: tests/live/btf_slim.sh holds the cut BTF's to the
 * whole's) */
long long bpfenv__enumerator(const struct btf *btf, const char *name, long long dflt)
{
	long long v = dflt;
	bool found = enumerator_find(btf, name, &v);

	debugf("enumerator %s: %lld%s", name, v, found ? "" : " (not in BTF: the default)");
	return v;
}

/* the btf_trace_<tp> typedef that tp_btf programs attach by, or <= 0 */
static int tp_typedef(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
}

bool bpfenv__ustack_walk(const struct btf *vmlinux)
{
	return vmlinux && bpfenv__enumerator(vmlinux, "BPF_FUNC_task_pt_regs", -1) >= 0 &&
	       bpfenv__enumerator(vmlinux, "BPF_FUNC_get_current_task_btf", -1) >= 0 &&
	       bpfenv__enumerator(vmlinux, "BPF_FUNC_loop", -1) >= 0;
}

bool bpfenv__ustack_setup(volatile bool *walk, bool asked, struct bpf_map *walk_map)
{
	*walk = asked && bpfenv__ustack_walk(bpfenv__vmlinux());
	if (!*walk)
		bpf_map__set_max_entries(walk_map, 1);
	else
		bpfenv__grow_as_used(walk_map);
	return *walk;
}

bool bpfenv__grow_as_used(struct bpf_map *map)
{
	static int has = -1;	/* bpf_mem_alloc in vmlinux BTF: looked up once (a scan of every type) */

	if (has < 0) {
		const struct btf *vmlinux = bpfenv__vmlinux();

		has = vmlinux && btf__find_by_name_kind(vmlinux, "bpf_mem_alloc", BTF_KIND_STRUCT) >= 0;
	}
	return has && !bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_NO_PREALLOC);
}

int bpfenv__ustack_fd(bool walk, struct bpf_map *walk_map, struct bpf_map *stackmap)
{
	return bpf_map__fd(walk ? walk_map : stackmap);
}

void bpfenv__stackmap_trim(struct bpf_map *stackmap, bool kstack, bool kkept, bool ustack, bool uwalk)
{
	if ((!kstack || kkept) && (!ustack || uwalk))
		bpf_map__set_max_entries(stackmap, 1);
}

int bpfenv__kmemo_stats(const struct bpf_map *kmemo_cpu, struct kmemo_stats *st)
{
	int ncpus = libbpf_num_possible_cpus(), zero = 0, err = 0;
	size_t sz = (bpf_map__value_size(kmemo_cpu) + 7) & ~(size_t)7;
	char *v;

	if (ncpus <= 0 || !(v = calloc(ncpus, sz)))
		return -ENOMEM;
	*st = (struct kmemo_stats){};
	if (bpf_map_lookup_elem(bpf_map__fd(kmemo_cpu), &zero, v))
		err = -errno;
	/* (the stats first in each CPU's value) */
	for (int c = 0; !err && c < ncpus; c++)
		counters__add(st, v + c * sz, sizeof(*st));
	free(v);
	return err;
}

bool bpfenv__has_tp(const struct btf *vmlinux, const char *tp)
{
	return tp_typedef(vmlinux, tp) > 0;
}

const struct btf_type *bpfenv__tp_proto(const struct btf *btf, int typedef_id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, typedef_id));	/* pointer */

	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

int bpfenv__tp_lead_args(const struct btf *vmlinux, const char *tp)
{
	const struct btf_param *prm;
	const struct btf_type *t;
	int id = tp_typedef(vmlinux, tp);

	if (id <= 0 || !(t = bpfenv__tp_proto(vmlinux, id)))
		return 0;
	prm = btf_params(t);
	/* the first parameter is the tracepoint's own void *__data */
	for (int i = 1; i < btf_vlen(t); i++) {
		const struct btf_type *a = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, prm[i].type));
		const char *sn;

		if (!a || !btf_is_ptr(a))
			continue;
		a = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, a->type));
		if (!a || !btf_is_struct(a))
			continue;
		sn = btf__name_by_offset(vmlinux, a->name_off);
		if (sn && (!strcmp(sn, "bio") || !strcmp(sn, "request")))
			return i - 1;
	}
	return 0;
}

void bpfenv__set_tp_leads(struct bpf_object *obj, const struct btf *vmlinux)
{
	static const char prefix[] = "tp_lead__";
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;

	if (!btf || (!vmlinux && !(vmlinux = bpfenv__vmlinux())))
		return;
	bpf_object__for_each_map(map, obj) {
		const char *mn = bpf_map__name(map);
		const struct btf_type *sec;
		const struct btf_var_secinfo *v;
		size_t size;
		char *data;
		int id;

		if (!bpf_map__is_internal(map) || !strstr(mn, ".rodata"))
			continue;
		id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
		data = (char *)bpf_map__initial_value(map, &size);	/* writable before load */
		if (id <= 0 || !data)
			continue;
		sec = btf__type_by_id(btf, id);
		v = btf_var_secinfos(sec);
		for (int i = 0; i < btf_vlen(sec); i++, v++) {
			const char *vn = btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off);
			__u32 lead;

			if (strncmp(vn, prefix, sizeof(prefix) - 1) || v->size != sizeof(lead) ||
			    v->offset + sizeof(lead) > size)
				continue;
			lead = bpfenv__tp_lead_args(vmlinux, vn + sizeof(prefix) - 1);
			memcpy(data + v->offset, &lead, sizeof(lead));
		}
	}
}

int bpfenv__drop_missing_tps(struct bpf_object *obj, const struct btf *vmlinux,
			     const struct bpfenv_optional_tp *t, size_t n)
{
	struct bpf_program *p;
	int dropped = 0;

	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p);

		if (strncmp(sec, "tp_btf/", 7))
			continue;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(sec + 7, t[i].tp) && !bpfenv__has_tp(vmlinux, t[i].tp)) {
				bpf_program__set_autoload(p, false);
				dropped++;
				if (t[i].what)
					warnf("this kernel has no %s tracepoint: %s not seen", t[i].tp, t[i].what);
			}
	}
	return dropped;
}

long long bpfenv__member_off(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), member))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

bool bpfenv__has_member(const struct btf *btf, const char *type, const char *member)
{
	return bpfenv__member_off(btf, type, member) >= 0;
}

int bpfenv__percpu_offs(const char *const *names, unsigned int n, long long *offs)
{
	int fd, err = -ENOENT;
	void *map;
	size_t size = vmlinux_open(&fd, &map);

	if (size)
		err = btfslim__var_offs(map != MAP_FAILED ? map : NULL, fd, size, ".data..percpu", names, n, offs);
	vmlinux_close(fd, map, size);
	return err;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF environment: capabilities, BTF, tracefs, libbpf's log, program
 * stats, and the one place that turns a libbpf failure into a reason. */
#ifndef IODIG_BPFENV_H
#define IODIG_BPFENV_H

#include <stdbool.h>

/* Routes libbpf's log through iodig's (shown with -v); checks capabilities
 * and kernel BTF (the ready file: cli__prologue, through run.h).
 * Returns 0, or the exit status after printing why. */
int bpfenv__setup(void);
/* CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN: 0, or 1 after saying which
 * are missing. */
int bpfenv__check_caps(void);
/* Prints "iodig <cmd>: <what>: <reason>" for a libbpf error and returns 1. */
int bpfenv__fail(const char *what, int err);
bool bpfenv__have_btf(void);
/* Forgets libbpf's last warning, so that one an expected refusal left
 * (feature probing) is not given as the reason of a later failure. */
void bpfenv__forget_msg(void);

/* Returns once every BPF program run that started before the call has
 * finished (an RCU grace period), so a map half it wrote can be read. */
void bpfenv__wait_programs(void);

struct bpf_map;
struct bpf_object;
struct bpf_object_skeleton;
/* Program runs the kernel skipped because a program was already running on
 * that CPU (an interrupt's tracepoint while the program ran): summed over
 * the object's loaded programs.  Such events are lost to iodig. */
unsigned long long bpfenv__recursion_misses(struct bpf_object *obj);
/* run_time_ns and run_cnt summed over the object's programs (they count
 * only while kernel.bpf_stats_enabled=1). */
void bpfenv__run_stats(struct bpf_object *obj, unsigned long long *ns, unsigned long long *cnt);

struct btf;
/* Tracepoints a command can do without: { "contention_begin", "lock waits
 * (5.19+) are" }; a NULL `what` says nothing (the first of a group says it). */
struct bpfenv_optional_tp {
	const char *tp;
	const char *what;
};
/* The value of enumerator name in any enum of btf, anonymous ones too (which
 * CO-RE cannot name), or dflt when there is none: a kernel where it is a
 * #define. */
long long bpfenv__enumerator(const struct btf *btf, const char *name, long long dflt);
/* The byte offset of member in struct type of btf (a bit field's: the byte
 * it starts in), or -1; has_member: is there one? */
long long bpfenv__member_off(const struct btf *btf, const char *type, const char *member);
bool bpfenv__has_member(const struct btf *btf, const char *type, const char *member);
/* The offsets of per-CPU variables names[0..n) in vmlinux's .data..percpu
 * (its DATASEC in BTF; -1: none), read from the file (the set-up's BTF may
 * be slim: btfslim.h).  0, or -errno. */
int bpfenv__percpu_offs(const char *const *names, unsigned int n, long long *offs);
/* vmlinux BTF, parsed once for the process's set-up (every command needs
 * a few facts of it: request flags, enumerators, tracepoint prototypes);
 * NULL (errno set) without BTF.  Freed by bpfenv__vmlinux_drop() before
 * each BPF object's load (libbpf parses a copy of its own there: never two
 * at once) and by run__ready(): the run keeps none of it.  A later call
 * parses it again. */
const struct btf *bpfenv__vmlinux(void);
/* The names a slim vmlinux BTF keeps (main.c hands over the build's
 * btf_roots), and whether this command's BTF, its set-up's and libbpf's,
 * is slim from now on (btfslim.c; the environment's IODIG_VMLINUX_BTF=full
 * says no). */
void bpfenv__btf_roots(const char *const *roots, unsigned int n);
void bpfenv__slim_vmlinux(bool on);
void bpfenv__vmlinux_drop(void);
/* Can BPF walk a user stack itself (ustack.bpf.h: bpf_task_pt_regs(),
 * 5.15, bpf_get_current_task_btf(), 5.11, bpf_loop(), 5.17)? */
bool bpfenv__ustack_walk(const struct btf *vmlinux);
/* Set up -U before load: *walk (the skeleton's rodata ustack_walk) says
 * whether BPF walks (asked, and the kernel can); when it does not, its map
 * (walk_map) shrinks to one entry, and when it does, the map takes memory
 * as it fills (bpfenv__grow_as_used). Returns *walk. */
bool bpfenv__ustack_setup(volatile bool *walk, bool asked, struct bpf_map *walk_map);
/* A hash map that fills slowly (stacks, their counts) takes kernel memory
 * for the entries it holds, not for all it may hold (BPF_F_NO_PREALLOC),
 * where the kernel allocates for BPF in any context (bpf_mem_alloc, 6.1:
 * the hash map's own allocator since fba1a1c6c912, "bpf: Convert hash map
 * to bpf_mem_alloc"); before it, preallocated, as tracing programs
 * should (the verifier warns).  Returns whether it now grows. */
bool bpfenv__grow_as_used(struct bpf_map *map);
/* The map user stacks are read from: walk_map when BPF walks, else the
 * kernel's stack map. */
int bpfenv__ustack_fd(bool walk, struct bpf_map *walk_map, struct bpf_map *stackmap);
/* The kernel's stack map (stackmap) shrinks to one entry where no stack
 * falls back to it: kernel stacks not asked or kept by BPF (kkept), user
 * stacks not asked or walked by BPF (uwalk). */
void bpfenv__stackmap_trim(struct bpf_map *stackmap, bool kstack, bool kkept, bool ustack, bool uwalk);
/* What an object's kernel stack memos did (kmemo.bpf.h's kmemo_cpu map),
 * summed over the CPUs; 0 or -errno. */
struct kmemo_stats;
int bpfenv__kmemo_stats(const struct bpf_map *kmemo_cpu, struct kmemo_stats *st);
/* ... as counters.h's table entries, a struct kmemo_stats at offset off of
 * the table's values, kept in the modes only (one text for every command) */
#define BPFENV_KMEMO_COUNTERS(off, only)									\
	{ "kstack_walked", (off) + offsetof(struct kmemo_stats, walked), "kernel stacks: %llu walked", only },	\
	{ "kstack_offstack", (off) + offsetof(struct kmemo_stats, offstack),					\
	  "%llu of them on an interrupt's stack or too deep: no memo", only },						\
	{ "kstack_memo", (off) + offsetof(struct kmemo_stats, used), "%llu from a memo of their path", only },	\
	{ "kstack_checked", (off) + offsetof(struct kmemo_stats, checked), "%llu of those walked again to check",	\
	  only },												\
	{ "kstack_differed", (off) + offsetof(struct kmemo_stats, differed), "%llu of the checked differed", only }
/* Is tracepoint tp in this kernel (its btf_trace_ typedef in vmlinux BTF)? */
bool bpfenv__has_tp(const struct btf *vmlinux, const char *tp);
/* Programs of obj on a tp_btf/ tracepoint of t[0..n) that this kernel lacks
 * are not loaded, with a warning "this kernel has no TP tracepoint: WHAT not
 * seen".  Returns how many were dropped. */
int bpfenv__drop_missing_tps(struct bpf_object *obj, const struct btf *vmlinux,
			     const struct bpfenv_optional_tp *t, size_t n);
/* The function prototype behind a btf_trace_<tp> typedef (a pointer to
 * it): its parameter 0 is the tracepoint's void *__data.  NULL if not. */
const struct btf_type *bpfenv__tp_proto(const struct btf *btf, int typedef_id);
/* How many parameters of tracepoint tp come before its first struct bio or
 * struct request (from its btf_trace_ prototype in vmlinux; 0 when it has
 * none, or no such tracepoint). */
int bpfenv__tp_lead_args(const struct btf *vmlinux, const char *tp);
/* Every `tp_lead__<tp>` constant in obj's .rodata (compat.bpf.h's
 * BLOCK_PROG) set to bpfenv__tp_lead_args(tp), before load; vmlinux NULL:
 * bpfenv__vmlinux()'s. */
void bpfenv__set_tp_leads(struct bpf_object *obj, const struct btf *vmlinux);

/* tracefs, where syscall tracepoints' ids and the traceable function list
 * live: mounted if it is not (this kernel does not at boot), and unmounted
 * again at exit.  Returns 0 or -errno. */
int bpfenv__tracefs(void);
/* A skeleton's auto-attach, as <name>_bpf__attach(), with tracefs mounted
 * first (bpfenv__tracefs) where one of its programs that load is a classic
 * tracepoint (SEC("tp/...")): libbpf reads such an event's id from tracefs,
 * and without it the attach fails with ENOENT.  0 or -errno. */
int bpfenv__attach(struct bpf_object_skeleton *s);
/* strerror(err), but where err (EACCES, EPERM) came of tracefs being out of
 * reach, what is missing, named: CAP_DAC_READ_SEARCH where it is mounted
 * root's alone, CAP_SYS_ADMIN to mount it. */
const char *bpfenv__strerror(int err);
/* Options every skeleton is opened with.  Without CAP_SYS_ADMIN, CO-RE
 * looks at vmlinux's BTF alone: listing the modules' BTF objects
 * (BPF_BTF_GET_NEXT_ID) needs CAP_SYS_ADMIN, and libbpf 1.1 goes there for
 * a type or field vmlinux lacks (one that an older kernel has not: seen on
 * Debian's 6.1) and then fails the whole load with EPERM, where root's
 * search finds nothing more and leaves the relocation to the program's
 * bpf_core_*_exists checks. */
const struct bpf_object_open_opts *bpfenv__open_opts(void);
/* Is capability cap (CAP_SYS_ADMIN = 21, ...) effective. */
bool bpfenv__has_cap(int cap);
/* The directory of tracefs event SYS/EVENT under whichever root tracefs is
 * at (/sys/kernel/tracing, or debugfs' tracing): 0, or -ENOENT. */
int bpfenv__tp_dir(const char *sys, const char *event, char *buf, size_t len);
/* Can this process open a perf event on tracepoint SYS:EVENT, as a
 * tracepoint program's attach does (one CPU, opened and closed): 0 or
 * -errno. */
int bpfenv__tp_perf_probe(const char *sys, const char *event);

#endif

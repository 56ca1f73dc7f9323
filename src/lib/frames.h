/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack as shown: addresses from a BPF stack map turned into named frames
 * (kernel: ksyms, user: usyms), printed as text lines or a JSON array of
 * {addr, sym, offset, module} (kernel) or {addr, sym, offset, where, file,
 * line, inlined} (user).  What stacks and why -K/-U share.
 */
#ifndef IODIG_FRAMES_H
#define IODIG_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json;
struct ksyms;
struct usyms;

struct frame {
	uint64_t addr;
	uint64_t offset;	/* from sym */
	char *sym;		/* NULL: unknown */
	char *where;		/* kernel: module, or NULL; user: "[lib] file:line" or "[lib]" */
	char *file;		/* user: the source file, NULL without line info */
	int line;
	bool inlined;		/* user: a function inlined into the next frame (no address of its own) */
};

struct frames {
	struct frame *f;
	int n;
	bool user;
	bool cut;		/* user: the walk did not reach the program's entry */
};

/* How many leading kernel frames are the BPF program and the tracepoint's
 * dispatch (JIT code is in no kallsyms entry unless bpf_jit_kallsyms). */
int frames__kernel_skip(const struct ksyms *ks, const uint64_t *ips, int n);
/* Does fn begin with one of the n prefixes (a family of kernel functions:
 * "__wake_up" for __wake_up_common, __wake_up_sync_key ...)? */
bool frames__prefixed(const char *fn, const char *const *prefixes, size_t n);
/* Does a user stack reach a process's or thread's entry?  Debian's user
 * space has no frame pointers, so most walks stop early. */
bool frames__reaches_entry(const char *const *syms, int n);

/* A stack map's entry id into ips (at most max frames); how many.  An id
 * below 0 (not taken) or gone from the map gives 0. */
int frames__read(int map_fd, int id, uint64_t *ips, int max);
/* ips[0..n) named: kernel (dispatch frames dropped) or user (of pid, now:
 * the process must still exist, or the frames stay addresses). */
void frames__kernel(struct frames *fr, const struct ksyms *ks, const uint64_t *ips, int n);
void frames__user(struct frames *fr, struct usyms *us, uint32_t pid, const uint64_t *ips, int n);
/* One line per frame, innermost first, each after indent. */
void frames__text(const struct frames *fr, FILE *out, const char *indent);
/* Folded (flame graph input): ";sym" a frame, outermost first, each with suffix. */
void frames__folded(const struct frames *fr, FILE *out, const char *suffix);
void frames__json(const struct frames *fr, struct json *j, const char *key);
void frames__json_array(const struct frames *fr, struct json *j);	/* the array alone */
void frames__free(struct frames *fr);

/*
 * User stacks named once, while their processes live: a user address means
 * something only in its process, and a process may be gone by the report.
 * A command scans the keys of its counting map every ~100 ms and names the
 * (pid, user stack id) pairs it has not named yet.
 */
struct ustack {
	uint32_t pid;
	int32_t id;
	struct frames fr;
};

struct ustacks {
	struct ustack *u;	/* sorted by (pid, id) after each scan */
	size_t n, cap;
	uint64_t unresolved;	/* named too late: the process was gone, addresses only */
};

/* Name what key_of finds in the keys of keys_fd (key_size bytes each, at
 * most 256) and is not named yet; the stacks are read from stack_fd, whose
 * value is depth frames (at most 127). */
void ustacks__scan(struct ustacks *c, struct usyms *us, int keys_fd, size_t key_size,
		   bool (*key_of)(const void *key, uint32_t *pid, int32_t *id), int stack_fd, int depth);
const struct frames *ustacks__find(const struct ustacks *c, uint32_t pid, int32_t id);
/* fr kept under (pid, id), the table then owning it (freed on failure); what
 * is kept, or NULL (out of memory). */
const struct frames *ustacks__put(struct ustacks *c, uint32_t pid, int32_t id, struct frames *fr);
/* A stack as text ("kernel ID" or "user PID ID CUT", then a line per frame,
 * tab-separated: addr offset inlined line sym where file), for a recording;
 * malloc'd. */
char *frames__to_text(const struct frames *fr, uint32_t pid, int32_t id, size_t *len);
/* Back from that text into c: 0, or -EINVAL. */
int frames__from_text(struct ustacks *kernel, struct ustacks *user, const char *text, size_t len);
void ustacks__free(struct ustacks *c);

#endif

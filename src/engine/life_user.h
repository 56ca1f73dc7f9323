/* SPDX-License-Identifier: GPL-2.0 */
/* User side of the request-life engine (src/engine/life.c) that slow, snoop,
 * sysfs and lat --phases drive in their own modes. */
#ifndef IODIG_LIFE_USER_H
#define IODIG_LIFE_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histmap.h"
#include "life.h"
#include "skipped.h"

/* A REC_REQ as read from a recording: NULL when too short; one recorded
 * before wb_pid (LIFE_REQ_MIN bytes) is copied to *tmp, the rest zero. */
static inline const struct life_req *life_req__of(const void *data, size_t size, struct life_req *tmp)
{
	if (size >= sizeof(*tmp))
		return data;
	if (size < LIFE_REQ_MIN)
		return NULL;
	__builtin_memset(tmp, 0, sizeof(*tmp));
	__builtin_memcpy(tmp, data, LIFE_REQ_MIN);
	return tmp;
}

struct life_bpf;
struct ring_buffer;
struct btf;

struct life_cfg {
	enum life_mode mode;
	uint64_t min_ns;	/* LIFE_SLOW */
	bool own_clock;		/* stamp G and D in BPF, not from struct request */
	bool kernel_q;		/* the kernel stamps bios at Q (life__kernel_q) */
	bool sysfs;		/* watch queue attribute writes too */
	uint32_t dev, pid;
	uint32_t part;		/* a partition of dev: only its I/O */
	uint64_t cgroup;
	const char *comm;
	uint64_t rb_bytes;	/* ring buffer size, a power of 2 >= page size */
	bool kstack, ustack;	/* -K/-U: the submitter's stacks at Q in each record */
	bool tags;		/* LIFE_SNOOP: who held the tags too (LIFE_SLOW always) */
	bool lazy_grants;	/* the always-on (record, export): where G only
				 * notes tag grants, attached once a disk is
				 * armed (life.c); the first waits of an episode
				 * then name no holders */
	bool owners;		/* each write's data's last dirtier (life_req.wb_pid);
				 * not in LIFE_SLOW's watch mode, whose Q keeps no more
				 * than the submitter */
	bool top_cgroups;	/* LIFE_TOP: rows by cgroup too (top --by cgroup);
				 * else the key's cgroup is 0 and C reads none */
};

struct life {
	struct life_bpf *skel;
	struct ring_buffer *rb;
	bool sysfs_on;
	bool owners;		/* writes carry their data's dirtier (life_cfg.owners) */
	bool watch;		/* slow: only slow requests looked at (life.bpf.c) */
	bool kernel_q;		/* ... with the kernel's Q stamps */
	bool stack;		/* stacked disks: bios of bio-based disks, linked
				 * to what they became below (life_stack.bpf.c) */
	bool lazy_grants;	/* G notes tag grants and nothing else: attached
				 * only while a disk is armed (life.c) */
	struct bpf_link *grants;	/* ... its link while attached */
	uint64_t abandoned, last_sweep;
	uint64_t last_spilled;	/* when spilled keys were last made (life__poll) */
	struct life_slot *slots;	/* the in-flight table, mapped */
	struct skipped skipped;	/* completions BPF never saw (skipped.h) */
	char sysfs_why[160];	/* why queue writes are not watched */
	struct usyms *us;	/* -U: names user stacks; its mapping records
				 * are taken at every poll */
};

/* The longest a record waits in the ring buffer before it is printed. */
#define LIFE_DRAIN_MS 100

typedef int (*life_record_fn)(void *ctx, void *data, size_t size);

/* Does this kernel stamp every bio at Q (struct bio's bi_issue, or an
 * issue_time_ns it always sets)?  Then `slow` runs no program at Q. */
bool life__kernel_q(const struct btf *vmlinux);
/* Opens, loads and attaches.  Returns 0, or the exit status after printing. */
int life__start(struct life *l, const struct life_cfg *cfg, life_record_fn fn, void *ctx);
/* The records ring's bytes when cfg->rb_bytes is 0 (life.c says why). */
uint64_t life__ring_default(const struct life_cfg *cfg);
/* 0, -errno, or 1 (an exit status) when the output failed: said already. */
int life__poll(struct life *l, int timeout_ms);
/* The name of a process that dirtied pages writes carried (owners, top),
 * as the engine noted it when it dirtied them (it may be gone since).
 * False: not noted (evicted from its table, or owners not on). */
bool life__dirtier_comm(struct life *l, uint32_t pid, char *comm, size_t len);
/* Drops in-flight entries older than this; returns how many. */
int life__sweep(struct life *l, uint64_t older_than_ns);
/* Says tracing is live, hands records to the callback until SIGINT or
 * SIGTERM, then detaches and drains: the counters are final after.
 * Returns 0 or the exit status. */
int life__run(struct life *l, const char *ready_file, const char *ready_msg);
/* Stops tracing and waits for running programs: counters are final after. */
void life__detach(struct life *l);
/* Bios followed and not yet seen to complete (0 when watched).  After the
 * load has stopped they are requests whose block_rq_complete ran no BPF
 * program (6.18 skips a few, e.g. while it switches elevators: counted in
 * life__skipped()). */
uint64_t life__in_flight(struct life *l);
/* Hands over every record already in the ring buffer. */
void life__drain(struct life *l);
void life__stats(struct life *l, struct life_stats *s);
/* The engine's ring, for another object's records in their order with the
 * engine's (why's queue writes: bpf_map__reuse_fd before that object loads) */
int life__ring_fd(const struct life *l);
/* -K, -U: the map the kernel or the user stacks' ids name (the stack map,
 * or kmemo.bpf.h's or ustack.bpf.h's) */
int life__kstack_fd(const struct life *l);
int life__ustack_fd(const struct life *l);
/* Requests the kernel completed on the disks traced that no program saw
 * (skipped.h); final once detached. */
int64_t life__skipped(struct life *l);
/* ... since the last call (for interval reports). */
int64_t life__skipped_interval(struct life *l);
void life__stop(struct life *l);

/* The phases' histograms gathered since the last call, by disk, op and
 * phase (fn's key: a struct life_phase_key), with the epoch flipped: the
 * rows of each CPU, then the hash (life.bpf.h), each emptied.  0, a
 * negative errno, or what fn returned if not 0. */
int life__drain_phases(struct life *l, histmap_fn fn, void *ctx);

/* "Q2G" ... "Q2C" */
const char *life__phase_name(int phase);
/* "q2g_ns" ... "q2c_ns": the JSON key of a phase */
const char *life__phase_key(int phase);
/* The phase that took longest, or NULL for a partial record. */
const char *life__dominant(const __u64 *ph, int complete);
/* "QGID" with '-' for stamps not seen */
const char *life__seen_str(uint32_t seen, char *buf);

#endif

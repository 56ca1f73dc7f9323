/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A block request's life, from the block tracepoints: shared by `slow`,
 * `snoop`, `lat --phases` and `sysfs` (they load one BPF object, life.bpf.c,
 * in different modes, so the tracking logic exists once).
 */
#ifndef IODIG_LIFE_H
#define IODIG_LIFE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define LIFE_COMM_LEN 16

/* The bytes of a word of a task's name below its first NUL, as a mask (all
 * of them when it has none), from the top bits of its NUL bytes, of which
 * the lowest is exact: the BPF side reads task->comm by words, and what
 * follows the NUL may be an older, longer name's (life_block.bpf.c). */
static inline __u64 life_comm_mask(__u64 w)
{
	__u64 z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;

	return ((z & -z) >> 7) - 1;
}

/* A task's name read as its two words w, into out with what follows its
 * NUL made 0: the second word only when the first has no NUL (its mask all
 * ones).  Inlined always: clang made it a BPF call, on Q's path, with a
 * task_struct pointer for an argument. */
static inline __attribute__((always_inline)) void life_comm_words(const __u64 *w, __u64 *out)
{
	__u64 m0 = life_comm_mask(w[0]);

	out[0] = w[0] & m0;
	out[1] = w[1] & life_comm_mask(w[1]) & (__u64)((__s64)m0 >> 63);
}

enum life_mode {
	LIFE_SNOOP = 1,		/* a record for every request */
	LIFE_SLOW,		/* a record when Q2C >= min_ns */
	LIFE_PHASES,		/* histograms per disk and phase, no records */
	LIFE_SYSFS,		/* queue attribute writes only */
	LIFE_TOP,		/* histograms per submitter, disk and op, no records */
};

/* which stamps a request's record saw */
enum life_seen {
	SEEN_Q = 1 << 0,	/* block_bio_queue of its first bio */
	SEEN_G = 1 << 1,	/* allocation */
	SEEN_I = 1 << 2,	/* block_rq_insert (absent on direct issue) */
	SEEN_D = 1 << 3,	/* issue */
	SEEN_SPLIT = 1 << 4,	/* its first bio was split from a larger one */
	SEEN_WHO = 1 << 5,	/* the submitter: pid, tid, comm */
};

enum life_phase { PH_Q2G, PH_G2I, PH_I2D, PH_D2C, PH_Q2C, PH_NR };

enum life_rec_type { REC_REQ = 1, REC_SYSFS_START, REC_SYSFS_END, REC_TAGS, REC_UPPER };

/* What is known of a request's first bio before it reaches the device,
 * learnt in the submitting context (pid, comm are right only there).  G and
 * D come from struct request's own stamps; with --own-clock G is stamped
 * here and D in a side table (life_bpf `clocks`), so a slot stays one cache
 * line. */
struct life_bio {
	__u64 q, i, g;		/* ns, bpf_ktime_get_ns(); 0 = not seen */
	__u32 pid, tid;
	__u16 requeues;
	__u16 seen;
	__u32 wb_pid;		/* top, owners: a write of pages another process dirtied: it */
	char comm[LIFE_COMM_LEN];
};

/* In-flight bios live in an array indexed by a hash of the bio pointer:
 * no allocation, no lock, lookups the verifier inlines.  A hash map costs
 * ~500 ns an insert here, because bios are inserted on the submitting CPU and
 * deleted on the completing one, which drains one CPU's free list into the
 * other's.  A slot names its bio, so a lookup is checked; a live slot taken
 * by another bio is counted (untracked), and that request becomes partial.
 * A slot is 64 bytes and the mmapable array is page-aligned: one cache line
 * crosses from the submitting CPU to the completing one, not two. */
struct life_slot {
	__u64 bio;		/* 0: free */
	struct life_bio b;
};

#define LIFE_SLOT_BITS 15
#define LIFE_SLOTS (1 << LIFE_SLOT_BITS)

/* slow: requests at most this many at once on the watch list (waited long
 * before G, or front merged), each until it completes */
#define LIFE_WATCH_MAX 16384
/* slow overwrites slots rather than freeing them: a slow request keeps its
 * submitter unless a bio that comes after it has the same hash (at 300k
 * requests/s, a 10 ms request loses it with p = 3000 / 2^17) */
#define LIFE_WATCH_SLOT_BITS 17

/* slab pointers: low bits are alignment; Fibonacci hashing spreads the rest */
static inline __u32 life_slot_of(__u64 bio, unsigned int bits)
{
	return (__u32)(((bio >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
}

struct life_req {
	__u32 type;		/* REC_REQ */
	__u32 dev;
	__u64 q, g, i, d, c;	/* ns; phases are differences of these */
	__u64 sector;
	__u64 cgroup;
	__u32 bytes;
	__u32 cmd_flags;
	__u32 pid, tid;
	__u16 requeues;
	__u16 seen;
	int error;
	__s32 kstack, ustack;	/* -K/-U: the submitter's stacks at Q (stack map ids; < 0: none) */
	char comm[LIFE_COMM_LEN];
	/* life_cfg.owners: a write of pages another process dirtied (a
	 * journal's ordered data, a flusher's writeback): that process, else
	 * 0.  Absent from recordings made before it (LIFE_REQ_MIN bytes). */
	__u32 wb_pid;
	__u32 c_cpu;		/* the CPU its completion ran on, plus 1 (0: not known:
				 * a recording from before it); its waiters are woken
				 * there, in the same interrupt or worker */
};
/* the bytes every recorded REC_REQ has (life_req__of) */
#define LIFE_REQ_MIN	__builtin_offsetof(struct life_req, wb_pid)

/*
 * Tag starvation (slow, snoop): each request allocation (block_getrq, in
 * the allocating task) is noted in its disk's ring of the last LIFE_TAG_RING,
 * and its completion stamps the entry (found through grant_idx by its first
 * bio).  A request whose Q2G reached LIFE_TAG_MIN_NS is followed, just
 * before its own record, by who held its disk's tags when it began to wait
 * (allocated before its Q, not completed by then) and who was given tags
 * while it waited (allocated between its Q and its G): an entry each, user
 * space adds them up by process.
 */
#define LIFE_TAG_RING	128
#define LIFE_TAG_DEVS_BITS 6	/* 64 rings, by a hash of the disk */
#define LIFE_TAG_DEVS	(1 << LIFE_TAG_DEVS_BITS)
#define LIFE_TAG_ARMED	4	/* disks of one ring whose grants are noted at once */
#define LIFE_TAG_MIN_NS	1000000ull
#define LIFE_TAG_IDX	16384

/* The ring of the disk dev (the kernel's dev_t, major << 20 | minor): a
 * multiplicative hash (tests/helpers/tagring.c finds disks sharing one) */
static inline __u32 life_tag_ring(__u32 dev)
{
	return (dev * 2654435761u) >> (32 - LIFE_TAG_DEVS_BITS);
}

struct life_grant {
	__u64 ts, done;		/* allocated, completed (0: not seen yet; 1: lost track) */
	__u64 bio;		/* the bio it was allocated for */
	__u32 dev, pid;
	char comm[LIFE_COMM_LEN];
};

/* A disk's grants are noted only while it is armed, for 10 s by each of
 * its requests that waited LIFE_TAG_MIN_NS for a tag: another disk on the
 * same ring that had no such wait notes none, and leaves the ring to it (a
 * disk writing 4000 requests a second on the ring of one starved of tags
 * pushed its waits' holders out before they completed: doctor named 17 of
 * a reader's 30 waits) */
struct life_grants {
	__u64 armed_last;	/* the latest of armed_until: past it, no disk is */
	__u64 armed_last_j;	/* in jiffies, long enough for any HZ <= 1000:
				 * past it, G reads no clock (life_block.bpf.c) */
	__u64 armed_until[LIFE_TAG_ARMED];
	__u32 armed_dev[LIFE_TAG_ARMED];
	__u64 n;		/* grants noted: e[n % LIFE_TAG_RING] is the next */
	struct life_grant e[LIFE_TAG_RING];
};

struct life_grant_at {		/* where a bio's grant was noted */
	__u64 bio;
	__u32 ring, pos;
};

/* A REC_TAGS: the ring's entries, each marked by its index (a fixed index
 * keeps the verifier's work to one pass over the ring). */
#define LIFE_TAG_HELD	1	/* held a tag when the request began to wait */
#define LIFE_TAG_GIVEN	2	/* given one while it waited */

struct life_tags {
	__u32 type;		/* REC_TAGS */
	__u32 dev;
	__u64 c;		/* its request's completion stamp: which record it goes with */
	__u32 cut;		/* the ring no longer reached back far enough: at least */
	__u32 depth;		/* the queue's tags (nr_requests): no more can be held;
				 * beyond that, the oldest unended entries are requests
				 * whose end no program saw (the printer leaves them out) */
	__u8 mark[LIFE_TAG_RING];	/* LIFE_TAG_* of each ring entry, 0: neither */
	__u32 pid[LIFE_TAG_RING];
	char comm[LIFE_TAG_RING][LIFE_COMM_LEN];
	__u64 ts[LIFE_TAG_RING];	/* each marked entry's allocation */
};

/*
 * Stacked disks (slow, snoop): a bio of a bio-based disk (dm, md, bcache)
 * and what it became on the disks below, linked by block_bio_remap (dm, md:
 * the upper disk and sector a lower bio came from) or, for drivers that
 * remap without saying so (bcache), by the task that submits a bio to a
 * disk under the upper one (sysfs slaves) while its upper bio is the last
 * it submitted.  A lower is a request (its stamps) or a bio of a bio-based
 * disk below (g = d = 0).  The first LIFE_LOWERS are kept; nlower counts
 * them all.
 */
#define LIFE_LOWERS 4
#define LIFE_UPPERS 8192

struct life_lower {
	__u32 dev;
	__u32 cmd_flags;
	__u32 bytes;
	__u32 pad;
	__u64 q, g, d, c;	/* ns; g, d 0 for a bio */
};

struct life_upper {
	__u32 type;		/* REC_UPPER */
	__u32 dev;
	__u64 q, c;		/* its submission and its end, ns */
	__u64 sector;
	__u32 bytes, cmd_flags;
	__u32 pid, tid;
	__u32 nlower;		/* lowers linked to it, also beyond LIFE_LOWERS */
	int error;
	char comm[LIFE_COMM_LEN];
	struct life_lower lower[LIFE_LOWERS];
};

struct life_upper_at {		/* an upper bio by where it starts: block_bio_remap's */
	__u32 dev, pad;
	__u64 sector;
};

struct life_link {		/* a lower bio's upper, and when it was queued */
	__u64 upper, q;
};

/* Counted, never silent (life_stack.bpf.c's stack_stats). */
struct life_stack_stats {
	__u64 upper_bios;	/* bios of bio-based disks that ended, timed */
	__u64 upper_unseen;	/* ended, not timed: submitted before tracing, or
				 * the table (LIFE_UPPERS) was full */
	__u64 lowers;		/* lower requests and bios linked to an upper */
	__u64 lowers_orphan;	/* linked, but their upper was gone at their end */
	__u64 records;		/* bio records written */
	__u64 lost;		/* bio records the ring buffer had no room for */
	__u64 remap_unlinked;	/* remapped from a stacked disk, no upper bio found */
	__u64 unlinked;		/* ended with nothing linked below, on a disk
				 * with slaves: what the disk sent down was
				 * submitted by another task with no remap
				 * (dm-crypt's write thread) */
};

/* -K/-U: the stacks taken at Q, by the slot index of the bio */
struct life_qstack {
	__s32 k, u;
};

#define LIFE_STACK_DEPTH 127

#define SYSFS_NAME_LEN 32
#define SYSFS_VALUE_LEN 64

/* A write(2) to /sys/block/<disk>/queue/<attr> (or queue/iosched/<attr>). */
struct life_sysfs {
	__u32 type;		/* REC_SYSFS_START or REC_SYSFS_END */
	__u32 pid, tid, ppid;
	__u64 start, end;	/* ns; end is 0 in a START record */
	__s64 ret;
	char comm[LIFE_COMM_LEN];
	char disk[SYSFS_NAME_LEN];
	char attr[SYSFS_NAME_LEN];
	char value[SYSFS_VALUE_LEN];
};

/* lat --phases merges the ops; export keeps them apart.  In `slows` (export),
 * phase is the slow request's dominant phase. */
struct life_phase_key {
	__u32 dev;
	__u16 phase;
	__u16 op;		/* REQ_OP_* */
};

/* iodig top: per submitter (at Q), disk and op, three histograms: Q2C, Q2G
 * (its sum is the time before a request existed) and bytes (count: requests,
 * sum: bytes). */
enum life_top_what { TOP_Q2C, TOP_Q2G, TOP_BYTES, TOP_NR };

struct life_top_key {
	__u32 pid;		/* the submitter's process; 0: not seen at Q */
	__u32 dev;
	__u64 cgroup;		/* the bio's (blkcg) cgroup id */
	__u8 op;		/* REQ_OP_* */
	__u8 what;		/* enum life_top_what */
	__u16 pad;
	__u32 wb_pid;		/* writeback: the process that dirtied the pages, or 0 */
	char comm[LIFE_COMM_LEN];
};

/* top: the last process to dirty a page of a file (writeback_dirty_folio) */
struct life_dirtier {
	__u32 pid;
	char comm[LIFE_COMM_LEN];
};

/* Counted by each CPU for itself (life_block.bpf.c's `completions`): a count
 * every request adds to stays off the line the CPUs share. */
struct life_pcpu {
	__u64 ran;		/* block_rq_complete hits on the disks asked for */
	__u64 records;		/* requests' records written (life_stats.records) */
	__u64 since_query;	/* records since the ring's fill was last read */
};

/* Counted, never silent. */
struct life_stats {
	__u64 completed;	/* requests that completed (final completions) */
	__u64 records;		/* records written to the ring buffer */
	__u64 lost;		/* records the ring buffer had no room for */
	__u64 untracked;	/* followed: requests allocated while followed
				 * whose bio's slot another bio had taken (with
				 * -p or --comm: bios that took a live slot);
				 * slow: requests looked at at C (watched, or
				 * near the threshold) whose slot a later bio
				 * had taken: submitter lost, and Q where the
				 * kernel stamps no bio, so it may have been
				 * slow unreported */
	__u64 partial;		/* requests missing Q, G or D: started before
				 * tracing, internal (flush), never issued */
	__u64 merges;		/* bios merged into an existing request */
	__u64 splits;
	__u64 requeues;
	__u64 map_full;		/* no room for a new histogram key */
	__u64 not_issued;	/* completed without an issue (empty preflush) */
	__u64 not_final;	/* block_rq_complete for part of a request, or a
				 * flush sequence's data step: counted at its end */
	__u64 other_disk;	/* completions on disks not asked for */
	__u64 other_part;	/* on the disk, not on the partition asked for */
	__u64 ran;		/* user side: block_rq_complete hits on the disks
				 * asked for, counted first (skipped.h);
				 * completed = ran - not_final - other_part */
	__u64 unseen_end;	/* requests whose completion ran no program (the
				 * kernel skipped it: skipped.h): their bio came
				 * back through block_bio_queue (freed and reused)
				 * while still followed; seen only where Q reads
				 * the slot (a bio a filter keeps out): Q writes
				 * it blindly (life_block.bpf.c's bio_follow) */
	__u64 watch_full;	/* slow: the watch list was full (every request
				 * is then looked at closely) */
	__u64 unstamped;	/* slow: requests G (on kernel Q stamps) or the
				 * issue found with no Q stamp, the kernel's or
				 * ours (their Q2G is unknown) */
	__u64 abandoned;	/* in flight longer than LIFE_ABANDON_NS: swept
				 * (user side: the device was torn down, the bio
				 * ended without a request, ...) */
	__u64 watch_kept;	/* slow: watched requests whose slot a later bio
				 * took after the issue, their Q and submitter
				 * then read from the watch list (not untracked).
				 * Last: recordings made before it lack it
				 * (req_summary__of) */
};

/* The block layer times a request out after 30 s by default; twice that
 * and an entry is not coming back. */
#define LIFE_ABANDON_NS (60ULL * 1000000000ULL)
#define LIFE_SWEEP_MS 5000


/*
 * Phases from stamps: the one definition, used by the BPF side (histograms)
 * and the user side (records).  Stamps are made monotone first (each at
 * least the one before): a plug-cached kernel stamp may run a little behind
 * ours, and a phase is never negative.  A request issued directly, with no
 * insert, spends no time in I2D: G2I runs to the issue.  Returns true when
 * Q, G and D were all seen; otherwise only the phases between stamps seen
 * are set, Q2C runs from the earliest stamp, and the record is partial.
 */
static inline int life_phases(__u64 q, __u64 g, __u64 i, __u64 d, __u64 c,
			      __u32 seen, __u64 *ph)
{
	__u64 t0 = q ? q : (g ? g : (i ? i : (d ? d : c)));
	__u64 gg = g > t0 ? g : t0;
	__u64 ii, dd;

	ph[PH_Q2G] = ph[PH_G2I] = ph[PH_I2D] = ph[PH_D2C] = 0;
	ph[PH_Q2C] = c > t0 ? c - t0 : 0;
	ii = (seen & SEEN_I) ? i : d;
	if (ii < gg)
		ii = gg;
	dd = d > ii ? d : ii;
	if ((seen & SEEN_Q) && (seen & SEEN_G))
		ph[PH_Q2G] = gg - q;
	if ((seen & SEEN_G) && ((seen & SEEN_I) || (seen & SEEN_D)))
		ph[PH_G2I] = ii - gg;
	if ((seen & SEEN_I) && (seen & SEEN_D))
		ph[PH_I2D] = dd - ii;
	if (seen & SEEN_D)
		ph[PH_D2C] = c > dd ? c - dd : 0;
	return (seen & (SEEN_Q | SEEN_G | SEEN_D)) == (SEEN_Q | SEEN_G | SEEN_D);
}

/* A stacked bio's lower (struct life_lower): a request's phases from its
 * link stamp (Q), its G and D; a bio-based disk's bio (g = d = 0) has Q2C
 * alone.  Returns true for a request whose Q, G and D were all seen. */
static inline int life_lower_phases(const struct life_lower *x, __u64 *ph)
{
	return life_phases(x->q, x->g, 0, x->d, x->c,
			   SEEN_Q | (x->g ? SEEN_G : 0) | (x->d ? SEEN_D : 0), ph);
}

/* The longest of an upper bio's lowers kept (their Q2C): what its own
 * layer's time is measured against (layer = its Q2C less this, signed). */
static inline __u64 life_upper_below(const struct life_upper *u)
{
	__u64 below = 0, ph[PH_NR];

	for (__u32 i = 0; i < u->nlower && i < LIFE_LOWERS; i++) {
		life_lower_phases(&u->lower[i], ph);
		if (ph[PH_Q2C] > below)
			below = ph[PH_Q2C];
	}
	return below;
}

#endif

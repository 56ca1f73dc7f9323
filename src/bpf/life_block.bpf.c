// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a block request, from tracepoints only: Q (block_bio_queue),
 * G (allocation), I (block_rq_insert), D (issue), C (block_rq_complete), plus
 * splits, merges and requeues; and writes to block queue attributes in sysfs,
 * which freeze the queue and stall Q2G.
 *
 * This object is linked (bpftool gen object) with life_sysfs.bpf.c, the
 * queue-attribute watcher, into the one life.bpf.o the engine loads; what
 * they share (the records ring and the stats) is declared in life.bpf.h.
 *
 * Two ways to follow requests, one table of slots (see life.h):
 *
 * Followed (snoop, lat --phases, and slow --own-clock): every bio gets a slot
 * at Q, in the submitter's context (pid and comm are right only there), found
 * again at I/D/C through rq->bio and freed at C.  G and D default to the
 * stamps the kernel keeps in struct request (start_time_ns, io_start_time_ns):
 * two fewer programs a request.  They come from a clock cached per plug,
 * which can run behind ours but is refreshed whenever the task sleeps, so a
 * stall is measured right; --own-clock stamps G and D here instead.
 *
 * Watched (slow): every request is looked at in the completing context,
 * usually another CPU, and what the submitter wrote costs a cache line
 * brought over, about 200 ns here, plus as much again when the submitter
 * next writes that slot.  So a slot is written in the submitting context
 * (at Q, or at G when the kernel stamps bios at Q itself: compat.bpf.h) and
 * read there again at the issue, never freed, and never read for a request
 * that completes fast: C decides from struct request alone, G2C < MIN -
 * WATCH, unless the issue put the request on the watch list because it had
 * waited WATCH/2 from Q to the kernel's G stamp (Q2G) or had no slot, or a
 * front merge put a new bio ahead of the one that got the request.  Only
 * then, or near MIN, are the slot and the bio read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
extern const volatile bool targ_test_spill;	/* tests (hist.bpf.h, HIST_NO_ALLOC) */
#define HIST_NO_ALLOC targ_test_spill
#include "hist.bpf.h"
#include "compat.bpf.h"
#include "filter.bpf.h"
#include "life.h"
#include "life.bpf.h"
#include "events.bpf.h"
#include "seen.bpf.h"
#include "ustack.bpf.h"
#include "kmemo.bpf.h"

const volatile __u32 targ_mode = LIFE_SNOOP;
const volatile __u64 targ_min_ns = 0;
const volatile bool targ_owners = false;	/* a write's data's dirtier (top, and records) */
const volatile bool targ_tags = false;	/* note allocations, name who got tags (life.h) */
const volatile bool targ_own_clock = false;
const volatile bool targ_test_spill = false;
const volatile bool targ_test_taken = false;	/* tests: a watched request's slot taken after the issue */
/* top --by cgroup: rows keyed by cgroup too; else C reads no cgroup (five
 * dependent loads from the bio, for a key member no other row uses) */
const volatile bool targ_top_cgroups = false;
const volatile bool targ_watch = false;		/* slow: watched, above */
const volatile bool targ_kernel_q = false;	/* ... on the kernel's Q stamps */
const volatile __u64 targ_watch_ns = 0;		/* WATCH, above */
const volatile __u32 targ_slot_bits = LIFE_SLOT_BITS;
const volatile __u32 filter_pid = 0;
const volatile bool filter_comm_on = false;
const volatile char filter_comm[LIFE_COMM_LEN] = {};
const volatile __u64 targ_wakeup_bytes = 1 << 20;
const volatile bool targ_kstack = false;	/* -K: the submitter's kernel stack at Q */
const volatile bool targ_ustack = false;	/* -U: its user stack */

__u32 epoch;
struct life_stats stats;
/* Followed: when every program was attached (the user side sets it), so a
 * request allocated after it had its bio seen at Q. */
__u64 follow_from;
__u64 ptr_anchor;	/* ptr.bpf.h: ptr_val() */
/* Tag grants: when the last arming ends (the user side attaches G while a
 * disk is armed, where G does nothing else), and since when G notes them:
 * 0 where G always runs, ~0 while it is not attached (the user side). */
__u64 tags_armed_until;
__u64 grants_from;
/* Entries on the watch list, in a section of its own: written only when a
 * request is watched, so C reads it from its own cache. */
__u64 watching SEC(".data.watch") = 0;

/* Completions and records, per CPU: counted for every request, so not in
 * `stats`, whose cache line would travel between the completing CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct life_pcpu);
} completions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LIFE_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);	/* the sweeper reads it in place */
	__type(key, __u32);
	__type(value, struct life_slot);
} bios SEC(".maps");

_Static_assert(sizeof(struct life_slot) == 64, "a slot is one cache line");

/* --own-clock: D, stamped here, for the slot of the same index */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LIFE_SLOTS);	/* 1 unless --own-clock */
	__type(key, __u32);
	__type(value, __u64);
} clocks SEC(".maps");

/* -K/-U: stacks at Q (all sized 1 otherwise), by the bio's slot index;
 * user stacks walked by ustack.bpf.h and kernel stacks from kmemo.bpf.h's
 * memos in their own maps where they can, else in the stack map */
STACK_MAP(stacks, 16384, LIFE_STACK_DEPTH);
USTACK_MAP(ustacks, 16384);
USTACK_MAP(kstacks, 16384);
_Static_assert(LIFE_STACK_DEPTH == USTACK_DEPTH, "one depth for both maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << LIFE_WATCH_SLOT_BITS);
	__type(key, __u32);
	__type(value, struct life_qstack);
} qstacks SEC(".maps");

/* Watched: requests C must look at closely, by their first bio, with
 * what their slot said when they were put on the list (Q and the
 * submitter; zero where none was found): a slot is overwritten by any bio
 * of the same hash, and one taken after the issue would leave C with
 * neither (a CI run lost five 4.5 ms stalls so).  Written only for the few
 * requests watched. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LIFE_WATCH_MAX);
	__type(key, __u64);
	__type(value, struct life_bio);
} watch SEC(".maps");

static const struct life_bio no_bio;

/* A write with FUA or PREFLUSH on a disk without them goes through the
 * flush machinery (blk-flush.c): its data step completes (block_rq_complete
 * with the bytes, not the last completion), then the request ends for good
 * after the post-flush, with no bio left and 0 bytes.  What the data step
 * had, by request, for that last completion. */
struct flush_data {
	__u64 cgroup;
	__u32 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct flush_data);
} flushdata SEC(".maps");

/* On kernel Q stamps: a split's Q, from the split-off bio's parent, for the
 * G that follows at once on this CPU (a split-off bio has no stamp). */
struct split_q {
	__u64 bio, q;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct split_q);
} split_qs SEC(".maps");


/*
 * Watched, a bio's slot is one of a pair: its hash's, and the one beside it
 * (index ^ 1, the next line).  Bio addresses are recycled (the slab gives a
 * freed bio's memory to the next), so two addresses of one hash collide
 * whenever both are in flight: a slow disk's two bios beside a fast disk's
 * many lost their slot for runs of requests, 42 of a 2 ms device's 1071 in
 * one slow_stalls run (both at once, by two builds: the multiplicative hash
 * keeps a colliding pair colliding under another anchor).  The pair holds
 * both.  Q reads the slot to choose (writing blindly was the point, but in
 * watched mode C never writes the slot, so the line is this CPU's or cold):
 * +1 to +8 ns a request paired (docs/PERFORMANCE.md, "slow's slots in
 * pairs").  Followed mode (C frees the slot on its CPU) still writes
 * blindly, one slot a hash.
 */
static __always_inline struct life_slot *slot_at(__u64 bio, __u32 *idx)
{
	__u32 k = life_slot_of(bio, targ_slot_bits), k1;
	struct life_slot *s = bpf_map_lookup_elem(&bios, &k), *s1;

	if (targ_watch && s && s->bio != bio) {
		k1 = k ^ 1;
		s1 = bpf_map_lookup_elem(&bios, &k1);
		if (s1 && s1->bio == bio) {
			s = s1;
			k = k1;
		}
	}
	*idx = k;
	return s;
}

/* The slot naming bio (watched: of its pair), else its hash's. */
static __always_inline struct life_slot *slot_get(__u64 bio)
{
	__u32 k;

	return slot_at(bio, &k);
}

/* Watched: the slot a new bio takes: the one of its pair naming it, else a
 * free one, else the one written longer ago (Q stamps it; 0: unknown,
 * oldest). */
static __always_inline struct life_slot *slot_pick(__u64 bio, __u32 *idx)
{
	__u32 k = life_slot_of(bio, targ_slot_bits), k1 = k ^ 1;
	struct life_slot *s = bpf_map_lookup_elem(&bios, &k), *s1;

	*idx = k;
	if (!s || !s->bio || s->bio == bio)
		return s;
	s1 = bpf_map_lookup_elem(&bios, &k1);
	if (s1 && (s1->bio == bio || s1->b.q < s->b.q || !s1->bio)) {
		*idx = k1;
		return s1;
	}
	return s;
}

/* The slot of a bio being followed, or NULL. */
static __always_inline struct life_bio *bio_entry(__u64 bio)
{
	struct life_slot *s = slot_get(bio);

	return s && s->bio == bio ? &s->b : NULL;
}

/* Frees a slot naming bio; false when none did. */
static __always_inline bool bio_forget(__u64 bio)
{
	struct life_slot *s = slot_get(bio);

	if (!s || s->bio != bio)
		return false;
	s->bio = 0;
	return true;
}

static __always_inline __u64 *clock_of(__u64 bio)
{
	__u32 k = life_slot_of(bio, LIFE_SLOT_BITS);

	return bpf_map_lookup_elem(&clocks, &k);
}

/*
 * Start following a bio: its slot written blindly, never read here.  The
 * slot's line was last written by the completing CPU (it frees the slot),
 * and a read of it stalled Q on that line: 58% of Q's samples (perf, `lat
 * --phases` beside fio; docs/PERFORMANCE.md), where a store waits in the
 * store buffer and stalls nothing.  So a live slot taken over by another
 * bio is counted at C, by the request that finds its slot gone (untracked),
 * and a bio come back while its slot still names it (its last completion
 * ran no program) is not told apart here: the kernel's own count has those
 * (skipped.h), and the slot is the new life's.
 * Field by field from registers, the bio last, not copied from a life_bio
 * built on the stack: that copy loaded words the stack had got in narrower
 * stores, a load the CPU cannot forward from them (17% of Q's samples sat
 * after it; Q 104 -> 99 ns, PERFORMANCE.md "One transfer").
 */
static __always_inline void slot_write(struct life_slot *s, __u64 bio, __u64 id, __u64 q, __u64 g,
				       __u16 seen, __u32 wb_pid)
{
	s->b.q = q;
	s->b.i = 0;
	s->b.g = g;
	s->b.pid = id >> 32;
	s->b.tid = (__u32)id;
	s->b.requeues = 0;
	s->b.seen = seen;
	s->b.wb_pid = wb_pid;
	s->bio = bio;
}

/* ... except where C cannot count it: with a filter on the submitter, a
 * request not found at C may be one the filter kept out, so here, where
 * only filtered runs pay for the read */
static __always_inline void slot_taken_note(struct life_slot *s, __u64 bio, __u64 q)
{
	if ((filter_pid || filter_comm_on) && s->bio && s->bio != bio && q - s->b.q < LIFE_ABANDON_NS)
		__sync_fetch_and_add(&stats.untracked, 1);
}

/* A bio the filters keep out: a slot still naming it is from a life of
 * its address whose end ran no program (skipped.h), and must not be taken
 * for this one's at C (seen: -p FA named one of another fio's reads). */
static __always_inline int bio_not_followed(__u64 bio)
{
	if (bio_forget(bio))	/* its last life ended unseen: see life_stats */
		__sync_fetch_and_add(&stats.unseen_end, 1);
	return 0;
}

/*
 * The current task's ids (bpf_get_current_pid_tgid()'s tgid << 32 | pid)
 * and, where comm is given, its name as the two words of comm: loaded from
 * task_struct through bpf_get_current_task_btf() (3ca1032ab7ab, 5.11), one
 * helper call where there were two or three (a call costs here what its
 * return costs: a return thunk under this host's SRSO mitigation; slow's Q
 * 181 -> 129 ns a run, snoop's 144 -> 133, docs/PERFORMANCE.md "Helper
 * calls"); before 5.11, the helpers.
 * The name is a key of top's rows, so what follows its NUL is made 0: a
 * kernel whose __set_task_comm() copies with strlcpy (strscpy_pad later)
 * leaves a longer old name's bytes there after a rename.
 */
static __always_inline __u64 current_who(__u64 *comm)
{
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		struct task_struct *t = bpf_get_current_task_btf();

		_Static_assert(sizeof(t->comm) == 2 * sizeof(__u64), "comm is two words");
		if (comm)
			life_comm_words((const void *)t->comm, comm);
		return (__u64)t->tgid << 32 | (__u32)t->pid;
	}
	if (comm)
		bpf_get_current_comm(comm, LIFE_COMM_LEN);
	return bpf_get_current_pid_tgid();
}

/* Counted before it is added: C of the same request comes later (the
 * block layer's own hand-over orders it), so it never reads 0 while the
 * request is watched.  An entry may be counted twice; `watching` only has
 * to be 0 when there are none. */
/* Watched: a slot written, not followed, by the submitter (its ids and
 * name: current_who()). */
static __always_inline struct life_slot *slot_claim(__u64 bio, __u64 q, __u64 g, __u16 seen, __u32 *idx)
{
	struct life_slot *s = slot_pick(bio, idx);

	if (!s)
		return NULL;
	_Static_assert(__builtin_offsetof(struct life_slot, b.comm) % 8 == 0, "comm written by words");
	slot_write(s, bio, current_who((__u64 *)s->b.comm), q, g, seen | SEEN_WHO, 0);
	return s;
}

/* b: the request's slot as found (&no_bio: none).  An entry already there
 * (a front merge's, which knew no Q) takes b's Q and submitter. */
static __always_inline void watch_add(__u64 bio, const struct life_bio *b)
{
	struct life_bio *e;

	__sync_fetch_and_add(&watching, 1);
	if (!bpf_map_update_elem(&watch, &bio, b, BPF_NOEXIST))
		return;
	__sync_fetch_and_add(&watching, -1);
	e = bpf_map_lookup_elem(&watch, &bio);
	if (!e)
		__sync_fetch_and_add(&stats.watch_full, 1);
	else if (!e->q && b->q)
		*e = *b;
}

static __always_inline void watch_del(__u64 bio)
{
	if (!bpf_map_delete_elem(&watch, &bio))
		__sync_fetch_and_add(&watching, -1);
}

struct life_records_map records SEC(".maps");

struct life_phases_map phases0 SEC(".maps"), phases1 SEC(".maps");	/* life.bpf.h */
struct life_phase_rows_map phase_rows0 SEC(".maps"), phase_rows1 SEC(".maps");
struct life_top_rows_map top_rows0 SEC(".maps"), top_rows1 SEC(".maps");
struct life_tops_spill_map phases_spill SEC(".maps");
_Static_assert(sizeof(struct life_phase_key) <= HIST_SPILL_KEY, "key too large to spill");

/* LIFE_PHASES with targ_min_ns: requests whose Q2C reached it, by disk, op
 * and dominant phase; running totals (export reads them as counters) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct life_phase_key);
	__type(value, __u64);
} slows SEC(".maps");
struct life_tops_map tops0 SEC(".maps"), tops1 SEC(".maps");	/* life.bpf.h */
struct life_tops_spill_map tops_spill SEC(".maps");
_Static_assert(sizeof(struct life_top_key) <= HIST_SPILL_KEY, "key too large to spill");

/* top: by address_space, the process that last dirtied one of its pages;
 * and by pid, that process's name (for its writeback rows) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct life_dirtier);
} dirtiers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct life_dirtier);
} dirtier_comms SEC(".maps");

static __always_inline bool comm_matches(const char *comm)
{
	for (int i = 0; i < LIFE_COMM_LEN; i++) {
		if (comm[i] != filter_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* Records are many and small: wake the reader only when a good share of
 * the buffer waits, else it polls on its own clock.  Saves a wakeup a record.
 * The fill is read every 64th record of a CPU (a helper call saved on the
 * others): the reader is woken at most 64 records a CPU later than the
 * share (1 MiB by default: 8192 records). */
static __always_inline long rb_flags(struct life_pcpu *pc)
{
	if (pc && ++pc->since_query < 64)
		return BPF_RB_NO_WAKEUP;
	if (pc)
		pc->since_query = 0;
	return RB_WAKE_PAST(records, targ_wakeup_bytes);
}

/* -K/-U: in the submitter's context, its stacks, beside the bio's slot */
/* k: the index of the bio's slot */
static __always_inline void take_stacks(void *ctx, __u32 k)
{
	struct life_qstack *qs;

	if (!targ_kstack && !targ_ustack)
		return;
	qs = bpf_map_lookup_elem(&qstacks, &k);
	if (qs) {
		qs->k = targ_kstack ? kmemo_stackid(ctx, &kstacks, &stacks) : -1;
		qs->u = targ_ustack ? ustack_take(ctx, &ustacks, &stacks) : -1;
	}
}

/*
 * top: who dirtied the pages writeback writes.  The kernel says it where a
 * page is dirtied (folio_account_dirtied() fires writeback_dirty_folio in
 * the dirtying task), and nowhere after: the flusher (a kworker), sync or
 * reclaim writes them later.  So the last dirtier of each file is kept, and
 * a write at Q whose first page's file has one other than the submitter is
 * that process's writeback.  Loaded in top mode, and for owners.
 */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(life_dirty, struct folio *folio, struct address_space *mapping)
{
	__u64 key = ptr_val(mapping), id = bpf_get_current_pid_tgid();
	struct life_dirtier d = { .pid = id >> 32 }, *was;

	if (!key || !d.pid)
		return 0;
	was = bpf_map_lookup_elem(&dirtiers, &key);
	if (was && was->pid == d.pid)	/* the common case: no write */
		return 0;
	bpf_get_current_comm(d.comm, sizeof(d.comm));
	bpf_map_update_elem(&dirtiers, &key, &d, BPF_ANY);
	bpf_map_update_elem(&dirtier_comms, &d.pid, &d, BPF_ANY);
	return 0;
}

/* A write's first page's file, and who last dirtied it, if not pid. */
static __always_inline __u32 bio_dirtier(struct bio *bio, __u32 pid)
{
	struct life_dirtier *d;
	__u64 mapping;

	if ((bio->bi_opf & REQ_OP_MASK_) != req_op_write() || !bio->bi_vcnt)
		return 0;
	mapping = ptr_num_val(page_file_mapping(bio->bi_io_vec->bv_page));
	if (!mapping)
		return 0;
	d = bpf_map_lookup_elem(&dirtiers, &mapping);
	return d && d->pid != pid ? d->pid : 0;
}

/* Not loaded when the kernel stamps bios at Q. */
SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(life_queue, block_bio_queue, struct bio *bio)
{
	__u64 id = 0, q, key = ptr_val(bio), comm[LIFE_COMM_LEN / 8] = {};
	/* the phases name no process: who submitted only for a filter */
	bool named = targ_mode != LIFE_PHASES || filter_comm_on, who = named || filter_pid || targ_owners;
	struct life_slot *s;
	__u32 wb_pid = 0, k;

	if (!bio_to_mq(bio))
		return 0;
	if (!bio_wanted(bio))
		return 0;
	if (targ_watch) {
		/* One of the bio's pair (slot_pick), whatever the filters: C
		 * applies them. */
		slot_claim(key, bpf_ktime_get_ns(), 0, SEEN_Q, &k);
		take_stacks(ctx, k);
		return 0;
	}
	if (who)
		id = current_who(named ? comm : NULL);
	/* top -p PID: its writeback too, whoever submits it; else in the record */
	if (targ_owners)
		wb_pid = bio_dirtier(bio, id >> 32);
	if (filter_pid && id >> 32 != filter_pid && wb_pid != filter_pid)
		return bio_not_followed(key);
	if (filter_comm_on && !comm_matches((const char *)comm))
		return bio_not_followed(key);
	if (!cgroup_wanted(bio))
		return bio_not_followed(key);
	q = bpf_ktime_get_ns();
	s = slot_at(key, &k);
	take_stacks(ctx, k);
	if (!s)
		return 0;
	slot_taken_note(s, key, q);
	/* by words: a char array is copied a byte a store */
	_Static_assert(__builtin_offsetof(struct life_slot, b.comm) % 8 == 0, "comm copied by words");
	for (int i = 0; i < LIFE_COMM_LEN / 8; i++)
		((__u64 *)s->b.comm)[i] = comm[i];
	slot_write(s, key, id, q, 0, SEEN_Q | (who ? SEEN_WHO : 0), wb_pid);
	return 0;
}

/* The split-off front part goes on to get a request; the rest (its parent,
 * bio_chain()ed as bi_private) is resubmitted and keeps its own entry. */
SEC("tp_btf/block_split")
int BLOCK_PROG(life_split, block_split, struct bio *split, unsigned int new_sector)
{
	struct life_bio *p, b;
	struct life_slot *s;
	__u32 k;

	if (targ_kernel_q) {
		__u32 zero = 0;
		struct split_q *sq = bpf_map_lookup_elem(&split_qs, &zero);

		__sync_fetch_and_add(&stats.splits, 1);
		if (sq) {
			sq->bio = ptr_val(split);
			sq->q = bio_q_stamp_read(split->bi_private, bpf_ktime_get_ns());
		}
		return 0;
	}
	p = bio_entry(ptr_val_at(&split->bi_private));
	if (!p)
		return 0;
	__sync_fetch_and_add(&stats.splits, 1);
	p->seen |= SEEN_SPLIT;
	b = *p;
	s = targ_watch ? slot_pick(ptr_val(split), &k) : slot_get(ptr_val(split));
	if (!s)
		return 0;
	if (!targ_watch)	/* watched, overwritten: nothing to count */
		slot_taken_note(s, ptr_val(split), b.q);
	s->b = b;
	s->bio = ptr_val(split);
	return 0;
}

static __always_inline int merged(struct bio *bio)
{
	__u64 key = ptr_val(bio);
	struct life_slot *s = slot_get(key);

	if (s && s->bio == key) {
		s->bio = 0;
		__sync_fetch_and_add(&stats.merges, 1);
	}
	return 0;
}

/* Followed requests only. */
SEC("tp_btf/block_bio_backmerge")
int BLOCK_PROG(life_backmerge, block_bio_backmerge, struct bio *bio) { return merged(bio); }

/* Watched: the new first bio is not the one that got the request, so its
 * slot (Q wrote it on this CPU just now) is forgotten, to be passed over
 * at the issue and C, and the request watched. */
SEC("tp_btf/block_bio_frontmerge")
int BLOCK_PROG(life_frontmerge, block_bio_frontmerge, struct bio *bio)
{
	if (targ_watch) {
		__u64 key = ptr_val(bio);
		struct life_slot *s = targ_kernel_q ? NULL : slot_get(key);

		if (s && s->bio == key)
			s->bio = 0;
		__sync_fetch_and_add(&stats.merges, 1);
		watch_add(key, &no_bio);
		return 0;
	}
	return merged(bio);
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LIFE_TAG_DEVS);
	__type(key, __u32);
	__type(value, struct life_grants);
} grants SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LIFE_TAG_IDX);
	__type(key, __u32);
	__type(value, struct life_grant_at);
} grant_idx SEC(".maps");

/* The arming's 10 s in jiffies at HZ 1000, the most a kernel ticks (HZ 100,
 * 250, 300 or 1000): at least 11 s at any HZ.  A test before the clock read:
 * bpf_jiffies64() is a load the verifier puts in its place on a 64-bit JIT
 * ("bpf: Add BPF_FUNC_jiffies64", 5.6; no call in G's image here),
 * bpf_ktime_get_ns() a call (G 100 -> 64 ns a run unarmed, where G also
 * watches; where it does nothing else it is not attached unarmed: life.c). */
#define LIFE_TAG_ARMED_J 11000ull

/* Are dev's grants noted on ring g at now (slack: a while after)? */
static __always_inline bool tag_armed(const struct life_grants *g, __u32 dev, __u64 now, __u64 slack)
{
	if (now > g->armed_last + slack)	/* the common case, one test */
		return false;
	for (int i = 0; i < LIFE_TAG_ARMED; i++)
		if (g->armed_dev[i] == dev && now <= g->armed_until[i] + slack)
			return true;
	return false;
}

/* dev's grants noted until until: in dev's own place, else in the place
 * whose arming ends first (a lapsed one before any live one).  Two CPUs
 * arming two disks at once may take one place: the other disk is armed
 * again by its next wait. */
static __always_inline void tag_arm(struct life_grants *g, __u32 dev, __u64 until)
{
	int at = 0;

	for (int i = 0; i < LIFE_TAG_ARMED; i++) {
		if (g->armed_dev[i] == dev) {
			at = i;
			break;
		}
		if (g->armed_until[i] < g->armed_until[at])
			at = i;
	}
	g->armed_dev[at] = dev;
	g->armed_until[at] = until;
	if (until > g->armed_last)
		g->armed_last = until;
	g->armed_last_j = bpf_jiffies64() + LIFE_TAG_ARMED_J;
	if (until > tags_armed_until)
		tags_armed_until = until;
}

/* A request allocated on dev for bio by the current task. */
static __always_inline void grant_note(__u32 dev, __u64 bio)
{
	__u32 rk = life_tag_ring(dev), ik = life_slot_of(bio, 14);
	struct life_grants *g = bpf_map_lookup_elem(&grants, &rk);
	struct life_grant_at *at;
	struct life_grant *e;
	__u64 now;
	__u32 pos;

	if (!g || bpf_jiffies64() > g->armed_last_j)	/* armed by no disk lately */
		return;
	now = bpf_ktime_get_ns();
	if (!tag_armed(g, dev, now, 0))	/* no request of dev waited for a tag lately */
		return;
	at = bpf_map_lookup_elem(&grant_idx, &ik);
	pos = __sync_fetch_and_add(&g->n, 1) & (LIFE_TAG_RING - 1);
	e = &g->e[pos];
	e->ts = now;
	e->done = 0;
	e->bio = bio;
	e->dev = dev;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (at) {
		/* the slot's last bio loses its way to its entry: its request
		 * will not be seen done, so it no longer counts as holding one */
		if (at->bio && at->bio != bio) {
			__u32 ork = at->ring;
			struct life_grants *og = bpf_map_lookup_elem(&grants, &ork);

			if (og && og->e[at->pos & (LIFE_TAG_RING - 1)].bio == at->bio &&
			    !og->e[at->pos & (LIFE_TAG_RING - 1)].done)
				og->e[at->pos & (LIFE_TAG_RING - 1)].done = 1;
		}
		at->bio = bio;
		at->ring = rk;
		at->pos = pos;
	}
}

/* The request of this first bio completed now: its tag is free. */
static __always_inline void grant_done(__u32 dev, __u64 bio, __u64 now)
{
	__u32 rk = life_tag_ring(dev), ik;
	struct life_grants *g = bpf_map_lookup_elem(&grants, &rk);
	struct life_grant_at *at;

	if (!g || !tag_armed(g, dev, now, 1000000000ull))	/* (armed: its grants noted) */
		return;
	ik = life_slot_of(bio, 14);
	at = bpf_map_lookup_elem(&grant_idx, &ik);
	if (at && at->bio == bio && at->ring == rk && g->e[at->pos & (LIFE_TAG_RING - 1)].bio == bio)
		g->e[at->pos & (LIFE_TAG_RING - 1)].done = now;
}

/* Who held dev's tags when the request of this first bio began to wait (at
 * q: allocated before, not completed then; entries never seen to complete
 * count for a second) and who was given tags while it waited (between q and
 * its G stamp gt), sent before its record (completed at c).  A global
 * function: verified once, not on every path of the completion program
 * that reaches it (as a static one it cost 0.7 s of loading). */
static __always_inline void tags_send(struct life_grants *g, __u32 dev, __u32 depth, __u64 q, __u64 gt,
				      __u64 c, __u64 bio)
{
	struct life_tags *t;
	__u64 oldest = ~0ull;
	bool any = false;

	/* began to wait before G noted grants: who held them is not known
	 * (as for the wait that armed the disk, which finds the ring empty) */
	if (q < grants_from)
		return;
	t = bpf_ringbuf_reserve(&records, sizeof(*t), 0);
	if (!t) {
		__sync_fetch_and_add(&stats.lost, 1);
		return;
	}
	/* (only the marks need zeroing: pid and comm are read where marked) */
	for (int i = 0; i < LIFE_TAG_RING / 8; i++)
		((__u64 *)t->mark)[i] = 0;
	t->type = REC_TAGS;
	t->dev = dev;
	t->c = c;
	t->depth = depth;
	for (__u32 i = 0; i < LIFE_TAG_RING; i++) {
		const struct life_grant *e = &g->e[i];
		__u8 m = 0;

		if (e->dev != dev || e->bio == bio)
			continue;
		if (e->ts < oldest)
			oldest = e->ts;
		if (e->ts <= q && (e->done ? e->done > q : e->ts + 1000000000ull > q))
			m = LIFE_TAG_HELD;
		/* (its own allocation is noted a little before struct request's
		 * G stamp: left out by its bio) */
		else if (e->ts > q && e->ts < gt)
			m = LIFE_TAG_GIVEN;
		if (!m)
			continue;
		t->mark[i] = m;
		t->pid[i] = e->pid;
		__builtin_memcpy(t->comm[i], e->comm, LIFE_COMM_LEN);
		t->ts[i] = e->ts;
		any = true;
	}
	t->cut = g->n > LIFE_TAG_RING && oldest > q;
	if (!any) {
		bpf_ringbuf_discard(t, 0);
		return;
	}
	bpf_ringbuf_submit(t, 0);
}

__noinline int tags_emit(__u64 dev_depth, __u64 q, __u64 gt, __u64 c, __u64 bio)
{
	/* (five arguments at most: the disk, and its queue's nr_requests above) */
	__u32 dev = (__u32)dev_depth, depth = dev_depth >> 32;
	__u32 rk = life_tag_ring(dev);
	struct life_grants *g = bpf_map_lookup_elem(&grants, &rk);

	if (!g)
		return 0;
	tags_send(g, dev, depth, q, gt, c, bio);
	/* armed: the allocations on its disk are noted from now on (the
	 * first request that waited finds the ring empty: seldom alone).
	 * After the scan: armed before it, the completion program took
	 * 103,000 instructions to verify here, not 99,000, and a 6.1 stack
	 * guest ran 258 s, not 138 (its verifier walked the scan once for
	 * each place the disk could take). */
	tag_arm(g, dev, c + 10000000000ull);
	return 0;
}

/* Watched, on kernel Q stamps: G writes the slot (there is no Q program)
 * and watches the request if it waited long already; the issue decides
 * too.  Elsewhere, watched, G only notes tag grants (attached while a disk
 * is armed: life.c) and the issue does the rest (life_issue).
 * Followed with --own-clock: G. */
SEC("tp_btf/block_getrq")
int BLOCK_PROG(life_getrq, block_getrq, struct bio *bio)
{
	__u64 key = ptr_val(bio), now, q = 0;
	struct life_slot *s;
	struct life_bio *b;
	bool sq_used = false;
	__u32 k;

	if (targ_tags)
		grant_note(bio_dev(bio), key);
	if (!targ_watch) {
		if (targ_own_clock && (b = bio_entry(key))) {
			b->g = bpf_ktime_get_ns();
			b->seen |= SEEN_G;
		}
		return 0;
	}
	if (!targ_kernel_q || !bio_wanted(bio))
		return 0;
	now = bpf_ktime_get_ns();
	q = bio_q_stamp(bio, now);
	if (!q) {
		__u32 zero = 0;
		struct split_q *sq = bpf_map_lookup_elem(&split_qs, &zero);

		if (sq && sq->bio == key) {
			q = sq->q;
			sq_used = true;
		}
	}
	s = slot_claim(key, q, now,
		       (q ? SEEN_Q : 0) | (sq_used ? SEEN_SPLIT : 0), &k);
	/* no Q stamp: Q2G unknown, so C must look */
	if (!q)
		__sync_fetch_and_add(&stats.unstamped, 1);
	/* Half of WATCH here, all of it at C: struct request's G stamp is
	 * taken a little after this one, when its accounting starts. */
	if (!q || now - q >= targ_watch_ns / 2)
		watch_add(key, s ? &s->b : &no_bio);
	return 0;
}

/*
 * A request's slot is its first bio's.  A front merge puts a new bio at the
 * head of rq->bio (bio->bi_next = the old head), so walk a few links: 16
 * (with 4, writeback of 4 KiB bios merged into a 512 KiB request lost its
 * head after 4 front merges: a CI run saw the request "not seen at Q").
 * Watched, slots are overwritten, never freed: a front-merged head's slot
 * is forgotten (life_frontmerge), so the first slot naming its bio is the
 * one of the bio that got the request (merged bios follow it), and on
 * kernel Q stamps the one G stamped: a slot left from a bio's earlier life
 * has another Q.
 */
#define LIFE_FRONT_MERGES 16

/*
 * own: C, which frees the slot it finds.  A load of the slot brings its
 * line over shared, and the store that frees it then asks the submitting
 * CPU for it again; a locked add of 0 takes it for writing in one transfer.
 * C's samples: 27% on the load and 25% waiting for the store, then 40% on
 * the add alone, 38% fewer in all (PERFORMANCE.md, "One transfer").
 */
static __always_inline struct life_slot *rq_slot(struct request *rq, __u64 *key, bool own, __u32 *idx)
{
	struct bio *bio = rq->bio;
	struct life_slot *s;

	for (int i = 0; i < LIFE_FRONT_MERGES && bio; i++) {
		*key = ptr_val(bio);
		s = slot_at(*key, idx);
		if (s) {
			if (own)
				line_own(&s->bio);
			if (s->bio == *key && (!targ_watch || !targ_kernel_q ||
			    (s->b.g && bio_q_stamp_is(bio, s->b.q))))
				return s;
		}
		bio = bio->bi_next;
	}
	return NULL;
}

static __always_inline struct life_bio *rq_entry(struct request *rq, __u64 *key)
{
	__u32 k;
	struct life_slot *s = rq_slot(rq, key, false, &k);

	return s ? &s->b : NULL;
}

SEC("tp_btf/block_rq_insert")
int BLOCK_PROG(life_insert, block_rq_insert, struct request *rq)
{
	__u64 key;
	struct life_bio *b = rq_entry(rq, &key);

	if (b) {
		b->i = bpf_ktime_get_ns();
		b->seen |= SEEN_I;
	}
	return 0;
}

/*
 * Watched: what is watched is decided here, not at G, which is not the
 * last step before struct request's G stamp.  A request put on its
 * submitter's plug waits there until the plug is flushed, and newer
 * kernels stamp start_time_ns at the flush (the change Yu Kuai posted in
 * linux-block's thread "10x I/O await times in 6.12", April 2025; on this
 * 6.18 host start_time_ns came 0.1-1.16 ms after block_getrq): a submitter
 * robbed of its vCPU between G and the flush held its request there,
 * unseen by G, and C's surely_fast() let it go as fast (two slow beside
 * bpftrace: slow 0.5 missed a write slow 0.1 and bpftrace timed at 1.26
 * ms).  The issue comes after start_time_ns is set, on every kernel, in
 * the submitter's context for a plugged request (its slot still in this
 * CPU's cache): the request is watched if Q came half of WATCH or more
 * before start_time_ns, the stamp surely_fast() measures from.
 * Followed with --own-clock: D.
 */
SEC("tp_btf/block_rq_issue")
int BLOCK_PROG(life_issue, block_rq_issue, struct request *rq)
{
	__u64 key, *d;
	__u32 k;
	struct life_slot *s = rq_slot(rq, &key, false, &k);
	struct life_bio *b = s ? &s->b : NULL;

	if (targ_watch) {
		/* the kernel's G stamp, just made, not a clock read (a helper
		 * call, and it returns through this host's SRSO thunk).  Q
		 * wrote no slot for another disk's bio, so the filter is read
		 * only where none is found; on kernel Q stamps G watched
		 * those already. */
		if (b) {
			if ((__s64)(rq->start_time_ns - b->q) >= (__s64)(targ_watch_ns / 2)) {
				watch_add(ptr_val(rq->bio), b);
				if (targ_test_taken)	/* as a later bio of its hash would */
					s->bio = 0;
			}
		} else if (!targ_kernel_q && rq->bio && !rq_passthrough(rq) &&
			   rq_wanted(rq, gendisk_dev(rq_gendisk(rq)))) {
			/* its slot taken by another bio since Q (or Q
			 * never ran): Q2G unknown, so C must look */
			__sync_fetch_and_add(&stats.unstamped, 1);
			watch_add(ptr_val(rq->bio), &no_bio);
		}
		return 0;
	}
	if (b && (d = clock_of(key)))
		*d = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BLOCK_PROG(life_requeue, block_rq_requeue, struct request *rq)
{
	__u64 key;
	struct life_bio *b;

	if (!rq_wanted(rq, gendisk_dev(rq_gendisk(rq))))
		return 0;
	b = rq_entry(rq, &key);
	__sync_fetch_and_add(&stats.requeues, 1);
	if (b)
		b->requeues++;
	return 0;
}

/*
 * Watched: can this request be let go without a look at what the
 * submitting CPU wrote?  Yes when Q2C < MIN for sure: G2C < MIN - WATCH, and
 * Q2G < WATCH, which the issue (or G, where the slot is lost, or a front
 * merge) would otherwise have said on the watch list.
 */
static __always_inline bool surely_fast(struct request *rq, __u64 c)
{
	__u64 g = rq->start_time_ns, key;

	if (!g || c - g + targ_watch_ns >= targ_min_ns || stats.watch_full)
		return false;
	if (!watching)
		return true;
	key = ptr_val(rq->bio);
	return !bpf_map_lookup_elem(&watch, &key);
}

/* Watched, its slot taken by a later bio: what the slot said when the
 * request was put on the watch list.  Read in place, before unwatch()
 * frees it (no copy: C's stack and tags_emit's are at 512 bytes together,
 * on 6.1's verifier's count). */
static __always_inline struct life_bio *watch_kept(struct bio *first)
{
	__u64 k = ptr_val(first);
	struct life_bio *w = bpf_map_lookup_elem(&watch, &k);

	if (!w || !w->q)
		return NULL;
	__sync_fetch_and_add(&stats.watch_kept, 1);
	return w;
}

/* Off the watch list once looked at: the first bio, and the one G saw. */
static __always_inline void unwatch(struct bio *first, __u64 key)
{
	__u64 k = ptr_val(first);

	watch_del(k);
	if (key && key != k)
		watch_del(key);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(life_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct life_req r = {};
	struct flush_data fdata = {};
	struct life_pcpu *pc;
	struct life_bio *b;
	__u32 wb_pid = 0, idx = 0;
	struct life_slot *s;
	struct bio *first;
	__u64 key = 0, g = 0, d = 0, t;

	r.dev = gendisk_dev(rq_gendisk(rq));
	if (filter_dev && r.dev != filter_dev) {
		__sync_fetch_and_add(&stats.other_disk, 1);
		return 0;
	}
	{
		/* Every hit on the disks asked for, before any return of
		 * iodig's own; and the hits diskstats counts, by disk, for
		 * what the kernel ran no program for (skipped.h). */
		__u32 zero = 0;

		pc = bpf_map_lookup_elem(&completions, &zero);
		if (pc)
			pc->ran += 1;
		seen_count(rq, nr_bytes, r.dev);
	}
	if (!rq_final_completion(rq, nr_bytes)) {
		__sync_fetch_and_add(&stats.not_final, 1);
		if (nr_bytes && rq->bio && rq_data_in_flush_seq(rq)) {
			struct flush_data fd = { bio_cgroup_id(rq->bio), nr_bytes };
			__u64 k = ptr_val(rq);

			if (bpf_map_update_elem(&flushdata, &k, &fd, BPF_ANY))
				__sync_fetch_and_add(&stats.map_full, 1);
		}
		return 0;
	}
	if (filter_part && rq_part_dev(rq) != filter_part) {
		__sync_fetch_and_add(&stats.other_part, 1);
		return 0;
	}
	r.c = bpf_ktime_get_ns();
	r.c_cpu = bpf_get_smp_processor_id() + 1;
	first = rq->bio;
	if (targ_tags && first)		/* its tag is free: for who held them */
		grant_done(r.dev, ptr_val(first), r.c);
	/* a write whose data step went before (flushdata): its bios are ended
	 * now, rq->bio is its last one again (blk_flush_restore_request), with
	 * 0 bytes left */
	if (!nr_bytes && (rq->cmd_flags & REQ_OP_MASK_) != req_op_flush()) {
		__u64 k = ptr_val(rq);
		struct flush_data *fd = bpf_map_lookup_elem(&flushdata, &k);

		if (fd) {
			fdata = *fd;
			bpf_map_delete_elem(&flushdata, &k);
		}
	}
	if (targ_watch && surely_fast(rq, r.c))
		return 0;
	s = rq_slot(rq, &key, !targ_watch, &idx);
	b = s ? &s->b : NULL;
	if (!b && targ_watch && first)
		b = watch_kept(first);
	if (b) {
		r.q = b->q;
		r.i = b->i;
		r.seen = b->seen;
		r.pid = b->pid;
		r.tid = b->tid;
		r.requeues = b->requeues;
		wb_pid = b->wb_pid;
		__builtin_memcpy(r.comm, b->comm, sizeof(r.comm));
		if (targ_own_clock) {
			__u64 *dp = clock_of(key);

			g = b->g;
			d = dp ? *dp : 0;
		}
		if (!targ_watch && s)
			s->bio = 0;
	} else {
		/* Not followed from Q: started before tracing, or an internal
		 * request (a flush) with no bio, or its slot taken by another
		 * bio.  Filters on the submitter cannot be applied to it. */
		if (filter_pid || filter_comm_on)
			return 0;
		/* the cgroup is on the bio: a request this filter kept from
		 * being followed at Q is not let through here (a flush request
		 * has no bio, and no cgroup) */
		if (!cgroup_wanted(first))
			return 0;
		/* allocated once Q was being followed, so Q saw its bio: its
		 * slot was taken (bio_follow) */
		if (first && follow_from && rq->start_time_ns > follow_from)
			__sync_fetch_and_add(&stats.untracked, 1);
		if (targ_watch && first) {
			/* the kernel's Q stamp, but who submitted is lost; on
			 * iodig's own Q stamps, Q too: whether it was slow is
			 * not known, and it is counted (above) whether or not
			 * it then passes for slow from its G */
			r.q = bio_q_stamp(first, r.c);
			if (r.q)
				r.seen |= SEEN_Q;
		}
	}
	if (targ_watch) {
		unwatch(first, key);
		/* the submitter's filters, applied at Q when followed */
		if (b && ((filter_pid && r.pid != filter_pid) ||
			  (filter_comm_on && !comm_matches(r.comm))))
			return 0;
	}
	if (!targ_own_clock) {
		g = rq->start_time_ns;
		d = rq->io_start_time_ns;
	}
	if (g) {
		r.g = g;
		r.seen |= SEEN_G;
	}
	if (d) {
		r.d = d;
		r.seen |= SEEN_D;
	} else if (rq->state == MQ_RQ_IDLE) {
		__sync_fetch_and_add(&stats.not_issued, 1);
	}
	if ((r.seen & (SEEN_Q | SEEN_G | SEEN_D)) != (SEEN_Q | SEEN_G | SEEN_D))
		__sync_fetch_and_add(&stats.partial, 1);

	if (targ_mode == LIFE_PHASES) {
		__u64 ph[PH_NR];

		/* partial requests are counted, not put in the phases */
		__u32 op = rq->cmd_flags & REQ_OP_MASK_;

		if (!life_phases(r.q, r.g, r.i, r.d, r.c, r.seen, ph))
			return 0;
		phases_add(r.dev, op, ph, (1u << PH_NR) - 1);
		/* export --tag-holders: who held the tags it waited for */
		if (targ_tags && (r.seen & (SEEN_Q | SEEN_G)) == (SEEN_Q | SEEN_G) && ph[PH_Q2G] >= LIFE_TAG_MIN_NS)
			tags_emit((__u64)rq->q->nr_requests << 32 | r.dev, r.q, r.g, r.c, s ? key : ptr_val(first));
		if (targ_min_ns && ph[PH_Q2C] >= targ_min_ns) {
			struct life_phase_key k = { r.dev, PH_Q2G, op };
			__u64 zero = 0, *n;

			/* the dominant phase, as life__dominant() names it */
			for (int p = PH_G2I; p <= PH_D2C; p++)
				if (ph[p] > ph[k.phase])
					k.phase = p;
			n = bpf_map_lookup_elem(&slows, &k);
			if (!n) {	/* EEXIST from a racing CPU is fine: look up again */
				bpf_map_update_elem(&slows, &k, &zero, BPF_NOEXIST);
				n = bpf_map_lookup_elem(&slows, &k);
			}
			if (n)
				__sync_fetch_and_add(n, 1);
			else
				__sync_fetch_and_add(&stats.map_full, 1);
		}
		return 0;
	}
	/* The earliest stamp seen starts the request's life. */
	t = r.q ? r.q : (r.g ? r.g : (r.i ? r.i : r.d));
	if (targ_mode == LIFE_TOP) {
		struct life_top_key k = {
			.pid = r.pid, .dev = r.dev,
			.cgroup = !targ_top_cgroups ? 0 : first ? bio_cgroup_id(first) : fdata.cgroup,
			.op = rq->cmd_flags & REQ_OP_MASK_, .wb_pid = wb_pid,
		};
		__u64 bytes = first ? first->bi_iter.bi_size : 0, v[TOP_NR];

		__builtin_memcpy(k.comm, r.comm, sizeof(k.comm));
		v[TOP_Q2C] = t ? r.c - t : 0;
		v[TOP_Q2G] = (r.seen & (SEEN_Q | SEEN_G)) == (SEEN_Q | SEEN_G) && r.g > r.q ? r.g - r.q : 0;
		bytes = nr_bytes > bytes ? nr_bytes : bytes;
		v[TOP_BYTES] = fdata.bytes > bytes ? fdata.bytes : bytes;
		tops_add(&k, v);
		return 0;
	}
	if (targ_mode == LIFE_SLOW && (!t || r.c - t < targ_min_ns))
		return 0;

	r.cgroup = first ? bio_cgroup_id(first) : fdata.cgroup;
	if (targ_watch && filter_cgroup && r.cgroup != filter_cgroup)
		return 0;
	if (targ_tags && (r.seen & (SEEN_Q | SEEN_G)) == (SEEN_Q | SEEN_G) && r.g > r.q + LIFE_TAG_MIN_NS)
		tags_emit((__u64)rq->q->nr_requests << 32 | r.dev, r.q, r.g, r.c, s ? key : ptr_val(first));
	r.type = REC_REQ;
	r.kstack = r.ustack = -1;
	/* (a slot kept by the watch list only: its stacks went with the slot) */
	if ((targ_kstack || targ_ustack) && s) {
		struct life_qstack *qs = bpf_map_lookup_elem(&qstacks, &idx);

		if (qs) {
			r.kstack = qs->k;
			r.ustack = qs->u;
		}
	}
	r.sector = rq->__sector;
	r.bytes = first ? first->bi_iter.bi_size : 0;
	r.bytes = nr_bytes > r.bytes ? nr_bytes : r.bytes;
	r.bytes = fdata.bytes > r.bytes ? fdata.bytes : r.bytes;
	r.cmd_flags = rq->cmd_flags;
	r.error = error;
	r.wb_pid = wb_pid;
	/* Reserved, copied, submitted: two calls, where bpf_ringbuf_output()
	 * is one, yet cheaper (snoop's C 225 -> 204 ns a run, paired): given
	 * to a helper, the record must live on the stack, field by field, and
	 * the verifier then tracks it there (0.29 -> 0.45 million instructions
	 * in phases mode with tag holders: PERFORMANCE.md, "Start-up"). */
	{
		struct life_req *out = bpf_ringbuf_reserve(&records, sizeof(*out), 0);

		if (!out) {
			__sync_fetch_and_add(&stats.lost, 1);
			return 0;
		}
		__builtin_memcpy(out, &r, sizeof(r));
		if (pc)
			pc->records += 1;
		bpf_ringbuf_submit(out, rb_flags(pc));
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

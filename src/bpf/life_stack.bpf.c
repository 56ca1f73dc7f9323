// SPDX-License-Identifier: GPL-2.0
/*
 * The life engine's stacked disks (slow, snoop; life.h's life_upper): a bio
 * of a bio-based disk (dm, md, bcache) is timed from its submission to its
 * end, and each request or bio it became on the disks below is linked to
 * it, with its own stamps, whatever its own time: a slow upper bio names
 * what it waited for underneath, and the time its own layer added.
 * Attached only when a bio-based disk is in view (the user side decides):
 * every bio and request of the machine runs these programs to their first
 * test.  Linked into life.bpf.o; records go to the engine's ring.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
extern const volatile bool targ_test_spill;	/* (life_block.bpf.c) */
#define HIST_NO_ALLOC targ_test_spill
#include "hist.bpf.h"
#include "compat.bpf.h"
#include "life.h"
#include "life.bpf.h"
#include "events.bpf.h"

extern const volatile __u32 targ_mode;
extern const volatile __u64 targ_min_ns;
extern const volatile __u32 filter_dev;
extern const volatile __u64 targ_wakeup_bytes;
extern const volatile __u32 filter_pid;
extern const volatile bool filter_comm_on;
extern const volatile char filter_comm[LIFE_COMM_LEN];
extern const volatile __u64 filter_cgroup;
extern const volatile bool targ_top_cgroups;

struct life_stack_stats stack_stats;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LIFE_UPPERS);
	__type(key, __u64);			/* the upper bio */
	__type(value, struct life_upper);
} uppers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LIFE_UPPERS);
	__type(key, struct life_upper_at);
	__type(value, __u64);			/* the upper bio */
} upper_at SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4 * LIFE_UPPERS);
	__type(key, __u64);			/* a lower bio */
	__type(value, struct life_link);
} lower_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);			/* a task */
	__type(value, __u64);			/* the last upper bio it submitted */
} task_upper SEC(".maps");

/* (upper dev << 32 | lower dev): the disk is under the other (sysfs
 * slaves), filled by the user side */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} stack_pairs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct life_upper);
} upper_scratch SEC(".maps");

/* Is disk lower under disk upper (sysfs slaves)?  lower 0: any disk. */
static __always_inline bool stacked_on(__u32 upper, __u32 lower)
{
	__u64 pair = (__u64)upper << 32 | lower;

	return bpf_map_lookup_elem(&stack_pairs, &pair) != NULL;
}

static __always_inline void link_lower(__u64 lower, __u64 upper, __u64 now)
{
	struct life_link l = { upper, now };

	bpf_map_update_elem(&lower_of, &lower, &l, BPF_ANY);
}

SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(life_stack_queue, block_bio_queue, struct bio *bio)
{
	__u64 key = ptr_val(bio), now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid(), *up;
	__u32 tid = (__u32)id, zero = 0;
	struct life_upper_at at;
	struct life_upper *u;

	/* a lower bio that no block_bio_remap linked: to the last upper bio
	 * its task submitted, if its disk is under that one's.  A link whose
	 * upper has ended is another bio's at this address (a driver's bio
	 * reused, bcache's in its search struct) whose end no program saw (a
	 * completion nested in another on its CPU: `missed`): it is dropped,
	 * or this bio would end as that one's orphan. */
	struct life_link *old = bpf_map_lookup_elem(&lower_of, &key);

	if (old && !bpf_map_lookup_elem(&uppers, &old->upper)) {
		bpf_map_delete_elem(&lower_of, &key);
		old = NULL;
	}
	if (!old && (up = bpf_map_lookup_elem(&task_upper, &tid))) {
		__u64 upper = *up;

		u = bpf_map_lookup_elem(&uppers, &upper);
		if (u && stacked_on(u->dev, bio_dev(bio)))
			link_lower(key, upper, now);
	}
	if (bio_to_mq(bio))
		return 0;
	/* an upper bio: every bio-based disk's, for the chains below the one
	 * asked for */
	u = bpf_map_lookup_elem(&upper_scratch, &zero);
	if (!u)
		return 0;
	__builtin_memset(u, 0, sizeof(*u));
	u->type = REC_UPPER;
	u->dev = bio_dev(bio);
	u->q = now;
	u->sector = bio->bi_iter.bi_sector;
	u->bytes = bio->bi_iter.bi_size;
	u->cmd_flags = bio->bi_opf;
	u->pid = id >> 32;
	u->tid = tid;
	bpf_get_current_comm(u->comm, sizeof(u->comm));
	if (bpf_map_update_elem(&uppers, &key, u, BPF_ANY))
		return 0;	/* full: ends as upper_unseen */
	at.dev = u->dev;
	at.pad = 0;
	at.sector = u->sector;
	bpf_map_update_elem(&upper_at, &at, &key, BPF_ANY);
	bpf_map_update_elem(&task_upper, &tid, &key, BPF_ANY);
	return 0;
}

/* dm and md say where a bio they pass down came from: the upper disk and
 * the sector there (partitions too: no upper bio starts there).  A bio that
 * spans dm targets becomes one clone a target, the later ones starting
 * inside it: those are the submitting task's last upper bio on that disk
 * when the sector falls within it.  What neither finds, on a disk stacked
 * on others, is counted (remap_unlinked). */
SEC("tp_btf/block_bio_remap")
int BLOCK_PROG(life_stack_remap, block_bio_remap, struct bio *bio, dev_t dev, sector_t from)
{
	struct life_upper_at at = { .dev = dev, .sector = from };
	__u64 *up = bpf_map_lookup_elem(&upper_at, &at);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct life_upper *u;

	if (up) {
		link_lower(ptr_val(bio), *up, bpf_ktime_get_ns());
		return 0;
	}
	up = bpf_map_lookup_elem(&task_upper, &tid);
	if (up && (u = bpf_map_lookup_elem(&uppers, up)) && u->dev == dev &&
	    from > u->sector && from < u->sector + (u->bytes >> 9)) {
		link_lower(ptr_val(bio), *up, bpf_ktime_get_ns());
		return 0;
	}
	if (stacked_on(dev, 0))
		__sync_fetch_and_add(&stack_stats.remap_unlinked, 1);
	return 0;
}

/* The submitter's filters (-p, --comm, -c), as the requests' at their Q. */
static __always_inline bool upper_wanted(const struct life_upper *u, struct bio *bio)
{
	if (filter_pid && u->pid != filter_pid)
		return false;
	if (filter_comm_on)
		for (int i = 0; i < LIFE_COMM_LEN; i++) {
			if (u->comm[i] != filter_comm[i])
				return false;
			if (!u->comm[i])
				break;
		}
	return !filter_cgroup || bio_cgroup_id(bio) == filter_cgroup;
}

/* A lower ended: its stamps into its upper's record, up to LIFE_LOWERS. */
static __always_inline void lower_end(__u64 key, __u32 dev, __u32 cmd_flags, __u32 bytes,
				      __u64 g, __u64 d, __u64 now)
{
	struct life_link *l = bpf_map_lookup_elem(&lower_of, &key);
	struct life_upper *u;
	__u32 n;

	if (!l)
		return;
	u = bpf_map_lookup_elem(&uppers, &l->upper);
	if (!u) {
		__sync_fetch_and_add(&stack_stats.lowers_orphan, 1);
		bpf_map_delete_elem(&lower_of, &key);
		return;
	}
	__sync_fetch_and_add(&stack_stats.lowers, 1);
	n = __sync_fetch_and_add(&u->nlower, 1);
	if (n < LIFE_LOWERS) {
		struct life_lower *x = &u->lower[n & (LIFE_LOWERS - 1)];

		x->dev = dev;
		x->cmd_flags = cmd_flags;
		x->bytes = bytes;
		x->q = l->q;
		x->g = g;
		x->d = d;
		x->c = now;
	}
	bpf_map_delete_elem(&lower_of, &key);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(life_stack_rq_end, struct request *rq, int error, unsigned int nr_bytes)
{
	/* its first bio was linked; a partial completion waits for the last */
	if (!rq->bio || nr_bytes < rq->__data_len)
		return 0;
	lower_end(ptr_val(rq->bio), gendisk_dev(rq_gendisk(rq)), rq->cmd_flags, rq->__data_len,
		  rq->start_time_ns, rq->io_start_time_ns, bpf_ktime_get_ns());
	return 0;
}

/* An upper bio ended, kept by the filters: into top's rows, the phases'
 * histograms (one phase, Q2C: the disks below have theirs), or a record. */
static __always_inline void upper_ended(struct life_upper *u, struct bio *bio, __u64 now)
{
	struct life_upper *out;

	if ((filter_dev && u->dev != filter_dev) || !upper_wanted(u, bio))
		return;
	if (targ_mode == LIFE_TOP) {
		/* its submitter's row on its disk (no G: Q2G 0, as a request's
		 * not seen at Q) */
		struct life_top_key k = {
			.pid = u->pid, .dev = u->dev, .cgroup = targ_top_cgroups ? bio_cgroup_id(bio) : 0,
			.op = u->cmd_flags & REQ_OP_MASK_,
		};

		__u64 v[TOP_NR] = { [TOP_Q2C] = now - u->q, [TOP_Q2G] = 0, [TOP_BYTES] = u->bytes };

		__builtin_memcpy(k.comm, u->comm, sizeof(k.comm));
		tops_add(&k, v);
		return;
	}
	if (targ_mode == LIFE_PHASES) {
		__u64 v[PH_NR] = { [PH_Q2C] = now - u->q };

		phases_add(u->dev, u->cmd_flags & REQ_OP_MASK_, v, 1u << PH_Q2C);
		return;
	}
	if (targ_mode != LIFE_SNOOP && now - u->q < targ_min_ns)
		return;
	out = bpf_ringbuf_reserve(&records, sizeof(*out), 0);
	if (!out) {
		__sync_fetch_and_add(&stack_stats.lost, 1);
		return;
	}
	u->c = now;
	u->error = bio->bi_status;
	__builtin_memcpy(out, u, sizeof(*out));
	__sync_fetch_and_add(&stack_stats.records, 1);
	/* as the requests' (life_block.bpf.c): the reader is woken when a good
	 * share waits, else polls on its clock */
	bpf_ringbuf_submit(out, RB_WAKE_PAST(records, targ_wakeup_bytes));
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(life_stack_end, struct request_queue *q, struct bio *bio)
{
	__u64 key, now, *at_bio;
	struct life_upper *u;
	struct life_upper_at at;

	/* Looked up for every bio: a driver may end its upper bio on the disk
	 * below, whose queue q then is (bcache sets the backing disk into the
	 * bio it was given, and ends that bio when both legs are done). */
	key = ptr_val(bio);
	u = bpf_map_lookup_elem(&uppers, &key);
	if (!u) {
		if (!q->mq_ops)
			__sync_fetch_and_add(&stack_stats.upper_unseen, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	__sync_fetch_and_add(&stack_stats.upper_bios, 1);
	/* itself the lower of a disk above (dm over md) */
	lower_end(key, u->dev, u->cmd_flags, u->bytes, 0, 0, now);
	if (!u->nlower && stacked_on(u->dev, 0))
		__sync_fetch_and_add(&stack_stats.unlinked, 1);
	upper_ended(u, bio, now);
	at.dev = u->dev;
	at.pad = 0;
	at.sector = u->sector;
	at_bio = bpf_map_lookup_elem(&upper_at, &at);
	if (at_bio && *at_bio == key)
		bpf_map_delete_elem(&upper_at, &at);

	bpf_map_delete_elem(&uppers, &key);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig lat: block request latency histograms.
 *
 * One program on block_rq_complete does the work.  The start of the interval
 * comes from the stamps the block layer already keeps in struct request
 * (io_start_time_ns at issue, start_time_ns at allocation), so the common
 * case costs one program run and one map lookup per request, not two
 * programs and a hash insert/delete as a start map would.
 * When a queue does not collect stats the kernel leaves io_start_time_ns at
 * 0; the user side then attaches lat_issue, which stamps into own_start.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
const volatile bool targ_test_spill = false;	/* tests (hist.bpf.h, HIST_NO_ALLOC) */
#define HIST_NO_ALLOC targ_test_spill
#include "hist.bpf.h"
#include "compat.bpf.h"
#include "filter.bpf.h"
#include "seen.bpf.h"
#include "lat.h"

const volatile bool targ_per_disk = false;
const volatile bool targ_per_flags = false;
const volatile bool targ_queued = false;	/* from allocation, not issue */
const volatile bool targ_own_clock = false;	/* ignore the kernel's stamps */

__u32 epoch;		/* written by the user side */
bool own_fallback;	/* lat_issue attached: look in own_start */
struct lat_stats stats;

HIST_EPOCH_MAPS(hists, struct lat_key, LAT_MAX_KEYS);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);		/* by epoch */
	__type(key, __u32);
	__type(value, struct hist);
} total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} own_start SEC(".maps");

SEC("tp_btf/block_rq_issue")
int BLOCK_PROG(lat_issue, block_rq_issue, struct request *rq)
{
	__u64 key = (__u64)rq, ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&own_start, &key, &ts, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(lat_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct lat_key key = {};
	struct hist *h;
	__u64 start, now;
	__u32 ep;

	key.dev = gendisk_dev(rq_gendisk(rq));
	if (filter_dev && key.dev != filter_dev)
		return 0;
	/* Every hit on the disks asked for, before any return of iodig's own.
	 * The user side derives `completed` from it and the returns below, so
	 * one atomic a request; and the hits diskstats counts, by disk, for
	 * what the kernel ran no program for (skipped.h). */
	__sync_fetch_and_add(&stats.ran, 1);
	seen_count(rq, nr_bytes, key.dev);
	/* Partial completions and flush-sequence data steps: wait for the end. */
	if (nr_bytes < rq->__data_len) {
		__sync_fetch_and_add(&stats.partial_done, 1);
		return 0;
	}
	if (rq_data_in_flush_seq(rq)) {
		__sync_fetch_and_add(&stats.flush_steps, 1);
		return 0;
	}
	if (filter_part && rq_part_dev(rq) != filter_part) {
		__sync_fetch_and_add(&stats.other_part, 1);
		return 0;
	}
	if (!cgroup_wanted(rq->bio))
		return 0;
	if (!targ_per_disk)
		key.dev = 0;

	start = targ_queued ? rq->start_time_ns : rq->io_start_time_ns;
	if (targ_own_clock || (!start && own_fallback && !targ_queued)) {
		__u64 rkey = (__u64)rq, *ts = bpf_map_lookup_elem(&own_start, &rkey);

		start = ts ? *ts : 0;
		if (ts) {
			bpf_map_delete_elem(&own_start, &rkey);
			__sync_fetch_and_add(&stats.own_stamps, 1);
		}
	}
	if (!start) {
		/* Never started (state still MQ_RQ_IDLE): no device time to measure. */
		if (!targ_queued && rq->state == MQ_RQ_IDLE)
			__sync_fetch_and_add(&stats.not_issued, 1);
		else
			__sync_fetch_and_add(&stats.unstamped, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	ep = epoch & 1;
	if (!targ_per_disk && !targ_per_flags) {
		h = bpf_map_lookup_elem(&total, &ep);
		if (!h)
			return 0;
		goto add;
	}
	if (targ_per_flags)
		key.flags = rq->cmd_flags;
	/* Constant map pointers in each branch: the verifier inlines lookups
	 * on a known map, not on one chosen at run time. */
	/* A stamp from a cached plug clock can be a little behind ours,
	 * never ahead; guard anyway so a clock quirk cannot wrap to 2^64. */
	HIST_PUT(hists, ep, &key, now > start ? now - start : 0, &stats.map_full);
	return 0;
add:
	hist_add(h, now > start ? now - start : 0);
	return 0;
}

/*
 * Bio-based disks (dm, md, bcache, zram) allocate no request: a bio's whole
 * life on such a disk, from its submission to its end, is the disk's
 * latency.  submit_bio_noacct_nocheck() traces block_bio_queue once per bio
 * and sets BIO_TRACE_COMPLETION, which makes bio_endio() trace
 * block_bio_complete once (commit fbbaf700e7b1, 4.14).  The start is the
 * kernel's own Q stamp of the bio (compat.bpf.h) or, on kernels that stamp
 * only for blk-iolatency (6.18), lat_bio_queue's.  Attached only when a
 * bio-based disk is asked for (-d, or -D with one present): every bio of a
 * request-based disk runs these programs too, to their first test.
 */
const volatile bool targ_bio_own_q = false;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} bio_start SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(lat_bio_queue, block_bio_queue, struct bio *bio)
{
	__u64 key = (__u64)bio, ts;

	if (bio_to_mq(bio) || (filter_dev && bio_dev(bio) != filter_dev))
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&bio_start, &key, &ts, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(lat_bio_complete, struct request_queue *q, struct bio *bio)
{
	struct lat_key key = {};
	__u64 start, now;
	__u32 ep;

	if (q->mq_ops)
		return 0;
	key.dev = bio_dev(bio);
	if (filter_dev && key.dev != filter_dev)
		return 0;
	__sync_fetch_and_add(&stats.bios, 1);
	if (filter_part && bio_part_dev(bio) != filter_part) {
		__sync_fetch_and_add(&stats.other_part, 1);
		return 0;
	}
	if (!cgroup_wanted(bio))
		return 0;
	now = bpf_ktime_get_ns();
	if (targ_bio_own_q) {
		__u64 bkey = (__u64)bio, *ts = bpf_map_lookup_elem(&bio_start, &bkey);

		start = ts ? *ts : 0;
		if (ts)
			bpf_map_delete_elem(&bio_start, &bkey);
	} else {
		start = bio_q_stamp(bio, now);
	}
	if (!start) {
		__sync_fetch_and_add(&stats.bio_unstamped, 1);
		return 0;
	}
	ep = epoch & 1;
	if (!targ_per_disk && !targ_per_flags) {
		struct hist *h = bpf_map_lookup_elem(&total, &ep);

		if (h)
			hist_add(h, now > start ? now - start : 0);
		return 0;
	}
	if (!targ_per_disk)
		key.dev = 0;
	if (targ_per_flags)
		key.flags = bio->bi_opf;
	HIST_PUT(hists, ep, &key, now > start ? now - start : 0, &stats.map_full);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

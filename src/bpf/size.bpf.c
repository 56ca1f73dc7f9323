// SPDX-License-Identifier: GPL-2.0
/*
 * iodig size: at block_bio_queue, in the submitter's context, each bio's
 * size into a log2 histogram per (process, disk, op), and whether it began
 * where the previous bio on its disk ended (sequential, as biopattern
 * judges, per disk whatever the process).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "size.h"
#include "lib/hist.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_pid = 0;

struct size_stats stats;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct size_key);
	__type(value, struct size_val);
} sizes SEC(".maps");

/* each disk's last bio end, in sectors */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} last_end SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BLOCK_PROG(size_bio, block_bio_queue, struct bio *bio)
{
	__u64 id = bpf_get_current_pid_tgid(), sector, bytes, end, *last;
	struct size_key k = {};
	struct size_val *v, zero = {};
	__u32 slot, op;
	bool seq;

	if (!bio_wanted(bio) || !cgroup_wanted(bio))
		return 0;
	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	bytes = bio->bi_iter.bi_size;
	if (!bytes)		/* a flush: no data */
		return 0;
	sector = bio->bi_iter.bi_sector;
	k.dev = bio_dev(bio);
	op = bio->bi_opf & REQ_OP_MASK_;
	k.op = op <= 1 ? op : 2;
	k.pid = id >> 32;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	last = bpf_map_lookup_elem(&last_end, &k.dev);
	seq = last && *last == sector;
	end = sector + (bytes >> 9);
	if (last)
		*last = end;
	else
		bpf_map_update_elem(&last_end, &k.dev, &end, BPF_ANY);
	v = bpf_map_lookup_elem(&sizes, &k);
	if (!v) {
		bpf_map_update_elem(&sizes, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&sizes, &k);
		if (!v) {
			__sync_fetch_and_add(&stats.map_full, 1);
			return 0;
		}
	}
	slot = hist_log2(bytes);
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->bytes, bytes);
	if (seq)
		__sync_fetch_and_add(&v->seq, 1);
	if (slot < SIZE_SLOTS)
		__sync_fetch_and_add(&v->slots[slot], 1);
	return 0;
}

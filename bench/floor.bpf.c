// SPDX-License-Identifier: GPL-2.0
/*
 * bench/floor: the least a request tracer can cost on this host, for
 * issue #23's goal 1 (docs/PERFORMANCE.md, "The floor").  No iodig code:
 *  - c_empty, q_empty: programs that return at once, on the tracepoints the
 *    request engine uses (block_rq_complete; block_bio_queue).  What the
 *    kernel's dispatch of a program costs, and nothing else.
 *  - q_stamp + c_hist: the smallest engine that times Q to C: Q writes its
 *    clock into a slot picked by the bio's address (iodig's hash), C reads
 *    the slot of the request's first bio and adds the difference to a
 *    per-CPU log2 histogram.  No filter, no disk test, no record.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define SLOT_BITS 14

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << SLOT_BITS);
	__type(key, __u32);
	__type(value, __u64);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

__u64 anchor;

/* A pointer as a number, by subtracting another (as src/bpf/ptr.bpf.h). */
static __always_inline __u32 slot_of(const void *bio)
{
	__u64 v = (__u64)bio;

	asm volatile("%0 -= %1" : "+r"(v) : "r"(&anchor));
	return (__u32)(((v >> 6) * 0x9E3779B97F4A7C15ULL) >> (64 - SLOT_BITS));
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(q_empty, struct bio *bio)
{
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(c_empty, struct request *rq, int error, unsigned int nr_bytes)
{
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(q_stamp, struct bio *bio)
{
	__u32 k = slot_of(bio);
	__u64 *s = bpf_map_lookup_elem(&slots, &k);

	if (s)
		*s = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(c_hist, struct request *rq, int error, unsigned int nr_bytes)
{
	__u32 k = slot_of(rq->bio), b;
	__u64 *s = bpf_map_lookup_elem(&slots, &k), *n, d;

	if (!s || !*s)
		return 0;
	d = bpf_ktime_get_ns() - *s;
	b = d ? 63 - __builtin_clzll(d) : 0;
	n = bpf_map_lookup_elem(&hist, &b);
	if (n)
		*n += 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IODIG_PTR_BPF_H
#define IODIG_PTR_BPF_H

/*
 * A kernel pointer's value as a number, to hash it: its distance from a
 * global of ours, a number as good as the address for a key.  The verifier
 * forbids arithmetic on a pointer, but a program loaded with CAP_PERFMON
 * may subtract one pointer from another, which gives a plain scalar
 * (adjust_reg_min_max_vals(), "Disallow all math except pointer
 * subtraction", since 4.15); written in asm so that the compiler keeps the
 * subtraction as it stands.  The copy by bpf_probe_read_kernel() it
 * replaces was a helper call each.  NULL stays 0.  For a pointer the
 * verifier sees as a number: ptr_num_val(), ptr_val_at().
 */
extern __u64 ptr_anchor;	/* defined once in each object (linked objects share one) */

static __always_inline __u64 ptr_val(const void *p)
{
	__u64 v = (__u64)p;

	if (!p)
		return 0;
	asm volatile("%0 -= %1" : "+r"(v) : "r"(&ptr_anchor));
	return v;
}

/* The anchor's address as a number (one helper read). */
static __always_inline __u64 ptr_anchor_num(void)
{
	__u64 anchor = 0, a = (__u64)&ptr_anchor;

	bpf_probe_read_kernel(&anchor, sizeof(anchor), &a);
	return anchor;
}

/* ptr_val() of an address the program holds as a number (read with a
 * helper), and of the pointer stored at where (a void * member, which
 * some kernels' verifiers type as a number and others as a pointer). */
static __always_inline __u64 ptr_num_val(__u64 p)
{
	return p ? p - ptr_anchor_num() : 0;
}

static __always_inline __u64 ptr_val_at(const void *where)
{
	__u64 p = 0;

	bpf_probe_read_kernel(&p, sizeof(p), where);
	return ptr_num_val(p);
}

/*
 * Takes the cache line of *p for writing, in one transfer, before a read
 * and a store to it (a load would bring it shared, and the store ask for it
 * again).  A locked add of 0, in asm: clang makes an add of 0 a locked or,
 * which kernels before 5.12 refuse ("bpf: Add bitwise atomic instructions",
 * 981f94c3e921); the add is BPF_XADD, which every kernel has.
 */
static __always_inline void line_own(__u64 *p)
{
	asm volatile("lock *(u64 *)(%0 + 0) += %1" :: "r"(p), "r"(0ULL) : "memory");
}

#endif

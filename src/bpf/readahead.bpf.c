// SPDX-License-Identifier: GPL-2.0
/*
 * iodig readahead (seed 004's readaheadstat), from tracepoints: the
 * readahead tracepoints of 6.18 (page_cache_sync_ra, page_cache_async_ra,
 * page_cache_ra_order, page_cache_ra_unbounded) and the filemap ones.
 * libbpf-tools' readahead needs kprobes or fentry on __do_page_cache_
 * readahead and friends.
 *
 * A thread's readahead is kept in task storage from its sync/async event
 * (the pages the read asked for) and its window event (the pages it will
 * add); each page the thread then adds inside the window, and outside the
 * asked range, is a read-ahead page, tracked by (file, index) until a read
 * or a fault uses it or the cache evicts it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"
#include "hist.bpf.h"
#include "readahead.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/fs.h: the same value since 2.6 */
#define FMODE_RANDOM 0x1000

const volatile __u32 targ_by = RA_BY_FILE;
const volatile __u32 filter_pid = 0;

struct ra_stats stats;
__u32 epoch;
/* entries in `tracked`: a read looks pages up only when some wait (a
 * cached-read loop then costs a task-storage lookup, not a page walk) */
__s64 ntracked;

HIST_EPOCH_MAPS(uses, struct ra_key, RA_ROWS);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, RA_ROWS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ra_key);
	__type(value, struct ra_val);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RA_TRACKED);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ra_page);
	__type(value, struct ra_tracked);
} tracked SEC(".maps");

/* the thread's readahead under way */
struct ra_now {
	__u64 host;		/* the inode */
	__u64 req_lo, req_hi;	/* the pages the read asked for: [lo, hi) */
	__u64 win_lo, win_hi;	/* the pages it reads: [lo, hi); hi 0 until known */
	__u32 kind;
	__u32 pad;
	__u64 acc_host;		/* the file of the thread's last traced read */
	__u64 acc_next;		/* the page after it */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ra_now);
} now_ra SEC(".maps");

static struct ra_val val_zero;

static __always_inline bool wanted(void)
{
	return !filter_pid || (bpf_get_current_pid_tgid() >> 32) == filter_pid;
}

static __always_inline void key_of(struct ra_key *k, struct inode *host)
{
	__builtin_memset(k, 0, sizeof(*k));
	if (targ_by == RA_BY_PROCESS) {
		k->id = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(k->comm, sizeof(k->comm));
	} else {
		k->id = BPF_CORE_READ(host, i_ino);
		k->dev = BPF_CORE_READ(host, i_sb, s_dev);
	}
}

static __always_inline struct ra_val *row_at(struct ra_key *k)
{
	struct ra_val *v = bpf_map_lookup_elem(&rows, k);

	if (v)
		return v;
	bpf_map_update_elem(&rows, k, &val_zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&rows, k);
	if (!v)
		__sync_fetch_and_add(&stats.map_full, 1);
	return v;
}

static __always_inline struct ra_val *row(struct inode *host)
{
	struct ra_key k;

	key_of(&k, host);
	return row_at(&k);
}

static __always_inline void page_of(struct ra_page *p, struct inode *host, __u64 index)
{
	p->ino = BPF_CORE_READ(host, i_ino);
	p->dev = BPF_CORE_READ(host, i_sb, s_dev);
	p->pad = 0;
	p->index = index;
}

static __always_inline int on_ra(struct inode *inode, unsigned long index, struct file_ra_state *ra,
				 unsigned long req_count, __u32 kind)
{
	struct file *file = (void *)ra - bpf_core_field_offset(struct file, f_ra);
	struct ra_now *n;
	struct ra_val *v;

	if (!wanted() || !(v = row(inode)))
		return 0;
	v->calls[kind]++;
	if (ra->ra_pages > v->ra_max)
		v->ra_max = ra->ra_pages;
	if (kind == RA_SYNC && (BPF_CORE_READ(file, f_mode) & FMODE_RANDOM))
		v->random++;
	n = bpf_task_storage_get(&now_ra, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (n) {
		n->host = (__u64)inode;
		n->req_lo = index;
		n->req_hi = index + req_count;
		n->win_lo = n->win_hi = 0;
		n->kind = kind;	/* acc_* stay: they are about reads, not this readahead */
	}
	return 0;
}

SEC("tp_btf/page_cache_sync_ra")
int BPF_PROG(ra_sync, struct inode *inode, unsigned long index, struct file_ra_state *ra, unsigned long req_count)
{
	return on_ra(inode, index, ra, req_count, RA_SYNC);
}

SEC("tp_btf/page_cache_async_ra")
int BPF_PROG(ra_async, struct inode *inode, unsigned long index, struct file_ra_state *ra, unsigned long req_count)
{
	return on_ra(inode, index, ra, req_count, RA_ASYNC);
}

/* The window: the first of ra_order and ra_unbounded after the call says it. */
static __always_inline void on_window(struct inode *inode, __u64 lo, __u64 n)
{
	struct ra_now *w = bpf_task_storage_get(&now_ra, bpf_get_current_task_btf(), 0, 0);
	struct ra_val *v;
	__u32 slot;

	if (!w || w->host != (__u64)inode || w->win_hi)
		return;
	w->win_lo = lo;
	w->win_hi = lo + n;
	if (!(v = row(inode)))
		return;
	slot = n ? hist_log2(n) : 0;
	if (slot < RA_WIN_SLOTS)
		v->windows[slot]++;
}

SEC("tp_btf/page_cache_ra_order")
int BPF_PROG(ra_order, struct inode *inode, unsigned long index, struct file_ra_state *ra)
{
	on_window(inode, ra->start, ra->size);
	return 0;
}

SEC("tp_btf/page_cache_ra_unbounded")
int BPF_PROG(ra_unbounded, struct inode *inode, unsigned long index, unsigned long nr_to_read,
	     unsigned long lookahead_size)
{
	on_window(inode, index, nr_to_read);
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(ra_add, struct folio *folio)
{
	struct ra_now *w = bpf_task_storage_get(&now_ra, bpf_get_current_task_btf(), 0, 0);
	struct inode *host = BPF_CORE_READ(folio, mapping, host);
	__u64 index = BPF_CORE_READ(folio, index);
	struct ra_tracked t = {};
	struct ra_page p;
	struct ra_val *v;

	if (!w || w->host != (__u64)host || index < w->win_lo || index >= w->win_hi)
		return 0;
	t.pages = folio_pages(folio);
	key_of(&t.row, host);
	if (!(v = row_at(&t.row)))
		return 0;
	if (index >= w->req_lo && index < w->req_hi) {
		v->demand += t.pages;
		return 0;
	}
	t.kind = w->kind & 1;
	v->pages[t.kind] += t.pages;
	t.ts = bpf_ktime_get_ns();
	page_of(&p, host, index);
	if (bpf_map_update_elem(&tracked, &p, &t, BPF_NOEXIST)) {
		/* there already (a folio re-added before its page was used), or no room */
		if (bpf_map_update_elem(&tracked, &p, &t, BPF_EXIST))
			__sync_fetch_and_add(&stats.track_full, 1);
	} else {
		__sync_fetch_and_add(&ntracked, 1);
	}
	return 0;
}

struct use_ctx {
	struct ra_page p;
	__u64 last, now;
};

/* One page of an access: a tracked read-ahead page is used now. */
static long use_page(__u64 i, void *arg)
{
	struct use_ctx *u = arg;
	struct ra_tracked *t;
	struct ra_val *v;

	if (u->p.index > u->last)
		return 1;
	t = bpf_map_lookup_elem(&tracked, &u->p);
	if (t) {
		v = bpf_map_lookup_elem(&rows, &t->row);
		if (v)
			v->used += t->pages;
		HIST_PUT(uses, epoch, &t->row, u->now - t->ts, &stats.map_full);
		if (!bpf_map_delete_elem(&tracked, &u->p))
			__sync_fetch_and_add(&ntracked, -1);
	}
	u->p.index++;
	return 0;
}

static __always_inline void use_range(struct address_space *mapping, __u64 lo, __u64 hi)
{
	struct use_ctx u = { .last = hi };

	if (ntracked <= 0)
		return;
	u.now = bpf_ktime_get_ns();
	page_of(&u.p, mapping->host, lo);
	bpf_loop(RA_RANGE_MAX, use_page, &u, 0);
}

/*
 * A read's pages.  filemap_get_pages() skips its tracepoint when a batch
 * ends in a folio still under readahead I/O: it drops that folio and
 * returns, and the read copies the rest unseen; its next call, traced,
 * starts at the dropped folio.  That happens to a sequential reader that
 * catches up with its readahead, so for a thread whose last readahead on
 * this file was async (a sequential stream), the pages between its last
 * traced read and this one were read too.
 */
SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(ra_read, struct address_space *mapping, unsigned long index, unsigned long last)
{
	/* a thread that never read ahead has no storage: nothing to fill in */
	struct ra_now *n = bpf_task_storage_get(&now_ra, bpf_get_current_task_btf(), 0, 0);
	__u64 host = (__u64)mapping->host, lo = index;

	if (n) {
		if (n->acc_host == host && n->host == host && n->kind == RA_ASYNC && n->acc_next < index &&
		    index - n->acc_next <= RA_RANGE_MAX)
			lo = n->acc_next;
		n->acc_host = host;
		n->acc_next = last + 1;
	}
	use_range(mapping, lo, last);
	return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(ra_map, struct address_space *mapping, unsigned long start, unsigned long end)
{
	use_range(mapping, start, end);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(ra_fault, struct address_space *mapping, unsigned long index)
{
	use_range(mapping, index, index);
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(ra_evict, struct folio *folio)
{
	struct ra_tracked *t;
	struct ra_page p;
	struct ra_val *v;

	if (ntracked <= 0)
		return 0;
	page_of(&p, BPF_CORE_READ(folio, mapping, host), BPF_CORE_READ(folio, index));
	t = bpf_map_lookup_elem(&tracked, &p);
	if (!t)
		return 0;
	v = bpf_map_lookup_elem(&rows, &t->row);
	if (v)
		v->wasted += t->pages;
	if (!bpf_map_delete_elem(&tracked, &p))
		__sync_fetch_and_add(&ntracked, -1);
	return 0;
}

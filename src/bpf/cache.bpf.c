// SPDX-License-Identifier: GPL-2.0
/*
 * iodig cache: the page cache from its tracepoints, no kprobe (cachestat
 * in bcc and libbpf-tools hooks functions that became thin wrappers in 5.16
 * and reads 0 misses: bcc PR 5144).
 *
 * - accesses: filemap:mm_filemap_get_pages (6.12+), the page range one
 *   filemap_get_pages() call of a read serves.  A call whose batch holds
 *   fewer pages than asked is followed by another from where it stopped,
 *   for the same range's end: the first then claimed too much, and the
 *   excess is taken back (per thread, in task storage).  The range is cut
 *   at the file's end.
 * - added (misses): mm_filemap_add_to_page_cache, evicted:
 *   mm_filemap_delete_from_page_cache, dirtied: writeback_dirty_folio, each
 *   a folio of 2^order pages; written: writeback_single_inode's pages;
 *   faults: mm_filemap_fault.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"
#include "cache.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_by = CACHE_BY_ALL;
const volatile __u32 filter_pid = 0;

struct cache_stats stats;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, CACHE_ROWS);
	__type(key, struct cache_key);
	__type(value, struct cache_val);
} rows SEC(".maps");

/* a thread's last get_pages: which mapping, which range */
struct cache_cont {
	__u64 mapping;
	__u64 index, last;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cache_cont);
} conts SEC(".maps");

static struct cache_val val_zero;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CACHE_ROWS);
	__type(key, struct cache_key);
	__type(value, struct cache_name);
} names SEC(".maps");

/* room to build a name in (too large for the BPF stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cache_name);
} name_scratch SEC(".maps");

/* A new file row: its name from the inode's first dentry (i_dentry lists
 * the aliases through d_u.d_alias), walking d_parent to the root. */
static __always_inline void name_file(struct inode *host, const struct cache_key *k)
{
	struct hlist_node *first = BPF_CORE_READ(host, i_dentry.first);
	struct dentry *d, *parent;
	struct cache_name *n;
	__u32 zero = 0;

	if (!first)	/* no dentry: named later by whoever holds it open */
		return;
	n = bpf_map_lookup_elem(&name_scratch, &zero);
	if (!n)
		return;
	n->depth = n->cut = 0;
	d = (void *)first - bpf_core_field_offset(struct dentry, d_u.d_alias);
	for (int i = 0; i < CACHE_NAME_DEPTH; i++) {
		parent = BPF_CORE_READ(d, d_parent);
		if (!parent || parent == d)	/* the file system's root */
			break;
		bpf_probe_read_kernel_str(n->comp[i], CACHE_NAME_LEN, BPF_CORE_READ(d, d_name.name));
		n->depth = i + 1;
		d = parent;
	}
	if (n->depth == CACHE_NAME_DEPTH && BPF_CORE_READ(d, d_parent) != d)
		n->cut = 1;
	bpf_map_update_elem(&names, k, n, BPF_NOEXIST);
}

static __always_inline struct cache_val *row(struct inode *host)
{
	struct cache_key k = {};
	struct cache_val *v;

	switch (targ_by) {
	case CACHE_BY_PROCESS:
		k.id = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(k.comm, sizeof(k.comm));
		break;
	case CACHE_BY_CGROUP:
		k.id = bpf_get_current_cgroup_id();
		break;
	case CACHE_BY_FILE:
		if (!host)
			return NULL;
		k.id = BPF_CORE_READ(host, i_ino);
		k.dev = BPF_CORE_READ(host, i_sb, s_dev);
		break;
	}
	v = bpf_map_lookup_elem(&rows, &k);
	if (v)
		return v;
	if (!bpf_map_update_elem(&rows, &k, &val_zero, BPF_NOEXIST) && targ_by == CACHE_BY_FILE)
		name_file(host, &k);
	v = bpf_map_lookup_elem(&rows, &k);
	if (!v)
		__sync_fetch_and_add(&stats.map_full, 1);
	return v;
}

static __always_inline bool wanted(void)
{
	return !filter_pid || (bpf_get_current_pid_tgid() >> 32) == filter_pid;
}

static __always_inline struct inode *folio_host(struct folio *folio)
{
	return BPF_CORE_READ(folio, mapping, host);
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(cache_get_pages, struct address_space *mapping, unsigned long index, unsigned long last)
{
	struct inode *host = mapping->host;
	struct cache_cont *c;
	struct cache_val *v;
	loff_t size;

	if (!wanted() || !host)
		return 0;
	size = host->i_size;
	if (size <= 0)
		return 0;
	if (last > (unsigned long)((size - 1) >> 12))
		last = (size - 1) >> 12;
	if (index > last)
		return 0;
	if (!(v = row(host)))
		return 0;
	c = bpf_task_storage_get(&conts, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c) {
		/* the same read going on: the last call served [c->index, index) only */
		if (c->mapping == (__u64)mapping && c->last == last && index > c->index && index <= c->last)
			v->accesses -= c->last - index + 1;
		c->mapping = (__u64)mapping;
		c->index = index;
		c->last = last;
	}
	v->accesses += last - index + 1;
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(cache_add, struct folio *folio)
{
	struct cache_val *v;

	if (wanted() && (v = row(folio_host(folio))))
		v->added += folio_pages(folio);
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(cache_delete, struct folio *folio)
{
	struct cache_val *v;

	if (wanted() && (v = row(folio_host(folio))))
		v->evicted += folio_pages(folio);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(cache_dirty, struct folio *folio, struct address_space *mapping)
{
	struct cache_val *v;

	if (wanted() && (v = row(mapping ? mapping->host : NULL)))
		v->dirtied += folio_pages(folio);
	return 0;
}

SEC("tp_btf/writeback_single_inode")
int BPF_PROG(cache_written, struct inode *inode, struct writeback_control *wbc, unsigned long nr_to_write)
{
	long wrote = nr_to_write - wbc->nr_to_write;
	struct cache_val *v;

	if (wrote > 0 && wanted() && (v = row(inode)))
		v->written += wrote;
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(cache_fault, struct address_space *mapping, unsigned long index)
{
	struct cache_val *v;

	if (wanted() && (v = row(mapping->host)))
		v->faults++;
	return 0;
}

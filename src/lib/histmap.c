// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "histmap.h"
#include "hist_user.h"
#include <stdbool.h>
#include <stdint.h>

struct spilled {
	unsigned char key[HIST_SPILL_KEY];
	uint64_t v;
	bool used;
};

/* Entry e of a spill list onto out (room for nhist more): one value, or,
 * where a map of nhist histograms a key spilled a request's values in one
 * (HIST_SPILL_ALL in the key's idx byte), one for each in its mask, each
 * with its histogram's index there.  The count put. */
static int spill_expand(const unsigned char *key, uint64_t v, size_t key_size, unsigned nhist, size_t idx_off,
			struct spilled *out)
{
	int k = 0;

	if (nhist <= 1 || key[idx_off] != HIST_SPILL_ALL) {
		memcpy(out->key, key, HIST_SPILL_KEY);
		out->v = v;
		out->used = false;
		return 1;
	}
	for (unsigned p = 0; p < nhist && HIST_SPILL_VOFF(key_size) + 8 * (p + 1) <= HIST_SPILL_KEY; p++) {
		if (!(v & (1u << p)))
			continue;
		memset(out[k].key, 0, HIST_SPILL_KEY);
		memcpy(out[k].key, key, key_size);
		out[k].key[idx_off] = p;
		memcpy(&out[k].v, key + HIST_SPILL_VOFF(key_size) + 8 * p, sizeof(out[k].v));
		out[k++].used = false;
	}
	return k;
}

/* The epoch's spill lists of every CPU, read (and emptied, where take):
 * *n values. */
static struct spilled *read_spill(int spill_fd, __u32 epoch, int ncpus, size_t key_size, unsigned nhist,
				  size_t idx_off, bool take, int *n)
{
	size_t ssz = (sizeof(struct hist_spill) + 7) & ~7UL;
	char *per = spill_fd >= 0 ? calloc(ncpus, ssz) : NULL;
	struct spilled *out = NULL;

	*n = 0;
	if (!per || bpf_map_lookup_elem(spill_fd, &epoch, per))
		goto out;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct hist_spill *sp = (const void *)(per + cpu * ssz);
		unsigned m = sp->n < HIST_SPILL_N ? sp->n : HIST_SPILL_N;
		struct spilled *o;

		if (!m || !(o = realloc(out, (*n + (size_t)m * (nhist ? nhist : 1)) * sizeof(*out))))
			continue;
		out = o;
		for (unsigned i = 0; i < m; i++)
			*n += spill_expand(sp->e[i].key, sp->e[i].v, key_size, nhist, idx_off, out + *n);
	}
	if (*n && take) {
		memset(per, 0, ssz * ncpus);
		bpf_map_update_elem(spill_fd, &epoch, per, BPF_ANY);
	}
out:
	free(per);
	return out;
}

/* The spilled values of key into h, marked used. */
static void fold(struct hist *h, const void *key, size_t key_size, struct spilled *sv, int n)
{
	for (int i = 0; i < n; i++)
		if (!sv[i].used && !memcmp(sv[i].key, key, key_size)) {
			hist__add(h, sv[i].v);
			sv[i].used = true;
		}
}

/* Key (its value index made 0 where a value holds nhist histograms, the
 * map's own key) made in the map with an empty value, unless it is there:
 * 0 when made. */
static int make_empty(int fd, const unsigned char *key, size_t key_size, unsigned nhist, size_t idx_off,
		      const void *zero)
{
	unsigned char xkey[HIST_SPILL_KEY];

	memcpy(xkey, key, key_size);
	if (nhist > 1)
		xkey[idx_off] = 0;
	return bpf_map_update_elem(fd, xkey, zero, BPF_NOEXIST);
}

int histmap__drain_n(int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist, size_t idx_off,
		     histmap_fn fn, void *ctx)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	/* the histograms first in each CPU's value, a busy word may follow
	 * (HIST_N_VALUE): the map says its value's size */
	size_t vsz = bpf_obj_get_info_by_fd(fd, &info, &ilen) ? nhist * sizeof(struct hist) : info.value_size;
	int ncpus = libbpf_num_possible_cpus(), err = 0, n = 0, cap = 64, nsv = 0;
	char *keys = malloc(cap * key_size), *percpu;
	struct hist *sum = malloc(nhist * sizeof(*sum));
	unsigned char xkey[HIST_SPILL_KEY];
	struct spilled *sv = NULL;
	void *prev = NULL;

	vsz = (vsz + 7) & ~7UL;
	percpu = malloc(vsz * ncpus);
	if (!keys || !percpu || !sum || vsz < nhist * sizeof(struct hist) || key_size > HIST_SPILL_KEY ||
	    (nhist > 1 && idx_off >= key_size)) {
		err = -ENOMEM;
		goto out;
	}
	sv = read_spill(spill_fd, epoch, ncpus, key_size, nhist, idx_off, true, &nsv);
	/* Collect the keys first: deleting while walking restarts the walk. */
	while (bpf_map_get_next_key(fd, prev, keys + n * key_size) == 0) {
		prev = keys + n * key_size;
		if (++n == cap) {
			char *k = realloc(keys, 2 * cap * key_size);

			if (!k) {
				err = -ENOMEM;
				goto out;
			}
			keys = k;
			cap *= 2;
			prev = keys + (n - 1) * key_size;
		}
	}
	for (int i = 0; i < n && !err; i++) {
		void *key = keys + i * key_size;
		bool used = false;

		if (bpf_map_lookup_elem(fd, key, percpu))
			continue;
		memset(sum, 0, nhist * sizeof(*sum));
		for (int cpu = 0; cpu < ncpus; cpu++)
			for (unsigned p = 0; p < nhist; p++)
				hist__merge(&sum[p], (struct hist *)(percpu + cpu * vsz) + p);
		memcpy(xkey, key, key_size);
		for (unsigned p = 0; p < nhist; p++) {
			if (nhist > 1)
				xkey[idx_off] = p;
			fold(&sum[p], xkey, key_size, sv, nsv);
			used |= sum[p].count > 0;
		}
		/* A key used since its last drain is kept, emptied: the programs
		 * find it next time instead of allocating it again, an allocation
		 * that can fail in their context (hist.bpf.h).  A key unused since
		 * is deleted, so keys of the gone do not pile up. */
		if (!used) {
			bpf_map_delete_elem(fd, key);
			continue;
		}
		memset(percpu, 0, vsz * ncpus);
		if (bpf_map_update_elem(fd, key, percpu, BPF_EXIST))
			bpf_map_delete_elem(fd, key);
		for (unsigned p = 0; p < nhist && !err; p++) {
			if (!sum[p].count)
				continue;
			if (nhist > 1)
				xkey[idx_off] = p;
			err = fn(ctx, xkey, &sum[p]);
		}
	}
	/* keys that had no room in the map at all: from their spills alone;
	 * and made here, empty, so that the programs find them next time
	 * (made in their context, a new key's value can find the kernel's
	 * per-CPU allocator empty for a while: hist.bpf.h) */
	memset(percpu, 0, vsz * ncpus);
	for (int i = 0; i < nsv && !err; i++) {
		if (sv[i].used)
			continue;
		memset(sum, 0, sizeof(*sum));
		fold(sum, sv[i].key, key_size, sv + i, nsv - i);
		err = fn(ctx, sv[i].key, sum);
		make_empty(fd, sv[i].key, key_size, nhist, idx_off, percpu);
	}
out:
	free(sv);
	free(keys);
	free(percpu);
	free(sum);
	return err;
}

int histmap__drain(int fd, int spill_fd, __u32 epoch, size_t key_size, histmap_fn fn, void *ctx)
{
	return histmap__drain_n(fd, spill_fd, epoch, key_size, 1, 0, fn, ctx);
}

__u32 histmap__flip(__u32 *epoch)
{
	__u32 old = *epoch & 1;

	*epoch = old ^ 1;
	bpfenv__wait_programs();
	return old;
}

static int drain_rows(int fd, size_t key_size, unsigned nhist, size_t idx_off, histmap_fn fn, void *ctx)
{
	/* a row: the key, a word saying it is held, the histograms
	 * (HIST_ROW), each 8-aligned */
	size_t used_off = (key_size + 7) & ~7UL, hist_off = used_off + 8, vsz;
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	unsigned char xkey[HIST_SPILL_KEY];
	char *buf;

	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) || ncpus <= 0 || key_size > HIST_SPILL_KEY ||
	    (nhist > 1 && idx_off >= key_size))
		return -EINVAL;
	vsz = (info.value_size + 7) & ~7UL;
	if (vsz < hist_off + nhist * sizeof(struct hist))
		return -EINVAL;
	if (!(buf = calloc(ncpus, vsz)))
		return -ENOMEM;
	for (__u32 i = 0; i < info.max_entries && !err; i++) {
		bool any = false;

		if (bpf_map_lookup_elem(fd, &i, buf))
			continue;
		for (int cpu = 0; cpu < ncpus && !err; cpu++) {
			const char *r = buf + cpu * vsz;

			if (!*(const __u64 *)(r + used_off))
				continue;
			any = true;
			memcpy(xkey, r, key_size);
			for (unsigned p = 0; p < nhist && !err; p++) {
				const struct hist *h = (const struct hist *)(r + hist_off) + p;

				if (!h->count)
					continue;
				if (nhist > 1)
					xkey[idx_off] = p;
				err = fn(ctx, xkey, h);
			}
		}
		if (any) {	/* emptied, and free for any key */
			memset(buf, 0, ncpus * vsz);
			bpf_map_update_elem(fd, &i, buf, BPF_ANY);
		}
	}
	free(buf);
	return err;
}

int histmap__drain_rows(int rows_fd, int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist,
			size_t idx_off, histmap_fn fn, void *ctx)
{
	int err = drain_rows(rows_fd, key_size, nhist, idx_off, fn, ctx);

	return err ? err : histmap__drain_n(fd, spill_fd, epoch, key_size, nhist, idx_off, fn, ctx);
}

int histmap__make_spilled(int fd, int spill_fd, __u32 epoch, size_t key_size, unsigned nhist, size_t idx_off)
{
	int ncpus = libbpf_num_possible_cpus(), made = 0, n;
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	struct spilled *sv;
	char *zero = NULL;

	if (spill_fd < 0 || ncpus <= 0 || key_size > HIST_SPILL_KEY || (nhist > 1 && idx_off >= key_size) ||
	    bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return 0;
	sv = read_spill(spill_fd, epoch, ncpus, key_size, nhist, idx_off, false, &n);
	for (int i = 0; i < n; i++) {
		if (nhist > 1)
			sv[i].key[idx_off] = 0;	/* (the map's key: each value's names it) */
		if (i && !memcmp(sv[i - 1].key, sv[i].key, key_size))
			continue;	/* (a run of one key's values: made once) */
		if (!zero && !(zero = calloc(ncpus, (info.value_size + 7) & ~7UL)))
			break;
		if (!make_empty(fd, sv[i].key, key_size, nhist, idx_off, zero))
			made++;
	}
	free(sv);
	free(zero);
	return made;
}

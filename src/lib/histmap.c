// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "histmap.h"
#include "hist_user.h"

int histmap__drain(int fd, size_t key_size, histmap_fn fn, void *ctx)
{
	size_t vsz = (sizeof(struct hist) + 7) & ~7UL;
	int ncpus = libbpf_num_possible_cpus(), err = 0, n = 0, cap = 64;
	char *keys = malloc(cap * key_size), *percpu = malloc(vsz * ncpus);
	struct hist *sum = malloc(sizeof(*sum));
	void *prev = NULL;

	if (!keys || !percpu || !sum) {
		err = -ENOMEM;
		goto out;
	}
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

		if (bpf_map_lookup_elem(fd, key, percpu))
			continue;
		memset(sum, 0, sizeof(*sum));
		for (int cpu = 0; cpu < ncpus; cpu++)
			hist__merge(sum, (struct hist *)(percpu + cpu * vsz));
		/* A key used since its last drain is kept, emptied: the programs
		 * find it next time instead of allocating it again, an allocation
		 * that can fail in their context (a CI run lost 2 of 300 requests
		 * to it, counted as map_full).  A key unused since is deleted, so
		 * keys of the gone do not pile up. */
		if (!sum->count) {
			bpf_map_delete_elem(fd, key);
			continue;
		}
		memset(percpu, 0, vsz * ncpus);
		if (bpf_map_update_elem(fd, key, percpu, BPF_EXIST))
			bpf_map_delete_elem(fd, key);
		err = fn(ctx, key, sum);
	}
out:
	free(keys);
	free(percpu);
	free(sum);
	return err;
}

__u32 histmap__flip(__u32 *epoch)
{
	__u32 old = *epoch & 1;

	*epoch = old ^ 1;
	bpfenv__wait_programs();
	return old;
}

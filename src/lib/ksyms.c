// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "sort.h"

/* Names are kept as offsets into strs while it grows, pointers after. */
static long add_str(struct ksyms *k, const char *s)
{
	size_t len = strlen(s) + 1;
	long off = (long)k->slen;

	if (k->slen + len > k->scap) {
		size_t cap = k->scap ? k->scap * 2 : 1 << 20;
		char *p;

		while (cap < k->slen + len)
			cap *= 2;
		if (!(p = realloc(k->strs, cap)))
			return -1;
		k->strs = p;
		k->scap = cap;
	}
	memcpy(k->strs + k->slen, s, len);
	k->slen += len;
	return off;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms__load(struct ksyms *k, const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
	char line[512];

	memset(k, 0, sizeof(*k));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256], mod[128] = "";
		long noff, moff = -1;

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod) < 3 || !addr)
			continue;
		/* text symbols only: data and absolute symbols are no code */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (k->n == k->cap) {
			size_t cap = k->cap ? k->cap * 2 : 65536;
			struct ksym *s = realloc(k->syms, cap * sizeof(*s));

			if (!s)
				goto nomem;
			k->syms = s;
			k->cap = cap;
		}
		if ((noff = add_str(k, name)) < 0 || (mod[0] && (moff = add_str(k, mod)) < 0))
			goto nomem;
		k->syms[k->n++] = (struct ksym){ addr, (const char *)noff, (const char *)moff };
	}
	fclose(f);
	for (size_t i = 0; i < k->n; i++) {
		k->syms[i].name = k->strs + (long)k->syms[i].name;
		k->syms[i].module = (long)k->syms[i].module < 0 ? NULL : k->strs + (long)k->syms[i].module;
	}
	sort__any(k->syms, k->n, sizeof(*k->syms), cmp_addr);
	return 0;
nomem:
	fclose(f);
	ksyms__free(k);
	return -ENOMEM;
}

const struct ksym *ksyms__find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {	/* syms[lo].addr <= addr < syms[hi].addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &k->syms[lo];
}

uint64_t ksyms__addr(const struct ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->syms[i].name, name))
			return k->syms[i].addr;
	return 0;
}

void ksyms__free(struct ksyms *k)
{
	free(k->syms);
	free(k->strs);
	memset(k, 0, sizeof(*k));
}

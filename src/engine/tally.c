// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "counters.h"
#include "log.h"
#include "rows.h"
#include "run.h"
#include "tally.h"
#include "sort.h"

static size_t counters_of(const struct tally *t)
{
	size_t all = t->val_size / sizeof(uint64_t);

	return t->counters && t->counters < all ? t->counters : all;
}

int tally__collect(struct tally *t)
{
	char key[256], next[256], val[4096];
	const void *prev = NULL;
	size_t nc = counters_of(t);

	if (t->key_size > sizeof(key) || t->val_size > sizeof(val))
		return -EINVAL;
	for (size_t i = 0; i < t->n; i++)
		memset((char *)t->rows + i * t->row_size + t->d_off, 0, t->val_size);
	while (!bpf_map_get_next_key(t->map_fd, prev, next)) {
		char *r;
		uint64_t *last, *d, *v = (uint64_t *)val;

		memcpy(key, next, t->key_size);
		prev = key;
		if (bpf_map_lookup_elem(t->map_fd, key, val))
			continue;	/* gone since (a map the kernel side deletes from) */
		if (!(r = rows__get(&t->rows, &t->n, &t->cap, t->row_size, key, t->key_size)))
			return -ENOMEM;
		last = (uint64_t *)(r + t->last_off);
		d = (uint64_t *)(r + t->d_off);
		for (size_t k = 0; k < t->val_size / sizeof(uint64_t); k++)
			d[k] = k < nc ? v[k] - last[k] : v[k];
		memcpy(last, val, t->val_size);
	}
	if (t->cmp)
		sort__any(t->rows, t->n, t->row_size, t->cmp);
	return 0;
}

static bool moved(const struct tally *t, const char *r)
{
	const uint64_t *d = (const uint64_t *)(r + t->d_off);

	for (size_t k = 0; k < counters_of(t); k++)
		if (d[k])
			return true;
	return false;
}

size_t tally__print(struct tally *t, struct json *j, bool json, const struct fctx *fc)
{
	size_t shown = 0;

	for (size_t i = 0; i < t->n; i++) {
		const char *r = (const char *)t->rows + i * t->row_size;

		if (!moved(t, r))
			continue;
		if (json)
			fields__json(j, t->rec, r, fc);
		else if (t->rec->lines)
			fields__lines(stdout, t->rec, r, fc);
		else {
			if (!shown)
				fields__head(stdout, t->rec, fc);
			fields__text(stdout, t->rec, r, fc);
		}
		shown++;
	}
	return shown;
}

static const struct counter tally_counters[] = {
	{ "rows", 0, NULL },
	{ "map_full", 8, "lost: %llu events found the table full" },
};

#define TE(f) offsetof(struct tally_end, f)
const struct field tally_end_fields[4] = {
	{ "interval", FS_U64, TE(interval) },
	{ "ts_ns", FS_U64, TE(ts_ns) },
	{ NULL, FS_PSTR, TE(none), .fmt = "%s\n" },
	{ "counters", FS_COUNTERS, TE(v), .sub = tally_counters, .nsub = COUNTERS_N(tally_counters), .fmt = "" },
};

int tally__report(void *tally, bool last)
{
	struct tally *t = tally;
	struct fctx fc = { .interval = ++t->interval };
	struct tally_end e = { t->interval };

	if (tally__collect(t))
		return fail("collecting rows", "out of memory");
	e.v.rows = tally__print(t, t->j, t->json, &fc);
	e.ts_ns = run__mono_ns();
	e.v.map_full = t->map_full ? *t->map_full : 0;
	e.none = e.v.rows ? NULL : t->none;
	if (t->json)
		fields__json(t->j, t->end, &e, &fc);
	else
		fields__lines(stdout, t->end, &e, &fc);
	return 0;
}

void tally__free(struct tally *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

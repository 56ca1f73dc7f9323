// SPDX-License-Identifier: GPL-2.0
/*
 * vmlinux BTF cut down to what iodig asks of it, with every type ID kept.
 *
 * libbpf needs the kernel's BTF at load for two things: CO-RE relocations
 * (candidates found by name and kind, then walked member by member) and
 * tp_btf attach points (the btf_trace_<tp> typedef's ID, which the kernel
 * is given).  iodig's set-up reads enumerators, a few structs' members and
 * the tracepoints' prototypes.  None of that needs the other 90% of the
 * 5.5 MB: a kept type is copied whole, with the types it holds (members,
 * array elements, typedef targets, prototypes), but not what its pointers
 * point to, unless that is kept in its own right.  Every other ID becomes a
 * nameless FWD, 12 bytes, so IDs (which the kernel is given for tp_btf)
 * stay the kernel's own.  Pointers are compatible with any pointer in
 * libbpf's field matching (bpf_core_fields_are_compat), so a pointer to a
 * placeholder changes no relocation.
 *
 * Kept: every type with one of the caller's names (iodig's: the names its
 * BPF objects give types, flavours ___x stripped; the build writes them to
 * btf_roots.c), every enum (set-up looks enumerators up by name alone),
 * every btf_trace_ typedef with its prototype.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btfslim.h"

struct raw {
	const char *types, *strs;
	uint32_t types_len, strs_len;
	uint32_t *off;		/* by ID - 1: offset in types */
	uint32_t n;		/* IDs 1..n */
};

/* bytes after struct btf_type, or -1 for a kind this code does not know */
static long tail_of(const struct btf_type *t)
{
	uint16_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:		return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
					return 0;
	case BTF_KIND_ARRAY:		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
					return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:	return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:		return sizeof(struct btf_decl_tag);
	default:			return -1;
	}
}

static int raw_open(struct raw *r, const void *data, size_t size)
{
	const struct btf_header *h = data;
	uint32_t cap = 0, pos = 0;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size)
		return -EINVAL;	/* (also the other byte order: libbpf's own way then) */
	r->types = (const char *)data + h->hdr_len + h->type_off;
	r->strs = (const char *)data + h->hdr_len + h->str_off;
	r->types_len = h->type_len;
	r->strs_len = h->str_len;
	r->off = NULL;
	r->n = 0;
	while (pos < r->types_len) {
		const struct btf_type *t = (const void *)(r->types + pos);
		long tail;

		if (pos + sizeof(*t) > r->types_len || (tail = tail_of(t)) < 0 ||
		    pos + sizeof(*t) + tail > r->types_len) {
			free(r->off);
			return -EINVAL;
		}
		if (r->n == cap) {
			uint32_t *o = realloc(r->off, (cap = cap ? cap * 2 : 65536) * sizeof(*o));

			if (!o) {
				free(r->off);
				return -ENOMEM;
			}
			r->off = o;
		}
		r->off[r->n++] = pos;
		pos += sizeof(*t) + tail;
	}
	return 0;
}

static const struct btf_type *type_of(const struct raw *r, uint32_t id)
{
	return (const void *)(r->types + r->off[id - 1]);
}

static const char *name_of(const struct raw *r, uint32_t off)
{
	return off < r->strs_len ? r->strs + off : "";
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_root(const char *name, const char *const *roots, unsigned int nroots)
{
	if (!*name)
		return false;
	if (!strncmp(name, "btf_trace_", 10))
		return true;
	return bsearch(&name, roots, nroots, sizeof(*roots), cmp_name);
}

struct walk {
	const struct raw *r;
	uint8_t *keep;
	uint32_t *stack;
	uint32_t depth;
};

static void push(struct walk *w, uint32_t id)
{
	if (id && id <= w->r->n && !w->keep[id]) {
		w->keep[id] = 1;
		w->stack[w->depth++] = id;	/* at most n: each ID once */
	}
}

/* What a kept type holds, kept with it; a pointer's target is not, except
 * a tracepoint typedef's prototype (set-up reads its parameters). */
static void hold(struct walk *w, uint32_t id)
{
	const struct btf_type *t = type_of(w->r, id);
	uint16_t vlen = BTF_INFO_VLEN(t->info);
	const void *tail = t + 1;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
		break;
	case BTF_KIND_TYPEDEF: {
		const struct btf_type *p;

		push(w, t->type);
		if (!strncmp(name_of(w->r, t->name_off), "btf_trace_", 10) && t->type &&
		    t->type <= w->r->n && BTF_INFO_KIND((p = type_of(w->r, t->type))->info) == BTF_KIND_PTR)
			push(w, p->type);
		break;
	}
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		push(w, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = tail;

		push(w, a->type);
		push(w, a->index_type);
		break;
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
		const struct btf_member *m = tail;

		for (int i = 0; i < vlen; i++)
			push(w, m[i].type);
		break;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = tail;

		push(w, t->type);
		for (int i = 0; i < vlen; i++)
			push(w, p[i].type);
		break;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = tail;

		for (int i = 0; i < vlen; i++)
			push(w, v[i].type);
		break;
	}
	default:
		break;
	}
}

/* The BTF made: header, types, then strings, in one buffer that grows.
 * Built raw and handed to btf__new(), which copies it once; libbpf's writing
 * API would not copy, but keeps a hash of every string it holds, 40k of
 * them here: 4.4 MB where this costs 2 x 2.2 for a moment, then 2.2. */
struct out {
	char *buf;
	size_t len, cap;
	char *s;		/* the strings, apart until the end */
	size_t slen, scap;
	bool failed;
};

static void *grow(char **buf, size_t *len, size_t *cap, size_t n, bool *failed)
{
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 1 << 16;
		char *b;

		while (c < *len + n)
			c *= 2;
		if (!(b = realloc(*buf, c))) {
			*failed = true;
			return NULL;
		}
		*buf = b;
		*cap = c;
	}
	*len += n;
	return *buf + *len - n;
}

/* A name's offset in the strings made: each use its own copy (the kept
 * names are few; finding repeats would need the hash this avoids). */
static uint32_t str_add(struct out *o, const char *name)
{
	size_t n = strlen(name) + 1;
	char *p;

	if (n == 1 || !(p = grow(&o->s, &o->slen, &o->scap, n, &o->failed)))
		return 0;
	memcpy(p, name, n);
	return p - o->s;
}

/* A kept type as it is, its names' offsets made anew. */
static void put_kept(struct out *o, const struct raw *r, uint32_t id)
{
	const struct btf_type *t = type_of(r, id);
	size_t n = sizeof(*t) + tail_of(t);
	uint16_t vlen = BTF_INFO_VLEN(t->info);
	struct btf_type *d = grow(&o->buf, &o->len, &o->cap, n, &o->failed);

	if (!d)
		return;
	memcpy(d, t, n);
	d->name_off = str_add(o, name_of(r, t->name_off));
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (struct btf_member *m = (void *)(d + 1); m < (struct btf_member *)(d + 1) + vlen; m++)
			m->name_off = str_add(o, name_of(r, m->name_off));
		break;
	case BTF_KIND_ENUM:
		for (struct btf_enum *e = (void *)(d + 1); e < (struct btf_enum *)(d + 1) + vlen; e++)
			e->name_off = str_add(o, name_of(r, e->name_off));
		break;
	case BTF_KIND_ENUM64:
		for (struct btf_enum64 *e = (void *)(d + 1); e < (struct btf_enum64 *)(d + 1) + vlen; e++)
			e->name_off = str_add(o, name_of(r, e->name_off));
		break;
	case BTF_KIND_FUNC_PROTO:
		for (struct btf_param *p = (void *)(d + 1); p < (struct btf_param *)(d + 1) + vlen; p++)
			p->name_off = str_add(o, name_of(r, p->name_off));
		break;
	default:
		break;
	}
}

struct btf *btfslim__new(const void *data, size_t size, const char *const *roots, unsigned int nroots,
			 struct btfslim_stats *st)
{
	struct raw r;
	struct walk w = {};
	struct out o = {};
	struct btf *b = NULL;
	int err = ENOMEM;

	if ((err = raw_open(&r, data, size))) {
		errno = -err;
		return NULL;
	}
	err = ENOMEM;
	w.r = &r;
	w.keep = calloc(r.n + 1, 1);
	w.stack = malloc((r.n + 1) * sizeof(*w.stack));
	if (!w.keep || !w.stack)
		goto out;
	for (uint32_t id = 1; id <= r.n; id++) {
		const struct btf_type *t = type_of(&r, id);
		int k = BTF_INFO_KIND(t->info);

		if (k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64 ||
		    (k != BTF_KIND_FUNC && k != BTF_KIND_VAR && k != BTF_KIND_DATASEC &&
		     k != BTF_KIND_DECL_TAG && is_root(name_of(&r, t->name_off), roots, nroots)))
			push(&w, id);
	}
	while (w.depth)
		hold(&w, w.stack[--w.depth]);

	if (!grow(&o.s, &o.slen, &o.scap, 1, &o.failed) ||	/* offset 0: the empty name */
	    !grow(&o.buf, &o.len, &o.cap, sizeof(struct btf_header), &o.failed))
		goto out;
	o.s[0] = 0;
	for (uint32_t id = 1; id <= r.n && !o.failed; id++) {
		if (!w.keep[id]) {	/* a placeholder: a nameless FWD */
			struct btf_type *d = grow(&o.buf, &o.len, &o.cap, sizeof(*d), &o.failed);

			if (d)
				*d = (struct btf_type){ .info = BTF_KIND_FWD << 24 };
			continue;
		}
		put_kept(&o, &r, id);
		if (st) {
			st->kept++;
			st->kept_bytes += (id < r.n ? r.off[id] : r.types_len) - r.off[id - 1];
		}
	}
	if (st)
		st->types = r.n;
	{
		size_t tl = o.len - sizeof(struct btf_header);
		char *p = o.failed ? NULL : grow(&o.buf, &o.len, &o.cap, o.slen, &o.failed);

		if (!p)
			goto out;
		memcpy(p, o.s, o.slen);
		*(struct btf_header *)o.buf = (struct btf_header){
			.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(struct btf_header),
			.type_off = 0, .type_len = tl, .str_off = tl, .str_len = o.slen };
	}
	/* all but the made BTF go before libbpf's copy of it */
	free(o.s);
	o.s = NULL;
	free(r.off);
	r.off = NULL;
	free(w.keep);
	w.keep = NULL;
	if (st)
		st->bytes = o.len;
	if (libbpf_get_error(b = btf__new(o.buf, o.len))) {
		err = -libbpf_get_error(b);
		b = NULL;
	}
out:
	free(o.buf);
	free(o.s);
	free(r.off);
	free(w.keep);
	free(w.stack);
	if (!b)
		errno = err;
	return b;
}

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
 * point to, unless that is kept in its own right.  Every other ID up to the
 * last one kept or referred to becomes a nameless FWD, 12 bytes, so IDs
 * (which the kernel is given for tp_btf) stay the kernel's own; the IDs
 * after it are left out.  Pointers are compatible with any pointer in
 * libbpf's field matching (bpf_core_fields_are_compat), so a pointer to a
 * placeholder changes no relocation.
 *
 * Kept: every type with one of the caller's names (iodig's: the names its
 * BPF objects give types, flavours ___x stripped; the build writes them to
 * btf_roots.c), every enum with such a name or with an enumerator of such
 * a name (set-up looks some enumerators up by name alone; the build finds
 * those lookups in the C sources), every btf_trace_ typedef with its
 * prototype.
 *
 * The file is read where it lies (mapped, 6.16 and later) or in pieces
 * (pread): never whole in our memory, which before 6.16 would be 4-5 MB at
 * the peak.  Its strings are read twice in order, once to find the names
 * wanted, once to copy those the kept types use; its types once in order,
 * then the kept ones again by ID.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btfslim.h"
#include "sort.h"

#define CHUNK (64 << 10)

/* The file: mapped, or read from fd. */
struct src {
	const char *map;
	int fd;
	size_t size;
	uint32_t types_at, types_len, strs_at, strs_len;	/* file offsets */
};

static int src_read(const struct src *s, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off + n > s->size)
		return -EINVAL;
	if (s->map) {
		memcpy(buf, s->map + off, n);
		return 0;
	}
	while (got < n) {
		ssize_t r = pread(s->fd, (char *)buf + got, n - got, off + got);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += r;
	}
	return 0;
}

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

/* A sequential reader over [at, at + len) of the file, a chunk at a time. */
struct seq {
	const struct src *s;
	uint64_t at, end;	/* file offsets: buf[0] is at, the part ends at end */
	char *buf;
	size_t have, pos;	/* bytes in buf, next one to hand out */
};

/* At least n bytes from the reader's position, or NULL (the part ended). */
static const char *seq_need(struct seq *q, size_t n)
{
	if (q->pos + n > q->have) {
		size_t keep = q->have - q->pos, want;

		if (n > CHUNK || q->at + q->pos + n > q->end)
			return NULL;
		memmove(q->buf, q->buf + q->pos, keep);
		q->at += q->pos;
		q->pos = 0;
		want = q->end - q->at < CHUNK ? q->end - q->at : CHUNK;
		if (src_read(q->s, q->at + keep, q->buf + keep, want - keep))
			return NULL;
		q->have = want;
	}
	return q->buf + q->pos;
}

/* The NUL-ended string at the reader's position, its length in *len; NULL
 * if there is none (or it is longer than a chunk: no name is). */
static const char *seq_str(struct seq *q, size_t *len)
{
	const char *p, *e;

	for (size_t n = 1; n <= CHUNK && (p = seq_need(q, n)); n = q->have - q->pos + 1)
		if ((e = memchr(p, 0, q->have - q->pos))) {
			*len = e - p;
			return p;
		}
	return NULL;
}

/* To file offset at, at or after the reader's position. */
static void seq_seek(struct seq *q, uint64_t at)
{
	if (at < q->at + q->have) {
		q->pos = at - q->at;
	} else {
		q->at = at;
		q->have = q->pos = 0;
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A growing array of u32. */
struct u32s {
	uint32_t *v;
	size_t n, cap;
};

static int u32s_add(struct u32s *a, uint32_t x)
{
	if (a->n == a->cap) {
		size_t c = a->cap ? a->cap * 2 : 1024;
		uint32_t *v = realloc(a->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = c;
	}
	a->v[a->n++] = x;
	return 0;
}

static bool u32s_has(const struct u32s *a, uint32_t x)
{
	return a->n && bsearch(&x, a->v, a->n, sizeof(x), cmp_u32);
}

/* Pass 1, the strings in order: the offsets of those that are a root's name
 * (names), and of those a tracepoint typedef's (traces); sorted, as they
 * come. */
static int root_names(const struct src *s, const char *const *roots, unsigned int nroots, struct u32s *names,
		      struct u32s *traces)
{
	struct seq q = { .s = s, .at = s->strs_at, .end = (uint64_t)s->strs_at + s->strs_len };
	int err = 0;

	if (!(q.buf = malloc(CHUNK)))
		return -ENOMEM;
	while (q.at + q.pos < q.end) {
		size_t n;
		const char *p = seq_str(&q, &n);

		if (!p) {
			err = -EINVAL;	/* unended, or longer than a name can be */
			break;
		}
		if (!*p)
			;
		else if (!strncmp(p, "btf_trace_", 10))
			err = u32s_add(traces, q.at + q.pos - s->strs_at);
		else if (bsearch(&p, roots, nroots, sizeof(*roots), cmp_name))
			err = u32s_add(names, q.at + q.pos - s->strs_at);
		if (err)
			break;
		q.pos += n + 1;
	}
	free(q.buf);
	return err;
}

struct cut {
	const struct src *s;
	struct u32s off;	/* by ID - 1: offset in the type section (IDs 1..off.n) */
	uint8_t *keep;		/* by ID */
	uint32_t *stack, depth;
	uint32_t last;		/* the highest ID kept or referred to by a kept type */
	char *rec;		/* one type record, read */
	size_t rec_cap;
};

static size_t size_of(const struct cut *c, uint32_t id)
{
	return (id < c->off.n ? c->off.v[id] : c->s->types_len) - c->off.v[id - 1];
}

/* Type id's record, read into c->rec. */
static const struct btf_type *rec_of(struct cut *c, uint32_t id)
{
	size_t n = size_of(c, id);

	if (n > c->rec_cap) {
		char *r = realloc(c->rec, n);

		if (!r)
			return NULL;
		c->rec = r;
		c->rec_cap = n;
	}
	if (src_read(c->s, (uint64_t)c->s->types_at + c->off.v[id - 1], c->rec, n))
		return NULL;
	return (const void *)c->rec;
}

/* id must be in the BTF made: the cut ends at the last such ID */
static void refer(struct cut *c, uint32_t id)
{
	if (id <= c->off.n && id > c->last)
		c->last = id;
}

static void push(struct cut *c, uint32_t id)
{
	refer(c, id);
	if (id && id <= c->off.n && !c->keep[id]) {
		c->keep[id] = 1;
		c->stack[c->depth++] = id;	/* at most n: each ID once */
	}
}

/* What a kept type holds, kept with it; a pointer's target is not, except
 * a tracepoint typedef's prototype (set-up reads its parameters). */
static void hold(struct cut *c, const struct btf_type *t, bool trace)
{
	const void *tail = t + 1;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:	/* its target's ID must be there, as a placeholder */
		refer(c, t->type);
		break;
	case BTF_KIND_TYPEDEF: {
		uint32_t to = t->type;

		push(c, to);
		if (trace && to && to <= c->off.n && (t = rec_of(c, to)) && BTF_INFO_KIND(t->info) == BTF_KIND_PTR)
			push(c, t->type);
		break;
	}
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG: case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		push(c, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = tail;

		push(c, a->type);
		push(c, a->index_type);
		break;
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
		const struct btf_member *m = tail;

		for (unsigned int i = 0; i < BTF_INFO_VLEN(t->info); i++)
			push(c, m[i].type);
		break;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = tail;

		push(c, t->type);
		for (unsigned int i = 0; i < BTF_INFO_VLEN(t->info); i++)
			push(c, p[i].type);
		break;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = tail;

		for (unsigned int i = 0; i < BTF_INFO_VLEN(t->info); i++)
			push(c, v[i].type);
		break;
	}
	default:
		break;
	}
}

/* An enum with an enumerator named in names: set-up looks some up by the
 * enumerator alone (bpfenv__enumerator(); scripts/btf-roots finds them). */
static bool enumerator_named(const struct btf_type *t, const struct u32s *names)
{
	size_t each = BTF_INFO_KIND(t->info) == BTF_KIND_ENUM ? sizeof(struct btf_enum) : sizeof(struct btf_enum64);
	const char *e = (const char *)(t + 1);

	for (unsigned int i = 0; i < BTF_INFO_VLEN(t->info); i++, e += each) {
		uint32_t name_off;

		memcpy(&name_off, e, sizeof(name_off));	/* each entry's first field */
		if (u32s_has(names, name_off))
			return true;
	}
	return false;
}

/* Pass 2, the types in order: each one's offset, and the IDs of the roots
 * (named by one of names or traces, or an enum with such an enumerator). */
static int scan_types(struct cut *c, const struct u32s *names, const struct u32s *traces, struct u32s *rootids)
{
	const struct src *s = c->s;
	struct seq q = { .s = s, .at = s->types_at, .end = (uint64_t)s->types_at + s->types_len };
	int err = 0;

	if (!(q.buf = malloc(CHUNK)))
		return -ENOMEM;
	while (q.at + q.pos < q.end) {
		const struct btf_type *t = (const void *)seq_need(&q, sizeof(*t));
		long tail = t ? tail_of(t) : -1;
		int k;

		if (tail < 0 || !seq_need(&q, sizeof(*t) + tail)) {
			err = -EINVAL;
			break;
		}
		t = (const void *)(q.buf + q.pos);	/* (seq_need may have moved it) */
		if ((err = u32s_add(&c->off, q.at + q.pos - s->types_at)))
			break;
		k = BTF_INFO_KIND(t->info);
		if ((k != BTF_KIND_FUNC && k != BTF_KIND_VAR && k != BTF_KIND_DATASEC && k != BTF_KIND_DECL_TAG &&
		     t->name_off && (u32s_has(names, t->name_off) || u32s_has(traces, t->name_off))) ||
		    ((k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) && enumerator_named(t, names))) {
			if ((err = u32s_add(rootids, c->off.n)))
				break;
		}
		q.pos += sizeof(*t) + tail;
	}
	free(q.buf);
	return err;
}

/* The BTF made: header, types, strings. */
struct out {
	char *buf;
	size_t len, cap;
};

static void *grow(struct out *o, size_t n)
{
	if (o->len + n > o->cap) {
		size_t c = o->cap ? o->cap : 1 << 16;
		char *b;

		while (c < o->len + n)
			c *= 2;
		if (!(b = realloc(o->buf, c)))
			return NULL;
		o->buf = b;
		o->cap = c;
	}
	o->len += n;
	return o->buf + o->len - n;
}

/* Each name offset of a kept type's record, for fn: its own, and its
 * members', enumerators' or parameters', each the first field of its entry. */
_Static_assert(offsetof(struct btf_member, name_off) == 0 && offsetof(struct btf_enum, name_off) == 0 &&
	       offsetof(struct btf_enum64, name_off) == 0 && offsetof(struct btf_param, name_off) == 0,
	       "names first");
static void names_of(struct btf_type *t, void (*fn)(uint32_t *off, void *ctx), void *ctx)
{
	size_t each;

	fn(&t->name_off, ctx);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:	each = sizeof(struct btf_member); break;
	case BTF_KIND_ENUM:				each = sizeof(struct btf_enum); break;
	case BTF_KIND_ENUM64:				each = sizeof(struct btf_enum64); break;
	case BTF_KIND_FUNC_PROTO:			each = sizeof(struct btf_param); break;
	default:					return;
	}
	for (unsigned int i = 0; i < BTF_INFO_VLEN(t->info); i++)
		fn((uint32_t *)((char *)(t + 1) + i * each), ctx);
}

struct names {
	struct u32s old;	/* the offsets used, sorted, then unique */
	uint32_t *new;		/* each one's offset in the strings made */
	int err;
};

static void name_used(uint32_t *off, void *ctx)
{
	struct names *nm = ctx;

	if (*off && !nm->err)
		nm->err = u32s_add(&nm->old, *off);
}

static void name_moved(uint32_t *off, void *ctx)
{
	struct names *nm = ctx;
	uint32_t *at;

	if (!*off)
		return;
	at = bsearch(off, nm->old.v, nm->old.n, sizeof(*off), cmp_u32);
	*off = at ? nm->new[at - nm->old.v] : 0;
}

/* Pass 3, the strings in order again: those used copied to the end of o,
 * each one's new offset noted. */
static int copy_names(const struct src *s, struct names *nm, struct out *o)
{
	struct seq q = { .s = s, .at = s->strs_at, .end = (uint64_t)s->strs_at + s->strs_len };
	size_t start = o->len, j = 0;
	int err = 0;

	for (size_t i = 0; i < nm->old.n; i++)	/* unique */
		if (!i || nm->old.v[i] != nm->old.v[j - 1])
			nm->old.v[j++] = nm->old.v[i];
	nm->old.n = j;
	if (!(nm->new = malloc((j + 1) * sizeof(*nm->new))) || !grow(o, 1))
		return -ENOMEM;
	o->buf[start] = 0;	/* offset 0: the empty name */
	if (!(q.buf = malloc(CHUNK)))
		return -ENOMEM;
	for (size_t i = 0; i < nm->old.n; i++) {
		size_t n;
		const char *name;
		char *p;

		seq_seek(&q, (uint64_t)s->strs_at + nm->old.v[i]);
		if (nm->old.v[i] >= s->strs_len || !(name = seq_str(&q, &n))) {
			err = -EINVAL;
			break;
		}
		if (!(p = grow(o, n + 1))) {
			err = -ENOMEM;
			break;
		}
		memcpy(p, name, n + 1);
		nm->new[i] = p - o->buf - start;
	}
	free(q.buf);
	return err;
}

/* The header of s, checked (this byte order, sections inside the file),
 * and the sections' place in s.  0, or -errno. */
static int header_read(struct src *s, struct btf_header *h)
{
	int err = src_read(s, 0, h, sizeof(*h));

	if (err)
		return err;
	if (h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) ||	/* (the other byte order: the whole is used then) */
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > s->size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > s->size)
		return -EINVAL;
	s->types_at = h->hdr_len + h->type_off;
	s->types_len = h->type_len;
	s->strs_at = h->hdr_len + h->str_off;
	s->strs_len = h->str_len;
	return 0;
}

struct btf *btfslim__new(const void *map, int fd, size_t size, const char *const *roots, unsigned int nroots,
			 struct btfslim_stats *st)
{
	struct src s = { .map = map, .fd = fd, .size = size };
	struct btf_header h;
	struct u32s names = {}, traces = {}, rootids = {};
	struct cut c = { .s = &s };
	struct names nm = {};
	struct out o = {};
	struct btf *b = NULL;
	size_t types_end;
	int err;

	if ((err = header_read(&s, &h))) {
		errno = -err;
		return NULL;
	}
	/* the roots: by name, then by ID */
	if ((err = root_names(&s, roots, nroots, &names, &traces)) || (err = scan_types(&c, &names, &traces, &rootids)))
		goto out;
	err = -ENOMEM;
	if (!(c.keep = calloc(c.off.n + 1, 1)) || !(c.stack = malloc((c.off.n + 1) * sizeof(*c.stack))))
		goto out;
	for (size_t i = 0; i < rootids.n; i++)
		push(&c, rootids.v[i]);
	free(rootids.v);
	rootids.v = NULL;
	while (c.depth) {
		const struct btf_type *t = rec_of(&c, c.stack[--c.depth]);

		if (!t) {
			err = -EIO;
			goto out;
		}
		/* a btf_trace_ typedef: its prototype kept too */
		hold(&c, t, BTF_INFO_KIND(t->info) == BTF_KIND_TYPEDEF && u32s_has(&traces, t->name_off));
	}
	free(c.stack);
	c.stack = NULL;
	/* the types: kept ones read again, by ID; the names they use noted.
	 * None after the last ID kept or referred to: they would all be
	 * placeholders (6.18: the IDs after 44886 of 126411). */
	err = -ENOMEM;
	if (!grow(&o, sizeof(h)))
		goto out;
	for (uint32_t id = 1; id <= c.last; id++) {
		size_t n = c.keep[id] ? size_of(&c, id) : sizeof(struct btf_type);
		struct btf_type *d = grow(&o, n);

		if (!d)
			goto out;
		if (!c.keep[id]) {	/* a placeholder: a nameless FWD */
			*d = (struct btf_type){ .info = BTF_KIND_FWD << 24 };
			continue;
		}
		if (!rec_of(&c, id)) {
			err = -EIO;
			goto out;
		}
		memcpy(d, c.rec, n);
		names_of(d, name_used, &nm);
		if (st) {
			st->kept++;
			st->kept_bytes += n;
		}
	}
	if ((err = nm.err))
		goto out;
	types_end = o.len;
	free(c.off.v);
	c.off.v = NULL;
	free(c.keep);
	c.keep = NULL;
	sort__any(nm.old.v, nm.old.n, sizeof(*nm.old.v), cmp_u32);
	if ((err = copy_names(&s, &nm, &o)))
		goto out;
	for (size_t at = sizeof(h); at < types_end;) {	/* the names' offsets, made anew */
		struct btf_type *t = (void *)(o.buf + at);

		names_of(t, name_moved, &nm);
		at += sizeof(*t) + tail_of(t);
	}
	*(struct btf_header *)o.buf = (struct btf_header){
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h),
		.type_off = 0, .type_len = types_end - sizeof(h),
		.str_off = types_end - sizeof(h), .str_len = o.len - types_end };
	if (st) {
		st->types = c.off.n;
		st->ids = c.last;
		st->bytes = o.len;
	}
	free(nm.old.v);
	nm.old.v = NULL;
	free(nm.new);
	nm.new = NULL;
	free(c.rec);
	c.rec = NULL;
	free(names.v);
	names.v = NULL;
	free(traces.v);
	traces.v = NULL;
	/* everything else freed before libbpf copies it */
	if (libbpf_get_error(b = btf__new(o.buf, o.len))) {
		err = libbpf_get_error(b);
		b = NULL;
	}
out:
	free(o.buf);
	free(names.v);
	free(traces.v);
	free(rootids.v);
	free(nm.old.v);
	free(nm.new);
	free(c.off.v);
	free(c.keep);
	free(c.stack);
	free(c.rec);
	if (!b)
		errno = err < 0 ? -err : err ? err : EINVAL;
	return b;
}

int btfslim__var_offs(const void *map, int fd, size_t size, const char *sec, const char *const *names,
		      unsigned int n, long long *offs)
{
	struct src s = { .map = map, .fd = fd, .size = size };
	uint32_t sec_off = 0, name_off[BTFSLIM_VARS] = {}, var_id[BTFSLIM_VARS] = {}, id = 0;
	struct btf_header h;
	struct seq q;
	int err = 0;

	size_t sec_len = strlen(sec), name_len[BTFSLIM_VARS];

	if (n > BTFSLIM_VARS)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		offs[i] = -1;
		name_len[i] = strlen(names[i]);
	}
	if ((err = header_read(&s, &h)))
		return err;
	/* the names' offsets (BTF keeps each string once: done when all are
	 * found) */
	q = (struct seq){ .s = &s, .at = s.strs_at, .end = (uint64_t)s.strs_at + s.strs_len };
	if (!(q.buf = malloc(CHUNK)))
		return -ENOMEM;
	for (unsigned int found = 0; found <= n && q.at + q.pos < q.end;) {
		size_t len;
		const char *p = seq_str(&q, &len);
		uint32_t at = q.at + q.pos - s.strs_at;

		if (!p) {
			err = -EINVAL;
			break;
		}
		if (len == sec_len && !memcmp(p, sec, len)) {
			sec_off = at;
			found++;
		}
		for (unsigned int i = 0; len && i < n; i++)
			if (len == name_len[i] && !memcmp(p, names[i], len)) {
				name_off[i] = at;
				found++;
			}
		q.pos += len + 1;
	}
	/* the types in order: each VAR of a name, then the section's entries
	 * (pahole puts the DATASECs after every VAR) */
	q.at = s.types_at;
	q.end = (uint64_t)s.types_at + s.types_len;
	q.have = q.pos = 0;
	while (!err && sec_off && q.at + q.pos < q.end) {
		const struct btf_type *t = (const void *)seq_need(&q, sizeof(*t));
		long tail = t ? tail_of(t) : -1;

		if (tail < 0 || !seq_need(&q, sizeof(*t) + tail)) {
			err = -EINVAL;
			break;
		}
		t = (const void *)(q.buf + q.pos);
		id++;
		if (BTF_INFO_KIND(t->info) == BTF_KIND_VAR) {
			for (unsigned int i = 0; i < n; i++)
				if (name_off[i] && t->name_off == name_off[i])
					var_id[i] = id;
		} else if (BTF_INFO_KIND(t->info) == BTF_KIND_DATASEC && t->name_off == sec_off) {
			const struct btf_var_secinfo *v = (const void *)(t + 1);

			for (unsigned int k = 0; k < BTF_INFO_VLEN(t->info); k++)
				for (unsigned int i = 0; i < n; i++)
					if (var_id[i] && v[k].type == var_id[i])
						offs[i] = v[k].offset;
			break;
		}
		q.pos += sizeof(*t) + tail;
	}
	free(q.buf);
	return err;
}

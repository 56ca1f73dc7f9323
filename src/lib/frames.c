// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <assert.h>
#include "frames.h"
#include "json.h"
#include "ksyms.h"
#include "text.h"
#include "usyms.h"
#include "sort.h"

bool frames__prefixed(const char *fn, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int frames__kernel_skip(const struct ksyms *ks, const uint64_t *ips, int n)
{
	static const char *const dispatch[] = { "bpf_", "__bpf_", "trace_call_bpf", "perf_trace_",
						"__traceiter_" };
	int i;

	for (i = 0; i < n; i++) {
		const struct ksym *s = ksyms__find(ks, ips[i]);
		bool skip = !s || ips[i] - s->addr >= (1 << 20) ||	/* past the kernel's text */
			    frames__prefixed(s->name, dispatch, sizeof(dispatch) / sizeof(dispatch[0]));

		if (!skip)
			break;
	}
	return i < n ? i : 0;
}

bool frames__reaches_entry(const char *const *syms, int n)
{
	static const char *const roots[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					     "clone", "clone3", "start_thread", "__clone", "__clone3" };

	for (int f = 0; f < n; f++)
		for (size_t i = 0; syms[f] && i < sizeof(roots) / sizeof(roots[0]); i++)
			if (!strcmp(syms[f], roots[i]))
				return true;
	return false;
}

int frames__read(int map_fd, int id, uint64_t *ips, int max)
{
	int n = 0;

	/* the map's value is its whole depth: max must be that depth */
	if (id < 0 || bpf_map_lookup_elem(map_fd, &id, ips))
		return 0;
	while (n < max && ips[n])
		n++;
	return n;
}

static struct frame *alloc(struct frames *fr, int n, bool user)
{
	memset(fr, 0, sizeof(*fr));
	fr->user = user;
	fr->f = calloc(n ? n : 1, sizeof(*fr->f));
	return fr->f;
}

void frames__kernel(struct frames *fr, const struct ksyms *ks, const uint64_t *ips, int n)
{
	int skip = frames__kernel_skip(ks, ips, n);

	if (!alloc(fr, n - skip, false))
		return;
	for (int i = skip; i < n; i++) {
		const struct ksym *s = ksyms__find(ks, ips[i]);
		struct frame *f = &fr->f[fr->n++];

		f->addr = ips[i];
		if (s) {
			f->sym = strdup(s->name);
			f->offset = ips[i] - s->addr;
			f->where = s->module ? strdup(s->module) : NULL;
		}
	}
}

#define INLINE_MAX 8	/* functions inlined at one address, shown */

void frames__user(struct frames *fr, struct usyms *us, uint32_t pid, const uint64_t *ips, int n)
{
	const char *syms[128];
	int ns = 0;

	if (!alloc(fr, n * INLINE_MAX, true))
		return;
	for (int i = 0; i < n; i++) {
		struct usym s[INLINE_MAX];
		/* every frame but the innermost is a return address: name the call */
		int k = usyms__resolve_inline(us, pid, i ? ips[i] - 1 : ips[i], s, INLINE_MAX);

		if (k < 1) {	/* gone: the address alone */
			fr->f[fr->n++].addr = ips[i];
			if (ns < 128)
				syms[ns++] = NULL;
			continue;
		}
		for (int j = 0; j < k; j++) {
			struct frame *f = &fr->f[fr->n++];
			const char *mod = s[j].module ? strrchr(s[j].module, '/') : NULL;
			char buf[512];

			mod = mod ? mod + 1 : s[j].module;
			f->addr = ips[i];
			f->inlined = s[j].inlined;
			if (s[j].name) {
				f->sym = strdup(s[j].name);
				f->offset = s[j].inlined ? 0 : s[j].offset + (i ? 1 : 0);
			}
			if (s[j].file) {
				snprintf(buf, sizeof(buf), "[%s] %s:%d", mod ? mod : "?", s[j].file, s[j].line);
				f->file = strdup(s[j].file);
				f->line = s[j].line;
			} else {
				snprintf(buf, sizeof(buf), "[%s]", mod ? mod : "?");
			}
			if (mod || s[j].file)
				f->where = strdup(buf);
			if (ns < 128)
				syms[ns++] = f->sym;
		}
	}
	fr->cut = n && !frames__reaches_entry(syms, ns);
}

void frames__folded(const struct frames *fr, FILE *out, const char *suffix)
{
	char safe[TEXT_SAFE_LEN(512)];

	for (int i = fr->n - 1; i >= 0; i--)
		if (fr->f[i].sym)
			fprintf(out, ";%s%s", text__safe(fr->f[i].sym, safe, sizeof(safe)), suffix);
		else
			fprintf(out, ";[0x%llx]%s", (unsigned long long)fr->f[i].addr, suffix);
}

void frames__text(const struct frames *fr, FILE *out, const char *indent)
{
	char safe[TEXT_SAFE_LEN(512)];

	for (int i = 0; i < fr->n; i++) {
		const struct frame *f = &fr->f[i];

		if (f->sym && f->inlined)
			fprintf(out, "%s%s (inlined)", indent, text__safe(f->sym, safe, sizeof(safe)));
		else if (f->sym)
			fprintf(out, "%s%s+0x%llx", indent, text__safe(f->sym, safe, sizeof(safe)),
				(unsigned long long)f->offset);
		else
			fprintf(out, "%s[0x%llx]", indent, (unsigned long long)f->addr);
		if (f->where)
			fprintf(out, fr->user ? " %s" : " [%s]", text__safe(f->where, safe, sizeof(safe)));
		fputc('\n', out);
	}
	if (fr->cut)
		fprintf(out, "%s[the user stack stops here: probably cut short, the binary has no frame pointers]\n",
			indent);
}

void frames__json(const struct frames *fr, struct json *j, const char *key)
{
	json__key(j, key);
	frames__json_array(fr, j);
}

void frames__json_array(const struct frames *fr, struct json *j)
{
	json__arr_begin(j);
	for (int i = 0; i < fr->n; i++) {
		const struct frame *f = &fr->f[i];

		json__obj_begin(j);
		json__ku64(j, "addr", f->addr);
		if (f->sym) {
			json__kstr(j, "sym", f->sym);
			json__ku64(j, "offset", f->offset);
		} else {
			json__knull(j, "sym");
		}
		if (f->where)
			json__kstr(j, fr->user ? "where" : "module", f->where);
		if (fr->user) {
			if (f->file) {
				json__kstr(j, "file", f->file);
				json__ku64(j, "line", f->line);
			} else {
				json__knull(j, "file");
				json__knull(j, "line");
			}
			json__kbool(j, "inlined", f->inlined);
		}
		json__obj_end(j);
	}
	json__arr_end(j);
}

void frames__free(struct frames *fr)
{
	for (int i = 0; i < fr->n; i++) {
		free(fr->f[i].sym);
		free(fr->f[i].where);
		free(fr->f[i].file);
	}
	free(fr->f);
	memset(fr, 0, sizeof(*fr));
}

static int cmp_ustack(const void *a, const void *b)
{
	const struct ustack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* In the first `sorted` entries by bisection, in the rest one by one. */
static struct ustack *ustacks_find_in(const struct ustacks *c, size_t sorted, uint32_t pid, int32_t id)
{
	struct ustack k = { .pid = pid, .id = id }, *u;

	if (sorted && (u = bsearch(&k, c->u, sorted, sizeof(k), cmp_ustack)))
		return u;
	for (size_t i = sorted; i < c->n; i++)
		if (!cmp_ustack(&c->u[i], &k))
			return &c->u[i];
	return NULL;
}

const struct frames *ustacks__find(const struct ustacks *c, uint32_t pid, int32_t id)
{
	const struct ustack *u = ustacks_find_in(c, c->n, pid, id);

	return u ? &u->fr : NULL;
}

/* u at the end, the table owning its frames; false: out of memory (its
 * frames freed).  The caller puts it in order. */
static bool ustacks_append(struct ustacks *c, struct ustack *u)
{
	if (c->n == c->cap) {
		void *p = realloc(c->u, (c->cap ? 2 * c->cap : 64) * sizeof(*u));

		if (!p) {
			frames__free(&u->fr);
			return false;
		}
		c->u = p;
		c->cap = c->cap ? 2 * c->cap : 64;
	}
	c->u[c->n++] = *u;
	return true;
}

const struct frames *ustacks__put(struct ustacks *c, uint32_t pid, int32_t id, struct frames *fr)
{
	struct ustack u = { .pid = pid, .id = id, .fr = *fr };
	size_t i;

	memset(fr, 0, sizeof(*fr));
	if (!ustacks_append(c, &u))
		return NULL;
	/* one insertion: move it down to its place */
	for (i = c->n - 1; i > 0 && cmp_ustack(&c->u[i - 1], &u) > 0; i--)
		c->u[i] = c->u[i - 1];
	c->u[i] = u;
	return &c->u[i].fr;
}

/* A symbol or file name on one line of a tab-separated record. */
static void put_field(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\t' || *s == '\n' ? ' ' : *s, f);
}

char *frames__to_text(const struct frames *fr, uint32_t pid, int32_t id, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (fr->user)
		fprintf(f, "user %u %d %d\n", pid, id, fr->cut);
	else
		fprintf(f, "kernel %d\n", id);
	for (int i = 0; i < fr->n; i++) {
		const struct frame *x = &fr->f[i];

		fprintf(f, "%llx\t%llx\t%d\t%d\t", (unsigned long long)x->addr, (unsigned long long)x->offset,
			x->inlined, x->line);
		put_field(f, x->sym);
		fputc('\t', f);
		put_field(f, x->where);
		fputc('\t', f);
		put_field(f, x->file);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int frames__from_text(struct ustacks *kernel, struct ustacks *user, const char *text, size_t len)
{
	char *s = strndup(text, len), *line, *save = NULL;
	struct frames fr = {};
	unsigned int pid = 0;
	int id, cut = 0, ok;

	if (!s)
		return -ENOMEM;
	line = strtok_r(s, "\n", &save);
	fr.user = line && !strncmp(line, "user ", 5);
	ok = line && (fr.user ? sscanf(line, "user %u %d %d", &pid, &id, &cut) == 3
			      : sscanf(line, "kernel %d", &id) == 1);
	fr.cut = cut;
	if (ok && !(fr.f = calloc(len / 8 + 1, sizeof(*fr.f))))	/* a frame takes 8 bytes at least */
		ok = 0;
	while (ok && (line = strtok_r(NULL, "\n", &save))) {
		struct frame *x = &fr.f[fr.n];
		unsigned long long addr, off;
		char *t[6];
		int inl, ln, k;

		/* addr offset inlined line, then sym where file: six tabs */
		for (k = 0, t[0] = strchr(line, '\t'); k < 5 && t[k]; k++)
			t[k + 1] = strchr(t[k] + 1, '\t');
		if (k < 5 || !t[5] || sscanf(line, "%llx\t%llx\t%d\t%d", &addr, &off, &inl, &ln) != 4) {
			ok = 0;
			break;
		}
		*t[4] = *t[5] = '\0';
		x->addr = addr;
		x->offset = off;
		x->inlined = inl;
		x->line = ln;
		x->sym = t[3][1] ? strdup(t[3] + 1) : NULL;
		x->where = t[4][1] ? strdup(t[4] + 1) : NULL;
		x->file = t[5][1] ? strdup(t[5] + 1) : NULL;
		fr.n++;
	}
	free(s);
	if (!ok) {
		frames__free(&fr);
		return -EINVAL;
	}
	if (!ustacks__find(fr.user ? user : kernel, pid, id))
		return ustacks__put(fr.user ? user : kernel, pid, id, &fr) ? 0 : -ENOMEM;
	frames__free(&fr);
	return 0;
}

void ustacks__scan(struct ustacks *c, struct usyms *us, int keys_fd, size_t key_size,
		   bool (*key_of)(const void *key, uint32_t *pid, int32_t *id), int stack_fd, int depth)
{
	char k[256], next[256];
	void *prev = NULL;
	uint64_t ips[127];
	size_t sorted = c->n;

	assert(key_size <= sizeof(k) && depth <= 127);
	usyms__poll(us);	/* stacks and func drain mapping records here, every scan */
	while (!bpf_map_get_next_key(keys_fd, prev, next)) {
		struct ustack u = {};
		int n;

		memcpy(k, next, key_size);
		prev = k;
		if (!key_of(k, &u.pid, &u.id) || u.id < 0 || !u.pid || ustacks_find_in(c, sorted, u.pid, u.id))
			continue;
		n = frames__read(stack_fd, u.id, ips, depth);
		frames__user(&u.fr, us, u.pid, ips, n);
		if (n && !u.fr.f[0].sym && !u.fr.f[0].where)
			c->unresolved++;	/* gone before its first lookup: addresses */
		if (!ustacks_append(c, &u))
			break;
	}
	if (c->n > sorted)
		sort__any(c->u, c->n, sizeof(*c->u), cmp_ustack);
}

void ustacks__free(struct ustacks *c)
{
	for (size_t i = 0; i < c->n; i++)
		frames__free(&c->u[i].fr);
	free(c->u);
	memset(c, 0, sizeof(*c));
}

// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "bpfenv.h"
#include "log.h"
#include "reqflags.h"

/* "REQ_OP_WRITE_ZEROES" minus its prefix -> "write-zeroes" */
static char *pretty(const char *name, size_t skip)
{
	char *s = strdup(name + skip);

	for (char *p = s; p && *p; p++)
		*p = *p == '_' ? '-' : tolower((unsigned char)*p);
	return s;
}

static const struct btf_type *find_enum(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM);

	if (id < 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM64);
	return id < 0 ? NULL : btf__type_by_id(btf, id);
}

/* Calls fn(name, value) for each enumerator of an ENUM or ENUM64. */
static void each_enumerator(const struct btf *btf, const struct btf_type *t,
			    void (*fn)(struct reqflags *, const char *, long long),
			    struct reqflags *rf)
{
	int n = btf_vlen(t);

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < n; i++)
			fn(rf, btf__name_by_offset(btf, e[i].name_off), e[i].val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		for (int i = 0; i < n; i++)
			fn(rf, btf__name_by_offset(btf, e[i].name_off),
			   (long long)btf_enum64_value(e + i));
	}
}

static void add_op(struct reqflags *rf, const char *name, long long v)
{
	if (strncmp(name, "REQ_OP_", 7) || !strcmp(name, "REQ_OP_LAST"))
		return;
	if (v >= 0 && v < REQ_MAX_OPS && !rf->ops[v])
		rf->ops[v] = pretty(name, 7);
}

static void min_flag(struct reqflags *rf, const char *name, long long v)
{
	if (!strncmp(name, "__REQ_", 6) && strcmp(name, "__REQ_NR_BITS") &&
	    v >= 0 && (unsigned long long)v < rf->op_bits)
		rf->op_bits = (unsigned int)v;
}

static void add_flag(struct reqflags *rf, const char *name, long long v)
{
	if (strncmp(name, "__REQ_", 6) || !strcmp(name, "__REQ_NR_BITS"))
		return;
	if (v >= 0 && v < REQ_MAX_FLAGS && !rf->flags[v])
		rf->flags[v] = pretty(name, 6);
}

int reqflags__load(struct reqflags *rf, const struct btf *btf)
{
	const struct btf_type *ops, *bits;
	int err = 0;

	memset(rf, 0, sizeof(*rf));
	if (!btf && !(btf = bpfenv__vmlinux()))
		return -errno;
	ops = find_enum(btf, "req_op");
	if (!ops)
		ops = find_enum(btf, "req_opf");	/* before 6.0 */
	bits = find_enum(btf, "req_flag_bits");
	if (!ops || !bits) {
		err = -ENOENT;
		goto out;
	}
	/* The flags start right above the op field: __REQ_FAILFAST_DEV = REQ_OP_BITS. */
	rf->op_bits = 32;
	each_enumerator(btf, bits, min_flag, rf);
	if (rf->op_bits == 0 || rf->op_bits >= 32) {
		err = -EINVAL;
		goto out;
	}
	each_enumerator(btf, ops, add_op, rf);
	each_enumerator(btf, bits, add_flag, rf);
	if (log__verbose()) {	/* (tests/live/btf_slim.sh holds the cut BTF's to the whole's) */
		char *text = reqflags__to_text(rf);

		for (char *p = text; p && *p; p++)
			*p = *p == '\n' ? ';' : *p;
		debugf("request ops and flags from BTF: %s", text ? text : "?");
		free(text);
	}
out:
	return err;
}

void reqflags__free(struct reqflags *rf)
{
	for (int i = 0; i < REQ_MAX_OPS; i++)
		free(rf->ops[i]);
	for (int i = 0; i < REQ_MAX_FLAGS; i++)
		free(rf->flags[i]);
	memset(rf, 0, sizeof(*rf));
}

uint32_t reqflags__op(const struct reqflags *rf, uint32_t cmd_flags)
{
	return cmd_flags & ((1U << rf->op_bits) - 1);
}

const char *reqflags__op_name(const struct reqflags *rf, uint32_t cmd_flags, char *buf, size_t len)
{
	uint32_t op = reqflags__op(rf, cmd_flags);

	if (op < REQ_MAX_OPS && rf->ops[op])
		return rf->ops[op];
	snprintf(buf, len, "op%u", op);
	return buf;
}

const char *reqflags__flags_str(const struct reqflags *rf, uint32_t cmd_flags, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int b = rf->op_bits; b < 32 && off < len; b++) {
		char unk[16];
		const char *n;

		if (!(cmd_flags & (1U << b)))
			continue;
		n = rf->flags[b];
		if (!n) {
			snprintf(unk, sizeof(unk), "bit%u", b);
			n = unk;
		}
		off += snprintf(buf + off, len - off, "%s%s", off ? " " : "", n);
	}
	return buf;
}

int reqflags__bit(const struct reqflags *rf, const char *name)
{
	for (int b = 0; b < REQ_MAX_FLAGS; b++)
		if (rf->flags[b] && !strcmp(rf->flags[b], name))
			return b;
	return -1;
}

const char *reqflags__status(int status, char *buf, size_t len)
{
	/* include/linux/blk_types.h; 6 was BLK_STS_NEXUS before 6.5 */
	static const char *const names[] = {
		"ok", "notsupp", "timeout", "nospc", "transport", "target", "resv-conflict",
		"medium", "protection", "resource", "ioerr", "dm-requeue", "again",
		"dev-resource",
	};

	if (status >= 0 && status < (int)(sizeof(names) / sizeof(names[0])))
		return names[status];
	snprintf(buf, len, "status-%d", status);
	return buf;
}

char *reqflags__to_text(const struct reqflags *rf)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "op_bits %u\n", rf->op_bits);
	for (int i = 0; i < REQ_MAX_OPS; i++)
		if (rf->ops[i])
			fprintf(f, "op %d %s\n", i, rf->ops[i]);
	for (int i = 0; i < REQ_MAX_FLAGS; i++)
		if (rf->flags[i])
			fprintf(f, "flag %d %s\n", i, rf->flags[i]);
	fclose(f);
	return buf;
}

int reqflags__from_text(struct reqflags *rf, const char *text, size_t len)
{
	char *copy = strndup(text, len), *save = NULL;

	memset(rf, 0, sizeof(*rf));
	if (!copy)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[64];
		int i;

		if (sscanf(l, "op_bits %u", &rf->op_bits) == 1)
			continue;
		if (sscanf(l, "op %d %63s", &i, name) == 2 && i >= 0 && i < REQ_MAX_OPS)
			rf->ops[i] = strdup(name);
		else if (sscanf(l, "flag %d %63s", &i, name) == 2 && i >= 0 && i < REQ_MAX_FLAGS)
			rf->flags[i] = strdup(name);
	}
	free(copy);
	return rf->op_bits ? 0 : -EINVAL;
}

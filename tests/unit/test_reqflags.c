// SPDX-License-Identifier: GPL-2.0
/*
 * Op and flag decoding from BTF: a blob saved from a 6.18 kernel
 * (tests/data/req-enums-6.18.btf, made by `test_reqflags --save FILE`),
 * and a made-up older layout, to prove nothing comes from a copied table.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "check.h"
#include "reqflags.h"

static int copy_enum(struct btf *dst, const struct btf *src, const char *name)
{
	int id = btf__find_by_name_kind(src, name, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return id;
	t = btf__type_by_id(src, id);
	e = btf_enum(t);
	id = btf__add_enum(dst, name, 4);
	for (int i = 0; i < btf_vlen(t); i++)
		btf__add_enum_value(dst, btf__name_by_offset(src, e[i].name_off), e[i].val);
	return id;
}

static int save(const char *path)
{
	struct btf *k = btf__load_vmlinux_btf(), *out = btf__new_empty();
	const void *raw;
	__u32 sz;
	FILE *f;

	if (!k || !out || copy_enum(out, k, "req_op") < 0 || copy_enum(out, k, "req_flag_bits") < 0)
		return fprintf(stderr, "cannot extract enums\n"), 1;
	raw = btf__raw_data(out, &sz);
	f = fopen(path, "w");
	if (!f || fwrite(raw, 1, sz, f) != sz)
		return perror(path), 1;
	fclose(f);
	return 0;
}

static void check_618(const char *path)
{
	struct btf *btf = btf__parse(path, NULL);
	struct reqflags rf;
	char buf[256], ob[16];

	CHECK(btf != NULL, "parse %s: %s", path, strerror(errno));
	if (!btf)
		return;
	CHECK(reqflags__load(&rf, btf) == 0, "load");
	CHECK(rf.op_bits == 8, "op_bits %u", rf.op_bits);
	CHECK(!strcmp(reqflags__op_name(&rf, 0, ob, sizeof(ob)), "read"), "read");
	CHECK(!strcmp(reqflags__op_name(&rf, 1, ob, sizeof(ob)), "write"), "write");
	CHECK(!strcmp(reqflags__op_name(&rf, 2, ob, sizeof(ob)), "flush"), "flush");
	CHECK(!strcmp(reqflags__op_name(&rf, 3, ob, sizeof(ob)), "discard"), "discard");
	CHECK(!strcmp(reqflags__op_name(&rf, 9, ob, sizeof(ob)), "write-zeroes"), "wz");
	CHECK(!strcmp(reqflags__op_name(&rf, 36, ob, sizeof(ob)), "op36"), "LAST is not an op");
	/* write | sync (11) | fua (17) | preflush (18) */
	reqflags__flags_str(&rf, 1 | 1U << 11 | 1U << 17 | 1U << 18, buf, sizeof(buf));
	CHECK(!strcmp(buf, "sync fua preflush"), "flags '%s'", buf);
	reqflags__flags_str(&rf, 0 | 1U << 12 | 1U << 13, buf, sizeof(buf));
	CHECK(!strcmp(buf, "meta prio"), "flags '%s'", buf);
	reqflags__flags_str(&rf, 1U << 31, buf, sizeof(buf));
	CHECK(!strcmp(buf, "bit31"), "unknown bit '%s'", buf);
	CHECK(reqflags__bit(&rf, "preflush") == 18, "bit of preflush");
	CHECK(reqflags__bit(&rf, "nosuch") == -1, "bit of nothing");
	reqflags__free(&rf);
	btf__free(btf);
}

/* Kernels before 6.0 call it enum req_opf; give it other numbers and a
 * narrower op field, as a renumbering kernel would. */
static void check_renumbered(void)
{
	struct btf *btf = btf__new_empty();
	struct reqflags rf;
	char buf[256], ob[16];

	btf__add_enum(btf, "req_opf", 4);
	btf__add_enum_value(btf, "REQ_OP_READ", 0);
	btf__add_enum_value(btf, "REQ_OP_WRITE", 1);
	btf__add_enum_value(btf, "REQ_OP_WRITE_SAME", 7);
	btf__add_enum_value(btf, "REQ_OP_WRITE_ZEROES", 4);
	btf__add_enum_value(btf, "REQ_OP_LAST", 8);
	btf__add_enum(btf, "req_flag_bits", 4);
	btf__add_enum_value(btf, "__REQ_FAILFAST_DEV", 6);
	btf__add_enum_value(btf, "__REQ_SYNC", 7);
	btf__add_enum_value(btf, "__REQ_FUA", 9);
	btf__add_enum_value(btf, "__REQ_NR_BITS", 10);

	CHECK(reqflags__load(&rf, btf) == 0, "load renumbered");
	CHECK(rf.op_bits == 6, "op_bits %u", rf.op_bits);
	CHECK(!strcmp(reqflags__op_name(&rf, 4 | 1U << 7, ob, sizeof(ob)), "write-zeroes"), "wz");
	CHECK(!strcmp(reqflags__op_name(&rf, 7, ob, sizeof(ob)), "write-same"), "ws");
	reqflags__flags_str(&rf, 1 | 1U << 7 | 1U << 9, buf, sizeof(buf));
	CHECK(!strcmp(buf, "sync fua"), "flags '%s'", buf);
	reqflags__free(&rf);

	/* no such enums at all: an error, not a guess */
	{
		struct btf *empty = btf__new_empty();
		CHECK(reqflags__load(&rf, empty) == -ENOENT, "missing enums");
		btf__free(empty);
	}
	btf__free(btf);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--save"))
		return save(argv[2]);
	check_618("tests/data/req-enums-6.18.btf");
	check_renumbered();
	CHECK_DONE();
}

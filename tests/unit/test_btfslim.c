// SPDX-License-Identifier: GPL-2.0
/* btfslim: a BTF made here with libbpf's writing API, cut to its roots (a
 * struct, enums by their name or an enumerator's): what is kept whole, what
 * becomes a placeholder, and that every ID to the last one needed stays; from
 * memory (a mapped file) and from a file read in pieces, the same.  5000
 * filler types first, so that both sections cross the readers' 64 KiB
 * chunks more than once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btfslim.h"
#include "check.h"

#define FILL 5000
enum { T_INT = FILL + 1, T_KEEP, T_INNER, T_PTR_OTHER, T_OTHER, T_TRACE, T_TRACE_PTR, T_PROTO, T_VOIDP,
       T_ENUM, T_DROP, T_BITS, T_ANON_ENUM, T_ARR, T_ENUM_DROP, T_ANON_DROP, T_ENUM64,
       T_KEEP2, T_PTR_LATE, T_LATE, T_TAIL, T_N };

static struct btf *build(void)
{
	struct btf *b = btf__new_empty();
	char nm[64];

	for (int i = 1; i <= FILL; i++) {	/* IDs 1..FILL: names long enough to span chunks */
		snprintf(nm, sizeof(nm), "filler_type_with_a_long_name_%05d", i);
		btf__add_struct(b, nm, 8);
		snprintf(nm, sizeof(nm), "filler_member_with_a_long_name_%05d", i);
		btf__add_field(b, nm, T_INT, 0, 0);
	}
	CHECK(btf__add_int(b, "int", 4, BTF_INT_SIGNED) == T_INT, "int");
	CHECK(btf__add_struct(b, "keepme", 32) == T_KEEP, "keepme");
	btf__add_field(b, "a", T_INT, 0, 0);
	btf__add_field(b, "in", T_INNER, 32, 0);
	btf__add_field(b, "p", T_PTR_OTHER, 64, 0);
	btf__add_field(b, "bits", T_BITS, 128, 0);
	btf__add_field(b, "arr", T_ARR, 192, 0);
	CHECK(btf__add_struct(b, "inner", 4) == T_INNER, "inner");
	btf__add_field(b, "x", T_INT, 0, 0);
	CHECK(btf__add_ptr(b, T_OTHER) == T_PTR_OTHER, "ptr");
	CHECK(btf__add_struct(b, "other", 4) == T_OTHER, "other");
	btf__add_field(b, "y", T_INT, 0, 0);
	CHECK(btf__add_typedef(b, "btf_trace_foo", T_TRACE_PTR) == T_TRACE, "typedef");
	CHECK(btf__add_ptr(b, T_PROTO) == T_TRACE_PTR, "trace ptr");
	CHECK(btf__add_func_proto(b, 0) == T_PROTO, "proto");
	btf__add_func_param(b, "__data", T_VOIDP);
	btf__add_func_param(b, "o", T_PTR_OTHER);
	CHECK(btf__add_ptr(b, 0) == T_VOIDP, "void *");
	CHECK(btf__add_enum(b, "e", 4) == T_ENUM, "enum");
	btf__add_enum_value(b, "E_BIG", 0xfffffff0LL);
	btf__add_enum_value(b, "E_ONE", 1);
	CHECK(btf__add_struct(b, "dropme", 4) == T_DROP, "dropme");
	btf__add_field(b, "z", T_INT, 0, 0);
	CHECK(btf__add_struct(b, "bits_t", 4) == T_BITS, "bits_t");
	btf__add_field(b, "lo", T_INT, 0, 3);
	btf__add_field(b, "hi", T_INT, 3, 5);
	CHECK(btf__add_enum(b, "", 4) == T_ANON_ENUM, "anon enum");
	btf__add_enum_value(b, "QUEUE_FLAG_X", 16);
	CHECK(btf__add_array(b, T_INT, T_INNER, 2) == T_ARR, "array");
	CHECK(btf__add_enum(b, "not_asked", 4) == T_ENUM_DROP, "enum not asked for");
	btf__add_enum_value(b, "NOT_ASKED", 3);
	CHECK(btf__add_enum(b, "", 4) == T_ANON_DROP, "anonymous enum not asked for");
	btf__add_enum_value(b, "QUEUE_FLAG_Y", 17);
	CHECK(btf__add_enum64(b, "", 8, false) == T_ENUM64, "anonymous enum64");
	btf__add_enum64_value(b, "E64_FIRST", 1ULL << 40);
	btf__add_enum64_value(b, "E64_ASKED", 1ULL << 41);
	/* a root whose pointer refers to a later ID, and an ID after all that */
	CHECK(btf__add_struct(b, "keeptoo", 8) == T_KEEP2, "keeptoo");
	btf__add_field(b, "l", T_PTR_LATE, 0, 0);
	CHECK(btf__add_ptr(b, T_LATE) == T_PTR_LATE, "ptr late");
	CHECK(btf__add_struct(b, "late", 4) == T_LATE, "late");
	btf__add_field(b, "w", T_INT, 0, 0);
	CHECK(btf__add_struct(b, "tail", 4) == T_TAIL, "tail");
	btf__add_field(b, "v", T_INT, 0, 0);
	return b;
}

static const char *name(const struct btf *b, int id)
{
	return btf__name_by_offset(b, btf__type_by_id(b, id)->name_off);
}

static void check_cut(struct btf *s, const struct btfslim_stats *st, const char *how)
{
	const struct btf_type *t;
	const struct btf_member *m;

	printf("%s\n", how);
	/* every ID to the last one kept or referred to: none after it */
	CHECK(btf__type_cnt(s) == T_TAIL, "every ID to the last referred to kept: %u types", btf__type_cnt(s));
	CHECK(st->types == T_N - 1 && st->ids == T_LATE, "stats: %u types, %u made", st->types, st->ids);
	t = btf__type_by_id(s, T_PTR_LATE);
	CHECK(btf_is_ptr(t) && t->type == T_LATE && btf_is_fwd(btf__type_by_id(s, T_LATE)),
	      "a kept pointer's target after every kept type: a placeholder at its ID");
	CHECK(btf__find_by_name(s, "tail") < 0 && btf__find_by_name(s, "late") < 0, "no 'late', no 'tail'");

	/* the root, whole: its members' names, types and offsets, bitfields too */
	CHECK(btf__find_by_name_kind(s, "keepme", BTF_KIND_STRUCT) == T_KEEP, "keepme at its ID");
	t = btf__type_by_id(s, T_KEEP);
	CHECK(btf_vlen(t) == 5 && t->size == 32, "keepme: %u members", btf_vlen(t));
	m = btf_members(t);
	CHECK(!strcmp(btf__name_by_offset(s, m[1].name_off), "in") && m[1].type == T_INNER &&
	      btf_member_bit_offset(t, 1) == 32, "member in");
	CHECK(m[2].type == T_PTR_OTHER, "member p");
	/* what it holds: the embedded struct, the array's elements, the pointer itself */
	CHECK(!strcmp(name(s, T_INNER), "inner") && btf_vlen(btf__type_by_id(s, T_INNER)) == 1, "inner kept");
	CHECK(btf_is_array(btf__type_by_id(s, T_ARR)) && btf_array(btf__type_by_id(s, T_ARR))->nelems == 2, "array kept");
	t = btf__type_by_id(s, T_PTR_OTHER);
	CHECK(btf_is_ptr(t) && t->type == T_OTHER, "the pointer kept, to the same ID");
	t = btf__type_by_id(s, T_BITS);
	CHECK(btf_kflag(t) && btf_member_bitfield_size(t, 1) == 5 && btf_member_bit_offset(t, 1) == 3,
	      "bitfields as they were");
	/* not what the pointer points to: a nameless placeholder, as the others */
	t = btf__type_by_id(s, T_OTHER);
	CHECK(btf_is_fwd(t) && !t->name_off, "other: a placeholder (kind %u)", btf_kind(t));
	CHECK(btf__find_by_name_kind(s, "other", BTF_KIND_STRUCT) < 0, "no 'other'");
	CHECK(btf_is_fwd(btf__type_by_id(s, T_DROP)) && btf__find_by_name(s, "dropme") < 0, "dropme dropped");
	CHECK(btf_is_fwd(btf__type_by_id(s, 1)) && btf_is_fwd(btf__type_by_id(s, FILL)), "fillers dropped");
	/* the tracepoint's typedef, with its prototype and parameters */
	CHECK(btf__find_by_name_kind(s, "btf_trace_foo", BTF_KIND_TYPEDEF) == T_TRACE, "btf_trace_foo at its ID");
	t = btf__type_by_id(s, T_PROTO);
	CHECK(btf_is_func_proto(t) && btf_vlen(t) == 2 && btf_params(t)[1].type == T_PTR_OTHER &&
	      !strcmp(btf__name_by_offset(s, btf_params(t)[1].name_off), "o"), "prototype kept");
	/* the enums asked for, by their name or one of their enumerators', with
	 * their values; no other */
	t = btf__type_by_id(s, T_ENUM);
	CHECK(btf_is_enum(t) && btf_vlen(t) == 2 && (__u32)btf_enum(t)[0].val == 0xfffffff0u &&
	      !strcmp(btf__name_by_offset(s, btf_enum(t)[1].name_off), "E_ONE"), "enum e");
	t = btf__type_by_id(s, T_ANON_ENUM);
	CHECK(btf_is_enum(t) && btf_enum(t)[0].val == 16 &&
	      !strcmp(btf__name_by_offset(s, btf_enum(t)[0].name_off), "QUEUE_FLAG_X"), "anonymous enum");
	t = btf__type_by_id(s, T_ENUM64);
	CHECK(btf_is_enum64(t) && btf_vlen(t) == 2 && btf_enum64_value(btf_enum64(t) + 1) == 1ULL << 41 &&
	      !strcmp(btf__name_by_offset(s, btf_enum64(t)[1].name_off), "E64_ASKED"), "anonymous enum64, by its second");
	CHECK(btf_is_fwd(btf__type_by_id(s, T_ENUM_DROP)) && btf__find_by_name(s, "not_asked") < 0,
	      "an enum not asked for dropped");
	CHECK(btf_is_fwd(btf__type_by_id(s, T_ANON_DROP)), "an anonymous enum not asked for dropped");
	CHECK(st->kept == T_ENUM64 - FILL - 4 + 2,
	      "kept %u (to the enum64 all but the fillers, other, dropme, two enums; keeptoo and its pointer)", st->kept);
}

int main(void)
{
	static const char *const roots[] = { "E64_ASKED", "QUEUE_FLAG_X", "e", "keepme", "keeptoo" };
	struct btf *full = build();
	struct btfslim_stats st = {}, st2 = {};
	__u32 size, size2;
	const void *raw = btf__raw_data(full, &size);
	struct btf *s = btfslim__new(raw, -1, size, roots, 5, &st), *s2;
	FILE *f = tmpfile();

	CHECK(size > 2 * 65536, "the BTF made: %u bytes", size);
	CHECK(s, "cut from memory: %s", strerror(errno));
	if (!s)
		CHECK_DONE();
	check_cut(s, &st, "from memory");
	/* from a file, read in pieces: the same bytes */
	CHECK(f && fwrite(raw, 1, size, f) == size && !fflush(f), "tmpfile");
	s2 = f ? btfslim__new(NULL, fileno(f), size, roots, 5, &st2) : NULL;
	CHECK(s2, "cut from a file: %s", strerror(errno));
	if (s2) {
		const void *a = btf__raw_data(s, &size), *b = btf__raw_data(s2, &size2);

		check_cut(s2, &st2, "from a file");
		CHECK(size == size2 && !memcmp(a, b, size), "the same BTF both ways (%u, %u bytes)", size, size2);
		btf__free(s2);
	}
	btf__free(s);

	/* not BTF: NULL and EINVAL, for the caller to use the whole */
	{
		char junk[64] = "not btf";

		errno = 0;
		CHECK(!btfslim__new(junk, -1, sizeof(junk), roots, 5, NULL) && errno == EINVAL, "junk refused");
	}
	btf__free(full);
	if (f)
		fclose(f);
	CHECK_DONE();
}

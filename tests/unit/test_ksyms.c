// SPDX-License-Identifier: GPL-2.0
/* ksyms: a kallsyms file read, sorted, and addresses found back. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "ksyms.h"

int main(void)
{
	struct ksyms k;
	const struct ksym *s;
	/* tests/run runs unit tests from the top of the tree */
	int err = ksyms__load(&k, "tests/data/kallsyms.txt");

	CHECK(err == 0, "load: %d", err);
	CHECK(k.n == 7, "text symbols with an address: %zu", k.n);
	s = ksyms__find(&k, 0xffffffff81200150);
	CHECK(s && !strcmp(s->name, "vfs_read") && !s->module, "inside vfs_read: %s", s ? s->name : "-");
	s = ksyms__find(&k, 0xffffffff81200300);
	CHECK(s && !strcmp(s->name, "rw_verify_area"), "at a start: %s", s ? s->name : "-");
	s = ksyms__find(&k, 0xffffffffc0001234);
	CHECK(s && !strcmp(s->name, "lo_complete_rq") && s->module && !strcmp(s->module, "loop"),
	      "in a module: %s [%s]", s ? s->name : "-", s && s->module ? s->module : "-");
	CHECK(!ksyms__find(&k, 0x1000), "below the first symbol");
	CHECK(ksyms__addr(&k, "vfs_write") == 0xffffffff81200400, "by name");
	CHECK(ksyms__addr(&k, "some_data") == 0, "data symbols are not kept");
	ksyms__free(&k);
	CHECK(ksyms__load(&k, "tests/data/no-such-file") < 0, "a missing file fails");
	/* the running kernel's, when its addresses are readable (root) */
	if (!ksyms__load(&k, NULL) && k.n) {
		uint64_t a = ksyms__addr(&k, "vfs_read");

		s = a ? ksyms__find(&k, a + 1) : NULL;
		CHECK(s && !strcmp(s->name, "vfs_read"), "vfs_read + 1 in /proc/kallsyms: %s",
		      s ? s->name : "-");
		printf("/proc/kallsyms: %zu text symbols\n", k.n);
		ksyms__free(&k);
	}
	CHECK_DONE();
}

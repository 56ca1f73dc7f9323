// SPDX-License-Identifier: GPL-2.0
/* Stacks as a recording keeps them (frames__to_text / frames__from_text),
 * and the table they are kept in by (pid, id). */
#include <errno.h>
#include <string.h>
#include "check.h"
#include "frames.h"

static struct frame f_user[] = {
	{ .addr = 0x55d0a0001234, .offset = 0x14, .sym = "inner", .where = "[app] app.c:12", .file = "app.c", .line = 12 },
	{ .addr = 0x55d0a0001300, .sym = "through", .where = "[app] app.c:20", .inlined = true },
	{ .addr = 0x55d0a0001300, .offset = 0x20, .sym = "mid\tdle\nx", .where = NULL },
	{ .addr = 0x7f0000000010 },	/* unknown */
};

static void same(const struct frames *a, const struct frames *b, const char *what)
{
	CHECK(a->n == b->n && a->user == b->user && a->cut == b->cut, "%s: %d/%d frames", what, a->n, b->n);
	for (int i = 0; i < a->n && i < b->n; i++) {
		const struct frame *x = &a->f[i], *y = &b->f[i];

		CHECK(x->addr == y->addr && x->offset == y->offset && x->inlined == y->inlined,
		      "%s frame %d: %llx+%llx", what, i, (unsigned long long)y->addr, (unsigned long long)y->offset);
		CHECK(!x->sym == !y->sym, "%s frame %d: sym known", what, i);
		CHECK(!x->where == !y->where, "%s frame %d: where known", what, i);
		CHECK(!x->file == !y->file && x->line == y->line, "%s frame %d: file and line", what, i);
	}
}

int main(void)
{
	struct frames u = { .f = f_user, .n = 4, .user = true, .cut = true };
	struct frame kf[] = { { .addr = 0xffffffff81000010, .offset = 0x10, .sym = "submit_bio" },
			      { .addr = 0xffffffffc0000020, .offset = 0x20, .sym = "nbd_x", .where = "nbd" } };
	struct frames k = { .f = kf, .n = 2 };
	struct ustacks kc = {}, uc = {};
	const struct frames *got;
	size_t len;
	char *t;

	t = frames__to_text(&u, 4242, 17, &len);
	CHECK(t && len == strlen(t), "user text");
	CHECK(!frames__from_text(&kc, &uc, t, len), "user text read back: %s", t);
	free(t);
	got = ustacks__find(&uc, 4242, 17);
	CHECK(got != NULL && kc.n == 0, "kept under (4242, 17), in the user table only");
	if (got) {
		same(&u, got, "user");
		/* a tab or a newline in a name would break the format: spaces */
		CHECK(got->n > 2 && !strcmp(got->f[2].sym, "mid dle x"), "%s", got->f[2].sym);
		CHECK(!strcmp(got->f[1].where, "[app] app.c:20") && got->f[1].inlined, "inlined frame");
		CHECK(!strcmp(got->f[0].file, "app.c") && got->f[0].line == 12, "file and line");
	}

	t = frames__to_text(&k, 0, 3, &len);
	CHECK(t && !frames__from_text(&kc, &uc, t, len), "kernel text read back");
	free(t);
	got = ustacks__find(&kc, 0, 3);
	CHECK(got != NULL, "kernel stack kept under id 3");
	if (got) {
		same(&k, got, "kernel");
		CHECK(!strcmp(got->f[1].where, "nbd"), "module");
	}

	/* kept in order whatever the order they come in; the same one twice is kept once */
	for (int id = 40; id > 30; id--) {
		struct frames e = { .user = true };

		CHECK(ustacks__put(&uc, 100, id, &e) != NULL, "put %d", id);
	}
	for (int id = 31; id <= 40; id++)
		CHECK(ustacks__find(&uc, 100, id) != NULL, "find %d", id);
	CHECK(ustacks__find(&uc, 100, 30) == NULL && ustacks__find(&uc, 99, 31) == NULL, "absent ones");
	t = frames__to_text(&u, 4242, 17, &len);
	CHECK(!frames__from_text(&kc, &uc, t, len) && uc.n == 11, "a stack read twice: %zu kept", uc.n);
	free(t);

	CHECK(frames__from_text(&kc, &uc, "user 1 2 0\nzz\n", 14) == -EINVAL, "a bad frame line");
	CHECK(frames__from_text(&kc, &uc, "bogus\n", 6) == -EINVAL, "a bad header");
	ustacks__free(&kc);
	ustacks__free(&uc);
	CHECK_DONE();
}

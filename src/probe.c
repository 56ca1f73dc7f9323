// SPDX-License-Identifier: GPL-2.0
/* iodig probe: what this kernel offers, and what each command will use. */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "attach.h"
#include "bpfenv.h"
#include "cli.h"
#include "json.h"
#include "log.h"

/* A C-ish name for a BTF type: "struct request *", "unsigned int". */
static void type_name(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int stars = 0;

	while (t && (btf_is_ptr(t) || btf_is_const(t) || btf_is_volatile(t))) {
		stars += btf_is_ptr(t);
		t = btf__type_by_id(btf, t->type);
	}
	if (!t || !t->name_off)
		snprintf(buf, len, "void%s", stars ? " *" : "");
	else
		snprintf(buf, len, "%s%s%s%.*s", btf_is_struct(t) ? "struct " : btf_is_union(t) ? "union " : "",
			 btf__name_by_offset(btf, t->name_off), stars ? " " : "", stars, "****");
}

struct tp {
	char name[64];
	char args[256];
};

/* Block tracepoints and their arguments, from the btf_trace_block_* typedefs
 * that tp_btf programs attach by. */
static int block_tracepoints(struct tp *tps, int max)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int n = 0;

	if (!btf)
		return 0;
	for (__u32 id = 1; id < btf__type_cnt(btf) && n < max; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id), *fp;
		const char *name = btf__name_by_offset(btf, t->name_off);
		const struct btf_param *p;
		size_t off = 0;

		if (!btf_is_typedef(t) || strncmp(name, "btf_trace_block_", 16))
			continue;
		fp = btf__type_by_id(btf, btf__type_by_id(btf, t->type)->type);
		if (!fp || !btf_is_func_proto(fp))
			continue;
		snprintf(tps[n].name, sizeof(tps[n].name), "%s", name + 10);
		p = btf_params(fp);
		tps[n].args[0] = '\0';
		for (int i = 1; i < btf_vlen(fp); i++) {	/* param 0 is the probe's void * */
			char tn[64];

			type_name(btf, p[i].type, tn, sizeof(tn));
			off += snprintf(tps[n].args + off, sizeof(tps[n].args) - off, "%s%s", i > 1 ? ", " : "", tn);
		}
		n++;
	}
	btf__free(btf);
	return n;
}

int cmd_probe(int argc, char **argv)
{
	static const struct cli_cmd cmd = {
		.name = "probe", .synopsis = "[--json]",
		.about = "What this kernel offers iodig (BTF, tracepoints, fentry, kprobes,\n"
			 "kprobe-multi, uprobes, ring buffer, cookies, bpf_stats), each tried for real,\n"
			 "the block tracepoints and their arguments, and what each command will use.\n" };
	struct cli_common c = {};
	const struct features *f;
	struct utsname u;
	struct tp tps[64];
	int ntp, err;
	bool kfunc;

	if ((err = cli__prologue(&cmd, argc, argv, &c, NULL)) >= 0)
		return err;
	/* the checks load and attach programs: without the capabilities
	 * every answer would be a wrong "no" */
	if (bpfenv__check_caps())
		return 1;
	bpfenv__setup(NULL);	/* routes libbpf's log; a missing BTF is reported below */
	uname(&u);
	f = features__get();
	ntp = block_tracepoints(tps, 64);
	kfunc = f->fentry || f->kprobe;

	if (c.json) {
		struct json j;

		json__init(&j, stdout);
		json__obj_begin(&j);
		json__kstr(&j, "kernel", u.release);
		json__key(&j, "features");
		json__obj_begin(&j);
		json__kbool(&j, "btf", f->btf);
		json__kbool(&j, "tp_btf", f->tp_btf);
		json__kbool(&j, "raw_tp", f->btf);
		json__kbool(&j, "fentry", f->fentry);
		json__kbool(&j, "kprobes", f->kprobe);
		json__kbool(&j, "kprobe_multi", f->kprobe_multi);
		json__kbool(&j, "uprobes", f->uprobe);
		json__kbool(&j, "ringbuf", f->ringbuf);
		json__kbool(&j, "bpf_cookie", f->cookie);
		json__kbool(&j, "bpf_stats", f->bpf_stats);
		json__obj_end(&j);
		json__key(&j, "why_not");
		json__obj_begin(&j);
		if (!f->fentry) json__kstr(&j, "fentry", f->why_fentry);
		if (!f->kprobe) json__kstr(&j, "kprobes", f->why_kprobe);
		if (!f->kprobe_multi) json__kstr(&j, "kprobe_multi", f->why_kprobe_multi);
		if (!f->uprobe) json__kstr(&j, "uprobes", f->why_uprobe);
		json__obj_end(&j);
		json__key(&j, "block_tracepoints");
		json__arr_begin(&j);
		for (int i = 0; i < ntp; i++) {
			json__obj_begin(&j);
			json__kstr(&j, "name", tps[i].name);
			json__kstr(&j, "args", tps[i].args);
			json__obj_end(&j);
		}
		json__arr_end(&j);
		json__key(&j, "commands");
		json__obj_begin(&j);
		json__kstr(&j, "lat", f->btf ? "tp_btf" : "unavailable");
		json__kstr(&j, "slow", f->btf ? "tp_btf, syscalls tracepoints" : "unavailable");
		json__kstr(&j, "snoop", f->btf ? "tp_btf" : "unavailable");
		json__kstr(&j, "func_kernel", f->fentry ? "fentry (one function), kprobe-multi or kprobe (many)" :
			   f->kprobe_multi ? "kprobe-multi" : f->kprobe ? "kprobe" : "unavailable");
		json__kstr(&j, "func_user", f->uprobe ? "uprobe" : "unavailable");
		json__obj_end(&j);
		json__obj_end(&j);
		return 0;
	}
	printf("kernel %s\n\n", u.release);
#define ROW(name, ok, why) printf("  %-16s %-4s %s\n", name, (ok) ? "yes" : "no", (ok) ? "" : (why))
	ROW("BTF", f->btf, "/sys/kernel/btf/vmlinux missing (CONFIG_DEBUG_INFO_BTF)");
	ROW("tp_btf, raw_tp", f->tp_btf, "needs BTF");
	ROW("fentry/fexit", f->fentry, f->why_fentry);
	ROW("kprobes", f->kprobe, f->why_kprobe);
	ROW("kprobe-multi", f->kprobe_multi, f->why_kprobe_multi);
	ROW("uprobes", f->uprobe, f->why_uprobe);
	ROW("ring buffer", f->ringbuf, "needs 5.8");
	ROW("BPF cookies", f->cookie, "needs 5.15");
	ROW("bpf_stats", f->bpf_stats, "no kernel.bpf_stats_enabled");
	printf("\nblock tracepoints (arguments from BTF):\n");
	for (int i = 0; i < ntp; i++)
		printf("  %s(%s)\n", tps[i].name, tps[i].args);
	printf("\ncommands here:\n");
	printf("  %-22s %s\n", "lat, slow, snoop", f->btf ? "yes: block tracepoints (tp_btf)" : "no: needs BTF");
	printf("  %-22s %s\n", "sysfs", "yes if tracefs has syscalls:sys_enter_write");
	printf("  %-22s %s\n", "func KERNEL_FUNCTION", kfunc ? (f->fentry ? "yes: fentry for one function, kprobes for many" : "yes: kprobes") :
	       "no: this kernel has neither kprobes nor fentry");
	printf("  %-22s %s\n", "func BINARY:SYMBOL", f->uprobe ? "yes: uprobes" : "no: no uprobes");
	return 0;
}

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
#include "fields.h"
#include "json.h"
#include "life_user.h"
#include "log.h"
#include "recs.h"

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
	const struct btf *btf = bpfenv__vmlinux();
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
		if (!(fp = bpfenv__tp_proto(btf, id)))
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
	return n;
}

/* ---- what it prints, declared once (fields.h) ---- */

#define NCMDS 9

/* text: a command (or a few), and what it will use here */
struct cmd_line {
	const char *label, *text;
};

struct probe_view {
	const char *kernel;
	struct features f;
	const char *why_fentry, *why_kprobe, *why_kprobe_multi, *why_uprobe;	/* NULL: available */
	const struct tp *tps;
	int ntp;
	const char *lat, *slow, *snoop, *func_kernel, *func_user;	/* JSON: what each uses */
	const char *stacked;	/* bio-based disks: where a bio's start comes from */
	const char *owners;	/* whose data a write carried: the dirtying tracepoint, or unavailable */
	const char *steal;	/* why's steal part: kvm's steal clock, or unavailable */
	const char *user_stacks;	/* -U: who walks them (ustack.bpf.h) */
	const char *kernel_stacks;	/* stacks, -K: walked at each event, or memos (kmemo.bpf.h) */
	struct cmd_line cmds[NCMDS];
};

#define PV(x) offsetof(struct probe_view, x)
static const struct field feature_fields[] = {
	{ "btf", FS_BOOL, PV(f.btf) },
	{ "tp_btf", FS_BOOL, PV(f.tp_btf) },
	{ "raw_tp", FS_BOOL, PV(f.btf) },
	{ "fentry", FS_BOOL, PV(f.fentry) },
	{ "kprobes", FS_BOOL, PV(f.kprobe) },
	{ "kprobe_multi", FS_BOOL, PV(f.kprobe_multi) },
	{ "uprobes", FS_BOOL, PV(f.uprobe) },
	{ "ringbuf", FS_BOOL, PV(f.ringbuf) },
	{ "bpf_cookie", FS_BOOL, PV(f.cookie) },
	{ "atomic_fetch", FS_BOOL, PV(f.atomic_fetch) },
	{ "task_storage", FS_BOOL, PV(f.task_storage) },
	{ "bpf_loop", FS_BOOL, PV(f.loop) },
	{ "bpf_stats", FS_BOOL, PV(f.bpf_stats) },
};
static const struct rec feature_rec = REC(NULL, NULL, NULL, feature_fields);

static const struct field why_not_fields[] = {
	{ "fentry", FS_PSTR, PV(why_fentry), .flags = FL_OMIT_NULL },
	{ "kprobes", FS_PSTR, PV(why_kprobe), .flags = FL_OMIT_NULL },
	{ "kprobe_multi", FS_PSTR, PV(why_kprobe_multi), .flags = FL_OMIT_NULL },
	{ "uprobes", FS_PSTR, PV(why_uprobe), .flags = FL_OMIT_NULL },
};
static const struct rec why_not_rec = REC(NULL, NULL, NULL, why_not_fields);

static const struct field tp_fields[] = {
	{ "name", FS_CHARS, offsetof(struct tp, name), .head = "", .fmt = "  %s" },
	{ "args", FS_CHARS, offsetof(struct tp, args), .flags = FL_TAIL, .fmt = "(%s)" },
};
static const struct rec tp_line_rec = REC(NULL, NULL, NULL, tp_fields);

static const void *e_tps(const void *row, unsigned i, struct fctx *c, void *scratch, const char **key)
{
	const struct probe_view *pv = row;

	return (int)i < pv->ntp ? &pv->tps[i] : NULL;
}

static const struct field cmds_fields[] = {
	{ "lat", FS_PSTR, PV(lat) },
	{ "slow", FS_PSTR, PV(slow) },
	{ "snoop", FS_PSTR, PV(snoop) },
	{ "func_kernel", FS_PSTR, PV(func_kernel) },
	{ "func_user", FS_PSTR, PV(func_user) },
	{ "stacked", FS_PSTR, PV(stacked) },
	{ "owners", FS_PSTR, PV(owners) },
	{ "steal", FS_PSTR, PV(steal) },
	{ "user_stacks", FS_PSTR, PV(user_stacks) },
	{ "kernel_stacks", FS_PSTR, PV(kernel_stacks) },
};
static const struct rec cmds_rec = REC(NULL, NULL, NULL, cmds_fields);

static const struct field probe_fields[] = {
	{ "kernel", FS_PSTR, PV(kernel) },
	{ "features", FS_OBJ, .sub = &feature_rec, .flags = FL_OBJECT },
	{ "why_not", FS_OBJ, .sub = &why_not_rec, .flags = FL_OBJECT },
	{ "block_tracepoints", FS_LIST, .each = e_tps, .sub = &tp_line_rec },
	{ "commands", FS_OBJ, .sub = &cmds_rec, .flags = FL_OBJECT },
};

const struct rec probe_rec = REC(NULL, "probe", "probe --json: what this kernel offers", probe_fields);

/* text: one line a feature, with why not where it is missing */
struct feature_line {
	const char *label;
	bool ok;
	const char *why;
};

static void t_yes(const void *row, const struct fctx *c, struct fval *v, char *b, size_t n)
{
	v->k = V_STR;
	v->s = ((const struct feature_line *)row)->ok ? "yes" : "no";
}

static const struct field feature_line_fields[] = {
	{ NULL, FS_PSTR, offsetof(struct feature_line, label), .head = "", .fmt = "  %-16s" },
	{ NULL, FS_GET, .tget = t_yes, .head = "", .fmt = "%-4s" },
	{ NULL, FS_PSTR, offsetof(struct feature_line, why), .head = "", .fmt = "%s" },
};
static const struct rec feature_line_rec = REC(NULL, NULL, NULL, feature_line_fields);

static const struct {
	const char *label;
	size_t ok, why_off;	/* why_off: the kernel's own reason, in struct features */
	const char *why;
} feature_rows[] = {
	{ "BTF", offsetof(struct features, btf), 0, "/sys/kernel/btf/vmlinux missing (CONFIG_DEBUG_INFO_BTF)" },
	{ "tp_btf, raw_tp", offsetof(struct features, tp_btf), 0, "needs BTF" },
	{ "fentry/fexit", offsetof(struct features, fentry), offsetof(struct features, why_fentry) },
	{ "kprobes", offsetof(struct features, kprobe), offsetof(struct features, why_kprobe) },
	{ "kprobe-multi", offsetof(struct features, kprobe_multi), offsetof(struct features, why_kprobe_multi) },
	{ "uprobes", offsetof(struct features, uprobe), offsetof(struct features, why_uprobe) },
	{ "ring buffer", offsetof(struct features, ringbuf), 0, "needs 5.8" },
	{ "BPF cookies", offsetof(struct features, cookie), 0, "needs 5.15: func" },
	{ "atomic fetch", offsetof(struct features, atomic_fetch), 0,
	  "needs 5.12: slow, snoop, top, record, export, layers, why, doctor" },
	{ "task storage", offsetof(struct features, task_storage), 0, "needs 5.11: why, cache, readahead" },
	{ "bpf_loop", offsetof(struct features, loop), 0, "needs 5.17: stacks, readahead" },
	{ "bpf_stats", offsetof(struct features, bpf_stats), 0, "no kernel.bpf_stats_enabled" },
};

static const struct field cmd_line_fields[] = {
	{ NULL, FS_PSTR, offsetof(struct cmd_line, label), .head = "", .fmt = "  %-22s" },
	{ NULL, FS_PSTR, offsetof(struct cmd_line, text), .head = "", .fmt = "%s" },
};
static const struct rec cmd_line_rec = REC(NULL, NULL, NULL, cmd_line_fields);

/* what each command will use on this kernel, in JSON's words and text's */
static void commands(struct probe_view *pv)
{
	const struct features *f = &pv->f;
	bool kfunc = f->fentry || f->kprobe;

	pv->lat = f->btf ? "tp_btf" : "unavailable";
	pv->snoop = f->btf && f->atomic_fetch ? "tp_btf" : "unavailable";
	pv->slow = f->btf && f->atomic_fetch ? "tp_btf, syscalls tracepoints" : "unavailable";
	pv->func_kernel = f->fentry ? "fentry (one function), kprobe-multi or kprobe (many)" :
			  f->kprobe_multi ? "kprobe-multi" : f->kprobe ? "kprobe" : "unavailable";
	pv->func_user = f->uprobe ? "uprobe" : "unavailable";
	pv->cmds[0] = (struct cmd_line){ "lat, slow, snoop", !f->btf ? "no: needs BTF" :
		f->atomic_fetch ? "yes: block tracepoints (tp_btf)" :
		"lat yes; slow, snoop no: need BPF atomic fetch instructions (5.12)" };
	pv->cmds[1] = (struct cmd_line){ "sysfs", "yes if tracefs has syscalls:sys_enter_write" };
	pv->cmds[2] = (struct cmd_line){ "func KERNEL_FUNCTION", kfunc ? (f->fentry ? "yes: fentry for one function, "
									     "kprobes for many" : "yes: kprobes")
									: "no: this kernel has neither kprobes nor fentry" };
	pv->cmds[3] = (struct cmd_line){ "func BINARY:SYMBOL", f->uprobe ? "yes: uprobes" : "no: no uprobes" };
	/* bio-based disks (dm, md, bcache, zram): their bios, from the kernel's
	 * Q stamp when it keeps one for every bio (life__kernel_q) */
	{
		const struct btf *vmlinux = f->btf ? bpfenv__vmlinux() : NULL;
		bool kq = vmlinux && life__kernel_q(vmlinux);

		pv->stacked = !f->btf ? "unavailable" : kq ? "tp_btf, the kernel's bio stamps"
								  : "tp_btf, iodig's bio stamps";
		pv->cmds[4] = (struct cmd_line){ "dm, md, bcache, zram",
			!f->btf ? "no: needs BTF" : kq ? "yes (lat, slow, snoop, layers): bios timed from the kernel's stamp"
						      : "yes (lat, slow, snoop, layers): bios stamped by iodig (the kernel "
							"stamps them for blk-iolatency only)" };
		/* who dirtied a write's data: top's writeback rows, why's
		 * data_of, doctor's journal culprit (5.18 renamed the event) */
		bool wb = vmlinux && bpfenv__has_tp(vmlinux, "writeback_dirty_folio");

		pv->owners = wb ? "writeback_dirty_folio" : "unavailable";
		pv->cmds[5] = (struct cmd_line){ "writeback owners",
			wb ? "yes (top, why, doctor): writeback_dirty_folio"
			   : "no: top's writeback rows, why's data_of and doctor's journal culprit need "
			     "writeback_dirty_folio (5.18; this kernel's is writeback_dirty_page)" };
		/* CPU the hypervisor took from a call (kfeatures__steal_off) */
		bool st = vmlinux && kfeatures__steal_off(vmlinux);

		pv->steal = st ? "kvm steal_time" : "unavailable";
		pv->cmds[6] = (struct cmd_line){ "why's steal part",
			st ? "yes: kvm's per-CPU steal clock"
			   : "no: this kernel has no kvm steal clock (not built as a kvm guest): stolen time counts as cpu" };
		/* -U: walked by iodig where it can (ustack.bpf.h) */
		bool uw = vmlinux && bpfenv__ustack_walk(vmlinux);

		pv->user_stacks = !f->btf ? "unavailable" : uw ? "iodig's frame-pointer walk" : "the kernel's walk";
		pv->cmds[7] = (struct cmd_line){ "user stacks (-U)",
			!f->btf ? "no: needs BTF" : uw ? "walked by iodig: frames only where a frame can be"
			: "the kernel's walk (iodig's needs bpf_task_pt_regs, 5.15, and bpf_loop, 5.17): "
			  "binaries without frame pointers add garbage frames, each a stack of its own" };
		/* stacks at block submission, -K: memos where the user walk can run (kmemo.bpf.h) */
		pv->kernel_stacks = !f->btf ? "unavailable" : uw ? "memos of each path" : "walked at each event";
		pv->cmds[8] = (struct cmd_line){ "kernel stacks (-K)",
			!f->btf ? "no: needs BTF" : uw ? "walked once for each call path, then from memos "
							 "(one use in 64 walked again to check)"
			: "walked at each event (memos need bpf_task_pt_regs, 5.15, and bpf_loop, 5.17)" };
	}
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
	struct probe_view pv;
	struct fctx fc = {};
	int ntp, err;

	if ((err = cli__prologue(&cmd, argc, argv, &c, NULL)) >= 0)
		return err;
	/* the checks load and attach programs: without the capabilities
	 * every answer would be a wrong "no" */
	if (bpfenv__check_caps())
		return 1;
	bpfenv__setup();	/* routes libbpf's log; a missing BTF is reported below */
	uname(&u);
	f = features__get();
	ntp = block_tracepoints(tps, 64);

	pv = (struct probe_view){ .kernel = u.release, .f = *f, .tps = tps, .ntp = ntp };
	pv.why_fentry = f->fentry ? NULL : f->why_fentry;
	pv.why_kprobe = f->kprobe ? NULL : f->why_kprobe;
	pv.why_kprobe_multi = f->kprobe_multi ? NULL : f->why_kprobe_multi;
	pv.why_uprobe = f->uprobe ? NULL : f->why_uprobe;
	commands(&pv);
	if (c.json) {
		struct json j;

		json__init(&j, stdout);
		fields__json(&j, &probe_rec, &pv, &fc);
		return 0;
	}
	printf("kernel %s\n\n", u.release);
	for (size_t k = 0; k < FIELDS_N(feature_rows); k++) {
		struct feature_line fl = { feature_rows[k].label, *(const bool *)((const char *)f + feature_rows[k].ok) };

		fl.why = fl.ok ? "" : feature_rows[k].why_off ? (const char *)f + feature_rows[k].why_off
							      : feature_rows[k].why;
		fields__text(stdout, &feature_line_rec, &fl, &fc);
	}
	printf("\nblock tracepoints (arguments from BTF):\n");
	for (int k = 0; k < ntp; k++)
		fields__text(stdout, &tp_line_rec, &tps[k], &fc);
	printf("\ncommands here:\n");
	for (int k = 0; k < NCMDS; k++)
		fields__text(stdout, &cmd_line_rec, &pv.cmds[k], &fc);
	return 0;
}

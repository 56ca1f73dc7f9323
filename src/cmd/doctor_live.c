// SPDX-License-Identifier: GPL-2.0
/*
 * iodig doctor's live run: why's engine (its life engine teed to the
 * request printer, whose sink hands each decoded request to the rules, tag
 * holders asked for), or with --no-calls the life engine alone; beside
 * them the throttle and readahead programs, read at the end, and the
 * kernel's refault counts.  Filters (-d, -p, --comm, -c) apply to the
 * requests here, since why's engine follows every process's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfenv.h"
#include "counters.h"
#include "disks.h"
#include "doctor_int.h"
#include "filter.h"
#include "kfeatures.h"
#include "life.skel.h"
#include "life_user.h"
#include "log.h"
#include "readahead.skel.h"
#include "recfile.h"
#include "run.h"
#include "throttle.skel.h"
#include "why_int.h"

/* Dirty throttling beside the request engine: its totals at the end.  A
 * kernel without the tracepoint's fields loses this finding, said once. */
static struct throttle_bpf *throttle_start(const struct disk_sel *sel, uint32_t pid)
{
	struct throttle_bpf *sk = throttle_bpf__open_opts(bpfenv__open_opts());
	int err;

	if (!sk) {
		warnf("dirty throttling is not watched: opening its BPF object: %s", strerror(errno));
		return NULL;
	}
	sk->rodata->filter_pid = pid;
	if (sel->disk)
		snprintf((char *)sk->rodata->filter_bdi, THROTTLE_BDI_LEN, "%u:%u", sel->disk >> 20,
			 sel->disk & 0xfffff);
	if ((err = throttle_bpf__load(sk)) || (err = bpfenv__attach(sk->skeleton))) {
		warnf("dirty throttling is not watched: writeback:balance_dirty_pages: %s", strerror(-err));
		throttle_bpf__destroy(sk);
		return NULL;
	}
	return sk;
}

static void throttle_collect(struct throttle_bpf *sk, struct diagnose *d, const char *comm)
{
	struct throttle_key k, *prev = NULL;
	struct throttle_val v;
	int fd = bpf_map__fd(sk->maps.throttles);

	d->throttle_on = true;
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		if (comm && strncmp(k.comm, comm, THROTTLE_COMM_LEN))
			continue;
		diagnose__throttle(d, &k, &v);
	}
	d->full += sk->bss->stats.map_full;
}

/* Every request of the disks, processes or cgroup asked for reaches the
 * rules (why's engine follows every process's requests: a wait's waker is
 * seldom the traced one). */
struct doc_filter {
	struct disk_sel sel;
	uint32_t pid;
	uint64_t cgroup;
	const char *comm;
	struct diagnose *d;
};

static bool wanted(const struct doc_filter *x, uint32_t dev, uint32_t pid, const char *comm, uint64_t cgroup)
{
	return (!x->sel.disk || dev == x->sel.disk) && (!x->pid || pid == x->pid) &&
	       (!x->comm || !strncmp(comm, x->comm, LIFE_COMM_LEN)) && (!x->cgroup || cgroup == x->cgroup);
}

static void f_req(void *ctx, const struct req_seen *s)
{
	struct doc_filter *x = ctx;

	if (!x->sel.disk || s->r->dev == x->sel.disk)
		diagnose__owner(x->d, s);
	if (wanted(x, s->r->dev, s->r->pid, s->r->comm, s->r->cgroup))
		diagnose__request(x->d, s);
}

/* a data owner's name: the engine's own record of it, else /proc */
static struct life *owners_of;

static bool comm_of(uint32_t pid, char *comm, size_t len)
{
	return life__dirtier_comm(owners_of, pid, comm, len);
}

static void f_upper(void *ctx, const struct life_upper *u)
{
	struct doc_filter *x = ctx;

	if (wanted(x, u->dev, u->pid, u->comm, x->cgroup))
		diagnose__upper(x->d, u);
}

static void f_write(void *ctx, const struct life_sysfs *w)
{
	diagnose__write(((struct doc_filter *)ctx)->d, w);
}

/* Readahead by process beside the engines (6.18's readahead tracepoints,
 * task storage, bpf_loop): what a kernel without them lacks is said once. */
static struct readahead_bpf *ra_start(uint32_t pid)
{
	struct readahead_bpf *sk;
	int err;

	if (!kfeatures__has(NEED_TASK_STORAGE) || !kfeatures__has(NEED_LOOP)) {
		warnf("readahead is not watched: this kernel has no BPF task storage or bpf_loop (5.17)");
		return NULL;
	}
	if (!(sk = readahead_bpf__open_opts(bpfenv__open_opts()))) {
		warnf("readahead is not watched: opening its BPF object: %s", strerror(errno));
		return NULL;
	}
	sk->rodata->targ_by = RA_BY_PROCESS;
	sk->rodata->filter_pid = pid;
	if ((err = readahead_bpf__load(sk)) || (err = bpfenv__attach(sk->skeleton))) {
		warnf("readahead is not watched: its tracepoints (6.18+): %s", strerror(-err));
		readahead_bpf__destroy(sk);
		return NULL;
	}
	return sk;
}

static void ra_collect(struct readahead_bpf *sk, struct diagnose *d, const char *comm)
{
	int fd = bpf_map__fd(sk->maps.rows), ncpus = libbpf_num_possible_cpus();
	struct ra_key k, *prev = NULL;
	struct ra_val *percpu, sum;

	if (ncpus <= 0 || !(percpu = calloc(ncpus, sizeof(*percpu))))
		return;
	d->ra_on = true;
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, percpu))
			continue;
		if (comm && strncmp(k.comm, comm, RA_COMM_LEN))
			continue;
		memset(&sum, 0, sizeof(sum));
		counters__sum_cpus(&sum, percpu, ncpus, sizeof(sum));
		diagnose__readahead(d, (uint32_t)k.id, k.comm, &sum);
	}
	d->full += sk->bss->stats.map_full;
	free(percpu);
}

/* /proc/vmstat's file refaults and activations, or -1 */
static int vmstat_refaults(uint64_t *refault, uint64_t *activate)
{
	char name[64];
	unsigned long long v;
	int got = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "workingset_refault_file"))
			*refault = v, got |= 1;
		else if (!strcmp(name, "workingset_activate_file"))
			*activate = v, got |= 2;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* why's summary of the slow calls, by system call, into the rules */
static void calls_collect(struct why_ctx *wc, struct diagnose *d)
{
	d->calls_on = true;
	d->call_min_ns = wc->o->min_ns;
	for (int i = 0; i < NSYSC; i++) {
		const struct sys_agg *a = &wc->agg[i];
		struct dx_calls c = { .calls = a->calls, .wall_ns = a->wall.sum };

		if (!a->calls)
			continue;
		snprintf(c.name, sizeof(c.name), "%s", why_syscalls[i].name);
		for (int p = 0; p < WP_NR; p++)
			c.part_ns[p] = a->part[p].sum;
		for (int k = 0; k < a->nwaits && k < DX_WAITS; k++) {
			c.wait[k].part = a->wait[k].part;
			snprintf(c.wait[k].place, DX_PLACE_LEN, "%s", a->wait[k].place);
			snprintf(c.wait[k].waker, sizeof(c.wait[k].waker), "%s", a->wait[k].waker);
			c.wait[k].irq = a->wait[k].irq;
			c.wait[k].ns = a->wait[k].ns;
			c.wait[k].calls = a->wait[k].calls;
			c.nwait++;
		}
		diagnose__calls(d, &c);
	}
}

#define DOC_CALL_MIN_NS 1000000ull	/* slow calls: from 1 ms */

int doctor__live(struct doc_opts *o, struct diagnose *d, struct req_printer *pr, const char *rec)
{
	static struct why_ctx wc;	/* large: its rings and summaries */
	struct why_opts wo = { .min_ns = DOC_CALL_MIN_NS, .summary_only = true, .comm = o->comm,
			       .cgroup = o->cgroup, .disk = o->disk };
	struct life_cfg cfg = { .mode = LIFE_SNOOP, .rb_bytes = o->rb_bytes, .tags = true, .owners = true };
	static struct printer_sink sink;
	static struct doc_filter x;
	struct req_summary sum;
	struct life l = {}, *lp = &wc.l;
	struct throttle_bpf *tsk = NULL;
	struct readahead_bpf *rsk = NULL;
	const struct btf *vmlinux;
	uint64_t end, rf0 = 0, ac0 = 0, rf1, ac1;
	bool refaults_ok = false;
	char msg[160];
	int err;

	x.d = d;
	x.comm = o->comm;
	if (o->disk && (err = filter__disk(o->disk, &x.sel)))
		return err;
	if (o->cgroup && o->no_calls && (err = filter__cgroup(o->cgroup, &x.cgroup)))
		return err;
	if (o->cgroup && !o->no_calls) {	/* the calls by their tasks' group; the requests by
						 * their bios' where bios carry its id */
		bool bios = false;

		if ((err = filter__task_cgroup(o->cgroup, &x.cgroup, &bios)))
			return err;
		if (!bios) {
			x.cgroup = 0;
			warnf("-c %s: the io controller is off for this group, so its bios carry no id of it: "
			      "its calls are judged, the requests of every process", o->cgroup);
		}
	}
	if (o->pid && (err = filter__pid(o->pid, &x.pid)))
		return err;
	sink = (struct printer_sink){ .req = f_req, .upper = f_upper, .write = f_write, .ctx = &x };
	pr->sink = &sink;
	if (!(vmlinux = bpfenv__vmlinux()))
		return fail("reading kernel BTF", "%s", strerror(errno));
	if ((err = reqflags__load(&pr->rf, vmlinux)))
		return fail("decoding request flags from kernel BTF", "%s", strerror(-err));
	/* what each engine needs, said as doctor's before either loads */
	if ((err = kfeatures__need(NEED_ATOMIC_FETCH, "doctor (the request engine)")) ||
	    (!o->no_calls && (err = kfeatures__need(NEED_TASK_STORAGE, "doctor's slow calls (--no-calls goes without them)"))))
		return err;
	if (rec && (err = recfile__create(&pr->rec, rec)))
		return fail("writing the recording", "%s: %s", rec, strerror(-err));
	if (o->no_calls) {	/* the request engine alone: every request, watched */
		cfg = (struct life_cfg){ .mode = LIFE_SLOW, .min_ns = 0, .sysfs = true, .comm = o->comm,
					 .rb_bytes = o->rb_bytes, .dev = x.sel.disk, .part = x.sel.part,
					 .pid = x.pid, .cgroup = x.cgroup, .kernel_q = life__kernel_q(vmlinux) };
		lp = &l;
		err = life__start(&l, &cfg, printer__on_record, pr);
	} else {
		if (o->pid) {
			wo.pids[0] = o->pid;
			wo.npids = 1;
		}
		wc = (struct why_ctx){ .o = &wo, .tee = printer__on_record, .tee_ctx = pr };
		err = why__start(&wc, &cfg);
	}
	if (err)
		goto out;
	if (lp->owners) {
		owners_of = lp;
		d->comm_of = comm_of;
	}
	/* the throttle program has no cgroup filter: with -c it is left out */
	if (!o->cgroup)
		tsk = throttle_start(&x.sel, x.pid);
	/* nor has the readahead program; it goes with the calls (--no-calls:
	 * the request engine alone) */
	if (!o->cgroup && !o->no_calls)
		rsk = ra_start(x.pid);
	if (!lp->sysfs_on && o->no_calls)
		warnf("queue attribute writes are not watched: %s", lp->sysfs_why);
	pr->t0 = run__mono_ns();
	printer__widths(pr);
	if (rec && (err = printer__record_tables(pr, rec)))
		goto out;
	run__signals();
	snprintf(msg, sizeof(msg), "Watching block I/O%s for %llu s (Ctrl-C ends it sooner), then the findings...",
		 o->no_calls ? "" : " and slow file-system calls", o->secs);
	if ((err = run__ready(o->c.ready_file, msg)))
		goto out;
	refaults_ok = !vmstat_refaults(&rf0, &ac0);
	end = run__mono_ns() + o->secs * 1000000000ull;
	while (!run__stopping() && run__mono_ns() < end) {
		if (!o->no_calls) {
			if ((err = why__poll(&wc, LIFE_DRAIN_MS)))
				goto out;
			continue;
		}
		if ((err = life__poll(&l, LIFE_DRAIN_MS)) > 0)
			goto out;
		if (err < 0) {
			err = fail("reading records", "%s", strerror(-err));
			goto out;
		}
	}
	if (o->no_calls) {
		life__detach(&l);
		life__drain(&l);
	} else {
		why__finish(&wc);
		calls_collect(&wc, d);
	}
	if (refaults_ok && !vmstat_refaults(&rf1, &ac1))
		diagnose__refaults(d, rf1 - rf0, ac1 - ac0);
	if (tsk)
		throttle_collect(tsk, d, o->comm);
	if (rsk)
		ra_collect(rsk, d, o->comm);
	printer__summary_of(lp, &sum);
	diagnose__summary(d, &sum);
	if (rec) {
		if (!pr->rec_err)
			pr->rec_err = recfile__write(&pr->rec, RECF_SUMMARY, &sum, sizeof(sum));
		if (recfile__close(&pr->rec) || pr->rec_err) {
			err = fail("writing the recording", "%s: %s", rec, strerror(EIO));
			goto out;
		}
	}
	if (lp->stack)
		diagnose__stack(d, &lp->skel->bss->stack_stats);
	err = 0;
out:
	if (pr->rec.f)
		recfile__close(&pr->rec);
	throttle_bpf__destroy(tsk);
	readahead_bpf__destroy(rsk);
	if (o->no_calls)
		life__stop(&l);
	else
		why__free(&wc);
	return err;
}


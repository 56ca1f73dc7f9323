// SPDX-License-Identifier: GPL-2.0
/* The request-life engine: loads life.bpf.c in the mode a command asks for. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "kfeatures.h"
#include "bpfenv.h"
#include "disks.h"
#include "life_user.h"
#include "usyms.h"
#include "log.h"
#include "run.h"
#include "life.skel.h"

static const char *phase_names[PH_NR] = { "Q2G", "G2I", "I2D", "D2C", "Q2C" };

const char *life__phase_name(int phase)
{
	return phase >= 0 && phase < PH_NR ? phase_names[phase] : "?";
}

const char *life__phase_key(int phase)
{
	static const char *const keys[PH_NR] = { "q2g_ns", "g2i_ns", "i2d_ns", "d2c_ns", "q2c_ns" };

	return phase >= 0 && phase < PH_NR ? keys[phase] : "?";
}

const char *life__dominant(const __u64 *ph, int complete)
{
	int best = PH_Q2G;

	if (!complete)
		return NULL;
	for (int p = PH_G2I; p <= PH_D2C; p++)
		if (ph[p] > ph[best])
			best = p;
	return phase_names[best];
}

const char *life__seen_str(uint32_t seen, char *buf)
{
	buf[0] = seen & SEEN_Q ? 'Q' : '-';
	buf[1] = seen & SEEN_G ? 'G' : '-';
	buf[2] = seen & SEEN_I ? 'I' : '-';
	buf[3] = seen & SEEN_D ? 'D' : '-';
	buf[4] = '\0';
	return buf;
}

/* Syscall tracepoints (tp/) need tracefs for their ids; this kernel does
 * not mount it at boot.  Mount it where libbpf looks. */
static int tracefs_ready(char *why, size_t len)
{
	int err = bpfenv__tracefs();
	char path[160];

	if (err) {
		snprintf(why, len, "%s", err == -EACCES || err == -EPERM ? bpfenv__strerror(err) :
			 strerror(-err));
		return -1;
	}
	if (bpfenv__tp_dir("syscalls", "sys_enter_write", path, sizeof(path))) {
		snprintf(why, len, "no syscalls:sys_enter_write tracepoint (kernel without CONFIG_FTRACE_SYSCALLS)");
		return -1;
	}
	/* the watcher attaches through perf events: may this process open one */
	if ((err = bpfenv__tp_perf_probe("syscalls", "sys_enter_write"))) {
		snprintf(why, len, "%s", bpfenv__strerror(err));
		return -1;
	}
	return 0;
}

int life__drain_phases(struct life *l, histmap_fn fn, void *ctx)
{
	struct life_bpf *sk = l->skel;
	__u32 old = histmap__flip(&sk->bss->epoch);

	return histmap__drain_rows(bpf_map__fd(old ? sk->maps.phase_rows1 : sk->maps.phase_rows0),
				   bpf_map__fd(old ? sk->maps.phases1 : sk->maps.phases0),
				   bpf_map__fd(sk->maps.phases_spill), old, sizeof(struct life_phase_key), PH_NR,
				   offsetof(struct life_phase_key, phase), fn, ctx);
}

/*
 * bio->bi_issue (4.19 to 6.16 or so) is stamped for every bio when the
 * kernel has CONFIG_BLK_CGROUP.  It became issue_time_ns, which kernels
 * with QUEUE_FLAG_BIO_ISSUE_TIME (6.18) stamp only on queues blk-iolatency
 * is set up on: there iodig stamps Q itself.
 */
bool life__kernel_q(const struct btf *vmlinux)
{
	if (!vmlinux)
		return false;
	if (bpfenv__has_member(vmlinux, "bio", "bi_issue"))
		return true;
	return bpfenv__has_member(vmlinux, "bio", "issue_time_ns") &&
	       bpfenv__enumerator(vmlinux, "QUEUE_FLAG_BIO_ISSUE_TIME", -1) < 0;
}

/* A disk under another: its lower bios may be linked to that one's by task. */
static void stack_pair(uint32_t upper, uint32_t lower, void *ctx)
{
	struct life *l = ctx;
	uint64_t k = (uint64_t)upper << 32 | lower, has = (uint64_t)upper << 32;
	uint8_t one = 1;

	bpf_map__update_elem(l->skel->maps.stack_pairs, &k, sizeof(k), &one, sizeof(one), BPF_ANY);
	/* (upper, 0): the disk has slaves, for stack_stats.unlinked */
	bpf_map__update_elem(l->skel->maps.stack_pairs, &has, sizeof(has), &one, sizeof(one), BPF_ANY);
}

/* The records ring when --buffer-size does not say: a record for every
 * request (snoop, record, why) needs room for the reader's jitter at full
 * speed: 2 MiB kept up with 216k requests/s, 0 lost, as did 8 MiB
 * (docs/PERFORMANCE.md); slow writes only slow requests, the others
 * queue-attribute writes and tag waits.  libbpf maps the ring twice, so it
 * counts twice in RSS: an 8 MiB ring for all was 16 MB of slow's 19.5. */
uint64_t life__ring_default(const struct life_cfg *cfg)
{
	if (cfg->mode == LIFE_SNOOP || (cfg->mode == LIFE_SLOW && !cfg->min_ns))
		return 2 << 20;
	return cfg->mode == LIFE_SLOW ? 1 << 20 : 256 << 10;
}

int life__start(struct life *l, const struct life_cfg *cfg, life_record_fn fn, void *ctx)
{
	struct life_bpf *sk;
	bool block = cfg->mode != LIFE_SYSFS, owners;
	int err;

	memset(l, 0, sizeof(*l));
	if (cfg->sysfs && tracefs_ready(l->sysfs_why, sizeof(l->sysfs_why)) == 0)
		l->sysfs_on = true;
	if (cfg->mode == LIFE_SYSFS && !l->sysfs_on)
		return fail("watching queue attribute writes", "%s", l->sysfs_why);

	if ((err = kfeatures__need(NEED_ATOMIC_FETCH, "the request engine (slow, snoop, top, record, export, layers, why, doctor)")))
		return err;
	sk = l->skel = life_bpf__open_opts(bpfenv__open_opts());
	if (!sk)
		return bpfenv__fail("opening BPF object", -errno);
	sk->rodata->targ_mode = cfg->mode;
	sk->rodata->targ_min_ns = cfg->min_ns;
	sk->rodata->targ_own_clock = cfg->own_clock;
	sk->rodata->targ_top_cgroups = cfg->top_cgroups;
	/* Watched where it saves work: with a threshold that lets fast
	 * requests go by, or where the kernel stamps bios at Q (no Q program).
	 * With neither (record, slow 0 on 6.18) every request went on the
	 * watch list and off it again: followed instead (record: 813 -> 531 ns
	 * a request, docs/PERFORMANCE.md "record followed, not watched") */
	l->watch = cfg->mode == LIFE_SLOW && !cfg->own_clock && (cfg->min_ns || cfg->kernel_q);
	/* snoop: +150 ns a request (DESIGN.md), so only when asked (doctor) */
	sk->rodata->targ_tags = cfg->mode == LIFE_SLOW || cfg->tags;
	l->kernel_q = l->watch && cfg->kernel_q;
	sk->rodata->targ_watch = l->watch;
	sk->rodata->targ_kernel_q = l->kernel_q;
	/* a request that waited this long before G is watched (life.bpf.c) */
	sk->rodata->targ_watch_ns = cfg->min_ns / 8;
	if (l->watch) {		/* slots are overwritten, not freed: more of them */
		sk->rodata->targ_slot_bits = LIFE_WATCH_SLOT_BITS;
		bpf_map__set_max_entries(sk->maps.bios, 1U << LIFE_WATCH_SLOT_BITS);
	}
	sk->rodata->filter_dev = cfg->dev;
	sk->rodata->filter_part = cfg->part;
	sk->rodata->filter_pid = cfg->pid;
	sk->rodata->filter_cgroup = cfg->cgroup;
	if (cfg->comm) {
		sk->rodata->filter_comm_on = true;
		strncpy((char *)sk->rodata->filter_comm, cfg->comm, LIFE_COMM_LEN - 1);
	}
	{
		uint64_t rb = cfg->rb_bytes ?: life__ring_default(cfg);

		sk->rodata->targ_wakeup_bytes = rb / 4;
		bpf_map__set_max_entries(sk->maps.records, rb);
	}
	sk->rodata->targ_test_spill = getenv("IODIG_TEST_SPILL") != NULL;	/* tests (life.bpf.h) */
	sk->rodata->targ_test_taken = getenv("IODIG_TEST_SLOT_TAKEN") != NULL;	/* tests (life_issue) */
	if (!cfg->own_clock)	/* the side table of BPF-made D stamps */
		bpf_map__set_max_entries(sk->maps.clocks, 1);
	if (!l->watch)
		bpf_map__set_max_entries(sk->maps.watch, 1);
	sk->rodata->targ_kstack = cfg->kstack;
	sk->rodata->targ_ustack = cfg->ustack;
	bpfenv__ustack_setup(&sk->rodata->ustack_walk, cfg->ustack, sk->maps.ustacks);
	bpfenv__ustack_setup(&sk->rodata->kmemo_on, cfg->kstack, sk->maps.kstacks);
	if (!cfg->kstack && !cfg->ustack)
		bpf_map__set_max_entries(sk->maps.qstacks, 1);
	bpfenv__stackmap_trim(sk->maps.stacks, cfg->kstack, sk->rodata->kmemo_on, cfg->ustack, sk->rodata->ustack_walk);
	/* Load only what this mode runs. */
	/* watched, G runs only where the kernel stamps bios at Q (the issue
	 * does the rest: life_issue) */
	bpf_program__set_autoload(sk->progs.life_getrq, block && (cfg->own_clock || (l->watch && l->kernel_q) ||
								    sk->rodata->targ_tags));
	if (!sk->rodata->targ_tags)
	{
		bpf_map__set_max_entries(sk->maps.grants, 1);
		bpf_map__set_max_entries(sk->maps.grant_idx, 1);
	}
	bpf_program__set_autoload(sk->progs.life_issue, block && (cfg->own_clock || l->watch));
	bpf_program__set_autoload(sk->progs.life_queue, block && !l->kernel_q);
	bpf_program__set_autoload(sk->progs.life_split, block);
	bpf_program__set_autoload(sk->progs.life_backmerge, block && !l->watch);
	bpf_program__set_autoload(sk->progs.life_frontmerge, block);
	bpf_program__set_autoload(sk->progs.life_insert, block);
	bpf_program__set_autoload(sk->progs.life_requeue, block);
	bpf_program__set_autoload(sk->progs.life_complete, block);
	owners = block && (cfg->mode == LIFE_TOP || (cfg->owners && !l->watch));
	sk->rodata->targ_owners = owners;
	bpf_program__set_autoload(sk->progs.life_dirty, owners);
	/* stacked disks: the bio-based disk asked for, or (no -d) one present */
	l->stack = (cfg->mode == LIFE_SLOW || cfg->mode == LIFE_SNOOP || cfg->mode == LIFE_TOP ||
		    cfg->mode == LIFE_PHASES) &&
		   (cfg->dev ? disks__bio_based(cfg->dev) : disks__any_bio_based());
	bpf_program__set_autoload(sk->progs.life_stack_queue, l->stack);
	bpf_program__set_autoload(sk->progs.life_stack_remap, l->stack);
	bpf_program__set_autoload(sk->progs.life_stack_rq_end, l->stack);
	bpf_program__set_autoload(sk->progs.life_stack_end, l->stack);
	if (!l->stack) {
		bpf_map__set_max_entries(sk->maps.uppers, 1);
		bpf_map__set_max_entries(sk->maps.upper_at, 1);
		bpf_map__set_max_entries(sk->maps.lower_of, 1);
		bpf_map__set_max_entries(sk->maps.task_upper, 1);
		bpf_map__set_max_entries(sk->maps.stack_pairs, 1);
	}
	if (!owners) {
		bpf_map__set_max_entries(sk->maps.dirtiers, 1);
		bpf_map__set_max_entries(sk->maps.dirtier_comms, 1);
	}
	{
		const struct btf *vmlinux = bpfenv__vmlinux();

		/* an older kernel names it writeback_dirty_page: said, not fatal */
		static const struct bpfenv_optional_tp wb[] = {
			{ "writeback_dirty_folio", "the processes that dirtied written-back pages" } };

		if (vmlinux && owners)
			bpfenv__drop_missing_tps(sk->obj, vmlinux, wb, 1);
		sk->rodata->rqf_flush_seq_bit = bpfenv__enumerator(vmlinux, "__RQF_FLUSH_SEQ", 4);
		sk->rodata->rqf_io_stat_bit = bpfenv__enumerator(vmlinux, "__RQF_IO_STAT", 13);
		bpfenv__set_tp_leads(sk->obj, vmlinux);
	}
	{
		struct bpf_program *p;

		bpf_object__for_each_program(p, sk->obj)
			if (!strncmp(bpf_program__name(p), "life_sysfs_", 11))
				bpf_program__set_autoload(p, l->sysfs_on);
	}

	bpfenv__vmlinux_drop();	/* libbpf parses its own copy at load: one at a time */
	err = life_bpf__load(sk);
	if (err)
		return bpfenv__fail("loading BPF programs", err);
	/* (its tracepoint is writeback_dirty_page before 5.18: dropped, said) */
	l->owners = owners && bpf_program__fd(sk->progs.life_dirty) >= 0;
	if (l->stack)
		disks__stacked(stack_pair, l);
	/* G only notes tag grants here: attached while a disk is armed
	 * (life__poll), not for every request (G 61-64 ns a run unarmed), for
	 * the commands that run all the time; doctor, which judges a short
	 * run, keeps it from the start (CI run 34: with it lazy, a third of a
	 * 2 s run's tag waits began before G was attached and named no one) */
	l->lazy_grants = block && cfg->lazy_grants && sk->rodata->targ_tags && !cfg->own_clock && !l->kernel_q;
	if (l->lazy_grants) {
		bpf_program__set_autoattach(sk->progs.life_getrq, false);
		sk->bss->grants_from = UINT64_MAX;
	}
	err = bpfenv__attach(sk->skeleton);
	if (err)
		return bpfenv__fail("attaching to tracepoints", err);
	l->last_sweep = run__mono_ns();
	sk->bss->follow_from = l->last_sweep;	/* (CLOCK_MONOTONIC, as bpf_ktime_get_ns) */
	/* without the kernel's count, skipped reads 0: said, not fatal */
	if (block && (err = skipped__start(&l->skipped, cfg->dev, bpf_map__fd(l->skel->maps.seen_disks))))
		warnf(SKIPPED_OFF, bpfenv__strerror(err));
	if (block && !l->watch) {	/* watched slots are never freed: no sweep */
		l->slots = mmap(NULL, sizeof(struct life_slot) * LIFE_SLOTS, PROT_READ | PROT_WRITE,
				MAP_SHARED, bpf_map__fd(sk->maps.bios), 0);
		if (l->slots == MAP_FAILED)
			return fail("mapping the in-flight table", "%s", strerror(errno));
	}
	if (fn) {
		l->rb = ring_buffer__new(bpf_map__fd(sk->maps.records), fn, ctx, NULL);
		if (!l->rb)
			return bpfenv__fail("opening the ring buffer", -errno);
	}
	return 0;
}

/* In-flight entries whose request never completed (device torn down, a bio
 * ended before it got a request) would fill the map: drop the old ones and
 * count them.  The map's own bound counts what could not be tracked. */
int life__sweep(struct life *l, uint64_t older_than_ns)
{
	uint64_t now = run__mono_ns();
	int n = 0;

	if (!l->slots)
		return 0;
	for (int i = 0; i < LIFE_SLOTS; i++) {
		struct life_slot *s = &l->slots[i];

		if (s->bio && s->b.q && now - s->b.q > older_than_ns) {
			s->bio = 0;
			n++;
		}
	}
	l->abandoned += n;
	l->last_sweep = now;
	return n;
}

uint64_t life__in_flight(struct life *l)
{
	uint64_t n = 0;

	for (int i = 0; l->slots && i < LIFE_SLOTS; i++)
		n += l->slots[i].bio != 0;
	return n;
}

/*
 * Lazy grants: G attached once C armed a disk (a request waited for a tag),
 * within a poll (LIFE_DRAIN_MS), and detached 2 s after the last arming
 * ends.  A wait that began before G was attached names no holders, as the
 * wait that arms a disk never did (its ring is empty): grants_from.
 */
static void grants_tick(struct life *l)
{
	uint64_t now = run__mono_ns(), until = l->skel->bss->tags_armed_until;

	if (!l->lazy_grants)
		return;
	if (!l->grants && until > now) {
		l->grants = bpf_program__attach(l->skel->progs.life_getrq);
		if (!l->grants) {
			warnf("tag holders not named: attaching block_getrq: %s", bpfenv__strerror(-errno));
			l->lazy_grants = false;
			return;
		}
		l->skel->bss->grants_from = run__mono_ns();
	} else if (l->grants && until + 2000000000ull < now) {
		l->skel->bss->grants_from = UINT64_MAX;
		bpf_link__destroy(l->grants);
		l->grants = NULL;
	}
}

int life__poll(struct life *l, int timeout_ms)
{
	int n;

	grants_tick(l);
	if (run__mono_ns() - l->last_sweep > LIFE_SWEEP_MS * 1000000ULL)
		life__sweep(l, LIFE_ABANDON_NS);
	if (l->skel && run__mono_ns() - l->last_spilled > 200000000ULL) {
		/* the histograms' keys spilled since: made here (histmap.h) */
		struct life_bpf *sk = l->skel;
		__u32 ep = sk->bss->epoch & 1;

		l->last_spilled = run__mono_ns();
		histmap__make_spilled(bpf_map__fd(ep ? sk->maps.phases1 : sk->maps.phases0),
				      bpf_map__fd(sk->maps.phases_spill), ep, sizeof(struct life_phase_key), PH_NR,
				      offsetof(struct life_phase_key, phase));
		histmap__make_spilled(bpf_map__fd(ep ? sk->maps.tops1 : sk->maps.tops0), bpf_map__fd(sk->maps.tops_spill),
				      ep, sizeof(struct life_top_key), TOP_NR, offsetof(struct life_top_key, what));
	}
	usyms__poll(l->us);
	skipped__poll(&l->skipped);

	if (!l->rb) {
		usleep(timeout_ms * 1000);
		return 0;
	}
	/* Records do not wake the reader until a quarter of the buffer waits
	 * (life.bpf.c: one wakeup per record would cost more than the record).
	 * So the poll is also a timer: whatever waits is consumed when it
	 * returns, and the output flushed, so a record reaches a tty, a pipe
	 * or a file within LIFE_DRAIN_MS of its request's completion at any
	 * rate.  At full rate the wakeups come first and nothing changes. */
	n = ring_buffer__poll(l->rb, timeout_ms);
	if (n == -EINTR)
		n = 0;
	if (n >= 0)
		n = ring_buffer__consume(l->rb);
	/* a negative return from the callback stops polling: pass it on */
	if (n < 0)
		return n;
	return run__flush() ? 1 : 0;
}

int64_t life__skipped(struct life *l)
{
	return skipped__update(&l->skipped);
}

int64_t life__skipped_interval(struct life *l)
{
	return skipped__interval(&l->skipped);
}

/* Every link gone (the skeleton's together: attach.c says why) and the
 * skipped count stopped; again, nothing. */
static void unhook(struct life *l)
{
	skipped__stop(&l->skipped);
	bpf_link__destroy(l->grants);
	l->grants = NULL;
	if (l->skel)
		attach__detach_skeleton(l->skel->skeleton);
}

void life__detach(struct life *l)
{
	unhook(l);
	bpfenv__wait_programs();
}

int life__run(struct life *l, const char *ready_file, const char *ready_msg)
{
	int err;

	run__signals();
	if ((err = run__ready(ready_file, ready_msg)))
		return err;
	while (!run__stopping()) {
		err = life__poll(l, LIFE_DRAIN_MS);
		if (err > 0)	/* the output failed: said already */
			return err;
		if (err < 0)
			return fail("reading records", "%s", strerror(-err));
	}
	life__detach(l);
	life__drain(l);
	return run__flush() ? 1 : 0;
}

void life__drain(struct life *l)
{
	if (l->rb)
		ring_buffer__consume(l->rb);
}

int life__kstack_fd(const struct life *l)
{
	return bpfenv__ustack_fd(l->skel->rodata->kmemo_on, l->skel->maps.kstacks, l->skel->maps.stacks);
}

int life__ustack_fd(const struct life *l)
{
	return bpfenv__ustack_fd(l->skel->rodata->ustack_walk, l->skel->maps.ustacks, l->skel->maps.stacks);
}

int life__ring_fd(const struct life *l)
{
	return bpf_map__fd(l->skel->maps.records);
}

void life__stats(struct life *l, struct life_stats *s)
{
	int ncpu = libbpf_num_possible_cpus(), zero = 0;

	*s = l->skel->bss->stats;
	s->abandoned = l->abandoned;
	if (ncpu > 0) {
		struct life_pcpu n[ncpu];

		s->ran = 0;
		if (!bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.completions), &zero, n))
			for (int i = 0; i < ncpu; i++) {
				s->ran += n[i].ran;
				s->records += n[i].records;
			}
	}
	s->completed = s->ran - s->not_final - s->other_part;
}

void life__stop(struct life *l)
{
	unhook(l);	/* (export and record stop without life__detach) */
	ring_buffer__free(l->rb);
	if (l->slots)
		munmap(l->slots, sizeof(struct life_slot) * LIFE_SLOTS);
	life_bpf__destroy(l->skel);
	memset(l, 0, sizeof(*l));
}

bool life__dirtier_comm(struct life *l, uint32_t pid, char *comm, size_t len)
{
	struct life_dirtier dt = {};

	if (!l->owners || !l->skel || bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.dirtier_comms), &pid, &dt))
		return false;
	snprintf(comm, len, "%.*s", LIFE_COMM_LEN, dt.comm);
	return true;
}

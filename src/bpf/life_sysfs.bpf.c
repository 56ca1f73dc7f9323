// SPDX-License-Identifier: GPL-2.0
/*
 * The queue-attribute watcher of the life engine (sysfs_watch.bpf.h) on the
 * write family's own syscall events.  Its records go to the engine's ring
 * (life.bpf.h) beside the requests', so the user side can name the writer of
 * a stalled request.  Linked with life_block.bpf.c into life.bpf.o (see the
 * Makefile).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "life.h"
extern const volatile bool targ_test_spill;	/* (life_block.bpf.c) */
#define HIST_NO_ALLOC targ_test_spill
#include "life.bpf.h"
#include "sysfs_watch.bpf.h"

SYSFS_WRITES_MAP(sysfs_writes);

/* Entries in sysfs_writes: while 0, a write's exit looks nothing up. */
__s64 sysfs_pending = 0;

#define SYSFS_WATCH(name, vec)								\
SEC("tp/syscalls/sys_enter_" #name)							\
int life_sysfs_enter_##name(struct trace_event_raw_sys_enter *ctx)			\
{											\
	return sysfs_enter(&sysfs_writes, &sysfs_pending, &records, &stats.lost, NULL,	\
			   (unsigned int)ctx->args[0], ctx->args[1], ctx->args[2], vec);	\
}											\
SEC("tp/syscalls/sys_exit_" #name)							\
int life_sysfs_exit_##name(struct trace_event_raw_sys_exit *ctx)			\
{											\
	return sysfs_exit(&sysfs_writes, &sysfs_pending, &records, &stats.lost, ctx->ret);\
}

SYSFS_WATCH(write, false)
SYSFS_WATCH(pwrite64, false)
SYSFS_WATCH(writev, true)
SYSFS_WATCH(pwritev, true)
SYSFS_WATCH(pwritev2, true)

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * iodig throttle: at writeback:balance_dirty_pages, in the dirtying task's
 * context, each decision of dirty throttling per (process, backing device):
 * whether it slept (pause > 0: io_schedule_timeout(pause) follows; the
 * tracepoint gives it in ms) and the dirty pages against their limits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "throttle.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_pid = 0;
const volatile char filter_bdi[THROTTLE_BDI_LEN] = {};	/* "" or "MAJ:MIN" */

struct throttle_stats stats;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct throttle_key);
	__type(value, struct throttle_val);
} throttles SEC(".maps");

/* The device's fields were bdi_setpoint and bdi_dirty until "writeback:
 * Rename variables in trace_balance_dirty_pages()" (2025, v6.15): 5.10, 6.1
 * and 6.12 have those names. */
struct trace_event_raw_balance_dirty_pages___bdi {
	unsigned long bdi_setpoint, bdi_dirty;
};

SEC("tracepoint/writeback/balance_dirty_pages")
int throttle_bdp(struct trace_event_raw_balance_dirty_pages *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct throttle_key k = {};
	struct throttle_val *v, zero = {};
	long pause;

	if (filter_pid && (id >> 32) != filter_pid)
		return 0;
	bpf_probe_read_kernel_str(k.bdi, sizeof(k.bdi), ctx->bdi);
	for (int i = 0; i < THROTTLE_BDI_LEN && filter_bdi[0]; i++) {
		if (k.bdi[i] != filter_bdi[i])
			return 0;
		if (!k.bdi[i])
			break;
	}
	k.pid = id >> 32;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	v = bpf_map_lookup_elem(&throttles, &k);
	if (!v) {
		bpf_map_update_elem(&throttles, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&throttles, &k);
		if (!v) {
			__sync_fetch_and_add(&stats.map_full, 1);
			return 0;
		}
	}
	pause = BPF_CORE_READ(ctx, pause);
	__sync_fetch_and_add(&v->calls, 1);
	if (pause > 0) {
		__sync_fetch_and_add(&v->pauses, 1);
		__sync_fetch_and_add(&v->paused_ms, pause);
	}
	v->dirty = BPF_CORE_READ(ctx, dirty);
	v->limit = BPF_CORE_READ(ctx, limit);
	if (bpf_core_field_exists(ctx->wb_dirty)) {
		v->wb_dirty = BPF_CORE_READ(ctx, wb_dirty);
		v->wb_setpoint = BPF_CORE_READ(ctx, wb_setpoint);
	} else {
		struct trace_event_raw_balance_dirty_pages___bdi *o = (void *)ctx;

		v->wb_dirty = BPF_CORE_READ(o, bdi_dirty);
		v->wb_setpoint = BPF_CORE_READ(o, bdi_setpoint);
	}
	return 0;
}

# The request engine's always-on commands (slow, export, record) stopped by
# Ctrl-C under a system-call load: each prints what it gathered, is gone
# within 0.6 s, and leaves none of its BPF links or programs.  Their
# queue-write watcher is ten syscall tracepoints on perf events, and each
# such link's detach waits for grace periods (perf_event_detach_bpf_prog,
# then perf_trace_event_unreg): about 70 ms a link on 6.18, so 0.70-0.74 s
# to exit one link after another.  The links now go together from threads
# (src/engine/attach.c), where the first waits overlap: 0.40-0.46 s.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftool >/dev/null || skip "needs bpftool"

dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null & DD=$!
defer "kill $DD 2>/dev/null"
EP=$(free_port)

# stopped NAME IODIG-ARGS...: started, watched, stopped by SIGINT, checked
stopped() {
	local name=$1 pids lids n
	shift
	start_iodig "$T/$name.out" "$@"
	n=$(own_progs "$IODIG_PID" life_sysfs_)
	[ "$n" = 10 ] || die "$name: $n queue-write watcher programs loaded, want 10 (5 calls, entry and exit)"
	pids=$(own_ids "$IODIG_PID" prog_id); lids=$(own_ids "$IODIG_PID" link_id)
	sleep 0.5
	stop_iodig_timed
	[ "$STOP_MS" -le 600 ] || die "$name took $STOP_MS ms from SIGINT to exit (want 600 at most; one link after another it took 700)"
	ok "$name (dd writing 1-byte blocks): exited $STOP_MS ms after SIGINT"
	released "$name" "$lids" "$pids"
}

stopped slow slow 10
grep -q "^[0-9]* requests completed, " "$T/slow.out.err" || die "slow printed no summary after SIGINT: $(tail -c 300 "$T/slow.out.err")"
stopped export export --listen "127.0.0.1:$EP"
stopped record record -o "$T/r" --json
grep -q "^iodig record: 0 recordings written; [0-9]* records kept at the end" "$T/record.out.err" ||
	die "record printed no summary after SIGINT: $(tail -c 300 "$T/record.out.err")"
kill $DD

#!/bin/bash
# bench/issue11.sh [SECONDS] [ROUNDS] [OTHER_IODIG]: iodig top and iodig stacks
# beside what a user would run instead on this kernel (and another build's,
# the one before a change, when given), in one run (bench.py: BPF ns per
# request, IOPS kept, peak RSS, time to live); then iodig exec beside
# libbpf-tools execsnoop, as the cost of one fork+exec; then the cost of
# naming 10,000 user addresses (build/bench/symbench); then what top's
# dirtier watch costs a dirtied page (BPF run time from bpf_stats).  libbpf-tools
# biotop and biostacks need kprobes (blk_account_io_start), which this
# kernel lacks: bpftrace on the block tracepoints stands in for them.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-4}; rounds=${2:-3}; other=${3:-}
. bench/lib.sh
before=()
[ -z "$other" ] || before=(
	"before: top=^Tracing block I/O=exec $other top -b 1 >/dev/null"
	"before: stacks=^Counting stacks=exec $other stacks -n 5 >/dev/null")
/usr/bin/python3 bench/bench.py "$dev" "$secs" "$rounds" \
	"iodig top=^Tracing block I/O=exec ./iodig top -b 1 >/dev/null" \
	"bpftrace per-process bytes (top stand-in)=^Attaching=exec $BT_TOP_STANDIN" \
	"iodig stacks=^Counting stacks=exec ./iodig stacks -n 5 >/dev/null" \
	"iodig slow 10=^Tracing=exec ./iodig slow 10 --no-queue-writes >/dev/null" \
	"iodig slow 10 -K -U=^Tracing=exec ./iodig slow 10 -K -U --no-queue-writes >/dev/null" \
	"bpftrace kstack+ustack count (biostacks stand-in)=^Attaching=exec $BT_KUSTACK" \
	"${before[@]}"

echo
echo "exec: wall time of 2000 fork+exec of /bin/true, best of 3, added per exec:"
echo
# forkexec N ROUNDS: ns per fork+exec of /bin/true, the best of ROUNDS runs of N
forkexec() { python3 -c '
import os, sys, time
n, rounds = int(sys.argv[1]), int(sys.argv[2])
best = 1e9
for r in range(rounds):
    t0 = time.perf_counter()
    for i in range(n):
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/true", ["true"])
        os.waitpid(pid, 0)
    best = min(best, (time.perf_counter() - t0) / n)
print(int(best * 1e9))' "$1" "$2"; }
t() { forkexec 2000 3; }
base=$(t)
echo "| tool | us per exec | added |"
echo "|---|---:|---:|"
echo "| none | $((base / 1000)) | |"
for tool in "iodig exec" "execsnoop"; do
	case $tool in
	"iodig exec") iodig_bg exec ;;
	execsnoop) execsnoop >/dev/null 2>&1 & p=$!; sleep 2 ;;
	esac
	x=$(t)
	kill -INT $p; wait $p || true
	echo "| $tool | $((x / 1000)) | +$(( (x - base) / 1000 )).$(( ( (x - base) % 1000) / 100 )) us |"
done

echo
echo "-U watches every process's executable mappings (perf mmap2 records with"
echo "build-ids) to name processes that exit before their first scan.  Its cost"
echo "on fork+exec of /bin/true, 1000 each, rounds alternating without and with"
echo "iodig stacks -U (the noise of one measure here is a few percent):"
echo
echo "| round | us per exec, none | with stacks -U |"
echo "|---|---:|---:|"
t1000() { echo $(( $(forkexec 1000 1) / 1000 )); }
for r in 1 2 3 4 5; do
	a=$(t1000)
	iodig_bg stacks -U
	b=$(t1000)
	kill -INT $p; wait $p || true
	echo "| $r | $a | $b |"
done

echo
echo "naming user addresses (src/lib/usyms through build/bench/symbench), in a"
echo "python3 that has mapped libc and libLLVM-19 (120 MB of text, 100k symbols):"
echo
[ -x build/bench/symbench ] || make -s build/bench/symbench
/usr/bin/python3 -c 'import ctypes, time; ctypes.CDLL("libLLVM-19.so"); time.sleep(120)' & P=$!
sleep 1
build/bench/symbench $P libc.so 10000
build/bench/symbench $P libLLVM 10000
kill $P

echo
echo "top's dirtier watch (writeback_dirty_folio): BPF ns per dirtied page,"
echo "256 MiB written through the page cache of $n in 4 KiB writes (a 4 KiB"
echo "folio each), beside bpftrace counting the same tracepoint per process:"
echo
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
echo "| tool | pages dirtied | BPF ns each |"
echo "|---|---:|---:|"
for tool in "iodig top" bpftrace; do
	if [ "$tool" = "iodig top" ]; then
		iodig_bg top -b 1
		prog=life_dirty
	else
		bpftrace -e 'tracepoint:writeback:writeback_dirty_folio { @[pid, comm] = count(); }' >/dev/null 2>&1 & p=$!
		sleep 3
		prog=writeback_dirty
	fi
	dd if=/dev/zero of="$dev" bs=4k count=65536 status=none
	bpftool prog show name "$prog" -j | jq -r "\"| $tool | \\(.run_cnt) | \\(.run_time_ns / .run_cnt | floor) |\""
	kill -INT $p; wait $p || true
done
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
